use mongo_schema::MongoSchema;

#[derive(Clone, serde::Serialize, serde::Deserialize, MongoSchema)]
#[serde(try_from = "String", into = "String")]
struct Slug(String);

impl TryFrom<String> for Slug {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        Ok(Slug(s))
    }
}

impl From<Slug> for String {
    fn from(s: Slug) -> String {
        s.0
    }
}

fn main() {}
