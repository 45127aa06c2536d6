// A tuple is read by position: `#[serde(default)]` cannot make a left-out element readable
// (serde even refuses it unless every later field has it too).
use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
struct Pair(#[serde(skip_serializing)] i32, String);

fn main() {}
