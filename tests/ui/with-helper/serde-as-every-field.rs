// Under #[serde_as] each field is reported at the field, every one of them (serde_as spans
// its generated `with` at its own attribute: one line, shown once).
use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[serde_with::serde_as]
#[derive(Serialize, Deserialize, MongoSchema)]
struct Host {
    #[serde_as(as = "serde_with::DisplayFromStr")]
    address: std::net::IpAddr,
    name: String,
    #[serde_as(as = "Option<serde_with::DisplayFromStr>")]
    gateway: Option<std::net::IpAddr>,
}

fn main() {}
