//! `CollectionSpec`: a collection's validator, validation level and action, options, indexes and
//! shard key. Declarations (the derive, or a manifest) build it; `normalize` turns server replies
//! into it; `diff` compares a declared one with a live one.

use std::fmt;

use bson::{Bson, Document};

use crate::generate::MongoSchema;
use crate::index::{IndexKeys, IndexKind, IndexSpec, MAX_INDEXES};
use crate::schema::JsonSchema;

/// A Rust type that is the root of a collection: its schema plus the collection's settings.
///
/// `#[derive(MongoSchema)]` with `#[mongo(collection = "...")]` implements it; a hand-written
/// implementation looks like this:
///
/// ```
/// use mongo_schema::collection::{Collection, CollectionSpec};
/// use mongo_schema::index::{IndexKind::*, IndexSpec};
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
/// use mongo_schema::collection::{CollectionSpec, ValidationAction};
/// use mongo_schema::index::{IndexKind::*, IndexSpec};
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
    pub validator: Option<Validator>,
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
    /// Stored array paths declared unbounded on purpose (`#[mongo(unbounded)]`): the
    /// unbounded-array lint stays silent on them. Not a server option: never in a plan, and
    /// not part of the manifest.
    pub acknowledged_unbounded: Vec<String>,
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
    pub fn validator(mut self, validator: Validator) -> CollectionSpec {
        self.validator = Some(validator);
        self
    }

    /// Sets the validator to `{$jsonSchema: schema}`.
    pub fn json_schema(self, schema: JsonSchema) -> CollectionSpec {
        self.validator(Validator::json_schema(schema))
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

    /// Sets the shard key.
    pub fn shard_key(mut self, key: ShardKey) -> CollectionSpec {
        self.shard_key = Some(key);
        self
    }

    /// The `create` options, without `create` itself, in a fixed order: `validator`,
    /// `validationLevel`, `validationAction`, `timeseries`, `expireAfterSeconds`, `capped`,
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

    /// The collection as a manifest entry: `{name, options, indexes, shardKey}` (`shardKey` only
    /// when set; `indexes` never lists `_id_`).
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
        for key in doc.keys() {
            if !matches!(key.as_str(), "name" | "options" | "indexes" | "shardKey") {
                return Err(DocumentError {
                    path: key.clone(),
                    message: "unknown field; expected name, options, indexes or shardKey".into(),
                });
            }
        }
        Ok(spec)
    }

    /// Reads `create` options (a manifest's `options`, or `listCollections`' `options`), keeping
    /// what the model does not know in [`CollectionOptions::other`]. The validator's
    /// `$jsonSchema` is kept as read (see [`Validator::from_document`]).
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
                    spec.validator = Some(Validator::from_document(read::document(key, value)?));
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

    /// Checks the combinations the server refuses, with the server's reason: every index
    /// ([`IndexSpec::check`]), two text indexes, more than 64 indexes (`_id_` counted), two
    /// indexes with the same name, a validator on a time-series collection, and more.
    ///
    /// # Errors
    /// The first [`SpecError`] found.
    pub fn check(&self) -> Result<(), SpecError> {
        let ns = self.name.clone();
        if self.name.is_empty() || self.name.contains('\0') || self.name.starts_with('$') {
            return Err(SpecError::InvalidCollection {
                ns,
                reason: "collection names must be non-empty, without '$' first or a null byte"
                    .into(),
            });
        }
        if self.options.timeseries.is_some() && self.validator.is_some() {
            return Err(SpecError::ValidatorOnTimeseries { ns });
        }
        if self.validator.is_some() && self.name.starts_with("system.") {
            return Err(SpecError::InvalidCollection {
                ns,
                reason: "Document validators not allowed on system collection".into(),
            });
        }
        // The server parses a validator as a query, and its `$jsonSchema` with the schema parser
        // (src/mongo/db/matcher/schema/json_schema_parser.cpp): `format`, `$ref`, `const` or
        // `type: "integer"` fail `create` and `collMod` with FailedToParse, so a declaration
        // using them can never be in sync with anything.
        if let Some(validator) = &self.validator
            && let Some(Bson::Document(schema)) = validator.to_document().get("$jsonSchema")
            && let Err(source) = crate::schema::JsonSchema::from_document(schema)
        {
            return Err(SpecError::InvalidValidator { ns, source });
        }
        if let Some(validator) = &self.validator
            && let Some(op) = forbidden_validator_operator(&validator.to_document())
        {
            return Err(SpecError::InvalidCollection {
                ns,
                reason: format!("{op} is not allowed inside of a document validator"),
            });
        }
        for collation in self
            .options
            .collation
            .iter()
            .chain(self.indexes.iter().filter_map(|i| i.collation.as_ref()))
        {
            collation.check(&ns)?;
        }
        if self.options.timeseries.is_some() && self.options.capped.is_some() {
            return Err(SpecError::InvalidCollection {
                ns,
                reason: "Time-series collections cannot be capped".into(),
            });
        }
        if self.options.clustered_index.is_some() && self.options.capped.is_some() {
            return Err(SpecError::InvalidCollection {
                ns,
                reason: "Clustered collections cannot be capped".into(),
            });
        }
        if self.options.expire_after_seconds.is_some()
            && self.options.timeseries.is_none()
            && self.options.clustered_index.is_none()
        {
            return Err(SpecError::InvalidCollection {
                ns,
                reason: "'expireAfterSeconds' is only supported on time-series and clustered collections"
                    .into(),
            });
        }
        if let Some(ts) = &self.options.timeseries {
            ts.check(&ns)?;
        }
        if let Some(capped) = &self.options.capped
            && capped.size <= 0
        {
            return Err(SpecError::InvalidCollection {
                ns,
                reason: "a capped collection needs a positive 'size'".into(),
            });
        }
        let count = self.indexes.iter().filter(|i| !i.is_id()).count();
        if count + 1 > MAX_INDEXES {
            return Err(SpecError::TooManyIndexes {
                ns,
                count: count + 1,
            });
        }
        let mut text: Option<String> = None;
        let mut names: Vec<String> = Vec::new();
        for index in &self.indexes {
            index.check(&ns)?;
            let name = index.effective_name();
            if names.contains(&name) {
                return Err(SpecError::DuplicateIndexName { ns, index: name });
            }
            if index.keys.is_text() {
                if let Some(first) = text {
                    return Err(SpecError::MultipleTextIndexes {
                        ns,
                        first,
                        second: name,
                    });
                }
                text = Some(name.clone());
            }
            names.push(name);
        }
        let canonical = crate::normalize::declared(self);
        for (i, a) in canonical.indexes.iter().enumerate() {
            if let Some(b) = canonical.indexes[i + 1..]
                .iter()
                .find(|b| crate::diff::same_identity(a, b))
            {
                return Err(SpecError::DuplicateIndex {
                    ns,
                    first: a.effective_name(),
                    second: b.effective_name(),
                });
            }
        }
        if let Some(key) = &self.shard_key {
            key.check(&ns)?;
        }
        Ok(())
    }
}

