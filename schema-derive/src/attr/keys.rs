//! The one table of `#[mongo]` keys: each key's name, the scopes it may appear in (the type, a
//! variant, a field, or one of the declaration's parenthesised lists), the value it takes and
//! an example for messages. Everything else in `attr` reads through it.

/// Where a key is read: on an item, or inside one of the declaration's parenthesised lists.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Scope {
    Container,
    Variant,
    Field,
    Index,
    ShardKey,
    Timeseries,
    Capped,
    Version,
    Query,
    VectorIndex,
    SearchIndex,
    /// One field of `search_index(mappings(field(...)))`.
    SearchMapping,
    /// A query's `search(...)`.
    QuerySearch,
    /// A query's `vector_search(...)`.
    QueryVectorSearch,
}

impl Scope {
    pub const fn bit(self) -> u16 {
        1 << self as u16
    }

    pub fn is_item(self) -> bool {
        matches!(self, Scope::Container | Scope::Variant | Scope::Field)
    }

    /// What an unknown key is called in this scope's error message.
    pub fn noun(self) -> &'static str {
        match self {
            Scope::Container | Scope::Variant | Scope::Field => "mongo attribute",
            Scope::Index => "index option",
            Scope::ShardKey => "shard_key option",
            Scope::Timeseries => "timeseries option",
            Scope::Capped => "capped option",
            Scope::Version => "version option",
            Scope::Query => "query option",
            Scope::VectorIndex => "vector_index option",
            Scope::SearchIndex => "search_index option",
            Scope::SearchMapping => "search mapping option",
            Scope::QuerySearch => "search option",
            Scope::QueryVectorSearch => "vector_search option",
        }
    }

    pub fn place(self) -> &'static str {
        match self {
            Scope::Container => "a struct or enum",
            Scope::Variant => "an enum variant",
            _ => "a field",
        }
    }
}

pub const C: u16 = Scope::Container.bit();
pub const V: u16 = Scope::Variant.bit();
pub const F: u16 = Scope::Field.bit();
const INDEX: u16 = Scope::Index.bit();
const SHARD_KEY: u16 = Scope::ShardKey.bit();
const TIMESERIES: u16 = Scope::Timeseries.bit();
const CAPPED: u16 = Scope::Capped.bit();
const VERSION: u16 = Scope::Version.bit();
const QUERY: u16 = Scope::Query.bit();
const VECTOR: u16 = Scope::VectorIndex.bit();
const SEARCH: u16 = Scope::SearchIndex.bit();
const MAPPING: u16 = Scope::SearchMapping.bit();
const QUERY_SEARCH: u16 = Scope::QuerySearch.bit();
const QUERY_VECTOR: u16 = Scope::QueryVectorSearch.bit();

/// The value a key takes; `value.rs` reads each.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// `key = 1.5` or `key = -3`
    Number,
    /// `key = 10`
    Count,
    /// `key = -1` or `key = 10`
    Integer,
    /// `key = "text"`
    Str,
    /// `key` or `key = true`
    Flag,
    /// `key = path::to::function` or `key = "path::to::function"`
    Path,
    /// `key = Type` or `key = "Type"`
    Type,
    /// `key = r#"{"a": 1}"#`: a JSON object, checked at compile time.
    Json,
    /// `key = r#"[{"$match": {}}]"#`: a JSON array of objects, checked at compile time.
    JsonArray,
    /// `key(a, b.c = -1, "meta.$**", loc = "2dsphere")`
    Keys,
    /// `key = field.path` or `key = "field.path"`
    KeyPath,
    /// `weights(a = 10, b = 1)`
    Weights,
    /// `previous(TypeV1 = 1, TypeV2 = 2)`
    Previous,
    /// A field's `index`, `index = -1` or `index(options...)`.
    FieldIndex,
    /// A field's `text` or `text = 10`.
    TextWeight,
    /// `key(inner = value, ...)`, read with the keys of the scope.
    Nested(Scope),
    /// `mappings(title(type = "string"), author.name(type = "token"))`: field paths, each with
    /// its options read with the keys of [`Scope::SearchMapping`].
    Mappings,
}

