//! The schema of `url::Url` as its serde support writes and reads it.

use super::{MongoSchema, SchemaGenerator, Visiting};
use crate::schema::{BsonType, JsonSchema};

impl MongoSchema for url::Url {
    fn distinct_forms(_: &mut Visiting) -> bool {
        true
    }
    fn json_schema(_: &mut SchemaGenerator) -> JsonSchema {
        // Written as `Url::as_str()`, read through `Url::parse`: an absolute URL always starts
        // with its scheme and a colon (WHATWG URL "scheme state"). The rest of the grammar is
        // past a pattern: `http:` passes and fails to parse (a gap).
        JsonSchema {
            pattern: Some(r"^[A-Za-z][A-Za-z0-9+.-]*:".to_owned()),
            ..JsonSchema::bson_type(BsonType::String)
        }
    }
}
