use mongo_schema::MongoSchema;

#[derive(Clone, serde::Serialize, serde::Deserialize, MongoSchema)]
#[serde(from = "String", into = "u32")]
struct Code(u32);

impl From<String> for Code {
    fn from(s: String) -> Self {
        Code(s.len() as u32)
    }
}

impl From<Code> for u32 {
    fn from(c: Code) -> u32 {
        c.0
    }
}

fn main() {}
