//! Feature `bson-2`: a type built from bson 2's types and serde helpers, serialized by bson 2
//! (its raw serializer, `bson2::to_vec`, and its document serializer, `bson2::to_document`),
//! passes the derived validator once the bytes are read by bson 3; a document that a bson 2
//! application would not read back fails it.

use bson::RawDocumentBuf;
use chrono::{DateTime, Utc};
use mongo_schema::MongoSchema;
use mongo_schema::eval::Validator;
use proptest::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema, Debug, PartialEq)]
struct Thing {
    #[serde(rename = "_id")]
    id: bson2::oid::ObjectId,
    at: bson2::DateTime,
    price: bson2::Decimal128,
    blob: bson2::Binary,
    ts: bson2::Timestamp,
    extra: bson2::Document,
    any: bson2::Bson,
    re: bson2::Regex,
    uuid: bson2::Uuid,
    raw: bson2::RawDocumentBuf,
    #[serde(with = "bson2::serde_helpers::hex_string_as_object_id")]
    hex: String,
    #[serde(with = "bson2::serde_helpers::chrono_datetime_as_bson_datetime")]
    when: DateTime<Utc>,
    #[serde(with = "bson2::serde_helpers::chrono_datetime_as_bson_datetime_optional")]
    maybe_when: Option<DateTime<Utc>>,
    #[serde(with = "bson2::serde_helpers::bson_datetime_as_rfc3339_string")]
    text_date: bson2::DateTime,
    #[serde(with = "bson2::serde_helpers::rfc3339_string_as_bson_datetime")]
    rfc: String,
    #[serde(with = "bson2::serde_helpers::i64_as_bson_datetime")]
    millis: i64,
    #[serde(with = "bson2::serde_helpers::u32_as_f64")]
    small: u32,
    #[serde(with = "bson2::serde_helpers::u64_as_f64")]
    big: u64,
    #[serde(with = "bson2::serde_helpers::timestamp_as_u32")]
    secs: bson2::Timestamp,
    #[serde(with = "bson2::serde_helpers::u32_as_timestamp")]
    stamp: u32,
    #[serde(with = "bson2::serde_helpers::uuid_1_as_binary")]
    id_uuid: uuid::Uuid,
    #[serde(with = "bson2::serde_helpers::uuid_1_as_java_legacy_binary")]
    java: uuid::Uuid,
}

fn validator() -> Validator {
    Validator::new(&Thing::root_schema()).expect("the evaluator compiles the derived validator")
}

/// Milliseconds within years 1..=9999, where RFC 3339 text exists for the date.
const MIN_MS: i64 = -62_135_596_800_000;
const MAX_MS: i64 = 253_402_300_799_999;

/// The canonical Decimal128 of a whole number (exponent 0): what a decimal parser writes.
fn decimal(n: u64) -> [u8; 16] {
    let mut bytes = [0; 16];
    bytes[..8].copy_from_slice(&n.to_le_bytes());
    bytes[14] = 0x40;
    bytes[15] = 0x30;
    bytes
}

prop_compose! {
    fn thing()(
        oid in any::<[u8; 12]>(),
        hex_oid in any::<[u8; 12]>(),
        ms in MIN_MS..=MAX_MS,
        ms2 in MIN_MS..=MAX_MS,
        maybe in proptest::option::of(MIN_MS..=MAX_MS),
        dec in any::<u64>(),
        bytes in proptest::collection::vec(any::<u8>(), 0..8),
        time in any::<u32>(),
        inc in any::<u32>(),
        n in any::<i32>(),
        u in any::<u128>(),
        small in any::<u32>(),
        big in 0u64..(1 << 53),
        stamp in any::<u32>(),
    ) -> Thing {
        let date = |ms| bson2::DateTime::from_millis(ms);
        let chrono = |ms| DateTime::<Utc>::from_timestamp_millis(ms).expect("in chrono's range");
        Thing {
            id: bson2::oid::ObjectId::from_bytes(oid),
            at: date(ms),
            price: bson2::Decimal128::from_bytes(decimal(dec)),
            blob: bson2::Binary { subtype: bson2::spec::BinarySubtype::Generic, bytes },
            ts: bson2::Timestamp { time, increment: inc },
            extra: bson2::doc! { "n": n },
            any: bson2::Bson::Int32(n),
            re: bson2::Regex { pattern: "^a".into(), options: "i".into() },
            uuid: bson2::Uuid::from_bytes(u.to_be_bytes()),
            raw: bson2::rawdoc! { "n": n },
            hex: bson2::oid::ObjectId::from_bytes(hex_oid).to_hex(),
            when: chrono(ms2),
            maybe_when: maybe.map(chrono),
            text_date: date(ms2),
            rfc: date(ms).try_to_rfc3339_string().expect("in range"),
            millis: ms,
            small,
            big,
            secs: bson2::Timestamp { time, increment: 0 },
            stamp,
            id_uuid: uuid::Uuid::from_u128(u),
            java: uuid::Uuid::from_u128(u),
        }
    }
}

