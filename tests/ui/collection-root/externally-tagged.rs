// {"_id": ..., "Circle": {...}} has two keys: serde reads "unknown variant `_id`".
use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(collection = "shapes")]
enum Shape {
    Circle { radius: f64 },
    Square { side: f64 },
}

fn main() {}
