use mongo_schema::MongoSchema;

#[derive(serde::Serialize, serde::Deserialize, MongoSchema)]
struct Person {
    #[mongo(min_length = 10, max_length = 2)]
    name: String,
}

fn main() {}
