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
#[mongo(view = "user_names", view_on = User, pipeline = r#"{"$project": {"name": 1}}"#)]
struct UserName {
    name: String,
}

fn main() {}
