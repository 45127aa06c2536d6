//! Server replies (`listCollections`, `listIndexes`) -> live [`CollectionSpec`]s, and both live and
//! declared specs -> one canonical form, so that `diff` sees only real differences.
//!
//! Every rule here is a server behaviour from `SERVER-FACTS.md` ("What listCollections and
//! listIndexes return"); each has a test named after it.
//!
//! # Canonical form
//! - `validationLevel`/`validationAction` absent are filled with the defaults (strict, error).
//! - Indexes: `_id_`, the clustered index and the time-series default index are removed (they
//!   are the server's); every index gets its name (explicit or default, computed from the
//!   declared key pattern); text indexes take their listed form (`_fts`/`_ftsx`, every text
//!   field in `weights`, `default_language: english`, `language_override: language`); 2d
//!   indexes get `bits: 26, min: -180, max: 180`; wildcard projections become a sorted map of
//!   dotted paths to booleans without the implicit `_id: false`; ignored fields (`v`, `ns`,
//!   `background`, `textIndexVersion`, `2dsphereIndexVersion`) are dropped; indexes are sorted
//!   by name.
//! - Index collations are resolved: a declared index without one inherits the collection's, as
//!   the server does, and "simple" is written out as `{locale: "simple"}` so that the form is
//!   idempotent. A collation's `version` is dropped (never compared).
//! - Time-series: `granularity` defaults to seconds unless custom bucketing is set;
//!   `bucketMaxSpanSeconds` is filled from the granularity; `bucketRoundingSeconds` equal to the
//!   granularity's own rounding is dropped.
//! - Capped: `size` rounded up to a multiple of 256 (servers before 6.2 store it so; a
//!   difference below 256 bytes is never one to act on); `max` <= 0 or 2147483647 means no
//!   limit.
//! - Validators and partial filters stay as written: [`validators_equal`] and
//!   [`filters_equal`] compare them with the server's equivalences, so that an order-only
//!   difference can be reported as cosmetic. (The IR is one call away, [`Validator::parse`],
//!   for the evaluator and lints; it is not the comparison form because rendering it back
//!   would hide what the server actually holds.) Numbers compare by value; NaN equals nothing,
//!   so a validator holding NaN is always reported as different.
//!
//! # Collations: a decision
//! The server expands every collation it lists to all ICU fields, with defaults that depend on
//! the locale and the ICU version, which we cannot reproduce. [`collation_matches`] therefore
//! compares `locale` and only the fields the declaration gives: a declared `{locale: "fr"}`
//! matches a listed `{locale: "fr", strength: 3, ...}`, a declared `{locale: "fr", strength:
//! 2}` does not.
//!
//! [`Validator::parse`]: crate::spec::Validator::parse

mod check;

use std::collections::BTreeMap;

use bson::{Bson, Document};

use crate::extjson::{self, ExtJsonMode};
use crate::manifest::ManifestError;
use crate::spec::{Collation, CollectionSpec, DocumentError, ValidationAction, ValidationLevel};
use crate::spec::{IndexKeys, IndexKind, IndexSpec};

/// A server reply that cannot be read as a collection or index.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NormalizeError {
    /// A `listCollections` entry with a field of a type the server never sends.
    #[error("{ns}: listCollections entry: {source}")]
    Collection {
        /// The collection.
        ns: String,
        /// What could not be read.
        source: DocumentError,
    },
    /// A `listIndexes` entry that cannot be read.
    #[error("{ns}: index {index:?}: {source}")]
    Index {
        /// The collection.
        ns: String,
        /// The index name, or its position when it has none.
        index: String,
        /// What could not be read.
        source: DocumentError,
    },
    /// A catalog file that is not Extended JSON of the snapshot shape.
    #[error("catalog: {0}")]
    File(#[from] ManifestError),
}

/// Fields of an index entry the server adds and nothing compares.
const IGNORED_INDEX_FIELDS: [&str; 5] = [
    "v",
    "ns",
    "background",
    "textIndexVersion",
    "2dsphereIndexVersion",
];

/// A captured live catalog: the shape `mongo-schema snapshot` writes and `--catalog` reads.
///
/// `{"collections": [<listCollections entries>], "indexes": {"<collection>": [<listIndexes
/// entries>]}}`, in canonical Extended JSON, each entry verbatim.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Catalog {
    /// `listCollections` entries, verbatim.
    pub collections: Vec<Document>,
    /// `listIndexes` entries by collection name, verbatim.
    pub indexes: BTreeMap<String, Vec<Document>>,
}

impl Catalog {
    /// Reads the snapshot shape from a document.
    ///
    /// # Errors
    /// [`NormalizeError::File`] with the path of the first field of the wrong shape.
    pub fn from_document(doc: &Document) -> Result<Catalog, NormalizeError> {
        let shape = |e: DocumentError| NormalizeError::File(e.into());
        let mut catalog = Catalog::default();
        match doc.get("collections") {
            Some(Bson::Array(list)) => {
                for (i, entry) in list.iter().enumerate() {
                    match entry {
                        Bson::Document(d) => catalog.collections.push(d.clone()),
                        other => {
                            return Err(shape(DocumentError::expected(
                                &format!("collections[{i}]"),
                                "a document",
                                other,
                            )));
                        }
                    }
                }
            }
            Some(other) => {
                return Err(shape(DocumentError::expected(
                    "collections",
                    "an array",
                    other,
                )));
            }
            None => return Err(shape(DocumentError::missing("collections"))),
        }
        match doc.get("indexes") {
            None => {}
            Some(Bson::Document(by_name)) => {
                for (name, list) in by_name {
                    let Bson::Array(list) = list else {
                        return Err(shape(DocumentError::expected(
                            &format!("indexes.{name}"),
                            "an array",
                            list,
                        )));
                    };
                    let mut entries = Vec::with_capacity(list.len());
                    for (i, entry) in list.iter().enumerate() {
                        match entry {
                            Bson::Document(d) => entries.push(d.clone()),
                            other => {
                                return Err(shape(DocumentError::expected(
                                    &format!("indexes.{name}[{i}]"),
                                    "a document",
                                    other,
                                )));
                            }
                        }
                    }
                    catalog.indexes.insert(name.clone(), entries);
                }
            }
            Some(other) => {
                return Err(shape(DocumentError::expected(
                    "indexes",
                    "a document",
                    other,
                )));
            }
        }
        Ok(catalog)
    }

