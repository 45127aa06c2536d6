use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(collection = "products", search_index(name = "default", analyzer = "lucene.english"))]
struct Product {
    #[serde(rename = "_id")]
    id: bson::oid::ObjectId,
    title: String,
}

fn main() {}
