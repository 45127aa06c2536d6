//! Schemas of `serde_json`'s dynamic values, stored as BSON.

use super::{MongoSchema, SchemaGenerator, object};
use crate::schema::{Additional, BsonType, Items, JsonSchema};

impl MongoSchema for serde_json::Value {
    const FLATTENED_AS_MAP: bool = true;
    fn json_schema(_: &mut SchemaGenerator) -> JsonSchema {
        json_value(NESTING_CHECKED)
    }
}

/// How deep inside arrays and documents a `Value`'s members are checked; deeper, any value
/// passes (`$jsonSchema` has no recursion): a documented gap.
const NESTING_CHECKED: usize = 3;

/// A `Value` writes null, bool, long, double, string, array and document, and reads every
/// BSON value but binData and decimal (bson's deserializer hands an ObjectId or a date over
/// as its Extended JSON document, but binData and decimal as bytes, which `Value` refuses).
fn json_value(depth: usize) -> JsonSchema {
    let mut schema = JsonSchema {
        not: Some(Box::new(JsonSchema::bson_types([
            BsonType::BinData,
            BsonType::Decimal,
        ]))),
        ..JsonSchema::default()
    };
    if depth > 0 {
        let member = json_value(depth - 1);
        schema.items = Some(Items::Single(Box::new(member.clone())));
        schema.additional_properties = Some(Additional::Schema(Box::new(member)));
    }
    schema
}

impl MongoSchema for serde_json::Map<String, serde_json::Value> {
    const FLATTENED_AS_MAP: bool = true;
    fn json_schema(_: &mut SchemaGenerator) -> JsonSchema {
        let mut schema = json_value(NESTING_CHECKED);
        schema.not = None;
        schema.items = None;
        schema.types = object().types;
        schema
    }
}

impl MongoSchema for serde_json::Number {
    fn json_schema(_: &mut SchemaGenerator) -> JsonSchema {
        // An i64 or u64 is written as a long, an f64 as a double; an int reads too.
        JsonSchema::bson_types([BsonType::Int, BsonType::Long, BsonType::Double])
    }
}
