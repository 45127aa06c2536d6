use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
struct User {
    name: String,
}

#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(view = "user_names", view_on = User)]
struct UserName {
    name: String,
}

fn main() {}
