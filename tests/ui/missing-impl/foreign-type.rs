// A field whose type has no `MongoSchema` impl: the error names the type and the two ways out.
use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
struct Foreign(u8);

#[derive(Serialize, Deserialize, MongoSchema)]
struct Holder {
    field: Foreign,
}

fn main() {}
