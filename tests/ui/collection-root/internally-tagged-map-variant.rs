// An internally tagged newtype over a map reads every other key, `_id` included.
use std::collections::BTreeMap;

use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
#[serde(tag = "kind")]
#[mongo(collection = "settings")]
enum Settings {
    Limits(BTreeMap<String, i64>),
    Off,
}

fn main() {}
