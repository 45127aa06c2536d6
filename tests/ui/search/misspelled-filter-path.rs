use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(
    collection = "products",
    vector_index(name = "e", path = embedding, dimensions = 3, similarity = "cosine", filter(statu)),
)]
struct Product {
    #[serde(rename = "_id")]
    id: bson::oid::ObjectId,
    embedding: Vec<f32>,
    status: String,
}

fn main() {}
