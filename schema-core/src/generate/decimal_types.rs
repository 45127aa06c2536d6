//! The schema of `rust_decimal::Decimal` as its serde support writes and reads it.

use super::{MongoSchema, SchemaGenerator};
use crate::schema::{BsonType, JsonSchema, Number};

impl MongoSchema for rust_decimal::Decimal {
    fn json_schema(_: &mut SchemaGenerator) -> JsonSchema {
        // With its `serde` feature a Decimal is written as a plain decimal string (`-1.2300`)
        // and, with `serde-float`, as a double; its visitor reads a string (plain or
        // scientific), an i64, a u64 or an f64 within its range. `pattern` and the bounds each
        // apply only to the type they can check. Not unique in a set: `1.0` and `1.00` are
        // different strings of equal decimals. Gaps: a NaN double passes and fails to read,
        // and so does a string past 28 significant digits.
        let max = Number::Double(7.922_816_251_426_434e28);
        JsonSchema {
            pattern: Some(r"^-?[0-9]{1,29}(\.[0-9]{1,28})?\z".to_owned()),
            minimum: Some(Number::Double(-7.922_816_251_426_434e28)),
            maximum: Some(max),
            ..JsonSchema::bson_types([
                BsonType::String,
                BsonType::Double,
                BsonType::Int,
                BsonType::Long,
            ])
        }
    }
}
