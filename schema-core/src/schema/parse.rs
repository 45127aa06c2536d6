//! Server replies and validator files -> IR: parses any `$jsonSchema`, rejecting exactly what the server rejects.
//!
//! The checks, their order and their wording follow the server's `json_schema_parser.cpp`
//! (5.0 to 8.x): per node, unknown and unsupported keywords first, then `title`/`description`,
//! `type`/`bsonType`, string and number keywords, array keywords, encryption, object keywords,
//! and finally `allOf`/`anyOf`/`oneOf`/`not`/`enum`. Each error carries the path of the offending
//! keyword (`properties.items.items.minimum`) and the server's error code.

use bson::{Bson, Document};
use indexmap::IndexMap;

use super::{
    Additional, BsonType, Dependency, Items, JsonSchema, JsonType, Number, TypeConstraint,
};
use crate::value::number::Dec;

/// The server's `FailedToParse` error code.
pub const FAILED_TO_PARSE: i32 = 9;
/// The server's `TypeMismatch` error code.
pub const TYPE_MISMATCH: i32 = 14;
/// The server's `BadValue` error code.
pub const BAD_VALUE: i32 = 2;
/// The server's code for a field path holding a NUL byte (`FieldRef`, recent servers).
pub const FIELD_PATH_NUL: i32 = 9_867_600;
/// The server's code for "Regular expression is invalid".
pub const INVALID_REGEX: i32 = 51091;

/// How deep schemas may nest before parsing stops (the server caps BSON nesting near this).
pub const MAX_SCHEMA_DEPTH: usize = 200;

/// Why a `$jsonSchema` was rejected, with the path of the offending keyword.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseError {
    /// A keyword the server does not know (`const`, `$id`, `if`, ...): FailedToParse.
    #[error("{path}: Unknown $jsonSchema keyword: {keyword}")]
    UnknownKeyword {
        /// Path of the keyword, e.g. `properties.a.const`.
        path: String,
        /// The keyword.
        keyword: String,
    },
    /// A keyword the server knows but refuses (`$ref`, `$schema`, `default`, `definitions`,
    /// `format`, `id`): FailedToParse.
    #[error("{path}: $jsonSchema keyword '{keyword}' is not currently supported")]
    UnsupportedKeyword {
        /// Path of the keyword.
        path: String,
        /// The keyword.
        keyword: String,
    },
    /// A keyword with a value the server rejects, in the server's words.
    #[error("{path}: {reason}")]
    InvalidKeyword {
        /// Path of the keyword.
        path: String,
        /// The server's error code ([`FAILED_TO_PARSE`], [`TYPE_MISMATCH`], [`BAD_VALUE`]).
        code: i32,
        /// The server's message.
        reason: String,
    },
    /// A `pattern` or `patternProperties` name that PCRE2 cannot compile.
    #[error("{path}: Regular expression is invalid: {reason}")]
    InvalidPattern {
        /// Path of the keyword (for `patternProperties`, including the pattern).
        path: String,
        /// The pattern.
        pattern: String,
        /// PCRE2's message.
        reason: String,
    },
    /// Schemas nested deeper than [`MAX_SCHEMA_DEPTH`].
    #[error("{path}: $jsonSchema nested deeper than {limit} levels")]
    TooDeep {
        /// Path where the limit was reached.
        path: String,
        /// The limit.
        limit: usize,
    },
}

impl ParseError {
    /// The path of the offending keyword, dot-separated (`properties.items.items.minimum`).
    pub fn path(&self) -> &str {
        match self {
            ParseError::UnknownKeyword { path, .. }
            | ParseError::UnsupportedKeyword { path, .. }
            | ParseError::InvalidKeyword { path, .. }
            | ParseError::InvalidPattern { path, .. }
            | ParseError::TooDeep { path, .. } => path,
        }
    }

    /// The server's error code for this rejection.
    pub fn code(&self) -> i32 {
        match self {
            ParseError::InvalidKeyword { code, .. } => *code,
            ParseError::InvalidPattern { .. } => INVALID_REGEX,
            _ => FAILED_TO_PARSE,
        }
    }

    /// The server's message, without the path.
    pub fn reason(&self) -> String {
        let full = self.to_string();
        let prefix = format!("{}: ", self.path());
        full.strip_prefix(&prefix).unwrap_or(&full).to_string()
    }
}

/// Keywords the server rejects as "not currently supported".
const UNSUPPORTED: [&str; 6] = ["$ref", "$schema", "default", "definitions", "format", "id"];

/// Every keyword the server accepts.
const KNOWN: [&str; 31] = [
    "additionalItems",
    "additionalProperties",
    "allOf",
    "anyOf",
    "bsonType",
    "dependencies",
    "description",
    "encrypt",
    "encryptMetadata",
    "enum",
    "exclusiveMaximum",
    "exclusiveMinimum",
    "items",
    "maxItems",
    "maxLength",
    "maxProperties",
    "maximum",
    "minItems",
    "minLength",
    "minProperties",
    "minimum",
    "multipleOf",
    "not",
    "oneOf",
    "pattern",
    "patternProperties",
    "properties",
    "required",
    "title",
    "type",
    "uniqueItems",
];

