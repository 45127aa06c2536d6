use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(
    collection = "products",
    vector_index(name = "embedding_index", path = embedding, dimensions = 3, similarity = "cosinus", quantization = "int4"),
)]
struct Product {
    #[serde(rename = "_id")]
    id: bson::oid::ObjectId,
    embedding: Vec<f32>,
}

fn main() {}
