//! A minimal bounds-checked BSON reader over `&[u8]`: the evaluator's hot loop.
//!
//! It reads each element's type, name and value slice without decoding anything it does not
//! need, and never allocates. Malformed input yields [`Bad`]; [`check_structure`] reports the
//! byte offset and reason for `validate_bytes`.

/// The input is not well-formed BSON (the fast path carries no detail).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Bad;

/// BSON element type bytes.
pub(crate) mod ty {
    pub const DOUBLE: u8 = 0x01;
    pub const STRING: u8 = 0x02;
    pub const DOCUMENT: u8 = 0x03;
    pub const ARRAY: u8 = 0x04;
    pub const BINARY: u8 = 0x05;
    pub const UNDEFINED: u8 = 0x06;
    pub const OBJECT_ID: u8 = 0x07;
    pub const BOOL: u8 = 0x08;
    pub const DATE: u8 = 0x09;
    pub const NULL: u8 = 0x0A;
    pub const REGEX: u8 = 0x0B;
    pub const DB_POINTER: u8 = 0x0C;
    pub const CODE: u8 = 0x0D;
    pub const SYMBOL: u8 = 0x0E;
    pub const CODE_WITH_SCOPE: u8 = 0x0F;
    pub const INT32: u8 = 0x10;
    pub const TIMESTAMP: u8 = 0x11;
    pub const INT64: u8 = 0x12;
    pub const DECIMAL: u8 = 0x13;
    pub const MIN_KEY: u8 = 0xFF;
    pub const MAX_KEY: u8 = 0x7F;
}

#[inline]
fn read_i32(b: &[u8], at: usize) -> Result<i32, Bad> {
    match b.get(at..at + 4) {
        Some(s) => Ok(i32::from_le_bytes([s[0], s[1], s[2], s[3]])),
        None => Err(Bad),
    }
}

/// Length of a BSON string value (int32 length, bytes, NUL) starting at `at`, checked.
#[inline(always)]
fn string_len(b: &[u8], at: usize) -> Result<usize, Bad> {
    let n = read_i32(b, at)?;
    if n < 1 {
        return Err(Bad);
    }
    let end = at + 4 + n as usize;
    match b.get(end - 1) {
        Some(0) => Ok(4 + n as usize),
        _ => Err(Bad),
    }
}

#[inline]
fn cstring_len(b: &[u8], at: usize) -> Result<usize, Bad> {
    match b.get(at..) {
        Some(rest) => match rest.iter().position(|&c| c == 0) {
            Some(p) => Ok(p + 1),
            None => Err(Bad),
        },
        None => Err(Bad),
    }
}

/// Value sizes of the fixed-size types, plus one (0: the size is read from the value, or the
/// type is unknown).
const FIXED: [u8; 256] = {
    let mut table = [0u8; 256];
    table[ty::DOUBLE as usize] = 9;
    table[ty::DATE as usize] = 9;
    table[ty::INT64 as usize] = 9;
    table[ty::TIMESTAMP as usize] = 9;
    table[ty::INT32 as usize] = 5;
    table[ty::OBJECT_ID as usize] = 13;
    table[ty::BOOL as usize] = 2;
    table[ty::DECIMAL as usize] = 17;
    table[ty::UNDEFINED as usize] = 1;
    table[ty::NULL as usize] = 1;
    table[ty::MIN_KEY as usize] = 1;
    table[ty::MAX_KEY as usize] = 1;
    table
};

