use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(
    collection = "posts",
    search_index(name = "text", mappings(tags(type = "token", analyzer = "lucene.english"))),
)]
struct Post {
    #[serde(rename = "_id")]
    id: bson::oid::ObjectId,
    tags: Vec<String>,
}

fn main() {}
