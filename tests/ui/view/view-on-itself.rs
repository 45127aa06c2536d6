use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(view = "user_names", view_on = UserName)]
struct UserName {
    name: String,
}

fn main() {}
