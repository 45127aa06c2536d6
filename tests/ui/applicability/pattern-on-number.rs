use mongo_schema::MongoSchema;

#[derive(serde::Serialize, serde::Deserialize, MongoSchema)]
struct Person {
    #[mongo(pattern = "^[0-9]+$")]
    age: u32,
}

fn main() {}
