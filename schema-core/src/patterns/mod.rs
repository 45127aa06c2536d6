//! Schema-design pattern helpers: the few writes and reads each pattern needs beyond its
//! validator, built as plain `bson` documents for the official driver (or any client).
//!
//! Each pattern has a spec ([`bucket::BucketSpec`], [`outlier::OutlierSpec`],
//! [`subset::SubsetSpec`], [`computed::ComputedSpec`]) that the collection declaration also uses,
//! so the bound in the validator (`maxItems`) and the bound in the write come from one number.
//! Schema versioning lives in [`crate::version`].
//!
//! ```
//! use mongo_schema::patterns::bucket::BucketSpec;
//!
//! const SENSOR: BucketSpec = BucketSpec::new("sensor_data", "sensorId", "start", "count", "readings", 60);
//! let write = SENSOR.add("s_42", bson::DateTime::from_millis(0), bson::Bson::Double(22.1)).unwrap();
//! assert_eq!(write.filter, bson::doc! {
//!     "sensorId": "s_42", "start": bson::DateTime::from_millis(0), "count": { "$lt": 60 },
//! });
//! assert!(write.upsert);
//! ```

pub mod bucket;
pub mod computed;
pub mod outlier;
pub mod subset;

use bson::{Bson, Document, doc};

use crate::schema::JsonSchema;

/// Why a pattern helper could not build its documents.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum PatternError {
    /// The schema has no property at this dotted path.
    #[error("the schema has no property {path:?}; the pattern's field names must be stored names")]
    MissingProperty {
        /// The dotted stored path.
        path: String,
    },
    /// The measurement has no value field to summarise.
    #[error("the reading has no numeric field {field:?} to fold into the summary")]
    MissingValue {
        /// The value field the spec names.
        field: String,
    },
    /// A value that must be a number is not one.
    #[error("{what} must be a number (int, long, double or decimal), found {found}")]
    NotANumber {
        /// Which value.
        what: String,
        /// What it is, rendered.
        found: String,
    },
    /// Two updates combined into one write touch the same path, or one touches a parent of the
    /// other: the server refuses such an update ("Updating the path 'x' would create a conflict
    /// at 'x'", ConflictingUpdateOperators, code 40).
    #[error("updates conflict at {first:?} and {second:?}: one write cannot change both")]
    ConflictingPaths {
        /// The path written first.
        first: String,
        /// The path that conflicts with it.
        second: String,
    },
    /// An update document whose top-level keys are not all update operators.
    #[error("{key:?} is not an update operator; an update document holds only $-operators")]
    NotAnOperator {
        /// The offending key.
        key: String,
    },
}

/// One update on one collection: the filter, the update operators (or pipeline), whether to upsert
/// and whether it may change several documents (`updateMany`).
#[derive(Clone, Debug, PartialEq)]
pub struct Update {
    /// The collection written.
    pub collection: String,
    /// The query selecting the document.
    pub filter: Document,
    /// The update: operators (`$push`, `$inc`, ...) or, for a pipeline update, `update` is empty
    /// and [`Update::pipeline`] holds the stages.
    pub update: Document,
    /// The stages of an aggregation-pipeline update (server 4.2+), when this is one.
    pub pipeline: Option<Vec<Document>>,
    /// `upsert: true`: insert a document built from the filter's equalities when none matches.
    pub upsert: bool,
    /// `multi: true`: change every matching document (`updateMany`), not only the first.
    pub multi: bool,
}

impl Update {
    /// An operator update.
    pub fn new(collection: impl Into<String>, filter: Document, update: Document) -> Update {
        Update {
            collection: collection.into(),
            filter,
            update,
            pipeline: None,
            upsert: false,
            multi: false,
        }
    }

    /// A pipeline update.
    pub fn pipeline(
        collection: impl Into<String>,
        filter: Document,
        stages: Vec<Document>,
    ) -> Update {
        Update {
            collection: collection.into(),
            filter,
            update: Document::new(),
            pipeline: Some(stages),
            upsert: false,
            multi: false,
        }
    }

    /// Sets `upsert`.
    pub fn upsert(mut self, upsert: bool) -> Update {
        self.upsert = upsert;
        self
    }

