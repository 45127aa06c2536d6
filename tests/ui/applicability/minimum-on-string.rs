use mongo_schema::MongoSchema;

#[derive(serde::Serialize, serde::Deserialize, MongoSchema)]
struct Person {
    #[mongo(minimum = 0)]
    name: String,
}

fn main() {}
