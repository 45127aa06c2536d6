// An index declared on a field is keyed by that field: `keys` belongs on the type.
use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(collection = "users")]
struct User {
    #[mongo(index(keys(email, name), unique))]
    email: String,
    name: String,
}

fn main() {}
