//! `CollectionSpec`: a collection's validator, validation level and action, options, indexes and
//! shard key. Declarations (the derive, or a manifest) build it; `normalize` turns server replies
//! into it; `diff` compares a declared one with a live one.

use std::fmt;

use bson::{Bson, Document};

use super::collation::Collation;
use super::error::{DocumentError, SpecError};
use super::index::{IndexKeys, IndexKind, IndexSpec};
use super::read;
use super::search::SearchIndexSpec;
use super::validator::ValidatorSpec;
use super::view::View;
use crate::generate::MongoSchema;
use crate::schema::JsonSchema;

/// A Rust type that is the root of a collection: its schema plus the collection's settings.
///
/// `#[derive(MongoSchema)]` with `#[mongo(collection = "...")]` implements it; a hand-written
/// implementation looks like this:
///
/// ```
/// use mongo_schema::spec::{Collection, CollectionSpec};
/// use mongo_schema::spec::{IndexKind::*, IndexSpec};
/// use mongo_schema::{MongoSchema, SchemaGenerator, JsonSchema, generate::object};
///
/// struct Order;
/// impl MongoSchema for Order {
///     fn json_schema(_: &mut SchemaGenerator) -> JsonSchema { object() }
/// }
/// impl Collection for Order {
///     fn collection_spec() -> CollectionSpec {
///         CollectionSpec::new("orders")
///             .json_schema(Self::root_schema())
///             .index(IndexSpec::new([("user_id", Ascending), ("created_at", Descending)]))
///     }
/// }
/// assert_eq!(Order::collection_spec().indexes[0].default_name(), "user_id_1_created_at_-1");
/// ```
pub trait Collection: MongoSchema {
    /// The collection's declared spec.
    ///
    /// # Panics
    /// A derived root panics with the [`SpecError`] of [`Collection::try_collection_spec`]; the
    /// registry and the CLI call that instead and report the error.
    fn collection_spec() -> CollectionSpec;

    /// The collection's declared spec, or why it cannot be built (a path naming no field, an
    /// option the server refuses).
    ///
    /// # Errors
    /// The [`SpecError`]; the default never fails.
    fn try_collection_spec() -> Result<CollectionSpec, SpecError> {
        Ok(Self::collection_spec())
    }
}

/// Everything declared about one collection.
///
/// ```
/// use mongo_schema::spec::{CollectionSpec, ValidationAction};
/// use mongo_schema::spec::{IndexKind::*, IndexSpec};
/// use mongo_schema::schema::{BsonType, JsonSchema};
///
/// let spec = CollectionSpec::new("users")
///     .json_schema(JsonSchema::bson_type(BsonType::Object))
///     .validation_action(ValidationAction::Error)
///     .index(IndexSpec::new([("email", Ascending)]).unique(true));
/// assert!(spec.check().is_ok());
/// assert_eq!(
///     spec.to_options_document(),
///     bson::doc! {
///         "validator": { "$jsonSchema": { "bsonType": "object" } },
///         "validationAction": "error",
///     },
/// );
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CollectionSpec {
    /// The collection name (without the database).
    pub name: String,
    /// `validator`; `None` means no validator.
    pub validator: Option<ValidatorSpec>,
    /// `validationLevel`; `None` means the server default (strict).
    pub validation_level: Option<ValidationLevel>,
    /// `validationAction`; `None` means the server default (error).
    pub validation_action: Option<ValidationAction>,
    /// The other `create` options.
    pub options: CollectionOptions,
    /// Indexes other than `_id_`, in declaration order.
    pub indexes: Vec<IndexSpec>,
    /// How the collection is sharded, if it is.
    pub shard_key: Option<ShardKey>,
    /// Search and vector search indexes (`createSearchIndexes`), in declaration order.
    pub search_indexes: Vec<SearchIndexSpec>,
    /// On a live spec: the deployment's search indexes were not read (`$listSearchIndexes` not
    /// run, or not supported), so [`CollectionSpec::search_indexes`] says nothing and `diff` does
    /// not compare them. Never set on a declaration.
    pub search_indexes_unknown: bool,
    /// Stored array paths declared unbounded on purpose (`#[mongo(unbounded)]`): the
    /// unbounded-array lint stays silent on them. Not a server option: never in a plan, and
    /// not part of the manifest.
    pub acknowledged_unbounded: Vec<String>,
    /// On a versioned declaration (`#[mongo(version(...))]`): its versions, current first, from
    /// which the validator was built. Not a server option: never compared, never in the
    /// manifest; `plan` reads it to propose dropping versions no stored document has.
    pub versions: Option<crate::version::Versions>,
    /// On a view: the schema of one document it produces (the view type's root schema), for
    /// documentation and for `validate` of exported view output. Not a server option (a view
    /// has no validator): never compared, never in a plan; in the manifest as `documentSchema`.
    pub document_schema: Option<JsonSchema>,
}

impl CollectionSpec {
    /// A collection with no validator, option or index.
    pub fn new(name: impl Into<String>) -> CollectionSpec {
        CollectionSpec {
            name: name.into(),
            ..CollectionSpec::default()
        }
    }

    /// Acknowledges that the array at stored `path` may grow without bound.
    pub fn acknowledge_unbounded(mut self, path: impl Into<String>) -> CollectionSpec {
        self.acknowledged_unbounded.push(path.into());
        self
    }

    /// Sets the validator.
    pub fn validator(mut self, validator: ValidatorSpec) -> CollectionSpec {
        self.validator = Some(validator);
        self
    }

