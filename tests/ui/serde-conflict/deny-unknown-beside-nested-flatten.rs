use mongo_schema::MongoSchema;

#[derive(serde::Serialize, serde::Deserialize, MongoSchema)]
struct Audit {
    by: String,
}

#[derive(serde::Serialize, serde::Deserialize, MongoSchema)]
struct Meta {
    version: u32,
    #[serde(flatten)]
    audit: Audit,
}

// Writes {title, version, by}; reading it back fails with "unknown field `version`".
#[derive(serde::Serialize, serde::Deserialize, MongoSchema)]
#[serde(deny_unknown_fields)]
struct Page {
    title: String,
    #[serde(flatten)]
    meta: Option<Meta>,
}

fn main() {}
