use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(collection = "users", index(keys(email), unique, partial = "{deleted_at: 1}"))]
struct User {
    email: String,
}

fn main() {}
