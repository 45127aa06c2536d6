//! BSON value rules shared by the schema parser and the evaluator: the raw reader, numbers
//! compared by value, value equality and PCRE2 patterns, each as the server applies them.
//!
//! Both `schema::parse` (which refuses what the server refuses: a bad pattern, duplicate `enum`
//! members, a `multipleOf` that is not positive) and `eval` (which checks documents) read values
//! through these, so the two agree by construction.

pub(crate) mod compare;
pub(crate) mod number;
pub(crate) mod pattern;
pub(crate) mod raw;
