// A shorthand on a variant's field was silently ignored: the index goes on the variant.
use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
#[serde(tag = "kind")]
#[mongo(collection = "catalog")]
enum Item {
    Book {
        #[mongo(unique)]
        isbn: String,
    },
}

fn main() {}
