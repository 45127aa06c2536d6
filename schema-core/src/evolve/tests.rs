use bson::{Bson, Document, RawDocumentBuf, doc};

use super::*;

fn schema(d: Document) -> JsonSchema {
    JsonSchema::from_document(&d).unwrap()
}

fn accepted(s: &JsonSchema, d: &Document) -> bool {
    Validator::new(s)
        .unwrap()
        .is_valid(&RawDocumentBuf::try_from(d).unwrap())
}

/// Asserts a tightening whose counterexample the old schema accepts and the new one rejects.
fn tightening(old: Document, new: Document) -> Document {
    let (old, new) = (schema(old), schema(new));
    match classify(&old, &new) {
        Classification::Tightening { counterexample } => {
            assert!(accepted(&old, &counterexample), "{counterexample}");
            assert!(!accepted(&new, &counterexample), "{counterexample}");
            counterexample
        }
        other => panic!("expected a tightening, got {other:?}"),
    }
}

fn relaxing(old: Document, new: Document) {
    assert_eq!(
        classify(&schema(old), &schema(new)),
        Classification::Relaxing
    );
}

fn not_proven(old: Document, new: Document) -> String {
    match classify(&schema(old), &schema(new)) {
        Classification::NotProven { reason } => reason,
        other => panic!("expected not proven, got {other:?}"),
    }
}

#[test]
fn identical_schemas_are_relaxing_even_with_other_titles() {
    let s = doc! { "bsonType": "object", "oneOf": [{ "required": ["a"] }, { "required": ["b"] }] };
    relaxing(s.clone(), s.clone());
    let mut titled = s.clone();
    titled.insert("title", "v2");
    relaxing(s, titled);
}

#[test]
fn a_newly_required_field_tightens_with_a_document_missing_it() {
    let doc = tightening(
        doc! { "bsonType": "object", "properties": { "a": { "bsonType": "int" } } },
        doc! { "bsonType": "object", "required": ["a"], "properties": { "a": { "bsonType": "int" } } },
    );
    assert!(!doc.contains_key("a"));
    assert!(matches!(doc.get("_id"), Some(Bson::ObjectId(_))));
}

#[test]
fn dropping_a_required_field_relaxes() {
    relaxing(doc! { "required": ["a", "b"] }, doc! { "required": ["a"] });
}

#[test]
fn int_widened_to_number_relaxes_and_back_tightens() {
    let int = doc! { "properties": { "n": { "bsonType": "int" } } };
    let number = doc! { "properties": { "n": { "bsonType": "number" } } };
    relaxing(int.clone(), number.clone());
    let doc = tightening(number, int);
    assert!(!matches!(doc.get("n"), Some(Bson::Int32(_))));
}

#[test]
fn a_lower_maximum_tightens_at_the_old_bound() {
    let doc = tightening(
        doc! { "properties": { "n": { "bsonType": "int", "maximum": 10 } } },
        doc! { "properties": { "n": { "bsonType": "int", "maximum": 5 } } },
    );
    // Bounds are tried first: the old maximum itself is the example.
    assert_eq!(doc.get_i32("n").unwrap(), 10, "{doc}");
}

#[test]
fn bounds_compare_by_value_across_types_and_exclusivity() {
    relaxing(
        doc! { "properties": { "n": { "minimum": 5.0, "exclusiveMinimum": true } } },
        doc! { "properties": { "n": { "minimum": 5_i64 } } },
    );
    tightening(
        doc! { "properties": { "n": { "minimum": 5_i64 } } },
        doc! { "properties": { "n": { "minimum": 5.0, "exclusiveMinimum": true } } },
    );
    // An int is always within the int range the derive writes.
    relaxing(
        doc! { "properties": { "n": { "bsonType": "int" } } },
        doc! { "properties": { "n": { "bsonType": ["int", "long"], "minimum": i32::MIN, "maximum": i32::MAX } } },
    );
}

#[test]
fn anyof_losing_a_version_tightens_with_a_document_of_that_version() {
    let v1 = doc! { "required": ["name"], "properties": { "name": { "bsonType": "string" }, "v": { "enum": [1] } } };
    let v2 = doc! { "required": ["first", "v"], "properties": { "first": { "bsonType": "string" }, "v": { "enum": [2] } } };
    let doc = tightening(
        doc! { "bsonType": "object", "anyOf": [v1.clone(), v2.clone()] },
        doc! { "bsonType": "object", "anyOf": [v2.clone()] },
    );
    assert!(doc.contains_key("name"), "{doc}");
    relaxing(
        doc! { "bsonType": "object", "anyOf": [v2.clone()] },
        doc! { "bsonType": "object", "anyOf": [v1, v2] },
    );
}

