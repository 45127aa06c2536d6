use mongo_schema::MongoSchema;

#[derive(serde::Serialize, serde::Deserialize, MongoSchema)]
struct Tags {
    #[mongo(unique_items = "yes")]
    tags: Vec<String>,
}

fn main() {}
