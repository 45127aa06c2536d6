use mongo_schema::MongoSchema;

#[derive(serde::Serialize, serde::Deserialize, MongoSchema)]
#[serde(tag = "type")]
enum Kind {
    Book { pages: u32 },
    Film,
}

// Writes {title, type: "Film"}; reading it back fails with "unknown field `type`".
#[derive(serde::Serialize, serde::Deserialize, MongoSchema)]
#[serde(deny_unknown_fields)]
struct Item {
    title: String,
    #[serde(flatten)]
    kind: Kind,
}

fn main() {}