#[test]
fn closing_additional_properties_tightens() {
    let doc = tightening(
        doc! { "properties": { "_id": {}, "a": {} }, "additionalProperties": true },
        doc! { "properties": { "_id": {}, "a": {} }, "additionalProperties": false },
    );
    assert!(doc.keys().any(|k| k != "_id" && k != "a"), "{doc}");
    relaxing(
        doc! { "properties": { "_id": {}, "a": {} }, "additionalProperties": false },
        doc! { "properties": { "_id": {}, "a": {}, "b": {} }, "additionalProperties": false },
    );
}

#[test]
fn enums_grow_by_value_and_shrink_with_the_lost_member() {
    relaxing(
        doc! { "properties": { "s": { "enum": [1, { "a": 1, "b": 2 }] } } },
        doc! { "properties": { "s": { "enum": [{ "b": 2, "a": 1 }, 1.0, "x"] } } },
    );
    let doc = tightening(
        doc! { "properties": { "s": { "enum": ["a", "b"] } } },
        doc! { "properties": { "s": { "enum": ["a"] } } },
    );
    assert_eq!(doc.get_str("s").unwrap(), "b");
}

#[test]
fn patterns_are_proven_only_when_identical() {
    relaxing(
        doc! { "properties": { "s": { "pattern": "^a" } } },
        doc! { "properties": { "s": { "pattern": "^a" } }, "title": "t" },
    );
    relaxing(
        doc! { "properties": { "s": { "pattern": "^a" } } },
        doc! { "properties": { "s": {} } },
    );
    // Wider, but the proof does not reason about what patterns match.
    assert!(
        !classify(
            &schema(doc! { "properties": { "s": { "pattern": "^a" } } }),
            &schema(doc! { "properties": { "s": { "pattern": "^a|^b" } } }),
        )
        .is_relaxing()
    );
}

#[test]
fn multiple_of_relaxes_to_a_divisor() {
    relaxing(
        doc! { "properties": { "n": { "multipleOf": 0.3 } } },
        doc! { "properties": { "n": { "multipleOf": 0.1 } } },
    );
    relaxing(
        doc! { "properties": { "n": { "bsonType": "long" } } },
        doc! { "properties": { "n": { "multipleOf": 1 } } },
    );
    tightening(
        doc! { "properties": { "n": { "multipleOf": 2 } } },
        doc! { "properties": { "n": { "multipleOf": 4 } } },
    );
}

#[test]
fn nested_items_and_properties_are_compared_recursively() {
    relaxing(
        doc! { "properties": { "a": { "bsonType": "array", "items": { "bsonType": "object", "required": ["x", "y"] } } } },
        doc! { "properties": { "a": { "bsonType": "array", "items": { "bsonType": "object", "required": ["x"] } } } },
    );
    let doc = tightening(
        doc! { "properties": { "a": { "bsonType": "array", "items": { "bsonType": "object", "properties": { "x": { "maxLength": 5 } } } } } },
        doc! { "properties": { "a": { "bsonType": "array", "items": { "bsonType": "object", "properties": { "x": { "maxLength": 3 } } } } } },
    );
    assert!(!doc.get_array("a").unwrap().is_empty(), "{doc}");
    relaxing(
        doc! { "properties": { "t": { "items": [{ "bsonType": "int" }], "additionalItems": false } } },
        doc! { "properties": { "t": { "items": { "bsonType": "number" } } } },
    );
}

#[test]
fn oneof_and_not_are_proven_only_when_identical() {
    let reason = not_proven_or_tightening(
        doc! { "properties": { "a": { "bsonType": "int" } } },
        doc! { "properties": { "a": { "oneOf": [{ "bsonType": "int" }, { "bsonType": "string" }] } } },
    );
    assert!(reason.contains("oneOf"), "{reason}");
    // A `not` of types the old values never have holds.
    relaxing(
        doc! { "properties": { "a": { "bsonType": "int" } } },
        doc! { "properties": { "a": { "not": { "bsonType": "string" } } } },
    );
}

/// The reason when not proven; a tightening (checked) gives its description.
fn not_proven_or_tightening(old: Document, new: Document) -> String {
    match classify(&schema(old.clone()), &schema(new.clone())) {
        Classification::NotProven { reason } => reason,
        Classification::Tightening { .. } => {
            tightening(old, new);
            "oneOf".to_string()
        }
        Classification::Relaxing => panic!("not provable by the rules"),
    }
}

