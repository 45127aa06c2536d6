//! `#[derive(MongoSchema)]` end to end: one reviewed insta snapshot of the rendered validator
//! per fixture type, a server-faithful keyword check over every one of them, and `field_path`.

#[path = "fixtures/mod.rs"]
mod fixtures;

use std::borrow::Cow;

use bson::{Bson, Document};
use fixtures::*;
use mongo_schema::{ExtJsonMode, MongoSchema};
use serde::{Deserialize, Serialize};

/// Checks a rendered schema the way the server's `$jsonSchema` parser does
/// (SERVER-FACTS: "$jsonSchema: what the server accepts"); returns every problem found.
fn server_problems(schema: &Document, at: &str, out: &mut Vec<String>) {
    const KEYWORDS: &[&str] = &[
        "additionalItems",
        "additionalProperties",
        "allOf",
        "anyOf",
        "bsonType",
        "dependencies",
        "description",
        "encrypt",
        "encryptMetadata",
        "enum",
        "exclusiveMaximum",
        "exclusiveMinimum",
        "items",
        "maxItems",
        "maxLength",
        "maxProperties",
        "maximum",
        "minItems",
        "minLength",
        "minProperties",
        "minimum",
        "multipleOf",
        "not",
        "oneOf",
        "pattern",
        "patternProperties",
        "properties",
        "required",
        "title",
        "type",
        "uniqueItems",
    ];
    const ALIASES: &[&str] = &[
        "double",
        "string",
        "object",
        "array",
        "binData",
        "undefined",
        "objectId",
        "bool",
        "date",
        "null",
        "regex",
        "dbPointer",
        "javascript",
        "symbol",
        "javascriptWithScope",
        "int",
        "timestamp",
        "long",
        "decimal",
        "minKey",
        "maxKey",
        "number",
    ];
    let mut problem = |m: String| out.push(format!("{at}: {m}"));
    for key in schema.keys() {
        if !KEYWORDS.contains(&key.as_str()) {
            problem(format!("unsupported keyword {key}"));
        }
    }
    if schema.contains_key("type") && schema.contains_key("bsonType") {
        problem("type and bsonType are siblings".into());
    }
    if let Some(t) = schema.get("bsonType") {
        let names: Vec<&Bson> = match t {
            Bson::Array(a) => a.iter().collect(),
            other => vec![other],
        };
        let mut seen = Vec::new();
        for n in names {
            match n.as_str() {
                Some(s) if ALIASES.contains(&s) => {
                    if seen.contains(&s) {
                        problem(format!("duplicate bsonType {s}"));
                    }
                    seen.push(s);
                }
                _ => problem(format!("bad bsonType {n}")),
            }
        }
        if matches!(t, Bson::Array(a) if a.is_empty()) {
            problem("empty bsonType".into());
        }
    }
    for key in ["required", "enum", "allOf", "anyOf", "oneOf"] {
        if let Some(v) = schema.get(key) {
            match v {
                Bson::Array(a) if a.is_empty() => problem(format!("empty {key}")),
                Bson::Array(a) => {
                    for (i, x) in a.iter().enumerate() {
                        if a[..i].contains(x) && key != "allOf" {
                            problem(format!("duplicate in {key}: {x}"));
                        }
                    }
                }
                _ => problem(format!("{key} is not an array")),
            }
        }
    }
    for (flag, bound) in [
        ("exclusiveMinimum", "minimum"),
        ("exclusiveMaximum", "maximum"),
    ] {
        if let Some(v) = schema.get(flag) {
            if v.as_bool().is_none() {
                problem(format!("{flag} is not a boolean"));
            }
            if !schema.contains_key(bound) {
                problem(format!("{flag} without {bound}"));
            }
        }
    }
    for key in [
        "maxItems",
        "minItems",
        "maxLength",
        "minLength",
        "maxProperties",
        "minProperties",
    ] {
        if let Some(v) = schema.get(key) {
            let ok = match v {
                Bson::Int32(n) => *n >= 0,
                Bson::Int64(n) => *n >= 0,
                Bson::Double(d) => *d >= 0.0 && d.fract() == 0.0,
                _ => false,
            };
            if !ok {
                problem(format!("{key} is not a non-negative whole number"));
            }
        }
    }
    if let Some(v) = schema.get("multipleOf") {
        let positive = match v {
            Bson::Int32(n) => *n > 0,
            Bson::Int64(n) => *n > 0,
            Bson::Double(d) => *d > 0.0,
            _ => false,
        };
        if !positive {
            problem("multipleOf is not positive".into());
        }
    }
    for key in ["title", "description", "pattern"] {
        if schema.get(key).is_some_and(|v| v.as_str().is_none()) {
            problem(format!("{key} is not a string"));
        }
    }
    let mut nested: Vec<(String, &Document)> = Vec::new();
    for key in ["properties", "patternProperties"] {
        if let Some(Bson::Document(d)) = schema.get(key) {
            for (name, s) in d {
                match s {
                    Bson::Document(s) => nested.push((format!("{at}.{key}.{name}"), s)),
                    _ => problem(format!("{key}.{name} is not a schema")),
                }
            }
        }
    }
    for key in ["items", "additionalItems", "additionalProperties", "not"] {
        match schema.get(key) {
            Some(Bson::Document(d)) => nested.push((format!("{at}.{key}"), d)),
            Some(Bson::Array(a)) if key == "items" => {
                for (i, s) in a.iter().enumerate() {
                    if let Bson::Document(d) = s {
                        nested.push((format!("{at}.items[{i}]"), d));
                    }
                }
            }
            _ => {}
        }
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        if let Some(Bson::Array(a)) = schema.get(key) {
            for (i, s) in a.iter().enumerate() {
                if let Bson::Document(d) = s {
                    nested.push((format!("{at}.{key}[{i}]"), d));
                }
            }
        }
    }
    for (path, d) in nested {
        server_problems(d, &path, out);
    }
}