impl JsonSchema {
    /// Parses a `$jsonSchema` document, rejecting exactly what the server rejects.
    ///
    /// ```
    /// use mongo_schema::JsonSchema;
    /// let err = JsonSchema::from_document(&bson::doc! {
    ///     "properties": { "n": { "bsonType": "int", "exclusiveMinimum": true } },
    /// })
    /// .unwrap_err();
    /// assert_eq!(err.path(), "properties.n.exclusiveMinimum");
    /// assert_eq!(err.code(), 9);
    /// ```
    ///
    /// # Errors
    /// A [`ParseError`] naming the first offending keyword in the server's check order.
    pub fn from_document(schema: &Document) -> Result<JsonSchema, ParseError> {
        parse_node(schema, "", true, 0)
    }
}

fn join(path: &str, part: &str) -> String {
    if path.is_empty() {
        part.to_string()
    } else {
        format!("{path}.{part}")
    }
}

fn invalid(path: &str, code: i32, reason: String) -> ParseError {
    ParseError::InvalidKeyword {
        path: path.to_string(),
        code,
        reason,
    }
}

/// The server's name for a value's type in messages.
fn type_name(value: &Bson) -> &'static str {
    BsonType::of(value.element_type()).as_str()
}

/// A value as the server prints it in "Expected ... in: minLength: 5.5".
fn show(value: &Bson) -> String {
    match value {
        Bson::String(s) => format!("\"{s}\""),
        Bson::Double(d) => format!("{d:?}"),
        other => other.to_string(),
    }
}

fn number(value: &Bson) -> Option<Number> {
    Number::from_bson(value)
}

/// `parseIntegerElementToNonNegativeLong`: counts are whole, non-negative and fit in i64.
fn count(value: &Bson, keyword: &str, path: &str) -> Result<u64, ParseError> {
    let shown = format!("{keyword}: {}", show(value));
    let fail = |reason: String| invalid(path, FAILED_TO_PARSE, reason);
    let n: i64 = match *value {
        Bson::Int32(v) => i64::from(v),
        Bson::Int64(v) => v,
        Bson::Double(d) => {
            if d.is_nan() || !(-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&d) {
                return Err(fail(format!(
                    "Cannot represent as a 64-bit integer: {shown}"
                )));
            }
            if d.fract() != 0.0 {
                return Err(fail(format!("Expected an integer: {shown}")));
            }
            d as i64
        }
        Bson::Decimal128(d) => match Dec::from_bytes(d.bytes()).to_i64_exact() {
            Some(v) => v,
            None => {
                return Err(fail(format!(
                    "Cannot represent as a 64-bit integer: {shown}"
                )));
            }
        },
        _ => return Err(fail(format!("Expected a number in: {shown}"))),
    };
    u64::try_from(n).map_err(|_| fail(format!("Expected a non-negative number in: {shown}")))
}

fn parse_types<T: Copy + PartialEq>(
    value: &Bson,
    keyword: &str,
    path: &str,
    lookup: impl Fn(&str) -> Option<T>,
) -> Result<Vec<T>, ParseError> {
    let types = parse_type_set(value, keyword, path, lookup)?;
    if types.is_empty() {
        return Err(invalid(
            path,
            FAILED_TO_PARSE,
            format!("$jsonSchema keyword '{keyword}' must name at least one type"),
        ));
    }
    Ok(types)
}

/// `JSONSchemaParser::parseTypeSet`: a type name or an array of them, which may be empty.
fn parse_type_set<T: Copy + PartialEq>(
    value: &Bson,
    keyword: &str,
    path: &str,
    lookup: impl Fn(&str) -> Option<T>,
) -> Result<Vec<T>, ParseError> {
    let names: Vec<&str> = match value {
        Bson::String(s) => vec![s.as_str()],
        Bson::Array(items) => {
            let mut names = Vec::with_capacity(items.len());
            for item in items {
                let Bson::String(s) = item else {
                    return Err(invalid(
                        path,
                        TYPE_MISMATCH,
                        format!("$jsonSchema keyword '{keyword}' array elements must be strings"),
                    ));
                };
                names.push(s.as_str());
            }
            names
        }
        _ => {
            return Err(invalid(
                path,
                TYPE_MISMATCH,
                format!(
                    "$jsonSchema keyword '{keyword}' must be either a string or an array of strings"
                ),
            ));
        }
    };
    let mut seen: Vec<&str> = Vec::with_capacity(names.len());
    for name in &names {
        if *name == "integer" {
            return Err(invalid(
                path,
                FAILED_TO_PARSE,
                "$jsonSchema type 'integer' is not currently supported.".to_string(),
            ));
        }
        if seen.contains(name) {
            return Err(invalid(
                path,
                FAILED_TO_PARSE,
                format!("$jsonSchema keyword '{keyword}' has duplicate value: {name}"),
            ));
        }
        seen.push(name);
    }
    let mut types = Vec::with_capacity(names.len());
    for name in names {
        match lookup(name) {
            Some(t) => types.push(t),
            None => {
                return Err(invalid(
                    path,
                    BAD_VALUE,
                    format!("Unknown type name alias: {name}"),
                ));
            }
        }
    }
    Ok(types)
}