    /// Sets the validator to `{$jsonSchema: schema}`.
    pub fn json_schema(self, schema: JsonSchema) -> CollectionSpec {
        self.validator(ValidatorSpec::json_schema(schema))
    }

    /// Sets `validationLevel`.
    pub fn validation_level(mut self, level: ValidationLevel) -> CollectionSpec {
        self.validation_level = Some(level);
        self
    }

    /// Sets `validationAction`.
    pub fn validation_action(mut self, action: ValidationAction) -> CollectionSpec {
        self.validation_action = Some(action);
        self
    }

    /// Makes it a time-series collection.
    pub fn timeseries(mut self, timeseries: TimeseriesOptions) -> CollectionSpec {
        self.options.timeseries = Some(timeseries);
        self
    }

    /// Sets the collection's `expireAfterSeconds` (time-series and clustered collections).
    pub fn expire_after_seconds(mut self, seconds: i64) -> CollectionSpec {
        self.options.expire_after_seconds = Some(seconds);
        self
    }

    /// Makes it a capped collection.
    pub fn capped(mut self, capped: Capped) -> CollectionSpec {
        self.options.capped = Some(capped);
        self
    }

    /// Makes it a clustered collection.
    pub fn clustered_index(mut self, clustered: ClusteredIndex) -> CollectionSpec {
        self.options.clustered_index = Some(clustered);
        self
    }

    /// Sets the collection's default collation.
    pub fn collation(mut self, collation: Collation) -> CollectionSpec {
        self.options.collation = Some(collation);
        self
    }

    /// Sets `changeStreamPreAndPostImages: {enabled}`.
    pub fn change_stream_pre_and_post_images(mut self, enabled: bool) -> CollectionSpec {
        self.options.change_stream_pre_and_post_images = Some(enabled);
        self
    }

    /// Makes it a view: read-only, computed from `view.view_on` through its pipeline.
    pub fn view(mut self, view: View) -> CollectionSpec {
        self.options.view = Some(view);
        self
    }

    /// Sets the schema of the documents a view produces ([`CollectionSpec::document_schema`]).
    ///
    /// ```
    /// use mongo_schema::spec::{CollectionSpec, View};
    /// use mongo_schema::JsonSchema;
    /// let spec = CollectionSpec::new("names")
    ///     .view(View::new("users", vec![bson::doc! { "$project": { "name": 1 } }]))
    ///     .document_schema(JsonSchema::default());
    /// assert!(spec.to_manifest_document().contains_key("documentSchema"));
    /// assert!(spec.validator.is_none());
    /// ```
    #[must_use]
    pub fn document_schema(mut self, schema: JsonSchema) -> CollectionSpec {
        self.document_schema = Some(schema);
        self
    }

    /// Whether this is a view (`viewOn` and `pipeline`) rather than a collection.
    pub fn is_view(&self) -> bool {
        self.options.view.is_some()
    }

    /// Sets a `create` option the model does not know, passed to the server verbatim.
    pub fn option(mut self, key: impl Into<String>, value: impl Into<Bson>) -> CollectionSpec {
        self.options.other.insert(key.into(), value.into());
        self
    }

    /// Adds an index.
    pub fn index(mut self, index: IndexSpec) -> CollectionSpec {
        self.indexes.push(index);
        self
    }

    /// Adds a search or vector search index.
    pub fn search_index(mut self, index: SearchIndexSpec) -> CollectionSpec {
        self.search_indexes.push(index);
        self
    }

    /// Sets the shard key.
    pub fn shard_key(mut self, key: ShardKey) -> CollectionSpec {
        self.shard_key = Some(key);
        self
    }

    /// The `create` options, without `create` itself, in a fixed order: `validator`,
    /// `validationLevel`, `validationAction`, `viewOn`, `pipeline`, `timeseries`, `expireAfterSeconds`, `capped`,
    /// `size`, `max`, `collation`, `clusteredIndex`, `changeStreamPreAndPostImages`, then unknown
    /// options in the order given.
    pub fn to_options_document(&self) -> Document {
        let mut d = Document::new();
        if let Some(validator) = &self.validator {
            d.insert("validator", validator.to_document());
        }
        if let Some(level) = &self.validation_level {
            d.insert("validationLevel", level.as_str());
        }
        if let Some(action) = &self.validation_action {
            d.insert("validationAction", action.as_str());
        }
        self.options.write_into(&mut d);
        d
    }

    /// The collection as a manifest entry: `{name, options, indexes, shardKey, searchIndexes}`
    /// (`shardKey` only when set, `searchIndexes` only when there are some; `indexes` never
    /// lists `_id_`).
    pub fn to_manifest_document(&self) -> Document {
        let mut d = Document::new();
        d.insert("name", self.name.clone());
        d.insert("options", self.to_options_document());
        let indexes: Vec<Bson> = self
            .indexes
            .iter()
            .map(|i| Bson::Document(i.to_document()))
            .collect();
        d.insert("indexes", indexes);
        if let Some(key) = &self.shard_key {
            d.insert("shardKey", key.to_document());
        }
        if !self.search_indexes.is_empty() {
            let search: Vec<Bson> = self
                .search_indexes
                .iter()
                .map(|i| Bson::Document(i.to_document()))
                .collect();
            d.insert("searchIndexes", search);
        }
        if let Some(schema) = &self.document_schema {
            d.insert("documentSchema", schema.to_document());
        }
        d
    }

