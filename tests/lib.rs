//! Behaviour across crates; see the [[test]] files.

/// The README's Rust examples, compiled and run as doc tests so they cannot rot.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
