use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(view = "user_names", pipeline = r#"[{"$project": {"name": 1}}]"#)]
struct UserName {
    name: String,
}

fn main() {}
