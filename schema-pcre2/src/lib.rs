//! The MongoDB server's regex engine for `$jsonSchema` `pattern` and `patternProperties`:
//! PCRE2 10.42 built from source, compiled and matched the way the server does.
//!
//! The server vendors PCRE2 10.42 (`src/third_party/pcre2`, `build_posix/config.h`:
//! `PACKAGE_VERSION "10.42"`, JIT not enabled, `MATCH_LIMIT 200000`, `MATCH_LIMIT_DEPTH 4000`,
//! `HEAP_LIMIT 20000000` KiB, `PARENS_NEST_LIMIT 250`) and wraps it in `src/mongo/util/pcre.cpp`:
//! `pcre2_compile` with a compile context whose maximum pattern length is 32,764 bytes, then
//! `pcre2_match` (never `pcre2_jit_match`) with a match context holding the limits. A match
//! that returns an error, a limit hit included, is `MatchData` whose `operator bool` is false,
//! so `RegexMatchExpression::matchesSingleElement` (`src/mongo/db/matcher/expression_leaf.cpp`)
//! reads it as no match. [`Regex::is_match`] reports the error; callers that follow the server
//! treat it as `false`.
//!
//! The build is pcre2-sys 0.2.8's bundled 10.42 source; its compile-time settings equal the
//! server's `config.h` (`LINK_SIZE 2`, `NEWLINE_DEFAULT` LF, Unicode `\R`, `MAX_NAME_SIZE 32`,
//! `PARENS_NEST_LIMIT 250`, `HEAP_LIMIT`) except the match and depth limits (10,000,000 there),
//! which every match context here sets to the server's values at run time. Its JIT is compiled
//! in but never called.
//!
//! ```
//! use mongo_schema_pcre2::Regex;
//!
//! let re = Regex::new("^a{,3}$")?; // 10.42 reads `{,3}` as the literal text "{,3}"
//! assert_eq!(re.is_match(b"a{,3}"), Ok(true));
//! assert_eq!(re.is_match(b"aa"), Ok(false));
//! assert!(mongo_schema_pcre2::version().starts_with("10.42 "));
//! # Ok::<(), mongo_schema_pcre2::CompileError>(())
//! ```

use std::fmt;

mod engine;

pub use engine::{Mode, Regex, version};

/// The server's default `MATCH_LIMIT` (`build_posix/config.h`).
pub const MATCH_LIMIT: u32 = 200_000;
/// The server's `MATCH_LIMIT_DEPTH` (`build_posix/config.h`).
pub const DEPTH_LIMIT: u32 = 4_000;
/// The server's `HEAP_LIMIT`, in KiB (`build_posix/config.h`).
pub const HEAP_LIMIT_KIB: u32 = 20_000_000;
/// The server's `PARENS_NEST_LIMIT` (`build_posix/config.h`).
pub const PARENS_NEST_LIMIT: u32 = 250;
/// The longest pattern the server compiles, in bytes (`kMaxPatternLength` in `pcre.cpp`).
pub const MAX_PATTERN_LENGTH: usize = 32_764;

/// A pattern PCRE2 refused, with its message and the byte offset where it stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileError {
    /// PCRE2's error code (positive for compile errors).
    pub code: i32,
    /// Byte offset in the pattern where PCRE2 stopped.
    pub offset: usize,
    /// PCRE2's message (`pcre2_get_error_message`).
    pub message: String,
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CompileError {}

/// Why a match did not complete; the server reads every one of these as "no match".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum MatchError {
    /// More than [`MATCH_LIMIT`] backtracking points (`PCRE2_ERROR_MATCHLIMIT`).
    MatchLimit,
    /// Backtracking nested deeper than [`DEPTH_LIMIT`] (`PCRE2_ERROR_DEPTHLIMIT`).
    DepthLimit,
    /// More than [`HEAP_LIMIT_KIB`] of backtracking memory (`PCRE2_ERROR_HEAPLIMIT`).
    HeapLimit,
    /// Any other PCRE2 error, such as a subject that is not valid UTF-8 (its code).
    Other(i32),
}

impl MatchError {
    fn from_code(code: i32) -> MatchError {
        match code {
            pcre2_sys::PCRE2_ERROR_MATCHLIMIT => MatchError::MatchLimit,
            pcre2_sys::PCRE2_ERROR_DEPTHLIMIT => MatchError::DepthLimit,
            pcre2_sys::PCRE2_ERROR_HEAPLIMIT => MatchError::HeapLimit,
            other => MatchError::Other(other),
        }
    }

    /// Whether the match stopped on one of the server's limits.
    pub fn is_limit(self) -> bool {
        matches!(
            self,
            MatchError::MatchLimit | MatchError::DepthLimit | MatchError::HeapLimit
        )
    }
}

impl fmt::Display for MatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MatchError::MatchLimit => write!(f, "match limit of {MATCH_LIMIT} exceeded"),
            MatchError::DepthLimit => write!(f, "depth limit of {DEPTH_LIMIT} exceeded"),
            MatchError::HeapLimit => write!(f, "heap limit of {HEAP_LIMIT_KIB} KiB exceeded"),
            MatchError::Other(code) => f.write_str(&engine::message(*code)),
        }
    }
}

