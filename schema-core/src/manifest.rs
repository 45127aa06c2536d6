//! The manifest: every declared collection as relaxed Extended JSON, the file `mongo-schema
//! generate` prints and `--manifest FILE` reads, so that other tools can read our declarations.
//!
//! Shape: `{"collections": [{"name", "options": {<create options>}, "indexes": [<createIndexes
//! entries>], "shardKey": {"key", "unique"}}]}`, collections sorted by name, keys in a fixed order.

use bson::{Bson, Document};

use crate::extjson::{self, ExtJsonError, ExtJsonMode};
use crate::spec::{CollectionSpec, DocumentError, SpecError};

/// Declared collections, sorted by name.
///
/// ```
/// use mongo_schema::spec::CollectionSpec;
/// use mongo_schema::spec::{IndexKind::*, IndexSpec};
/// use mongo_schema::manifest::Manifest;
///
/// let manifest = Manifest::new(vec![
///     CollectionSpec::new("orders").index(IndexSpec::new([("user_id", Ascending)])),
/// ]);
/// let json = manifest.to_json();
/// assert!(json.contains(r#""key": {"user_id": 1}"#), "{json}");
/// assert_eq!(Manifest::from_json(&json).unwrap().to_json(), json);
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct Manifest {
    /// The collections, sorted by name.
    pub collections: Vec<CollectionSpec>,
}

