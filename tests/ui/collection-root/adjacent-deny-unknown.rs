// serde: invalid value: string "_id", expected "t" or "c".
use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
#[serde(tag = "t", content = "c", deny_unknown_fields)]
#[mongo(collection = "events")]
enum Event {
    Started(i64),
    Stopped(i64),
}

fn main() {}