/// Size of the value of type `t` starting at `at` in `b`.
#[inline(always)]
pub(crate) fn value_len(t: u8, b: &[u8], at: usize) -> Result<usize, Bad> {
    let fixed = FIXED[t as usize];
    if fixed != 0 {
        let n = usize::from(fixed - 1);
        return if at + n > b.len() { Err(Bad) } else { Ok(n) };
    }
    let n = match t {
        ty::DOUBLE | ty::DATE | ty::INT64 | ty::TIMESTAMP => 8,
        ty::INT32 => 4,
        ty::STRING | ty::CODE | ty::SYMBOL => string_len(b, at)?,
        ty::DOCUMENT | ty::ARRAY => {
            let n = read_i32(b, at)?;
            if n < 5 {
                return Err(Bad);
            }
            n as usize
        }
        ty::BINARY => {
            let n = read_i32(b, at)?;
            if n < 0 {
                return Err(Bad);
            }
            5 + n as usize
        }
        ty::UNDEFINED | ty::NULL | ty::MIN_KEY | ty::MAX_KEY => 0,
        ty::OBJECT_ID => 12,
        ty::BOOL => 1,
        ty::DECIMAL => 16,
        ty::REGEX => {
            let a = cstring_len(b, at)?;
            a + cstring_len(b, at + a)?
        }
        ty::DB_POINTER => string_len(b, at)? + 12,
        ty::CODE_WITH_SCOPE => {
            let n = read_i32(b, at)?;
            if n < 14 {
                return Err(Bad);
            }
            n as usize
        }
        _ => return Err(Bad),
    };
    if at + n > b.len() {
        return Err(Bad);
    }
    Ok(n)
}

/// Position of the first NUL byte, eight bytes at a time (field names end with one).
#[inline]
pub(crate) fn nul(s: &[u8]) -> Option<usize> {
    let mut i = 0;
    while i + 8 <= s.len() {
        if let Some(p) = first_zero(word(&s[i..i + 8])) {
            return Some(i + p);
        }
        i += 8;
    }
    s[i..].iter().position(|&c| c == 0).map(|p| i + p)
}

/// Eight bytes as a little-endian word.
#[inline(always)]
fn word(s: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(s);
    u64::from_le_bytes(w)
}

/// The index of the first zero byte of a little-endian word.
#[inline(always)]
fn first_zero(x: u64) -> Option<usize> {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let found = x.wrapping_sub(LO) & !x & HI;
    // The lowest flagged byte is the first zero (borrows only run upwards).
    (found != 0).then(|| (found.trailing_zeros() / 8) as usize)
}

/// The first (at most) eight bytes of a name as a little-endian word, zero-padded: with the
/// length, it tells most names apart in one comparison.
#[inline]
pub(crate) fn head_word(name: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    let n = name.len().min(8);
    w[..n].copy_from_slice(&name[..n]);
    u64::from_le_bytes(w)
}

/// One element: its type byte, name bytes (no NUL) and value bytes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Elem<'a> {
    pub ty: u8,
    pub name: &'a [u8],
    /// [`head_word`] of `name`, read during the scan for the name's end.
    pub head: u64,
    pub value: &'a [u8],
}

/// The length of the NUL-terminated name at `start` (searching below `end`) and its
/// [`head_word`], from the same eight-byte load when the name is short.
#[inline(always)]
fn name_at(b: &[u8], start: usize, end: usize) -> Option<(usize, u64)> {
    if let Some(s) = b.get(start..start + 8)
        && start + 8 <= end
    {
        let x = word(s);
        if let Some(len) = first_zero(x) {
            let head = if len == 0 {
                0
            } else {
                x & (u64::MAX >> (64 - 8 * len))
            };
            return Some((len, head));
        }
        let len = 8 + nul(&b[start + 8..end])?;
        return Some((len, x));
    }
    let len = nul(b.get(start..end)?)?;
    Some((len, head_word(&b[start..start + len])))
}

