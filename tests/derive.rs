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
///
/// The keyword and alias lists repeat the parser's on purpose: this is a second reading of
/// the server's rules, written from its source, so that a gap in the parser's own table
/// cannot hide a derive that emits what the server refuses.
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

/// What a snapshot shows for `time`'s year range, which is the linked `time`'s (`Date::MIN` to
/// `Date::MAX`): ±9999, or ±999999 once any crate of the build turns on `large-dates` (bson 2
/// does), so the same test sees either, depending on what cargo builds beside it.
const LINKED_YEAR_MIN: &str = "[time::Date::MIN.year()]";
const LINKED_YEAR_MAX: &str = "[time::Date::MAX.year()]";

/// Replaces, at any depth, a `minimum`/`maximum` pair equal to the linked `time`'s year range
/// with the names of its bounds, so no snapshot depends on cargo's feature unification;
/// `time_year_bound_is_the_linked_range` checks the numbers themselves.
fn redact_linked_year_bounds(json: &mut serde_json::Value) {
    let (min, max) = (time::Date::MIN.year(), time::Date::MAX.year());
    match json {
        serde_json::Value::Object(map) => {
            let is_year = map.get("minimum").and_then(serde_json::Value::as_i64)
                == Some(min.into())
                && map.get("maximum").and_then(serde_json::Value::as_i64) == Some(max.into());
            if is_year {
                map.insert("minimum".into(), LINKED_YEAR_MIN.into());
                map.insert("maximum".into(), LINKED_YEAR_MAX.into());
            }
            map.values_mut().for_each(redact_linked_year_bounds);
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(redact_linked_year_bounds),
        _ => {}
    }
}

#[test]
fn time_year_bound_is_the_linked_range() {
    let doc = TimeTypes::root_schema().to_document();
    let year = doc
        .get_document("properties")
        .and_then(|p| p.get_document("parts"))
        .and_then(|p| p.get_array("items"))
        .expect("parts is a tuple")
        .first()
        .and_then(Bson::as_document)
        .expect("the year is the first part")
        .clone();
    let bound = |key| {
        year.get(key)
            .and_then(Bson::as_i64)
            .or_else(|| year.get_i32(key).ok().map(i64::from))
    };
    assert_eq!(
        bound("minimum"),
        Some(i64::from(time::Date::MIN.year())),
        "{year:?}"
    );
    assert_eq!(
        bound("maximum"),
        Some(i64::from(time::Date::MAX.year())),
        "{year:?}"
    );
    // The snapshot names the bounds instead of showing them.
    let mut json = Bson::Document(doc).into_relaxed_extjson();
    redact_linked_year_bounds(&mut json);
    let items = &json["properties"]["parts"]["items"];
    assert_eq!(items[0]["minimum"], LINKED_YEAR_MIN, "{items}");
    assert_eq!(items[0]["maximum"], LINKED_YEAR_MAX, "{items}");
    // Nothing else of the tuple is touched (the ordinal day keeps 1..=366).
    assert_eq!(items[1]["maximum"], 366, "{items}");
}

macro_rules! snapshots {
    ($($name:ident: $ty:ty),* $(,)?) => {$(
        #[test]
        fn $name() {
            let doc = validator::<$ty>();
            let mut json = bson::Bson::Document(doc).into_relaxed_extjson();
            redact_linked_year_bounds(&mut json);
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

// --- Stated schemas need nothing of the type; bounds follow what is (de)serialized. ---

/// Stands for a type of another crate: serde impls, no `MongoSchema` impl (the orphan rule
/// would forbid one).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct ForeignId(String);

fn pairs_schema(g: &mut mongo_schema::SchemaGenerator) -> mongo_schema::JsonSchema {
    <Vec<(i32, String)>>::json_schema(g)
}

/// Issue 11 item 5: a field whose schema is stated names nothing of its type: a foreign
/// newtype with no impl (`ForeignId`), and types stored through a converter the derive cannot
/// see (`IpAddr` through `DisplayFromStr`, a `HashMap<u16, _>` written as pairs), whether or
/// not the crate has an impl for them.
#[serde_with::serde_as]
#[derive(Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
struct Host {
    #[serde_as(as = "serde_with::DisplayFromStr")]
    #[mongo(bson_type = "string")]
    address: std::net::IpAddr,
    #[serde_as(as = "Option<serde_with::DisplayFromStr>")]
    #[mongo(bson_type = "string, null")]
    gateway: Option<std::net::IpAddr>,
    #[mongo(bson_type = "string")]
    owner: ForeignId,
    #[mongo(bson_type = "string, null")]
    previous_owner: Option<ForeignId>,
    #[serde_as(as = "Vec<(_, _)>")]
    #[mongo(schema_with = pairs_schema)]
    ports: std::collections::HashMap<u16, String>,
    #[serde_as(as = "serde_with::DisplayFromStr")]
    #[mongo(schema_as = String, min_length = 2)]
    mask: std::net::IpAddr,
}

fn raw_validator<T: MongoSchema>() -> mongo_schema::eval::Validator {
    mongo_schema::eval::Validator::from_document(&T::root_schema().to_validator()).unwrap()
}

/// Both bson paths (raw for inserts, `Document` for `$set`) with the `_id` the server adds.
fn stored_forms<T: Serialize>(value: &T) -> Vec<bson::RawDocumentBuf> {
    let raw = bson::serialize_to_raw_document_buf(value).unwrap();
    let doc = bson::serialize_to_document(value).unwrap();
    let mut with_id = bson::doc! { "_id": bson::oid::ObjectId::new() };
    with_id.extend(doc.clone());
    vec![
        raw,
        bson::RawDocumentBuf::try_from(&doc).unwrap(),
        bson::RawDocumentBuf::try_from(&with_id).unwrap(),
    ]
}

#[test]
fn stated_schemas_need_no_impl_of_the_field_type() {
    let host = Host {
        address: "10.0.0.1".parse().unwrap(),
        gateway: None,
        owner: ForeignId("ops".into()),
        previous_owner: Some(ForeignId("dev".into())),
        ports: [(443, "https".to_owned())].into(),
        mask: "255.0.0.0".parse().unwrap(),
    };
    let evaluator = raw_validator::<Host>();
    for doc in stored_forms(&host) {
        assert!(evaluator.is_valid(&doc), "{doc:?}");
        let back: Host = bson::deserialize_from_slice(doc.as_bytes()).unwrap();
        assert_eq!(back, host);
    }
    let schema = validator::<Host>();
    let props = schema.get_document("properties").unwrap();
    assert_eq!(
        props
            .get_document("ports")
            .unwrap()
            .get_str("bsonType")
            .unwrap(),
        "array"
    );
    assert_eq!(
        props
            .get_document("mask")
            .unwrap()
            .get_i32("minLength")
            .unwrap(),
        2
    );
    // serde_as gives the `Option` a default: it may be missing, the others may not.
    let required = schema.get_array("required").unwrap();
    assert!(!required.contains(&Bson::from("gateway")), "{required:?}");
    assert!(required.contains(&Bson::from("owner")), "{required:?}");
    assert!(
        !required.contains(&Bson::from("previous_owner")),
        "{required:?}"
    );
    // No fields to descend into below a stated schema, and the error names the type.
    assert_eq!(Host::field_path(&["owner"]).unwrap(), ["owner"]);
    let err = Host::field_path(&["owner", "x"]).unwrap_err();
    assert!(err.ty.ends_with("ForeignId"), "{}", err.ty);
}

/// No `MongoSchema` impl: a type parameter that is skipped or only in `PhantomData` must not
/// be bounded by it.
#[derive(Default, Serialize, Deserialize)]
struct NoImpl;

/// Issue 11 item 10: `T` is only in a `PhantomData` and a skipped field, `U` in a field.
#[derive(Serialize, Deserialize, MongoSchema)]
struct Tagged<T, U> {
    value: U,
    #[serde(skip)]
    cache: Option<T>,
    marker: std::marker::PhantomData<T>,
}

#[test]
fn phantom_and_skipped_parameters_are_not_bounded() {
    let schema = validator::<Tagged<NoImpl, i32>>();
    let props = schema.get_document("properties").unwrap();
    assert_eq!(
        props
            .get_document("marker")
            .unwrap()
            .get_str("bsonType")
            .unwrap(),
        "null"
    );
    assert!(!props.contains_key("cache"));
    let value = Tagged::<NoImpl, i32> {
        value: 3,
        cache: None,
        marker: std::marker::PhantomData,
    };
    assert!(value.cache.is_none());
    let validator = raw_validator::<Tagged<NoImpl, i32>>();
    for doc in stored_forms(&value) {
        assert!(validator.is_valid(&doc), "{doc:?}");
    }
}

mod as_text {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(n: &u64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&n.to_string())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// Issue 11 item 10: one variant with its own `with` states its stored form on the variant;
/// the rest of the enum is derived.
#[derive(Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
#[serde(tag = "kind", content = "value")]
enum Amount {
    #[serde(with = "as_text")]
    #[mongo(bson_type = "string", description = "decimal digits")]
    Big(u64),
    Small(i32),
    Zero,
}

#[test]
fn a_variant_with_its_own_with_states_its_content() {
    let validator = raw_validator::<Amount>();
    for amount in [Amount::Big(u64::MAX), Amount::Small(-1), Amount::Zero] {
        let doc = bson::serialize_to_raw_document_buf(&amount).unwrap();
        assert!(validator.is_valid(&doc), "{doc:?}");
    }
    // The stated content is what the validator checks: a number under `Big` is refused.
    let wrong = bson::rawdoc! { "kind": "Big", "value": 5_i64 };
    assert!(!validator.is_valid(&wrong));
    assert!(bson::deserialize_from_slice::<Amount>(wrong.as_bytes()).is_err());
}

/// Issue 11 item 10: a tuple's last elements may be left out when each reads as its default.
#[derive(Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
struct Reading(
    f64,
    #[serde(skip)] u8,
    #[serde(skip_serializing_if = "Option::is_none", default)] Option<String>,
);

#[test]
fn a_tuple_may_end_before_elements_skipped_at_its_end() {
    #[derive(Serialize, Deserialize, MongoSchema)]
    struct Root {
        reading: Reading,
    }
    let validator = raw_validator::<Root>();
    for reading in [Reading(1.5, 0, None), Reading(2.5, 0, Some("unit".into()))] {
        let root = Root { reading };
        for doc in stored_forms(&root) {
            assert!(validator.is_valid(&doc), "{doc:?}");
            let back: Root = bson::deserialize_from_slice(doc.as_bytes()).unwrap();
            assert_eq!(back.reading, root.reading);
        }
    }
}

// --- Collection roots read the `_id` the server adds (issue 11 item 3). ---

#[derive(Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
#[serde(deny_unknown_fields)]
#[mongo(collection = "closed_roots")]
struct ClosedRoot {
    #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
    id: Option<bson::oid::ObjectId>,
    name: String,
}

#[derive(Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
#[serde(tag = "type")]
#[mongo(collection = "shapes")]
enum Shape {
    Circle { radius: f64 },
    Square { side: f64 },
}

#[derive(Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
#[mongo(collection = "open_roots")]
struct OpenRoot {
    name: String,
    #[serde(flatten)]
    rest: std::collections::BTreeMap<String, Bson>,
}

fn insert_like<T: Serialize>(value: &T) -> bson::RawDocumentBuf {
    // What the driver stores for insert_one: the server's ObjectId `_id` first.
    let mut doc = bson::doc! { "_id": bson::oid::ObjectId::new() };
    doc.extend(bson::serialize_to_document(value).unwrap());
    bson::RawDocumentBuf::try_from(&doc).unwrap()
}

#[test]
fn roots_that_can_read_id_have_validators_that_accept_it() {
    let closed = ClosedRoot {
        id: None,
        name: "a".into(),
    };
    let shape = Shape::Circle { radius: 1.0 };
    let open = OpenRoot {
        name: "b".into(),
        rest: [("colour".to_owned(), Bson::from("red"))].into(),
    };
    let closed_doc = insert_like(&closed);
    assert!(raw_validator::<ClosedRoot>().is_valid(&closed_doc));
    let back: ClosedRoot = bson::deserialize_from_slice(closed_doc.as_bytes()).unwrap();
    assert_eq!(back.name, "a");
    let shape_doc = insert_like(&shape);
    assert!(raw_validator::<Shape>().is_valid(&shape_doc));
    assert_eq!(
        bson::deserialize_from_slice::<Shape>(shape_doc.as_bytes()).unwrap(),
        shape
    );
    let open_doc = insert_like(&open);
    assert!(raw_validator::<OpenRoot>().is_valid(&open_doc));
    let back: OpenRoot = bson::deserialize_from_slice(open_doc.as_bytes()).unwrap();
    assert!(back.rest.contains_key("_id"));
}

#[test]
fn dotted_names_are_checked_literally_and_required_by_presence() {
    let values = [
        DottedNames {
            required: 7,
            optional: Some("x".into()),
            aliased: true,
            price: 1.5,
            plain: "p".into(),
        },
        DottedNames {
            required: -1,
            optional: None,
            aliased: false,
            price: 0.0,
            plain: String::new(),
        },
    ];
    let v = raw_validator::<DottedNames>();
    for value in &values {
        for doc in stored_forms(value) {
            let verdict = v.evaluate(&doc);
            assert!(verdict.is_valid(), "{doc:?}: {:?}", verdict.summaries());
            assert!(verdict.is_fully_checked(), "{doc:?}");
        }
        // Tight: a wrong type at the literal key "a.b" (or "$price") is refused.
        for (key, wrong) in [("a.b", Bson::from("seven")), ("$price", Bson::from("1.5"))] {
            let mut doc = bson::serialize_to_document(value).unwrap();
            doc.insert(key, wrong);
            let doc = bson::RawDocumentBuf::try_from(&doc).unwrap();
            assert!(bson::deserialize_from_slice::<DottedNames>(doc.as_bytes()).is_err());
            let verdict = v.evaluate(&doc);
            assert!(!verdict.is_valid(), "{key}: {doc:?}");
            assert!(verdict.is_fully_checked(), "{doc:?}");
        }
        // Tight: the required literal key "a.b" is asked for (`required` would read a path).
        let mut doc = bson::serialize_to_document(value).unwrap();
        doc.remove("a.b");
        let doc = bson::RawDocumentBuf::try_from(&doc).unwrap();
        assert!(bson::deserialize_from_slice::<DottedNames>(doc.as_bytes()).is_err());
        assert!(!v.is_valid(&doc), "{doc:?}");
    }
    let closed = DottedClosed {
        value: 3,
        tag: Some(DottedVariant::One(4)),
    };
    let v = raw_validator::<DottedClosed>();
    for doc in stored_forms(&closed) {
        assert!(v.is_valid(&doc), "{doc:?}");
    }
    let mut wrong = bson::serialize_to_document(&closed).unwrap();
    wrong.insert("x.y", 300);
    assert!(!v.is_valid(&bson::RawDocumentBuf::try_from(&wrong).unwrap()));
}

/// Mutually recursive types: asking whether their forms are distinct must terminate.
#[derive(Serialize, Deserialize, MongoSchema, PartialEq, Eq, Hash)]
struct MutualA {
    b: Vec<MutualB>,
}

#[derive(Serialize, Deserialize, MongoSchema, PartialEq, Eq, Hash)]
struct MutualB {
    a: Option<Box<MutualA>>,
}

#[test]
fn sets_of_derived_types_are_unique_exactly_where_forms_are_distinct() {
    let distinct = |f: fn(&mut mongo_schema::generate::Visiting) -> bool| f(&mut Vec::new());
    assert!(distinct(Status::distinct_forms) && distinct(PlainMember::distinct_forms));
    assert!(!distinct(LossyMember::distinct_forms) && !distinct(Skips::distinct_forms));
    // Mutually recursive types answer (a constant here would be a compile-time cycle).
    assert!(!distinct(MutualA::distinct_forms));
    let schema = validator::<SetsOfDerived>();
    let unique = |field: &str| {
        schema
            .get_document("properties")
            .and_then(|p| p.get_document(field))
            .map(|f| f.get_bool("uniqueItems").unwrap_or(false))
            .unwrap()
    };
    assert!(unique("statuses"), "{schema}");
    assert!(unique("plains"), "{schema}");
    assert!(!unique("lossy"), "{schema}");
    // {a, 1} and {a, 2} are two members that write the same document, which the validator admits.
    let lossy = SetsOfDerived {
        statuses: [Status::Paid].into(),
        plains: std::collections::BTreeSet::new(),
        lossy: [1, 2]
            .map(|cache| LossyMember {
                name: "a".into(),
                cache,
            })
            .into(),
    };
    let v = raw_validator::<SetsOfDerived>();
    for doc in stored_forms(&lossy) {
        assert!(v.is_valid(&doc), "{doc:?}");
    }
}

/// `skip_serializing` on an `Option` needs no `default`: serde reads the missing field as `None`.
#[derive(Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
struct WriteOnlyOption {
    name: String,
    #[serde(skip_serializing)]
    secret: Option<String>,
}

#[test]
fn skip_serializing_an_option_compiles_and_its_validator_accepts_what_it_writes() {
    let value = WriteOnlyOption {
        name: "a".into(),
        secret: Some("s".into()),
    };
    let v = raw_validator::<WriteOnlyOption>();
    for doc in stored_forms(&value) {
        assert!(v.is_valid(&doc), "{doc:?}");
        let back: WriteOnlyOption = bson::deserialize_from_slice(doc.as_bytes()).unwrap();
        assert_eq!(back.secret, None);
    }
    let schema = validator::<WriteOnlyOption>();
    assert_eq!(
        schema.get_array("required").unwrap(),
        &vec![Bson::from("name")]
    );
}
