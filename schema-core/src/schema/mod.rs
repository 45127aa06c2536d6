//! The `$jsonSchema` IR: a typed model of one schema node, with every keyword the server supports.
//!
//! Rust types build it (`generate`), validators read from files or servers parse into it
//! (`parse`), and it renders to BSON and Extended JSON (`render`). The evaluator compiles it.

pub mod parse;
mod render;

use std::fmt;

use bson::{Bson, Document};
use indexmap::IndexMap;

use crate::value::number::{Dec, Num};

pub use render::ExtJsonMode;

/// One `$jsonSchema` node.
///
/// Every keyword the server accepts has a typed field; `None` (or an empty map) means the keyword
/// is absent. Keywords the model does not know are kept in [`JsonSchema::other`] so that nothing
/// read is lost; the server-faithful parser rejects them, as the server does.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JsonSchema {
    /// `bsonType` or `type`: the value must have one of these types.
    pub types: Option<TypeConstraint>,
    /// `enum`: the value must equal one of these (numbers by value, documents ignoring field order).
    pub enumeration: Option<Vec<Bson>>,
    /// `title`: ignored by the server, kept for people.
    pub title: Option<String>,
    /// `description`: echoed by the server in rejection details (since 5.1).
    pub description: Option<String>,

    /// `minimum`, applied to numbers only.
    pub minimum: Option<Number>,
    /// `exclusiveMinimum` (draft 4: a boolean that needs `minimum` beside it).
    pub exclusive_minimum: Option<bool>,
    /// `maximum`, applied to numbers only.
    pub maximum: Option<Number>,
    /// `exclusiveMaximum` (draft 4: a boolean that needs `maximum` beside it).
    pub exclusive_maximum: Option<bool>,
    /// `multipleOf`, greater than zero, applied to numbers only.
    pub multiple_of: Option<Number>,

    /// `minLength` in Unicode code points, applied to strings only.
    pub min_length: Option<u64>,
    /// `maxLength` in Unicode code points, applied to strings only.
    pub max_length: Option<u64>,
    /// `pattern`: an unanchored PCRE search, applied to strings only.
    pub pattern: Option<String>,

    /// `items`, applied to arrays only.
    pub items: Option<Items>,
    /// `additionalItems`, meaningful only beside a positional `items`.
    pub additional_items: Option<Additional>,
    /// `minItems`, applied to arrays only.
    pub min_items: Option<u64>,
    /// `maxItems`, applied to arrays only.
    pub max_items: Option<u64>,
    /// `uniqueItems`, applied to arrays only.
    pub unique_items: Option<bool>,

    /// `required`: property names that must be present (never empty when set).
    pub required: Option<Vec<String>>,
    /// `properties`: schemas of named properties, in declaration order.
    pub properties: IndexMap<String, JsonSchema>,
    /// `patternProperties`: schemas of properties whose names match a pattern.
    pub pattern_properties: IndexMap<String, JsonSchema>,
    /// `additionalProperties`: what properties named by neither map may be.
    pub additional_properties: Option<Additional>,
    /// `minProperties`, applied to objects only (counts `_id`).
    pub min_properties: Option<u64>,
    /// `maxProperties`, applied to objects only (counts `_id`).
    pub max_properties: Option<u64>,
    /// `dependencies`: when a property is present, other properties or a schema must hold too.
    pub dependencies: IndexMap<String, Dependency>,
    /// A `title` string written among the `dependencies` entries: the server skips it as a
    /// dependency and echoes it on a failing `dependencies` rule.
    pub dependencies_title: Option<String>,
    /// A `description` string written among the `dependencies` entries, likewise.
    pub dependencies_description: Option<String>,

    /// `allOf`: every branch must match.
    pub all_of: Option<Vec<JsonSchema>>,
    /// `anyOf`: at least one branch must match.
    pub any_of: Option<Vec<JsonSchema>>,
    /// `oneOf`: exactly one branch must match.
    pub one_of: Option<Vec<JsonSchema>>,
    /// `not`: the branch must not match.
    pub not: Option<Box<JsonSchema>>,

    /// `encrypt` (client-side field level encryption: `bsonType`, `algorithm`, `keyId`), kept
    /// verbatim; the parser checks its fields as the server does, and the evaluator reads
    /// `bsonType` to check the encrypted value's original type.
    pub encrypt: Option<Document>,
    /// `encryptMetadata` (`algorithm`, `keyId`), kept verbatim after the same checks.
    pub encrypt_metadata: Option<Document>,

    /// Keywords the model does not know, kept verbatim in the order read.
    pub other: Document,
}

