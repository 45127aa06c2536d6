//! String forms that serde writes for some types (dates as RFC 3339, object ids as hex), as
//! `$jsonSchema` string schemas with the tightest pattern the server's PCRE can check.

use crate::schema::{BsonType, JsonSchema};

fn string_matching(pattern: &str) -> JsonSchema {
    JsonSchema {
        pattern: Some(pattern.to_owned()),
        ..JsonSchema::bson_type(BsonType::String)
    }
}

/// An RFC 3339 date-time string such as `2026-01-15T10:00:00Z` or `...10:00:00.5+05:30`.
///
/// The pattern checks the syntax and field ranges; it cannot check the calendar (February 30
/// passes the validator and fails to parse): a documented gap of `$jsonSchema`.
/// `\z` rather than `$`: PCRE's `$` also matches before a final newline.
pub fn rfc3339_string() -> JsonSchema {
    string_matching(
        r"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt ]([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)(\.[0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])\z",
    )
}

/// A calendar date string such as `2026-01-15`, as chrono writes a `NaiveDate`.
pub fn naive_date_string() -> JsonSchema {
    string_matching(r"^[+-]?[0-9]{4,}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])\z")
}

/// A 24-digit hexadecimal string: an ObjectId as bson's `object_id::AsHexString` writes it.
pub fn object_id_hex_string() -> JsonSchema {
    string_matching(r"^[0-9a-fA-F]{24}\z")
}
