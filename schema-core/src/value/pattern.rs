//! `pattern` and `patternProperties`: PCRE2, compiled as the server compiles `$jsonSchema` patterns.
//!
//! Since 6.1 the server matches with PCRE2, the 10.42 release it vendors, which
//! [`mongo_schema_pcre2`] builds from source and runs as the server does (interpreter only, match
//! limit 200,000, depth limit 4,000: see that crate). A `$jsonSchema` `pattern` takes no flags,
//! so it is compiled with `PCRE2_UTF` only (`pcre_util::flagsToOptions("")`): case-sensitive, unanchored,
//! `.` does not match `\n`, `$` also matches before a final newline, `\d`/`\w`/`\s` and POSIX
//! classes are ASCII-only (no `PCRE2_UCP`), inline flags such as `(?i)` work, as do lookaround,
//! backreferences, possessive quantifiers, atomic groups and `\p{..}` Unicode properties.
//! Every pattern PCRE2 accepts is supported; one it rejects is a parse error with its path.
//! `patternProperties` names are compiled with no options at all, not even `PCRE2_UTF`
//! (`InternalSchemaAllowedPropertiesMatchExpression::Pattern` builds `pcre::Regex(pattern)`):
//! there `.` is one byte, a code point above 255 is refused, and a refused name is BadValue
//! "Invalid regular expression", not 51091.
//! A subject that is not valid UTF-8 never matches, and neither does one on which PCRE2 hits a
//! limit: PCRE2 reports an error, and the server's `RegexMatchExpression` reads any error as no
//! match. There is no JIT: the server's build does not enable it, and the JIT fails where the
//! interpreter does not (a JIT stack overflow on `^(\w|-)+$` from about 1,000 characters).
//!
//! Speed: the common validator shape, an anchored sequence of character classes with counted
//! quantifiers (`^[A-Z]{3}-[0-9]{4}$`, `^[^@\s]+@[^@\s]+$`), is also compiled to a tiny matcher
//! that runs without backtracking on ASCII subjects; it is used only when greedy matching is
//! provably exact (each variable-length class is disjoint from the class after it) and gives
//! PCRE2's answer, `$`-before-final-newline included. Everything else goes to PCRE2.

/// A compiled pattern: PCRE2, plus the simple matcher when the pattern allows it.
#[derive(Debug)]
pub(crate) struct Pattern {
    pcre: mongo_schema_pcre2::Regex,
    simple: Option<Simple>,
}

/// One atom of a simple pattern: an ASCII class repeated `min..=max` times.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Atom {
    class: u128,
    min: u32,
    max: u32,
}

/// `^atom atom ... $?` over ASCII.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Simple {
    atoms: Vec<Atom>,
    /// Each atom's class as a byte table (false for every non-ASCII byte).
    tables: Vec<[bool; 256]>,
    end_anchor: bool,
}

const ANY_BUT_NEWLINE: u128 = !(1u128 << b'\n');

fn range(lo: u8, hi: u8) -> u128 {
    (lo..=hi).fold(0u128, |m, c| m | (1u128 << c))
}

fn digit() -> u128 {
    range(b'0', b'9')
}

fn word() -> u128 {
    range(b'0', b'9') | range(b'a', b'z') | range(b'A', b'Z') | (1u128 << b'_')
}

fn space() -> u128 {
    // PCRE2 \s: space, \t, \n, \v, \f, \r.
    [b' ', b'\t', b'\n', 0x0B, 0x0C, b'\r']
        .iter()
        .fold(0u128, |m, &c| m | (1u128 << c))
}

const META: &[u8] = b".^$|?*+()[]{}\\";

/// Parses `^...` into atoms, or `None` when the pattern needs PCRE2.
fn simple(pattern: &str) -> Option<Simple> {
    let p = pattern.as_bytes();
    if !pattern.is_ascii() || p.first() != Some(&b'^') {
        return None;
    }
    let mut i = 1;
    let mut atoms = Vec::new();
    let mut end_anchor = false;
    while i < p.len() {
        let c = p[i];
        let class = match c {
            b'$' => {
                if i + 1 != p.len() {
                    return None;
                }
                end_anchor = true;
                break;
            }
            b'.' => {
                i += 1;
                ANY_BUT_NEWLINE
            }
            b'\\' => {
                let e = *p.get(i + 1)?;
                i += 2;
                match e {
                    b'd' => digit(),
                    b'w' => word(),
                    b's' => space(),
                    b'D' => !digit(),
                    b'W' => !word(),
                    b'S' => !space(),
                    e if e.is_ascii_punctuation() => 1u128 << e,
                    _ => return None,
                }
            }
            b'[' => {
                let (class, next) = bracket(p, i + 1)?;
                i = next;
                class
            }
            c if META.contains(&c) => return None,
            c if c.is_ascii_graphic() || c == b' ' => {
                i += 1;
                1u128 << c
            }
            _ => return None,
        };
        let (min, max, next) = quantifier(p, i)?;
        i = next;
        atoms.push(Atom { class, min, max });
    }
    // Greedy matching is exact when no variable atom can give characters to the next one.
    for w in atoms.windows(2) {
        if w[0].min != w[0].max && w[0].class & w[1].class != 0 {
            return None;
        }
    }
    let tables = atoms
        .iter()
        .map(|a| std::array::from_fn(|c| c < 128 && a.class & (1u128 << c) != 0))
        .collect();
    Some(Simple {
        atoms,
        tables,
        end_anchor,
    })
}

