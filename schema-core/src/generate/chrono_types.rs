//! Schemas of chrono's types as chrono's own `Serialize` writes them (strings, and a tuple
//! for `TimeDelta`); a BSON date needs bson's `datetime::FromChrono04DateTime` helper, which
//! the derive recognises.

use super::derive_support::any_of;
use super::{MongoSchema, SchemaGenerator, Visiting, string_enum, tuple};
use crate::formats;
use crate::schema::{JsonSchema, Number};

impl<Tz: chrono::TimeZone> MongoSchema for chrono::DateTime<Tz> {
    fn distinct_forms(_: &mut Visiting) -> bool {
        true
    }
    fn json_schema(_: &mut SchemaGenerator) -> JsonSchema {
        formats::chrono_date_time_string()
    }
}

impl MongoSchema for chrono::NaiveDateTime {
    fn distinct_forms(_: &mut Visiting) -> bool {
        true
    }
    fn json_schema(_: &mut SchemaGenerator) -> JsonSchema {
        formats::chrono_naive_date_time_string()
    }
}

impl MongoSchema for chrono::NaiveDate {
    fn distinct_forms(_: &mut Visiting) -> bool {
        true
    }
    fn json_schema(_: &mut SchemaGenerator) -> JsonSchema {
        formats::naive_date_string()
    }
}

impl MongoSchema for chrono::NaiveTime {
    fn distinct_forms(_: &mut Visiting) -> bool {
        true
    }
    fn json_schema(_: &mut SchemaGenerator) -> JsonSchema {
        formats::naive_time_string()
    }
}

impl MongoSchema for chrono::Weekday {
    fn distinct_forms(_: &mut Visiting) -> bool {
        true
    }
    fn json_schema(_: &mut SchemaGenerator) -> JsonSchema {
        // Written by `Display` as the short name; read by `FromStr` (short or long, any case).
        string_enum(["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"])
    }
}

impl MongoSchema for chrono::Month {
    fn distinct_forms(_: &mut Visiting) -> bool {
        true
    }
    fn json_schema(_: &mut SchemaGenerator) -> JsonSchema {
        // Written as `Month::name()`.
        string_enum([
            "January",
            "February",
            "March",
            "April",
            "May",
            "June",
            "July",
            "August",
            "September",
            "October",
            "November",
            "December",
        ])
    }
}

impl MongoSchema for chrono::TimeDelta {
    fn distinct_forms(_: &mut Visiting) -> bool {
        true
    }
    fn json_schema(g: &mut SchemaGenerator) -> JsonSchema {
        // `(secs: i64, nanos: i32)`, read back through `TimeDelta::new`, which refuses nanos
        // outside 0..1e9 and anything past +-i64::MAX milliseconds: the first and the last
        // second hold only part of a second.
        let max = chrono::TimeDelta::MAX;
        let min = chrono::TimeDelta::MIN;
        let (max_secs, max_nanos) = (max.num_seconds(), i64::from(max.subsec_nanos()));
        // `num_seconds` rounds toward zero; the stored form floors.
        let (min_secs, min_nanos) = (
            min.num_seconds() - 1,
            1_000_000_000 + i64::from(min.subsec_nanos()),
        );
        let mut bounded = |secs: (i64, i64), nanos: (i64, i64)| {
            tuple(vec![
                bound(i64::json_schema(g), secs.0, secs.1),
                bound(i32::json_schema(g), nanos.0, nanos.1),
            ])
        };
        any_of(vec![
            bounded((min_secs + 1, max_secs - 1), (0, 999_999_999)),
            bounded((min_secs, min_secs), (min_nanos, 999_999_999)),
            bounded((max_secs, max_secs), (0, max_nanos)),
        ])
    }
}

fn bound(mut schema: JsonSchema, lo: i64, hi: i64) -> JsonSchema {
    schema.minimum = Some(Number::Int64(lo));
    schema.maximum = Some(Number::Int64(hi));
    schema
}