    /// Reads a manifest entry (the shape [`CollectionSpec::to_manifest_document`] writes).
    ///
    /// # Errors
    /// [`DocumentError`] with the path of the offending field.
    pub fn from_manifest_document(doc: &Document) -> Result<CollectionSpec, DocumentError> {
        let name = match doc.get("name") {
            Some(v) => read::string("name", v)?,
            None => return Err(DocumentError::missing("name")),
        };
        let mut spec = match doc.get("options") {
            Some(v) => CollectionSpec::from_options_document(name, read::document("options", v)?)
                .map_err(|e| e.within("options"))?,
            None => CollectionSpec::new(name),
        };
        if let Some(v) = doc.get("indexes") {
            let Bson::Array(list) = v else {
                return Err(DocumentError::expected("indexes", "an array", v));
            };
            for (i, entry) in list.iter().enumerate() {
                let at = format!("indexes[{i}]");
                let entry = read::document(&at, entry)?;
                spec.indexes
                    .push(IndexSpec::from_document(entry).map_err(|e| e.within(&at))?);
            }
        }
        if let Some(v) = doc.get("shardKey") {
            spec.shard_key = Some(
                ShardKey::from_document(read::document("shardKey", v)?)
                    .map_err(|e| e.within("shardKey"))?,
            );
        }
        if let Some(v) = doc.get("searchIndexes") {
            let Bson::Array(list) = v else {
                return Err(DocumentError::expected("searchIndexes", "an array", v));
            };
            for (i, entry) in list.iter().enumerate() {
                let at = format!("searchIndexes[{i}]");
                let entry = read::document(&at, entry)?;
                spec.search_indexes
                    .push(SearchIndexSpec::from_document(entry).map_err(|e| e.within(&at))?);
            }
        }
        if let Some(v) = doc.get("documentSchema") {
            let schema = read::document("documentSchema", v)?;
            spec.document_schema =
                Some(
                    JsonSchema::from_document(schema).map_err(|e| DocumentError {
                        path: "documentSchema".into(),
                        message: format!("not a $jsonSchema the server accepts: {e}"),
                    })?,
                );
        }
        for key in doc.keys() {
            if !matches!(
                key.as_str(),
                "name" | "options" | "indexes" | "shardKey" | "searchIndexes" | "documentSchema"
            ) {
                return Err(DocumentError {
                    path: key.clone(),
                    message: "unknown field; expected name, options, indexes, shardKey, \
                              searchIndexes or documentSchema"
                        .into(),
                });
            }
        }
        Ok(spec)
    }

    /// Reads `create` options (a manifest's `options`, or `listCollections`' `options`), keeping
    /// what the model does not know in [`CollectionOptions::other`]. The validator's
    /// `$jsonSchema` is kept as read (see [`ValidatorSpec::from_document`]).
    ///
    /// # Errors
    /// [`DocumentError`] with the path of a known option whose type the server would refuse.
    pub fn from_options_document(
        name: impl Into<String>,
        options: &Document,
    ) -> Result<CollectionSpec, DocumentError> {
        let mut spec = CollectionSpec::new(name);
        for (key, value) in options {
            match key.as_str() {
                "validator" => {
                    spec.validator =
                        Some(ValidatorSpec::from_document(read::document(key, value)?));
                }
                "validationLevel" => {
                    spec.validation_level =
                        Some(ValidationLevel::from_name(&read::string(key, value)?));
                }
                "validationAction" => {
                    spec.validation_action =
                        Some(ValidationAction::from_name(&read::string(key, value)?));
                }
                "timeseries" => {
                    spec.options.timeseries = Some(
                        TimeseriesOptions::from_document(read::document(key, value)?)
                            .map_err(|e| e.within(key))?,
                    );
                }
                "expireAfterSeconds" => match read::ttl_seconds(value) {
                    Some(s) => spec.options.expire_after_seconds = Some(s),
                    None => {
                        spec.options.other.insert(key.clone(), value.clone());
                    }
                },
                "capped" => {
                    if read::truthy(key, value)? {
                        spec.options
                            .capped
                            .get_or_insert(Capped { size: 0, max: None });
                    }
                }
                "size" | "max" => {
                    let n = read::number(value)
                        .ok_or_else(|| DocumentError::expected(key, "a number", value))?;
                    // `size` and `max` mean something only beside `capped: true`; read them
                    // anyway and let `capped` decide below.
                    let capped = spec
                        .options
                        .capped
                        .get_or_insert(Capped { size: 0, max: None });
                    if key == "size" {
                        capped.size = n as i64;
                    } else {
                        capped.max = Some(n as i64);
                    }
                }
                "collation" => {
                    spec.options.collation = Some(
                        Collation::from_document(read::document(key, value)?)
                            .map_err(|e| e.within(key))?,
                    );
                }
                "clusteredIndex" => {
                    spec.options.clustered_index =
                        Some(ClusteredIndex::from_bson(value).map_err(|e| e.within(key))?);
                }
                "viewOn" => {
                    let view_on = read::string(key, value)?;
                    spec.options.view.get_or_insert_with(View::default).view_on = view_on;
                }
                "pipeline" => {
                    let pipeline = View::read_pipeline(value)?;
                    spec.options.view.get_or_insert_with(View::default).pipeline = pipeline;
                }
                "changeStreamPreAndPostImages" => {
                    let d = read::document(key, value)?;
                    let enabled = match d.get("enabled") {
                        Some(v) => read::truthy("changeStreamPreAndPostImages.enabled", v)?,
                        None => false,
                    };
                    spec.options.change_stream_pre_and_post_images = Some(enabled);
                }
                _ => {
                    spec.options.other.insert(key.clone(), value.clone());
                }
            }
        }
        // `size`/`max` without `capped: true` are not a capped collection: keep them visible.
        if let Some(capped) = spec.options.capped.take() {
            if options
                .get("capped")
                .is_some_and(|v| read::truthy("capped", v) == Ok(true))
            {
                spec.options.capped = Some(capped);
            } else {
                for key in ["size", "max"] {
                    if let Some(v) = options.get(key) {
                        spec.options.other.insert(key, v.clone());
                    }
                }
            }
        }
        Ok(spec)
    }
}