    /// Sets `multi` (apply with `updateMany`).
    pub fn multi(mut self, multi: bool) -> Update {
        self.multi = multi;
        self
    }

    /// The entry of an `update` command's `updates` array: `{q, u, upsert, multi}` (`upsert` and
    /// `multi` only when true), for `db.runCommand({update: collection, updates: [...]})`.
    pub fn to_statement(&self) -> Document {
        let u = match &self.pipeline {
            Some(stages) => Bson::Array(stages.iter().cloned().map(Bson::Document).collect()),
            None => Bson::Document(self.update.clone()),
        };
        let mut statement = doc! { "q": self.filter.clone(), "u": u };
        if self.upsert {
            statement.insert("upsert", true);
        }
        if self.multi {
            statement.insert("multi", true);
        }
        statement
    }
}

/// One `insertOne` on one collection.
#[derive(Clone, Debug, PartialEq)]
pub struct InsertOne {
    /// The collection written.
    pub collection: String,
    /// The document inserted.
    pub document: Document,
}

/// One `find` on one collection: filter and sort.
#[derive(Clone, Debug, PartialEq)]
pub struct Find {
    /// The collection read.
    pub collection: String,
    /// The query.
    pub filter: Document,
    /// The sort, empty for none.
    pub sort: Document,
}

/// Combines several operator updates into one update document, so that a denormalised value
/// changes in the same write as the data it summarises (one document write is atomic).
///
/// Operators are merged key by key in the order given; `$push`, `$inc`, `$set` and the rest keep
/// their first-seen order.
///
/// # Errors
/// [`PatternError::NotAnOperator`] for a key without `$`; [`PatternError::ConflictingPaths`] when
/// two updates name the same path or one names a parent of the other (the server refuses that
/// with code 40, whichever operators are involved).
///
/// ```
/// use bson::doc;
/// use mongo_schema::patterns::combine;
/// let one = combine([
///     doc! { "$push": { "reviews": { "stars": 5 } } },
///     doc! { "$inc": { "review_count": 1, "rating_sum": 5 } },
/// ]).unwrap();
/// assert_eq!(one, doc! {
///     "$push": { "reviews": { "stars": 5 } },
///     "$inc": { "review_count": 1, "rating_sum": 5 },
/// });
/// assert!(combine([doc! { "$set": { "a": 1 } }, doc! { "$inc": { "a.b": 1 } }]).is_err());
/// ```
pub fn combine(updates: impl IntoIterator<Item = Document>) -> Result<Document, PatternError> {
    let mut out = Document::new();
    let mut paths: Vec<String> = Vec::new();
    for update in updates {
        for (operator, fields) in update {
            if !operator.starts_with('$') {
                return Err(PatternError::NotAnOperator { key: operator });
            }
            let Bson::Document(fields) = fields else {
                return Err(PatternError::NotAnOperator { key: operator });
            };
            let slot = out
                .entry(operator.clone())
                .or_insert_with(|| Bson::Document(Document::new()));
            let Some(target) = slot.as_document_mut() else {
                return Err(PatternError::NotAnOperator { key: operator });
            };
            for (path, value) in fields {
                if let Some(first) = paths.iter().find(|p| overlaps(p, &path)) {
                    return Err(PatternError::ConflictingPaths {
                        first: first.clone(),
                        second: path,
                    });
                }
                paths.push(path.clone());
                target.insert(path, value);
            }
        }
    }
    Ok(out)
}

/// Whether two dotted paths are equal or one is a prefix of the other at a dot.
fn overlaps(a: &str, b: &str) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    long == short || (long.starts_with(short) && long.as_bytes().get(short.len()) == Some(&b'.'))
}

/// The schema node at a dotted path of stored names, through `properties` only.
pub(crate) fn property_mut<'a>(
    schema: &'a mut JsonSchema,
    path: &str,
) -> Result<&'a mut JsonSchema, PatternError> {
    let mut node = schema;
    for segment in path.split('.') {
        node = node
            .properties
            .get_mut(segment)
            .ok_or_else(|| PatternError::MissingProperty {
                path: path.to_owned(),
            })?;
    }
    Ok(node)
}

