//! Whether a validator change tightens or loosens: a coarse, safe-side judgment.
//!
//! The plan marks a tightened validator as risky (existing documents may fail it: run `audit`
//! first). Deciding exactly whether one schema accepts a superset of another is hard; this
//! judgment is structural and leans to "tightened": a change counts as loosened only when every
//! keyword of the new `$jsonSchema` is one the old one has, at least as permissive (wider type
//! sets and enums, fewer required names, lower minimums, higher maximums, recursively through
//! `properties` and `items`). Anything it cannot prove loosened is reported as tightened.

use bson::{Bson, Document};

use crate::normalize::{canonical_validator, values_equal};

/// How a new validator relates to the old one, as far as [`validator_tightening`] can tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tightening {
    /// The same validator (after normalization).
    Same,
    /// Accepts at least every document the old one accepted.
    Loosened,
    /// May reject documents the old one accepted (the safe-side answer when unsure).
    Tightened,
}

impl Tightening {
    /// A few words for reports: `same`, `loosened`, `tightened: may reject stored documents`.
    pub fn describe(self) -> &'static str {
        match self {
            Tightening::Same => "same",
            Tightening::Loosened => "loosened",
            Tightening::Tightened => "tightened: may reject stored documents",
        }
    }
}

/// Judges a change of validator from `live` to `declared` (`None`: no validator).
///
/// ```
/// use bson::doc;
/// use mongo_schema::diff::{Tightening, validator_tightening};
/// let old = doc! { "$jsonSchema": { "required": ["a", "b"], "properties": { "n": { "maximum": 5 } } } };
/// let new = doc! { "$jsonSchema": { "required": ["a"], "properties": { "n": { "maximum": 10 } } } };
/// assert_eq!(validator_tightening(Some(&new), Some(&old)), Tightening::Loosened);
/// assert_eq!(validator_tightening(Some(&old), Some(&new)), Tightening::Tightened);
/// ```
pub fn validator_tightening(declared: Option<&Document>, live: Option<&Document>) -> Tightening {
    match (declared, live) {
        (None, None) => Tightening::Same,
        (None, Some(_)) => Tightening::Loosened,
        (Some(d), None) if d.is_empty() => Tightening::Same,
        (Some(_), None) => Tightening::Tightened,
        (Some(d), Some(l)) => {
            let (d, l) = (canonical_validator(d), canonical_validator(l));
            if crate::normalize::documents_identical(&d, &l) {
                return Tightening::Same;
            }
            if d.is_empty() {
                return Tightening::Loosened;
            }
            let only_schema = |v: &Document| v.keys().all(|k| k == "$jsonSchema");
            match (d.get_document("$jsonSchema"), l.get_document("$jsonSchema")) {
                (Ok(ds), Ok(ls)) if only_schema(&d) && only_schema(&l) && looser(ds, ls) => {
                    Tightening::Loosened
                }
                _ => Tightening::Tightened,
            }
        }
    }
}

/// Whether schema `d` accepts everything schema `l` accepts, by structure (both canonical).
fn looser(d: &Document, l: &Document) -> bool {
    d.iter().all(|(keyword, dv)| {
        let lv = l.get(keyword);
        match keyword.as_str() {
            "title" | "description" => true,
            "bsonType" | "type" | "enum" => match (dv, lv) {
                (Bson::Array(wide), Some(Bson::Array(narrow))) => narrow
                    .iter()
                    .all(|n| wide.iter().any(|w| values_equal(w, n))),
                _ => false,
            },
            "required" => match (dv, lv) {
                (Bson::Array(few), Some(Bson::Array(many))) => {
                    few.iter().all(|f| many.iter().any(|m| values_equal(m, f)))
                }
                _ => false,
            },
            "minimum" | "minLength" | "minItems" | "minProperties" => {
                compare(dv, lv).is_some_and(|o| o.is_le())
            }
            "maximum" | "maxLength" | "maxItems" | "maxProperties" => {
                compare(dv, lv).is_some_and(|o| o.is_ge())
            }
            "properties" | "patternProperties" => match (dv, lv) {
                (Bson::Document(dp), Some(Bson::Document(lp))) => {
                    dp.iter().all(|(name, ds)| match (ds, lp.get(name)) {
                        (Bson::Document(ds), Some(Bson::Document(ls))) => looser(ds, ls),
                        (Bson::Document(ds), None) => ds.is_empty(),
                        _ => false,
                    })
                }
                (Bson::Document(dp), None) => dp
                    .values()
                    .all(|s| matches!(s, Bson::Document(s) if s.is_empty())),
                _ => false,
            },
            "additionalProperties" | "additionalItems" => match (dv, lv) {
                (Bson::Boolean(true), _) => true,
                (Bson::Document(ds), Some(Bson::Document(ls))) => looser(ds, ls),
                (_, Some(other)) => values_equal(dv, other),
                (_, None) => false,
            },
            "items" => match (dv, lv) {
                (Bson::Document(ds), Some(Bson::Document(ls))) => looser(ds, ls),
                (_, Some(other)) => values_equal(dv, other),
                (_, None) => false,
            },
            _ => lv.is_some_and(|lv| values_equal(dv, lv)),
        }
    })
}

fn compare(a: &Bson, b: Option<&Bson>) -> Option<std::cmp::Ordering> {
    let x = crate::spec::read::number(a)?;
    let y = crate::spec::read::number(b?)?;
    x.partial_cmp(&y)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    #[test]
    fn adding_a_validator_tightens_and_removing_loosens() {
        let v = doc! { "$jsonSchema": { "bsonType": "object" } };
        assert_eq!(validator_tightening(Some(&v), None), Tightening::Tightened);
        assert_eq!(validator_tightening(None, Some(&v)), Tightening::Loosened);
    }

    #[test]
    fn wider_types_and_enums_loosen() {
        let old = doc! { "$jsonSchema": { "properties": { "s": { "enum": ["A", "B"], "bsonType": "string" } } } };
        let new = doc! { "$jsonSchema": { "properties": { "s": { "enum": ["B", "A", "C"], "bsonType": ["string", "null"] } } } };
        assert_eq!(
            validator_tightening(Some(&new), Some(&old)),
            Tightening::Loosened
        );
        assert_eq!(
            validator_tightening(Some(&old), Some(&new)),
            Tightening::Tightened
        );
    }

    #[test]
    fn a_new_keyword_counts_as_tightening() {
        let old = doc! { "$jsonSchema": { "bsonType": "object" } };
        let new = doc! { "$jsonSchema": { "bsonType": "object", "additionalProperties": false } };
        assert_eq!(
            validator_tightening(Some(&new), Some(&old)),
            Tightening::Tightened
        );
    }

    #[test]
    fn order_only_changes_are_the_same() {
        let old = doc! { "$jsonSchema": { "required": ["a", "b"], "minProperties": 1 } };
        let new = doc! { "$jsonSchema": { "minProperties": 1.0, "required": ["b", "a"] } };
        assert_eq!(
            validator_tightening(Some(&new), Some(&old)),
            Tightening::Same
        );
    }

    #[test]
    fn query_operators_beside_the_schema_are_judged_tightened() {
        let old = doc! { "$jsonSchema": { "required": ["a"] }, "a": { "$gt": 1 } };
        let new = doc! { "$jsonSchema": { "required": [] }, "a": { "$gt": 0 } };
        assert_eq!(
            validator_tightening(Some(&new), Some(&old)),
            Tightening::Tightened
        );
    }
}
