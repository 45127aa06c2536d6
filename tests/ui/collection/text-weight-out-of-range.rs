// The server takes text weights from 1 to 99999.
use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(collection = "articles")]
struct Article {
    #[mongo(text = 0)]
    title: String,
}

fn main() {}
