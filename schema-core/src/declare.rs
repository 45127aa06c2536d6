//! Collection declarations as data: what `#[mongo(collection = ...)]` expands to, and how it
//! becomes a [`CollectionSpec`].
//!
//! The derive writes one `const` [`Declaration`] per collection root (no code per index), and
//! [`build`] turns it into the spec at run time: Rust field paths resolve to stored names through
//! [`MongoSchema::field_path`], JSON options parse as Extended JSON, and every combination the
//! server would refuse becomes a [`SpecError`] naming the collection.

use bson::Document;

use crate::generate::{MongoSchema, PathError, root_schema};
use crate::schema::JsonSchema;
use crate::schema::{BsonType, TypeConstraint};
pub use crate::spec::IndexKind;
use crate::spec::{
    Capped, ClusteredIndex, Collation, CollectionSpec, Granularity, SearchIndexSpec, ShardKey,
    SpecError, TimeseriesOptions, ValidationAction, ValidationLevel, VectorField, View,
};
use crate::spec::{IndexKeys, IndexSpec};
use crate::version::{Version, Versions, versioned};

/// The kind of a declared key as the server stores it: a `1` or `-1` on a wildcard path
/// (`"$**"`, `"meta.$**"`) is a wildcard key.
fn kind(declared: &IndexKind, path: &str) -> IndexKind {
    match declared {
        IndexKind::Ascending | IndexKind::Descending if crate::spec::is_wildcard_path(path) => {
            IndexKind::Wildcard
        }
        other => other.clone(),
    }
}

/// One declared index: keys as Rust field paths, options as written.
#[derive(Clone, Copy, Debug)]
pub struct Index {
    /// `(rust.path, key)` in order.
    pub keys: &'static [(&'static str, IndexKind)],
    /// An explicit name.
    pub name: Option<&'static str>,
    /// `unique`.
    pub unique: bool,
    /// `sparse`.
    pub sparse: bool,
    /// `hidden`.
    pub hidden: bool,
    /// `expireAfterSeconds`.
    pub ttl: Option<i64>,
    /// `partialFilterExpression` as Extended JSON text (stored names, as in any query).
    pub partial: Option<&'static str>,
    /// `collation` as Extended JSON text.
    pub collation: Option<&'static str>,
    /// `wildcardProjection` as Extended JSON text.
    pub wildcard_projection: Option<&'static str>,
    /// Text weights by Rust field path.
    pub weights: &'static [(&'static str, i32)],
    /// `default_language`.
    pub default_language: Option<&'static str>,
    /// `language_override`.
    pub language_override: Option<&'static str>,
    /// `bits` of a 2d index.
    pub bits: Option<i32>,
    /// `min` of a 2d index.
    pub min: Option<f64>,
    /// `max` of a 2d index.
    pub max: Option<f64>,
    /// The discriminator `(tag, value)` of the variant the index was declared on: the index is
    /// scoped to that variant with a partial filter, as Mongoose scopes discriminator indexes.
    pub variant: Option<(&'static str, &'static str)>,
}

impl Index {
    /// An index on `keys` with no option set.
    pub const fn new(keys: &'static [(&'static str, IndexKind)]) -> Index {
        Index {
            keys,
            name: None,
            unique: false,
            sparse: false,
            hidden: false,
            ttl: None,
            partial: None,
            collation: None,
            wildcard_projection: None,
            weights: &[],
            default_language: None,
            language_override: None,
            bits: None,
            min: None,
            max: None,
            variant: None,
        }
    }
}

/// One stored version: `(value, may_be_absent, schema)`.
pub type DeclaredVersion = (i64, bool, fn() -> JsonSchema);

/// Which validator the collection gets.
#[derive(Clone, Copy, Debug)]
pub enum ValidatorSource {
    /// None (time-series collections, or `#[mongo(validator = false)]`).
    None,
    /// The root type's schema ([`MongoSchema::root_schema`]).
    Root,
    /// One branch per stored version ([`crate::version`]).
    Versioned {
        /// The version field's stored name.
        field: &'static str,
        /// `(value, may_be_absent, schema)`, current first.
        versions: &'static [DeclaredVersion],
    },
}

