// The server adds `_id` to every document: with deny_unknown_fields and no `_id` field,
// every read fails (serde: "unknown field `_id`, expected `name`").
use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
#[serde(deny_unknown_fields)]
#[mongo(collection = "users")]
struct User {
    name: String,
}

fn main() {}
