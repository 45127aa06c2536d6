//! The one Extended JSON reader and writer (canonical and relaxed, in and out, field order kept):
//! manifests, snapshot files, schema files, `validate` inputs and every report read or write
//! Extended JSON through here.
//!
//! Reading follows the [Extended JSON specification]: a relaxed integer is an Int32 when it fits
//! and an Int64 otherwise, and a document whose first key is a type wrapper (`$oid`, `$date`,
//! `$numberLong`, ...) is that value. Each wrapper is read by bson's own
//! `Bson::try_from(serde_json::Value)`, so the forms it accepts are bson's. What bson does not
//! give, and this module adds:
//! - field order without an intermediate map (key patterns and validators are ordered);
//! - the Int32/Int64 rule for negative numbers (`serde_json::from_str::<Bson>` reads `-5` as an
//!   Int64 and `5` as an Int32, because serde hands negative numbers over as `i64`);
//! - errors that name the line, the column and the field path (`orders.2.created`) and what was
//!   expected, instead of bson's `Kind: ... Message: ...` text without a place.
//!
//! Writing converts each scalar with bson's `into_relaxed_extjson`/`into_canonical_extjson`; only
//! the layout is ours, because serde_json's pretty printer would spread every type wrapper
//! (`{"$numberLong": "5"}`) over three lines.
//!
//! [Extended JSON specification]: https://github.com/mongodb/specifications/blob/master/source/extended-json/extended-json.md

use std::cell::RefCell;
use std::fmt::{self, Write as _};

use bson::{Bson, Document};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

pub use crate::schema::ExtJsonMode;

/// Text that is not Extended JSON: where, and what was expected there.
///
/// ```
/// let err = mongo_schema::extjson::parse(r#"{"orders": [{"at": {"$date": "garbage"}}]}"#).unwrap_err();
/// assert_eq!((err.line, err.path.as_str()), (1, "orders.0.at"));
/// assert!(err.to_string().contains("ISO-8601"), "{err}");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}{}: {message}", at_path(.path))]
#[non_exhaustive]
pub struct ExtJsonError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// The field where reading stopped, dotted with array positions (`orders.2.created`);
    /// empty at the top.
    pub path: String,
    /// What was wrong and what was expected.
    pub message: String,
}

fn at_path(path: &str) -> String {
    if path.is_empty() {
        String::new()
    } else {
        format!(", at {path}")
    }
}

