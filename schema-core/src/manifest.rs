//! The manifest: every declared collection as relaxed Extended JSON, the file `mongo-schema
//! generate` prints and `--manifest FILE` reads, so that other tools can read our declarations.
//!
//! Shape: `{"collections": [{"name", "options": {<create options>}, "indexes": [<createIndexes
//! entries>], "shardKey": {"key", "unique"}}]}`, collections sorted by name, keys in a fixed order.

use std::fmt::Write as _;

use bson::{Bson, Document};

use crate::collection::{CollectionSpec, DocumentError, SpecError};
use crate::schema::ExtJsonMode;

/// Declared collections, sorted by name.
///
/// ```
/// use mongo_schema::collection::CollectionSpec;
/// use mongo_schema::index::{IndexKind::*, IndexSpec};
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
pub struct Manifest {
    /// The collections, sorted by name.
    pub collections: Vec<CollectionSpec>,
}

/// A manifest file that cannot be read, with where.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ManifestError {
    /// Not JSON, or not Extended JSON (`{"$numberLong": 5}`).
    #[error("line {line}, column {column}: {message}")]
    Json {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What the JSON parser said.
        message: String,
    },
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
        let mut text = to_json_text(&Bson::Document(self.to_document()), ExtJsonMode::Relaxed);
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
        let doc = parse_extjson_document(text)?;
        Manifest::from_document(&doc)
    }
}

/// Parses Extended JSON text (relaxed or canonical) into a document, keeping field order.
///
/// # Errors
/// [`ManifestError::Json`] with line and column.
pub fn parse_extjson_document(text: &str) -> Result<Document, ManifestError> {
    // bson's own deserializer reads the `$`-keys of Extended JSON and keeps field order, which
    // serde_json's `Value` would not without its `preserve_order` feature.
    let value: Bson = serde_json::from_str(text).map_err(|e| ManifestError::Json {
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    match value {
        Bson::Document(doc) => Ok(doc),
        other => Err(ManifestError::Json {
            line: 1,
            column: 1,
            message: format!("expected a JSON object at the top, found {other}"),
        }),
    }
}

/// Pretty-prints a BSON value as Extended JSON with two-space indentation, keeping document
/// field order. Documents whose values are all scalars fit on one line.
///
/// ```
/// use mongo_schema::manifest::to_json_text;
/// use mongo_schema::ExtJsonMode;
/// let text = to_json_text(&bson::Bson::Document(bson::doc! { "b": 1_i64, "a": [] }), ExtJsonMode::Canonical);
/// assert_eq!(text, r#"{"b": {"$numberLong":"1"}, "a": []}"#);
/// ```
pub fn to_json_text(value: &Bson, mode: ExtJsonMode) -> String {
    let mut out = String::new();
    write_value(&mut out, value, mode, 0);
    out
}

fn is_scalar(value: &Bson) -> bool {
    match value {
        Bson::Document(d) => d.is_empty(),
        Bson::Array(a) => a.is_empty(),
        _ => true,
    }
}

/// Whether a value fits on a line inside a flat document: a scalar or an array of scalars.
fn is_inline(value: &Bson) -> bool {
    match value {
        Bson::Array(a) => a.iter().all(is_scalar),
        other => is_scalar(other),
    }
}

/// Whether a document is short and flat enough for one line.
fn is_flat(doc: &Document) -> bool {
    doc.len() <= 4 && doc.values().all(is_inline)
}

fn leaf_json(leaf: &Bson, mode: ExtJsonMode) -> String {
    let json = match mode {
        ExtJsonMode::Relaxed => leaf.clone().into_relaxed_extjson(),
        ExtJsonMode::Canonical => leaf.clone().into_canonical_extjson(),
    };
    json.to_string()
}

fn write_value(out: &mut String, value: &Bson, mode: ExtJsonMode, depth: usize) {
    match value {
        Bson::Document(doc) => write_document(out, doc, mode, depth),
        Bson::Array(items) => {
            if items.is_empty() {
                out.push_str("[]");
                return;
            }
            if items.iter().all(is_scalar) {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    write_value(out, item, mode, depth + 1);
                }
                out.push(']');
                return;
            }
            out.push_str("[\n");
            for (i, item) in items.iter().enumerate() {
                indent(out, depth + 1);
                write_value(out, item, mode, depth + 1);
                if i + 1 < items.len() {
                    out.push(',');
                }
                out.push('\n');
            }
            indent(out, depth);
            out.push(']');
        }
        leaf => {
            out.push_str(&leaf_json(leaf, mode));
        }
    }
}

fn write_document(out: &mut String, doc: &Document, mode: ExtJsonMode, depth: usize) {
    if doc.is_empty() {
        out.push_str("{}");
        return;
    }
    let flat = is_flat(doc);
    out.push('{');
    if !flat {
        out.push('\n');
    }
    for (i, (key, value)) in doc.iter().enumerate() {
        if flat {
            if i > 0 {
                out.push_str(", ");
            }
        } else {
            indent(out, depth + 1);
        }
        let _ = write!(out, "{}: ", serde_json::Value::String(key.clone()));
        write_value(out, value, mode, depth + 1);
        if !flat {
            if i + 1 < doc.len() {
                out.push(',');
            }
            out.push('\n');
        }
    }
    if !flat {
        indent(out, depth);
    }
    out.push('}');
}

fn indent(out: &mut String, depth: usize) {
    for _ in 0..depth {
        out.push_str("  ");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collection::{Collation, Granularity, ShardKey, TimeseriesOptions};
    use crate::index::{IndexKind::*, IndexSpec};
    use crate::schema::{BsonType, JsonSchema};

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
            ManifestError::Json { line, column, .. } => assert_eq!((line, column), (3, 14)),
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
