//! `infer`: from the documents a collection holds to the Rust types that describe them.
//!
//! documents --[`census`]--> [`Census`] --[`model`]--> [`Model`] --> Rust source ([`rust`]) and
//! the validator those types derive ([`validator_for`]) --[`Proof`]--> "accepts N of N documents".
//!
//! ```
//! use mongo_schema::infer::{self, Census, Options, Proof};
//!
//! let docs = [
//!     bson::rawdoc! { "_id": 1, "name": "Ada", "tags": ["x"] },
//!     bson::rawdoc! { "_id": 2, "name": "Grace" },
//! ];
//! let mut census = Census::new();
//! for doc in &docs {
//!     census.add(doc)?;
//! }
//! let inference = infer::infer(&census, "people", &Options::default())?;
//! assert!(inference.source.contains("pub tags: Option<Vec<String>>,"));
//! let mut proof = Proof::new(&inference.validator)?;
//! docs.iter().for_each(|d| proof.check(d));
//! assert_eq!(proof.summary(), "accepts 2 of 2 documents");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A root field that is a schema version (its values decide which fields the documents have)
//! makes one struct per version, declared with `#[mongo(version(...))]`, and the `From`
//! conversions into the current one ([`convert`]).

pub mod census;
pub mod census_stats;
pub mod convert;
mod declare;
pub mod lints;
pub mod model;
mod names;
pub mod rust;
mod validator;

use bson::RawDocument;
use serde::Serialize;

pub use census::{Census, Fields, Node};
pub use model::{Model, Options};

use crate::eval::{CompileError, Validator};
use crate::schema::JsonSchema;

/// How many rejected documents a [`Proof`] keeps with their explanations.
pub const MAX_EXCEPTIONS: usize = 20;

/// Why `infer` could not propose types.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InferError {
    /// The collection name cannot be declared (the server's rule: not empty, no `$`, not a
    /// `system.` collection).
    #[error(
        "{0:?} cannot be a collection name: it must be non-empty, without '$', and not start with \"system.\"; pass another name"
    )]
    BadCollectionName(String),
}

/// What `infer` proposes for one collection.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Inference {
    /// The types, as data.
    pub model: Model,
    /// The types, as Rust source.
    pub source: String,
    /// The `$jsonSchema` those types derive for the collection's validator.
    pub validator: JsonSchema,
}

/// Proposes Rust types for `collection` from its census.
///
/// # Errors
/// [`InferError::BadCollectionName`] when `collection` cannot name a collection.
pub fn infer(
    census: &Census,
    collection: &str,
    options: &Options,
) -> Result<Inference, InferError> {
    check_name(collection)?;
    let mut model = model::build(census, collection, options);
    convert::complete(&mut model);
    Ok(Inference {
        source: rust::source(&model, census.documents),
        validator: validator::root(&model),
        model,
    })
}

/// Proposes Rust types for a collection read from a deployment: as [`infer`], with the
/// collection's indexes and options (its normalized live spec, from `listIndexes` and
/// `listCollections`) declared on the root type, so `check` against the same deployment finds
/// them in sync. What cannot be declared (a path the documents never held, a text index) is
/// left out with a note.
///
/// ```
/// use mongo_schema::infer::{self, Census, Options};
/// use mongo_schema::spec::{CollectionSpec, IndexKind, IndexSpec};
/// let mut census = Census::new();
/// census.add(&bson::rawdoc! { "email": "a@example.com" })?;
/// let live = CollectionSpec::new("users")
///     .index(IndexSpec::new([("email", IndexKind::Ascending)]).unique(true));
/// let inference = infer::infer_live(&census, &live, &Options::default())?;
/// assert!(inference.source.contains("    index(keys(email), unique),\n"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`InferError::BadCollectionName`] when the spec's name cannot name a collection.
pub fn infer_live(
    census: &Census,
    live: &crate::spec::CollectionSpec,
    options: &Options,
) -> Result<Inference, InferError> {
    check_name(&live.name)?;
    let mut model = model::build(census, &live.name, options);
    convert::complete(&mut model);
    let (attributes, notes) = declare::attributes(&model, live);
    model.attributes = attributes;
    model.notes.extend(notes);
    Ok(Inference {
        source: rust::source(&model, census.documents),
        validator: validator::root(&model),
        model,
    })
}