    /// Reads a catalog file (canonical or relaxed Extended JSON; `EJSON.stringify` output of
    /// mongosh's `db.getCollectionInfos()` and `getIndexes()` assembled in this shape works too).
    ///
    /// # Errors
    /// [`NormalizeError::File`] with line and column, or the path of a field of the wrong shape.
    pub fn from_json(text: &str) -> Result<Catalog, NormalizeError> {
        Catalog::from_document(&extjson::parse_document(text).map_err(ManifestError::from)?)
    }

    /// The catalog as a document of the snapshot shape.
    pub fn to_document(&self) -> Document {
        let collections: Vec<Bson> = self
            .collections
            .iter()
            .cloned()
            .map(Bson::Document)
            .collect();
        let indexes: Document = self
            .indexes
            .iter()
            .map(|(name, list)| {
                let list: Vec<Bson> = list.iter().cloned().map(Bson::Document).collect();
                (name.clone(), Bson::Array(list))
            })
            .collect();
        bson::doc! { "collections": collections, "indexes": indexes }
    }

    /// The catalog as pretty canonical Extended JSON, ending in a newline.
    pub fn to_json(&self) -> String {
        let mut text =
            extjson::to_string_pretty(&Bson::Document(self.to_document()), ExtJsonMode::Canonical);
        text.push('\n');
        text
    }

    /// The live specs of every collection, canonical and sorted by name. Views and `system.*`
    /// collections are skipped: they are not collections a manifest declares.
    ///
    /// # Errors
    /// The first entry that cannot be read.
    pub fn to_live_specs(&self) -> Result<Vec<CollectionSpec>, NormalizeError> {
        let mut specs = Vec::new();
        for entry in &self.collections {
            let name = entry.get_str("name").unwrap_or_default();
            let indexes = self.indexes.get(name).map(Vec::as_slice).unwrap_or(&[]);
            if let Some(spec) = live_collection(entry, indexes)? {
                specs.push(spec);
            }
        }
        specs.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(specs)
    }
}

/// Reads one `listCollections` entry and its `listIndexes` entries into a canonical live spec.
/// `None` for a view or a `system.*` collection.
///
/// Top-level fields of the entry other than `name`, `type`, `options`, `info` and `idIndex`, and
/// fields of `info` other than `uuid` and `readOnly`, are kept as unmanaged options under their
/// own name (`info.<field>` for the latter).
///
/// ```
/// use bson::doc;
/// use mongo_schema::normalize::live_collection;
/// let live = live_collection(
///     &doc! { "name": "orders", "type": "collection", "options": {}, "info": { "readOnly": false } },
///     &[doc! { "v": 2, "key": { "_id": 1 }, "name": "_id_" },
///       doc! { "v": 2, "key": { "user_id": 1.0 }, "name": "user_id_1", "background": true }],
/// )?.unwrap();
/// assert_eq!(live.indexes.len(), 1);
/// assert!(live.indexes[0].other.is_empty());
/// # Ok::<(), mongo_schema::normalize::NormalizeError>(())
/// ```
///
/// # Errors
/// [`NormalizeError`] for a field the server never sends in that type.
pub fn live_collection(
    entry: &Document,
    indexes: &[Document],
) -> Result<Option<CollectionSpec>, NormalizeError> {
    let ns = entry.get_str("name").unwrap_or_default().to_owned();
    let err = |source: DocumentError| NormalizeError::Collection {
        ns: ns.clone(),
        source,
    };
    if ns.is_empty() {
        return Err(err(DocumentError::missing("name")));
    }
    if entry.get_str("type").is_ok_and(|t| t == "view") || ns.starts_with("system.") {
        return Ok(None);
    }
    let options = match entry.get("options") {
        Some(Bson::Document(d)) => d.clone(),
        Some(other) => return Err(err(DocumentError::expected("options", "a document", other))),
        None => Document::new(),
    };
    let mut spec = CollectionSpec::from_options_document(ns.clone(), &options)
        .map_err(|e| err(e.within("options")))?;
    for (key, value) in entry {
        match key.as_str() {
            "name" | "type" | "options" | "idIndex" => {}
            "info" => {
                if let Bson::Document(info) = value {
                    for (k, v) in info {
                        if k != "uuid" && k != "readOnly" {
                            spec.options.other.insert(format!("info.{k}"), v.clone());
                        }
                    }
                }
            }
            _ => {
                spec.options.other.insert(key.clone(), value.clone());
            }
        }
    }
    for (i, entry) in indexes.iter().enumerate() {
        let mut index = live_index(&ns, i, entry)?;
        // The server lists the collation an index inherited; an index listed without one is
        // simple, whatever the collection's default.
        if index.collation.is_none() {
            index.collation = Some(Collation::new("simple"));
        }
        spec.indexes.push(index);
    }
    Ok(Some(canonical(spec)))
}

/// Reads one `listIndexes` entry, unwrapping an in-progress build into a spec with
/// [`IndexSpec::build_in_progress`] set. Not yet canonical.
///
/// A build in progress is listed as `{spec, indexBuildInfo}` with `includeIndexBuildInfo` and as
/// `{spec, buildUUID}` with `includeBuildUUIDs` (the comment on `CmdListIndexes` in the server's
/// `src/mongo/db/commands/list_indexes.cpp`); a finished index under `includeIndexBuildInfo` is
/// `{spec}` alone.
fn live_index(ns: &str, position: usize, entry: &Document) -> Result<IndexSpec, NormalizeError> {
    let (entry, building) = match entry.get("spec") {
        Some(Bson::Document(spec)) if !entry.contains_key("key") => (
            spec,
            entry.contains_key("indexBuildInfo") || entry.contains_key("buildUUID"),
        ),
        _ => (entry, false),
    };
    let index = entry
        .get_str("name")
        .map(str::to_owned)
        .unwrap_or_else(|_| format!("#{position}"));
    let mut spec = IndexSpec::from_document(entry).map_err(|source| NormalizeError::Index {
        ns: ns.to_owned(),
        index,
        source,
    })?;
    spec.build_in_progress = building;
    Ok(spec)
}