/// The `type` or `bsonType` keyword: the two are exclusive in one node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeConstraint {
    /// `bsonType`: BSON type aliases, plus `number`.
    BsonType(Vec<BsonType>),
    /// `type`: JSON type names.
    Type(Vec<JsonType>),
}

/// A `bsonType` alias, spelled as the server spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BsonType {
    /// `double`
    Double,
    /// `string`
    String,
    /// `object`
    Object,
    /// `array`
    Array,
    /// `binData`
    BinData,
    /// `undefined`
    Undefined,
    /// `objectId`
    ObjectId,
    /// `bool`
    Bool,
    /// `date`
    Date,
    /// `null`
    Null,
    /// `regex`
    Regex,
    /// `dbPointer`
    DbPointer,
    /// `javascript`
    JavaScript,
    /// `symbol`
    Symbol,
    /// `javascriptWithScope`
    JavaScriptWithScope,
    /// `int`
    Int,
    /// `timestamp`
    Timestamp,
    /// `long`
    Long,
    /// `decimal`
    Decimal,
    /// `minKey`
    MinKey,
    /// `maxKey`
    MaxKey,
    /// `number`: any of int, long, double, decimal.
    Number,
}

impl BsonType {
    /// Every alias, in the order the manual lists them.
    pub const ALL: [BsonType; 22] = [
        BsonType::Double,
        BsonType::String,
        BsonType::Object,
        BsonType::Array,
        BsonType::BinData,
        BsonType::Undefined,
        BsonType::ObjectId,
        BsonType::Bool,
        BsonType::Date,
        BsonType::Null,
        BsonType::Regex,
        BsonType::DbPointer,
        BsonType::JavaScript,
        BsonType::Symbol,
        BsonType::JavaScriptWithScope,
        BsonType::Int,
        BsonType::Timestamp,
        BsonType::Long,
        BsonType::Decimal,
        BsonType::MinKey,
        BsonType::MaxKey,
        BsonType::Number,
    ];

    /// The alias as the server spells it (`"objectId"`, `"javascriptWithScope"`).
    pub fn as_str(self) -> &'static str {
        match self {
            BsonType::Double => "double",
            BsonType::String => "string",
            BsonType::Object => "object",
            BsonType::Array => "array",
            BsonType::BinData => "binData",
            BsonType::Undefined => "undefined",
            BsonType::ObjectId => "objectId",
            BsonType::Bool => "bool",
            BsonType::Date => "date",
            BsonType::Null => "null",
            BsonType::Regex => "regex",
            BsonType::DbPointer => "dbPointer",
            BsonType::JavaScript => "javascript",
            BsonType::Symbol => "symbol",
            BsonType::JavaScriptWithScope => "javascriptWithScope",
            BsonType::Int => "int",
            BsonType::Timestamp => "timestamp",
            BsonType::Long => "long",
            BsonType::Decimal => "decimal",
            BsonType::MinKey => "minKey",
            BsonType::MaxKey => "maxKey",
            BsonType::Number => "number",
        }
    }

    /// Parses a server alias; `None` for anything else (aliases are case-sensitive).
    pub fn from_alias(alias: &str) -> Option<BsonType> {
        BsonType::ALL.into_iter().find(|t| t.as_str() == alias)
    }

    /// Whether a value of BSON element type `element` has this type.
    pub fn matches(self, element: bson::spec::ElementType) -> bool {
        use bson::spec::ElementType as E;
        match self {
            BsonType::Number => matches!(element, E::Int32 | E::Int64 | E::Double | E::Decimal128),
            _ => BsonType::of(element) == self,
        }
    }

    /// The alias of a BSON element type.
    pub fn of(element: bson::spec::ElementType) -> BsonType {
        use bson::spec::ElementType as E;
        match element {
            E::Double => BsonType::Double,
            E::String => BsonType::String,
            E::EmbeddedDocument => BsonType::Object,
            E::Array => BsonType::Array,
            E::Binary => BsonType::BinData,
            E::Undefined => BsonType::Undefined,
            E::ObjectId => BsonType::ObjectId,
            E::Boolean => BsonType::Bool,
            E::DateTime => BsonType::Date,
            E::Null => BsonType::Null,
            E::RegularExpression => BsonType::Regex,
            E::DbPointer => BsonType::DbPointer,
            E::JavaScriptCode => BsonType::JavaScript,
            E::Symbol => BsonType::Symbol,
            E::JavaScriptCodeWithScope => BsonType::JavaScriptWithScope,
            E::Int32 => BsonType::Int,
            E::Timestamp => BsonType::Timestamp,
            E::Int64 => BsonType::Long,
            E::Decimal128 => BsonType::Decimal,
            E::MinKey => BsonType::MinKey,
            E::MaxKey => BsonType::MaxKey,
        }
    }
}