/// The validator the types [`infer`] writes will derive, built with the generator the derive
/// uses (each field through its Rust type's `MongoSchema` impl, each struct through the
/// derive's runtime builder), without compiling anything. The collection's name does not change
/// it.
///
/// ```
/// use mongo_schema::infer::{self, Census, Options};
/// let mut census = Census::new();
/// census.add(&bson::rawdoc! { "qty": 3 })?;
/// let schema = infer::validator_for(&census, &Options::default());
/// assert_eq!(schema.required, Some(vec!["qty".to_owned()]));
/// # Ok::<(), bson::error::Error>(())
/// ```
pub fn validator_for(census: &Census, options: &Options) -> JsonSchema {
    validator::root(&model::build(census, "collection", options))
}

fn check_name(collection: &str) -> Result<(), InferError> {
    // The derive refuses these names too (schema-derive collection.rs), matching the server.
    if collection.is_empty() || collection.contains('$') || collection.starts_with("system.") {
        return Err(InferError::BadCollectionName(collection.to_owned()));
    }
    Ok(())
}

/// One document the predicted validator rejects, with the evaluator's explanation.
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct Exception {
    /// Its position in the scan, from 0.
    pub index: u64,
    /// Its `_id`, as relaxed Extended JSON, when it has one.
    pub id: Option<String>,
    /// One line per failure (`path: what is wrong`).
    pub reasons: Vec<String>,
}

/// Checks every scanned document against the predicted validator: the proof printed with the
/// generated types.
#[derive(Debug)]
pub struct Proof {
    validator: std::sync::Arc<Validator>,
    /// Documents checked.
    pub checked: u64,
    /// Documents accepted.
    pub accepted: u64,
    /// The first [`MAX_EXCEPTIONS`] rejected documents.
    pub exceptions: Vec<Exception>,
}

impl Proof {
    /// A proof against `validator`.
    ///
    /// # Errors
    /// The schema does not compile (a pattern PCRE2 rejects); `infer` writes none.
    pub fn new(validator: &JsonSchema) -> Result<Proof, CompileError> {
        Ok(Proof {
            validator: std::sync::Arc::new(Validator::new(validator)?),
            checked: 0,
            accepted: 0,
            exceptions: Vec::new(),
        })
    }

    /// An empty proof against the same validator, for one part of a scan split across cores;
    /// [`Proof::merge`] puts the parts back together in scan order.
    pub fn part(&self) -> Proof {
        Proof {
            validator: std::sync::Arc::clone(&self.validator),
            checked: 0,
            accepted: 0,
            exceptions: Vec::new(),
        }
    }

    /// Appends the proof of the documents scanned after these: counts add, and `later`'s
    /// exceptions follow, their positions counted from the start of the whole scan.
    ///
    /// ```
    /// use mongo_schema::infer::{self, Census, Options, Proof};
    /// let docs = [bson::rawdoc! { "a": 1 }, bson::rawdoc! { "a": "x" }, bson::rawdoc! {}];
    /// let mut census = Census::new();
    /// census.add(&docs[0])?;
    /// let inference = infer::infer(&census, "c", &Options::default())?;
    /// let mut whole = Proof::new(&inference.validator)?;
    /// docs.iter().for_each(|d| whole.check(d));
    /// let mut first = whole.part();
    /// first.check(&docs[0]);
    /// let mut rest = whole.part();
    /// docs[1..].iter().for_each(|d| rest.check(d));
    /// first.merge(rest);
    /// assert_eq!((first.checked, first.accepted), (whole.checked, whole.accepted));
    /// assert_eq!(first.exceptions[1].index, 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn merge(&mut self, later: Proof) {
        let before = self.checked;
        self.checked += later.checked;
        self.accepted += later.accepted;
        let room = MAX_EXCEPTIONS.saturating_sub(self.exceptions.len());
        self.exceptions
            .extend(later.exceptions.into_iter().take(room).map(|mut e| {
                e.index += before;
                e
            }));
    }

    /// Checks one document, its structure first as the server does on insert (nesting deeper
    /// than [`crate::eval::MAX_DEPTH`] is refused even where the schema would not look).
    pub fn check(&mut self, doc: &RawDocument) {
        let index = self.checked;
        self.checked += 1;
        let reasons = match self.validator.validate_bytes(doc.as_bytes()) {
            Ok(verdict) if verdict.is_valid() => {
                self.accepted += 1;
                return;
            }
            Ok(verdict) => verdict.summaries().to_vec(),
            Err(malformed) => vec![malformed.to_string()],
        };
        if self.exceptions.len() < MAX_EXCEPTIONS {
            let id = doc
                .get("_id")
                .ok()
                .flatten()
                .and_then(|id| bson::Bson::try_from(id).ok())
                .map(|id| id.into_relaxed_extjson().to_string());
            self.exceptions.push(Exception { index, id, reasons });
        }
    }

    /// Whether every document checked was accepted.
    pub fn is_complete(&self) -> bool {
        self.accepted == self.checked
    }

    /// `accepts N of M documents`.
    pub fn summary(&self) -> String {
        format!(
            "accepts {} of {}",
            self.accepted,
            crate::plural::count(self.checked, "document")
        )
    }
}