/// `validationLevel`: which writes the validator checks. An open set: newer servers add values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ValidationLevel {
    /// `off`: no validation.
    Off,
    /// `strict` (the default): every insert and update.
    Strict,
    /// `moderate`: updates only of documents that already pass.
    Moderate,
    /// Any other value, as the server spelled it.
    Other(String),
}

impl ValidationLevel {
    /// The value the server uses when none is given.
    pub const DEFAULT: ValidationLevel = ValidationLevel::Strict;

    /// The value as the server spells it.
    pub fn as_str(&self) -> &str {
        match self {
            ValidationLevel::Off => "off",
            ValidationLevel::Strict => "strict",
            ValidationLevel::Moderate => "moderate",
            ValidationLevel::Other(s) => s,
        }
    }

    /// Reads a value; unknown ones become [`ValidationLevel::Other`].
    pub fn from_name(name: &str) -> ValidationLevel {
        match name {
            "off" => ValidationLevel::Off,
            "strict" => ValidationLevel::Strict,
            "moderate" => ValidationLevel::Moderate,
            other => ValidationLevel::Other(other.to_owned()),
        }
    }
}

impl fmt::Display for ValidationLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `validationAction`: what the server does with a write the validator rejects. An open set:
/// `errorAndLog` arrived in 8.1, and newer servers add values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ValidationAction {
    /// `error` (the default): reject the write.
    Error,
    /// `warn`: accept the write and log it.
    Warn,
    /// `errorAndLog` (8.1+): reject the write and log it.
    ErrorAndLog,
    /// Any other value, as the server spelled it.
    Other(String),
}

impl ValidationAction {
    /// The value the server uses when none is given.
    pub const DEFAULT: ValidationAction = ValidationAction::Error;

    /// The value as the server spells it.
    pub fn as_str(&self) -> &str {
        match self {
            ValidationAction::Error => "error",
            ValidationAction::Warn => "warn",
            ValidationAction::ErrorAndLog => "errorAndLog",
            ValidationAction::Other(s) => s,
        }
    }

    /// Reads a value; unknown ones become [`ValidationAction::Other`].
    pub fn from_name(name: &str) -> ValidationAction {
        match name {
            "error" => ValidationAction::Error,
            "warn" => ValidationAction::Warn,
            "errorAndLog" => ValidationAction::ErrorAndLog,
            other => ValidationAction::Other(other.to_owned()),
        }
    }
}

impl fmt::Display for ValidationAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The `create` options other than the validator settings.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CollectionOptions {
    /// `timeseries`: makes it a time-series collection.
    pub timeseries: Option<TimeseriesOptions>,
    /// `expireAfterSeconds` of a time-series or clustered collection.
    pub expire_after_seconds: Option<i64>,
    /// `capped`, `size`, `max`.
    pub capped: Option<Capped>,
    /// `clusteredIndex`.
    pub clustered_index: Option<ClusteredIndex>,
    /// `collation`: the collection's default collation (indexes inherit it).
    pub collation: Option<Collation>,
    /// `changeStreamPreAndPostImages.enabled`.
    pub change_stream_pre_and_post_images: Option<bool>,
    /// `viewOn` and `pipeline`: the collection is a view.
    pub view: Option<View>,
    /// Options the model does not know, kept verbatim (reported as unmanaged by `diff`).
    pub other: Document,
}

impl CollectionOptions {
    fn write_into(&self, d: &mut Document) {
        if let Some(view) = &self.view {
            view.write_into(d);
        }
        if let Some(ts) = &self.timeseries {
            d.insert("timeseries", ts.to_document());
        }
        if let Some(seconds) = self.expire_after_seconds {
            d.insert("expireAfterSeconds", Bson::Int64(seconds));
        }
        if let Some(capped) = &self.capped {
            d.insert("capped", true);
            d.insert("size", read::compact_integer(capped.size));
            if let Some(max) = capped.max {
                d.insert("max", read::compact_integer(max));
            }
        }
        if let Some(collation) = &self.collation {
            d.insert("collation", collation.to_document());
        }
        if let Some(clustered) = &self.clustered_index {
            d.insert("clusteredIndex", clustered.to_document());
        }
        if let Some(enabled) = self.change_stream_pre_and_post_images {
            d.insert(
                "changeStreamPreAndPostImages",
                bson::doc! { "enabled": enabled },
            );
        }
        for (k, v) in &self.other {
            d.insert(k.clone(), v.clone());
        }
    }
}