/// The canonical form of a declared spec (see the module docs). Idempotent.
///
/// ```
/// use mongo_schema::spec::{CollectionSpec, ValidationLevel};
/// use mongo_schema::spec::{IndexKind::*, IndexSpec};
/// use mongo_schema::normalize::declared;
/// let spec = CollectionSpec::new("articles")
///     .index(IndexSpec::new([("title", Text), ("content", Text)]).weight("title", 10));
/// let canonical = declared(&spec);
/// assert_eq!(canonical.validation_level, Some(ValidationLevel::Strict));
/// let index = &canonical.indexes[0];
/// assert_eq!(index.name.as_deref(), Some("title_text_content_text"));
/// assert_eq!(index.keys.to_document(), bson::doc! { "_fts": "text", "_ftsx": 1 });
/// assert_eq!(index.weights.get("content"), Some(&1));
/// assert_eq!(declared(&canonical), canonical);
/// ```
pub fn declared(spec: &CollectionSpec) -> CollectionSpec {
    canonical(spec.clone())
}

/// The canonical form of every declared spec, sorted by name.
pub fn declared_all(specs: &[CollectionSpec]) -> Vec<CollectionSpec> {
    let mut out: Vec<CollectionSpec> = specs.iter().map(declared).collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// The canonical form of a live spec that was built some other way than [`live_collection`]
/// (an in-memory model, a test). Idempotent; [`live_collection`] output is already canonical.
///
/// The rules are those of [`declared`]: an index without a collation takes the collection's,
/// as the server does when it creates one ([`live_collection`] writes out the simple
/// collation of every index listed without one, so listed indexes never inherit).
pub fn live(spec: &CollectionSpec) -> CollectionSpec {
    canonical(spec.clone())
}

fn canonical(mut spec: CollectionSpec) -> CollectionSpec {
    if spec.validation_level.is_none() {
        spec.validation_level = Some(ValidationLevel::DEFAULT);
    }
    if spec.validation_action.is_none() {
        spec.validation_action = Some(ValidationAction::DEFAULT);
    }
    let options = &mut spec.options;
    options.collation = options.collation.take().and_then(|c| {
        let c = canonical_collation(c);
        (!c.is_simple()).then_some(c)
    });
    if options.change_stream_pre_and_post_images == Some(false) {
        options.change_stream_pre_and_post_images = None;
    }
    if let Some(capped) = &mut options.capped {
        // Before 6.2 the server rounds `size` up to a multiple of 256.
        if capped.size > 0 && capped.size % 256 != 0 {
            capped.size = capped.size.saturating_add(256 - capped.size % 256);
        }
        if matches!(capped.max, Some(m) if m <= 0 || m == i64::from(i32::MAX)) {
            capped.max = None;
        }
    }
    if let Some(ts) = &mut options.timeseries {
        let custom = ts.granularity.is_none() && ts.bucket_max_span_seconds.is_some();
        if !custom {
            let granularity = ts
                .granularity
                .get_or_insert(crate::spec::Granularity::Seconds)
                .clone();
            if ts.bucket_max_span_seconds.is_none() {
                ts.bucket_max_span_seconds = granularity.default_bucket_max_span_seconds();
            }
            if ts.bucket_rounding_seconds.is_some()
                && ts.bucket_rounding_seconds == granularity.default_bucket_rounding_seconds()
            {
                ts.bucket_rounding_seconds = None;
            }
        }
    }
    // A time-series collection is clustered by the server itself.
    if options.timeseries.is_some() && options.clustered_index.as_ref().is_some_and(|c| c.implicit)
    {
        options.clustered_index = None;
    }
    if let Some(clustered) = &mut options.clustered_index {
        clustered.other.remove("v");
        // The legacy form `clusteredIndex: true` is `{key: {_id: 1}, unique: true, name: "_id_"}`:
        // `makeCanonicalClusteredInfoForLegacyFormat` in the server's
        // src/mongo/db/local_catalog/clustered_collection_util.cpp.
        clustered.implicit = false;
        if clustered.name.is_none() {
            clustered.name = Some("_id_".to_owned());
        }
    }
    let collection_collation = spec.options.collation.clone();
    let timeseries = spec.options.timeseries.clone();
    let indexes = std::mem::take(&mut spec.indexes);
    spec.indexes = indexes
        .into_iter()
        .filter(|i| !is_server_owned(i, timeseries.as_ref()))
        .map(|i| canonical_index(i, collection_collation.as_ref()))
        .collect();
    spec.indexes.sort_by(|a, b| a.name.cmp(&b.name));
    spec
}

/// Whether an index is the server's own: `_id_`, the clustered index (listed with
/// `clustered: true`), or the time-series default index `{<metaField>: 1, <timeField>: 1}`
/// (6.3+).
fn is_server_owned(index: &IndexSpec, timeseries: Option<&crate::spec::TimeseriesOptions>) -> bool {
    if index.is_id() && index.partial_filter_expression.is_none() {
        return true;
    }
    if index
        .other
        .get("clustered")
        .is_some_and(|v| v.as_bool() == Some(true))
    {
        return true;
    }
    if let Some(ts) = timeseries
        && let Some(meta) = &ts.meta_field
    {
        let default = IndexKeys::new([
            (meta.clone(), IndexKind::Ascending),
            (ts.time_field.clone(), IndexKind::Ascending),
        ]);
        let plain = !index.unique
            && !index.sparse
            && index.partial_filter_expression.is_none()
            && index.expire_after_seconds.is_none();
        return index.keys == default && plain;
    }
    false
}

fn canonical_collation(mut c: Collation) -> Collation {
    // `version` is the server's ICU version: never compared.
    c.version = None;
    c
}

fn canonical_index(mut index: IndexSpec, collection: Option<&Collation>) -> IndexSpec {
    for field in IGNORED_INDEX_FIELDS {
        index.other.remove(field);
    }
    // The default name is computed from the declared key pattern, before the text rewrite.
    if index.name.is_none() {
        index.name = Some(index.default_name());
    }
    // An index without a collation inherits the collection's; "simple" is written out so that
    // the form is idempotent.
    index.collation = Some(match index.collation.take() {
        Some(c) => canonical_collation(c),
        None => collection
            .cloned()
            .unwrap_or_else(|| Collation::new("simple")),
    });
    for (_, kind) in &mut index.keys.0 {
        if let IndexKind::Other(value) = kind {
            *value = canonical_number(value);
        }
    }
    if index.keys.is_text() {
        to_listed_text_form(&mut index);
    }
    if index.keys.has_kind(&IndexKind::TwoD) {
        index.bits.get_or_insert(26);
        index.min.get_or_insert(-180.0);
        index.max.get_or_insert(180.0);
    }
    if let Some(projection) = index.wildcard_projection.take() {
        index.wildcard_projection = Some(flat_projection(&projection));
    }
    index
}

/// Rewrites a declared text index into the form `listIndexes` returns: the text fields become
/// `_fts: "text", _ftsx: 1` at the place of the first one (other fields stay in place), every
/// text field gets a weight (default 1), and the language options get their defaults.
fn to_listed_text_form(index: &mut IndexSpec) {
    let already_listed = index.keys.iter().any(|(p, _)| p == "_fts");
    if !already_listed {
        let mut keys = Vec::with_capacity(index.keys.len());
        let mut text_fields = Vec::new();
        for (path, kind) in index.keys.0.drain(..) {
            if kind == IndexKind::Text {
                if text_fields.is_empty() {
                    keys.push(("_fts".to_owned(), IndexKind::Text));
                    keys.push(("_ftsx".to_owned(), IndexKind::Ascending));
                }
                text_fields.push(path);
            } else {
                keys.push((path, kind));
            }
        }
        index.keys.0 = keys;
        // Every text field weighs 1 unless declared otherwise; keep the declared field order
        // (weights compare as a map, so order is only for reading).
        let mut weights = indexmap::IndexMap::new();
        for field in text_fields {
            let weight = index.weights.get(&field).copied().unwrap_or(1);
            weights.insert(field, weight);
        }
        for (field, weight) in &index.weights {
            weights.entry(field.clone()).or_insert(*weight);
        }
        index.weights = weights;
    }
    index
        .default_language
        .get_or_insert_with(|| "english".to_owned());
    index
        .language_override
        .get_or_insert_with(|| "language".to_owned());
}

/// A wildcard projection as a sorted map of dotted paths to inclusion: `{author: {name: true}}`
/// and `{"author.name": 1}` are one projection. The `_id: false` the server adds is dropped
/// (wildcard indexes leave `_id` out unless it is included).
fn flat_projection(projection: &Document) -> Document {
    fn walk(prefix: &str, doc: &Document, out: &mut BTreeMap<String, Bson>) {
        for (k, v) in doc {
            let path = if prefix.is_empty() {
                k.clone()
            } else {
                format!("{prefix}.{k}")
            };
            match v {
                Bson::Document(inner) if !inner.is_empty() => walk(&path, inner, out),
                Bson::Boolean(b) => {
                    out.insert(path, Bson::Boolean(*b));
                }
                other => match crate::spec::read::number(other) {
                    Some(n) => {
                        out.insert(path, Bson::Boolean(n != 0.0));
                    }
                    None => {
                        out.insert(path, other.clone());
                    }
                },
            }
        }
    }
    let mut flat = BTreeMap::new();
    walk("", projection, &mut flat);
    if flat.get("_id") == Some(&Bson::Boolean(false)) {
        flat.remove("_id");
    }
    flat.into_iter().collect()
}

/// Whether a live collation matches a declared one: the same `locale`, and every field the
/// declaration gives equal. The server expands a collation to every ICU field with
/// locale-dependent defaults (fr_CA has `backwards: true`) that we cannot know; so fields the
/// declaration leaves out are not compared. `version` never is.
pub fn collation_matches(declared: &Collation, live: &Collation) -> bool {
    fn same<T: PartialEq>(d: &Option<T>, l: &Option<T>) -> bool {
        d.is_none() || d == l
    }
    declared.locale == live.locale
        && same(&declared.case_level, &live.case_level)
        && same(&declared.case_first, &live.case_first)
        && same(&declared.strength, &live.strength)
        && same(&declared.numeric_ordering, &live.numeric_ordering)
        && same(&declared.alternate, &live.alternate)
        && same(&declared.max_variable, &live.max_variable)
        && same(&declared.normalization, &live.normalization)
        && same(&declared.backwards, &live.backwards)
        && declared
            .other
            .iter()
            .all(|(k, v)| live.other.get(k).is_some_and(|l| values_equal(v, l)))
}

/// Two optional collations match ([`collation_matches`]); absent is simple.
pub fn collations_match(declared: Option<&Collation>, live: Option<&Collation>) -> bool {
    let simple = Collation::new("simple");
    collation_matches(declared.unwrap_or(&simple), live.unwrap_or(&simple))
}

/// Whether two canonical indexes have one identity: key pattern, collation, partial filter,
/// unique (unless `ignore_unique`), sparse and wildcard projection.
pub(crate) fn same_identity(d: &IndexSpec, l: &IndexSpec, ignore_unique: bool) -> bool {
    d.keys == l.keys
        && collations_match(d.collation.as_ref(), l.collation.as_ref())
        && optional_filters_equal(
            d.partial_filter_expression.as_ref(),
            l.partial_filter_expression.as_ref(),
        )
        && (ignore_unique || d.unique == l.unique)
        && d.sparse == l.sparse
        && optional_filters_equal(
            d.wildcard_projection.as_ref(),
            l.wildcard_projection.as_ref(),
        )
}

/// [`same_identity`] with `unique` compared.
pub(crate) fn same_identity_exact(d: &IndexSpec, l: &IndexSpec) -> bool {
    same_identity(d, l, false)
}

/// Two optional filters are [`filters_equal`]; absent matches only absent.
pub(crate) fn optional_filters_equal(a: Option<&Document>, b: Option<&Document>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(x), Some(y)) => filters_equal(x, y),
        _ => false,
    }
}