/// The server's `IDLUnknownField` error code.
const IDL_UNKNOWN_FIELD: i32 = 40415;
/// The server's `InvalidUUID` error code.
const INVALID_UUID: i32 = 207;

/// Checks the fields of `encrypt` (IDL struct `EncryptionInfo`: `bsonType`, `algorithm`, `keyId`)
/// or `encryptMetadata` (`EncryptionMetadata`: `algorithm`, `keyId`) the way the server's
/// generated strict parser does (`encrypt_schema.idl`, `idl_parser.cpp`,
/// `encrypt_schema_types.cpp`, `json_pointer.cpp`): fields in document order, an unknown field is
/// error 40415, `algorithm` is one of the two FLE1 algorithm names (null is ignored), `keyId` is a
/// JSON pointer string or an array of 16-byte UUIDs. `context` is the IDL context name
/// (`encrypt` or `encryptMetadata`) used in the messages, `path` the keyword's path.
fn check_encryption_fields(fields: &Document, context: &str, path: &str) -> Result<(), ParseError> {
    for (name, value) in fields {
        let at = join(path, name);
        let field = format!("{context}.{name}");
        match name.as_str() {
            "bsonType" if context == "encrypt" => {
                parse_type_set(value, "bsonType", &at, BsonType::from_alias)?;
            }
            "algorithm" => match value {
                Bson::Null | Bson::Undefined => {}
                Bson::String(a)
                    if a == "AEAD_AES_256_CBC_HMAC_SHA_512-Deterministic"
                        || a == "AEAD_AES_256_CBC_HMAC_SHA_512-Random" => {}
                Bson::String(a) => {
                    return Err(invalid(
                        &at,
                        BAD_VALUE,
                        format!(
                            "Enumeration value '{a}' for field '{field}' is not a valid value."
                        ),
                    ));
                }
                other => {
                    return Err(invalid(
                        &at,
                        TYPE_MISMATCH,
                        format!(
                            "BSON field '{field}' is the wrong type '{}', expected type 'string'",
                            type_name(other)
                        ),
                    ));
                }
            },
            "keyId" => check_key_id(value, &at)?,
            _ => {
                return Err(invalid(
                    &at,
                    IDL_UNKNOWN_FIELD,
                    format!("BSON field '{field}' is an unknown field."),
                ));
            }
        }
    }
    Ok(())
}

/// `EncryptSchemaKeyId::parseFromBSON`: a JSON pointer (`/a/b`) or an array of UUIDs.
fn check_key_id(value: &Bson, path: &str) -> Result<(), ParseError> {
    match value {
        Bson::String(pointer) => {
            if pointer.is_empty() {
                return Err(invalid(
                    path,
                    51064,
                    "Empty JSONPointers are not supported".to_string(),
                ));
            }
            if !pointer.starts_with('/') {
                return Err(invalid(
                    path,
                    51065,
                    "JSONPointer must start with a '/'".to_string(),
                ));
            }
            Ok(())
        }
        Bson::Array(keys) => {
            for key in keys {
                let Bson::Binary(b) = key else {
                    return Err(invalid(
                        path,
                        51088,
                        format!(
                            "Array elements must have type BinData, found {}",
                            type_name(key)
                        ),
                    ));
                };
                if b.subtype != bson::spec::BinarySubtype::Uuid {
                    return Err(invalid(
                        path,
                        51084,
                        format!(
                            "Array elements must have bindata type UUID, found {}",
                            u8::from(b.subtype)
                        ),
                    ));
                }
                if b.bytes.len() != 16 {
                    return Err(invalid(
                        path,
                        INVALID_UUID,
                        "uuid must be a 16-byte binary field with UUID (4) subtype".to_string(),
                    ));
                }
            }
            Ok(())
        }
        other => Err(invalid(
            path,
            51085,
            format!(
                "Expected either string or array of UUID for EncryptSchemaKeyId, found {}",
                type_name(other)
            ),
        )),
    }
}