impl fmt::Display for BsonType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A JSON type name for the `type` keyword. `integer` is not one: the server rejects it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum JsonType {
    /// `object`: an embedded document.
    Object,
    /// `array`
    Array,
    /// `number`: int, long, double or decimal.
    Number,
    /// `boolean`
    Boolean,
    /// `string`
    String,
    /// `null`
    Null,
}

impl JsonType {
    /// Every JSON type name the server accepts.
    pub const ALL: [JsonType; 6] = [
        JsonType::Object,
        JsonType::Array,
        JsonType::Number,
        JsonType::Boolean,
        JsonType::String,
        JsonType::Null,
    ];

    /// The name as written in a schema.
    pub fn as_str(self) -> &'static str {
        match self {
            JsonType::Object => "object",
            JsonType::Array => "array",
            JsonType::Number => "number",
            JsonType::Boolean => "boolean",
            JsonType::String => "string",
            JsonType::Null => "null",
        }
    }

    /// Parses a JSON type name; `None` for anything else, `integer` included.
    pub fn from_name(name: &str) -> Option<JsonType> {
        JsonType::ALL.into_iter().find(|t| t.as_str() == name)
    }

    /// The BSON alias with the same meaning.
    pub fn to_bson_type(self) -> BsonType {
        match self {
            JsonType::Object => BsonType::Object,
            JsonType::Array => BsonType::Array,
            JsonType::Number => BsonType::Number,
            JsonType::Boolean => BsonType::Bool,
            JsonType::String => BsonType::String,
            JsonType::Null => BsonType::Null,
        }
    }
}

impl fmt::Display for JsonType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The `items` keyword: one schema for every element, or one per position.
#[derive(Clone, Debug, PartialEq)]
pub enum Items {
    /// Every element must match this schema.
    Single(Box<JsonSchema>),
    /// Element `i` must match schema `i`; `additionalItems` governs the rest.
    Positional(Vec<JsonSchema>),
}

/// `additionalItems` / `additionalProperties`: allowed, forbidden, or constrained by a schema.
#[derive(Clone, Debug, PartialEq)]
pub enum Additional {
    /// `true` allows anything, `false` forbids any.
    Allowed(bool),
    /// Each additional element or property must match.
    Schema(Box<JsonSchema>),
}

/// One entry of `dependencies`.
#[derive(Clone, Debug, PartialEq)]
pub enum Dependency {
    /// When the property is present, these properties must be too.
    Properties(Vec<String>),
    /// When the property is present, the whole object must match this schema.
    Schema(Box<JsonSchema>),
}

/// A numeric keyword value, kept in the BSON type it was written in.
///
/// Bounds compare by value with any numeric type, so `Int32(5)` and `Double(5.0)` mean the same
/// bound; the type is kept so that rendering gives back what was read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Number {
    /// A 32-bit integer.
    Int32(i32),
    /// A 64-bit integer.
    Int64(i64),
    /// A double.
    Double(f64),
    /// A decimal128, kept as its bytes.
    Decimal128(bson::Decimal128),
}

