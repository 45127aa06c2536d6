//! String forms that serde writes for some types (dates as RFC 3339, object ids as hex), as
//! `$jsonSchema` string schemas with the tightest pattern the server's PCRE can check.
//!
//! Each pattern is checked against what its crate really writes (the corpus property-tests
//! the crates' extreme values: first and last dates, leap seconds, nanosecond fractions,
//! offsets). `\z` rather than `$`: PCRE's `$` also matches before a final newline.

use crate::schema::{BsonType, JsonSchema};

fn string_matching(pattern: &str) -> JsonSchema {
    JsonSchema {
        pattern: Some(pattern.to_owned()),
        ..JsonSchema::bson_type(BsonType::String)
    }
}

/// An RFC 3339 date-time string such as `2026-01-15T10:00:00Z` or `...10:00:00.5+05:30`, as
/// bson's `datetime::AsRfc3339String` writes and reads it (`time`'s `Rfc3339`, years 0000
/// to 9999 only).
///
/// The pattern checks the syntax and field ranges; it cannot check the calendar (February 30
/// passes the validator and fails to parse): a documented gap of `$jsonSchema`.
pub fn rfc3339_string() -> JsonSchema {
    string_matching(
        r"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt ]([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)(\.[0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])\z",
    )
}

/// chrono's year: four digits for 0 to 9999, else signed (`-0001`, `+10000`, `-262143`), as
/// its `write_rfc3339` and `NaiveDate`'s `Debug` write it.
const CHRONO_YEAR: &str = r"([0-9]{4}|-[0-9]{4,6}|\+[0-9]{5,6})";
const MONTH_DAY: &str = r"-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])";
/// chrono's time of day: a leap second is second 60, and a fraction has 3, 6 or 9 digits
/// (`SecondsFormat::AutoSi`).
const CHRONO_TIME: &str =
    r"([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)(\.[0-9]{3}|\.[0-9]{6}|\.[0-9]{9})?";

/// A `chrono::DateTime` as chrono's `Serialize` writes it: RFC 3339 with `T`, chrono's years
/// and fractions, `Z` for a zero offset and otherwise the offset rounded to minutes.
///
/// chrono rounds an offset of 23:59:30 or more to `+24:00`, which it then cannot read: the
/// validator refuses it.
pub fn chrono_date_time_string() -> JsonSchema {
    string_matching(&format!(
        r"^{CHRONO_YEAR}{MONTH_DAY}T{CHRONO_TIME}(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])\z"
    ))
}

/// A `chrono::NaiveDateTime`: the same without an offset.
pub fn chrono_naive_date_time_string() -> JsonSchema {
    string_matching(&format!(r"^{CHRONO_YEAR}{MONTH_DAY}T{CHRONO_TIME}\z"))
}

/// A calendar date string such as `2026-01-15` or `-0001-12-31`, as chrono writes a
/// `NaiveDate`.
pub fn naive_date_string() -> JsonSchema {
    string_matching(&format!(r"^{CHRONO_YEAR}{MONTH_DAY}\z"))
}

/// A time of day such as `10:00:00` or `23:59:60.5`, as chrono writes a `NaiveTime`.
pub fn naive_time_string() -> JsonSchema {
    string_matching(&format!(r"^{CHRONO_TIME}\z"))
}

/// A 24-digit hexadecimal string: an ObjectId as bson's `object_id::AsHexString` writes it.
pub fn object_id_hex_string() -> JsonSchema {
    string_matching(r"^[0-9a-fA-F]{24}\z")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(schema: &JsonSchema, s: &str) -> bool {
        let pattern = schema.pattern.as_deref().expect("a pattern");
        // The engine the evaluator runs (PCRE2 10.42, as the server vendors).
        mongo_schema_pcre2::Regex::new(pattern)
            .expect("compiles")
            .is_match(s.as_bytes())
            .expect("matches")
    }

    #[test]
    fn chrono_years_outside_four_digits_are_signed() {
        let s = chrono_date_time_string();
        for ok in [
            "+10000-01-01T00:00:00Z",
            "-0001-12-31T23:59:59.999999999Z",
            "+262142-12-31T23:59:59.999999999Z",
            "-262143-01-01T00:00:00Z",
            "2026-06-30T23:59:60.500-05:30",
        ] {
            assert!(matches(&s, ok), "{ok}");
        }
        for bad in [
            "10000-01-01T00:00:00Z",
            "+2026-01-01T00:00:00Z",
            "2026-01-01T00:00:00.5Z",
            "2026-01-01T00:00:00+24:00",
        ] {
            assert!(!matches(&s, bad), "{bad}");
        }
        assert!(matches(&naive_date_string(), "-0001-01-01"));
        assert!(matches(&naive_time_string(), "23:59:60.999999999"));
    }
}
