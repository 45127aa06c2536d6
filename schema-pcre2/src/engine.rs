//! The calls into PCRE2: every `unsafe` block of the crate, each with why it holds.
#![expect(
    unsafe_code,
    reason = "the one module that calls the PCRE2 C library; each block states its invariant"
)]

use std::cell::RefCell;
use std::ptr::{self, NonNull};

use pcre2_sys as sys;

use crate::{
    CompileError, DEPTH_LIMIT, HEAP_LIMIT_KIB, MATCH_LIMIT, MAX_PATTERN_LENGTH, MatchError,
    PARENS_NEST_LIMIT,
};

/// How a pattern reads its subject, as the server compiles each kind of pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `PCRE2_UTF`: a `$jsonSchema` `pattern` (`pcre_util::flagsToOptions("")` always adds UTF).
    /// A subject that is not valid UTF-8 is an error.
    Utf,
    /// No options: a `patternProperties` name, compiled by the server's
    /// `InternalSchemaAllowedPropertiesMatchExpression::Pattern` as `pcre::Regex(pattern)` with
    /// default `CompileOptions{}`. `.` is one byte and no subject is an error.
    Bytes,
}

/// A compiled pattern with the server's match limits (cheap to share: `Send + Sync`).
#[derive(Debug)]
pub struct Regex {
    code: NonNull<sys::pcre2_code_8>,
    context: NonNull<sys::pcre2_match_context_8>,
}

// SAFETY: a compiled pcre2_code and a match context are only read by pcre2_match, which PCRE2
// documents as thread-safe for shared compiled patterns and contexts ("pcre2api: MULTITHREADING":
// a compiled pattern and a match context may be used by several threads at once, each with its
// own match data). Match data is per thread here (`MATCH_DATA`).
unsafe impl Send for Regex {}
// SAFETY: see `Send`: no method mutates the code or the context.
unsafe impl Sync for Regex {}

impl Regex {
    /// Compiles `pattern` as the server compiles a `$jsonSchema` pattern: `PCRE2_UTF` and no
    /// other option (`pcre_util::flagsToOptions("")`), a maximum pattern length of 32,764 bytes
    /// and a parentheses nesting limit of 250.
    ///
    /// # Errors
    /// PCRE2's [`CompileError`] for a pattern it refuses.
    pub fn new(pattern: &str) -> Result<Regex, CompileError> {
        Regex::compile(pattern, Mode::Utf)
    }

    /// Compiles `pattern` in the given [`Mode`], with the server's limits (see [`Regex::new`]).
    ///
    /// # Errors
    /// PCRE2's [`CompileError`] for a pattern it refuses.
    pub fn compile(pattern: &str, mode: Mode) -> Result<Regex, CompileError> {
        let options = match mode {
            Mode::Utf => sys::PCRE2_UTF,
            Mode::Bytes => 0,
        };
        let ccontext = CompileContext::new()?;
        let mut code = 0;
        let mut offset = 0;
        // SAFETY: the pattern pointer and length describe a live &str; `code` and `offset` are
        // valid out-pointers; the context is live until the end of this function.
        let compiled = unsafe {
            sys::pcre2_compile_8(
                pattern.as_ptr(),
                pattern.len(),
                options,
                &raw mut code,
                &raw mut offset,
                ccontext.0.as_ptr(),
            )
        };
        let Some(compiled) = NonNull::new(compiled) else {
            return Err(CompileError {
                code,
                offset,
                message: message(code),
            });
        };
        // SAFETY: a null general context asks PCRE2 for malloc/free.
        let context = unsafe { sys::pcre2_match_context_create_8(ptr::null_mut()) };
        let Some(context) = NonNull::new(context) else {
            // SAFETY: `compiled` came from pcre2_compile and is freed once, here.
            unsafe { sys::pcre2_code_free_8(compiled.as_ptr()) };
            return Err(out_of_memory());
        };
        let regex = Regex {
            code: compiled,
            context,
        };
        // SAFETY: the context is live and owned by `regex`; setters only store a number.
        unsafe {
            sys::pcre2_set_match_limit_8(regex.context.as_ptr(), MATCH_LIMIT);
            sys::pcre2_set_depth_limit_8(regex.context.as_ptr(), DEPTH_LIMIT);
            sys::pcre2_set_heap_limit_8(regex.context.as_ptr(), HEAP_LIMIT_KIB);
        }
        Ok(regex)
    }