/// A number's negation, keeping its BSON type (decimal through its text form).
pub(crate) fn negate(what: &str, value: &Bson) -> Result<Bson, PatternError> {
    let not_a_number = || PatternError::NotANumber {
        what: what.to_owned(),
        found: format!("{value:?}"),
    };
    match value {
        Bson::Int32(v) => Ok(v
            .checked_neg()
            .map_or(Bson::Int64(-i64::from(*v)), Bson::Int32)),
        Bson::Int64(v) => v.checked_neg().map(Bson::Int64).ok_or_else(not_a_number),
        Bson::Double(v) => Ok(Bson::Double(-v)),
        Bson::Decimal128(d) => {
            let text = d.to_string();
            let negated = match text.strip_prefix('-') {
                Some(positive) => positive.to_owned(),
                None => format!("-{text}"),
            };
            negated
                .parse::<bson::Decimal128>()
                .map(Bson::Decimal128)
                .map_err(|_| not_a_number())
        }
        _ => Err(not_a_number()),
    }
}

/// Checks that `value` is a number, for the fields `$inc`, `$min` and `$max` fold it into.
pub(crate) fn number(what: &str, value: Bson) -> Result<Bson, PatternError> {
    match value {
        Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_) | Bson::Decimal128(_) => Ok(value),
        other => Err(PatternError::NotANumber {
            what: what.to_owned(),
            found: format!("{other:?}"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combine_merges_operators_in_first_seen_order() {
        let merged = combine([
            doc! { "$push": { "reviews": 1 }, "$set": { "updated": true } },
            doc! { "$inc": { "review_count": 1 }, "$set": { "last_stars": 4 } },
        ])
        .unwrap();
        assert_eq!(
            merged,
            doc! {
                "$push": { "reviews": 1 },
                "$set": { "updated": true, "last_stars": 4 },
                "$inc": { "review_count": 1 },
            }
        );
    }

    // Server: src/mongo/db/update/update_object_node.cpp (UpdateObjectNode::parseAndMerge and its
    // tests): "Updating the path 'a' would create a conflict at 'a'", ConflictingUpdateOperators
    // (code 40), for the same path or a path and its prefix, whichever operators hold them.
    #[test]
    fn combine_refuses_paths_the_server_calls_conflicting() {
        let conflict = combine([doc! { "$inc": { "a": 1 } }, doc! { "$set": { "a": 2 } }]);
        assert_eq!(
            conflict,
            Err(PatternError::ConflictingPaths {
                first: "a".into(),
                second: "a".into()
            })
        );
        assert!(
            combine([
                doc! { "$set": { "summary": {} } },
                doc! { "$max": { "summary.max": 1 } }
            ])
            .is_err()
        );
        // `ab` is not inside `a`.
        assert!(combine([doc! { "$inc": { "a": 1 } }, doc! { "$inc": { "ab": 1 } }]).is_ok());
    }

    #[test]
    fn combine_refuses_replacement_documents() {
        assert_eq!(
            combine([doc! { "name": "x" }]),
            Err(PatternError::NotAnOperator { key: "name".into() })
        );
    }

    #[test]
    fn negate_keeps_the_number_type() {
        assert_eq!(negate("x", &Bson::Int32(5)).unwrap(), Bson::Int32(-5));
        assert_eq!(
            negate("x", &Bson::Int32(i32::MIN)).unwrap(),
            Bson::Int64(2_147_483_648)
        );
        assert_eq!(negate("x", &Bson::Double(2.5)).unwrap(), Bson::Double(-2.5));
        let d: bson::Decimal128 = "12.50".parse().unwrap();
        assert_eq!(
            negate("x", &Bson::Decimal128(d)).unwrap().to_string(),
            "-12.50"
        );
        assert!(negate("x", &Bson::String("5".into())).is_err());
    }

    #[test]
    fn update_statement_has_q_u_and_upsert_only_when_set() {
        let update = Update::new("c", doc! { "_id": 1 }, doc! { "$inc": { "n": 1 } });
        assert_eq!(
            update.to_statement(),
            doc! { "q": { "_id": 1 }, "u": { "$inc": { "n": 1 } } }
        );
        let pipeline =
            Update::pipeline("c", doc! {}, vec![doc! { "$set": { "n": 1 } }]).upsert(true);
        assert_eq!(
            pipeline.to_statement(),
            doc! { "q": {}, "u": [{ "$set": { "n": 1 } }], "upsert": true }
        );
    }
}
