use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(
    collection = "readings",
    validation_action = "error",
    timeseries(time_field = timestamp)
)]
struct Reading {
    timestamp: bson::DateTime,
    value: f64,
}

fn main() {}