/// `timeseries(...)` as declared; fields are Rust paths.
#[derive(Clone, Copy, Debug)]
pub struct Timeseries {
    /// `timeField`.
    pub time_field: &'static str,
    /// `metaField`.
    pub meta_field: Option<&'static str>,
    /// `granularity`.
    pub granularity: Option<&'static str>,
    /// `bucketMaxSpanSeconds` and `bucketRoundingSeconds`.
    pub bucketing: Option<(i64, i64)>,
}

/// The stored name of a declared collection or view: what a view's `view_on = Type` reads, so
/// that naming a type that declares nothing is a compile error at the type.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a declared collection or view",
    label = "`view_on` names a type with `#[mongo(collection = \"...\")]` or `#[mongo(view = \"...\")]`"
)]
pub trait Declared {
    /// The collection or view name.
    const NAME: &'static str;
}

/// `vector_index(...)` as declared; paths are Rust paths.
#[derive(Clone, Copy, Debug)]
pub struct VectorIndex {
    /// The index name.
    pub name: &'static str,
    /// The embedding's Rust path.
    pub path: &'static str,
    /// `numDimensions`.
    pub dimensions: i64,
    /// `similarity`.
    pub similarity: &'static str,
    /// `quantization`.
    pub quantization: Option<&'static str>,
    /// Filter fields' Rust paths.
    pub filters: &'static [&'static str],
}

/// `search_index(name, dynamic, analyzer, mappings(...))` as declared.
#[derive(Clone, Copy, Debug)]
pub struct SearchIndex {
    /// The index name.
    pub name: &'static str,
    /// `analyzer`.
    pub analyzer: Option<&'static str>,
    /// `mappings.dynamic`.
    pub dynamic: bool,
    /// Static field mappings; Rust paths.
    pub mappings: &'static [Mapping],
}

/// One field of `mappings(...)`: `title(type = "string", analyzer = "lucene.english")`.
#[derive(Clone, Copy, Debug)]
pub struct Mapping {
    /// The field's Rust path.
    pub path: &'static str,
    /// The field type (`string`, `token`, `number`, ...).
    pub field_type: &'static str,
    /// `analyzer`.
    pub analyzer: Option<&'static str>,
    /// `searchAnalyzer`.
    pub search_analyzer: Option<&'static str>,
}

/// `view_on` and `pipeline` of `#[mongo(view = ...)]`.
#[derive(Clone, Copy, Debug)]
pub struct ViewSource {
    /// The source collection or view (from its type's [`Declared::NAME`]).
    pub view_on: &'static str,
    /// The pipeline as Extended JSON text (an array of stages; the derive checked it parses).
    pub pipeline: &'static str,
}

/// Everything `#[mongo(collection = ...)]` declares, as constant data.
#[derive(Clone, Copy, Debug)]
pub struct Declaration {
    /// The collection name.
    pub name: &'static str,
    /// Its validator.
    pub validator: ValidatorSource,
    /// `validationLevel`.
    pub validation_level: Option<&'static str>,
    /// `validationAction`.
    pub validation_action: Option<&'static str>,
    /// Indexes in declaration order: container first, then fields, then variants.
    pub indexes: &'static [Index],
    /// Fields declared `#[mongo(text)]` (Rust path, weight): one text index together.
    pub text_fields: &'static [(&'static str, i32)],
    /// `shard_key(keys(...), unique)`.
    pub shard_key: Option<(&'static [(&'static str, IndexKind)], bool)>,
    /// `timeseries(...)`.
    pub timeseries: Option<Timeseries>,
    /// `expire_after_seconds`.
    pub expire_after_seconds: Option<i64>,
    /// `capped(size, max)`.
    pub capped: Option<(i64, Option<i64>)>,
    /// `clustered_index`.
    pub clustered_index: bool,
    /// `collation` as Extended JSON text.
    pub collation: Option<&'static str>,
    /// `change_stream_pre_and_post_images`.
    pub change_stream_pre_and_post_images: bool,
    /// Rust paths of arrays acknowledged as unbounded (`#[mongo(unbounded)]`).
    pub unbounded: &'static [&'static str],
    /// `#[mongo(view = ...)]`: the collection is a view with this definition.
    pub view: Option<ViewSource>,
    /// `vector_index(...)`s.
    pub vector_indexes: &'static [VectorIndex],
    /// `search_index(...)`s.
    pub search_indexes: &'static [SearchIndex],
}

