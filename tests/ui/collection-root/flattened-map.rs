// The flattened map takes `_id` too, and an ObjectId is not an i32 ("invalid type: map").
use std::collections::HashMap;

use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(collection = "counters")]
struct Counters {
    name: String,
    #[serde(flatten)]
    counts: HashMap<String, i32>,
}

fn main() {}
