use mongo_schema::MongoSchema;

#[derive(serde::Serialize, serde::Deserialize, MongoSchema)]
#[serde(deny_unknown_fields)]
struct Person {
    name: String,
    #[serde(skip_deserializing)]
    computed: i32,
}

fn main() {}
