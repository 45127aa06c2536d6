use mongo_schema::{JsonSchema, MongoSchema, SchemaGenerator};

fn code(_: &mut SchemaGenerator) -> JsonSchema {
    JsonSchema::any()
}

#[derive(serde::Serialize, serde::Deserialize, MongoSchema)]
struct Item {
    #[mongo(bson_type = "string", schema_with = code)]
    code: String,
}

fn main() {}