fn path_error(ns: &str, source: PathError) -> SpecError {
    SpecError::Path {
        collection: ns.to_owned(),
        source,
    }
}

fn json(ns: &str, what: &str, text: &str) -> Result<Document, SpecError> {
    let invalid = |reason: String| SpecError::InvalidCollection {
        collection: ns.to_owned(),
        reason: format!("{what} is not an Extended JSON document: {reason}"),
    };
    crate::extjson::parse_document(text).map_err(|e| invalid(e.to_string()))
}

fn resolve<T: MongoSchema + ?Sized>(ns: &str, path: &str) -> Result<String, SpecError> {
    crate::spec::resolve_path::<T>(path).map_err(|e| path_error(ns, e))
}

fn keys<T: MongoSchema + ?Sized>(
    ns: &str,
    keys: &[(&str, IndexKind)],
) -> Result<IndexKeys, SpecError> {
    keys.iter()
        .map(|(path, key)| Ok((resolve::<T>(ns, path)?, kind(key, path))))
        .collect::<Result<Vec<_>, SpecError>>()
        .map(IndexKeys)
}

fn index<T: MongoSchema + ?Sized>(ns: &str, declared: &Index) -> Result<IndexSpec, SpecError> {
    let mut spec = IndexSpec {
        keys: keys::<T>(ns, declared.keys)?,
        ..IndexSpec::default()
    };
    spec.name = declared.name.map(str::to_owned);
    spec.unique = declared.unique;
    spec.sparse = declared.sparse;
    spec.hidden = declared.hidden;
    spec.expire_after_seconds = declared.ttl;
    let mut partial = match declared.partial {
        Some(text) => Some(json(ns, "partial filter", text)?),
        None => None,
    };
    if let Some((tag, value)) = declared.variant {
        let filter = partial.get_or_insert_with(Document::new);
        if filter.contains_key(tag) {
            return Err(SpecError::InvalidIndex {
                collection: ns.to_owned(),
                index: spec.effective_name(),
                reason: format!(
                    "the partial filter already constrains {tag}, which scopes the index to its variant"
                ),
            });
        }
        // The discriminator first, so the filter reads as "documents of this variant, where...".
        let mut scoped = Document::new();
        scoped.insert(tag, value);
        scoped.extend(std::mem::take(filter));
        *filter = scoped;
    }
    spec.partial_filter_expression = partial;
    if let Some(text) = declared.collation {
        spec.collation = Some(collation(ns, text)?);
    }
    if let Some(text) = declared.wildcard_projection {
        spec.wildcard_projection = Some(json(ns, "wildcard projection", text)?);
    }
    for (path, weight) in declared.weights {
        spec.weights.insert(resolve::<T>(ns, path)?, *weight);
    }
    spec.default_language = declared.default_language.map(str::to_owned);
    spec.language_override = declared.language_override.map(str::to_owned);
    spec.bits = declared.bits;
    spec.min = declared.min;
    spec.max = declared.max;
    Ok(spec)
}

fn collation(ns: &str, text: &str) -> Result<Collation, SpecError> {
    let doc = json(ns, "collation", text)?;
    Collation::from_document(&doc).map_err(|e| SpecError::InvalidCollection {
        collection: ns.to_owned(),
        reason: format!("collation: {e}"),
    })
}

