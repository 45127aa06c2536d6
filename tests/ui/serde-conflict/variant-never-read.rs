use mongo_schema::MongoSchema;

#[derive(serde::Serialize, serde::Deserialize, MongoSchema)]
enum Status {
    Open,
    #[serde(skip_deserializing)]
    Archived,
}

fn main() {}
