//! What can go wrong with a declaration: a combination the server would refuse ([`SpecError`])
//! and a spec document that cannot be read ([`DocumentError`]).

use bson::Bson;

/// A declaration the server would refuse, with the server's reason.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SpecError {
    /// `expireAfterSeconds` on an index with more than one field.
    #[error(
        "{collection}: index {index:?}: TTL indexes are single-field indexes, compound indexes do not support TTL"
    )]
    TtlOnCompoundIndex {
        /// The collection.
        collection: String,
        /// The index name.
        index: String,
    },
    /// `unique` on a hashed index.
    #[error(
        "{collection}: index {index:?}: Currently hashed indexes cannot guarantee uniqueness. Use a regular index."
    )]
    UniqueHashed {
        /// The collection.
        collection: String,
        /// The index name.
        index: String,
    },
    /// Two text indexes in one collection.
    #[error(
        "{collection}: only one text index per collection allowed, found existing text index {first:?} when adding {second:?}"
    )]
    MultipleTextIndexes {
        /// The collection.
        collection: String,
        /// The first text index.
        first: String,
        /// The second text index.
        second: String,
    },
    /// More than 64 indexes, `_id_` included.
    #[error("{collection}: add index fails, too many indexes: {count} (at most 64, _id_ included)")]
    TooManyIndexes {
        /// The collection.
        collection: String,
        /// How many indexes were declared, `_id_` included.
        count: usize,
    },
    /// More than 32 fields in one key pattern.
    #[error(
        "{collection}: index {index:?}: Index key pattern has {count} fields; the maximum is 32"
    )]
    TooManyKeyFields {
        /// The collection.
        collection: String,
        /// The index name.
        index: String,
        /// How many fields the key pattern has.
        count: usize,
    },
    /// Two collection roots declare one collection.
    #[error("{collection}: declared by two types")]
    DuplicateCollection {
        /// The collection.
        collection: String,
    },
    /// Two indexes with one identity (key pattern, collation, partial filter, unique, sparse,
    /// wildcard projection): the server keeps one (IndexOptionsConflict, code 85).
    #[error("{collection}: indexes {first:?} and {second:?} have the same key pattern and options")]
    DuplicateIndex {
        /// The collection.
        collection: String,
        /// The first index.
        first: String,
        /// The second index.
        second: String,
    },
    /// Two indexes with one name.
    #[error("{collection}: index {index:?} is declared twice")]
    DuplicateIndexName {
        /// The collection.
        collection: String,
        /// The repeated name.
        index: String,
    },
    /// A validator on a time-series collection (server: InvalidOptions, code 72).
    #[error("{collection}: Validators are not allowed on time-series collections")]
    ValidatorOnTimeseries {
        /// The collection.
        collection: String,
    },
    /// Another index option combination the server refuses.
    #[error("{collection}: index {index:?}: {reason}")]
    InvalidIndex {
        /// The collection.
        collection: String,
        /// The index name.
        index: String,
        /// The server's reason.
        reason: String,
    },
    /// Another collection option combination the server refuses.
    #[error("{collection}: {reason}")]
    InvalidCollection {
        /// The collection.
        collection: String,
        /// The server's reason.
        reason: String,
    },
    /// A `$jsonSchema` the server's parser rejects (`format`, `$ref`, `const`, `type: "integer"`,
    /// a misspelt keyword, ...): `create` and `collMod` would fail with this code.
    #[error(
        "{collection}: validator: $jsonSchema.{}: {} (the server refuses it with code {})",
        source.path(),
        source.reason(),
        source.code()
    )]
    InvalidValidator {
        /// The collection.
        collection: String,
        /// What the server's parser rejects, with the keyword's path.
        source: crate::schema::parse::ParseError,
    },
    /// A declared path names no field of the type it reaches.
    #[error("{collection}: {source}")]
    Path {
        /// The collection.
        collection: String,
        /// Which type, which path, and the nearest names.
        source: crate::generate::PathError,
    },
    /// A shard key the server refuses.
    #[error("{collection}: shard key: {reason}")]
    InvalidShardKey {
        /// The collection.
        collection: String,
        /// The server's reason.
        reason: String,
    },
}

/// A field of a spec document (manifest entry, server reply) with a type or value the model
/// cannot read; `path` is dotted from the document read (`indexes[2].weights.title`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct DocumentError {
    /// Where, dotted from the document read.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl DocumentError {
    /// A required field is missing.
    pub fn missing(path: &str) -> DocumentError {
        DocumentError {
            path: path.to_owned(),
            message: "missing".to_owned(),
        }
    }

    /// A field has a value of the wrong type or shape.
    pub fn expected(path: &str, expected: &str, found: &Bson) -> DocumentError {
        DocumentError {
            path: path.to_owned(),
            message: format!("expected {expected}, found {found}"),
        }
    }

    /// The same error seen from an enclosing document: `prefix.path`.
    pub fn within(mut self, prefix: &str) -> DocumentError {
        self.path = match (prefix.is_empty(), self.path.is_empty()) {
            (true, _) => self.path,
            (false, true) => prefix.to_owned(),
            (false, false) if self.path.starts_with('[') => format!("{prefix}{}", self.path),
            (false, false) => format!("{prefix}.{}", self.path),
        };
        self
    }
}
