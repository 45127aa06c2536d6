//! Property tests of the derive's contract over every fixture type, with the local evaluator
//! as the oracle:
//! - sound: every value, serialized with bson's serializer, passes the type's validator;
//! - tight: every generated-then-mutated document that passes deserializes with bson's
//!   deserializer.
//!
//! Mutations: drop a field, change a value's type, add an unknown field, push a number out of
//! range, empty or grow an array, rename a field. Each fixture is tested at the top level of a
//! document (when it is one) and as a field of `Wrap<T>`.

#[path = "fixtures/mod.rs"]
mod fixtures;

use bson::{Bson, Document, RawDocumentBuf, doc};
use fixtures::*;
use mongo_schema::MongoSchema;
use mongo_schema::eval::Validator;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// Cases per property: moderate, so the whole suite stays within the CI budget
/// (`PROPTEST_CASES=1000` for a deeper run).
fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(48);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn validator<T: MongoSchema>() -> Validator {
    let schema = T::root_schema();
    Validator::new(&schema).unwrap_or_else(|e| {
        panic!(
            "{} has a validator the evaluator refuses: {e:?}",
            std::any::type_name::<T>()
        )
    })
}

fn explain(v: &Validator, doc: &RawDocumentBuf) -> String {
    let verdict = v.evaluate(doc);
    format!(
        "{:?}\n{:?}",
        verdict.summaries(),
        verdict.details().map(ToString::to_string)
    )
}

/// bson refuses some values (a u64 above i64::MAX, a map key with NUL): nothing is written.
fn written<T: Serialize>(value: &T) -> Option<RawDocumentBuf> {
    bson::serialize_to_raw_document_buf(value).ok()
}

fn sound<T: Serialize + MongoSchema>(value: &T) -> Result<(), TestCaseError> {
    let Some(doc) = written(value) else {
        return Ok(());
    };
    let v = validator::<T>();
    prop_assert!(
        v.is_valid(&doc),
        "{} wrote {} and its validator rejects it: {}",
        std::any::type_name::<T>(),
        Document::try_from(doc.as_ref())
            .map(|d| d.to_string())
            .unwrap_or_default(),
        explain(&v, &doc)
    );
    Ok(())
}

/// One change to a document, chosen by `(kind, path index, sample index)`.
#[derive(Clone, Debug)]
struct Mutation {
    kind: u8,
    at: prop::sample::Index,
    sample: prop::sample::Index,
}

fn mutations() -> impl Strategy<Value = Vec<Mutation>> {
    prop::collection::vec(
        (
            0_u8..6,
            any::<prop::sample::Index>(),
            any::<prop::sample::Index>(),
        )
            .prop_map(|(kind, at, sample)| Mutation { kind, at, sample }),
        1..3,
    )
}

/// Values that other writers may store in any field.
fn samples() -> Vec<Bson> {
    vec![
        Bson::Int32(-1),
        Bson::Int32(0),
        Bson::Int32(300),
        Bson::Int64(i64::MAX),
        Bson::Int64(-5_000_000_000),
        Bson::Double(0.5),
        Bson::Double(2.0),
        Bson::Double(-1e300),
        Bson::String("x".into()),
        Bson::String(String::new()),
        Bson::String("PAID".into()),
        Bson::String("0123456789abcdefABCDEF01".into()),
        Bson::String("2026-01-15T10:00:00.5+05:30".into()),
        Bson::String("2026-01-15".into()),
        Bson::String("ab".into()),
        Bson::Int64(7),
        Bson::Double(1.0),
        Bson::Document(doc! { "t": "Unit" }),
        Bson::Document(doc! { "type": "RETIRED" }),
        Bson::Null,
        Bson::Boolean(true),
        Bson::Document(doc! {}),
        Bson::Document(doc! { "a": 1 }),
        Bson::Array(vec![]),
        Bson::Array(vec![Bson::Int32(1), Bson::Int32(1)]),
        Bson::ObjectId(bson::oid::ObjectId::from_bytes([7; 12])),
        Bson::DateTime(bson::DateTime::from_millis(0)),
        Bson::Decimal128("-1".parse().expect("decimal")),
    ]
}

/// Paths to every value in the document, and to every document (for inserts).
fn paths(value: &Bson, here: &mut Vec<Seg>, out: &mut Vec<Vec<Seg>>) {
    match value {
        Bson::Document(d) => {
            for (k, v) in d {
                here.push(Seg::Key(k.clone()));
                out.push(here.clone());
                paths(v, here, out);
                here.pop();
            }
        }
        Bson::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                here.push(Seg::Index(i));
                out.push(here.clone());
                paths(v, here, out);
                here.pop();
            }
        }
        _ => {}
    }
}