/// The two ways a bson 2 application writes a value, as bson 3 reads the bytes.
fn written(t: &Thing) -> Vec<(&'static str, RawDocumentBuf)> {
    let raw = bson2::to_vec(t).expect("bson 2 writes the value");
    let doc = bson2::to_document(t).expect("bson 2 writes the document");
    let mut doc_bytes = Vec::new();
    doc.to_writer(&mut doc_bytes)
        .expect("bson 2 encodes the document");
    [("to_vec", raw), ("to_document", doc_bytes)]
        .into_iter()
        .map(|(path, bytes)| {
            let doc = RawDocumentBuf::from_bytes(bytes).expect("bson 3 reads bson 2's bytes");
            (path, doc)
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    /// Sound: what bson 2 writes passes, on both paths, and reads back as the same value.
    #[test]
    fn bson2_values_pass(t in thing()) {
        let v = validator();
        for (path, doc) in written(&t) {
            prop_assert!(v.is_valid(&doc), "{path}: {doc:?} fails the validator");
            let back: Thing = bson2::from_slice(doc.as_bytes()).expect("bson 2 reads it back");
            prop_assert_eq!(format!("{back:#?}"), format!("{t:#?}"), "{} round trip", path);
        }
    }

    /// Tight where the helpers say so: a helper field replaced by its Rust type's natural
    /// form (what bson 2 would not read back) fails.
    #[test]
    fn other_forms_fail(t in thing(), field in 0usize..7) {
        let v = validator();
        let mut doc = bson2::to_document(&t).expect("bson 2 writes the document");
        let (key, wrong) = [
            ("hex", bson2::Bson::String("not an object id".into())),
            ("when", bson2::Bson::String(t.when.to_rfc3339())),
            ("text_date", bson2::Bson::DateTime(t.text_date)),
            ("small", bson2::Bson::String(t.small.to_string())),
            ("big", bson2::Bson::Double(0.5)),
            ("stamp", bson2::Bson::Int64(i64::from(t.stamp))),
            ("id_uuid", bson2::Bson::Int32(7)),
        ][field].clone();
        doc.insert(key, wrong.clone());
        let mut bytes = Vec::new();
        doc.to_writer(&mut bytes).expect("bson 2 encodes the document");
        prop_assert!(bson2::from_slice::<Thing>(&bytes).is_err(), "bson 2 reads {key} = {wrong:?}");
        prop_assert!(!v.is_valid_bytes(&bytes), "{key} = {wrong:?} passes the validator");
    }
}

#[test]
fn optional_chrono_helper_allows_null_only_as_null_or_date() {
    let schema = Thing::root_schema().to_document();
    let props = schema
        .get_document("properties")
        .expect("properties")
        .get_document("maybe_when")
        .expect("maybe_when");
    let types = props.get_array("bsonType").expect("bsonType list");
    let names: Vec<&str> = types.iter().filter_map(|t| t.as_str()).collect();
    assert_eq!(names, ["date", "null"], "{props:?}");
}

/// bson 2's bare helper functions (`serialize_with = "bson::serde_helpers::..."`): the
/// serializers that stand alone (the field type's own `Deserialize` reads their form back) and
/// a module's two halves named apart.
#[derive(Serialize, Deserialize, MongoSchema, Debug, PartialEq)]
struct Bare {
    #[serde(serialize_with = "bson2::serde_helpers::serialize_u32_as_i32")]
    small: u32,
    #[serde(serialize_with = "bson2::serde_helpers::serialize_u32_as_i64")]
    wide: u32,
    #[serde(serialize_with = "bson2::serde_helpers::serialize_u64_as_i32")]
    count: u64,
    #[serde(serialize_with = "bson2::serde_helpers::serialize_u64_as_i64")]
    total: u64,
    #[serde(serialize_with = "bson2::serde_helpers::serialize_object_id_as_hex_string")]
    owner: bson2::oid::ObjectId,
    #[serde(
        serialize_with = "bson2::serde_helpers::serialize_hex_string_as_object_id",
        deserialize_with = "bson2::serde_helpers::deserialize_hex_string_from_object_id"
    )]
    hex: String,
    #[serde(
        serialize_with = "bson2::serde_helpers::serialize_u32_as_f64",
        deserialize_with = "bson2::serde_helpers::deserialize_u32_from_f64"
    )]
    size: u32,
}