/// Builds the spec of collection root `T` from its declaration.
///
/// # Errors
/// A [`SpecError`] naming the collection: a path that names no field (with the nearest names),
/// an option that is not valid Extended JSON, or a combination the server refuses
/// ([`CollectionSpec::check`]).
pub fn build<T: MongoSchema + ?Sized>(declared: &Declaration) -> Result<CollectionSpec, SpecError> {
    let ns = declared.name;
    let mut spec = CollectionSpec::new(ns);
    match declared.validator {
        ValidatorSource::None => {}
        ValidatorSource::Root => spec = spec.json_schema(T::root_schema()),
        ValidatorSource::Versioned { field, versions } => {
            let versions: Vec<Version> = versions
                .iter()
                .map(|(value, may_be_absent, schema)| Version {
                    value: *value,
                    may_be_absent: *may_be_absent,
                    schema: schema(),
                })
                .collect();
            let current = &versions[0].schema;
            let written = current.properties.contains_key(field)
                && current
                    .required
                    .as_ref()
                    .is_some_and(|r| r.iter().any(|n| n == field));
            if !written {
                return Err(SpecError::InvalidCollection {
                    collection: ns.to_owned(),
                    reason: format!(
                        "the current version must always write {field:?}: add a field \
                         `#[serde(rename = \"{field}\")]` that is neither optional nor skipped"
                    ),
                });
            }
            spec = spec.json_schema(root_schema(versioned(field, &versions)));
            spec.versions = Some(Versions {
                field: field.to_owned(),
                versions,
            });
        }
    }
    spec.validation_level = declared.validation_level.map(ValidationLevel::from_name);
    spec.validation_action = declared.validation_action.map(ValidationAction::from_name);
    for declared_index in declared.indexes {
        spec.indexes.push(index::<T>(ns, declared_index)?);
    }
    if !declared.text_fields.is_empty() {
        let mut text = IndexSpec::default();
        let mut pairs = Vec::new();
        for (path, weight) in declared.text_fields {
            let stored = resolve::<T>(ns, path)?;
            pairs.push((stored.clone(), IndexKind::Text));
            if *weight != 1 {
                text.weights.insert(stored, *weight);
            }
        }
        text.keys = IndexKeys(pairs);
        spec.indexes.push(text);
    }
    if let Some((shard_keys, unique)) = declared.shard_key {
        spec.shard_key = Some(ShardKey {
            keys: keys::<T>(ns, shard_keys)?,
            unique,
        });
    }
    if let Some(ts) = declared.timeseries {
        let mut options = TimeseriesOptions::new(resolve::<T>(ns, ts.time_field)?);
        if let Some(meta) = ts.meta_field {
            options = options.meta_field(resolve::<T>(ns, meta)?);
        }
        if let Some(granularity) = ts.granularity {
            options = options.granularity(Granularity::from_name(granularity));
        }
        if let Some((span, rounding)) = ts.bucketing {
            options = options.bucketing(span, rounding);
        }
        spec = spec.timeseries(options);
    }
    if let Some(seconds) = declared.expire_after_seconds {
        spec = spec.expire_after_seconds(seconds);
    }
    if let Some((size, max)) = declared.capped {
        let mut capped = Capped::size(size);
        if let Some(max) = max {
            capped = capped.max(max);
        }
        spec = spec.capped(capped);
    }
    if declared.clustered_index {
        spec = spec.clustered_index(ClusteredIndex::new());
    }
    if let Some(text) = declared.collation {
        spec = spec.collation(collation(ns, text)?);
    }
    if declared.change_stream_pre_and_post_images {
        spec = spec.change_stream_pre_and_post_images(true);
    }
    for path in declared.unbounded {
        let stored = resolve::<T>(ns, path)?;
        spec = spec.acknowledge_unbounded(stored);
    }
    if let Some(view) = declared.view {
        spec = spec.view(View::new(view.view_on, pipeline(ns, view.pipeline)?));
        // A view has no validator; its type's schema describes the documents it produces.
        spec = spec.document_schema(T::root_schema());
    }
    for declared_index in declared.search_indexes {
        let mut index = search_index::<T>(&spec, declared_index)?;
        if let Some(analyzer) = declared_index.analyzer {
            index = index.analyzer(analyzer);
        }
        spec = spec.search_index(index);
    }
    for declared_index in declared.vector_indexes {
        spec = vector_index::<T>(spec, declared_index)?;
    }
    spec.check()?;
    Ok(spec)
}

/// BSON types a vector index can filter on: booleans, dates, ObjectIds, numbers, strings and
/// UUIDs (binData), and null for an optional field ("How to Index Fields for Vector Search").
const FILTERABLE: &[BsonType] = &[
    BsonType::Bool,
    BsonType::Date,
    BsonType::ObjectId,
    BsonType::Int,
    BsonType::Long,
    BsonType::Double,
    BsonType::Decimal,
    BsonType::Number,
    BsonType::String,
    BsonType::BinData,
    BsonType::Null,
];

