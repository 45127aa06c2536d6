use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(collection = "sessions", index(keys(user_id, created_at), ttl = 3600))]
struct Session {
    user_id: String,
    created_at: bson::DateTime,
}

fn main() {}
