use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(collection = "places", index(keys(location = "2dshpere")))]
struct Place {
    location: bson::Document,
}

fn main() {}