// ---------------------------------------------------------------------------------------------
// Semantic equality of validators, filters and values.

/// Whether two values are equal with numbers compared by value (Int32 5 = Int64 5 = Double 5.0
/// = Decimal128 5; -0 = 0; NaN equals nothing), documents in field order, arrays in order.
pub fn values_equal(a: &Bson, b: &Bson) -> bool {
    identical(&canonical_literal(a, true), &canonical_literal(b, true))
}

/// Whether two values are written identically: same types, documents with the same fields in
/// the same order, arrays in order. (`bson::Document`'s own `==` ignores field order.)
pub fn identical(a: &Bson, b: &Bson) -> bool {
    match (a, b) {
        (Bson::Document(x), Bson::Document(y)) => documents_identical(x, y),
        (Bson::Array(x), Bson::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| identical(p, q))
        }
        _ => a == b,
    }
}

/// [`identical`] for documents.
pub fn documents_identical(a: &Document, b: &Document) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|((k1, v1), (k2, v2))| k1 == k2 && identical(v1, v2))
}

/// Whether two validators mean the same to the server. At the top level and in operator
/// documents, field order carries no meaning (an implicit `$and`); `$and`/`$or`/`$nor` branches
/// and `$in`/`$nin`/`$all` members are sets. Inside `$jsonSchema`, keyword order, `properties`
/// order and the order of `required`, `enum`, type arrays and `allOf`/`anyOf`/`oneOf` branches
/// carry no meaning, and `enum` members compare ignoring field order (as the server evaluates
/// them); a single type equals a one-element type array. Literal documents compared by a query
/// operator keep their field order. Numbers compare by value everywhere.
///
/// ```
/// use bson::doc;
/// use mongo_schema::normalize::validators_equal;
/// assert!(validators_equal(
///     &doc! { "$jsonSchema": { "required": ["a", "b"], "bsonType": "object" } },
///     &doc! { "$jsonSchema": { "bsonType": ["object"], "required": ["b", "a"] } },
/// ));
/// assert!(!validators_equal(
///     &doc! { "$jsonSchema": { "maxLength": 5 } },
///     &doc! { "$jsonSchema": { "maxLength": 6 } },
/// ));
/// ```
pub fn validators_equal(a: &Document, b: &Document) -> bool {
    documents_identical(&canonical_query(a), &canonical_query(b))
}