/// The original types `encrypt.bsonType` allows (`None` when it is absent), parsed as the server
/// parses it (`BSONTypeSet::parseFromBSON`): `bsonType` aliases, `number` included; unlike the
/// `bsonType` keyword an empty array is accepted, and then no encrypted value matches.
///
/// # Errors
/// The server's error for a malformed `bsonType`; `path` is the path of the `encrypt` keyword.
pub(crate) fn encrypt_types(
    encrypt: &Document,
    path: &str,
) -> Result<Option<Vec<BsonType>>, ParseError> {
    match encrypt.get("bsonType") {
        None => Ok(None),
        Some(v) => {
            parse_type_set(v, "bsonType", &join(path, "bsonType"), BsonType::from_alias).map(Some)
        }
    }
}

/// Compiles a pattern the way the server does (PCRE2, UTF mode, no flags) to reject bad ones.
pub(crate) fn check_pattern(pattern: &str, path: &str) -> Result<(), ParseError> {
    if pattern.contains('\0') {
        return Err(invalid(
            path,
            BAD_VALUE,
            "Regular expression cannot contain an embedded null byte".to_string(),
        ));
    }
    crate::value::pattern::compile(pattern)
        .map(|_| ())
        .map_err(|reason| ParseError::InvalidPattern {
            path: path.to_string(),
            pattern: pattern.to_string(),
            reason,
        })
}

/// Compiles a `patternProperties` name as the server does (PCRE2, no options) to reject bad
/// ones: `InternalSchemaAllowedPropertiesMatchExpression`'s constructor fails with BadValue
/// "Invalid regular expression: ..." (not the 51091 of `pattern`).
pub(crate) fn check_name_pattern(pattern: &str, path: &str) -> Result<(), ParseError> {
    crate::value::pattern::compile_name(pattern)
        .map(|_| ())
        .map_err(|reason| invalid_name_pattern(path, &reason))
}

/// The server's error for a `patternProperties` name PCRE2 refuses.
pub(crate) fn invalid_name_pattern(path: &str, reason: &str) -> ParseError {
    invalid(
        path,
        BAD_VALUE,
        format!("Invalid regular expression: {reason}"),
    )
}

fn sub_schema(
    value: &Bson,
    path: &str,
    depth: usize,
    not_object: impl FnOnce() -> ParseError,
) -> Result<JsonSchema, ParseError> {
    match value {
        Bson::Document(d) => parse_node(d, path, false, depth + 1),
        _ => Err(not_object()),
    }
}

fn schema_list(
    value: &Bson,
    keyword: &str,
    path: &str,
    root: bool,
    depth: usize,
) -> Result<Vec<JsonSchema>, ParseError> {
    let kpath = join(path, keyword);
    let Bson::Array(items) = value else {
        return Err(invalid(
            &kpath,
            TYPE_MISMATCH,
            format!("$jsonSchema keyword '{keyword}' must be an array"),
        ));
    };
    if items.is_empty() {
        return Err(invalid(
            &kpath,
            BAD_VALUE,
            format!("$jsonSchema keyword '{keyword}' must be a non-empty array"),
        ));
    }
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let Bson::Document(d) = item else {
            return Err(invalid(
                &kpath,
                TYPE_MISMATCH,
                format!(
                    "$jsonSchema keyword '{keyword}' must be an array of objects, but found an element of type {}",
                    type_name(item)
                ),
            ));
        };
        // Branches apply to the same value: the root context carries over.
        out.push(parse_node(
            d,
            &join(&kpath, &i.to_string()),
            root,
            depth + 1,
        )?);
    }
    Ok(out)
}

fn additional(
    value: &Bson,
    keyword: &str,
    path: &str,
    depth: usize,
    message: impl FnOnce() -> String,
) -> Result<Additional, ParseError> {
    let kpath = join(path, keyword);
    match value {
        Bson::Boolean(b) => Ok(Additional::Allowed(*b)),
        Bson::Document(d) => Ok(Additional::Schema(Box::new(parse_node(
            d,
            &kpath,
            false,
            depth + 1,
        )?))),
        _ => Err(invalid(&kpath, TYPE_MISMATCH, message())),
    }
}

/// Server-equal values in `enum` (numbers by value, documents ignoring field order).
fn has_duplicate(values: &[Bson]) -> bool {
    let raws: Vec<Vec<u8>> = values
        .iter()
        .map(crate::value::compare::to_raw_value)
        .collect();
    for i in 0..raws.len() {
        for j in i + 1..raws.len() {
            if crate::value::compare::raw_values_equal(&raws[i], &raws[j]) {
                return true;
            }
        }
    }
    false
}

