// Left out when None, the first element shifts the second into its place: serde reads a tuple
// by position.
use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
struct Reading(
    #[serde(skip_serializing_if = "Option::is_none")] Option<String>,
    f64,
);

fn main() {}
