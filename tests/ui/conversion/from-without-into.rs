use mongo_schema::MongoSchema;

#[derive(serde::Serialize, serde::Deserialize, MongoSchema)]
#[serde(from = "String")]
struct Name {
    text: String,
}

impl From<String> for Name {
    fn from(text: String) -> Self {
        Name { text }
    }
}

fn main() {}
