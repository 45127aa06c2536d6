use mongo_schema::MongoSchema;
use std::collections::HashMap;

#[derive(serde::Serialize, serde::Deserialize, MongoSchema)]
struct Person {
    #[mongo(max_items = 3)]
    scores: HashMap<String, i32>,
}

fn main() {}
