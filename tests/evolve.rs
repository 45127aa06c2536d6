//! Property tests of `evolve::classify` with the local evaluator as the oracle:
//! - a `Relaxing` verdict never meets a document the old schema accepts and the new one rejects
//!   (over documents generated near the schemas' bounds, and over the library's own
//!   counterexample search);
//! - every `Tightening` counterexample is accepted by the old schema and rejected by the new;
//! - a schema compared with itself is `Relaxing`.
//!
//! Schema pairs are a random small schema (types, bounds, counts, required, properties nested to
//! depth 2, enums, additionalProperties, patternProperties, dependencies, items, allOf, anyOf,
//! oneOf, not) and either another random schema or the
//! same one with a few keywords removed, replaced or added.

use bson::{Bson, Document, RawDocumentBuf, doc};
use mongo_schema::JsonSchema;
use mongo_schema::eval::Validator;
use mongo_schema::evolve::{Classification, classify, witness};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

/// Cases per property: moderate, so the suite stays within the CI budget
/// (`PROPTEST_CASES=1000` for a deeper run).
fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(64);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

const NAMES: [&str; 3] = ["a", "b", "c"];

/// Numbers at and around the bounds the schema generator uses.
fn number() -> impl Strategy<Value = Bson> {
    prop_oneof![
        (-2_i32..7).prop_map(Bson::Int32),
        (-2_i64..7).prop_map(Bson::Int64),
        prop::sample::select(vec![-1.0, 0.0, 0.5, 1.0, 1.5, 2.0, 4.5, 5.0, 5.5, f64::NAN])
            .prop_map(Bson::Double),
        prop::sample::select(vec!["0", "1", "2.0", "4.99", "5", "5.01"])
            .prop_map(|s| Bson::Decimal128(s.parse().expect("a decimal"))),
    ]
}

fn scalar() -> impl Strategy<Value = Bson> {
    prop_oneof![
        4 => number(),
        2 => prop::sample::select(vec!["", "a", "b", "ab", "abc", "abcd"]).prop_map(Bson::from),
        1 => Just(Bson::Null),
        1 => any::<bool>().prop_map(Bson::Boolean),
    ]
}

/// A value for a document field, nested to depth 2.
fn value() -> impl Strategy<Value = Bson> {
    scalar().prop_recursive(2, 12, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Bson::Array),
            prop::collection::vec((prop::sample::select(NAMES.to_vec()), inner), 0..3).prop_map(
                |fields| {
                    let mut d = Document::new();
                    for (k, v) in fields {
                        d.insert(k, v);
                    }
                    Bson::Document(d)
                }
            ),
        ]
    })
}

/// A top-level document: an ObjectId `_id` (as the server adds), and some of `a`, `b`, `c`.
fn document() -> impl Strategy<Value = Document> {
    let names = prop::sample::select(vec!["a", "b", "c", "ab", "ba"]);
    prop::collection::vec((names, value()), 0..4).prop_map(|fields| {
        let mut d = doc! { "_id": bson::oid::ObjectId::from_bytes([7; 12]) };
        for (k, v) in fields {
            d.insert(k, v);
        }
        d
    })
}

fn bound() -> impl Strategy<Value = Bson> {
    prop_oneof![
        (-1_i32..6).prop_map(Bson::Int32),
        prop::sample::select(vec![0.5, 2.0, 5.0]).prop_map(Bson::Double),
        Just(Bson::Int64(5)),
    ]
}

fn type_names() -> impl Strategy<Value = Bson> {
    prop::sample::select(vec![
        vec!["int"],
        vec!["long"],
        vec!["double"],
        vec!["number"],
        vec!["int", "long"],
        vec!["string"],
        vec!["int", "string"],
        vec!["object"],
        vec!["array"],
        vec!["null", "int"],
        vec!["bool"],
    ])
    .prop_map(|v| Bson::from(v.into_iter().map(Bson::from).collect::<Vec<_>>()))
}

fn enum_members() -> impl Strategy<Value = Bson> {
    let pool = vec![
        Bson::Int32(1),
        Bson::Int32(2),
        Bson::Double(2.0),
        Bson::from("a"),
        Bson::from("b"),
        Bson::Null,
        Bson::Document(doc! { "a": 1 }),
    ];
    prop::sample::subsequence(pool, 1..4).prop_filter_map("distinct by value", |v| {
        // The server rejects duplicates; 2 and 2.0 are distinct BSON values, so keep both.
        Some(Bson::Array(v))
    })
}