/// Iterates the elements of one document or array (`bytes` is exactly the document).
#[derive(Clone, Debug)]
pub(crate) struct Iter<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Iter<'a> {
    /// Starts iterating a document whose bytes are exactly `bytes`.
    #[inline]
    pub(crate) fn new(bytes: &'a [u8]) -> Result<Iter<'a>, Bad> {
        let n = read_i32(bytes, 0)?;
        if n < 5 || n as usize != bytes.len() {
            return Err(Bad);
        }
        // The terminating NUL is checked when iteration reaches it: reading it here would touch
        // the document's last cache line before its first.
        Ok(Iter { bytes, pos: 4 })
    }

    /// The next element, `Ok(None)` at the end. Inlined into every loop: returning the element
    /// through memory costs more than the call.
    #[inline(always)]
    pub(crate) fn next_elem(&mut self) -> Result<Option<Elem<'a>>, Bad> {
        Ok(self.next_expecting(None)?.map(|(e, _)| e))
    }

    /// [`Iter::next_elem`] for a caller that expects a name shorter than eight bytes, given as
    /// `(length, head word)`: when the next name is exactly that (its bytes and its NUL in one
    /// masked comparison), the flag is true and no scan for the name's end runs.
    #[inline(always)]
    pub(crate) fn next_expecting(
        &mut self,
        expect: Option<(usize, u64)>,
    ) -> Result<Option<(Elem<'a>, bool)>, Bad> {
        let b = self.bytes;
        let end = b.len() - 1;
        if self.pos >= end {
            return if self.pos == end && b[end] == 0 {
                Ok(None)
            } else {
                Err(Bad)
            };
        }
        let t = b[self.pos];
        if t == 0 {
            return Err(Bad);
        }
        let name_start = self.pos + 1;
        let mut expected = None;
        if let Some((len, head)) = expect
            && len < 8
            && let Some(s) = b.get(name_start..name_start + 8)
            && name_start + 8 <= end
        {
            // The name's bytes and the NUL after them: the head word is zero at `len`.
            let mask = u64::MAX >> (56 - 8 * len);
            if word(s) & mask == head {
                expected = Some((len, head));
            }
        }
        let matched = expected.is_some();
        let (name_len, head) = match expected {
            Some(x) => x,
            None => match name_at(b, name_start, end) {
                Some(x) => x,
                None => return Err(Bad),
            },
        };
        let value_start = name_start + name_len + 1;
        let n = value_len(t, &b[..end], value_start)?;
        self.pos = value_start + n;
        Ok(Some((
            Elem {
                ty: t,
                name: &b[name_start..name_start + name_len],
                head,
                value: &b[value_start..value_start + n],
            },
            matched,
        )))
    }
}

/// The bytes of a string value (without length and NUL).
#[inline]
pub(crate) fn str_bytes(value: &[u8]) -> &[u8] {
    &value[4..value.len() - 1]
}

#[inline]
pub(crate) fn f64_of(value: &[u8]) -> f64 {
    f64::from_bits(word(&value[..8]))
}

#[inline]
pub(crate) fn i64_of(value: &[u8]) -> i64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&value[..8]);
    i64::from_le_bytes(a)
}

#[inline]
pub(crate) fn i32_of(value: &[u8]) -> i32 {
    i32::from_le_bytes([value[0], value[1], value[2], value[3]])
}

/// The number held by a numeric element, `None` for other types.
#[inline]
pub(crate) fn num_of(t: u8, value: &[u8]) -> Option<super::number::Num> {
    use super::number::{Dec, Num};
    match t {
        ty::INT32 => Some(Num::Int(i64::from(i32_of(value)))),
        ty::INT64 => Some(Num::Int(i64_of(value))),
        ty::DOUBLE => Some(Num::Double(f64_of(value))),
        ty::DECIMAL => {
            let mut a = [0u8; 16];
            a.copy_from_slice(&value[..16]);
            Some(Num::Dec(Dec::from_bytes(a)))
        }
        _ => None,
    }
}

/// Where and why bytes are not a well-formed BSON document.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("malformed BSON at byte {offset}: {reason}")]
pub struct MalformedBson {
    /// Byte offset of the problem from the start of the input.
    pub offset: usize,
    /// What is wrong.
    pub reason: String,
}

/// How deep documents may nest, as the server allows for stored documents.
pub const MAX_DEPTH: usize = 100;

fn malformed(offset: usize, reason: impl Into<String>) -> MalformedBson {
    MalformedBson {
        offset,
        reason: reason.into(),
    }
}

