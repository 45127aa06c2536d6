use mongo_schema::MongoSchema;

#[derive(serde::Serialize, serde::Deserialize, MongoSchema)]
struct Person {
    #[mongo(minimum = 0, minimum = 1)]
    age: i32,
}

fn main() {}