fn validator<T: MongoSchema>() -> Document {
    let doc = T::root_schema().to_document();
    let mut problems = Vec::new();
    server_problems(&doc, std::any::type_name::<T>(), &mut problems);
    assert!(
        problems.is_empty(),
        "the server would refuse: {problems:#?}"
    );
    // The evaluator's server-faithful parser reads it back as the server would.
    let parsed = mongo_schema::eval::Validator::from_document(&T::root_schema().to_validator());
    assert!(parsed.is_ok(), "the parser refuses it: {:?}", parsed.err());
    doc
}

/// Borrowed strings: `&str`, a borrowing `Cow` (serde's own `borrow` reader) and `Vec<&str>`.
#[derive(Serialize, Deserialize, MongoSchema)]
struct Borrowed<'a> {
    name: &'a str,
    #[serde(borrow)]
    cow: Cow<'a, str>,
    #[serde(borrow)]
    tags: Vec<&'a str>,
}

/// A generic enum: the bounds follow the type parameters.
#[derive(Serialize, Deserialize, MongoSchema)]
enum Either<L, R> {
    Left(L),
    Right(R),
}

macro_rules! snapshots {
    ($($name:ident: $ty:ty),* $(,)?) => {$(
        #[test]
        fn $name() {
            let doc = validator::<$ty>();
            let json = bson::Bson::Document(doc).into_relaxed_extjson();
            insta::assert_json_snapshot!(stringify!($name), json);
        }
    )*};
}

// Every fixture of `fixtures::with_fixtures!` (shared with the property tests), plus types that
// only have a snapshot (borrowed data and generic enums have no `Arbitrary` here).
with_fixtures!(
    snapshots,
    borrowed: Borrowed<'static>,
    either: Either<i32, Status>,
    wrap_of_status: Wrap<Status>,
);

#[test]
fn field_path_follows_renames_into_embedded_types() {
    assert_eq!(Order::field_path(&["id"]).unwrap(), ["_id"]);
    assert_eq!(
        Order::field_path(&["customer", "id"]).unwrap(),
        ["customer", "id"]
    );
    // Through an array: the element's fields (a multikey path).
    assert_eq!(
        Order::field_path(&["items", "qty"]).unwrap(),
        ["items", "qty"]
    );
    assert_eq!(
        SensorBucket::field_path(&["n_measurements"]).unwrap(),
        ["nMeasurements"]
    );
    assert_eq!(
        RenameScreamingKebab::field_path(&["zip_code_2"]).unwrap(),
        ["ZIP-CODE-2"]
    );
}

#[test]
fn field_path_reaches_flattened_fields_and_transparent_wrappers() {
    assert_eq!(
        FlattenStruct::field_path(&["meta", "revision"]).unwrap(),
        ["revision"]
    );
    assert_eq!(
        FlattenStruct::field_path(&["revision"]).unwrap(),
        ["revision"]
    );
    assert_eq!(
        Wrap::<CustomerRef>::field_path(&["value", "name"]).unwrap(),
        ["value", "name"]
    );
}

#[test]
fn field_path_error_names_the_type_and_suggests() {
    let err = Order::field_path(&["customer", "nmae"]).unwrap_err();
    assert_eq!(err.segment, "nmae");
    assert!(err.ty.ends_with("CustomerRef"), "{}", err.ty);
    assert_eq!(err.candidates, ["name"]);
    // A skipped field is not stored, so it has no path.
    assert!(Skips::field_path(&["cache"]).is_err());
}

#[test]
fn transparent_option_field_is_not_required() {
    let doc = Shapes::json_schema(&mut Default::default()).to_document();
    let required = doc.get_array("required").unwrap();
    assert!(!required.contains(&Bson::from("note")), "{required:?}");
    assert!(required.contains(&Bson::from("email")));
}

#[test]
fn a_date_stored_as_a_string_and_as_a_date_differ() {
    // Issue 2: a chrono date stored as a BSON date vs as a string gives different validators.
    let doc = ChronoTypes::root_schema().to_document();
    let props = doc.get_document("properties").unwrap();
    assert_eq!(
        props
            .get_document("as_string")
            .unwrap()
            .get_str("bsonType")
            .unwrap(),
        "string"
    );
    assert_eq!(
        props
            .get_document("as_date")
            .unwrap()
            .get_str("bsonType")
            .unwrap(),
        "date"
    );
}

#[test]
fn canonical_extended_json_keeps_number_types() {
    let json = Validated::root_schema().to_extjson(ExtJsonMode::Canonical);
    assert_eq!(json["properties"]["age"]["maximum"]["$numberInt"], "150");
}

#[test]
fn field_path_of_a_polymorphic_collection_reaches_every_variant() {
    // PATTERNS.md #8: one collection, fields of every variant at the top level.
    assert_eq!(CatalogItem::field_path(&["title"]).unwrap(), ["title"]);
    assert_eq!(
        CatalogItem::field_path(&["duration_hrs"]).unwrap(),
        ["durationHrs"]
    );
    assert_eq!(
        CatalogItem::field_path(&["created_by"]).unwrap(),
        ["created_by"]
    );
    let err = CatalogItem::field_path(&["titel"]).unwrap_err();
    assert_eq!(err.candidates, ["title"]);
    // Externally tagged variants nest under their name: no top-level fields.
    assert!(External::field_path(&["a"]).is_err());
}
