use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(collection = "users")]
struct User {
    #[serde(rename = "_id")]
    id: bson::oid::ObjectId,
    name: String,
}

#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(collection = "user_names", view_on = User)]
struct UserName {
    #[serde(rename = "_id")]
    id: bson::oid::ObjectId,
    name: String,
}

fn main() {}
