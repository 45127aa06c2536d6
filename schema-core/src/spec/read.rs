//! Readers for option values in spec documents (manifest entries, server replies), lenient
//! exactly where the server is.

use bson::{Bson, Document};

use super::error::DocumentError;

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
