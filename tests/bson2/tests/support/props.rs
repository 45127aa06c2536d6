//! The corpus's property machinery on bson 2's paths, as a bson 2 application stores and reads:
//! - sound: a value written by bson 2's raw serializer (`bson2::to_vec`, what the mongodb 3.x
//!   driver on bson 2 writes for `insert_one`) passes the derived validator (bson 3 reads the
//!   bytes, as the evaluator does) and reads back equal with bson 2's raw deserializer
//!   (`bson2::from_slice`, the driver's read path) as a value that writes the same form again;
//!   what bson 2's document serializer writes (`bson2::to_document`, what `$set` gets) passes
//!   exactly when bson 2 reads it back, likewise;
//! - tight: every mutated document (the mutations of `tests/fixtures/props.rs`) that passes
//!   reads back with bson 2.

#![allow(dead_code, reason = "each test file uses a different subset")]

use bson::{Document, RawDocumentBuf};
use mongo_schema::MongoSchema;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde::Serialize;
use serde::de::DeserializeOwned;

pub use crate::shared::{Mutation, config, mutate, mutations, validator};

/// bson 2's two serializers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    /// `bson2::to_vec`: the driver's insert path.
    Raw,
    /// `bson2::to_document`: what applications hand to `$set` (human-readable).
    Document,
}

/// bson 2's bytes as bson 3 reads them.
fn from_bson2_bytes(bytes: Vec<u8>) -> RawDocumentBuf {
    RawDocumentBuf::from_bytes(bytes).expect("bson 3 reads the bytes bson 2 wrote")
}

/// What bson 2's serializer on `path` writes for `value`; `None` where it refuses the value
/// (not a document, a u64 above i64::MAX).
pub fn write<T: Serialize>(path: Path, value: &T) -> Option<RawDocumentBuf> {
    let bytes = match path {
        Path::Raw => bson2::to_vec(value).ok()?,
        Path::Document => {
            let mut bytes = Vec::new();
            bson2::to_document(value).ok()?.to_writer(&mut bytes).ok()?;
            bytes
        }
    };
    Some(from_bson2_bytes(bytes))
}

/// What each of bson 2's paths writes for `value`, where it writes.
pub fn written<T: Serialize>(value: &T) -> Vec<(Path, RawDocumentBuf)> {
    [Path::Raw, Path::Document]
        .into_iter()
        .filter_map(|path| Some((path, write(path, value)?)))
        .collect()
}

/// A written form up to the order of map keys and of set members (a `HashMap` or `HashSet`
/// iterates in an order of its own per instance): keys and elements sorted, each value shown
/// with its BSON type (`Int32(1)` is not `Int64(1)`).
fn canonical(value: &bson::Bson) -> String {
    match value {
        bson::Bson::Document(d) => {
            let mut fields: Vec<String> = d
                .iter()
                .map(|(k, v)| format!("{k:?}: {}", canonical(v)))
                .collect();
            fields.sort();
            format!("{{{}}}", fields.join(", "))
        }
        bson::Bson::Array(a) => {
            let mut items: Vec<String> = a.iter().map(canonical).collect();
            items.sort();
            format!("[{}]", items.join(", "))
        }
        other => format!("{other:?}"),
    }
}

fn canonical_doc(doc: &RawDocumentBuf) -> String {
    Document::try_from(doc.as_ref()).map_or_else(
        |e| format!("unreadable: {e}"),
        |d| canonical(&bson::Bson::Document(d)),
    )
}

/// What bson 2's raw deserializer (the driver's read path) makes of `doc`.
pub fn read<T: DeserializeOwned>(doc: &RawDocumentBuf) -> Option<T> {
    bson2::from_slice::<T>(doc.as_bytes()).ok()
}

fn shown(doc: &RawDocumentBuf) -> String {
    Document::try_from(doc.as_ref())
        .map(|d| d.to_string())
        .unwrap_or_default()
}