/// Whether two query filters (partial filter expressions) mean the same: the rules of
/// [`validators_equal`].
pub fn filters_equal(a: &Document, b: &Document) -> bool {
    validators_equal(a, b)
}

/// The canonical form of a validator or filter under the equivalences of [`validators_equal`]:
/// two documents are equivalent exactly when their canonical forms are [`documents_identical`].
pub fn canonical_validator(doc: &Document) -> Document {
    canonical_query(doc)
}

fn sort_key(value: &Bson) -> String {
    format!("{value:?}")
}

fn sorted_set(mut items: Vec<Bson>) -> Bson {
    items.sort_by_cached_key(sort_key);
    Bson::Array(items)
}

fn sorted_doc(mut entries: Vec<(String, Bson)>) -> Document {
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    entries.into_iter().collect()
}

fn is_operator_doc(doc: &Document) -> bool {
    !doc.is_empty() && doc.keys().all(|k| k.starts_with('$'))
}

fn canonical_query(doc: &Document) -> Document {
    sorted_doc(
        doc.iter()
            .map(|(k, v)| {
                let value = if k.starts_with('$') {
                    canonical_top_operator(k, v)
                } else {
                    canonical_field_condition(v)
                };
                (k.clone(), value)
            })
            .collect(),
    )
}

fn canonical_top_operator(op: &str, value: &Bson) -> Bson {
    match (op, value) {
        ("$and" | "$or" | "$nor", Bson::Array(branches)) => sorted_set(
            branches
                .iter()
                .map(|b| match b {
                    Bson::Document(d) => Bson::Document(canonical_query(d)),
                    other => canonical_literal(other, true),
                })
                .collect(),
        ),
        ("$jsonSchema", Bson::Document(schema)) => Bson::Document(canonical_schema(schema)),
        _ => canonical_literal(value, true),
    }
}

fn canonical_field_condition(value: &Bson) -> Bson {
    match value {
        Bson::Document(d) if is_operator_doc(d) => Bson::Document(sorted_doc(
            d.iter()
                .map(|(op, v)| (op.clone(), canonical_field_operator(op, v)))
                .collect(),
        )),
        other => canonical_literal(other, true),
    }
}

fn canonical_field_operator(op: &str, value: &Bson) -> Bson {
    match (op, value) {
        ("$in" | "$nin" | "$all", Bson::Array(items)) => {
            sorted_set(items.iter().map(|i| canonical_literal(i, true)).collect())
        }
        ("$not", v) => canonical_field_condition(v),
        // `$exists` takes any truthy value: `1` means `true`.
        ("$exists", v) => match crate::spec::read::truthy("$exists", v) {
            Ok(b) => Bson::Boolean(b),
            Err(_) => canonical_literal(v, true),
        },
        ("$elemMatch", Bson::Document(d)) => {
            if is_operator_doc(d) {
                canonical_field_condition(value)
            } else {
                Bson::Document(canonical_query(d))
            }
        }
        _ => canonical_literal(value, true),
    }
}

fn canonical_schema(schema: &Document) -> Document {
    sorted_doc(
        schema
            .iter()
            .map(|(k, v)| (k.clone(), canonical_keyword(k, v)))
            .collect(),
    )
}

fn canonical_subschema(value: &Bson) -> Bson {
    match value {
        Bson::Document(d) => Bson::Document(canonical_schema(d)),
        other => canonical_literal(other, true),
    }
}

fn canonical_keyword(keyword: &str, value: &Bson) -> Bson {
    match (keyword, value) {
        ("properties" | "patternProperties", Bson::Document(d)) => Bson::Document(sorted_doc(
            d.iter()
                .map(|(k, v)| (k.clone(), canonical_subschema(v)))
                .collect(),
        )),
        ("dependencies", Bson::Document(d)) => Bson::Document(sorted_doc(
            d.iter()
                .map(|(k, v)| {
                    let value = match v {
                        Bson::Array(names) => sorted_set(names.clone()),
                        other => canonical_subschema(other),
                    };
                    (k.clone(), value)
                })
                .collect(),
        )),
        ("required", Bson::Array(names)) => sorted_set(names.clone()),
        ("enum", Bson::Array(members)) => sorted_set(
            members
                .iter()
                .map(|m| canonical_literal(m, false))
                .collect(),
        ),
        ("type" | "bsonType", Bson::String(s)) => Bson::Array(vec![Bson::String(s.clone())]),
        ("type" | "bsonType", Bson::Array(names)) => sorted_set(names.clone()),
        ("allOf" | "anyOf" | "oneOf", Bson::Array(branches)) => {
            sorted_set(branches.iter().map(canonical_subschema).collect())
        }
        ("not" | "additionalProperties" | "additionalItems", v) => canonical_subschema(v),
        ("items", Bson::Document(_)) => canonical_subschema(value),
        ("items", Bson::Array(list)) => Bson::Array(list.iter().map(canonical_subschema).collect()),
        ("encrypt" | "encryptMetadata", v) => canonical_literal(v, false),
        (_, v) => canonical_literal(v, true),
    }
}

