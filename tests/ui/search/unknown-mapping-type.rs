use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(collection = "posts", search_index(name = "text", mappings(title(type = "strng"))))]
struct Post {
    #[serde(rename = "_id")]
    id: bson::oid::ObjectId,
    title: String,
}

fn main() {}
