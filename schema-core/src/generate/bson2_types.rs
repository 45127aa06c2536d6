//! Schemas of bson 2's types (feature `bson-2`), for applications still on bson 2: each is
//! stored as the BSON type of the same name, as with bson 3 (`bson_types.rs`). bson 2's raw
//! serializer (`bson2::to_vec`, `to_document`) writes these types exactly as bson 3's does;
//! through another serializer they take their extended-JSON forms (`{"$oid": ...}`,
//! `{"$date": ...}`), which is what `distinct_forms` says.

use bson2::{Bson, Document};

use super::{MongoSchema, SchemaGenerator, Visiting};
use crate::schema::{BsonType, JsonSchema};

macro_rules! bson2_types {
    ($($ty:ty => $bson:expr),* $(,)?) => {$(
        impl MongoSchema for $ty {
            fn json_schema(_: &mut SchemaGenerator) -> JsonSchema {
                JsonSchema::bson_type($bson)
            }
        }
    )*};
}

impl MongoSchema for bson2::oid::ObjectId {
    fn distinct_forms(_: &mut Visiting) -> bool {
        true
    }
    fn json_schema(_: &mut SchemaGenerator) -> JsonSchema {
        JsonSchema::bson_type(BsonType::ObjectId)
    }
}

impl MongoSchema for bson2::DateTime {
    fn distinct_forms(_: &mut Visiting) -> bool {
        true
    }
    fn json_schema(_: &mut SchemaGenerator) -> JsonSchema {
        JsonSchema::bson_type(BsonType::Date)
    }
}

bson2_types! {
    bson2::Decimal128 => BsonType::Decimal,
    bson2::Binary => BsonType::BinData,
    bson2::Timestamp => BsonType::Timestamp,
    bson2::Regex => BsonType::Regex,
    bson2::JavaScriptCodeWithScope => BsonType::JavaScriptWithScope,
    bson2::DbPointer => BsonType::DbPointer,
    bson2::RawDocumentBuf => BsonType::Object,
    bson2::RawArrayBuf => BsonType::Array,
}

impl MongoSchema for Document {
    // A map to serde: flattened, it reads through `deserialize_map`.
    const FLATTENED_AS_MAP: bool = true;
    fn json_schema(_: &mut SchemaGenerator) -> JsonSchema {
        JsonSchema::bson_type(BsonType::Object)
    }
}

impl MongoSchema for bson2::Uuid {
    fn distinct_forms(_: &mut Visiting) -> bool {
        true
    }
    fn json_schema(_: &mut SchemaGenerator) -> JsonSchema {
        // $jsonSchema cannot pin a binary subtype: a binData of another subtype passes the
        // validator but does not read as a Uuid (documented gap, as for bson 3).
        JsonSchema::bson_type(BsonType::BinData)
    }
}

impl MongoSchema for Bson {
    fn json_schema(_: &mut SchemaGenerator) -> JsonSchema {
        JsonSchema::any()
    }
}

impl MongoSchema for bson2::RawBson {
    fn json_schema(_: &mut SchemaGenerator) -> JsonSchema {
        JsonSchema::any()
    }
}
