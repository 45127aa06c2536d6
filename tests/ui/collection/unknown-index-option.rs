use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(collection = "users", index(keys(email), uniqe))]
struct User {
    email: String,
}

fn main() {}
