use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(
    collection = "products",
    vector_index(name = "e", path = embedding, dimensions = 3, similarity = "cosine", filter(status)),
    query(name = "similar", vector_search(index = "e", path = embeding, filter(status))),
)]
struct Product {
    #[serde(rename = "_id")]
    id: bson::oid::ObjectId,
    status: String,
    embedding: [f32; 3],
}

fn main() {}
