use mongo_schema::MongoSchema;

#[derive(serde::Serialize, serde::Deserialize, MongoSchema)]
struct Post {
    #[serde(rename(serialize = "new", deserialize = "old"))]
    title: String,
}

fn main() {}