/// The first query operator the server refuses inside a validator (`$text`, `$where`, `$near`,
/// `$nearSphere`, `$geoNear`), searched outside `$jsonSchema`.
fn forbidden_validator_operator(doc: &Document) -> Option<String> {
    const FORBIDDEN: [&str; 5] = ["$text", "$where", "$near", "$nearSphere", "$geoNear"];
    fn walk(value: &Bson) -> Option<String> {
        match value {
            Bson::Document(d) => d.iter().find_map(|(k, v)| {
                if FORBIDDEN.contains(&k.as_str()) {
                    Some(k.clone())
                } else if k == "$jsonSchema" {
                    None
                } else {
                    walk(v)
                }
            }),
            Bson::Array(items) => items.iter().find_map(walk),
            _ => None,
        }
    }
    walk(&Bson::Document(doc.clone()))
}

/// A collection validator: `$jsonSchema` as IR, plus any other query operators.
///
/// A validator that the IR cannot hold (a `$jsonSchema` nested in `$and`, or one the parser
/// refuses) keeps its whole text in [`Validator::query`]; comparison works on documents either way.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Validator {
    /// The top-level `$jsonSchema`, parsed.
    pub json_schema: Option<JsonSchema>,
    /// Every other top-level field of the validator, verbatim (`{"status": {"$in": [...]}}`).
    pub query: Document,
}

