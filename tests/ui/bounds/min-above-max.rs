use mongo_schema::MongoSchema;

#[derive(serde::Serialize, serde::Deserialize, MongoSchema)]
struct Person {
    #[mongo(minimum = 150, maximum = 0)]
    age: i32,
}

fn main() {}