/// The statistics of one path, flattened for a report.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct PathReport<'a> {
    /// The dotted path; `[]` stands for array elements, `*` for the values of a map.
    pub path: String,
    /// Values seen there.
    pub present: u64,
    /// How many could have been: objects seen at the parent (for elements, `present`).
    pub of: u64,
    /// The node's statistics (its children have their own entries).
    #[serde(flatten)]
    pub stats: Stats<'a>,
}

/// A node's statistics without its children.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Stats<'a> {
    types: &'a census::TypeCounts,
    #[serde(skip_serializing_if = "Option::is_none")]
    string_length: Option<census::Range<u64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    distinct: Option<&'a std::collections::BTreeSet<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    int: Option<census::Range<i32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    long: Option<census::Range<i64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    double: Option<census::Range<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    date: Option<census::Range<i64>>,
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    binary_subtypes: &'a std::collections::BTreeMap<u8, u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    array_length: Option<ArrayLength>,
    #[serde(skip_serializing_if = "Option::is_none")]
    map_keys: Option<u64>,
    #[serde(skip_serializing_if = "is_zero")]
    too_deep: u64,
}

#[derive(Debug, Serialize)]
struct ArrayLength {
    min: u64,
    max: u64,
    p99: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Census {
    /// Every path seen, depth first in the order first seen, with its statistics.
    pub fn paths(&self) -> Vec<PathReport<'_>> {
        let mut out = Vec::new();
        walk(&self.root, String::new(), &mut out);
        out
    }
}

fn walk<'a>(node: &'a Node, path: String, out: &mut Vec<PathReport<'a>>) {
    let join = |key: &str| {
        if path.is_empty() {
            key.to_owned()
        } else {
            format!("{path}.{key}")
        }
    };
    match &node.fields {
        Fields::Named(named) => {
            for (key, child) in named {
                out.push(report(child, join(key), node.objects()));
                walk(child, join(key), out);
            }
        }
        Fields::Map { values, .. } => {
            out.push(report(values, join("*"), values.count));
            walk(values, join("*"), out);
        }
    }
    if let Some(elements) = &node.elements {
        out.push(report(elements, join("[]"), elements.count));
        walk(elements, join("[]"), out);
    }
}

fn report(node: &Node, path: String, of: u64) -> PathReport<'_> {
    let distinct = node.strings.values.as_ref().filter(|v| !v.is_empty());
    PathReport {
        path,
        present: node.count,
        of,
        stats: Stats {
            types: &node.types,
            string_length: node.string_length,
            distinct,
            int: node.int,
            long: node.long,
            double: node.double,
            date: node.date,
            binary_subtypes: &node.binary_subtypes,
            array_length: node.lengths.range.map(|r| ArrayLength {
                min: r.min,
                max: r.max,
                p99: node.lengths.p99().unwrap_or(r.max),
            }),
            map_keys: match &node.fields {
                Fields::Map { keys, .. } => Some(*keys),
                Fields::Named(_) => None,
            },
            too_deep: node.too_deep,
        },
    }
}