    /// Whether the pattern matches anywhere in `subject` (an unanchored search, as the
    /// server's `matchView` with no options), by the interpreter, never the JIT.
    ///
    /// # Errors
    /// A [`MatchError`] when PCRE2 stops without an answer: a limit hit or a subject that is
    /// not valid UTF-8. The server reads each of these as no match.
    pub fn is_match(&self, subject: &[u8]) -> Result<bool, MatchError> {
        MATCH_DATA.with(|cell| {
            let mut slot = cell.borrow_mut();
            if slot.is_none() {
                *slot = MatchData::new();
            }
            let Some(data) = slot.as_ref() else {
                return Err(MatchError::Other(sys::PCRE2_ERROR_NOMEMORY));
            };
            // SAFETY: `code` and `context` are live for `self`; the subject pointer and length
            // describe a live slice; `data` is this thread's match data, not used elsewhere
            // during the call (PCRE2 makes no callbacks here, so the RefCell cannot be
            // re-entered). A one-pair ovector is enough: a too-small ovector still reports
            // success as 0.
            let rc = unsafe {
                sys::pcre2_match_8(
                    self.code.as_ptr(),
                    subject.as_ptr(),
                    subject.len(),
                    0,
                    0,
                    data.0.as_ptr(),
                    self.context.as_ptr(),
                )
            };
            match rc {
                rc if rc >= 0 => Ok(true),
                sys::PCRE2_ERROR_NOMATCH => Ok(false),
                rc => Err(MatchError::from_code(rc)),
            }
        })
    }
}

impl Drop for Regex {
    fn drop(&mut self) {
        // SAFETY: both pointers came from their create functions and are freed once, here.
        unsafe {
            sys::pcre2_match_context_free_8(self.context.as_ptr());
            sys::pcre2_code_free_8(self.code.as_ptr());
        }
    }
}

struct CompileContext(NonNull<sys::pcre2_compile_context_8>);

impl CompileContext {
    fn new() -> Result<CompileContext, CompileError> {
        // SAFETY: a null general context asks PCRE2 for malloc/free.
        let raw = unsafe { sys::pcre2_compile_context_create_8(ptr::null_mut()) };
        let context = CompileContext(NonNull::new(raw).ok_or_else(out_of_memory)?);
        // SAFETY: the context is live; setters only store a number.
        unsafe {
            sys::pcre2_set_max_pattern_length_8(context.0.as_ptr(), MAX_PATTERN_LENGTH);
            sys::pcre2_set_parens_nest_limit_8(context.0.as_ptr(), PARENS_NEST_LIMIT);
        }
        Ok(context)
    }
}

impl Drop for CompileContext {
    fn drop(&mut self) {
        // SAFETY: created by pcre2_compile_context_create and freed once, here.
        unsafe { sys::pcre2_compile_context_free_8(self.0.as_ptr()) };
    }
}

/// One thread's match data: PCRE2 keeps its backtracking frames here between matches.
struct MatchData(NonNull<sys::pcre2_match_data_8>);

impl MatchData {
    fn new() -> Option<MatchData> {
        // SAFETY: one ovector pair; a null general context asks PCRE2 for malloc/free.
        let raw = unsafe { sys::pcre2_match_data_create_8(1, ptr::null_mut()) };
        NonNull::new(raw).map(MatchData)
    }
}

impl Drop for MatchData {
    fn drop(&mut self) {
        // SAFETY: created by pcre2_match_data_create and freed once, here.
        unsafe { sys::pcre2_match_data_free_8(self.0.as_ptr()) };
    }
}

thread_local! {
    static MATCH_DATA: RefCell<Option<MatchData>> = const { RefCell::new(None) };
}

fn out_of_memory() -> CompileError {
    CompileError {
        code: sys::PCRE2_ERROR_NOMEMORY,
        offset: 0,
        message: message(sys::PCRE2_ERROR_NOMEMORY),
    }
}

/// PCRE2's message for an error code.
pub(crate) fn message(code: i32) -> String {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer pointer and length describe a live array; PCRE2 writes at most
    // `len` code units and returns the message length or a negative error.
    let len = unsafe { sys::pcre2_get_error_message_8(code, buf.as_mut_ptr(), buf.len()) };
    match usize::try_from(len) {
        Ok(len) => String::from_utf8_lossy(&buf[..len.min(buf.len())]).into_owned(),
        Err(_) => format!("PCRE2 error {code}"),
    }
}

/// The linked PCRE2's version and date, as `pcre2_config(PCRE2_CONFIG_VERSION)` reports it
/// (`10.42 2022-12-11`).
pub fn version() -> String {
    let mut buf = [0u8; 64];
    // SAFETY: PCRE2_CONFIG_VERSION writes a NUL-terminated string of at most 24 code units
    // into `where`; the buffer holds 64. The return value is the length including the NUL.
    let len = unsafe { sys::pcre2_config_8(sys::PCRE2_CONFIG_VERSION, buf.as_mut_ptr().cast()) };
    let end = usize::try_from(len)
        .map_or(0, |n| n.saturating_sub(1))
        .min(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}