/// A literal value with numbers by value; documents keep field order when `ordered`.
fn canonical_literal(value: &Bson, ordered: bool) -> Bson {
    match value {
        Bson::Document(d) => {
            let entries: Vec<(String, Bson)> = d
                .iter()
                .map(|(k, v)| (k.clone(), canonical_literal(v, ordered)))
                .collect();
            if ordered {
                Bson::Document(entries.into_iter().collect())
            } else {
                Bson::Document(sorted_doc(entries))
            }
        }
        Bson::Array(items) => Bson::Array(
            items
                .iter()
                .map(|i| canonical_literal(i, ordered))
                .collect(),
        ),
        other => canonical_number(other),
    }
}

/// A number in one representation per value: whole numbers as Int64 (so Int32 5, Int64 5,
/// Double 5.0, Decimal128 5 and -0.0 = 0 agree), others as Double (NaN stays NaN, which `==`
/// never matches). Non-numbers are returned unchanged.
fn canonical_number(value: &Bson) -> Bson {
    let as_double = match value {
        Bson::Int32(v) => return Bson::Int64(i64::from(*v)),
        Bson::Int64(v) => return Bson::Int64(*v),
        Bson::Double(v) => *v,
        Bson::Decimal128(d) => match d.to_string().parse::<f64>() {
            Ok(v) => v,
            Err(_) => return value.clone(),
        },
        other => return other.clone(),
    };
    if as_double.is_finite() && as_double.fract() == 0.0 && as_double.abs() < 9.2e18 {
        Bson::Int64(as_double as i64)
    } else {
        Bson::Double(as_double)
    }
}

