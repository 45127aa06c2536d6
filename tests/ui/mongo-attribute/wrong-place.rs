use mongo_schema::MongoSchema;

#[derive(serde::Serialize, serde::Deserialize, MongoSchema)]
#[mongo(minimum = 0)]
struct Person {
    age: i32,
}

fn main() {}