/// The type wrappers of Extended JSON, each with the forms it accepts (what an error shows).
/// `$regex` is not here: in a query or validator it is the operator, and bson's reading of the
/// legacy `{"$regex", "$options"}` form would turn a filter into a regular expression.
const WRAPPERS: &[(&str, &str)] = &[
    ("$oid", r#"{"$oid": "<24 hex digits>"}"#),
    ("$symbol", r#"{"$symbol": "<string>"}"#),
    (
        "$numberInt",
        r#"{"$numberInt": "<32-bit integer, as a string>"}"#,
    ),
    (
        "$numberLong",
        r#"{"$numberLong": "<64-bit integer, as a string>"}"#,
    ),
    (
        "$numberDouble",
        r#"{"$numberDouble": "<number, Infinity, -Infinity or NaN, as a string>"}"#,
    ),
    (
        "$numberDecimal",
        r#"{"$numberDecimal": "<decimal number, as a string>"}"#,
    ),
    (
        "$binary",
        r#"{"$binary": {"base64": "<base64>", "subType": "<hex byte>"}}"#,
    ),
    ("$uuid", r#"{"$uuid": "<8-4-4-4-12 hex digits>"}"#),
    (
        "$code",
        r#"{"$code": "<string>"} or {"$code": "<string>", "$scope": {...}}"#,
    ),
    (
        "$timestamp",
        r#"{"$timestamp": {"t": <seconds>, "i": <increment>}}"#,
    ),
    (
        "$regularExpression",
        r#"{"$regularExpression": {"pattern": "<string>", "options": "<flags>"}}"#,
    ),
    (
        "$dbPointer",
        r#"{"$dbPointer": {"$ref": "<namespace>", "$id": {"$oid": "<24 hex digits>"}}}"#,
    ),
    (
        "$date",
        r#"{"$date": "2024-01-31T12:00:00Z"} (ISO-8601 with a time zone), {"$date": {"$numberLong": "<milliseconds since 1970>"}} or {"$date": <milliseconds since 1970>}"#,
    ),
    ("$maxKey", r#"{"$maxKey": 1}"#),
    ("$minKey", r#"{"$minKey": 1}"#),
    ("$undefined", r#"{"$undefined": true}"#),
];

/// Parses canonical or relaxed Extended JSON, keeping field order.
///
/// ```
/// use bson::{Bson, doc};
/// let value = mongo_schema::extjson::parse(r#"{"b": -5, "a": {"$numberLong": "5"}}"#).unwrap();
/// assert_eq!(value, Bson::Document(doc! {"b": -5_i32, "a": 5_i64}));
/// ```
///
/// # Errors
/// [`ExtJsonError`] with the line, column and field path of the first problem.
pub fn parse(text: &str) -> Result<Bson, ExtJsonError> {
    read(&mut serde_json::Deserializer::from_str(text))
}

/// [`parse`] from bytes (a line of a JSON lines file).
///
/// # Errors
/// As [`parse`]; bytes that are not UTF-8 are an error at their position.
pub fn parse_slice(bytes: &[u8]) -> Result<Bson, ExtJsonError> {
    read(&mut serde_json::Deserializer::from_slice(bytes))
}

/// [`parse`], requiring a document at the top.
///
/// # Errors
/// As [`parse`], and an error at line 1, column 1 when the top is not an object.
pub fn parse_document(text: &str) -> Result<Document, ExtJsonError> {
    document(parse(text)?)
}

/// [`parse_slice`], requiring a document at the top.
///
/// # Errors
/// As [`parse_document`].
pub fn parse_document_slice(bytes: &[u8]) -> Result<Document, ExtJsonError> {
    document(parse_slice(bytes)?)
}

fn document(value: Bson) -> Result<Document, ExtJsonError> {
    match value {
        Bson::Document(doc) => Ok(doc),
        other => Err(ExtJsonError {
            line: 1,
            column: 1,
            path: String::new(),
            message: format!(
                "expected a document (a JSON object), found {}",
                describe(&other)
            ),
        }),
    }
}

fn describe(value: &Bson) -> String {
    let text = to_string_compact(value, ExtJsonMode::Relaxed);
    if text.chars().count() > 60 {
        let cut: String = text.chars().take(57).collect();
        format!("{cut}...")
    } else {
        text
    }
}

fn read<'de, R: serde_json::de::Read<'de>>(
    deserializer: &mut serde_json::Deserializer<R>,
) -> Result<Bson, ExtJsonError> {
    let path = RefCell::new(Vec::new());
    let result = ValueSeed { path: &path }
        .deserialize(&mut *deserializer)
        .and_then(|value| deserializer.end().map(|()| value));
    result.map_err(|e| {
        // The stack is left as it was where reading stopped: each level pops only on success.
        let path = render_path(&path.borrow());
        let full = e.to_string();
        let suffix = format!(" at line {} column {}", e.line(), e.column());
        let message = full.strip_suffix(&suffix).unwrap_or(&full).to_owned();
        ExtJsonError {
            line: e.line(),
            column: e.column(),
            path,
            message,
        }
    })
}

enum Segment {
    Key(String),
    Index(usize),
}

fn render_path(segments: &[Segment]) -> String {
    let mut out = String::new();
    for (i, segment) in segments.iter().enumerate() {
        if i > 0 {
            out.push('.');
        }
        match segment {
            Segment::Key(key) => out.push_str(key),
            Segment::Index(index) => {
                let _ = write!(out, "{index}");
            }
        }
    }
    out
}

/// Reads one value, keeping the field path of where it is on `path`.
#[derive(Clone, Copy)]
struct ValueSeed<'p> {
    path: &'p RefCell<Vec<Segment>>,
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = Bson;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Bson, D::Error> {
        deserializer.deserialize_any(self)
    }
}

/// A relaxed integer as the specification reads it: Int32 when it fits, else Int64.
fn integer(value: i128) -> Bson {
    match (i32::try_from(value), i64::try_from(value)) {
        (Ok(v), _) => Bson::Int32(v),
        (_, Ok(v)) => Bson::Int64(v),
        // Beyond Int64 (a u64 only) a double is what bson's own reader gives too.
        #[expect(
            clippy::cast_precision_loss,
            reason = "no BSON integer holds it; bson reads it as a double as well"
        )]
        _ => Bson::Double(value as f64),
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_> {
    type Value = Bson;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an Extended JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Bson, E> {
        Ok(Bson::Boolean(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Bson, E> {
        Ok(integer(i128::from(v)))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Bson, E> {
        Ok(integer(i128::from(v)))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Bson, E> {
        Ok(Bson::Double(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Bson, E> {
        Ok(Bson::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Bson, E> {
        Ok(Bson::String(v))
    }
    fn visit_unit<E>(self) -> Result<Bson, E> {
        Ok(Bson::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Bson, A::Error> {
        let mut values = Vec::new();
        loop {
            self.path.borrow_mut().push(Segment::Index(values.len()));
            let Some(value) = seq.next_element_seed(self)? else {
                self.path.borrow_mut().pop();
                break;
            };
            self.path.borrow_mut().pop();
            values.push(value);
        }
        Ok(Bson::Array(values))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Bson, A::Error> {
        let Some(first) = map.next_key::<String>()? else {
            return Ok(Bson::Document(Document::new()));
        };
        if let Some(&(_, forms)) = WRAPPERS.iter().find(|(key, _)| *key == first) {
            // A type wrapper: small, so bson's own reader takes it whole.
            let mut wrapper = serde_json::Map::new();
            wrapper.insert(first.clone(), map.next_value::<serde_json::Value>()?);
            while let Some(key) = map.next_key::<String>()? {
                wrapper.insert(key, map.next_value::<serde_json::Value>()?);
            }
            let found = serde_json::Value::Object(wrapper.clone()).to_string();
            // bson's error text ("BSON error. Kind: ... Message: ...") names neither the place
            // nor the forms; the place comes with this error, the forms from the table.
            return Bson::try_from(serde_json::Value::Object(wrapper)).map_err(|_| {
                de::Error::custom(format!("{found} is not a valid {first}; expected {forms}"))
            });
        }
        let mut doc = Document::new();
        let mut key = first;
        loop {
            self.path.borrow_mut().push(Segment::Key(key.clone()));
            let value = map.next_value_seed(self)?;
            self.path.borrow_mut().pop();
            doc.insert(key, value);
            match map.next_key::<String>()? {
                Some(next) => key = next,
                None => break,
            }
        }
        Ok(Bson::Document(doc))
    }
}

/// Converts a value to a `serde_json::Value` (bson's own conversion; field order is kept, as the
/// workspace enables serde_json's `preserve_order`).
pub fn to_value(value: &Bson, mode: ExtJsonMode) -> serde_json::Value {
    match mode {
        ExtJsonMode::Relaxed => value.clone().into_relaxed_extjson(),
        ExtJsonMode::Canonical => value.clone().into_canonical_extjson(),
    }
}

/// How text is laid out over lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Layout {
    /// Everything on one line: `{"a": 1, "b": [1, 2]}`.
    Compact,
    /// Every non-empty document and array over several lines, two spaces per level, as
    /// serde_json's pretty printer does (type wrappers stay on one line).
    Indented,
    /// As `Indented`, but short flat documents (at most four fields of scalars or arrays of
    /// scalars) and arrays of scalars on one line: what manifests and snapshot files use.
    Short,
}

/// Writes `value` as pretty Extended JSON in the [`Layout::Short`] layout, fields in document
/// order.
///
/// ```
/// use mongo_schema::extjson::{ExtJsonMode, to_string_pretty};
/// let text = to_string_pretty(&bson::Bson::Document(bson::doc! { "b": 1_i64, "a": [] }), ExtJsonMode::Canonical);
/// assert_eq!(text, r#"{"b": {"$numberLong":"1"}, "a": []}"#);
/// ```
pub fn to_string_pretty(value: &Bson, mode: ExtJsonMode) -> String {
    to_string(value, mode, Layout::Short)
}

/// Writes `value` on one line ([`Layout::Compact`]), fields in document order.
pub fn to_string_compact(value: &Bson, mode: ExtJsonMode) -> String {
    to_string(value, mode, Layout::Compact)
}

/// Writes `value` as Extended JSON in `mode` and `layout`, fields in document order.
pub fn to_string(value: &Bson, mode: ExtJsonMode, layout: Layout) -> String {
    let mut out = String::new();
    write_value(&mut out, value, mode, layout, 0);
    out
}

fn is_scalar(value: &Bson) -> bool {
    match value {
        Bson::Document(d) => d.is_empty(),
        Bson::Array(a) => a.is_empty(),
        _ => true,
    }
}

/// Whether `value` is written on one line in `layout`.
fn fits_on_line(value: &Bson, layout: Layout) -> bool {
    match (layout, value) {
        (Layout::Compact, _) => true,
        (Layout::Indented, v) => is_scalar(v),
        (Layout::Short, Bson::Array(items)) => items.iter().all(is_scalar),
        (Layout::Short, Bson::Document(doc)) => {
            doc.len() <= 4
                && doc.values().all(|v| match v {
                    Bson::Array(items) => items.iter().all(is_scalar),
                    other => is_scalar(other),
                })
        }
        (Layout::Short, _) => true,
    }
}

fn quote(key: &str) -> String {
    serde_json::Value::String(key.to_owned()).to_string()
}

fn indent(out: &mut String, depth: usize) {
    for _ in 0..depth {
        out.push_str("  ");
    }
}

fn write_value(out: &mut String, value: &Bson, mode: ExtJsonMode, layout: Layout, depth: usize) {
    let inline = fits_on_line(value, layout);
    match value {
        Bson::Document(doc) if !doc.is_empty() => {
            out.push('{');
            for (i, (key, v)) in doc.iter().enumerate() {
                if inline {
                    out.push_str(if i > 0 { ", " } else { "" });
                } else {
                    out.push_str(if i > 0 { ",\n" } else { "\n" });
                    indent(out, depth + 1);
                }
                let _ = write!(out, "{}: ", quote(key));
                write_value(out, v, mode, layout, depth + 1);
            }
            if !inline {
                out.push('\n');
                indent(out, depth);
            }
            out.push('}');
        }
        Bson::Array(items) if !items.is_empty() => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if inline {
                    out.push_str(if i > 0 { ", " } else { "" });
                } else {
                    out.push_str(if i > 0 { ",\n" } else { "\n" });
                    indent(out, depth + 1);
                }
                write_value(out, v, mode, layout, depth + 1);
            }
            if !inline {
                out.push('\n');
                indent(out, depth);
            }
            out.push(']');
        }
        Bson::Document(_) => out.push_str("{}"),
        Bson::Array(_) => out.push_str("[]"),
        scalar => out.push_str(&to_value(scalar, mode).to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    #[test]
    fn field_order_survives_reading_and_writing() {
        let text = r#"{"key": {"user_id": 1, "status": 1, "created_at": -1}, "name": "x"}"#;
        let value = parse(text).unwrap();
        assert_eq!(
            value,
            Bson::Document(
                doc! {"key": {"user_id": 1, "status": 1, "created_at": -1}, "name": "x"}
            )
        );
        assert_eq!(to_string_compact(&value, ExtJsonMode::Relaxed), text);
    }

    #[test]
    fn relaxed_integers_are_int32_when_they_fit_whatever_their_sign() {
        let value = parse(r#"{"a": -5, "b": 5, "c": -3000000000, "d": 3000000000}"#).unwrap();
        assert_eq!(
            value,
            Bson::Document(
                doc! {"a": -5_i32, "b": 5_i32, "c": -3_000_000_000_i64, "d": 3_000_000_000_i64}
            )
        );
        // The same rule as bson's own reading of a serde_json value.
        let json: serde_json::Value =
            serde_json::from_str(r#"{"a": -5, "b": 5, "c": -3000000000}"#).unwrap();
        assert_eq!(
            Bson::try_from(json).unwrap(),
            parse(r#"{"a": -5, "b": 5, "c": -3000000000}"#).unwrap()
        );
    }

    #[test]
    fn canonical_wrappers_keep_their_types_and_round_trip() {
        let text = r#"{"a": {"$numberLong": "5"}, "b": {"$numberDouble": "1.0"}, "c": {"$numberInt": "-1"}, "d": {"$date": "2024-01-31T12:00:00Z"}, "e": {"$oid": "65b9b1a0c0ffee0000000001"}}"#;
        let value = parse(text).unwrap();
        for layout in [Layout::Compact, Layout::Indented, Layout::Short] {
            let text = to_string(&value, ExtJsonMode::Canonical, layout);
            assert_eq!(parse(&text).unwrap(), value);
            // Relaxed drops the width of a small Int64, as the specification says it may.
            let relaxed = parse(&to_string(&value, ExtJsonMode::Relaxed, layout)).unwrap();
            assert_eq!(
                relaxed.as_document().unwrap().get("a"),
                Some(&Bson::Int32(5))
            );
            assert_eq!(
                relaxed.as_document().unwrap().get("e"),
                value.as_document().unwrap().get("e")
            );
        }
    }

    #[test]
    fn query_operators_are_fields_not_wrappers() {
        let value =
            parse(r#"{"$jsonSchema": {"required": ["a"]}, "$or": [{"a": {"$regex": "x", "$options": "i"}}]}"#)
                .unwrap();
        assert_eq!(
            value,
            Bson::Document(
                doc! {"$jsonSchema": {"required": ["a"]}, "$or": [{"a": {"$regex": "x", "$options": "i"}}]}
            )
        );
    }

    #[test]
    fn syntax_errors_name_line_column_and_field_once() {
        let err = parse("{\n  \"a\": [1,\n    {\"b\": }\n  ]\n}").unwrap_err();
        assert_eq!((err.line, err.column, err.path.as_str()), (3, 11, "a.1.b"));
        assert_eq!(
            err.to_string(),
            "line 3, column 11, at a.1.b: expected value"
        );
    }

    #[test]
    fn bad_wrappers_name_the_field_and_the_accepted_forms_without_bson_internals() {
        let err = parse("{\"orders\": [\n{\"at\": {\"$date\": \"garbage\"}}]}").unwrap_err();
        assert_eq!(err.path, "orders.0.at");
        assert_eq!(err.line, 2);
        let text = err.to_string();
        assert!(
            text.contains(r#"{"$date":"garbage"} is not a valid $date"#),
            "{text}"
        );
        assert!(text.contains("ISO-8601"), "{text}");
        assert!(
            !text.contains("Kind:") && !text.contains("Message:"),
            "{text}"
        );
        let err = parse(r#"{"n": {"$numberInt": "x"}}"#).unwrap_err();
        assert!(err.to_string().contains("32-bit integer"), "{err}");
    }

    #[test]
    fn a_document_is_required_where_asked() {
        let err = parse_document("[1]").unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 1, column 1: expected a document (a JSON object), found [1]"
        );
    }

    #[test]
    fn layouts() {
        let value = Bson::Document(doc! {"a": {"b": 1_i64, "c": [1, 2]}, "d": [{"e": 1}], "f": {}});
        assert_eq!(
            to_string(&value, ExtJsonMode::Relaxed, Layout::Short),
            "{\n  \"a\": {\"b\": 1, \"c\": [1, 2]},\n  \"d\": [\n    {\"e\": 1}\n  ],\n  \"f\": {}\n}"
        );
        assert_eq!(
            to_string(&value, ExtJsonMode::Relaxed, Layout::Indented),
            serde_json::to_string_pretty(&to_value(&value, ExtJsonMode::Relaxed)).unwrap()
        );
        assert_eq!(
            to_string(&value, ExtJsonMode::Canonical, Layout::Compact),
            r#"{"a": {"b": {"$numberLong":"1"}, "c": [{"$numberInt":"1"}, {"$numberInt":"2"}]}, "d": [{"e": {"$numberInt":"1"}}], "f": {}}"#
        );
    }
}