impl Validator {
    /// The validator `{$jsonSchema: schema}`.
    pub fn json_schema(schema: JsonSchema) -> Validator {
        Validator {
            json_schema: Some(schema),
            query: Document::new(),
        }
    }

    /// A validator made of query operators only.
    pub fn query(query: Document) -> Validator {
        Validator {
            json_schema: None,
            query,
        }
    }

    /// The validator as the `validator` option: `$jsonSchema` first, then the query fields.
    pub fn to_document(&self) -> Document {
        let mut d = Document::new();
        if let Some(schema) = &self.json_schema {
            d.insert("$jsonSchema", schema.to_document());
        }
        for (k, v) in &self.query {
            d.insert(k.clone(), v.clone());
        }
        d
    }

    /// Reads a `validator` document. The `$jsonSchema` stays in [`Validator::query`] as read, so
    /// nothing is lost whatever the writer put there; `diff` compares validators as documents
    /// with the server's equivalences.
    pub fn from_document(doc: &Document) -> Validator {
        Validator::query(doc.clone())
    }

    /// Parses the validator with the server's rules: the `$jsonSchema` as IR (for the evaluator
    /// and lints) and the query operators beside it.
    ///
    /// ```
    /// use mongo_schema::collection::Validator;
    /// let v = Validator::from_document(&bson::doc! { "$jsonSchema": { "required": ["a"] } });
    /// let parsed = v.parse()?;
    /// assert_eq!(parsed.schema.unwrap().required, Some(vec!["a".to_owned()]));
    /// # Ok::<(), mongo_schema::schema::parse::ParseError>(())
    /// ```
    ///
    /// # Errors
    /// The first [`ParseError`](crate::schema::parse::ParseError), as the server reports it.
    pub fn parse(
        &self,
    ) -> Result<crate::schema::parse::ParsedValidator, crate::schema::parse::ParseError> {
        crate::schema::parse::ParsedValidator::from_document(&self.to_document())
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
    /// Options the model does not know, kept verbatim (reported as unmanaged by `diff`).
    pub other: Document,
}

impl CollectionOptions {
    fn write_into(&self, d: &mut Document) {
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

    fn check(&self, ns: &str) -> Result<(), SpecError> {
        let err = |reason: &str| SpecError::InvalidCollection {
            ns: ns.to_owned(),
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

/// A collation: how strings compare and sort.
///
/// The server lists any collation other than `simple` expanded to every ICU field plus a
/// server-only `version`; `normalize` and `diff` compare only the fields a declaration gives.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Collation {
    /// `locale` (`"simple"` means binary comparison: no collation).
    pub locale: String,
    /// `caseLevel`.
    pub case_level: Option<bool>,
    /// `caseFirst`: `upper`, `lower` or `off`.
    pub case_first: Option<String>,
    /// `strength`: 1 to 5.
    pub strength: Option<i32>,
    /// `numericOrdering`.
    pub numeric_ordering: Option<bool>,
    /// `alternate`: `non-ignorable` or `shifted`.
    pub alternate: Option<String>,
    /// `maxVariable`: `punct` or `space`.
    pub max_variable: Option<String>,
    /// `normalization`.
    pub normalization: Option<bool>,
    /// `backwards` (French secondary ordering).
    pub backwards: Option<bool>,
    /// `version`: the ICU version the server used. Never compared.
    pub version: Option<String>,
    /// Fields the model does not know, kept verbatim.
    pub other: Document,
}

impl Collation {
    /// A collation with only `locale` set.
    pub fn new(locale: impl Into<String>) -> Collation {
        Collation {
            locale: locale.into(),
            ..Collation::default()
        }
    }

    /// Sets `strength`.
    pub fn strength(mut self, strength: i32) -> Collation {
        self.strength = Some(strength);
        self
    }

    /// Sets `caseLevel`.
    pub fn case_level(mut self, on: bool) -> Collation {
        self.case_level = Some(on);
        self
    }

    /// Sets `numericOrdering`.
    pub fn numeric_ordering(mut self, on: bool) -> Collation {
        self.numeric_ordering = Some(on);
        self
    }

    /// Checks what the server refuses in a collation: an empty locale, a strength outside 1..=5,
    /// an unknown `caseFirst`, `alternate` or `maxVariable`.
    ///
    /// # Errors
    /// [`SpecError::InvalidCollection`] with the reason.
    pub fn check(&self, ns: &str) -> Result<(), SpecError> {
        let err = |reason: String| SpecError::InvalidCollection {
            ns: ns.to_owned(),
            reason,
        };
        if self.locale.is_empty() {
            return Err(err("collation locale must be non-empty".into()));
        }
        if let Some(s) = self.strength
            && !(1..=5).contains(&s)
        {
            return Err(err(format!("collation strength must be 1 to 5, not {s}")));
        }
        let one_of = |field: &str, value: &Option<String>, allowed: &[&str]| match value {
            Some(v) if !allowed.contains(&v.as_str()) => Err(err(format!(
                "collation {field} must be one of {allowed:?}, not {v:?}"
            ))),
            _ => Ok(()),
        };
        one_of("caseFirst", &self.case_first, &["upper", "lower", "off"])?;
        one_of("alternate", &self.alternate, &["non-ignorable", "shifted"])?;
        one_of("maxVariable", &self.max_variable, &["punct", "space"])?;
        Ok(())
    }

    /// Whether this is the `simple` collation, which the server never lists.
    pub fn is_simple(&self) -> bool {
        self.locale == "simple"
    }

    /// The collation as a document, `locale` first, then the ICU fields that are set.
    pub fn to_document(&self) -> Document {
        let mut d = Document::new();
        d.insert("locale", self.locale.clone());
        if let Some(v) = self.case_level {
            d.insert("caseLevel", v);
        }
        if let Some(v) = &self.case_first {
            d.insert("caseFirst", v.clone());
        }
        if let Some(v) = self.strength {
            d.insert("strength", v);
        }
        if let Some(v) = self.numeric_ordering {
            d.insert("numericOrdering", v);
        }
        if let Some(v) = &self.alternate {
            d.insert("alternate", v.clone());
        }
        if let Some(v) = &self.max_variable {
            d.insert("maxVariable", v.clone());
        }
        if let Some(v) = self.normalization {
            d.insert("normalization", v);
        }
        if let Some(v) = self.backwards {
            d.insert("backwards", v);
        }
        if let Some(v) = &self.version {
            d.insert("version", v.clone());
        }
        for (k, v) in &self.other {
            d.insert(k.clone(), v.clone());
        }
        d
    }

    /// Reads a collation document.
    ///
    /// # Errors
    /// [`DocumentError`] when `locale` is missing or a known field has the wrong type.
    pub fn from_document(doc: &Document) -> Result<Collation, DocumentError> {
        let mut c = Collation::default();
        let mut has_locale = false;
        for (key, value) in doc {
            match key.as_str() {
                "locale" => {
                    c.locale = read::string(key, value)?;
                    has_locale = true;
                }
                "caseLevel" => c.case_level = Some(read::truthy(key, value)?),
                "caseFirst" => c.case_first = Some(read::string(key, value)?),
                "strength" => {
                    let n = read::number(value)
                        .ok_or_else(|| DocumentError::expected(key, "a number", value))?;
                    c.strength = Some(n as i32);
                }
                "numericOrdering" => c.numeric_ordering = Some(read::truthy(key, value)?),
                "alternate" => c.alternate = Some(read::string(key, value)?),
                "maxVariable" => c.max_variable = Some(read::string(key, value)?),
                "normalization" => c.normalization = Some(read::truthy(key, value)?),
                "backwards" => c.backwards = Some(read::truthy(key, value)?),
                "version" => c.version = Some(read::string(key, value)?),
                _ => {
                    c.other.insert(key.clone(), value.clone());
                }
            }
        }
        if !has_locale {
            return Err(DocumentError::missing("locale"));
        }
        Ok(c)
    }
}

/// A shard key: ranged or hashed fields, optionally unique.
#[derive(Clone, Debug, Default, PartialEq)]
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

    fn check(&self, ns: &str) -> Result<(), SpecError> {
        let err = |reason: &str| SpecError::InvalidShardKey {
            ns: ns.to_owned(),
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

/// A declaration the server would refuse, with the server's reason.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SpecError {
    /// `expireAfterSeconds` on an index with more than one field.
    #[error(
        "{ns}: index {index:?}: TTL indexes are single-field indexes, compound indexes do not support TTL"
    )]
    TtlOnCompoundIndex {
        /// The collection.
        ns: String,
        /// The index name.
        index: String,
    },
    /// `unique` on a hashed index.
    #[error(
        "{ns}: index {index:?}: Currently hashed indexes cannot guarantee uniqueness. Use a regular index."
    )]
    UniqueHashed {
        /// The collection.
        ns: String,
        /// The index name.
        index: String,
    },
    /// Two text indexes in one collection.
    #[error(
        "{ns}: only one text index per collection allowed, found existing text index {first:?} when adding {second:?}"
    )]
    MultipleTextIndexes {
        /// The collection.
        ns: String,
        /// The first text index.
        first: String,
        /// The second text index.
        second: String,
    },
    /// More than 64 indexes, `_id_` included.
    #[error("{ns}: add index fails, too many indexes: {count} (at most 64, _id_ included)")]
    TooManyIndexes {
        /// The collection.
        ns: String,
        /// How many indexes were declared, `_id_` included.
        count: usize,
    },
    /// More than 32 fields in one key pattern.
    #[error("{ns}: index {index:?}: Index key pattern has {count} fields; the maximum is 32")]
    TooManyKeyFields {
        /// The collection.
        ns: String,
        /// The index name.
        index: String,
        /// How many fields the key pattern has.
        count: usize,
    },
    /// Two collection roots declare one collection.
    #[error("{ns}: declared by two types")]
    DuplicateCollection {
        /// The collection.
        ns: String,
    },
    /// Two indexes with one identity (key pattern, collation, partial filter, unique, sparse,
    /// wildcard projection): the server keeps one (IndexOptionsConflict, code 85).
    #[error("{ns}: indexes {first:?} and {second:?} have the same key pattern and options")]
    DuplicateIndex {
        /// The collection.
        ns: String,
        /// The first index.
        first: String,
        /// The second index.
        second: String,
    },
    /// Two indexes with one name.
    #[error("{ns}: index {index:?} is declared twice")]
    DuplicateIndexName {
        /// The collection.
        ns: String,
        /// The repeated name.
        index: String,
    },
    /// A validator on a time-series collection (server: InvalidOptions, code 72).
    #[error("{ns}: Validators are not allowed on time-series collections")]
    ValidatorOnTimeseries {
        /// The collection.
        ns: String,
    },
    /// Another index option combination the server refuses.
    #[error("{ns}: index {index:?}: {reason}")]
    InvalidIndex {
        /// The collection.
        ns: String,
        /// The index name.
        index: String,
        /// The server's reason.
        reason: String,
    },
    /// Another collection option combination the server refuses.
    #[error("{ns}: {reason}")]
    InvalidCollection {
        /// The collection.
        ns: String,
        /// The server's reason.
        reason: String,
    },
    /// A `$jsonSchema` the server's parser rejects (`format`, `$ref`, `const`, `type: "integer"`,
    /// a misspelt keyword, ...): `create` and `collMod` would fail with this code.
    #[error(
        "{ns}: validator: $jsonSchema.{}: {} (the server refuses it with code {})",
        source.path(),
        source.reason(),
        source.code()
    )]
    InvalidValidator {
        /// The collection.
        ns: String,
        /// What the server's parser rejects, with the keyword's path.
        source: crate::schema::parse::ParseError,
    },
    /// A declared path names no field of the type it reaches.
    #[error("{ns}: {source}")]
    Path {
        /// The collection.
        ns: String,
        /// Which type, which path, and the nearest names.
        source: crate::generate::PathError,
    },
    /// A shard key the server refuses.
    #[error("{ns}: shard key: {reason}")]
    InvalidShardKey {
        /// The collection.
        ns: String,
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

/// Readers for option values, lenient exactly where the server is.
pub(crate) mod read {
    use bson::{Bson, Document};

    use super::DocumentError;

    /// Any numeric BSON value as f64 (Decimal128 through its decimal string).
    pub fn number(value: &Bson) -> Option<f64> {
        match value {
            Bson::Int32(v) => Some(f64::from(*v)),
            Bson::Int64(v) => Some(*v as f64),
            Bson::Double(v) => Some(*v),
            Bson::Decimal128(d) => d.to_string().parse::<f64>().ok(),
            _ => None,
        }
    }

    /// A TTL in seconds by value, a fraction truncated as the server does since 7.3 (older
    /// servers stored `10000.7` as written: SERVER-92366); `None` for NaN, infinity or a
    /// non-number.
    pub fn ttl_seconds(value: &Bson) -> Option<i64> {
        match value {
            Bson::Int32(v) => Some(i64::from(*v)),
            Bson::Int64(v) => Some(*v),
            other => {
                let n = number(other)?;
                (n.is_finite() && n.abs() < 9.2e18).then_some(n.trunc() as i64)
            }
        }
    }

    /// A whole number of seconds by value (`3600`, `3600.0`, `NumberLong(3600)`); `None` for a
    /// fraction, NaN, infinity or a non-number.
    pub fn whole_seconds(value: &Bson) -> Option<i64> {
        match value {
            Bson::Int32(v) => Some(i64::from(*v)),
            Bson::Int64(v) => Some(*v),
            other => {
                let n = number(other)?;
                (n.is_finite() && n.fract() == 0.0 && n.abs() < 9.2e18).then_some(n as i64)
            }
        }
    }

    /// An integer written as Int32 when it fits (as mongosh writes it), else Int64.
    pub fn compact_integer(value: i64) -> Bson {
        match i32::try_from(value) {
            Ok(v) => Bson::Int32(v),
            Err(_) => Bson::Int64(value),
        }
    }

    /// A boolean option: the server also takes numbers (non-zero is true) and null (false).
    pub fn truthy(path: &str, value: &Bson) -> Result<bool, DocumentError> {
        match value {
            Bson::Boolean(b) => Ok(*b),
            Bson::Null | Bson::Undefined => Ok(false),
            other => match number(other) {
                Some(n) => Ok(n != 0.0),
                None => Err(DocumentError::expected(path, "a boolean", other)),
            },
        }
    }

    /// A string option.
    pub fn string(path: &str, value: &Bson) -> Result<String, DocumentError> {
        match value {
            Bson::String(s) => Ok(s.clone()),
            other => Err(DocumentError::expected(path, "a string", other)),
        }
    }

    /// A document option.
    pub fn document<'a>(path: &str, value: &'a Bson) -> Result<&'a Document, DocumentError> {
        match value {
            Bson::Document(d) => Ok(d),
            other => Err(DocumentError::expected(path, "a document", other)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::IndexKind::*;
    use crate::schema::BsonType;

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
            let spec = CollectionSpec::new("orders").validator(Validator::from_document(
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
        let fine = CollectionSpec::new("orders").validator(Validator::from_document(
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
                ns: "sensor_readings".into()
            })
        );
    }

    // SERVER-FACTS: `$text`, `$where`, `$near`, `$nearSphere`, `$geoNear` are rejected inside a
    // validator.
    #[test]
    fn query_operators_the_server_refuses_in_validators_are_refused() {
        let spec = CollectionSpec::new("c").validator(Validator::query(
            doc! { "$or": [{ "a": 1 }, { "$where": "this.a > 1" }] },
        ));
        let err = spec.check().unwrap_err();
        assert!(err.to_string().contains("$where is not allowed"), "{err}");
        let fine = CollectionSpec::new("c").validator(Validator::query(doc! { "a": { "$gt": 1 } }));
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
}
