use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(collection = "posts", search_index(name = "text", mappings(scores(type = "token"))))]
struct Post {
    #[serde(rename = "_id")]
    id: bson::oid::ObjectId,
    scores: Option<Vec<i64>>,
}

fn main() {}
