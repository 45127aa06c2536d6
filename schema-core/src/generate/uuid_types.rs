//! The schema of `uuid::Uuid`.

use super::{MongoSchema, SchemaGenerator, Visiting};
use crate::schema::{BsonType, JsonSchema};

impl MongoSchema for uuid::Uuid {
    fn distinct_forms(_: &mut Visiting) -> bool {
        true
    }
    fn json_schema(_: &mut SchemaGenerator) -> JsonSchema {
        // uuid writes 16 raw bytes (binData subtype 0) to a serializer that is not human
        // readable, bson's raw one, and reads them back. `bson::serialize_to_document` is
        // human readable: there uuid writes the hyphenated string, which the driver's raw
        // deserializer cannot read ("expected a 16 byte array"), so the validator refuses it
        // rather than admit a value no read survives. `uuid_1::AsBinary` stores subtype 4 on
        // both paths.
        JsonSchema::bson_type(BsonType::BinData)
    }
}