/// `timeseries` options.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct TimeseriesOptions {
    /// `timeField`: the date of each measurement.
    pub time_field: String,
    /// `metaField`: what identifies a series (a sensor id).
    pub meta_field: Option<String>,
    /// `granularity` (server default `seconds` unless custom bucketing is given).
    pub granularity: Option<Granularity>,
    /// `bucketMaxSpanSeconds` (filled by the server from the granularity).
    pub bucket_max_span_seconds: Option<i64>,
    /// `bucketRoundingSeconds` (custom bucketing, 6.3+).
    pub bucket_rounding_seconds: Option<i64>,
    /// Fields the model does not know, kept verbatim.
    pub other: Document,
}

impl TimeseriesOptions {
    /// Time-series options with only `timeField` set.
    pub fn new(time_field: impl Into<String>) -> TimeseriesOptions {
        TimeseriesOptions {
            time_field: time_field.into(),
            ..TimeseriesOptions::default()
        }
    }

    /// Sets `metaField`.
    pub fn meta_field(mut self, field: impl Into<String>) -> TimeseriesOptions {
        self.meta_field = Some(field.into());
        self
    }

    /// Sets `granularity`.
    pub fn granularity(mut self, granularity: Granularity) -> TimeseriesOptions {
        self.granularity = Some(granularity);
        self
    }

    /// Sets custom bucketing: `bucketMaxSpanSeconds` and `bucketRoundingSeconds` (6.3+).
    pub fn bucketing(mut self, max_span_seconds: i64, rounding_seconds: i64) -> TimeseriesOptions {
        self.bucket_max_span_seconds = Some(max_span_seconds);
        self.bucket_rounding_seconds = Some(rounding_seconds);
        self
    }

    /// The options as a document, in the order `timeField`, `metaField`, `granularity`,
    /// `bucketMaxSpanSeconds`, `bucketRoundingSeconds`.
    pub fn to_document(&self) -> Document {
        let mut d = Document::new();
        d.insert("timeField", self.time_field.clone());
        if let Some(meta) = &self.meta_field {
            d.insert("metaField", meta.clone());
        }
        if let Some(g) = &self.granularity {
            d.insert("granularity", g.as_str());
        }
        if let Some(s) = self.bucket_max_span_seconds {
            d.insert("bucketMaxSpanSeconds", read::compact_integer(s));
        }
        if let Some(s) = self.bucket_rounding_seconds {
            d.insert("bucketRoundingSeconds", read::compact_integer(s));
        }
        for (k, v) in &self.other {
            d.insert(k.clone(), v.clone());
        }
        d
    }

    /// Reads `timeseries` options.
    ///
    /// # Errors
    /// [`DocumentError`] when `timeField` is missing or a known field has the wrong type.
    pub fn from_document(doc: &Document) -> Result<TimeseriesOptions, DocumentError> {
        let mut ts = TimeseriesOptions::default();
        let mut has_time = false;
        for (key, value) in doc {
            match key.as_str() {
                "timeField" => {
                    ts.time_field = read::string(key, value)?;
                    has_time = true;
                }
                "metaField" => ts.meta_field = Some(read::string(key, value)?),
                "granularity" => {
                    ts.granularity = Some(Granularity::from_name(&read::string(key, value)?));
                }
                "bucketMaxSpanSeconds" => {
                    ts.bucket_max_span_seconds = Some(
                        read::whole_seconds(value)
                            .ok_or_else(|| DocumentError::expected(key, "whole seconds", value))?,
                    );
                }
                "bucketRoundingSeconds" => {
                    ts.bucket_rounding_seconds = Some(
                        read::whole_seconds(value)
                            .ok_or_else(|| DocumentError::expected(key, "whole seconds", value))?,
                    );
                }
                _ => {
                    ts.other.insert(key.clone(), value.clone());
                }
            }
        }
        if !has_time {
            return Err(DocumentError::missing("timeField"));
        }
        Ok(ts)
    }

    pub(crate) fn check(&self, ns: &str) -> Result<(), SpecError> {
        let err = |reason: &str| SpecError::InvalidCollection {
            collection: ns.to_owned(),
            reason: reason.to_owned(),
        };
        if self.time_field.is_empty() {
            return Err(err("'timeField' must be a non-empty field name"));
        }
        if self.meta_field.as_deref() == Some(self.time_field.as_str()) {
            return Err(err("'metaField' cannot be the same as 'timeField'"));
        }
        let custom =
            self.bucket_max_span_seconds.is_some() || self.bucket_rounding_seconds.is_some();
        if custom && self.granularity.is_some() {
            return Err(err(
                "Time-series 'bucketMaxSpanSeconds' and 'bucketRoundingSeconds' cannot be set with 'granularity'",
            ));
        }
        if custom && self.bucket_max_span_seconds != self.bucket_rounding_seconds {
            return Err(err(
                "Time-series 'bucketMaxSpanSeconds' and 'bucketRoundingSeconds' must be set together and equal",
            ));
        }
        Ok(())
    }
}

/// Time-series `granularity`. An open set, as the server may add values.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Granularity {
    /// `seconds` (the default).
    Seconds,
    /// `minutes`.
    Minutes,
    /// `hours`.
    Hours,
    /// Any other value, as read.
    Other(String),
}

impl Granularity {
    /// The value as the server spells it.
    pub fn as_str(&self) -> &str {
        match self {
            Granularity::Seconds => "seconds",
            Granularity::Minutes => "minutes",
            Granularity::Hours => "hours",
            Granularity::Other(s) => s,
        }
    }

    /// Reads a value; unknown ones become [`Granularity::Other`].
    pub fn from_name(name: &str) -> Granularity {
        match name {
            "seconds" => Granularity::Seconds,
            "minutes" => Granularity::Minutes,
            "hours" => Granularity::Hours,
            other => Granularity::Other(other.to_owned()),
        }
    }

