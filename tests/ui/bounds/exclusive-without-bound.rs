use mongo_schema::MongoSchema;

#[derive(serde::Serialize, serde::Deserialize, MongoSchema)]
struct Item {
    #[mongo(exclusive_minimum)]
    price: f64,
}

fn main() {}
