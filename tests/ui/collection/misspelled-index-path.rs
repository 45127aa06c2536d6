use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(collection = "orders", index(keys(user_ud, created_at = -1)))]
struct Order {
    user_id: String,
    created_at: bson::DateTime,
}

fn main() {}
