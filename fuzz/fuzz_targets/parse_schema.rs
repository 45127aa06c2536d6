//! Arbitrary bytes as a `$jsonSchema`: parsing and compiling never panic, and whatever parses
//! renders and parses back to the same schema.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mongo_schema::JsonSchema;
use mongo_schema::eval::Validator;

fuzz_target!(|data: &[u8]| {
    let Ok(raw) = bson::RawDocument::from_bytes(data) else {
        return;
    };
    let Ok(doc) = bson::Document::try_from(raw) else {
        return;
    };
    let _ = Validator::from_document(&doc);
    if let Ok(schema) = JsonSchema::from_document(&doc) {
        let again = JsonSchema::from_document(&schema.to_document())
            .expect("a rendered schema parses");
        assert_eq!(again, schema);
        let _ = Validator::new(&schema);
    }
});