/// A `[...]` class starting after the `[`; returns the class and the index after `]`.
fn bracket(p: &[u8], mut i: usize) -> Option<(u128, usize)> {
    let negate = p.get(i) == Some(&b'^');
    if negate {
        i += 1;
    }
    let mut class = 0u128;
    let mut first = true;
    loop {
        let c = *p.get(i)?;
        if c == b']' && !first {
            i += 1;
            break;
        }
        if c == b']' || (c == b'[' && p.get(i + 1) == Some(&b':')) {
            return None; // `[]...]` and POSIX classes: leave them to PCRE2
        }
        first = false;
        let (lo, next) = if c == b'\\' {
            let e = *p.get(i + 1)?;
            match e {
                b'd' => {
                    class |= digit();
                    i += 2;
                    continue;
                }
                b'w' => {
                    class |= word();
                    i += 2;
                    continue;
                }
                b's' => {
                    class |= space();
                    i += 2;
                    continue;
                }
                e if e.is_ascii_punctuation() => (e, i + 2),
                _ => return None,
            }
        } else {
            (c, i + 1)
        };
        i = next;
        if p.get(i) == Some(&b'-') && p.get(i + 1).is_some_and(|&h| h != b']') {
            let hi = *p.get(i + 1)?;
            if hi == b'\\' || hi == b'[' || hi < lo {
                return None;
            }
            class |= range(lo, hi);
            i += 2;
        } else {
            class |= 1u128 << lo;
        }
    }
    Some((if negate { !class } else { class }, i))
}

/// An optional greedy quantifier at `i`: `(min, max, next index)`.
fn quantifier(p: &[u8], i: usize) -> Option<(u32, u32, usize)> {
    let (min, max, next) = match p.get(i) {
        Some(b'*') => (0, u32::MAX, i + 1),
        Some(b'+') => (1, u32::MAX, i + 1),
        Some(b'?') => (0, 1, i + 1),
        Some(b'{') => {
            let close = i + p[i..].iter().position(|&c| c == b'}')?;
            let body = std::str::from_utf8(&p[i + 1..close]).ok()?;
            let (min, max) = match body.split_once(',') {
                None => {
                    let n = body.parse().ok()?;
                    (n, n)
                }
                Some((a, "")) => (a.parse().ok()?, u32::MAX),
                Some((a, b)) => (a.parse().ok()?, b.parse().ok()?),
            };
            if min > max || max == u32::MAX && body.is_empty() {
                return None;
            }
            (min, max, close + 1)
        }
        _ => return Some((1, 1, i)),
    };
    // Lazy (`*?`) and possessive (`*+`) forms go to PCRE2.
    if matches!(p.get(next), Some(b'?' | b'+' | b'*' | b'{')) {
        return None;
    }
    Some((min, max, next))
}

impl Simple {
    /// Whether the pattern matches, in one pass; `None` when the subject has a non-ASCII byte
    /// that matters (PCRE2 decides then).
    #[inline]
    fn is_match(&self, s: &[u8]) -> Option<bool> {
        let mut pos = 0;
        for (a, table) in self.atoms.iter().zip(&self.tables) {
            let start = pos;
            let limit = if a.max == u32::MAX {
                s.len()
            } else {
                s.len().min(pos + a.max as usize)
            };
            while pos < limit && table[s[pos] as usize] {
                pos += 1;
            }
            if pos < limit && s[pos] >= 0x80 {
                return None;
            }
            if pos - start < a.min as usize {
                // Failed on an ASCII byte or the end: PCRE2 fails too (or on invalid UTF-8).
                return Some(false);
            }
        }
        if !s[pos..].is_ascii() {
            return None;
        }
        Some(!self.end_anchor || pos == s.len() || (pos + 1 == s.len() && s[pos] == b'\n'))
    }
}

/// Compiles a `pattern` keyword with the server's options (`PCRE2_UTF`), or PCRE2's message.
pub(crate) fn compile(pattern: &str) -> Result<Pattern, String> {
    compile_in(pattern, mongo_schema_pcre2::Mode::Utf)
}

/// Compiles a `patternProperties` name as the server does, with no options (not even UTF:
/// `InternalSchemaAllowedPropertiesMatchExpression::Pattern` calls `pcre::Regex(pattern)`),
/// or PCRE2's message.
pub(crate) fn compile_name(pattern: &str) -> Result<Pattern, String> {
    compile_in(pattern, mongo_schema_pcre2::Mode::Bytes)
}

