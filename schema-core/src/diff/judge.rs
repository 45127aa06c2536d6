//! Whether a validator change relaxes or tightens: the two `validator` documents of a
//! [`super::Change`] -> one [`Classification`], from [`crate::evolve::classify`].
//!
//! No validator accepts every document, so adding one is classified against the empty schema
//! and removing one is relaxing. A validator with query operators beside `$jsonSchema` (or a
//! `$jsonSchema` the parser refuses) is outside the containment proof: identical after
//! normalization is relaxing, anything else is not proven.

use bson::Document;

use crate::evolve::{Classification, classify};
use crate::normalize::{canonical_validator, documents_identical};
use crate::schema::JsonSchema;

/// What a plan says about a step that sets or removes a validator.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ValidatorChange {
    /// Relaxing, tightening (with a document accepted today and rejected after), or not proven.
    pub classification: Classification,
    /// Stored documents the declared validator rejects, when someone counted them (`plan` and
    /// `apply` against a deployment do, with `{$nor: [validator]}`); `None` when not counted.
    pub rejected: Option<u64>,
}

impl ValidatorChange {
    /// A change classified, its stored rejects not counted.
    pub fn new(classification: Classification) -> ValidatorChange {
        ValidatorChange {
            classification,
            rejected: None,
        }
    }

    /// Whether applying it may reject writes the live validator accepts: not proven relaxing.
    pub fn may_reject(&self) -> bool {
        !self.classification.is_relaxing()
    }

    /// As a document for JSON output: `{classification, counterexample?, reason?,
    /// rejectedDocuments?}`.
    pub fn to_document(&self) -> Document {
        let mut d = bson::doc! { "classification": self.classification.as_str() };
        match &self.classification {
            Classification::Tightening { counterexample } => {
                d.insert("counterexample", counterexample.clone());
            }
            Classification::NotProven { reason } => {
                d.insert("reason", reason.clone());
            }
            _ => {}
        }
        if let Some(n) = self.rejected {
            d.insert("rejectedDocuments", i64::try_from(n).unwrap_or(i64::MAX));
        }
        d
    }
}

/// Classifies a change of validator from `live` to `declared` (`None` or empty: no validator).
///
/// ```
/// use bson::doc;
/// use mongo_schema::diff::classify_validator;
/// let old = doc! { "$jsonSchema": { "required": ["a", "b"], "properties": { "n": { "maximum": 5 } } } };
/// let new = doc! { "$jsonSchema": { "required": ["a"], "properties": { "n": { "maximum": 10 } } } };
/// assert!(classify_validator(Some(&new), Some(&old)).is_relaxing());
/// // The other way, a document without `b` is accepted today and would be rejected.
/// let tightening = classify_validator(Some(&old), Some(&new));
/// assert!(tightening.to_string().starts_with("tightening: e.g. {"), "{tightening}");
/// ```
pub fn classify_validator(declared: Option<&Document>, live: Option<&Document>) -> Classification {
    let declared = declared.filter(|d| !d.is_empty());
    let live = live.filter(|l| !l.is_empty());
    let Some(declared) = declared else {
        // The server then accepts every document.
        return Classification::Relaxing;
    };
    if let Some(live) = live
        && documents_identical(&canonical_validator(declared), &canonical_validator(live))
    {
        return Classification::Relaxing;
    }
    let new = match schema_of(declared) {
        Ok(schema) => schema,
        Err(reason) => {
            return Classification::NotProven {
                reason: format!("the declared validator {reason}"),
            };
        }
    };
    let old = match live.map(schema_of) {
        None => JsonSchema::default(),
        Some(Ok(schema)) => schema,
        Some(Err(reason)) => {
            return Classification::NotProven {
                reason: format!("the live validator {reason}"),
            };
        }
    };
    classify(&old, &new)
}

/// The validator's `$jsonSchema` as IR, when it is nothing but one.
fn schema_of(validator: &Document) -> Result<JsonSchema, String> {
    if let Some(other) = validator.keys().find(|k| *k != "$jsonSchema") {
        return Err(format!(
            "has {other:?} beside $jsonSchema, which the containment proof does not read"
        ));
    }
    let schema = validator
        .get_document("$jsonSchema")
        .map_err(|_| "has a $jsonSchema that is not a document".to_owned())?;
    JsonSchema::from_document(schema).map_err(|e| format!("does not parse: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    fn tightening(c: &Classification) -> Option<&Document> {
        match c {
            Classification::Tightening { counterexample } => Some(counterexample),
            _ => None,
        }
    }

    #[test]
    fn adding_a_validator_tightens_and_removing_relaxes() {
        let v = doc! { "$jsonSchema": { "bsonType": "object", "required": ["a"] } };
        let added = classify_validator(Some(&v), None);
        assert!(!tightening(&added).unwrap().contains_key("a"), "{added}");
        assert!(classify_validator(None, Some(&v)).is_relaxing());
        assert!(classify_validator(Some(&doc! {}), Some(&v)).is_relaxing());
    }

    #[test]
    fn wider_types_and_enums_relax_and_narrower_tighten_with_a_witness() {
        let old = doc! { "$jsonSchema": { "properties": { "s": { "enum": ["A", "B"], "bsonType": "string" } } } };
        let new = doc! { "$jsonSchema": { "properties": { "s": { "enum": ["B", "A", "C"], "bsonType": ["string", "null"] } } } };
        assert!(classify_validator(Some(&new), Some(&old)).is_relaxing());
        let back = classify_validator(Some(&old), Some(&new));
        let witness = tightening(&back).unwrap();
        // The witness holds a value the wider schema allows and the narrower does not.
        let s = witness.get("s").unwrap();
        assert!(
            *s == bson::Bson::Null || *s == bson::Bson::String("C".into()),
            "{back}"
        );
    }

    #[test]
    fn order_only_changes_are_relaxing() {
        let old = doc! { "$jsonSchema": { "required": ["a", "b"], "minProperties": 1 } };
        let new = doc! { "$jsonSchema": { "minProperties": 1.0, "required": ["b", "a"] } };
        assert!(classify_validator(Some(&new), Some(&old)).is_relaxing());
    }

    #[test]
    fn query_operators_beside_the_schema_are_not_proven() {
        let old = doc! { "$jsonSchema": { "required": ["a"] }, "a": { "$gt": 1 } };
        let new = doc! { "$jsonSchema": { "required": [] }, "a": { "$gt": 0 } };
        let c = classify_validator(Some(&new), Some(&old));
        assert!(
            matches!(&c, Classification::NotProven { reason } if reason.contains("\"a\" beside $jsonSchema")),
            "{c}"
        );
        // The same validator with operators is still recognised as unchanged.
        assert!(classify_validator(Some(&old), Some(&old)).is_relaxing());
    }

    #[test]
    fn a_schema_the_parser_refuses_is_not_proven() {
        let bad = doc! { "$jsonSchema": { "bsonType": "no-such-type" } };
        let good = doc! { "$jsonSchema": { "bsonType": "object" } };
        let c = classify_validator(Some(&bad), Some(&good));
        assert!(
            matches!(&c, Classification::NotProven { reason } if reason.starts_with("the declared validator does not parse")),
            "{c}"
        );
    }
}
