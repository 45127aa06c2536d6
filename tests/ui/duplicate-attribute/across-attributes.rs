// Two `#[mongo]` attributes on one item are one list of keys: `collection` in each is a repeat.
use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(collection = "users")]
#[mongo(collection = "people")]
struct User {
    email: String,
}

fn main() {}
