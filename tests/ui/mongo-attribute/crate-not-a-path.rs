use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(crate = 5)]
struct Person {
    name: String,
}

fn main() {}