/// Checks that `bytes` is exactly one well-formed document: lengths, terminators, known types,
/// valid UTF-8 in names and strings, booleans 0 or 1, nesting at most [`MAX_DEPTH`].
pub(crate) fn check_structure(bytes: &[u8]) -> Result<(), MalformedBson> {
    if bytes.len() < 5 {
        return Err(malformed(0, "fewer than 5 bytes: not a document"));
    }
    let n = read_i32(bytes, 0).map_err(|_| malformed(0, "truncated length"))?;
    if n < 5 || n as usize != bytes.len() {
        return Err(malformed(
            0,
            format!(
                "document length {n} does not match the {} given",
                crate::plural::count(bytes.len(), "byte")
            ),
        ));
    }
    check_doc(bytes, 0, n as usize, 1)
}

/// Whether `s` is valid UTF-8, with the all-ASCII case (most names and strings) inlined.
#[inline(always)]
fn utf8(s: &[u8]) -> bool {
    s.is_ascii() || std::str::from_utf8(s).is_ok()
}

fn check_string(b: &[u8], at: usize, what: &str) -> Result<usize, MalformedBson> {
    let n = string_len(b, at).map_err(|_| malformed(at, format!("bad {what} length")))?;
    if !utf8(&b[at + 4..at + n - 1]) {
        return Err(malformed(at + 4, format!("{what} is not valid UTF-8")));
    }
    Ok(n)
}