/// One keyword of a value schema (the nested schemas come from `inner`).
fn keyword(inner: BoxedStrategy<Document>) -> impl Strategy<Value = (String, Bson)> {
    let kw = |k: &'static str| move |v: Bson| (k.to_string(), v);
    let count = || (0_i32..4).prop_map(Bson::Int32);
    prop_oneof![
        4 => type_names().prop_map(kw("bsonType")),
        3 => bound().prop_map(kw("minimum")),
        3 => bound().prop_map(kw("maximum")),
        1 => any::<bool>().prop_map(|b| ("exclusiveMinimum".to_string(), Bson::Boolean(b))),
        1 => any::<bool>().prop_map(|b| ("exclusiveMaximum".to_string(), Bson::Boolean(b))),
        1 => prop::sample::select(vec![Bson::Int32(1), Bson::Int32(2), Bson::Double(0.5)])
            .prop_map(kw("multipleOf")),
        2 => count().prop_map(kw("minLength")),
        2 => count().prop_map(kw("maxLength")),
        1 => Just(("pattern".to_string(), Bson::from("^a"))),
        2 => enum_members().prop_map(kw("enum")),
        2 => inner.clone().prop_map(|s| ("items".to_string(), Bson::Document(s))),
        1 => prop::collection::vec(inner.clone(), 1..3)
            .prop_map(|v| ("items".to_string(), Bson::from(v.into_iter().map(Bson::Document).collect::<Vec<_>>()))),
        1 => any::<bool>().prop_map(|b| ("additionalItems".to_string(), Bson::Boolean(b))),
        1 => count().prop_map(kw("minItems")),
        1 => count().prop_map(kw("maxItems")),
        1 => Just(("uniqueItems".to_string(), Bson::Boolean(true))),
        3 => object_keywords(inner.clone()),
        1 => prop::collection::vec(inner.clone(), 1..3).prop_map(|v| (
            "allOf".to_string(),
            Bson::from(v.into_iter().map(Bson::Document).collect::<Vec<_>>())
        )),
        1 => prop::collection::vec(inner.clone(), 1..3).prop_map(|v| (
            "oneOf".to_string(),
            Bson::from(v.into_iter().map(Bson::Document).collect::<Vec<_>>())
        )),
        1 => inner.clone().prop_map(|s| ("not".to_string(), Bson::Document(s))),
        2 => prop::collection::vec(inner, 1..3)
            .prop_map(|v| ("anyOf".to_string(), Bson::from(v.into_iter().map(Bson::Document).collect::<Vec<_>>()))),
    ]
}

/// `properties`, `required`, `additionalProperties` and property counts.
fn object_keywords(inner: BoxedStrategy<Document>) -> impl Strategy<Value = (String, Bson)> {
    prop_oneof![
        3 => prop::collection::vec((prop::sample::select(NAMES.to_vec()), inner.clone()), 1..3)
            .prop_map(|v| {
                let mut d = Document::new();
                for (k, s) in v {
                    d.insert(k, s);
                }
                ("properties".to_string(), Bson::Document(d))
            }),
        2 => prop::sample::subsequence(NAMES.to_vec(), 1..3)
            .prop_map(|v| ("required".to_string(), Bson::from(v))),
        1 => any::<bool>().prop_map(|b| ("additionalProperties".to_string(), Bson::Boolean(b))),
        1 => inner.clone().prop_map(|s| ("additionalProperties".to_string(), Bson::Document(s))),
        1 => (prop::sample::select(vec!["^a", "b", "^ab$"]), inner.clone()).prop_map(|(p, s)| {
            let mut d = Document::new();
            d.insert(p, s);
            ("patternProperties".to_string(), Bson::Document(d))
        }),
        1 => (prop::sample::select(NAMES.to_vec()), prop::sample::subsequence(NAMES.to_vec(), 1..3))
            .prop_map(|(k, v)| ("dependencies".to_string(), Bson::Document(doc! { k: v }))),
        1 => (prop::sample::select(NAMES.to_vec()), inner)
            .prop_map(|(k, s)| ("dependencies".to_string(), Bson::Document(doc! { k: s }))),
        1 => (0_i32..4).prop_map(|n| ("minProperties".to_string(), Bson::Int32(n))),
        1 => (1_i32..5).prop_map(|n| ("maxProperties".to_string(), Bson::Int32(n))),
    ]
}

fn from_keywords(keywords: Vec<(String, Bson)>) -> Document {
    let mut d = Document::new();
    for (k, v) in keywords {
        d.insert(k, v);
    }
    d
}

/// A small value schema, nested to depth 2.
fn schema_doc() -> BoxedStrategy<Document> {
    let leaf = prop::collection::vec(keyword(Just(Document::new()).boxed()), 0..3)
        .prop_map(from_keywords)
        .boxed();
    leaf.prop_recursive(2, 16, 4, |inner| {
        prop::collection::vec(keyword(inner), 0..4)
            .prop_map(from_keywords)
            .boxed()
    })
    .boxed()
}

/// A top-level schema: an object schema whose `additionalProperties: false` lists `_id`.
fn root_doc() -> impl Strategy<Value = Document> {
    (
        prop::collection::vec(object_keywords(schema_doc()), 0..4),
        any::<bool>(),
        prop::option::of(prop::collection::vec(schema_doc(), 1..3)),
    )
        .prop_map(|(keywords, object, any_of)| {
            let mut d = from_keywords(keywords);
            if object {
                d.insert("bsonType", "object");
            }
            if d.get("additionalProperties") == Some(&Bson::Boolean(false)) {
                let mut props = d.get_document("properties").cloned().unwrap_or_default();
                props.insert("_id", Document::new());
                d.insert("properties", props);
            }
            if let Some(branches) = any_of {
                d.insert("anyOf", branches);
            }
            d
        })
}