/// The `createIndexes` form of a canonical index: the inverse of the listed-form rewrites, for
/// commands and for display. Text keys come back from `_fts`/`_ftsx` and `weights` (in weight
/// order), server defaults (`default_language: english`, `language_override: language`, 2d
/// `bits`/`min`/`max`) are left out, and a collation the index would inherit anyway is left
/// out.
///
/// ```
/// use mongo_schema::spec::{IndexKind::*, IndexSpec};
/// use mongo_schema::normalize::{create_form, declared};
/// use mongo_schema::spec::CollectionSpec;
/// let spec = CollectionSpec::new("a").index(IndexSpec::new([("body", Text)]).weight("body", 3));
/// let canonical = &declared(&spec).indexes[0];
/// assert_eq!(
///     create_form(canonical, None).to_document(),
///     bson::doc! { "key": { "body": "text" }, "name": "body_text", "weights": { "body": 3 } },
/// );
/// ```
pub fn create_form(index: &IndexSpec, collection_collation: Option<&Collation>) -> IndexSpec {
    let mut out = index.clone();
    out.build_in_progress = false;
    if out.keys.iter().any(|(p, _)| p == "_fts") {
        let mut keys = Vec::with_capacity(out.keys.len() + out.weights.len());
        for (path, kind) in out.keys.0.drain(..) {
            match path.as_str() {
                "_fts" => {
                    for field in out.weights.keys() {
                        keys.push((field.clone(), IndexKind::Text));
                    }
                }
                "_ftsx" => {}
                _ => keys.push((path, kind)),
            }
        }
        out.keys.0 = keys;
        out.weights.retain(|_, w| *w != 1);
    }
    if out.default_language.as_deref() == Some("english") {
        out.default_language = None;
    }
    if out.language_override.as_deref() == Some("language") {
        out.language_override = None;
    }
    if out.keys.has_kind(&IndexKind::TwoD) {
        if out.bits == Some(26) {
            out.bits = None;
        }
        if out.min == Some(-180.0) {
            out.min = None;
        }
        if out.max == Some(180.0) {
            out.max = None;
        }
    }
    let inherited = collection_collation
        .cloned()
        .unwrap_or_else(|| Collation::new("simple"));
    if out.collation.as_ref().is_some_and(|c| *c == inherited) {
        out.collation = None;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::IndexKind::*;
    use crate::spec::{Capped, ClusteredIndex, Granularity, TimeseriesOptions};
    use bson::{Decimal128, doc};

    // SERVER-FACTS: "Compare numbers by value everywhere (Int32 = Int64 = Double = Decimal128
    // when equal; -0 = 0; NaN equals nothing)".
    #[test]
    fn numbers_compare_by_value_across_types() {
        let five_dec: Decimal128 = "5".parse().unwrap();
        for five in [
            Bson::Int32(5),
            Bson::Int64(5),
            Bson::Double(5.0),
            Bson::Decimal128(five_dec),
        ] {
            assert!(values_equal(&Bson::Int32(5), &five), "{five:?}");
        }
        assert!(!values_equal(&Bson::Int32(5), &Bson::Double(5.5)));
        assert!(values_equal(&Bson::Double(-0.0), &Bson::Int32(0)));
        assert!(!values_equal(
            &Bson::Double(f64::NAN),
            &Bson::Double(f64::NAN)
        ));
    }

    // SERVER-FACTS: "Inside a validator, keyword order, properties order, and the order of
    // required, enum, type arrays and allOf/anyOf/oneOf branches carry no meaning".
    #[test]
    fn validator_keyword_and_set_order_carries_no_meaning() {
        let a = doc! { "$jsonSchema": {
            "bsonType": "object",
            "required": ["a", "b"],
            "properties": {
                "a": { "bsonType": ["int", "long"], "minimum": 0 },
                "b": { "enum": ["x", "y"], "anyOf": [{ "maxLength": 1 }, { "minLength": 3 }] },
            },
        } };
        let b = doc! { "$jsonSchema": {
            "properties": {
                "b": { "anyOf": [{ "minLength": 3.0 }, { "maxLength": 1_i64 }], "enum": ["y", "x"] },
                "a": { "minimum": 0.0, "bsonType": ["long", "int"] },
            },
            "required": ["b", "a"],
            "bsonType": ["object"],
        } };
        assert!(validators_equal(&a, &b));
        let c = doc! { "$jsonSchema": { "bsonType": "object", "required": ["a"] } };
        assert!(!validators_equal(&a, &c));
    }

    #[test]
    fn positional_items_keep_their_order() {
        let a =
            doc! { "$jsonSchema": { "items": [{ "bsonType": "int" }, { "bsonType": "string" }] } };
        let b =
            doc! { "$jsonSchema": { "items": [{ "bsonType": "string" }, { "bsonType": "int" }] } };
        assert!(!validators_equal(&a, &b));
    }

    // SERVER-FACTS: "literal embedded documents used as values ($eq, enum members) keep field
    // order in query operators", while $jsonSchema `enum` compares documents ignoring order.
    #[test]
    fn literal_documents_keep_field_order_in_query_operators_only() {
        let a = doc! { "loc": { "$eq": { "x": 1, "y": 2 } } };
        let b = doc! { "loc": { "$eq": { "y": 2, "x": 1 } } };
        assert!(!validators_equal(&a, &b));
        let a = doc! { "$jsonSchema": { "enum": [{ "x": 1, "y": 2 }] } };
        let b = doc! { "$jsonSchema": { "enum": [{ "y": 2, "x": 1 }] } };
        assert!(validators_equal(&a, &b));
        assert!(validators_equal(
            &doc! { "d": { "$exists": 0 } },
            &doc! { "d": { "$exists": false } },
        ));
        // Top-level fields of a query are an implicit $and: their order is meaningless.
        let a = doc! { "a": { "$gt": 1 }, "b": { "$in": [1, 2] } };
        let b = doc! { "b": { "$in": [2, 1] }, "a": { "$gt": 1.0 } };
        assert!(validators_equal(&a, &b));
    }

    // SERVER-FACTS: "Wildcard projections may come back nested ... compare as a flat map of
    // dotted paths".
    #[test]
    fn wildcard_projection_nested_equals_dotted() {
        let nested = flat_projection(&doc! { "author": { "name": true }, "_id": false });
        let dotted = flat_projection(&doc! { "author.name": 1 });
        assert_eq!(nested, dotted);
        assert_ne!(dotted, flat_projection(&doc! { "author.email": 1 }));
    }

    // SERVER-FACTS: collations are listed expanded with a server-only `version`.
    #[test]
    fn declared_collation_fields_only_are_compared() {
        let live = Collation::from_document(&doc! {
            "locale": "fr_CA", "caseLevel": false, "caseFirst": "off", "strength": 3,
            "numericOrdering": false, "alternate": "non-ignorable", "maxVariable": "punct",
            "normalization": false, "backwards": true, "version": "57.1",
        })
        .unwrap();
        assert!(collation_matches(&Collation::new("fr_CA"), &live));
        assert!(!collation_matches(&Collation::new("fr"), &live));
        assert!(!collation_matches(
            &Collation::new("fr_CA").strength(2),
            &live
        ));
        let mut with_version = Collation::new("fr_CA");
        with_version.version = Some("1.0".into());
        assert!(collation_matches(&canonical_collation(with_version), &live));
    }

    // SERVER-FACTS: "Text indexes are listed as key: {_fts: "text", _ftsx: 1} (non-text prefix
    // and suffix fields kept in place)".
    #[test]
    fn text_index_takes_the_listed_form_with_prefix_fields_in_place() {
        let spec = CollectionSpec::new("a").index(
            IndexSpec::new([
                ("shop", Ascending),
                ("title", Text),
                ("body", Text),
                ("at", Descending),
            ])
            .weight("title", 10),
        );
        let index = &declared(&spec).indexes[0];
        assert_eq!(
            index.keys.to_document(),
            doc! { "shop": 1, "_fts": "text", "_ftsx": 1, "at": -1 }
        );
        assert_eq!(
            index.name.as_deref(),
            Some("shop_1_title_text_body_text_at_-1")
        );
        assert_eq!(index.weights.get("body"), Some(&1));
        assert_eq!(index.default_language.as_deref(), Some("english"));
        assert_eq!(index.language_override.as_deref(), Some("language"));
        let back = create_form(index, None);
        assert_eq!(
            back.keys.to_document(),
            doc! { "shop": 1, "title": "text", "body": "text", "at": -1 }
        );
    }

    // SERVER-FACTS: time-series defaults: "granularity: seconds" and bucketMaxSpanSeconds
    // 3600 / 86400 / 2592000.
    #[test]
    fn timeseries_defaults_are_filled() {
        let spec = CollectionSpec::new("t").timeseries(TimeseriesOptions::new("ts"));
        let ts = declared(&spec).options.timeseries.unwrap();
        assert_eq!(ts.granularity, Some(Granularity::Seconds));
        assert_eq!(ts.bucket_max_span_seconds, Some(3_600));
        let spec = CollectionSpec::new("t")
            .timeseries(TimeseriesOptions::new("ts").granularity(Granularity::Hours));
        let ts = declared(&spec).options.timeseries.unwrap();
        assert_eq!(ts.bucket_max_span_seconds, Some(2_592_000));
        let custom =
            CollectionSpec::new("t").timeseries(TimeseriesOptions::new("ts").bucketing(600, 600));
        let ts = declared(&custom).options.timeseries.unwrap();
        assert_eq!(ts.granularity, None);
    }

    // SERVER-FACTS: "Capped size may be rounded up to a multiple of 256 (before 6.2); max <= 0
    // is stored as 2147483647".
    #[test]
    fn capped_size_rounds_to_256_and_nonpositive_max_means_none() {
        let spec = CollectionSpec::new("c").capped(Capped::size(1000).max(0));
        let capped = declared(&spec).options.capped.unwrap();
        assert_eq!(capped, Capped::size(1024));
        let live = CollectionSpec::new("c").capped(Capped::size(1024).max(2_147_483_647));
        assert_eq!(self::live(&live).options.capped.unwrap(), capped);
    }

    #[test]
    fn declared_normalization_is_idempotent() {
        let spec = CollectionSpec::new("a")
            .collation(Collation::new("fr"))
            .index(IndexSpec::new([("t", Text)]))
            .index(IndexSpec::new([("p", TwoD)]))
            .index(IndexSpec::new([("n", Ascending)]).collation(Collation::new("simple")))
            .index(
                IndexSpec::new([("$**", Wildcard)]).wildcard_projection(doc! { "a": { "b": 1 } }),
            );
        let once = declared(&spec);
        assert_eq!(declared(&once), once);
        assert_eq!(live(&once), once);
    }

    // SERVER-FACTS: "Index builds in progress are listed wrapped as {spec, indexBuildInfo}".
    #[test]
    fn in_progress_builds_are_unwrapped() {
        let live = live_collection(
            &doc! { "name": "c", "type": "collection", "options": {} },
            &[doc! { "spec": { "v": 2, "key": { "a": 1 }, "name": "a_1" }, "indexBuildInfo": { "opid": 7 } }],
        )
        .unwrap()
        .unwrap();
        assert!(live.indexes[0].build_in_progress);
        assert_eq!(live.indexes[0].name.as_deref(), Some("a_1"));
    }

    // The server's src/mongo/db/local_catalog/clustered_collection_util.cpp:
    // makeCanonicalClusteredInfoForLegacyFormat() reads `clusteredIndex: true` as
    // `{key: {_id: 1}, unique: true, name: "_id_"}`.
    #[test]
    fn the_legacy_clustered_form_equals_the_id_clustered_index() {
        let legacy = live_collection(
            &doc! { "name": "c", "type": "collection", "options": { "clusteredIndex": true } },
            &[],
        )
        .unwrap()
        .unwrap();
        let declared = declared(&CollectionSpec::new("c").clustered_index(ClusteredIndex::new()));
        assert_eq!(legacy, declared);
        let listed = live_collection(
            &doc! { "name": "c", "type": "collection", "options": {
            "clusteredIndex": { "v": 2, "key": { "_id": 1 }, "name": "_id_", "unique": true } } },
            &[],
        )
        .unwrap()
        .unwrap();
        assert_eq!(legacy, listed);
        assert!(crate::diff::diff(&[declared], &[legacy]).is_empty());
    }

    // The server's src/mongo/db/commands/list_indexes.cpp: with includeBuildUUIDs an index
    // still building is `{spec: <index spec>, buildUUID: <uuid>}`; a ready one is the bare spec.
    #[test]
    fn builds_listed_with_their_build_uuid_are_in_progress() {
        let uuid = Bson::Binary(bson::Binary {
            subtype: bson::spec::BinarySubtype::Uuid,
            bytes: vec![7; 16],
        });
        let live = live_collection(
            &doc! { "name": "c", "type": "collection", "options": {} },
            &[
                doc! { "v": 2, "key": { "_id": 1 }, "name": "_id_" },
                doc! { "spec": { "v": 2, "key": { "b": 1 }, "name": "b_1" }, "buildUUID": uuid },
                doc! { "spec": { "v": 2, "key": { "c": 1 }, "name": "c_1" } },
            ],
        )
        .unwrap()
        .unwrap();
        let names: Vec<(&str, bool)> = live
            .indexes
            .iter()
            .map(|i| (i.name.as_deref().unwrap(), i.build_in_progress))
            .collect();
        assert_eq!(names, [("b_1", true), ("c_1", false)]);
    }

    #[test]
    fn views_and_system_collections_are_skipped() {
        let view =
            doc! { "name": "v", "type": "view", "options": { "viewOn": "c", "pipeline": [] } };
        assert!(live_collection(&view, &[]).unwrap().is_none());
        let system = doc! { "name": "system.buckets.t", "type": "collection", "options": {} };
        assert!(live_collection(&system, &[]).unwrap().is_none());
    }

    // SERVER-FACTS: "Unknown fields are reported as unmanaged, never dropped silently".
    #[test]
    fn unknown_entry_fields_are_kept_and_known_noise_is_dropped() {
        let live = live_collection(
            &doc! {
                "name": "c", "type": "collection",
                "options": { "storageEngine": { "wiredTiger": {} } },
                "info": { "readOnly": false, "uuid": Bson::Binary(bson::Binary { subtype: bson::spec::BinarySubtype::Uuid, bytes: vec![0; 16] }), "shiny": 1 },
                "idIndex": { "v": 2, "key": { "_id": 1 }, "name": "_id_" },
            },
            &[doc! { "v": 1, "key": { "a": 1 }, "name": "a_1", "ns": "db.c", "background": true, "textIndexVersion": 3, "2dsphereIndexVersion": 3, "newOption": true }],
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            live.options.other,
            doc! { "storageEngine": { "wiredTiger": {} }, "info.shiny": 1 }
        );
        assert_eq!(live.indexes[0].other, doc! { "newOption": true });
    }

    #[test]
    fn bad_entries_name_collection_and_index() {
        let err = live_collection(
            &doc! { "name": "c", "options": {} },
            &[doc! { "key": "a", "name": "a_1" }],
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "c: index \"a_1\": key: expected a document, found \"a\""
        );
        let err =
            live_collection(&doc! { "name": "c", "options": { "validator": 5 } }, &[]).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("c: listCollections entry: options.validator"),
            "{err}"
        );
    }

    #[test]
    fn catalog_file_round_trips() {
        let text = r#"{"collections": [{"name": "c", "type": "collection", "options": {}}],
            "indexes": {"c": [{"v": {"$numberInt": "2"}, "key": {"b": {"$numberInt": "1"}, "a": {"$numberInt": "-1"}}, "name": "b_1_a_-1"}]}}"#;
        let catalog = Catalog::from_json(text).unwrap();
        assert_eq!(Catalog::from_json(&catalog.to_json()).unwrap(), catalog);
        let specs = catalog.to_live_specs().unwrap();
        assert_eq!(
            specs[0].indexes[0].keys.to_document(),
            doc! { "b": 1, "a": -1 }
        );
        let err = Catalog::from_json(r#"{"collections": {}}"#).unwrap_err();
        assert_eq!(
            err.to_string(),
            "catalog: collections: expected an array, found {}"
        );
    }
}