/// The schema node at a stored dotted path of the root schema, through `properties`.
fn node_at<'s>(schema: &'s mut JsonSchema, path: &str) -> Option<&'s mut JsonSchema> {
    let mut node = schema;
    for segment in path.split('.') {
        node = node.properties.get_mut(segment)?;
    }
    Some(node)
}

fn bson_types(node: &JsonSchema) -> Option<&[BsonType]> {
    match &node.types {
        Some(TypeConstraint::BsonType(types)) => Some(types),
        _ => None,
    }
}

/// A declared vector index: paths resolved; the embedding must be an array of numbers, and the
/// validator pins its length to `dimensions` (`minItems = maxItems`); filter fields must be of
/// filterable types.
fn vector_index<T: MongoSchema + ?Sized>(
    mut spec: CollectionSpec,
    declared: &VectorIndex,
) -> Result<CollectionSpec, SpecError> {
    let ns = spec.name.clone();
    let invalid = |reason: String| SpecError::InvalidIndex {
        collection: ns.clone(),
        index: declared.name.to_owned(),
        reason,
    };
    let path = resolve::<T>(&ns, declared.path)?;
    let mut filters = Vec::new();
    for filter in declared.filters {
        filters.push(resolve::<T>(&ns, filter)?);
    }
    if let Some(schema) = spec.validator.as_mut().and_then(|v| v.json_schema.as_mut()) {
        if let Some(node) = node_at(schema, &path) {
            if let Some(types) = bson_types(node)
                && !types.contains(&BsonType::Array)
            {
                return Err(invalid(format!(
                    "the vector path {path:?} must be an array of numbers; its schema allows {}",
                    types
                        .iter()
                        .map(|t| t.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
            let n = u64::try_from(declared.dimensions).unwrap_or(0);
            for (bound, what) in [(node.min_items, "minItems"), (node.max_items, "maxItems")] {
                if bound.is_some_and(|b| b != n) {
                    return Err(invalid(format!(
                        "dimensions = {n}, but the schema of {path:?} has {what} {}",
                        bound.unwrap_or_default()
                    )));
                }
            }
            node.min_items = Some(n);
            node.max_items = Some(n);
        }
        for filter in &filters {
            if let Some(node) = node_at(schema, filter)
                && let Some(types) = bson_types(node)
                && let Some(bad) = types.iter().find(|t| !FILTERABLE.contains(t))
            {
                return Err(invalid(format!(
                    "the filter field {filter:?} is {}; a vector index filters booleans, dates, ObjectIds, numbers, strings and UUIDs",
                    bad.as_str()
                )));
            }
        }
    }
    let mut field = VectorField::new(path, declared.dimensions, declared.similarity);
    if let Some(q) = declared.quantization {
        field = field.quantization(q);
    }
    Ok(spec.search_index(SearchIndexSpec::vector(declared.name, field, filters)))
}

/// A declared search index: dynamic, or static mappings at resolved paths, each field's
/// schema types indexable by its mapping type (the derive checks plain fields at compile time;
/// this catches deeper paths and aliases).
fn search_index<T: MongoSchema + ?Sized>(
    spec: &CollectionSpec,
    declared: &SearchIndex,
) -> Result<SearchIndexSpec, SpecError> {
    let ns = &spec.name;
    if declared.mappings.is_empty() {
        return Ok(SearchIndexSpec::dynamic(declared.name));
    }
    let schema = spec.validator.as_ref().and_then(|v| v.json_schema.as_ref());
    let mut fields = Vec::new();
    for mapping in declared.mappings {
        let path = resolve::<T>(ns, mapping.path)?;
        if let Some(node) = schema.and_then(|s| schema_at(s, &path))
            && let Some(found) =
                crate::spec::search::unindexable(mapping.field_type, &stored_types(node))
        {
            return Err(SpecError::InvalidIndex {
                collection: ns.clone(),
                index: declared.name.to_owned(),
                reason: format!(
                    "{path:?} is {}, which a search mapping of type {:?} does not index",
                    found.as_str(),
                    mapping.field_type
                ),
            });
        }
        let mut field = bson::doc! { "type": mapping.field_type };
        if let Some(a) = mapping.analyzer {
            field.insert("analyzer", a);
        }
        if let Some(a) = mapping.search_analyzer {
            field.insert("searchAnalyzer", a);
        }
        fields.push((path, field));
    }
    let mut index = SearchIndexSpec::static_mappings(declared.name, fields);
    if declared.dynamic
        && let Ok(mappings) = index.definition.get_document_mut("mappings")
    {
        mappings.insert("dynamic", true);
    }
    Ok(index)
}

/// The schema node at a stored dotted path, through `properties` and array elements.
fn schema_at<'s>(schema: &'s JsonSchema, path: &str) -> Option<&'s JsonSchema> {
    let mut node = schema;
    for segment in path.split('.') {
        if let Some(crate::schema::Items::Single(element)) = &node.items {
            node = element;
        }
        node = node.properties.get(segment)?;
    }
    Some(node)
}

/// The BSON types a node stores, an array's element types for an array (a search index indexes
/// each element), `null` left out; empty when the schema does not say.
fn stored_types(node: &JsonSchema) -> Vec<BsonType> {
    let mut out = Vec::new();
    for t in bson_types(node).unwrap_or(&[]) {
        match t {
            BsonType::Null => {}
            BsonType::Array => match &node.items {
                Some(crate::schema::Items::Single(element)) => out.extend(stored_types(element)),
                _ => return Vec::new(),
            },
            other => out.push(*other),
        }
    }
    out
}

fn pipeline(ns: &str, text: &str) -> Result<Vec<Document>, SpecError> {
    let invalid = |reason: String| SpecError::InvalidCollection {
        collection: ns.to_owned(),
        reason: format!("the view pipeline is not an Extended JSON array of stages: {reason}"),
    };
    let value = crate::extjson::parse(text).map_err(|e| invalid(e.to_string()))?;
    View::read_pipeline(&value).map_err(|e| invalid(e.to_string()))
}

/// A JSON object written in an attribute, as a document (the derive checked it is an object).
///
/// # Panics
/// When `text` is not a JSON object that converts to BSON; the derive refuses such attributes
/// at compile time.
pub fn json_document(text: &str) -> Document {
    json("", "filter", text).expect("the derive checked this JSON object when it compiled")
}

/// Builds the spec, or panics with the error's message: the infallible
/// [`crate::spec::Collection::collection_spec`] of a derived root.
///
/// # Panics
/// When [`build`] fails; `mongo-schema generate` and `check` report the same error without
/// panicking, through [`crate::spec::Collection::try_collection_spec`].
pub fn build_or_panic<T: MongoSchema + ?Sized>(declared: &Declaration) -> CollectionSpec {
    match build::<T>(declared) {
        Ok(spec) => spec,
        Err(error) => panic!("{error}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{SchemaGenerator, object};
    use bson::doc;

    struct Order;
    impl MongoSchema for Order {
        fn json_schema(g: &mut SchemaGenerator) -> JsonSchema {
            let mut s = object();
            s.properties.insert("userId".into(), String::json_schema(g));
            s.properties.insert("status".into(), String::json_schema(g));
            s
        }
        fn field_path(path: &[&str]) -> Result<Vec<String>, PathError> {
            match path {
                [] => Ok(Vec::new()),
                ["user_id"] => Ok(vec!["userId".into()]),
                ["status"] => Ok(vec!["status".into()]),
                [first, ..] => Err(PathError::new::<Order>(path, first, &["user_id", "status"])),
            }
        }
    }

    const EMPTY: Declaration = Declaration {
        name: "orders",
        validator: ValidatorSource::Root,
        validation_level: None,
        validation_action: None,
        indexes: &[],
        text_fields: &[],
        shard_key: None,
        timeseries: None,
        expire_after_seconds: None,
        capped: None,
        clustered_index: false,
        collation: None,
        change_stream_pre_and_post_images: false,
        unbounded: &[],
        view: None,
        vector_indexes: &[],
        search_indexes: &[],
    };

    #[test]
    fn index_paths_resolve_to_stored_names() {
        const DECL: Declaration = Declaration {
            indexes: &[Index {
                unique: true,
                partial: Some(r#"{"deleted_at": {"$exists": false}}"#),
                ..Index::new(&[
                    ("user_id", IndexKind::Ascending),
                    ("status", IndexKind::Descending),
                ])
            }],
            ..EMPTY
        };
        let spec = build::<Order>(&DECL).unwrap();
        let index = &spec.indexes[0];
        assert_eq!(index.keys.to_document(), doc! { "userId": 1, "status": -1 });
        assert_eq!(
            index.partial_filter_expression,
            Some(doc! { "deleted_at": { "$exists": false } })
        );
        assert!(spec.validator.is_some());
    }

    #[test]
    fn misspelled_path_names_the_type_and_the_nearest_field() {
        const DECL: Declaration = Declaration {
            indexes: &[Index::new(&[("user_ud", IndexKind::Ascending)])],
            ..EMPTY
        };
        let error = build::<Order>(&DECL).unwrap_err().to_string();
        assert!(error.contains("orders"), "{error}");
        assert!(error.contains("user_ud"), "{error}");
        assert!(error.contains("\"user_id\""), "{error}");
    }

    #[test]
    fn variant_index_is_scoped_by_its_discriminator() {
        const DECL: Declaration = Declaration {
            indexes: &[Index {
                unique: true,
                variant: Some(("type", "BOOK")),
                ..Index::new(&[("status", IndexKind::Ascending)])
            }],
            ..EMPTY
        };
        let spec = build::<Order>(&DECL).unwrap();
        assert_eq!(
            spec.indexes[0].partial_filter_expression,
            Some(doc! { "type": "BOOK" })
        );
    }

    #[test]
    fn text_fields_make_one_text_index_with_weights() {
        const DECL: Declaration = Declaration {
            text_fields: &[("user_id", 10), ("status", 1)],
            ..EMPTY
        };
        let spec = build::<Order>(&DECL).unwrap();
        assert_eq!(
            spec.indexes[0].keys.to_document(),
            doc! { "userId": "text", "status": "text" }
        );
        assert_eq!(spec.indexes[0].weights.get("userId"), Some(&10));
        assert_eq!(spec.indexes[0].weights.get("status"), None);
    }

    #[test]
    fn a_view_takes_its_source_and_pipeline() {
        const DECL: Declaration = Declaration {
            validator: ValidatorSource::None,
            view: Some(ViewSource {
                view_on: "users",
                pipeline: r#"[{"$match": {"active": true}}, {"$limit": {"$numberLong": "5"}}]"#,
            }),
            ..EMPTY
        };
        let spec = build::<Order>(&DECL).unwrap();
        let view = spec.options.view.unwrap();
        assert_eq!(view.view_on, "users");
        assert_eq!(
            view.pipeline,
            [
                doc! { "$match": { "active": true } },
                doc! { "$limit": 5_i64 }
            ]
        );
        const BAD: Declaration = Declaration {
            view: Some(ViewSource {
                view_on: "users",
                pipeline: r#"[1]"#,
            }),
            ..DECL
        };
        let error = build::<Order>(&BAD).unwrap_err().to_string();
        assert!(error.contains("pipeline[0]"), "{error}");
    }

    #[test]
    fn bad_json_option_is_an_error_not_a_panic() {
        const DECL: Declaration = Declaration {
            indexes: &[Index {
                partial: Some("{deleted_at: 1}"),
                ..Index::new(&[("status", IndexKind::Ascending)])
            }],
            ..EMPTY
        };
        assert!(matches!(
            build::<Order>(&DECL),
            Err(SpecError::InvalidCollection { .. })
        ));
    }

    #[test]
    fn versioned_current_must_write_the_version_field() {
        const DECL: Declaration = Declaration {
            validator: ValidatorSource::Versioned {
                field: "schemaVersion",
                versions: &[(2, false, object), (1, true, object)],
            },
            ..EMPTY
        };
        let error = build::<Order>(&DECL).unwrap_err().to_string();
        assert!(error.contains("schemaVersion"), "{error}");
    }
}