    /// The `bucketMaxSpanSeconds` the server fills in for this granularity (3600, 86400,
    /// 2592000), `None` for unknown values.
    pub fn default_bucket_max_span_seconds(&self) -> Option<i64> {
        match self {
            Granularity::Seconds => Some(3_600),
            Granularity::Minutes => Some(86_400),
            Granularity::Hours => Some(2_592_000),
            Granularity::Other(_) => None,
        }
    }

    /// The bucket rounding the granularity implies (60, 3600, 86400), `None` for unknown values.
    pub fn default_bucket_rounding_seconds(&self) -> Option<i64> {
        match self {
            Granularity::Seconds => Some(60),
            Granularity::Minutes => Some(3_600),
            Granularity::Hours => Some(86_400),
            Granularity::Other(_) => None,
        }
    }

    /// The order granularity may only increase in place: seconds < minutes < hours.
    pub fn rank(&self) -> Option<u8> {
        match self {
            Granularity::Seconds => Some(0),
            Granularity::Minutes => Some(1),
            Granularity::Hours => Some(2),
            Granularity::Other(_) => None,
        }
    }
}

/// A capped collection's limits.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Capped {
    /// `size` in bytes.
    pub size: i64,
    /// `max` documents; `None` for no limit.
    pub max: Option<i64>,
}

impl Capped {
    /// A capped collection of `size` bytes.
    pub fn size(size: i64) -> Capped {
        Capped { size, max: None }
    }

    /// Also limits the number of documents.
    pub fn max(mut self, max: i64) -> Capped {
        self.max = Some(max);
        self
    }
}

/// `clusteredIndex`: documents stored in `_id` order (5.3+). The key is always `{_id: 1}`,
/// unique.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct ClusteredIndex {
    /// `name` (the server's default is `_id_`).
    pub name: Option<String>,
    /// Whether the server listed `clusteredIndex: true` (an implicitly clustered collection, as
    /// time-series buckets are) rather than a document.
    pub implicit: bool,
    /// Fields the model does not know, kept verbatim (`v` is dropped by `normalize`).
    pub other: Document,
}

impl ClusteredIndex {
    /// The clustered index on `_id`.
    pub fn new() -> ClusteredIndex {
        ClusteredIndex::default()
    }

    /// `{key: {_id: 1}, unique: true, name?}` (or `true` when implicit).
    pub fn to_bson(&self) -> Bson {
        if self.implicit {
            return Bson::Boolean(true);
        }
        Bson::Document(self.to_document())
    }

    /// `{key: {_id: 1}, unique: true, name?}`.
    pub fn to_document(&self) -> Document {
        let mut d = bson::doc! { "key": { "_id": 1 }, "unique": true };
        if let Some(name) = &self.name {
            d.insert("name", name.clone());
        }
        for (k, v) in &self.other {
            d.insert(k.clone(), v.clone());
        }
        d
    }

    /// Reads `clusteredIndex`: `true` or `{key, unique, name, v}`.
    ///
    /// # Errors
    /// [`DocumentError`] when the value is neither, or its key is not `{_id: 1}`.
    pub fn from_bson(value: &Bson) -> Result<ClusteredIndex, DocumentError> {
        let doc = match value {
            Bson::Boolean(true) => {
                return Ok(ClusteredIndex {
                    implicit: true,
                    ..ClusteredIndex::default()
                });
            }
            Bson::Document(d) => d,
            other => return Err(DocumentError::expected("", "true or a document", other)),
        };
        let mut clustered = ClusteredIndex::default();
        for (key, value) in doc {
            match key.as_str() {
                "key" => {
                    let keys = IndexKeys::from_document(read::document(key, value)?);
                    if !keys.is_id() {
                        return Err(DocumentError::expected(key, "{_id: 1}", value));
                    }
                }
                "unique" => {
                    if !read::truthy(key, value)? {
                        return Err(DocumentError::expected(key, "true", value));
                    }
                }
                "name" => clustered.name = Some(read::string(key, value)?),
                _ => {
                    clustered.other.insert(key.clone(), value.clone());
                }
            }
        }
        Ok(clustered)
    }
}

/// A shard key: ranged or hashed fields, optionally unique.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct ShardKey {
    /// The key pattern (`{user_id: "hashed"}`, `{region: 1, created_at: 1}`).
    pub keys: IndexKeys,
    /// `unique`: the cluster enforces uniqueness on the key (ranged keys only).
    pub unique: bool,
}

impl ShardKey {
    /// A ranged shard key on these fields, ascending.
    pub fn ranged<P: Into<String>>(fields: impl IntoIterator<Item = P>) -> ShardKey {
        ShardKey {
            keys: IndexKeys::new(fields.into_iter().map(|f| (f, IndexKind::Ascending))),
            unique: false,
        }
    }

    /// A hashed shard key on one field.
    pub fn hashed(field: impl Into<String>) -> ShardKey {
        ShardKey {
            keys: IndexKeys::new([(field.into(), IndexKind::Hashed)]),
            unique: false,
        }
    }

    /// Sets `unique`.
    pub fn unique(mut self, unique: bool) -> ShardKey {
        self.unique = unique;
        self
    }

    /// The manifest form: `{key: {...}, unique: true}` (`unique` only when set).
    pub fn to_document(&self) -> Document {
        let mut d = bson::doc! { "key": self.keys.to_document() };
        if self.unique {
            d.insert("unique", true);
        }
        d
    }

