//! Schemas of the `time` crate's types. In non-human-readable formats such as BSON (both of
//! bson's serializers and its raw deserializer), `time` writes and reads a tuple of parts;
//! with the `serde-well-known` helpers (`time::serde::rfc3339`) a field is a string and needs
//! `#[mongo(schema_as)]`.
//!
//! Each part is bounded by the range `time` reads back. Years are the range of the `time` the
//! application links (`Date::MIN` to `Date::MAX`): -9999 to 9999 by default, -999999 to 999999
//! when any crate of the build turns on `time`'s `large-dates` (bson 2 does), so the validator
//! admits every year that build writes.
//! Known gaps of `$jsonSchema`: day 366 of a common year passes the validator and fails to read.
//!
//! `Weekday` and `Month` have no schema: `time` reads them only through `visit_u8`, which
//! bson's deserializer never calls (it hands over an `i32`), so neither reads back from BSON.

use super::{MongoSchema, SchemaGenerator, Visiting, tuple};
use crate::schema::{JsonSchema, Number};

fn part(mut schema: JsonSchema, lo: i64, hi: i64) -> JsonSchema {
    schema.minimum = Some(Number::integer(i128::from(lo)));
    schema.maximum = Some(Number::integer(i128::from(hi)));
    schema
}

/// `(year: i32, ordinal: u16)`.
fn date_parts(g: &mut SchemaGenerator) -> Vec<JsonSchema> {
    vec![
        part(
            i32::json_schema(g),
            i64::from(time::Date::MIN.year()),
            i64::from(time::Date::MAX.year()),
        ),
        part(u16::json_schema(g), 1, 366),
    ]
}

/// `(hour, minute, second: u8, nanosecond: u32)`.
fn time_parts(g: &mut SchemaGenerator) -> Vec<JsonSchema> {
    vec![
        part(u8::json_schema(g), 0, 23),
        part(u8::json_schema(g), 0, 59),
        part(u8::json_schema(g), 0, 59),
        part(u32::json_schema(g), 0, 999_999_999),
    ]
}

/// `(hours, minutes, seconds: i8)`, each signed like the whole offset.
fn offset_parts(g: &mut SchemaGenerator) -> Vec<JsonSchema> {
    vec![
        part(i8::json_schema(g), -25, 25),
        part(i8::json_schema(g), -59, 59),
        part(i8::json_schema(g), -59, 59),
    ]
}

impl MongoSchema for time::OffsetDateTime {
    fn distinct_forms(_: &mut Visiting) -> bool {
        true
    }
    fn json_schema(g: &mut SchemaGenerator) -> JsonSchema {
        let mut parts = date_parts(g);
        parts.extend(time_parts(g));
        parts.extend(offset_parts(g));
        tuple(parts)
    }
}

impl MongoSchema for time::PrimitiveDateTime {
    fn distinct_forms(_: &mut Visiting) -> bool {
        true
    }
    fn json_schema(g: &mut SchemaGenerator) -> JsonSchema {
        let mut parts = date_parts(g);
        parts.extend(time_parts(g));
        tuple(parts)
    }
}

impl MongoSchema for time::UtcDateTime {
    fn distinct_forms(_: &mut Visiting) -> bool {
        true
    }
    fn json_schema(g: &mut SchemaGenerator) -> JsonSchema {
        time::PrimitiveDateTime::json_schema(g)
    }
}

impl MongoSchema for time::Date {
    fn distinct_forms(_: &mut Visiting) -> bool {
        true
    }
    fn json_schema(g: &mut SchemaGenerator) -> JsonSchema {
        tuple(date_parts(g))
    }
}

impl MongoSchema for time::Time {
    fn distinct_forms(_: &mut Visiting) -> bool {
        true
    }
    fn json_schema(g: &mut SchemaGenerator) -> JsonSchema {
        tuple(time_parts(g))
    }
}

impl MongoSchema for time::UtcOffset {
    fn distinct_forms(_: &mut Visiting) -> bool {
        true
    }
    fn json_schema(g: &mut SchemaGenerator) -> JsonSchema {
        tuple(offset_parts(g))
    }
}

impl MongoSchema for time::Duration {
    fn distinct_forms(_: &mut Visiting) -> bool {
        true
    }
    fn json_schema(g: &mut SchemaGenerator) -> JsonSchema {
        // `(whole seconds: i64, nanoseconds: i32)`, the nanoseconds signed like the seconds.
        tuple(vec![
            i64::json_schema(g),
            part(i32::json_schema(g), -999_999_999, 999_999_999),
        ])
    }
}
