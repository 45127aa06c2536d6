use mongo_schema::MongoSchema;

#[derive(serde::Serialize, serde::Deserialize, MongoSchema)]
struct Post {
    #[serde(skip_serializing)]
    draft: String,
}

fn main() {}
