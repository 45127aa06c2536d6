use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(collection = "catalog")]
enum Item {
    #[mongo(index(keys(isbn), unique))]
    Book { isbn: String },
    Course { level: String },
}

fn main() {}
