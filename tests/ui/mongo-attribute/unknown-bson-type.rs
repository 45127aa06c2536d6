use mongo_schema::MongoSchema;

#[derive(serde::Serialize, serde::Deserialize, MongoSchema)]
struct Person {
    #[mongo(bson_type = "objectid")]
    id: String,
}

fn main() {}
