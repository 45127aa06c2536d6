use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(
    collection = "products",
    vector_index(name = "e", path = embedding, dimensions = 3, similarity = "cosine"),
    query(name = "q", search(paths(title)), vector_search(index = "e", path = embedding)),
)]
struct Product {
    #[serde(rename = "_id")]
    id: bson::oid::ObjectId,
    title: String,
    embedding: [f32; 3],
}

fn main() {}