impl Number {
    /// The bound as the evaluator compares it: by value across the four numeric types.
    pub(crate) fn to_num(self) -> Num {
        match self {
            Number::Int32(v) => Num::Int(i64::from(v)),
            Number::Int64(v) => Num::Int(v),
            Number::Double(v) => Num::Double(v),
            Number::Decimal128(v) => Num::Dec(Dec::from_bytes(v.bytes())),
        }
    }

    /// The number as a BSON value of its own type.
    pub fn to_bson(self) -> Bson {
        match self {
            Number::Int32(v) => Bson::Int32(v),
            Number::Int64(v) => Bson::Int64(v),
            Number::Double(v) => Bson::Double(v),
            Number::Decimal128(v) => Bson::Decimal128(v),
        }
    }

    /// Reads a numeric BSON value; `None` for any other type.
    pub fn from_bson(value: &Bson) -> Option<Number> {
        match *value {
            Bson::Int32(v) => Some(Number::Int32(v)),
            Bson::Int64(v) => Some(Number::Int64(v)),
            Bson::Double(v) => Some(Number::Double(v)),
            Bson::Decimal128(v) => Some(Number::Decimal128(v)),
            _ => None,
        }
    }

    /// The smallest Int32 or Int64 that holds `value`.
    pub fn integer(value: i128) -> Number {
        if let Ok(v) = i32::try_from(value) {
            Number::Int32(v)
        } else if let Ok(v) = i64::try_from(value) {
            Number::Int64(v)
        } else {
            // Beyond i64 only a double can carry the bound; the caller's range decides rounding.
            Number::Double(value as f64)
        }
    }
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Number::Int32(v) => write!(f, "{v}"),
            Number::Int64(v) => write!(f, "{v}"),
            Number::Double(v) => write!(f, "{v}"),
            Number::Decimal128(v) => write!(f, "{v}"),
        }
    }
}

impl JsonSchema {
    /// A schema that accepts anything: `{}`.
    pub fn any() -> JsonSchema {
        JsonSchema::default()
    }

    /// A schema with only `bsonType` set to the given types.
    pub fn bson_types(types: impl IntoIterator<Item = BsonType>) -> JsonSchema {
        JsonSchema {
            types: Some(TypeConstraint::BsonType(types.into_iter().collect())),
            ..JsonSchema::default()
        }
    }

    /// A schema with only `bsonType` set to one type.
    pub fn bson_type(ty: BsonType) -> JsonSchema {
        JsonSchema::bson_types([ty])
    }

    /// Whether no keyword is set: the schema accepts every value.
    pub fn is_any(&self) -> bool {
        *self == JsonSchema::default()
    }

    /// The BSON types this node allows by its own `bsonType`/`type`, `None` when unconstrained.
    pub fn allowed_types(&self) -> Option<Vec<BsonType>> {
        match &self.types {
            None => None,
            Some(TypeConstraint::BsonType(v)) => Some(v.clone()),
            Some(TypeConstraint::Type(v)) => Some(v.iter().map(|t| t.to_bson_type()).collect()),
        }
    }

    /// Adds `name` to `required`, keeping it free of duplicates.
    pub fn require(&mut self, name: impl Into<String>) {
        let name = name.into();
        let required = self.required.get_or_insert_with(Vec::new);
        if !required.contains(&name) {
            required.push(name);
        }
    }

    /// Renders the schema as a BSON document with a fixed keyword order.
    ///
    /// ```
    /// use mongo_schema::schema::{BsonType, JsonSchema};
    /// let schema = JsonSchema::bson_type(BsonType::ObjectId);
    /// assert_eq!(schema.to_document(), bson::doc! { "bsonType": "objectId" });
    /// ```
    pub fn to_document(&self) -> Document {
        render::to_document(self)
    }

    /// Renders the schema as Extended JSON, relaxed or canonical.
    pub fn to_extjson(&self, mode: ExtJsonMode) -> serde_json::Value {
        render::to_extjson(&Bson::Document(self.to_document()), mode)
    }

    /// Wraps the schema as a collection validator: `{"$jsonSchema": ...}`.
    pub fn to_validator(&self) -> Document {
        let mut validator = Document::new();
        validator.insert("$jsonSchema", self.to_document());
        validator
    }
}
