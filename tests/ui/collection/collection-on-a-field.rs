use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
struct User {
    #[mongo(collection = "users")]
    email: String,
}

fn main() {}
