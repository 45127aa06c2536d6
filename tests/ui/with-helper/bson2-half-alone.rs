// One half of a bson 2 helper module, named as its bare function without the other half: the
// other side reads the field's own form, so the derive says which helper to name instead.
// (bson 2's functions are recognised by name; these stand-ins have bson 2's signatures, as the
// UI crate links bson 3 only.)
use mongo_schema::MongoSchema;

mod serde_helpers {
    pub fn serialize_hex_string_as_object_id<S: serde::Serializer>(
        v: &str,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        s.serialize_str(v)
    }
    pub fn deserialize_u32_from_f64<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
        <u32 as serde::Deserialize>::deserialize(d)
    }
}

#[derive(serde::Serialize, serde::Deserialize, MongoSchema)]
struct Account {
    #[serde(serialize_with = "serde_helpers::serialize_hex_string_as_object_id")]
    owner: String,
    #[serde(deserialize_with = "serde_helpers::deserialize_u32_from_f64")]
    size: u32,
    // Stated: no error.
    #[serde(serialize_with = "serde_helpers::serialize_hex_string_as_object_id")]
    #[mongo(bson_type = "objectId")]
    stated: String,
}

fn main() {}
