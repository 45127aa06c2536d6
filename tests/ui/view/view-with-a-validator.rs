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
#[mongo(view = "user_names", view_on = User, validation_level = "moderate")]
struct UserName {
    name: String,
}

fn main() {}
