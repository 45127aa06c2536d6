use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
struct Host {
    #[mongo(schema_as = String, bson_type = "string")]
    address: String,
}

fn main() {}
