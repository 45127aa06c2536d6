//! Validator changes classified without data: relaxing (proven by containment), tightening (with
//! a concrete document the old validator accepts and the new one rejects), or not proven.
//!
//! Sits beside `diff`: the plan asks [`classify`] about each changed `$jsonSchema` (live, then
//! declared) and reports [`Classification::describe`].
//!
//! ```
//! use mongo_schema::evolve::{Classification, classify};
//! use mongo_schema::JsonSchema;
//!
//! let v1 = JsonSchema::from_document(&bson::doc! {
//!     "bsonType": "object",
//!     "properties": { "n": { "bsonType": "int", "maximum": 10 } },
//! })?;
//! // Widening int to number relaxes.
//! let v2 = JsonSchema::from_document(&bson::doc! {
//!     "bsonType": "object",
//!     "properties": { "n": { "bsonType": "number", "maximum": 10 } },
//! })?;
//! assert_eq!(classify(&v1, &v2), Classification::Relaxing);
//! // Requiring `n` tightens: a stored document without it would be rejected.
//! let v3 = JsonSchema::from_document(&bson::doc! {
//!     "bsonType": "object",
//!     "required": ["n"],
//!     "properties": { "n": { "bsonType": "number", "maximum": 10 } },
//! })?;
//! let Classification::Tightening { counterexample } = classify(&v2, &v3) else {
//!     panic!("adding a required field tightens");
//! };
//! assert!(!counterexample.contains_key("n"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Relaxing is said only when [`contain`] proves it over the IR; its rules are sound and
//! deliberately incomplete (see that module for what is modelled). Tightening is said only for a
//! document that [`crate::eval::Validator`] accepts under the old schema and rejects under the
//! new one: the search in [`witness`] builds candidates from both schemas, deterministically.

pub mod contain;
pub mod witness;

use std::fmt;

use bson::Document;

use crate::eval::Validator;
use crate::schema::JsonSchema;

/// How a new `$jsonSchema` relates to the old one.
///
/// One [`crate::diff::Change`] of a validator gets one classification: what the change does to
/// the documents the collection may hold.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Classification {
    /// Proven: every document the old schema accepts, the new one accepts too (identical
    /// schemas included).
    Relaxing,
    /// A document the old schema accepts and the new one rejects, checked with the evaluator.
    Tightening {
        /// The document, with an ObjectId `_id` whenever the old schema allows one (the server
        /// adds `_id` before validating).
        counterexample: Document,
    },
    /// Neither a proof of containment nor a counterexample was found.
    NotProven {
        /// What the containment check could not show.
        reason: String,
    },
}

impl Classification {
    /// A human summary: `relaxing`, `tightening: e.g. {...} is accepted today and would be
    /// rejected`, `not proven either way: <reason>`.
    pub fn describe(&self) -> String {
        self.to_string()
    }

    /// Whether the change is proven relaxing.
    pub fn is_relaxing(&self) -> bool {
        matches!(self, Classification::Relaxing)
    }

    /// The verdict in one word, as the plan's JSON spells it: `relaxing`, `tightening`,
    /// `not-proven`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Classification::Relaxing => "relaxing",
            Classification::Tightening { .. } => "tightening",
            Classification::NotProven { .. } => "not-proven",
        }
    }

    /// The document accepted today and rejected after the change, for a tightening.
    pub fn counterexample(&self) -> Option<&Document> {
        match self {
            Classification::Tightening { counterexample } => Some(counterexample),
            _ => None,
        }
    }
}

impl fmt::Display for Classification {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Classification::Relaxing => f.write_str("relaxing"),
            Classification::Tightening { counterexample } => write!(
                f,
                "tightening: e.g. {} is accepted today and would be rejected",
                crate::extjson::to_string_compact(
                    &bson::Bson::Document(counterexample.clone()),
                    crate::ExtJsonMode::Relaxed
                )
            ),
            Classification::NotProven { reason } => write!(f, "not proven either way: {reason}"),
        }
    }
}

/// Classifies a change of a collection's `$jsonSchema` from `old` to `new`.
///
/// Schemas equal up to `title` and `description` are relaxing. Otherwise the containment proof
/// runs first; when it fails, a counterexample search; [`Classification::NotProven`] carries the first
/// thing the proof could not show. The result depends only on the two schemas.
pub fn classify(old: &JsonSchema, new: &JsonSchema) -> Classification {
    if contain::without_annotations(old) == contain::without_annotations(new) {
        return Classification::Relaxing;
    }
    let (old_v, new_v) = match (Validator::new(old), Validator::new(new)) {
        (Ok(o), Ok(n)) => (o, n),
        (Err(e), _) => {
            return Classification::NotProven {
                reason: format!("the old schema does not compile: {e}"),
            };
        }
        (_, Err(e)) => {
            return Classification::NotProven {
                reason: format!("the new schema does not compile: {e}"),
            };
        }
    };
    let reason = match contain::contains(old, new) {
        Ok(()) => return Classification::Relaxing,
        Err(reason) => reason,
    };
    match witness::counterexample(old, new, &old_v, &new_v) {
        Some(counterexample) => Classification::Tightening { counterexample },
        None => Classification::NotProven { reason },
    }
}

#[cfg(test)]
mod tests;
