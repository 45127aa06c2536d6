use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
struct User {
    #[mongo(unique)]
    email: String,
}

fn main() {}
