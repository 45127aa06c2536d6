use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(
    collection = "products",
    vector_index(name = "embedding_index", path = title, dimensions = 3, similarity = "cosine"),
)]
struct Product {
    #[serde(rename = "_id")]
    id: bson::oid::ObjectId,
    title: String,
    embedding: Vec<f32>,
}

fn main() {}
