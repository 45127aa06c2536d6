use mongo_schema::MongoSchema;

#[derive(serde::Serialize, serde::Deserialize, MongoSchema)]
struct Item {
    #[mongo(multiple_of = 0)]
    qty: i32,
}

fn main() {}
