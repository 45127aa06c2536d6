// Inside a nested list too: `unique = false` after `unique` would have won.
use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(collection = "users", index(keys(email), unique, unique = false))]
struct User {
    email: String,
}

fn main() {}