fn check_doc(b: &[u8], start: usize, len: usize, depth: usize) -> Result<(), MalformedBson> {
    if depth > MAX_DEPTH {
        return Err(malformed(
            start,
            format!("nesting deeper than {MAX_DEPTH} levels"),
        ));
    }
    let end = start + len - 1;
    if b[end] != 0 {
        return Err(malformed(end, "document does not end with a NUL byte"));
    }
    let mut pos = start + 4;
    while pos < end {
        let t = b[pos];
        if t == 0 {
            return Err(malformed(
                pos,
                "NUL type byte before the end of the document",
            ));
        }
        let name_start = pos + 1;
        let Some(name_len) = nul(&b[name_start..end]) else {
            return Err(malformed(name_start, "unterminated field name"));
        };
        if !utf8(&b[name_start..name_start + name_len]) {
            return Err(malformed(name_start, "field name is not valid UTF-8"));
        }
        let at = name_start + name_len + 1;
        let n = value_len(t, &b[..end], at).map_err(|_| {
            if matches!(t, 0x01..=0x13 | ty::MIN_KEY | ty::MAX_KEY) {
                malformed(at, format!("value of type 0x{t:02x} overruns its document"))
            } else {
                malformed(pos, format!("unknown element type 0x{t:02x}"))
            }
        })?;
        match t {
            ty::STRING | ty::CODE | ty::SYMBOL => {
                check_string(b, at, "string")?;
            }
            ty::DB_POINTER => {
                check_string(b, at, "string")?;
            }
            ty::DOCUMENT | ty::ARRAY => check_doc(b, at, n, depth + 1)?,
            ty::BOOL if b[at] > 1 => {
                return Err(malformed(at, "boolean is neither 0 nor 1"));
            }
            ty::REGEX => {
                let a = cstring_len(b, at).map_err(|_| malformed(at, "bad regex"))?;
                if !utf8(&b[at..at + n - 1]) {
                    return Err(malformed(at, "regex is not valid UTF-8"));
                }
                let _ = a;
            }
            ty::CODE_WITH_SCOPE => {
                let s = check_string(b, at + 4, "code")?;
                let scope_at = at + 4 + s;
                let scope_len =
                    read_i32(b, scope_at).map_err(|_| malformed(scope_at, "bad scope length"))?;
                if scope_len < 5 || scope_at + scope_len as usize != at + n {
                    return Err(malformed(scope_at, "code-with-scope lengths disagree"));
                }
                check_doc(b, scope_at, scope_len as usize, depth + 1)?;
            }
            _ => {}
        }
        pos = at + n;
    }
    if pos != end {
        return Err(malformed(pos, "last element overruns the document"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_every_element_of_a_document() {
        let doc = bson::doc! { "a": 1, "b": "x", "c": { "d": [1.5, null] } };
        let bytes = bson::serialize_to_vec(&doc).unwrap();
        let mut it = Iter::new(&bytes).unwrap();
        let mut names = Vec::new();
        while let Some(e) = it.next_elem().unwrap() {
            names.push(String::from_utf8(e.name.to_vec()).unwrap());
        }
        assert_eq!(names, ["a", "b", "c"]);
        assert!(check_structure(&bytes).is_ok());
    }

    #[test]
    fn nul_finds_the_first_zero_byte_at_any_position() {
        for len in 0..20 {
            for at in 0..=len {
                let mut s = vec![b'x'; len];
                if at < len {
                    s[at] = 0;
                    s.extend_from_slice(&[0, 1]);
                }
                let want = s.iter().position(|&c| c == 0);
                assert_eq!(nul(&s), want, "len {len} at {at}");
            }
        }
        assert_eq!(nul(&[0x80, 0x01, 0xff, 0, 0x80, 0, 0, 0, 0]), Some(3));
    }

    #[test]
    fn names_and_head_words_are_read_at_every_length_and_position() {
        for len in 0..20 {
            let name: String = (0..len)
                .map(|i| char::from(b'a' + (i % 26) as u8))
                .collect();
            // Values of different sizes put the name's end near or at the document's end.
            for value in [
                bson::Bson::Null,
                bson::Bson::Int32(7),
                bson::Bson::from("xyz"),
            ] {
                let mut d = bson::Document::new();
                d.insert(name.clone(), value);
                let bytes = bson::serialize_to_vec(&d).unwrap();
                let e = Iter::new(&bytes).unwrap().next_elem().unwrap().unwrap();
                assert_eq!(e.name, name.as_bytes(), "len {len}");
                assert_eq!(e.head, head_word(name.as_bytes()), "len {len}");
            }
        }
        // A name with no NUL before the document's end is malformed, however short.
        let bytes = [8, 0, 0, 0, 0x0A, b'a', b'b', 0];
        assert_eq!(Iter::new(&bytes).unwrap().next_elem().unwrap_err(), Bad);
    }

    #[test]
    fn a_lying_length_is_reported_with_its_offset() {
        let doc = bson::doc! { "a": "hello" };
        let mut bytes = bson::serialize_to_vec(&doc).unwrap();
        bytes[7] = 200; // string length
        let e = check_structure(&bytes).unwrap_err();
        assert_eq!(e.offset, 7);
        let mut it = Iter::new(&bytes).unwrap();
        assert_eq!(it.next_elem().unwrap_err(), Bad);
    }

    #[test]
    fn names_and_strings_must_be_utf8_and_multibyte_text_is_fine() {
        let regex = bson::Regex {
            pattern: "é+".try_into().unwrap(),
            options: "i".try_into().unwrap(),
        };
        let doc = bson::doc! { "café": "日本 🎉", "n": { "ä": "x" }, "r": regex };
        let good = bson::serialize_to_vec(&doc).unwrap();
        assert!(check_structure(&good).is_ok());
        // Break one byte of each: a name, a string, a nested name, the regex.
        for (needle, what) in [
            ("café".as_bytes(), "field name"),
            ("本".as_bytes(), "string"),
            ("ä".as_bytes(), "field name"),
            (b"\xc3\xa9+".as_slice(), "regex"),
        ] {
            let at = good
                .windows(needle.len())
                .position(|w| w == needle)
                .expect("the text is in the document");
            let mut bad = good.clone();
            bad[at] = 0xff;
            let e = check_structure(&bad).unwrap_err();
            assert!(e.reason.contains(what) && e.reason.contains("UTF-8"), "{e}");
            assert!(e.offset <= at, "{e} (broken byte at {at})");
        }
    }

    #[test]
    fn nesting_beyond_the_server_limit_is_malformed() {
        let mut d = bson::doc! {};
        for _ in 0..MAX_DEPTH {
            d = bson::doc! { "a": d };
        }
        let bytes = bson::serialize_to_vec(&d).unwrap();
        let e = check_structure(&bytes).unwrap_err();
        assert!(e.reason.contains("nesting"), "{e}");
    }
}