    /// Reads the manifest form.
    ///
    /// # Errors
    /// [`DocumentError`] when `key` is missing or a field has the wrong type.
    pub fn from_document(doc: &Document) -> Result<ShardKey, DocumentError> {
        let keys = match doc.get("key") {
            Some(v) => IndexKeys::from_document(read::document("key", v)?),
            None => return Err(DocumentError::missing("key")),
        };
        let unique = match doc.get("unique") {
            Some(v) => read::truthy("unique", v)?,
            None => false,
        };
        Ok(ShardKey { keys, unique })
    }

    pub(crate) fn check(&self, ns: &str) -> Result<(), SpecError> {
        let err = |reason: &str| SpecError::InvalidShardKey {
            collection: ns.to_owned(),
            reason: reason.to_owned(),
        };
        if self.keys.is_empty() {
            return Err(err("Shard key cannot be empty"));
        }
        if self.unique && self.keys.has_kind(&IndexKind::Hashed) {
            return Err(err("hashed shard keys cannot be declared unique"));
        }
        for (path, kind) in self.keys.iter() {
            if !matches!(kind, IndexKind::Ascending | IndexKind::Hashed) {
                return Err(err(&format!(
                    "shard key field {path:?} must be 1 or \"hashed\""
                )));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::BsonType;
    use crate::spec::IndexKind::*;

    // SERVER-FACTS and the server's src/mongo/db/matcher/schema/json_schema_parser.cpp: `format`
    // and `$ref` are "not currently supported", `const` is an unknown keyword, `type: "integer"`
    // is not a JSON type the server knows; each fails `create` with FailedToParse (9).
    #[test]
    fn a_validator_the_servers_parser_rejects_names_the_keyword_and_collection() {
        for (schema, path, words) in [
            (
                bson::doc! { "properties": { "a": { "format": "email" } } },
                "properties.a.format",
                "not currently supported",
            ),
            (
                bson::doc! { "properties": { "a": { "$ref": "#/x" } } },
                "properties.a.$ref",
                "not currently supported",
            ),
            (
                bson::doc! { "properties": { "a": { "const": 1 } } },
                "properties.a.const",
                "Unknown $jsonSchema keyword",
            ),
            (
                bson::doc! { "properties": { "a": { "type": "integer" } } },
                "properties.a.type",
                "integer",
            ),
        ] {
            let spec = CollectionSpec::new("orders").validator(ValidatorSpec::from_document(
                &bson::doc! { "$jsonSchema": schema },
            ));
            let err = spec.check().unwrap_err();
            let text = err.to_string();
            assert!(matches!(err, SpecError::InvalidValidator { .. }), "{text}");
            assert!(
                text.starts_with("orders: validator: $jsonSchema."),
                "{text}"
            );
            assert!(text.contains(path) && text.contains(words), "{text}");
        }
        let fine = CollectionSpec::new("orders").validator(ValidatorSpec::from_document(
            &bson::doc! { "$jsonSchema": { "properties": { "a": { "bsonType": "int" } } } },
        ));
        assert!(fine.check().is_ok());
    }
    use bson::doc;

    fn users() -> CollectionSpec {
        CollectionSpec::new("users")
            .json_schema(JsonSchema::bson_type(BsonType::Object))
            .validation_level(ValidationLevel::Moderate)
            .validation_action(ValidationAction::ErrorAndLog)
            .collation(Collation::new("fr").strength(2))
            .change_stream_pre_and_post_images(true)
            .option("storageEngine", doc! { "wiredTiger": {} })
            .index(
                IndexSpec::new([("email", Ascending)])
                    .unique(true)
                    .partial_filter_expression(doc! { "deleted_at": { "$exists": false } }),
            )
            .shard_key(ShardKey::hashed("user_id"))
    }

    #[test]
    fn options_render_in_a_fixed_order_with_wire_names() {
        let keys: Vec<String> = users().to_options_document().keys().cloned().collect();
        assert_eq!(
            keys,
            [
                "validator",
                "validationLevel",
                "validationAction",
                "collation",
                "changeStreamPreAndPostImages",
                "storageEngine"
            ]
        );
    }

    #[test]
    fn manifest_entry_round_trips() {
        let spec = users();
        let doc = spec.to_manifest_document();
        let read = CollectionSpec::from_manifest_document(&doc).unwrap();
        // The validator comes back as a document; everything else is the same model.
        assert_eq!(read.to_manifest_document(), doc);
        assert_eq!(read.indexes, vec![spec.indexes[0].clone().name("email_1")]);
        assert_eq!(read.options, spec.options);
        assert_eq!(read.shard_key, spec.shard_key);
    }

    #[test]
    fn bad_manifest_entry_names_the_path() {
        let doc = doc! {
            "name": "users",
            "indexes": [ { "key": { "a": 1 } }, { "key": { "b": 1 }, "weights": { "b": "x" } } ],
        };
        let err = CollectionSpec::from_manifest_document(&doc).unwrap_err();
        assert_eq!(err.path, "indexes[1].weights.b");
    }

    #[test]
    fn validation_level_and_action_are_open_sets() {
        // errorAndLog arrived in 8.1 and `constraint` in 9.0 (SERVER-FACTS).
        assert_eq!(
            ValidationAction::from_name("errorAndLog"),
            ValidationAction::ErrorAndLog
        );
        assert_eq!(
            ValidationLevel::from_name("constraint"),
            ValidationLevel::Other("constraint".into())
        );
        assert_eq!(
            ValidationLevel::Other("constraint".into()).as_str(),
            "constraint"
        );
    }

    // Manual, "Time Series Collections" limitations: validators are refused (InvalidOptions 72).
    #[test]
    fn validator_on_timeseries_is_refused() {
        let spec = CollectionSpec::new("sensor_readings")
            .timeseries(TimeseriesOptions::new("timestamp").meta_field("sensor_id"))
            .json_schema(JsonSchema::any());
        assert_eq!(
            spec.check(),
            Err(SpecError::ValidatorOnTimeseries {
                collection: "sensor_readings".into()
            })
        );
    }

    // SERVER-FACTS: `$text`, `$where`, `$near`, `$nearSphere`, `$geoNear` are rejected inside a
    // validator.
    #[test]
    fn query_operators_the_server_refuses_in_validators_are_refused() {
        let spec = CollectionSpec::new("c").validator(ValidatorSpec::query(
            doc! { "$or": [{ "a": 1 }, { "$where": "this.a > 1" }] },
        ));
        let err = spec.check().unwrap_err();
        assert!(err.to_string().contains("$where is not allowed"), "{err}");
        let fine =
            CollectionSpec::new("c").validator(ValidatorSpec::query(doc! { "a": { "$gt": 1 } }));
        assert!(fine.check().is_ok());
    }

    #[test]
    fn collations_are_checked() {
        let bad = CollectionSpec::new("c").collation(Collation::new("fr").strength(7));
        assert!(bad.check().is_err());
        let ok = CollectionSpec::new("c").collation(Collation::new("fr").strength(5));
        assert!(ok.check().is_ok());
    }

    #[test]
    fn two_text_indexes_are_refused() {
        let spec = CollectionSpec::new("articles")
            .index(IndexSpec::new([("title", Text)]))
            .index(IndexSpec::new([("content", Text)]));
        assert!(matches!(
            spec.check(),
            Err(SpecError::MultipleTextIndexes { .. })
        ));
    }

    // SERVER-FACTS: same keys with a different name or TTL fail with IndexOptionsConflict (85).
    #[test]
    fn one_identity_under_two_names_is_refused() {
        let spec = CollectionSpec::new("c")
            .index(IndexSpec::new([("a", Ascending)]).name("x"))
            .index(
                IndexSpec::new([("a", Ascending)])
                    .name("y")
                    .expire_after_seconds(5),
            );
        assert!(matches!(
            spec.check(),
            Err(SpecError::DuplicateIndex { .. })
        ));
        let other_filter = CollectionSpec::new("c")
            .index(IndexSpec::new([("a", Ascending)]).name("x"))
            .index(
                IndexSpec::new([("a", Ascending)])
                    .name("y")
                    .partial_filter_expression(doc! { "a": { "$gt": 1 } }),
            );
        assert!(other_filter.check().is_ok());
    }

    #[test]
    fn more_than_64_indexes_with_id_are_refused() {
        let mut spec = CollectionSpec::new("wide");
        for i in 0..63 {
            spec = spec.index(IndexSpec::new([(format!("f{i}"), Ascending)]));
        }
        assert!(spec.check().is_ok(), "63 + _id_ = 64 is the limit");
        spec = spec.index(IndexSpec::new([("g", Ascending)]));
        assert!(matches!(
            spec.check(),
            Err(SpecError::TooManyIndexes { count: 65, .. })
        ));
    }

    #[test]
    fn ttl_collection_needs_timeseries_or_clustering() {
        let plain = CollectionSpec::new("c").expire_after_seconds(60);
        assert!(plain.check().is_err());
        let ts = CollectionSpec::new("c")
            .timeseries(TimeseriesOptions::new("t").granularity(Granularity::Minutes))
            .expire_after_seconds(7_776_000);
        assert!(ts.check().is_ok());
    }

    #[test]
    fn size_without_capped_stays_visible_as_other() {
        let spec = CollectionSpec::from_options_document("c", &doc! { "size": 4096 }).unwrap();
        assert_eq!(spec.options.capped, None);
        assert_eq!(spec.options.other, doc! { "size": 4096 });
        let capped = CollectionSpec::from_options_document(
            "c",
            &doc! { "capped": true, "size": 4096.0, "max": 10 },
        )
        .unwrap();
        assert_eq!(capped.options.capped, Some(Capped::size(4096).max(10)));
    }

    #[test]
    fn hashed_unique_shard_key_is_refused() {
        let spec =
            CollectionSpec::new("events").shard_key(ShardKey::hashed("user_id").unique(true));
        assert!(matches!(
            spec.check(),
            Err(SpecError::InvalidShardKey { .. })
        ));
    }

    #[test]
    fn a_views_document_schema_reads_back_and_a_refused_one_is_an_error_at_its_path() {
        let schema = JsonSchema::from_document(&bson::doc! { "required": ["name"] }).unwrap();
        let spec = CollectionSpec::new("names")
            .view(View::new("users", vec![]))
            .document_schema(schema);
        let entry = spec.to_manifest_document();
        assert_eq!(
            CollectionSpec::from_manifest_document(&entry).unwrap(),
            spec
        );
        let mut bad = entry;
        bad.insert("documentSchema", bson::doc! { "format": "email" });
        let error = CollectionSpec::from_manifest_document(&bad).unwrap_err();
        assert_eq!(error.path, "documentSchema", "{error}");
    }
}
