// A field type with no impl: the error names the type and the ways out.
use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
struct Host {
    address: std::net::IpAddr,
}

fn main() {}