prop_compose! {
    fn bare()(
        small in 0..=i32::MAX as u32,
        wide in any::<u32>(),
        count in 0..=i32::MAX as u64,
        total in 0..=i64::MAX as u64,
        owner in any::<[u8; 12]>(),
        hex in any::<[u8; 12]>(),
        size in any::<u32>(),
    ) -> Bare {
        Bare {
            small,
            wide,
            count,
            total,
            owner: bson2::oid::ObjectId::from_bytes(owner),
            hex: bson2::oid::ObjectId::from_bytes(hex).to_hex(),
            size,
        }
    }
}

fn bare_written(b: &Bare) -> [Vec<u8>; 2] {
    let raw = bson2::to_vec(b).expect("bson 2 writes the value");
    let mut doc_bytes = Vec::new();
    bson2::to_document(b)
        .expect("bson 2 writes the document")
        .to_writer(&mut doc_bytes)
        .expect("bson 2 encodes the document");
    [raw, doc_bytes]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    /// Sound: both paths pass the validator and read back equal.
    #[test]
    fn bare_functions_pass(b in bare()) {
        let v = Validator::new(&Bare::root_schema()).expect("the evaluator compiles it");
        for bytes in bare_written(&b) {
            let doc = RawDocumentBuf::from_bytes(bytes).expect("bson 3 reads bson 2's bytes");
            prop_assert!(v.is_valid(&doc), "{doc:?} fails the validator");
            let back: Bare = bson2::from_slice(doc.as_bytes()).expect("bson 2 reads it back");
            prop_assert_eq!(&back, &b);
        }
    }

    /// Tight: a field replaced by a form bson 2 does not read back fails.
    #[test]
    fn bare_functions_refuse_other_forms(b in bare(), field in 0usize..6) {
        let v = Validator::new(&Bare::root_schema()).expect("the evaluator compiles it");
        let mut doc = bson2::to_document(&b).expect("bson 2 writes the document");
        let (key, wrong) = [
            ("small", bson2::Bson::Int32(-1)),
            ("wide", bson2::Bson::String(b.wide.to_string())),
            ("count", bson2::Bson::Double(0.5)),
            ("owner", bson2::Bson::String("not an object id".into())),
            // (its hex string reads back too: bson 2's ObjectId visitor parses strings)
            ("hex", bson2::Bson::Int32(7)),
            ("size", bson2::Bson::Double(0.5)),
        ][field].clone();
        doc.insert(key, wrong.clone());
        let mut bytes = Vec::new();
        doc.to_writer(&mut bytes).expect("bson 2 encodes the document");
        prop_assert!(bson2::from_slice::<Bare>(&bytes).is_err(), "bson 2 reads {key} = {wrong:?}");
        prop_assert!(!v.is_valid_bytes(&bytes), "{key} = {wrong:?} passes the validator");
    }
}
