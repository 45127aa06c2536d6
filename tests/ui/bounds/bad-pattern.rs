use mongo_schema::MongoSchema;

#[derive(serde::Serialize, serde::Deserialize, MongoSchema)]
struct Person {
    #[mongo(pattern = "^(a|b")]
    code: String,
}

fn main() {}
