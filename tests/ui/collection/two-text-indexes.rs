use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(collection = "articles", index(keys(title = "text")))]
struct Article {
    title: String,
    #[mongo(text)]
    content: String,
}

fn main() {}
