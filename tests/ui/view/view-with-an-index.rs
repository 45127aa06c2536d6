use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(collection = "users")]
struct User {
    #[serde(rename = "_id")]
    id: bson::oid::ObjectId,
    name: String,
    active: bool,
}

#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(
    view = "active_users",
    view_on = User,
    pipeline = r#"[{"$match": {"active": true}}]"#,
    index(keys(name)),
)]
struct ActiveUser {
    name: String,
}

fn main() {}
