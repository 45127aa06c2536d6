// A variant's own `with` is stated on the variant, not by hand-writing the enum's impl.
use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

mod as_text {
    pub fn serialize<S: serde::Serializer>(n: &u64, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(n)
    }
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        let text: String = serde::Deserialize::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[derive(Serialize, Deserialize, MongoSchema)]
enum Amount {
    #[serde(with = "as_text")]
    Big(u64),
    Small(i32),
}

fn main() {}