/// A manifest file that cannot be read, with where.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ManifestError {
    /// Not JSON, or not Extended JSON (`{"$numberLong": 5}`): line, column and field.
    #[error(transparent)]
    Json(#[from] ExtJsonError),
    /// JSON of the wrong shape: `path` is dotted from the top (`collections[2].indexes[0].key`).
    #[error("{path}: {message}")]
    Shape {
        /// Where, from the top of the file.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// A declaration the server would refuse.
    #[error(transparent)]
    Spec(#[from] SpecError),
}

impl From<DocumentError> for ManifestError {
    fn from(e: DocumentError) -> ManifestError {
        ManifestError::Shape {
            path: e.path,
            message: e.message,
        }
    }
}

impl Manifest {
    /// A manifest of these collections, sorted by name.
    pub fn new(mut collections: Vec<CollectionSpec>) -> Manifest {
        collections.sort_by(|a, b| a.name.cmp(&b.name));
        Manifest { collections }
    }

    /// The manifest of every collection root linked into the program
    /// ([`crate::registry::collections`]).
    pub fn from_registry() -> Manifest {
        Manifest::new(crate::registry::collections())
    }

    /// Checks every collection ([`CollectionSpec::check`]) and that names are unique.
    ///
    /// # Errors
    /// The first [`SpecError`] found.
    pub fn check(&self) -> Result<(), SpecError> {
        crate::registry::check_all(&self.collections)
    }

    /// The manifest as a document: `{"collections": [...]}`.
    pub fn to_document(&self) -> Document {
        let collections: Vec<Bson> = self
            .collections
            .iter()
            .map(|c| Bson::Document(c.to_manifest_document()))
            .collect();
        bson::doc! { "collections": collections }
    }

    /// The manifest as pretty-printed relaxed Extended JSON, ending in a newline. Key order is
    /// the document order, so the text is the same on every run.
    pub fn to_json(&self) -> String {
        let mut text =
            extjson::to_string_pretty(&Bson::Document(self.to_document()), ExtJsonMode::Relaxed);
        text.push('\n');
        text
    }

    /// Reads a manifest document.
    ///
    /// # Errors
    /// [`ManifestError::Shape`] with the path of the first field that cannot be read.
    pub fn from_document(doc: &Document) -> Result<Manifest, ManifestError> {
        let list = match doc.get("collections") {
            Some(Bson::Array(list)) => list,
            Some(other) => {
                return Err(DocumentError::expected("collections", "an array", other).into());
            }
            None => return Err(DocumentError::missing("collections").into()),
        };
        if let Some(key) = doc.keys().find(|k| *k != "collections") {
            return Err(ManifestError::Shape {
                path: key.clone(),
                message: "unknown field; a manifest has only \"collections\"".into(),
            });
        }
        let mut collections = Vec::with_capacity(list.len());
        for (i, entry) in list.iter().enumerate() {
            let at = format!("collections[{i}]");
            let Bson::Document(entry) = entry else {
                return Err(DocumentError::expected(&at, "a document", entry).into());
            };
            let spec = CollectionSpec::from_manifest_document(entry).map_err(|e| {
                let named = match entry.get_str("name") {
                    Ok(name) => format!("{at}({name})"),
                    Err(_) => at.clone(),
                };
                e.within(&named)
            })?;
            collections.push(spec);
        }
        Ok(Manifest::new(collections))
    }

    /// Reads a manifest file's text (relaxed or canonical Extended JSON; field order is kept,
    /// as key patterns need).
    ///
    /// # Errors
    /// [`ManifestError::Json`] with line and column for text that is not Extended JSON;
    /// [`ManifestError::Shape`] with a path for JSON of the wrong shape.
    pub fn from_json(text: &str) -> Result<Manifest, ManifestError> {
        let doc = extjson::parse_document(text)?;
        Manifest::from_document(&doc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{BsonType, JsonSchema};
    use crate::spec::{Collation, Granularity, ShardKey, TimeseriesOptions};
    use crate::spec::{IndexKind::*, IndexSpec};

    fn sample() -> Manifest {
        Manifest::new(vec![
            CollectionSpec::new("sensor_readings")
                .timeseries(
                    TimeseriesOptions::new("timestamp")
                        .meta_field("sensor_id")
                        .granularity(Granularity::Minutes),
                )
                .expire_after_seconds(7_776_000),
            CollectionSpec::new("articles")
                .json_schema(JsonSchema::bson_type(BsonType::Object))
                .collation(Collation::new("en"))
                .index(
                    IndexSpec::new([("title", Text), ("content", Text)])
                        .weight("title", 10)
                        .weight("content", 1),
                )
                .shard_key(ShardKey::hashed("author_id")),
        ])
    }

    #[test]
    fn collections_are_sorted_by_name() {
        let manifest = sample();
        let names: Vec<&str> = manifest
            .collections
            .iter()
            .map(|c| c.name.as_str())
            .collect();
        assert_eq!(names, ["articles", "sensor_readings"]);
    }

    #[test]
    fn json_round_trips_and_keeps_key_order() {
        let json = sample().to_json();
        let read = Manifest::from_json(&json).unwrap();
        assert_eq!(read.to_json(), json);
        // Key order of a compound key pattern survives parsing.
        let keys: Vec<&str> = read.collections[0].indexes[0]
            .keys
            .iter()
            .map(|(p, _)| p)
            .collect();
        assert_eq!(keys, ["title", "content"]);
        // The collection TTL is written as Int64, relaxed: a plain number.
        assert!(json.contains(r#""expireAfterSeconds": 7776000"#), "{json}");
    }

    #[test]
    fn syntax_errors_carry_line_and_column() {
        let err =
            Manifest::from_json("{\n  \"collections\": [\n    {\"name\": }\n  ]\n}").unwrap_err();
        match err {
            ManifestError::Json(e) => {
                assert_eq!(
                    (e.line, e.column, e.path.as_str()),
                    (3, 14, "collections.0.name")
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn shape_errors_carry_the_path_and_collection_name() {
        let text = r#"{"collections": [{"name": "a"}, {"name": "orders", "indexes": [{"key": {"a": 1}, "unique": "yes"}]}]}"#;
        let err = Manifest::from_json(text).unwrap_err();
        assert_eq!(
            err.to_string(),
            r#"collections[1](orders).indexes[0].unique: expected a boolean, found "yes""#
        );
        let err = Manifest::from_json(r#"{"collection": []}"#).unwrap_err();
        assert_eq!(err.to_string(), "collections: missing");
    }

    #[test]
    fn check_refuses_duplicate_collections() {
        let manifest = Manifest::new(vec![CollectionSpec::new("a"), CollectionSpec::new("a")]);
        assert!(manifest.check().is_err());
        assert!(sample().check().is_ok());
    }
}