#[test]
fn describe_reads_as_a_sentence() {
    assert_eq!(Classification::Relaxing.describe(), "relaxing");
    // The counterexample is shown as relaxed Extended JSON, as mongosh and the plan's JSON read it.
    let id = bson::oid::ObjectId::parse_str("65f000000000000000000001").unwrap();
    let t = Classification::Tightening {
        counterexample: doc! { "_id": id, "a": 1 },
    };
    assert_eq!(
        t.describe(),
        "tightening: e.g. {\"_id\": {\"$oid\":\"65f000000000000000000001\"}, \"a\": 1} is accepted today and would be rejected"
    );
    // Every string starting with "a" contains one: true, but patterns are compared as text.
    let reason = not_proven(
        doc! { "properties": { "s": { "bsonType": "string", "pattern": "^a" } } },
        doc! { "properties": { "s": { "bsonType": "string", "pattern": "a" } } },
    );
    assert_eq!(
        Classification::NotProven { reason }.describe(),
        "not proven either way: s: a new or changed pattern \"a\" (only an identical pattern is proven)"
    );
}

#[test]
fn every_stored_document_has_an_id() {
    // Two required names and `_id` cannot fit in two properties: nothing is stored, so any
    // new schema accepts everything stored.
    relaxing(
        doc! { "required": ["a", "b"], "maxProperties": 2 },
        doc! { "bsonType": "object", "properties": { "a": { "bsonType": "string" } } },
    );
    // A document without `_id` is never a counterexample: this old schema forbids `_id`.
    relaxing(
        doc! { "properties": { "a": {} }, "additionalProperties": false },
        doc! { "required": ["a"] },
    );
    // `_id` alone already makes one property.
    relaxing(doc! {}, doc! { "minProperties": 1 });
    tightening(doc! {}, doc! { "minProperties": 2 });
}

#[test]
fn contradictory_counts_accept_nothing() {
    relaxing(
        doc! { "properties": { "s": { "bsonType": "string", "minLength": 3, "maxLength": 2 } } },
        doc! { "properties": { "s": { "bsonType": "int" } } },
    );
}

#[test]
fn an_additional_schema_that_accepts_anything_is_true() {
    relaxing(
        doc! { "bsonType": "object" },
        doc! { "bsonType": "object", "additionalProperties": { "anyOf": [{}, { "bsonType": "int" }] } },
    );
}

#[test]
fn the_search_is_deterministic() {
    let old = schema(
        doc! { "properties": { "n": { "bsonType": "number", "maximum": 10 } }, "anyOf": [{ "required": ["n"] }, { "required": ["m"] }] },
    );
    let new = schema(
        doc! { "properties": { "n": { "bsonType": "int", "maximum": 3 } }, "required": ["n"] },
    );
    let first = classify(&old, &new);
    assert!(
        matches!(first, Classification::Tightening { .. }),
        "{first:?}"
    );
    for _ in 0..3 {
        assert_eq!(classify(&old, &new), first);
    }
}

#[test]
fn dependencies_follow_from_required_or_old_dependencies() {
    relaxing(doc! { "dependencies": { "a": ["b"] } }, doc! {});
    relaxing(
        doc! { "required": ["b"] },
        doc! { "dependencies": { "a": ["b"] } },
    );
    let doc = tightening(doc! {}, doc! { "dependencies": { "a": ["b"] } });
    assert!(doc.contains_key("a") && !doc.contains_key("b"), "{doc}");
}

#[test]
fn pattern_properties_compare_under_identical_patterns() {
    let int = doc! { "patternProperties": { "^a": { "bsonType": "int" } } };
    let number = doc! { "patternProperties": { "^a": { "bsonType": "number" } } };
    relaxing(int.clone(), number.clone());
    let doc = tightening(number, int);
    assert!(doc.contains_key("a"), "{doc}");
    // A different pattern is not known to match the same names.
    assert!(
        !classify(
            &schema(doc! { "patternProperties": { "^a": { "bsonType": "int" } } }),
            &schema(doc! { "patternProperties": { "^ab": { "bsonType": "int" } } }),
        )
        .is_relaxing()
    );
}

#[test]
fn additional_property_schemas_are_compared() {
    relaxing(
        doc! { "properties": { "_id": {} }, "additionalProperties": { "bsonType": "int" } },
        doc! { "properties": { "_id": {} }, "additionalProperties": { "bsonType": "number" } },
    );
    tightening(
        doc! { "properties": { "_id": {} }, "additionalProperties": { "bsonType": "number" } },
        doc! { "properties": { "_id": {} }, "additionalProperties": { "bsonType": "int" } },
    );
}
