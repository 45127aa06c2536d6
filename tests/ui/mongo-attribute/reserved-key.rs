use mongo_schema::MongoSchema;

#[derive(serde::Serialize, serde::Deserialize, MongoSchema)]
#[mongo(collection = "people")]
struct Person {
    age: i32,
}

fn main() {}
