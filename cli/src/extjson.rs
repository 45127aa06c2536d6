//! Extended JSON in and out, keeping field order: key patterns and validators are ordered documents,
//! and a map-based JSON value would sort their keys.

use std::fmt::{self, Write as _};

use bson::{Bson, Document};
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};

/// Which Extended JSON dialect to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Every value with its type: `{"$numberInt": "5"}`. What `snapshot` writes.
    Canonical,
    /// Numbers as plain JSON numbers where lossless. What reports write.
    Relaxed,
}

/// Keys that open an Extended JSON wrapper (`{"$oid": ...}`), rather than a document field.
const WRAPPERS: &[&str] = &[
    "$oid",
    "$symbol",
    "$numberInt",
    "$numberLong",
    "$numberDouble",
    "$numberDecimal",
    "$binary",
    "$uuid",
    "$code",
    "$timestamp",
    "$regularExpression",
    "$dbPointer",
    "$date",
    "$maxKey",
    "$minKey",
    "$undefined",
];

/// Parses canonical or relaxed Extended JSON, keeping field order. A relaxed integer becomes
/// Int32 when it fits, Int64 otherwise, as the Extended JSON specification reads it.
///
/// # Errors
/// The JSON error, with line and column.
pub fn parse(text: &str) -> Result<Bson, serde_json::Error> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let value = deserializer.deserialize_any(OrderedVisitor)?;
    deserializer.end()?;
    Ok(value)
}

struct OrderedVisitor;

struct Ordered(Bson);

impl<'de> de::Deserialize<'de> for Ordered {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(OrderedVisitor).map(Ordered)
    }
}

fn integer(value: i128) -> Bson {
    match (i32::try_from(value), i64::try_from(value)) {
        (Ok(v), _) => Bson::Int32(v),
        (_, Ok(v)) => Bson::Int64(v),
        // Beyond Int64 the only lossless-enough reading left is a double.
        _ => Bson::Double(value as f64),
    }
}

impl<'de> Visitor<'de> for OrderedVisitor {
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
        while let Some(Ordered(v)) = seq.next_element()? {
            values.push(v);
        }
        Ok(Bson::Array(values))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Bson, A::Error> {
        let Some(first) = map.next_key::<String>()? else {
            return Ok(Bson::Document(Document::new()));
        };
        if WRAPPERS.contains(&first.as_str()) {
            // A type wrapper: small and unordered, so the library's reader can take it.
            let mut wrapper = serde_json::Map::new();
            wrapper.insert(first, map.next_value::<serde_json::Value>()?);
            while let Some(key) = map.next_key::<String>()? {
                wrapper.insert(key, map.next_value::<serde_json::Value>()?);
            }
            return Bson::try_from(serde_json::Value::Object(wrapper)).map_err(|e| {
                // bson's message wraps the useful part in its own framing.
                let text = e.to_string();
                let useful = text.split("Message: ").nth(1).unwrap_or(&text);
                de::Error::custom(useful.trim_end_matches('.'))
            });
        }
        let mut doc = Document::new();
        let Ordered(value) = map.next_value()?;
        doc.insert(first, value);
        while let Some(key) = map.next_key::<String>()? {
            let Ordered(value) = map.next_value()?;
            doc.insert(key, value);
        }
        Ok(Bson::Document(doc))
    }
}

/// Writes `value` as indented Extended JSON, fields in document order.
pub fn to_string_pretty(value: &Bson, mode: Mode) -> String {
    let mut out = String::new();
    write_value(&mut out, value, mode, 0);
    out
}

/// Writes `value` as Extended JSON on one line, fields in document order.
pub fn to_string_compact(value: &Bson, mode: Mode) -> String {
    let mut out = String::new();
    write_compact(&mut out, value, mode);
    out
}

fn scalar(value: &Bson, mode: Mode) -> String {
    let json = match mode {
        Mode::Canonical => value.clone().into_canonical_extjson(),
        Mode::Relaxed => value.clone().into_relaxed_extjson(),
    };
    json.to_string()
}

fn quote(key: &str) -> String {
    serde_json::Value::String(key.to_owned()).to_string()
}

fn write_value(out: &mut String, value: &Bson, mode: Mode, depth: usize) {
    let pad = "  ".repeat(depth + 1);
    let close = "  ".repeat(depth);
    match value {
        Bson::Document(doc) if !doc.is_empty() => {
            out.push_str("{\n");
            for (i, (key, v)) in doc.iter().enumerate() {
                let _ = write!(out, "{pad}{}: ", quote(key));
                write_value(out, v, mode, depth + 1);
                out.push_str(if i + 1 < doc.len() { ",\n" } else { "\n" });
            }
            let _ = write!(out, "{close}}}");
        }
        Bson::Array(items) if !items.is_empty() => {
            out.push_str("[\n");
            for (i, v) in items.iter().enumerate() {
                out.push_str(&pad);
                write_value(out, v, mode, depth + 1);
                out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
            }
            let _ = write!(out, "{close}]");
        }
        Bson::Document(_) => out.push_str("{}"),
        Bson::Array(_) => out.push_str("[]"),
        other => out.push_str(&scalar(other, mode)),
    }
}

fn write_compact(out: &mut String, value: &Bson, mode: Mode) {
    match value {
        Bson::Document(doc) => {
            out.push('{');
            for (i, (key, v)) in doc.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                let _ = write!(out, "{}: ", quote(key));
                write_compact(out, v, mode);
            }
            out.push('}');
        }
        Bson::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_compact(out, v, mode);
            }
            out.push(']');
        }
        other => out.push_str(&scalar(other, mode)),
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
        assert_eq!(
            to_string_compact(&value, Mode::Relaxed),
            r#"{"key": {"user_id": 1, "status": 1, "created_at": -1}, "name": "x"}"#
        );
    }

    #[test]
    fn canonical_wrappers_keep_their_types() {
        let text = r#"{"a": {"$numberLong": "5"}, "b": {"$numberDouble": "1.0"}, "c": {"$numberInt": "-1"}, "d": -1, "e": 3000000000}"#;
        let value = parse(text).unwrap();
        assert_eq!(
            value,
            Bson::Document(doc! {"a": 5_i64, "b": 1.0, "c": -1, "d": -1, "e": 3_000_000_000_i64})
        );
        let canonical = to_string_compact(&value, Mode::Canonical);
        assert_eq!(parse(&canonical).unwrap(), value);
    }

    #[test]
    fn query_operators_are_fields_not_wrappers() {
        let value =
            parse(r#"{"$jsonSchema": {"required": ["a"]}, "$or": [{"a": {"$regex": "x"}}]}"#)
                .unwrap();
        assert_eq!(
            value,
            Bson::Document(
                doc! {"$jsonSchema": {"required": ["a"]}, "$or": [{"a": {"$regex": "x"}}]}
            )
        );
    }

    #[test]
    fn errors_carry_line_and_column() {
        let err = parse("{\n  \"a\": [1,\n}").unwrap_err();
        assert_eq!(err.line(), 3);
        assert!(parse(r#"{"a": {"$numberInt": "x"}}"#).is_err());
    }
}