/// Edits a schema document: removes, replaces or adds keywords, at the top level or inside
/// `properties`.
fn edit(base: Document, edits: Vec<(u8, prop::sample::Index, (String, Bson))>) -> Document {
    let mut d = base;
    for (kind, at, (k, v)) in edits {
        let target: &mut Document = match (kind % 2, d.get_document_mut("properties")) {
            (1, Ok(props)) if !props.is_empty() => {
                let name = props.keys().nth(at.index(props.len())).cloned().unwrap();
                match props.get_mut(&name) {
                    Some(Bson::Document(s)) => s,
                    _ => continue,
                }
            }
            _ => &mut d,
        };
        match kind / 2 {
            0 if !target.is_empty() => {
                let key = target.keys().nth(at.index(target.len())).cloned().unwrap();
                target.remove(&key);
            }
            _ => {
                target.insert(k, v);
            }
        }
    }
    d
}

fn pair() -> impl Strategy<Value = (Document, Document)> {
    let edits = prop::collection::vec(
        (0_u8..4, any::<prop::sample::Index>(), keyword(schema_doc())),
        1..3,
    );
    prop_oneof![
        3 => (root_doc(), edits).prop_map(|(old, edits)| (old.clone(), edit(old, edits))),
        1 => (root_doc(), root_doc()),
    ]
}

/// Both documents parse as the server would, or the case is skipped.
fn parsed(old: &Document, new: &Document) -> Option<(JsonSchema, JsonSchema)> {
    Some((
        JsonSchema::from_document(old).ok()?,
        JsonSchema::from_document(new).ok()?,
    ))
}

fn accepts(v: &Validator, d: &Document) -> bool {
    v.is_valid(&RawDocumentBuf::try_from(d).expect("generated documents serialize"))
}

fn check(old: &JsonSchema, new: &JsonSchema, docs: &[Document]) -> Result<(), TestCaseError> {
    let (ov, nv) = (Validator::new(old).unwrap(), Validator::new(new).unwrap());
    match classify(old, new) {
        Classification::Relaxing => {
            for d in docs {
                prop_assert!(
                    !accepts(&ov, d) || accepts(&nv, d),
                    "relaxing, yet {d} is accepted by {} and rejected by {}",
                    old.to_document(),
                    new.to_document()
                );
            }
            let found = witness::counterexample(old, new, &ov, &nv);
            prop_assert!(
                found.is_none(),
                "relaxing, yet the search finds {found:?} for {} -> {}",
                old.to_document(),
                new.to_document()
            );
        }
        Classification::Tightening { counterexample } => {
            prop_assert!(
                accepts(&ov, &counterexample),
                "{counterexample} is rejected by the old schema"
            );
            prop_assert!(
                !accepts(&nv, &counterexample),
                "{counterexample} is accepted by the new schema"
            );
        }
        Classification::NotProven { reason } => prop_assert!(!reason.is_empty()),
        _ => {}
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn verdicts_hold_against_the_evaluator(
        (old, new) in pair(),
        docs in prop::collection::vec(document(), 48),
    ) {
        let Some((old, new)) = parsed(&old, &new) else {
            return Ok(());
        };
        check(&old, &new, &docs)?;
        // Reversing the change is another pair with the same schemas.
        check(&new, &old, &docs)?;
    }

    #[test]
    fn a_schema_compared_with_itself_is_relaxing(s in root_doc()) {
        let Ok(s) = JsonSchema::from_document(&s) else {
            return Ok(());
        };
        prop_assert_eq!(classify(&s, &s), Classification::Relaxing);
        // A copy that went through BSON and back is equal too.
        let again = JsonSchema::from_document(&s.to_document()).unwrap();
        prop_assert_eq!(classify(&s, &again), Classification::Relaxing);
    }
}

/// The verdicts on the hand-written changes, through the public API.
#[test]
fn the_schema_versioning_life_is_classified() {
    let parse = |d: Document| JsonSchema::from_document(&d).unwrap();
    let v1 = doc! { "bsonType": "object", "required": ["name"], "properties": {
    "name": { "bsonType": "string" }, "schema_version": { "enum": [1] } } };
    let v2 = doc! { "bsonType": "object", "required": ["first", "schema_version"], "properties": {
    "first": { "bsonType": "string" }, "schema_version": { "enum": [2] } } };
    let only_v1 = parse(v1.clone());
    let both = parse(doc! { "anyOf": [v1.clone(), v2.clone()] });
    let only_v2 = parse(doc! { "anyOf": [v2] });
    assert_eq!(classify(&only_v1, &both), Classification::Relaxing);
    let Classification::Tightening { counterexample } = classify(&both, &only_v2) else {
        panic!("dropping v1 tightens");
    };
    assert!(counterexample.contains_key("name"), "{counterexample}");
    assert!(matches!(counterexample.get("_id"), Some(Bson::ObjectId(_))));
    assert!(
        classify(&both, &only_v2)
            .describe()
            .ends_with("is accepted today and would be rejected")
    );
}