fn compile_in(pattern: &str, mode: mongo_schema_pcre2::Mode) -> Result<Pattern, String> {
    let pcre = mongo_schema_pcre2::Regex::compile(pattern, mode).map_err(|e| e.to_string())?;
    // The simple matcher decides only ASCII subjects, where both modes agree.
    Ok(Pattern {
        pcre,
        simple: simple(pattern),
    })
}

/// Whether the pattern matches anywhere in `subject`; errors (invalid UTF-8, a limit hit) are
/// no match, as on the server.
#[inline]
pub(crate) fn is_match(pattern: &Pattern, subject: &[u8]) -> bool {
    if let Some(s) = &pattern.simple
        && let Some(m) = s.is_match(subject)
    {
        return m;
    }
    pattern.pcre.is_match(subject).unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dollar_matches_before_a_final_newline_as_in_pcre() {
        for p in ["^abc$", "^abc$(?#no fast path)"] {
            let p = compile(p).unwrap();
            assert!(is_match(&p, b"abc\n"));
            assert!(!is_match(&p, b"abc\nx"));
        }
    }

    #[test]
    fn search_is_unanchored_and_case_sensitive() {
        let p = compile("b+").unwrap();
        assert!(is_match(&p, b"abbc"));
        assert!(!is_match(&compile("B").unwrap(), b"abc"));
        assert!(is_match(&compile("(?i)B").unwrap(), b"abc"));
    }

    #[test]
    fn digit_class_is_ascii_only() {
        let p = compile(r"^\d$").unwrap();
        assert!(is_match(&p, b"7"));
        assert!(!is_match(&p, "\u{0663}".as_bytes())); // ARABIC-INDIC DIGIT THREE
    }

    #[test]
    fn invalid_utf8_subject_does_not_match() {
        let p = compile(".").unwrap();
        assert!(!is_match(&p, b"\xff"));
    }

    #[test]
    fn the_simple_matcher_takes_only_patterns_it_matches_exactly() {
        assert!(simple("^[A-Z]{3}-[0-9]{4}$").is_some());
        assert!(simple(r"^[^@\s]+@[^@\s]+$").is_some());
        assert!(simple("^a*ab$").is_none(), "a* could give back an a");
        assert!(simple("abc").is_none(), "unanchored");
        assert!(simple("^(a|b)$").is_none());
        assert!(simple("^a+?$").is_none());
        assert!(simple("^[[:alpha:]]$").is_none());
    }

    #[test]
    fn the_simple_matcher_agrees_with_pcre2() {
        let patterns = [
            "^[A-Z]{3}-[0-9]{4}$",
            r"^[^@\s]+@[^@\s]+$",
            "^ORD-[0-9]{8}$",
            r"^sensor-\d+$",
            "^[a-c]{1,3}x?[0-9]*$",
            r"^\w+\.\w{2,}",
            "^.b$",
            r"^[\-a]+z",
            "^[^a-y]+$",
            r"^\S+\s\S+$",
        ];
        // A fixed pseudo-random walk over a small alphabet hitting every class edge, with
        // non-ASCII bytes (valid and invalid UTF-8 sequences) that must defer to PCRE2.
        let alphabet: &[&[u8]] = &[
            b"a",
            b"b",
            b"c",
            b"x",
            b"y",
            b"z",
            b"A",
            b"B",
            b"Z",
            b"-",
            b".",
            b"@",
            b" ",
            b"_",
            b"0",
            b"1",
            b"9",
            b"\n",
            b"\t",
            "é".as_bytes(),
            b"\xff",
        ];
        let mut state = 0x1234_5678_u64;
        let (mut fast_answers, mut deferred) = (0, 0);
        for pat in patterns {
            let fast = simple(pat).unwrap_or_else(|| panic!("{pat} should be simple"));
            let both = compile(pat).unwrap();
            let pcre = mongo_schema_pcre2::Regex::new(pat).unwrap();
            // PCRE2 reports an error on invalid UTF-8, which the server treats as no match.
            let truth = |s: &[u8]| pcre.is_match(s).unwrap_or(false);
            for _ in 0..4000 {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1);
                let len = (state >> 59) as usize;
                let subject: Vec<u8> = (0..len)
                    .flat_map(|k| {
                        let i = ((state >> (k * 3 % 50)) as usize + k) % alphabet.len();
                        alphabet[i].iter().copied()
                    })
                    .collect();
                match fast.is_match(&subject) {
                    Some(m) => {
                        fast_answers += 1;
                        assert_eq!(m, truth(&subject), "{pat} on {subject:?}");
                    }
                    None => deferred += 1,
                }
                assert_eq!(
                    is_match(&both, &subject),
                    truth(&subject),
                    "{pat} on {subject:?}"
                );
            }
            for s in ["ABC-1234", "ABC-1234\n", "a@b", "ORD-12345678", "sensor-12"] {
                assert_eq!(
                    fast.is_match(s.as_bytes()),
                    Some(truth(s.as_bytes())),
                    "{pat} on {s:?}"
                );
            }
        }
        assert!(
            fast_answers > 10_000 && deferred > 1_000,
            "{fast_answers} {deferred}"
        );
    }
}
