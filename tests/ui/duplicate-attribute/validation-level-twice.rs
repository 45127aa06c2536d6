// A collection key given twice is refused at the second occurrence, as a schema key is
// (`mongo-attribute/given-twice.rs`): before, the last one silently won.
use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(collection = "t", validation_level = "strict", validation_level = "moderate")]
struct Thing {
    name: String,
}

fn main() {
    let _ = <Thing as mongo_schema::spec::Collection>::collection_spec();
}
