use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(collection = "pairs")]
struct Pair(#[mongo(index)] String, i32);

fn main() {}