impl std::error::Error for MatchError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_linked_library_is_the_servers_release() {
        // src/third_party/pcre2/build_posix/config.h: PACKAGE_VERSION "10.42".
        assert_eq!(version(), "10.42 2022-12-11");
    }

    #[test]
    fn counted_repeat_without_minimum_is_literal_on_10_42() {
        // PCRE2 10.43 started reading `{,3}` as `{0,3}`; 10.42 (the server's) reads it as text.
        let re = Regex::new("^a{,3}$").unwrap();
        assert_eq!(re.is_match(b"a{,3}"), Ok(true));
        assert_eq!(re.is_match(b""), Ok(false));
        assert_eq!(re.is_match(b"aaa"), Ok(false));
    }

    #[test]
    fn variable_length_lookbehind_is_rejected_on_10_42() {
        // Variable-length lookbehind arrived in 10.43; 10.42 refuses the pattern.
        let e = Regex::new("(?<=a{1,3})b").unwrap_err();
        assert_eq!(e.message, "lookbehind assertion is not fixed length");
        assert!(Regex::new("(?<=a{2})b").is_ok());
    }

    #[test]
    fn alternation_in_a_repeated_group_runs_on_the_interpreter_up_to_the_depth_limit() {
        // `^(\w|-)+$` nests two backtracking frames per character (the group and its
        // alternation) and pcre2_match's depth limit is 4,000 (config.h MATCH_LIMIT_DEPTH):
        // the server matches subjects up to 1,998 characters and reads longer ones as no match
        // (depth limit hit). The JIT, by contrast, runs out of its stack from about 1,000.
        let re = Regex::new(r"^(\w|-)+$").unwrap();
        for n in [1, 1_024, 1_998] {
            assert_eq!(re.is_match("a".repeat(n).as_bytes()), Ok(true), "{n}");
        }
        assert_eq!(
            re.is_match("a".repeat(1_999).as_bytes()),
            Err(MatchError::DepthLimit)
        );
    }

    #[test]
    fn catastrophic_backtracking_stops_at_the_match_limit() {
        let re = Regex::new("^(a+)+$").unwrap();
        let subject = format!("{}b", "a".repeat(40));
        let e = re.is_match(subject.as_bytes()).unwrap_err();
        assert_eq!(e, MatchError::MatchLimit);
        assert!(e.is_limit());
    }

    #[test]
    fn a_match_found_only_after_the_limit_is_no_match() {
        // The first branch backtracks exponentially before the second one would match: the
        // server stops at 200,000 backtracking points and reads the error as no match, where
        // PCRE2's default limit (10,000,000, the pcre2 crate's) lets 20 characters match.
        let re = Regex::new("^(?:(a+)+b|a+$)").unwrap();
        assert_eq!(re.is_match("a".repeat(16).as_bytes()), Ok(true));
        assert_eq!(
            re.is_match("a".repeat(20).as_bytes()),
            Err(MatchError::MatchLimit)
        );
    }

    #[test]
    fn invalid_utf8_subject_is_an_error_not_a_match() {
        let re = Regex::new(".").unwrap();
        let e = re.is_match(b"\xff").unwrap_err();
        assert!(!e.is_limit());
        assert!(e.to_string().contains("UTF-8"), "{e}");
    }

    #[test]
    fn utf_mode_is_on_and_ucp_is_off() {
        let re = Regex::new(r"^.$").unwrap();
        assert_eq!(re.is_match("é".as_bytes()), Ok(true));
        let digit = Regex::new(r"^\d$").unwrap();
        assert_eq!(digit.is_match("\u{0663}".as_bytes()), Ok(false));
    }

    #[test]
    fn bytes_mode_reads_one_byte_per_dot_and_never_fails_on_utf8() {
        // The server compiles patternProperties names with no options (no PCRE2_UTF).
        let dot = Regex::compile("^.$", Mode::Bytes).unwrap();
        assert_eq!(dot.is_match("é".as_bytes()), Ok(false));
        assert_eq!(dot.is_match(b"\xff"), Ok(true));
        assert_eq!(
            Regex::new("^.$").unwrap().is_match("é".as_bytes()),
            Ok(true)
        );
        let e = Regex::compile(r"\x{100}", Mode::Bytes).unwrap_err();
        assert!(e.message.contains("too large"), "{}", e.message);
    }

    #[test]
    fn patterns_longer_than_the_servers_maximum_are_rejected() {
        assert!(Regex::new(&"a".repeat(MAX_PATTERN_LENGTH)).is_ok());
        let e = Regex::new(&"a".repeat(MAX_PATTERN_LENGTH + 1)).unwrap_err();
        assert!(e.message.contains("longer than the limit"), "{}", e.message);
    }

    #[test]
    fn nesting_deeper_than_the_parens_limit_is_rejected() {
        let deep = format!("{}a{}", "(".repeat(251), ")".repeat(251));
        assert!(Regex::new(&deep).is_err());
        let ok = format!("{}a{}", "(".repeat(200), ")".repeat(200));
        assert!(Regex::new(&ok).is_ok());
    }

    #[test]
    fn a_regex_is_shared_across_threads() {
        let re = std::sync::Arc::new(Regex::new("b+").unwrap());
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let re = re.clone();
                std::thread::spawn(move || re.is_match(b"abbc"))
            })
            .collect();
        for h in handles {
            assert_eq!(h.join().unwrap(), Ok(true));
        }
    }
}
