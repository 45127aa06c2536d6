//! Arbitrary bytes as a `$jsonSchema`: parsing and compiling never panic, and whatever parses
//! renders and parses back to the same schema (found in the first run: the assertion used `==`,
//! which a `NaN` enum member never satisfies; the schema itself round-tripped).
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
        let rendered = schema.to_document();
        let again = JsonSchema::from_document(&rendered).expect("a rendered schema parses");
        // Compare serialized bytes: `NaN` in `enum` is never `==` to itself.
        assert_eq!(
            again.to_document().to_vec().expect("serializes"),
            rendered.to_vec().expect("serializes")
        );
        let _ = Validator::new(&schema);
    }
});
