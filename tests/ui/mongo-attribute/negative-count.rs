use mongo_schema::MongoSchema;

#[derive(serde::Serialize, serde::Deserialize, MongoSchema)]
struct Person {
    #[mongo(min_items = -1)]
    tags: Vec<String>,
}

fn main() {}
