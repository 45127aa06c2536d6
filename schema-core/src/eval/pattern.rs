//! `pattern` and `patternProperties`: PCRE2, compiled as the server compiles `$jsonSchema` patterns.
//!
//! Since 6.1 the server matches with PCRE2; a `$jsonSchema` `pattern` takes no flags, so it is
//! compiled with `PCRE2_UTF` only (`pcre_util::flagsToOptions("")`): case-sensitive, unanchored,
//! `.` does not match `\n`, `$` also matches before a final newline, `\d`/`\w`/`\s` and POSIX
//! classes are ASCII-only (no `PCRE2_UCP`), inline flags such as `(?i)` work, as do lookaround,
//! backreferences, possessive quantifiers, atomic groups and `\p{..}` Unicode properties.
//! Every pattern PCRE2 accepts is supported; one it rejects is a parse error with its path.
//! A subject that is not valid UTF-8 never matches (PCRE2 reports an error; the server treats it
//! as no match). The JIT is used when the platform has it.

/// A compiled pattern.
pub(crate) type Pattern = pcre2::bytes::Regex;

/// Compiles a pattern with the server's options, or PCRE2's message.
pub(crate) fn compile(pattern: &str) -> Result<Pattern, String> {
    pcre2::bytes::RegexBuilder::new()
        .utf(true)
        .jit_if_available(true)
        .build(pattern)
        .map_err(|e| e.to_string())
}

/// Whether the pattern matches anywhere in `subject`; errors (invalid UTF-8) are no match.
#[inline]
pub(crate) fn is_match(pattern: &Pattern, subject: &[u8]) -> bool {
    pattern.is_match(subject).unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dollar_matches_before_a_final_newline_as_in_pcre() {
        let p = compile("^abc$").unwrap();
        assert!(is_match(&p, b"abc\n"));
        assert!(!is_match(&p, b"abc\nx"));
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
}