#[derive(Clone, Debug)]
enum Seg {
    Key(String),
    Index(usize),
}

/// The container holding the last segment of `path`.
fn parent<'a>(root: &'a mut Bson, path: &[Seg]) -> Option<&'a mut Bson> {
    let mut cur = root;
    for seg in path {
        cur = match (seg, cur) {
            (Seg::Key(k), Bson::Document(d)) => d.get_mut(k)?,
            (Seg::Index(i), Bson::Array(a)) => a.get_mut(*i)?,
            _ => return None,
        };
    }
    Some(cur)
}

fn mutate(doc: Document, m: &Mutation) -> Document {
    let mut root = Bson::Document(doc);
    let mut all = vec![Vec::new()];
    paths(&root, &mut Vec::new(), &mut all);
    let path = m.at.get(&all).clone();
    if path.is_empty() && m.kind != 3 {
        // The root itself stays a document.
        return match root {
            Bson::Document(d) => d,
            _ => unreachable!("built from a document"),
        };
    }
    let samples = samples();
    let sample = m.sample.get(&samples).clone();
    match m.kind {
        // Replace the value at the path with a sample of another type.
        0 | 1 => {
            if let Some(v) = parent(&mut root, &path) {
                *v = sample;
            }
        }
        // Drop the field or element.
        2 => {
            if let Some((last, init)) = path.split_last() {
                match (last, parent(&mut root, init)) {
                    (Seg::Key(k), Some(Bson::Document(d))) => {
                        d.remove(k);
                    }
                    (Seg::Index(i), Some(Bson::Array(a))) => {
                        a.remove(*i);
                    }
                    _ => {}
                }
            }
        }
        // Add an unknown field, or an element to an array.
        3 => match parent(&mut root, &path) {
            Some(Bson::Document(d)) => {
                d.insert("zz_unknown", sample);
            }
            Some(Bson::Array(a)) => {
                let copy = a.first().cloned().unwrap_or(sample);
                a.push(copy);
            }
            _ => {}
        },
        // Push a number out of range.
        4 => {
            if let Some(v) = parent(&mut root, &path) {
                let pushed = match &*v {
                    Bson::Int32(n) => Bson::Int64(i64::from(*n) * 4_294_967_296 + 1),
                    Bson::Int64(n) => Bson::Double(*n as f64 * 1e10 + 0.5),
                    Bson::Double(d) => Bson::Double(-*d - 1.5),
                    Bson::String(s) => Bson::String(format!("{s}{s}!")),
                    other => other.clone(),
                };
                *v = pushed;
            }
        }
        // Rename a field to a near name.
        _ => {
            if let Some((Seg::Key(k), init)) = path.split_last()
                && let Some(Bson::Document(d)) = parent(&mut root, init)
                && let Some(v) = d.remove(k)
            {
                d.insert(format!("{k}_"), v);
            }
        }
    }
    match root {
        Bson::Document(d) => d,
        _ => unreachable!("the root stays a document"),
    }
}

fn tight<T: Serialize + DeserializeOwned + MongoSchema>(
    value: &T,
    mutations: &[Mutation],
) -> Result<(), TestCaseError> {
    let Some(doc) = written(value) else {
        return Ok(());
    };
    let v = validator::<T>();
    let mut current = Document::try_from(doc.as_ref()).expect("bson wrote a valid document");
    for m in mutations {
        current = mutate(current, m);
        let Ok(raw) = RawDocumentBuf::try_from(&current) else {
            continue;
        };
        if v.is_valid(&raw) {
            let read = bson::deserialize_from_slice::<T>(raw.as_bytes());
            prop_assert!(
                read.is_ok(),
                "{}: the validator accepts {} but it does not deserialize: {:?}",
                std::any::type_name::<T>(),
                current,
                read.err()
            );
        }
    }
    Ok(())
}

macro_rules! properties {
    ($($name:ident: $ty:ty),* $(,)?) => {$(
        mod $name {
            use super::*;
            proptest! {
                #![proptest_config(config())]
                #[test]
                fn sound_at_top_level_and_as_a_field(value in any::<$ty>()) {
                    sound::<$ty>(&value)?;
                    sound::<Wrap<$ty>>(&Wrap { value })?;
                }
                #[test]
                fn tight_under_mutation(value in any::<$ty>(), m in mutations()) {
                    tight::<$ty>(&value, &m)?;
                    tight::<Wrap<$ty>>(&Wrap { value }, &m)?;
                }
            }
        }
    )*};
}

// Every fixture of `fixtures::with_fixtures!`: a new fixture is property-tested as soon as it
// is listed there.
with_fixtures!(properties);