/// Sound on both of bson 2's paths, and what reads back writes the same form again.
pub fn sound<T>(value: &T) -> Result<(), TestCaseError>
where
    T: Serialize + DeserializeOwned + MongoSchema + std::fmt::Debug,
{
    let v = validator::<T>();
    let name = std::any::type_name::<T>();
    let written = written(value);
    // Not vacuous: bson 2 writes every value bson 3 writes (a top-level document).
    prop_assert!(
        bson::serialize_to_vec(value).is_err() || written.iter().any(|(p, _)| *p == Path::Raw),
        "{name}: bson 3 writes {value:?} and bson 2's to_vec refuses it"
    );
    for (path, doc) in written {
        let valid = v.is_valid(&doc);
        let back = read::<T>(&doc);
        match path {
            Path::Raw => {
                prop_assert!(
                    valid,
                    "{name}: bson 2 wrote {} (to_vec), rejected",
                    shown(&doc)
                );
                prop_assert!(back.is_some(), "{name}: bson 2 cannot read {}", shown(&doc));
            }
            Path::Document => prop_assert!(
                valid == back.is_some(),
                "{name}: bson 2 wrote {} (to_document): validator {valid}, bson 2 reads {}",
                shown(&doc),
                back.is_some()
            ),
        }
        // What reads back is stable: serde's own losses (a field written but never read, a
        // set whose members write alike, `Some(None)` read as `None`) may change the value once,
        // and from there it writes and reads as itself.
        if let Some(back) = back {
            let first = write(path, &back);
            let again = first
                .as_ref()
                .and_then(read::<T>)
                .and_then(|b| write(path, &b));
            prop_assert!(
                first.as_ref().is_some_and(|d| v.is_valid(d)),
                "{name}: {} reads back as {back:?}, which does not write a valid document",
                shown(&doc)
            );
            prop_assert_eq!(
                again.as_ref().map(canonical_doc),
                first.as_ref().map(canonical_doc),
                "{:?}: {} reads back as {:?}, which does not read back as itself",
                path,
                shown(&doc),
                back
            );
        }
    }
    Ok(())
}

/// [`sound`], and what reads back is the value written: for types serde stores without loss.
pub fn sound_exact<T>(value: &T) -> Result<(), TestCaseError>
where
    T: Serialize + DeserializeOwned + MongoSchema + PartialEq + std::fmt::Debug,
{
    sound(value)?;
    for (path, doc) in written(value) {
        if let Some(back) = read::<T>(&doc) {
            prop_assert_eq!(&back, value, "{:?} round trip of {}", path, shown(&doc));
        }
    }
    Ok(())
}

/// Tight under mutation: a mutated document (from either path) that passes reads back.
pub fn tight<T>(value: &T, mutations: &[Mutation]) -> Result<(), TestCaseError>
where
    T: Serialize + DeserializeOwned + MongoSchema,
{
    let v = validator::<T>();
    for (_, doc) in written(value) {
        let mut current = Document::try_from(doc.as_ref()).expect("bson 2 wrote a document");
        for m in mutations {
            current = mutate(current, m);
            let Ok(raw) = RawDocumentBuf::try_from(&current) else {
                continue;
            };
            if v.is_valid(&raw) {
                prop_assert!(
                    read::<T>(&raw).is_some(),
                    "{}: the validator accepts {current} but bson 2 does not read it",
                    std::any::type_name::<T>()
                );
            }
        }
    }
    Ok(())
}

/// A property-test module per `name: Type`, as `tests/fixtures/props.rs` has it, on bson 2's
/// paths: sound and tight, at the top level and as the field of `Wrap`.
/// `exact;` after the cases: what reads back must equal the value ([`sound_exact`]).
macro_rules! properties {
    (cases = $cases:expr; exact; $($name:ident: $ty:ty),* $(,)?) => {
        $crate::props::properties!(@ $cases, sound_exact; $($name: $ty),*);
    };
    (cases = $cases:expr; $($name:ident: $ty:ty),* $(,)?) => {
        $crate::props::properties!(@ $cases, sound; $($name: $ty),*);
    };
    (@ $cases:expr, $sound:ident; $($name:ident: $ty:ty),*) => {$(
        mod $name {
            use super::*;
            proptest::proptest! {
                #![proptest_config($crate::props::config($cases))]
                #[test]
                fn sound_on_bson2_paths(value in proptest::prelude::any::<$ty>()) {
                    $crate::props::$sound::<$ty>(&value)?;
                    $crate::props::$sound::<Wrap<$ty>>(&Wrap { value })?;
                }
                #[test]
                fn tight_on_bson2_paths(value in proptest::prelude::any::<$ty>(), m in $crate::props::mutations()) {
                    $crate::props::tight::<$ty>(&value, &m)?;
                    $crate::props::tight::<Wrap<$ty>>(&Wrap { value }, &m)?;
                }
            }
        }
    )*};
}
pub(crate) use properties;