fn parse_node(
    doc: &Document,
    path: &str,
    root: bool,
    depth: usize,
) -> Result<JsonSchema, ParseError> {
    if depth > MAX_SCHEMA_DEPTH {
        return Err(ParseError::TooDeep {
            path: path.to_string(),
            limit: MAX_SCHEMA_DEPTH,
        });
    }
    for key in doc.keys() {
        if KNOWN.contains(&key.as_str()) {
            continue;
        }
        if UNSUPPORTED.contains(&key.as_str()) {
            return Err(ParseError::UnsupportedKeyword {
                path: join(path, key),
                keyword: key.clone(),
            });
        }
        return Err(ParseError::UnknownKeyword {
            path: join(path, key),
            keyword: key.clone(),
        });
    }
    let at = |k: &str| join(path, k);
    let mut s = JsonSchema::default();

    // Metadata: strings, otherwise ignored.
    for keyword in ["description", "title"] {
        if let Some(v) = doc.get(keyword) {
            let Bson::String(text) = v else {
                return Err(invalid(
                    &at(keyword),
                    TYPE_MISMATCH,
                    format!("$jsonSchema keyword '{keyword}' must be of type string"),
                ));
            };
            if keyword == "description" {
                s.description = Some(text.clone());
            } else {
                s.title = Some(text.clone());
            }
        }
    }

    let (ty, bson_ty, encrypt) = (doc.get("type"), doc.get("bsonType"), doc.get("encrypt"));
    if ty.is_some() && bson_ty.is_some() {
        return Err(invalid(
            &at("type"),
            FAILED_TO_PARSE,
            "Cannot specify both $jsonSchema keywords 'type' and 'bsonType'".to_string(),
        ));
    }
    if encrypt.is_some() && (ty.is_some() || bson_ty.is_some()) {
        let other = if ty.is_some() { "type" } else { "bsonType" };
        return Err(invalid(
            &at("encrypt"),
            FAILED_TO_PARSE,
            format!(
                "$jsonSchema keyword 'encrypt' cannot be used in conjunction with '{other}', 'encrypt' implies type 'bsonType::BinData'"
            ),
        ));
    }
    if let Some(v) = ty {
        s.types = Some(TypeConstraint::Type(parse_types(
            v,
            "type",
            &at("type"),
            JsonType::from_name,
        )?));
    } else if let Some(v) = bson_ty {
        s.types = Some(TypeConstraint::BsonType(parse_types(
            v,
            "bsonType",
            &at("bsonType"),
            BsonType::from_alias,
        )?));
    }

    // String keywords. At the root the server checks their type but never compiles the pattern:
    // a stored document is an object, so they cannot apply.
    if let Some(v) = doc.get("pattern") {
        let Bson::String(p) = v else {
            return Err(invalid(
                &at("pattern"),
                TYPE_MISMATCH,
                "$jsonSchema keyword 'pattern' must be a string".to_string(),
            ));
        };
        if !root {
            check_pattern(p, &at("pattern"))?;
        }
        s.pattern = Some(p.clone());
    }
    if let Some(v) = doc.get("maxLength") {
        s.max_length = Some(count(v, "maxLength", &at("maxLength"))?);
    }
    if let Some(v) = doc.get("minLength") {
        s.min_length = Some(count(v, "minLength", &at("minLength"))?);
    }

    // Number keywords.
    if let Some(v) = doc.get("multipleOf") {
        let Some(n) = number(v) else {
            return Err(invalid(
                &at("multipleOf"),
                TYPE_MISMATCH,
                "$jsonSchema keyword 'multipleOf' must be a number".to_string(),
            ));
        };
        let d = n.to_num().to_dec15();
        let non_positive = match d {
            Dec::NaN => false,
            Dec::Inf(neg) => neg,
            Dec::Finite { neg, coeff, .. } => neg || coeff == 0,
        };
        if non_positive {
            return Err(invalid(
                &at("multipleOf"),
                FAILED_TO_PARSE,
                "$jsonSchema keyword 'multipleOf' must have a positive value".to_string(),
            ));
        }
        // Below the root the server builds InternalSchemaFmodMatchExpression, whose
        // constructor refuses these divisors (expression_internal_schema_fmod.cpp: BadValue
        // "divisor cannot be NaN" / "divisor cannot be infinite"); at the root parseMultipleOf
        // returns AlwaysTrue before building it, so the root keeps them.
        if !root {
            let refused = match d {
                Dec::NaN => Some("divisor cannot be NaN"),
                Dec::Inf(_) => Some("divisor cannot be infinite"),
                Dec::Finite { .. } => None,
            };
            if let Some(reason) = refused {
                return Err(invalid(&at("multipleOf"), BAD_VALUE, reason.to_string()));
            }
        }
        s.multiple_of = Some(n);
    }
    for (bound, exclusive) in [
        ("maximum", "exclusiveMaximum"),
        ("minimum", "exclusiveMinimum"),
    ] {
        let excl_value = doc.get(exclusive);
        if let Some(v) = doc.get(bound) {
            let mut excl = None;
            if let Some(e) = excl_value {
                let Bson::Boolean(b) = e else {
                    return Err(invalid(
                        &at(exclusive),
                        TYPE_MISMATCH,
                        format!("$jsonSchema keyword '{exclusive}' must be a boolean"),
                    ));
                };
                excl = Some(*b);
            }
            let Some(n) = number(v) else {
                return Err(invalid(
                    &at(bound),
                    TYPE_MISMATCH,
                    format!("$jsonSchema keyword '{bound}' must be a number"),
                ));
            };
            if bound == "maximum" {
                s.maximum = Some(n);
                s.exclusive_maximum = excl;
            } else {
                s.minimum = Some(n);
                s.exclusive_minimum = excl;
            }
        } else if excl_value.is_some() {
            return Err(invalid(
                &at(exclusive),
                FAILED_TO_PARSE,
                format!(
                    "$jsonSchema keyword '{bound}' must be a present if {exclusive} is present"
                ),
            ));
        }
    }

    // Array keywords.
    if let Some(v) = doc.get("minItems") {
        s.min_items = Some(count(v, "minItems", &at("minItems"))?);
    }
    if let Some(v) = doc.get("maxItems") {
        s.max_items = Some(count(v, "maxItems", &at("maxItems"))?);
    }
    if let Some(v) = doc.get("uniqueItems") {
        let Bson::Boolean(b) = v else {
            return Err(invalid(
                &at("uniqueItems"),
                TYPE_MISMATCH,
                "$jsonSchema keyword 'uniqueItems' must be a boolean".to_string(),
            ));
        };
        s.unique_items = Some(*b);
    }
    if let Some(v) = doc.get("items") {
        let ipath = at("items");
        s.items = Some(match v {
            Bson::Document(d) => Items::Single(Box::new(parse_node(d, &ipath, false, depth + 1)?)),
            Bson::Array(list) => {
                let mut out = Vec::with_capacity(list.len());
                for (i, item) in list.iter().enumerate() {
                    let Bson::Document(d) = item else {
                        return Err(invalid(
                            &ipath,
                            TYPE_MISMATCH,
                            format!(
                                "$jsonSchema keyword 'items' requires that each element of the array is an object, but found a {}",
                                type_name(item)
                            ),
                        ));
                    };
                    out.push(parse_node(
                        d,
                        &join(&ipath, &i.to_string()),
                        false,
                        depth + 1,
                    )?);
                }
                Items::Positional(out)
            }
            other => {
                return Err(invalid(
                    &ipath,
                    TYPE_MISMATCH,
                    format!(
                        "$jsonSchema keyword 'items' must be an array or an object, not {}",
                        type_name(other)
                    ),
                ));
            }
        });
    }
    if let Some(v) = doc.get("additionalItems") {
        s.additional_items = Some(additional(v, "additionalItems", path, depth, || {
            format!(
                "$jsonSchema keyword 'additionalItems' must be either an object or a boolean, but got a {}",
                type_name(v)
            )
        })?);
    }

    // Encryption keywords: checked as the server's IDL parses them, then kept verbatim.
    let encrypt_metadata = doc.get("encryptMetadata");
    if encrypt.is_some() && encrypt_metadata.is_some() {
        return Err(invalid(
            &at("encrypt"),
            FAILED_TO_PARSE,
            "Cannot specify both $jsonSchema keywords 'encrypt' and 'encryptMetadata'".to_string(),
        ));
    }
    if let Some(v) = encrypt_metadata {
        match v {
            Bson::Document(d) if !d.is_empty() => {
                check_encryption_fields(d, "encryptMetadata", &at("encryptMetadata"))?;
                s.encrypt_metadata = Some(d.clone());
            }
            Bson::Document(_) => {
                return Err(invalid(
                    &at("encryptMetadata"),
                    FAILED_TO_PARSE,
                    "$jsonSchema keyword 'encryptMetadata' cannot be an empty object ".to_string(),
                ));
            }
            _ => {
                return Err(invalid(
                    &at("encryptMetadata"),
                    TYPE_MISMATCH,
                    "$jsonSchema keyword 'encryptMetadata' must be an object ".to_string(),
                ));
            }
        }
    }
    if let Some(v) = encrypt {
        let Bson::Document(d) = v else {
            return Err(invalid(
                &at("encrypt"),
                TYPE_MISMATCH,
                "$jsonSchema keyword 'encrypt' must be an object ".to_string(),
            ));
        };
        check_encryption_fields(d, "encrypt", &at("encrypt"))?;
        s.encrypt = Some(d.clone());
    }

    // Object keywords.
    if let Some(v) = doc.get("required") {
        let rpath = at("required");
        let Bson::Array(items) = v else {
            return Err(invalid(
                &rpath,
                TYPE_MISMATCH,
                format!(
                    "$jsonSchema keyword 'required' must be an array, but found an element of type {}",
                    type_name(v)
                ),
            ));
        };
        let mut names: Vec<String> = Vec::with_capacity(items.len());
        for item in items {
            let Bson::String(name) = item else {
                return Err(invalid(
                    &rpath,
                    TYPE_MISMATCH,
                    format!(
                        "$jsonSchema keyword 'required' must be an array of strings, but found an element of type: {}",
                        type_name(item)
                    ),
                ));
            };
            names.push(name.clone());
        }
        if names.is_empty() {
            return Err(invalid(
                &rpath,
                FAILED_TO_PARSE,
                "$jsonSchema keyword 'required' cannot be an empty array".to_string(),
            ));
        }
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        if sorted.len() != names.len() {
            return Err(invalid(
                &rpath,
                FAILED_TO_PARSE,
                "$jsonSchema keyword 'required' array cannot contain duplicate values".to_string(),
            ));
        }
        // translateRequired turns each name into an ExistsMatchExpression on that path, whose
        // FieldRef refuses an embedded NUL byte on recent servers (uassert 9867600; the
        // server's field_ref_test.cpp ConstructorRejectsEmbeddedNullChars).
        if names.iter().any(|n| n.contains('\0')) {
            return Err(invalid(
                &rpath,
                FIELD_PATH_NUL,
                "$jsonSchema keyword 'required' names a field path with an embedded null byte"
                    .to_string(),
            ));
        }
        s.required = Some(names);
    }
    if let Some(v) = doc.get("properties") {
        let ppath = at("properties");
        let Bson::Document(props) = v else {
            return Err(invalid(
                &ppath,
                TYPE_MISMATCH,
                "$jsonSchema keyword 'properties' must be an object".to_string(),
            ));
        };
        let mut out = IndexMap::with_capacity(props.len());
        for (name, value) in props {
            let sub_path = join(&ppath, name);
            let sub = sub_schema(value, &sub_path, depth, || {
                invalid(
                    &sub_path,
                    TYPE_MISMATCH,
                    format!("Nested schema for $jsonSchema property '{name}' must be an object"),
                )
            })?;
            out.insert(name.clone(), sub);
        }
        s.properties = out;
    }
    if let Some(v) = doc.get("patternProperties") {
        let ppath = at("patternProperties");
        let Bson::Document(props) = v else {
            return Err(invalid(
                &ppath,
                TYPE_MISMATCH,
                "$jsonSchema keyword 'patternProperties' must be an object".to_string(),
            ));
        };
        let mut out = IndexMap::with_capacity(props.len());
        for (pattern, value) in props {
            let sub_path = join(&ppath, pattern);
            let sub = sub_schema(value, &sub_path, depth, || {
                invalid(
                    &ppath,
                    TYPE_MISMATCH,
                    format!(
                        "$jsonSchema keyword 'patternProperties' has property '{pattern}' which is not an object"
                    ),
                )
            })?;
            check_name_pattern(pattern, &sub_path)?;
            out.insert(pattern.clone(), sub);
        }
        s.pattern_properties = out;
    }
    if let Some(v) = doc.get("additionalProperties") {
        s.additional_properties = Some(additional(v, "additionalProperties", path, depth, || {
            "$jsonSchema keyword 'additionalProperties' must be an object or a boolean".to_string()
        })?);
    }
    if let Some(v) = doc.get("minProperties") {
        s.min_properties = Some(count(v, "minProperties", &at("minProperties"))?);
    }
    if let Some(v) = doc.get("maxProperties") {
        s.max_properties = Some(count(v, "maxProperties", &at("maxProperties"))?);
    }
    if let Some(v) = doc.get("dependencies") {
        let dpath = at("dependencies");
        let Bson::Document(deps) = v else {
            return Err(invalid(
                &dpath,
                TYPE_MISMATCH,
                "$jsonSchema keyword 'dependencies' must be an object".to_string(),
            ));
        };
        let mut out = IndexMap::with_capacity(deps.len());
        for (name, value) in deps {
            let sub_path = join(&dpath, name);
            // The server lets `title` and `description` strings sit among the entries: they are
            // annotations of the `dependencies` rule, not dependencies.
            if let Bson::String(text) = value {
                match name.as_str() {
                    "title" => {
                        s.dependencies_title = Some(text.clone());
                        continue;
                    }
                    "description" => {
                        s.dependencies_description = Some(text.clone());
                        continue;
                    }
                    _ => {}
                }
            }
            let dep = match value {
                // A schema dependency applies to the same object: the root context carries over.
                Bson::Document(d) => {
                    Dependency::Schema(Box::new(parse_node(d, &sub_path, root, depth + 1)?))
                }
                Bson::Array(items) => {
                    if items.is_empty() {
                        return Err(invalid(
                            &sub_path,
                            FAILED_TO_PARSE,
                            format!(
                                "property '{name}' in $jsonSchema keyword 'dependencies' cannot be an empty array"
                            ),
                        ));
                    }
                    let mut names: Vec<String> = Vec::with_capacity(items.len());
                    for item in items {
                        let Bson::String(n) = item else {
                            return Err(invalid(
                                &sub_path,
                                TYPE_MISMATCH,
                                format!(
                                    "array '{name}' in $jsonSchema keyword 'dependencies' can only contain strings, but found element of type: {}",
                                    type_name(item)
                                ),
                            ));
                        };
                        if names.contains(n) {
                            return Err(invalid(
                                &sub_path,
                                FAILED_TO_PARSE,
                                format!(
                                    "array '{name}' in $jsonSchema keyword 'dependencies' contains duplicate element: {n}"
                                ),
                            ));
                        }
                        // makeDependencyExistsClause: an ExistsMatchExpression on the name as
                        // a path, whose FieldRef refuses a NUL byte (9867600), as in `required`.
                        if n.contains('\0') {
                            return Err(invalid(
                                &sub_path,
                                FIELD_PATH_NUL,
                                format!(
                                    "array '{name}' in $jsonSchema keyword 'dependencies' names a field path with an embedded null byte"
                                ),
                            ));
                        }
                        names.push(n.clone());
                    }
                    Dependency::Properties(names)
                }
                _ => {
                    return Err(invalid(
                        &sub_path,
                        TYPE_MISMATCH,
                        format!(
                            "property '{name}' in $jsonSchema keyword 'dependencies' must be either an object or an array"
                        ),
                    ));
                }
            };
            out.insert(name.clone(), dep);
        }
        s.dependencies = out;
    }

    // Logical keywords and enum.
    if let Some(v) = doc.get("allOf") {
        s.all_of = Some(schema_list(v, "allOf", path, root, depth)?);
    }
    if let Some(v) = doc.get("anyOf") {
        s.any_of = Some(schema_list(v, "anyOf", path, root, depth)?);
    }
    if let Some(v) = doc.get("oneOf") {
        s.one_of = Some(schema_list(v, "oneOf", path, root, depth)?);
    }
    if let Some(v) = doc.get("not") {
        let Bson::Document(d) = v else {
            return Err(invalid(
                &at("not"),
                TYPE_MISMATCH,
                format!(
                    "$jsonSchema keyword 'not' must be an object, but found an element of type {}",
                    type_name(v)
                ),
            ));
        };
        s.not = Some(Box::new(parse_node(d, &at("not"), root, depth + 1)?));
    }
    if let Some(v) = doc.get("enum") {
        let epath = at("enum");
        let Bson::Array(values) = v else {
            return Err(invalid(
                &epath,
                TYPE_MISMATCH,
                format!(
                    "$jsonSchema keyword 'enum' must be an array, but found an element of type {}",
                    type_name(v)
                ),
            ));
        };
        if values.is_empty() {
            return Err(invalid(
                &epath,
                FAILED_TO_PARSE,
                "$jsonSchema keyword 'enum' cannot be an empty array".to_string(),
            ));
        }
        if has_duplicate(values) {
            return Err(invalid(
                &epath,
                FAILED_TO_PARSE,
                "$jsonSchema keyword 'enum' array cannot contain duplicate values.".to_string(),
            ));
        }
        s.enumeration = Some(values.clone());
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    fn err(d: Document) -> ParseError {
        JsonSchema::from_document(&d).unwrap_err()
    }

    #[test]
    fn nested_errors_name_the_keyword_path() {
        let e = err(doc! { "properties": { "items": { "items": { "minimum": "x" } } } });
        assert_eq!(e.path(), "properties.items.items.minimum");
        assert_eq!(e.code(), TYPE_MISMATCH);
        assert_eq!(e.reason(), "$jsonSchema keyword 'minimum' must be a number");
    }

    #[test]
    fn counts_accept_whole_doubles_only() {
        let s = JsonSchema::from_document(&doc! { "minLength": 5.0 }).unwrap();
        assert_eq!(s.min_length, Some(5));
        let e = err(doc! { "minLength": 5.5 });
        assert_eq!(e.reason(), "Expected an integer: minLength: 5.5");
        let e = err(doc! { "maxItems": -1 });
        assert_eq!(
            e.reason(),
            "Expected a non-negative number in: maxItems: -1"
        );
    }

    #[test]
    fn round_trips_what_it_renders() {
        let d = doc! {
            "bsonType": "object",
            "required": ["a"],
            "properties": { "a": { "bsonType": ["int", "long"], "minimum": 0, "exclusiveMinimum": true } },
            "additionalProperties": false,
        };
        let s = JsonSchema::from_document(&d).unwrap();
        assert_eq!(JsonSchema::from_document(&s.to_document()).unwrap(), s);
    }

    #[test]
    fn root_pattern_is_not_compiled_but_nested_is() {
        assert!(JsonSchema::from_document(&doc! { "pattern": "(" }).is_ok());
        let e = err(doc! { "properties": { "a": { "pattern": "(" } } });
        assert_eq!(e.code(), INVALID_REGEX);
    }
}
