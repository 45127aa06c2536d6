use mongo_schema::MongoSchema;

mod upper {
    pub fn serialize<S: serde::Serializer>(v: &str, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&v.to_uppercase())
    }
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
        <String as serde::Deserialize>::deserialize(d)
    }
}

#[derive(serde::Serialize, serde::Deserialize, MongoSchema)]
struct Code {
    #[serde(with = "upper")]
    value: String,
}

fn main() {}
