use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(
    collection = "articles",
    index(keys(title = "text", body = "text"), weights(title = 10, title = 2))
)]
struct Article {
    title: String,
    body: String,
}

fn main() {}
