use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(collection = "events")]
struct Event {
    #[mongo(hashed, unique)]
    user_id: String,
}

fn main() {}
