//! Arbitrary bytes as a document under schemas that touch every keyword: evaluation never
//! panics, the fast path and the explaining path agree, and malformed input is an error with
//! an offset inside the input.
#![no_main]

use std::sync::LazyLock;

use bson::doc;
use libfuzzer_sys::fuzz_target;
use mongo_schema::eval::Validator;

static VALIDATORS: LazyLock<Vec<Validator>> = LazyLock::new(|| {
    [
        doc! { "required": ["a"], "properties": {
            "a": { "bsonType": ["int", "string", "object", "array"], "minimum": 0, "maxLength": 4,
                   "pattern": "^[a-c]+$", "minProperties": 1, "uniqueItems": true },
        }},
        doc! { "properties": { "_id": {} }, "additionalProperties": { "enum": [1, "x", { "k": [1] }, null] },
               "patternProperties": { "^p": { "multipleOf": 0.5 } } },
        doc! { "items": [], "properties": { "a": { "items": [{ "bsonType": "double" }], "additionalItems": false,
               "maxItems": 3 }, "b": { "oneOf": [{ "minimum": 1 }, { "maximum": 5 }], "not": { "enum": [3] } } },
               "dependencies": { "a": ["b"], "b": { "maxProperties": 3 } } },
        doc! { "anyOf": [{ "required": ["x"] }, { "properties": { "y": { "items": { "items": { "type": "number" } } } } }] },
        doc! { "properties": { "e": { "encrypt": { "bsonType": ["number", "string"] } },
               "f": { "items": { "encrypt": {} } } }, "dependencies": { "title": "t", "e": ["f"] } },
        // Dotted names are paths (strict and lenient rewrites); query operators beside
        // $jsonSchema leave verdicts open: neither may panic or split the two paths.
        doc! { "required": ["a.b"], "properties": { "a.b": { "minimum": 1 }, "c.d.e": { "pattern": "^x" } },
               "additionalProperties": { "bsonType": "object" } },
        doc! { "$jsonSchema": { "properties": { "a": { "bsonType": "int" } } }, "$expr": { "$eq": ["$a", 1] } },
    ]
    .iter()
    .map(|d| Validator::from_document(d).expect("the fuzz schemas are valid"))
    .collect()
});

fuzz_target!(|data: &[u8]| {
    for v in VALIDATORS.iter() {
        let fast = v.is_valid_bytes(data);
        match v.validate_bytes(data) {
            Ok(verdict) => {
                assert_eq!(
                    verdict.is_valid(),
                    fast,
                    "fast and explaining paths disagree"
                );
                // Rejected with details, valid, or open (not fully checked): one of the three.
                assert_eq!(verdict.is_rejected(), verdict.details().is_some());
                assert_eq!(verdict.is_valid(), verdict.summaries().is_empty());
                assert_eq!(
                    verdict.is_valid() || verdict.is_rejected(),
                    verdict.is_fully_checked()
                );
            }
            Err(e) => assert!(e.offset <= data.len(), "offset {} beyond input", e.offset),
        }
    }
});