/// One `#[mongo]` key: its name, the scopes it may appear in, the value it takes, and an
/// example for messages.
pub struct Key {
    pub name: &'static str,
    pub scopes: u16,
    pub kind: Kind,
    /// Keys that add one more of a thing (`index(...)`, `query(...)`) may repeat.
    pub repeatable: bool,
    pub example: &'static str,
}

const fn key(name: &'static str, scopes: u16, kind: Kind, example: &'static str) -> Key {
    Key {
        name,
        scopes,
        kind,
        repeatable: false,
        example,
    }
}

const fn repeatable(name: &'static str, scopes: u16, kind: Kind, example: &'static str) -> Key {
    Key {
        name,
        scopes,
        kind,
        repeatable: true,
        example,
    }
}

/// Every `#[mongo]` key, schema and declaration, in one table. A name may have one row per
/// value shape (`index` on a type is a list of options, on a field a shorthand).
pub const KEYS: &[Key] = &[
    // The schema (`schema.rs`).
    key("minimum", F, Kind::Number, "minimum = 0"),
    key("maximum", F, Kind::Number, "maximum = 0"),
    key("exclusive_minimum", F, Kind::Flag, "exclusive_minimum"),
    key("exclusive_maximum", F, Kind::Flag, "exclusive_maximum"),
    key("multiple_of", F, Kind::Number, "multiple_of = 0"),
    key("min_length", F, Kind::Count, "min_length = 10"),
    key("max_length", F, Kind::Count, "max_length = 10"),
    key("pattern", F, Kind::Str, "pattern = \"...\""),
    key("min_items", F, Kind::Count, "min_items = 10"),
    key("max_items", F, Kind::Count, "max_items = 10"),
    key("unique_items", F, Kind::Flag, "unique_items"),
    key("bson_type", V | F, Kind::Str, "bson_type = \"string\""),
    key(
        "schema_with",
        C | F,
        Kind::Path,
        "schema_with = my_module::my_schema",
    ),
    key("schema_as", C | F, Kind::Type, "schema_as = String"),
    key("title", C | V | F, Kind::Str, "title = \"...\""),
    key("description", C | V | F, Kind::Str, "description = \"...\""),
    key("exact", C | F, Kind::Flag, "exact"),
    key("recursion_depth", C, Kind::Count, "recursion_depth = 10"),
    key("bound", C, Kind::Str, "bound = \"T: MongoSchema\""),
    key("crate", C, Kind::Path, "crate = \"my_crate::mongo_schema\""),
    // The collection declaration on the type (`declaration.rs`).
    key("collection", C, Kind::Str, "collection = \"users\""),
    key("validator", C, Kind::Flag, "validator = false"),
    key(
        "validation_level",
        C,
        Kind::Str,
        "validation_level = \"strict\"",
    ),
    key(
        "validation_action",
        C,
        Kind::Str,
        "validation_action = \"error\"",
    ),
    repeatable(
        "index",
        C | V,
        Kind::Nested(Scope::Index),
        "index(keys(user_id, created_at = -1), unique)",
    ),
    key(
        "shard_key",
        C,
        Kind::Nested(Scope::ShardKey),
        "shard_key(keys(user_id = \"hashed\"))",
    ),
    key(
        "timeseries",
        C,
        Kind::Nested(Scope::Timeseries),
        "timeseries(time_field = timestamp)",
    ),
    key(
        "expire_after_seconds",
        C,
        Kind::Count,
        "expire_after_seconds = 86400",
    ),
    key(
        "capped",
        C,
        Kind::Nested(Scope::Capped),
        "capped(size = 1048576)",
    ),
    key("clustered_index", C, Kind::Flag, "clustered_index"),
    key(
        "collation",
        C,
        Kind::Json,
        "collation = r#\"{\"locale\": \"en\"}\"#",
    ),
    key(
        "change_stream_pre_and_post_images",
        C,
        Kind::Flag,
        "change_stream_pre_and_post_images",
    ),
    key(
        "version",
        C,
        Kind::Nested(Scope::Version),
        "version(field = \"schemaVersion\", current = 2, previous(UserV1 = 1))",
    ),
    repeatable(
        "query",
        C,
        Kind::Nested(Scope::Query),
        "query(name = \"by_user\", eq(user_id), sort(created_at = -1))",
    ),
    // Search and vector search indexes (`createSearchIndexes`).
    repeatable(
        "vector_index",
        C,
        Kind::Nested(Scope::VectorIndex),
        "vector_index(name = \"embedding_index\", path = embedding, dimensions = 768, similarity = \"cosine\")",
    ),
    repeatable(
        "search_index",
        C,
        Kind::Nested(Scope::SearchIndex),
        "search_index(name = \"default\", dynamic)",
    ),
    // A view declared on the type of the documents it produces.
    key("view", C, Kind::Str, "view = \"active_users\""),
    key("view_on", C, Kind::Type, "view_on = User"),
    key(
        "pipeline",
        C,
        Kind::JsonArray,
        "pipeline = r#\"[{\"$match\": {\"active\": true}}]\"#",
    ),
    // Field shorthands of the declaration.
    key("index", F, Kind::FieldIndex, "index"),
    key("unique", F, Kind::Flag, "unique"),
    key("ttl", F, Kind::Count, "ttl = 86400"),
    key("text", F, Kind::TextWeight, "text = 10"),
    key("hashed", F, Kind::Flag, "hashed"),
    key("unbounded", F, Kind::Flag, "unbounded"),
    // index(...), shard_key(...)
    key(
        "keys",
        INDEX | SHARD_KEY,
        Kind::Keys,
        "keys(user_id, created_at = -1)",
    ),
    key(
        "name",
        INDEX | QUERY | VECTOR | SEARCH,
        Kind::Str,
        "name = \"...\"",
    ),
    key("unique", INDEX | SHARD_KEY, Kind::Flag, "unique"),
    key("sparse", INDEX, Kind::Flag, "sparse"),
    key("hidden", INDEX, Kind::Flag, "hidden"),
    key("ttl", INDEX, Kind::Count, "ttl = 86400"),
    key(
        "expire_after_seconds",
        INDEX,
        Kind::Count,
        "expire_after_seconds = 86400",
    ),
    key(
        "partial",
        INDEX,
        Kind::Json,
        "partial = r#\"{\"deleted_at\": {\"$exists\": false}}\"#",
    ),
    key(
        "collation",
        INDEX,
        Kind::Json,
        "collation = r#\"{\"locale\": \"en\"}\"#",
    ),
    key(
        "wildcard_projection",
        INDEX,
        Kind::Json,
        "wildcard_projection = r#\"{\"a\": 1}\"#",
    ),
    key("weights", INDEX, Kind::Weights, "weights(title = 10)"),
    key(
        "default_language",
        INDEX,
        Kind::Str,
        "default_language = \"english\"",
    ),
    key(
        "language_override",
        INDEX,
        Kind::Str,
        "language_override = \"lang\"",
    ),
    key("bits", INDEX, Kind::Integer, "bits = 26"),
    key("min", INDEX, Kind::Number, "min = -180.0"),
    key("max", INDEX, Kind::Number, "max = 180.0"),
    // timeseries(...)
    key(
        "time_field",
        TIMESERIES,
        Kind::KeyPath,
        "time_field = timestamp",
    ),
    key(
        "meta_field",
        TIMESERIES,
        Kind::KeyPath,
        "meta_field = sensor_id",
    ),
    key(
        "granularity",
        TIMESERIES,
        Kind::Str,
        "granularity = \"minutes\"",
    ),
    key(
        "bucket_max_span_seconds",
        TIMESERIES,
        Kind::Integer,
        "bucket_max_span_seconds = 3600",
    ),
    key(
        "bucket_rounding_seconds",
        TIMESERIES,
        Kind::Integer,
        "bucket_rounding_seconds = 3600",
    ),
    // capped(...)
    key("size", CAPPED, Kind::Count, "size = 1048576"),
    key("max", CAPPED, Kind::Integer, "max = 1000"),
    // version(...)
    key("field", VERSION, Kind::Str, "field = \"schemaVersion\""),
    key("current", VERSION, Kind::Integer, "current = 2"),
    key("previous", VERSION, Kind::Previous, "previous(UserV1 = 1)"),
    key("absent", VERSION, Kind::Integer, "absent = 1"),
    // vector_index(...), search_index(...)
    key("path", VECTOR, Kind::KeyPath, "path = embedding"),
    key("dimensions", VECTOR, Kind::Count, "dimensions = 768"),
    key("similarity", VECTOR, Kind::Str, "similarity = \"cosine\""),
    key(
        "quantization",
        VECTOR,
        Kind::Str,
        "quantization = \"scalar\"",
    ),
    key("filter", VECTOR, Kind::Keys, "filter(status, tenant_id)"),
    key("dynamic", SEARCH, Kind::Flag, "dynamic"),
    key(
        "analyzer",
        SEARCH,
        Kind::Str,
        "analyzer = \"lucene.english\"",
    ),
    key(
        "mappings",
        SEARCH,
        Kind::Mappings,
        "mappings(title(type = \"string\"), tags(type = \"token\"))",
    ),
    key("type", MAPPING, Kind::Str, "type = \"string\""),
    key(
        "analyzer",
        MAPPING,
        Kind::Str,
        "analyzer = \"lucene.english\"",
    ),
    key(
        "search_analyzer",
        MAPPING,
        Kind::Str,
        "search_analyzer = \"lucene.standard\"",
    ),
    // query(search(...)), query(vector_search(...))
    key(
        "search",
        QUERY,
        Kind::Nested(Scope::QuerySearch),
        "search(index = \"default\", paths(title, body))",
    ),
    key(
        "vector_search",
        QUERY,
        Kind::Nested(Scope::QueryVectorSearch),
        "vector_search(index = \"embedding_index\", path = embedding, filter(status))",
    ),
    key(
        "index",
        QUERY_SEARCH | QUERY_VECTOR,
        Kind::Str,
        "index = \"default\"",
    ),
    key("paths", QUERY_SEARCH, Kind::Keys, "paths(title, body)"),
    key("path", QUERY_VECTOR, Kind::KeyPath, "path = embedding"),
    key(
        "filter",
        QUERY_VECTOR,
        Kind::Keys,
        "filter(status, tenant_id)",
    ),
    // query(...)
    key("eq", QUERY, Kind::Keys, "eq(user_id, status)"),
    key("sort", QUERY, Kind::Keys, "sort(created_at = -1)"),
    key("range", QUERY, Kind::Keys, "range(created_at)"),
    key("project", QUERY, Kind::Keys, "project(user_id, total)"),
    key("without_id", QUERY, Kind::Flag, "without_id"),
    key(
        "filter",
        QUERY,
        Kind::Json,
        "filter = r#\"{\"deleted_at\": {\"$exists\": false}}\"#",
    ),
    key("limit", QUERY, Kind::Count, "limit = 20"),
    key("frequency", QUERY, Kind::Str, "frequency = \"hot\""),
];

/// The schema's keys (`schema.rs`); the others belong to the collection declaration.
const SCHEMA_KEYS: &[&str] = &[
    "minimum",
    "maximum",
    "exclusive_minimum",
    "exclusive_maximum",
    "multiple_of",
    "min_length",
    "max_length",
    "pattern",
    "min_items",
    "max_items",
    "unique_items",
    "bson_type",
    "schema_with",
    "schema_as",
    "title",
    "description",
    "exact",
    "recursion_depth",
    "bound",
    "crate",
];

pub fn is_schema_key(name: &str) -> bool {
    SCHEMA_KEYS.contains(&name)
}
