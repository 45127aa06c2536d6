//! Schemas of bson's own types: each is stored as the BSON type of the same name, on both of
//! bson's serializer paths.

use bson::{Bson, Document};

use super::{MongoSchema, SchemaGenerator, Visiting};
use crate::schema::{BsonType, JsonSchema};

macro_rules! bson_types {
    ($($ty:ty => $bson:expr),* $(,)?) => {$(
        impl MongoSchema for $ty {
            fn json_schema(_: &mut SchemaGenerator) -> JsonSchema {
                JsonSchema::bson_type($bson)
            }
        }
    )*};
}

impl MongoSchema for bson::oid::ObjectId {
    fn distinct_forms(_: &mut Visiting) -> bool {
        true
    }
    fn json_schema(_: &mut SchemaGenerator) -> JsonSchema {
        JsonSchema::bson_type(BsonType::ObjectId)
    }
}

impl MongoSchema for bson::DateTime {
    fn distinct_forms(_: &mut Visiting) -> bool {
        true
    }
    fn json_schema(_: &mut SchemaGenerator) -> JsonSchema {
        JsonSchema::bson_type(BsonType::Date)
    }
}

bson_types! {
    bson::Decimal128 => BsonType::Decimal,
    bson::Binary => BsonType::BinData,
    bson::Timestamp => BsonType::Timestamp,
    bson::Regex => BsonType::Regex,
    bson::JavaScriptCodeWithScope => BsonType::JavaScriptWithScope,
    bson::DbPointer => BsonType::DbPointer,
    bson::RawDocumentBuf => BsonType::Object,
    bson::RawArrayBuf => BsonType::Array,
}

impl MongoSchema for Document {
    // A map to serde: flattened, it reads through `deserialize_map`.
    const FLATTENED_AS_MAP: bool = true;
    fn json_schema(_: &mut SchemaGenerator) -> JsonSchema {
        JsonSchema::bson_type(BsonType::Object)
    }
}

impl MongoSchema for bson::Uuid {
    fn distinct_forms(_: &mut Visiting) -> bool {
        true
    }
    fn json_schema(_: &mut SchemaGenerator) -> JsonSchema {
        // $jsonSchema cannot pin a binary subtype: a binData of another subtype passes the
        // validator but does not read as a Uuid (documented gap).
        JsonSchema::bson_type(BsonType::BinData)
    }
}

impl MongoSchema for Bson {
    fn json_schema(_: &mut SchemaGenerator) -> JsonSchema {
        JsonSchema::any()
    }
}

impl MongoSchema for bson::RawBson {
    fn json_schema(_: &mut SchemaGenerator) -> JsonSchema {
        JsonSchema::any()
    }
}
