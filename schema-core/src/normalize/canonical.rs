//! Canonical forms: declared and live specs brought to one form (names filled in, server
//! defaults written out, text indexes in their listed form, collations resolved), and the
//! `createIndexes` form back from it. See the module docs of `normalize` for the rules.

use std::collections::BTreeMap;

use bson::{Bson, Document};

use super::equivalence::canonical_number;
use crate::spec::{Collation, CollectionSpec, ValidationAction, ValidationLevel};
use crate::spec::{IndexKeys, IndexKind, IndexSpec};

/// Fields of an index entry the server adds and nothing compares.
const IGNORED_INDEX_FIELDS: [&str; 5] = [
    "v",
    "ns",
    "background",
    "textIndexVersion",
    "2dsphereIndexVersion",
];

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

/// The canonical form of a live spec that was built some other way than [`live_collection`](super::live_collection)
/// (an in-memory model, a test). Idempotent; [`live_collection`](super::live_collection) output is already canonical.
///
/// The rules are those of [`declared`]: an index without a collation takes the collection's,
/// as the server does when it creates one ([`live_collection`](super::live_collection) writes out the simple
/// collation of every index listed without one, so listed indexes never inherit).
pub fn live(spec: &CollectionSpec) -> CollectionSpec {
    canonical(spec.clone())
}

pub(super) fn canonical(mut spec: CollectionSpec) -> CollectionSpec {
    // A view validates nothing: it has no validation settings to default.
    if spec.validation_level.is_none() && !spec.is_view() {
        spec.validation_level = Some(ValidationLevel::DEFAULT);
    }
    if spec.validation_action.is_none() && !spec.is_view() {
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

pub(super) fn canonical_collation(mut c: Collation) -> Collation {
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
pub(super) fn flat_projection(projection: &Document) -> Document {
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
