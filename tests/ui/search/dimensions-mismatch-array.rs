use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(
    collection = "products",
    vector_index(name = "embedding_index", path = embedding, dimensions = 768, similarity = "cosine"),
)]
struct Product {
    #[serde(rename = "_id")]
    id: bson::oid::ObjectId,
    embedding: [f32; 3],
}

fn main() {}
