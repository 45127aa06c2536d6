use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(
    collection = "posts",
    search_index(name = "text", mappings(titel(type = "string"), body(type = "string"))),
)]
struct Post {
    #[serde(rename = "_id")]
    id: bson::oid::ObjectId,
    title: String,
    body: String,
}

fn main() {}
