//! `infer` end to end: for corpora of many shapes (the seed collections of PATTERNS.md, sparse,
//! mixed numbers, maps, awkward names, empty, deep, wide), the Rust source `infer` writes is
//! compiled in one generated crate (`target/infer-check`, built once for every case), reads
//! every document, writes it back equal up to the normalizations below, and derives exactly the
//! validator `infer` predicted, which accepts every document.
//!
//! Normalizations of the round trip (what serde cannot keep, documented in `docs/adopting.md`):
//! field order (a struct writes its declaration order, a `HashMap` any order); `null` fields
//! (an `Option` field sometimes missing writes `None` as absent); numbers compare by value (an
//! `i64` field writes `int` values as `long`, an `f64` field writes integers as doubles).

use std::path::{Path, PathBuf};
use std::process::Command;

use bson::{Bson, Document, RawDocumentBuf, doc, oid::ObjectId};
use mongo_schema::infer::{self, Census, Inference, Options, Proof};
use mongo_schema_cli::{Console, Outcome};
use proptest::prelude::*;

/// One corpus: the collection name, whether to write enums, the documents.
struct Case {
    name: &'static str,
    enums: bool,
    docs: Vec<Document>,
}

/// A small deterministic generator, so corpora are the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

fn oid(n: u64) -> ObjectId {
    let mut bytes = [0u8; 12];
    bytes[4..].copy_from_slice(&n.to_be_bytes());
    ObjectId::from_bytes(bytes)
}

fn date(ms: i64) -> bson::DateTime {
    bson::DateTime::from_millis(1_700_000_000_000 + ms)
}

/// PATTERNS.md 1: users with a bounded array of embedded addresses.
fn users() -> Case {
    let mut r = Rng(1);
    let docs = (0..60)
        .map(|i| {
            let addresses: Vec<Bson> = (0..r.below(4))
                .map(|_| {
                    Bson::Document(doc! {
                        "label": r.pick(&["home", "work", "other"]),
                        "city": r.pick(&["Pune", "Oslo", "Lima"]),
                        "pin": format!("{:06}", r.below(999_999)),
                    })
                })
                .collect();
            doc! { "_id": oid(i), "name": format!("user {i}"), "addresses": addresses }
        })
        .collect();
    Case {
        name: "users",
        enums: false,
        docs,
    }
}

/// PATTERNS.md 2 and 10: orders with a reference, an extended reference, frozen prices and a
/// status enum.
fn orders() -> Case {
    let mut r = Rng(2);
    let docs = (0..80)
        .map(|i| {
            let items: Vec<Bson> = (0..1 + r.below(3))
                .map(|_| {
                    Bson::Document(doc! {
                        "sku": format!("SKU-{}", r.below(50)),
                        "name": r.pick(&["pen", "ink", "pad"]),
                        "price": (r.below(10_000) as f64) / 100.0,
                        "qty": 1 + r.below(5) as i32,
                    })
                })
                .collect();
            let mut d = doc! {
                "_id": oid(1000 + i),
                "userId": oid(r.below(20)),
                "customer": { "id": oid(r.below(20)), "name": r.pick(&["Ada", "Bob", "Cy"]) },
                "items": items,
                "total": (r.below(100_000) as f64) / 100.0,
                "status": r.pick(&["PENDING", "PAID", "SHIPPED", "CANCELLED"]),
                "created_at": date(i as i64 * 60_000),
            };
            if r.chance(30) {
                d.insert("shippedAt", date(i as i64 * 90_000));
            }
            d
        })
        .collect();
    Case {
        name: "orders",
        enums: true,
        docs,
    }
}

/// PATTERNS.md 3 and 6: products with the ten newest reviews embedded and computed fields.
fn products() -> Case {
    let mut r = Rng(3);
    let docs = (0..40)
        .map(|i| {
            let reviews: Vec<Bson> = (0..r.below(11))
                .map(|j| {
                    Bson::Document(doc! {
                        "review_id": oid(5000 + i * 20 + j),
                        "user": r.pick(&["u1", "u2", "u3"]),
                        "rating": 1 + r.below(5) as i32,
                        "text": "fine",
                        "date": date(j as i64),
                    })
                })
                .collect();
            doc! {
                "_id": oid(3000 + i),
                "name": format!("product {i}"),
                "reviews": reviews,
                "review_count": r.below(500) as i64,
                "average_rating": 1.0 + (r.below(400) as f64) / 100.0,
                "total_spent": Bson::Decimal128(format!("{}.{}", r.below(1000), r.below(100)).parse().unwrap()),
            }
        })
        .collect();
    Case {
        name: "products",
        enums: false,
        docs,
    }
}

/// PATTERNS.md 4: sensor buckets of at most 60 readings, with both spellings of the summary.
fn sensor_data() -> Case {
    let mut r = Rng(4);
    let docs = (0..30)
        .map(|i| {
            let n = 1 + r.below(60);
            let readings: Vec<Bson> = (0..n)
                .map(|t| Bson::Document(doc! { "t": date(t as i64 * 1000), "temp": 20.0 + (r.below(100) as f64) / 10.0 }))
                .collect();
            let mut d = doc! {
                "_id": oid(7000 + i),
                "sensorId": format!("s{}", r.below(5)),
                "start": date(i as i64 * 3_600_000),
                "count": n as i32,
                "readings": readings,
            };
            if r.chance(50) {
                d.insert("summary", doc! { "min": 20.0, "max": 29.9, "avg": 24.5 });
            } else {
                d.insert("sum", 245.5);
                d.insert("min", 20.0);
                d.insert("max", 29.9);
            }
            d
        })
        .collect();
    Case {
        name: "sensor_data",
        enums: false,
        docs,
    }
}

/// PATTERNS.md 8: one collection of books and courses told apart by `type` (polymorphic
/// detection is not in this slice: the fields of each kind come out optional).
fn catalog() -> Case {
    let mut r = Rng(8);
    let docs = (0..50)
        .map(|i| {
            if r.chance(50) {
                doc! { "_id": oid(9000 + i), "type": "BOOK", "_class": "com.shop.Book", "title": format!("book {i}"), "isbn": format!("978-{i}"), "pages": 100 + r.below(500) as i32 }
            } else {
                doc! { "_id": oid(9000 + i), "type": "COURSE", "_class": "com.shop.Course", "title": format!("course {i}"), "durationHrs": 1.5, "level": r.pick(&["BEGINNER", "ADVANCED"]) }
            }
        })
        .collect();
    Case {
        name: "catalog",
        enums: true,
        docs,
    }
}

/// PATTERNS.md 9: users of schema versions 1 and 2: version 2 splits `name` into `firstName`
/// and `lastName`, which no mechanical conversion can fill.
fn users_versioned() -> Case {
    let docs = (0..20)
        .map(|i| {
            if i % 3 == 0 {
                doc! { "_id": oid(11_000 + i), "schemaVersion": 1, "name": format!("Ada Lovelace {i}") }
            } else {
                doc! { "_id": oid(11_000 + i), "schemaVersion": 2, "firstName": "Ada", "lastName": format!("L{i}") }
            }
        })
        .collect();
    Case {
        name: "users_versioned",
        enums: false,
        docs,
    }
}

/// Three schema versions whose conversions are all mechanical: version 1 (no version field)
/// has a `nick` that later versions dropped; version 2 added `tags` and an `address`; version 3
/// widened `qty` to a long and added optional `plan` and `address.zip`, with `tags` and
/// `address` no longer always written.
fn accounts_versioned() -> Case {
    let mut r = Rng(21);
    let docs = (0..90)
        .map(|i| {
            let email = format!("a{i}@example.com");
            let qty = r.below(100) as i32;
            let tags: Vec<Bson> = (0..r.below(3))
                .map(|_| Bson::String(r.pick(&["x", "y"]).to_owned()))
                .collect();
            match i % 3 {
                0 => doc! { "_id": oid(20_000 + i), "email": email, "nick": format!("n{i}"), "qty": qty },
                1 => doc! {
                    "_id": oid(20_000 + i), "schema_version": 2, "email": email, "qty": qty,
                    "tags": tags, "address": { "city": r.pick(&["Pune", "Oslo"]) },
                },
                _ => {
                    let mut d = doc! {
                        "_id": oid(20_000 + i), "schema_version": 3, "email": email,
                        "qty": i64::from(qty) << 33,
                    };
                    if r.chance(70) {
                        d.insert("tags", tags);
                    }
                    if r.chance(70) {
                        let mut address = doc! { "city": r.pick(&["Lima", "Oslo"]) };
                        if r.chance(50) {
                            address.insert("zip", format!("{:05}", r.below(99_999)));
                        }
                        d.insert("address", address);
                    }
                    if r.chance(50) {
                        d.insert("plan", r.pick(&["free", "pro"]));
                    }
                    d
                }
            }
        })
        .collect();
    Case {
        name: "accounts_versioned",
        enums: false,
        docs,
    }
}

/// Fields present in few documents, and fields sometimes null.
fn sparse() -> Case {
    let mut r = Rng(5);
    let docs = (0..100)
        .map(|i| {
            let mut d = doc! { "_id": i as i32 };
            if r.chance(2) {
                d.insert("rare", "x");
            }
            if r.chance(50) {
                d.insert(
                    "half",
                    if r.chance(30) {
                        Bson::Null
                    } else {
                        Bson::Int64(i)
                    },
                );
            }
            d.insert(
                "nullable",
                if r.chance(20) {
                    Bson::Null
                } else {
                    Bson::Boolean(true)
                },
            );
            if i == 99 {
                d.insert("last_only", doc! { "deep": { "er": 1 } });
            }
            d
        })
        .collect();
    Case {
        name: "sparse",
        enums: false,
        docs,
    }
}

/// Every mixture of number types.
fn numbers() -> Case {
    let docs = (0..12)
        .map(|i: i64| {
            doc! {
                "int_only": i as i32,
                "int_long": if i % 2 == 0 { Bson::Int32(i as i32) } else { Bson::Int64(i << 40) },
                "int_double": if i % 2 == 0 { Bson::Int32(i as i32) } else { Bson::Double(i as f64 + 0.5) },
                "long_double_exact": if i % 2 == 0 { Bson::Int64(1 << 53) } else { Bson::Double(0.25) },
                "long_double_inexact": if i % 2 == 0 { Bson::Int64((1 << 53) + 1) } else { Bson::Double(0.25) },
                "decimal": Bson::Decimal128(format!("{i}.10").parse().unwrap()),
                "decimal_int": if i % 2 == 0 { Bson::Decimal128("1.5".parse().unwrap()) } else { Bson::Int32(1) },
                "long_only": i64::MAX - i,
                "double_only": -1.0e300 * i as f64,
            }
        })
        .collect();
    Case {
        name: "numbers",
        enums: false,
        docs,
    }
}

/// Arrays of arrays of objects, arrays of nulls and objects, empty arrays.
fn nested_arrays() -> Case {
    let docs = (0..10)
        .map(|i: i32| {
            doc! {
                "grid": [[{ "x": i, "y": { "z": [i, i] } }], [], [{ "x": 0, "y": { "z": [] } }]],
                "maybe": [Bson::Null, Bson::Document(doc! { "a": "b" })],
                "empty": [],
                "mixed": [1, "one"],
            }
        })
        .collect();
    Case {
        name: "nested_arrays",
        enums: false,
        docs,
    }
}

/// Objects keyed by data: dates, ObjectId hex, more than 64 names.
fn maps() -> Case {
    let docs = (0..10)
        .map(|i: i64| {
            let mut by_day = Document::new();
            by_day.insert(format!("2024-01-{:02}", 1 + i % 28), i);
            by_day.insert(format!("2024-02-{:02}", 1 + i % 28), i + 1);
            let mut by_user = Document::new();
            by_user.insert(oid(i as u64).to_hex(), doc! { "seen": date(i), "n": 1 });
            let mut wide = Document::new();
            for k in 0..70 {
                wide.insert(format!("name{}", i * 70 + k), format!("v{k}"));
            }
            doc! { "_id": oid(20_000 + i as u64), "by_day": by_day, "by_user": by_user, "wide": wide }
        })
        .collect();
    Case {
        name: "maps",
        enums: false,
        docs,
    }
}

/// Names that are not identifiers, keywords, and names that collide once made identifiers.
fn awkward_names() -> Case {
    let docs = (0..6)
        .map(|i: i32| {
            doc! {
                "_id": i,
                "id": format!("{i}"),
                "type": "t",
                "self": true,
                "Self": false,
                "fn": 1,
                "2fa": "yes",
                "": "empty name",
                "user-name": "dash",
                "userID": "caps",
                "Ünïcode": "non-ascii",
                "_class": "x",
                "a.b": "dotted",
                "line\nbreak\u{202e}bidi": "controls in a name",
                "kind": (["Option", "self", "2x", "a b"][i as usize % 4]),
                "Option": { "Vec": 1 },
            }
        })
        .collect();
    Case {
        name: "awkward_names",
        enums: true,
        docs,
    }
}

/// Keys and enum values made of characters that are awkward in Rust source: quotes,
/// backslashes, comment openers, invisible and line-separating characters, combining marks.
fn tricky_names() -> Case {
    const POOL: &[&str] = &[
        "\"", "\\", "'", "{", "}", "#", "/", "*", "/*", "//", "\u{feff}", "\u{200b}", "\u{2028}",
        "\u{85}", "e\u{301}", "😀", " ", "$", "r#", "_", "0", "A", "b", "-", ".", "\t",
    ];
    let mut r = Rng(13);
    let word = |r: &mut Rng| -> String { (0..1 + r.below(5)).map(|_| r.pick(POOL)).collect() };
    let keys: Vec<String> = (0..40).map(|_| word(&mut r)).collect();
    let values: Vec<String> = (0..3).map(|_| word(&mut r)).collect();
    let docs = (0..8)
        .map(|i| {
            let mut d = doc! { "_id": i as i32 };
            for (k, key) in keys.iter().enumerate() {
                if key != "_id" {
                    d.insert(key.clone(), values[(i + k) % values.len()].clone());
                }
            }
            d
        })
        .collect();
    Case {
        name: "tricky_names",
        enums: true,
        docs,
    }
}

/// A collection without documents.
fn empty() -> Case {
    Case {
        name: "empty",
        enums: false,
        docs: Vec::new(),
    }
}

/// A document nested exactly as deep as the server allows (100 levels).
fn deep() -> Case {
    Case {
        name: "deep",
        enums: false,
        docs: vec![nested(100)],
    }
}

fn nested(levels: usize) -> Document {
    let mut d = doc! { "leaf": 1 };
    for _ in 1..levels {
        d = doc! { "level": d };
    }
    d
}

/// 10,000 distinct keys in one object.
fn wide() -> Case {
    let mut keys = Document::new();
    for k in 0..10_000 {
        keys.insert(format!("key{k}"), k);
    }
    Case {
        name: "wide",
        enums: false,
        docs: vec![doc! { "_id": 1, "keys": keys }],
    }
}

/// Every other BSON type, and a field sometimes a string and sometimes an object.
fn odd_types() -> Case {
    let uuid = bson::Uuid::parse_str("123e4567-e89b-12d3-a456-426614174000").unwrap();
    let docs = (0..4)
        .map(|i: i32| {
            doc! {
                "uuid": uuid,
                "bin": bson::Binary { subtype: bson::spec::BinarySubtype::Generic, bytes: vec![1, 2, 3] },
                "bin_mixed": if i % 2 == 0 { Bson::from(uuid) } else { Bson::Binary(bson::Binary { subtype: bson::spec::BinarySubtype::Md5, bytes: vec![0; 16] }) },
                "ts": bson::Timestamp { time: i as u32, increment: 1 },
                "re": bson::Regex { pattern: "^a".to_owned().try_into().unwrap(), options: "i".to_owned().try_into().unwrap() },
                "code": Bson::JavaScriptCode("f()".into()),
                "min": Bson::MinKey,
                "conflict": if i % 2 == 0 { Bson::String("legacy".into()) } else { Bson::Document(doc! { "name": "new" }) },
                "flag": i % 2 == 0,
                "empty_object": {},
            }
        })
        .collect();
    Case {
        name: "odd_types",
        enums: false,
        docs,
    }
}

fn cases() -> Vec<Case> {
    vec![
        users(),
        orders(),
        products(),
        sensor_data(),
        catalog(),
        users_versioned(),
        accounts_versioned(),
        sparse(),
        numbers(),
        nested_arrays(),
        maps(),
        awkward_names(),
        tricky_names(),
        empty(),
        deep(),
        wide(),
        odd_types(),
    ]
}

fn raw(doc: &Document) -> RawDocumentBuf {
    RawDocumentBuf::try_from(doc).unwrap()
}

fn census_of(docs: &[Document]) -> Census {
    let mut census = Census::new();
    for d in docs {
        census.add(&raw(d)).unwrap();
    }
    census
}

fn infer_case(case: &Case) -> (Census, Inference) {
    let census = census_of(&case.docs);
    let options = Options::default().with_enums(case.enums);
    let inference = infer::infer(&census, case.name, &options).unwrap();
    (census, inference)
}

fn proof(inference: &Inference, docs: &[Document]) -> Proof {
    let mut proof = Proof::new(&inference.validator).unwrap();
    docs.iter().for_each(|d| proof.check(&raw(d)));
    proof
}

/// The documented normalizations: keys sorted, null fields dropped, numbers by value.
fn normalize(value: &Bson) -> Bson {
    match value {
        Bson::Document(d) => {
            let mut entries: Vec<(String, Bson)> = d
                .iter()
                .filter(|(_, v)| !matches!(v, Bson::Null))
                .map(|(k, v)| (k.clone(), normalize(v)))
                .collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Bson::Document(entries.into_iter().collect())
        }
        Bson::Array(items) => Bson::Array(items.iter().map(normalize).collect()),
        Bson::Int32(n) => Bson::Int64(i64::from(*n)),
        Bson::Double(d) if d.fract() == 0.0 && d.abs() <= (1u64 << 53) as f64 => {
            Bson::Int64(*d as i64)
        }
        other => other.clone(),
    }
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn bson_file(docs: &[Document]) -> Vec<u8> {
    docs.iter()
        .flat_map(|d| bson::serialize_to_vec(d).unwrap())
        .collect()
}

fn read_docs(path: &Path) -> Vec<Document> {
    let bytes = std::fs::read(path).unwrap();
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let len = i32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        out.push(bson::deserialize_from_slice(&bytes[at..at + len]).unwrap());
        at += len;
    }
    out
}

/// The generated crate's `main`: per case, reads the documents into the inferred root type,
/// writes them back on both bson paths (raw for inserts, `Document` for `$set`), and writes the
/// derived validator.
const MAIN: &str = r#"
use std::path::Path;

/// One document read as `T` and written back on both paths.
fn round_trip<T>(bytes: &[u8]) -> Result<(Vec<u8>, Vec<u8>), String>
where
    T: serde::de::DeserializeOwned + serde::Serialize,
{
    let value = bson::deserialize_from_slice::<T>(bytes).map_err(|e| e.to_string())?;
    let raw = bson::serialize_to_vec(&value).unwrap();
    let doc = bson::serialize_to_document(&value).unwrap();
    Ok((raw, bson::serialize_to_vec(&doc).unwrap()))
}

fn documents(input: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < input.len() {
        let len = i32::from_le_bytes(input[at..at + 4].try_into().unwrap()) as usize;
        out.push(&input[at..at + len]);
        at += len;
    }
    out
}

fn run<T>(name: &str, dir: &Path)
where
    T: serde::de::DeserializeOwned + serde::Serialize + mongo_schema::MongoSchema,
{
    run_with(name, dir, round_trip::<T>, T::root_schema().to_document());
}

fn run_with(
    name: &str,
    dir: &Path,
    read: fn(&[u8]) -> Result<(Vec<u8>, Vec<u8>), String>,
    schema: bson::Document,
) {
    let input = std::fs::read(dir.join(format!("{name}.bson"))).unwrap();
    let (mut raw, mut set, mut errors) = (Vec::new(), Vec::new(), String::new());
    for (i, bytes) in documents(&input).into_iter().enumerate() {
        match read(bytes) {
            Ok((r, s)) => {
                raw.extend(r);
                set.extend(s);
            }
            Err(e) => errors.push_str(&format!("document {i}: {e}\n")),
        }
    }
    std::fs::write(dir.join(format!("{name}.raw.bson")), raw).unwrap();
    std::fs::write(dir.join(format!("{name}.set.bson")), set).unwrap();
    std::fs::write(dir.join(format!("{name}.errors.txt")), errors).unwrap();
    let schema = bson::serialize_to_vec(&schema).unwrap();
    std::fs::write(dir.join(format!("{name}.schema.bson")), schema).unwrap();
}

/// A versioned case: each document round-trips through its own version's type (`read`), the
/// schema is the collection's validator, and every document is also read as the current type
/// with `from_any_version`: `{name}.converted.bson` holds those written back, and
/// `{name}.converted.txt` one line per document, `ok` or the panic of a marked conversion.
fn run_versioned<T>(name: &str, dir: &Path, read: fn(&[u8]) -> Result<(Vec<u8>, Vec<u8>), String>)
where
    T: mongo_schema::version::Versioned + mongo_schema::spec::Collection + serde::Serialize,
{
    let validator = T::collection_spec().validator.unwrap().json_schema.unwrap();
    run_with(name, dir, read, validator.to_document());
    let input = std::fs::read(dir.join(format!("{name}.bson"))).unwrap();
    let (mut converted, mut lines) = (Vec::new(), String::new());
    std::panic::set_hook(Box::new(|_| {}));
    for bytes in documents(&input) {
        let raw = bson::RawDocument::from_bytes(bytes).unwrap();
        match std::panic::catch_unwind(|| T::from_any_version(raw)) {
            Ok(Ok(value)) => {
                converted.extend(bson::serialize_to_vec(&value).unwrap());
                lines.push_str("ok\n");
            }
            Ok(Err(e)) => lines.push_str(&format!("error: {e}\n")),
            Err(panic) => {
                let what = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .unwrap_or_default();
                lines.push_str(&format!("panic: {what}\n"));
            }
        }
    }
    let _ = std::panic::take_hook();
    std::fs::write(dir.join(format!("{name}.converted.bson")), converted).unwrap();
    std::fs::write(dir.join(format!("{name}.converted.txt")), lines).unwrap();
}

fn main() {
    let dir = std::env::args().nth(1).unwrap();
    let dir = Path::new(&dir);
"#;

/// Runs `f` on a thread with room for 100-level documents in a debug build (serde's recursion
/// and the failure messages that print such documents need more than the default 2 MiB).
fn with_big_stack(f: impl FnOnce() + Send + 'static) {
    let handle = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(f)
        .unwrap();
    if let Err(panic) = handle.join() {
        std::panic::resume_unwind(panic);
    }
}

#[test]
fn generated_sources_compile_read_every_document_and_derive_the_predicted_validator() {
    with_big_stack(check_generated_sources);
}

fn check_generated_sources() {
    let cases = cases();
    let root = workspace().join("target/infer-check");
    let krate = root.join("crate");
    let data = root.join("data");
    std::fs::create_dir_all(krate.join("src")).unwrap();
    std::fs::create_dir_all(&data).unwrap();
    let mut main = String::from(MAIN);
    let mut modules = String::new();
    let mut inferred = Vec::new();
    for case in &cases {
        let (census, inference) = infer_case(case);
        let options = Options::default().with_enums(case.enums);
        assert_eq!(
            infer::validator_for(&census, &options),
            inference.validator,
            "{}: validator_for is the validator infer writes the source for",
            case.name
        );
        std::fs::write(
            krate.join(format!("src/{}.rs", case.name)),
            &inference.source,
        )
        .unwrap();
        std::fs::write(
            data.join(format!("{}.bson", case.name)),
            bson_file(&case.docs),
        )
        .unwrap();
        modules.push_str(&format!("mod {};\n", case.name));
        let root = &inference.model.structs[0].name;
        match &inference.model.versioning {
            None => main.push_str(&format!("    run::<{0}::{root}>({0:?}, dir);\n", case.name)),
            Some(v) => {
                // Each document to its own version's type, as `from_any_version` picks it
                // (no field: the oldest version).
                let mut arms = format!(
                    "        Some({}) => round_trip::<{}::{root}>(bytes),\n",
                    v.current, case.name
                );
                for p in &v.previous {
                    let none = if p.may_be_absent { " | None" } else { "" };
                    arms.push_str(&format!(
                        "        Some({}){none} => round_trip::<{}::{}>(bytes),\n",
                        p.value, case.name, inference.model.structs[p.structure].name
                    ));
                }
                modules.push_str(&format!(
                    "fn read_{0}(bytes: &[u8]) -> Result<(Vec<u8>, Vec<u8>), String> {{\n    \
                     let raw = bson::RawDocument::from_bytes(bytes).unwrap();\n    \
                     match mongo_schema::version::version_of(raw, {1:?}).unwrap() {{\n{arms}        \
                     other => Err(format!(\"no version {{other:?}}\")),\n    }}\n}}\n",
                    case.name, v.field
                ));
                main.push_str(&format!(
                    "    run_versioned::<{0}::{root}>({0:?}, dir, read_{0});\n",
                    case.name
                ));
            }
        }
        inferred.push(inference);
    }
    main.push_str("}\n");
    std::fs::write(krate.join("src/main.rs"), format!("{modules}{main}")).unwrap();
    let ws = workspace();
    std::fs::write(
        krate.join("Cargo.toml"),
        format!(
            "[package]\nname = \"infer-check\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
             [dependencies]\nmongo-schema = {{ path = {:?} }}\n\
             bson = {{ version = \"3.1\", features = [\"serde\", \"serde_json-1\"] }}\n\
             serde = {{ version = \"1\", features = [\"derive\"] }}\n\n[workspace]\n",
            ws.join("schema-core").display().to_string()
        ),
    )
    .unwrap();
    // The workspace's lock file, so the check builds the same dependency versions offline.
    std::fs::copy(ws.join("Cargo.lock"), krate.join("Cargo.lock")).unwrap();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(&cargo)
        .args(["run", "--offline", "--quiet", "--manifest-path"])
        .arg(krate.join("Cargo.toml"))
        .arg("--")
        .arg(&data)
        .env("CARGO_TARGET_DIR", root.join("target"))
        // No debug info: the check only runs the crate, and its dependencies are built once more
        // here, so this keeps target/infer-check small and the first build fast.
        .env("CARGO_PROFILE_DEV_DEBUG", "0")
        .env_remove("RUSTFLAGS")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "the generated crate failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // Warning-free too: pasted source should not start a crate's life with lints to fix.
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("warning"), "{stderr}");
    for (case, inference) in cases.iter().zip(&inferred) {
        let name = case.name;
        let errors = std::fs::read_to_string(data.join(format!("{name}.errors.txt"))).unwrap();
        assert_eq!(errors, "", "{name}: documents the types cannot read");
        let derived: Document = bson::deserialize_from_slice(
            &std::fs::read(data.join(format!("{name}.schema.bson"))).unwrap(),
        )
        .unwrap();
        assert_eq!(
            derived,
            inference.validator.to_document(),
            "{name}: the derived validator is not the predicted one"
        );
        let proved = proof(inference, &case.docs);
        assert!(proved.is_complete(), "{name}: {:?}", proved.exceptions);
        for path in ["raw", "set"] {
            let written = read_docs(&data.join(format!("{name}.{path}.bson")));
            assert_eq!(written.len(), case.docs.len(), "{name} ({path})");
            for (original, back) in case.docs.iter().zip(&written) {
                assert_eq!(
                    normalize(&Bson::Document(back.clone())),
                    normalize(&Bson::Document(original.clone())),
                    "{name} ({path}): written back differs"
                );
            }
            let rewritten = proof(inference, &written);
            assert!(
                rewritten.is_complete(),
                "{name} ({path}): {:?}",
                rewritten.exceptions
            );
        }
        if let Some(v) = &inference.model.versioning {
            check_conversions(case, inference, v, &data);
        }
    }
}

/// Every document reads as the current version: the current ones directly, older ones through
/// the conversions, which panic (marked) exactly for the versions whose conversion has a gap.
/// What converts is a current document: the validator accepts it with the current version.
fn check_conversions(
    case: &Case,
    inference: &Inference,
    v: &infer::model::Versioning,
    data: &Path,
) {
    let name = case.name;
    let lines = std::fs::read_to_string(data.join(format!("{name}.converted.txt"))).unwrap();
    let lines: Vec<&str> = lines.lines().collect();
    assert_eq!(lines.len(), case.docs.len(), "{name}");
    let mut ok = 0;
    for (doc, line) in case.docs.iter().zip(&lines) {
        let version = match doc.get(&v.field) {
            Some(Bson::Int32(n)) => i64::from(*n),
            Some(Bson::Int64(n)) => *n,
            _ => v.previous.last().unwrap().value,
        };
        let gaps = match v.previous.iter().find(|p| p.value == version) {
            None => false,
            Some(p) => v.conversions.iter().any(|c| {
                matches!(c, infer::convert::Conversion::Struct { from, .. } if *from == p.structure)
                    && !c.unconverted().is_empty()
            }),
        };
        if gaps {
            assert!(
                line.starts_with("panic: infer wrote no conversion: version"),
                "{name}: version {version}: {line}"
            );
        } else {
            assert_eq!(*line, "ok", "{name}: version {version}");
            ok += 1;
        }
    }
    let converted = read_docs(&data.join(format!("{name}.converted.bson")));
    assert_eq!(converted.len(), ok, "{name}");
    for doc in &converted {
        let stored = doc.get(&v.field).cloned().map(|b| normalize(&b));
        assert_eq!(stored, Some(Bson::Int64(v.current)), "{name}: {doc}");
    }
    let accepted = proof(inference, &converted);
    assert!(accepted.is_complete(), "{name}: {:?}", accepted.exceptions);
}

#[test]
fn the_types_are_the_narrowest_that_read_every_value() {
    let (_, inference) = infer_case(&numbers());
    let source = &inference.source;
    for line in [
        "pub int_only: i32,",
        "pub int_long: i64,",
        "pub int_double: f64,",
        "pub long_double_exact: f64,",
        "pub long_double_inexact: bson::Bson,",
        "pub decimal: bson::Decimal128,",
        "pub decimal_int: bson::Bson,",
        "pub long_only: i64,",
        "pub double_only: f64,",
    ] {
        assert!(source.contains(line), "{line} in\n{source}");
    }
    assert!(source.contains("beyond 2^53"), "{source}");
}

#[test]
fn fields_sometimes_missing_are_options_that_are_skipped() {
    let (_, inference) = infer_case(&sparse());
    let source = &inference.source;
    assert!(source.contains(
        "    #[serde(default, skip_serializing_if = \"Option::is_none\")]\n    pub rare: Option<String>,"
    ));
    // Never missing but sometimes null: an Option serde reads from null, written back as null.
    assert!(
        source.contains("\n    pub nullable: Option<bool>,"),
        "{source}"
    );
    assert!(source.contains("pub half: Option<i64>,"), "{source}");
}

#[test]
fn documents_deeper_than_the_server_allows_are_noted_and_rejected() {
    let docs = vec![nested(3), nested(101)];
    let census = census_of(&docs);
    assert_eq!(census.too_deep, 1);
    let inference = infer::infer(&census, "deep", &Options::default()).unwrap();
    assert!(
        inference
            .model
            .notes
            .iter()
            .any(|n| n.contains("deeper than 100 levels")),
        "{:?}",
        inference.model.notes
    );
    assert!(inference.source.contains("bson::Bson"));
    let proved = proof(&inference, &docs);
    // The evaluator, as the server, refuses nesting deeper than 100 levels.
    assert_eq!((proved.checked, proved.accepted), (2, 1));
    assert_eq!(proved.exceptions[0].index, 1);
}

#[test]
fn a_bad_collection_name_is_an_error() {
    let census = Census::new();
    for name in ["", "a$b", "system.views"] {
        assert!(
            infer::infer(&census, name, &Options::default()).is_err(),
            "{name:?}"
        );
    }
}

#[test]
fn source_snapshots() {
    for case in [
        orders(),
        awkward_names(),
        numbers(),
        catalog(),
        users_versioned(),
        accounts_versioned(),
    ] {
        let (_, inference) = infer_case(&case);
        insta::assert_snapshot!(format!("infer_source_{}", case.name), inference.source);
    }
}

fn cli(args: &[&str]) -> (Outcome, String, String) {
    let mut console = Console::captured("");
    let mut argv = vec!["mongo-schema", "infer"];
    argv.extend_from_slice(args);
    let outcome = mongo_schema_cli::run(argv, None, &mut console);
    (outcome, console.stdout_text(), console.stderr_text())
}

fn scratch(name: &str) -> PathBuf {
    let dir = workspace().join("target/infer-check/cli").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn cli_report_snapshot_and_exit_codes() {
    let dir = scratch("report");
    let users = users();
    let file = dir.join("users.bson");
    std::fs::write(&file, bson_file(&users.docs[..5])).unwrap();
    let path = file.to_str().unwrap();
    let (outcome, json, _) = cli(&[path, "--format", "json"]);
    assert_eq!(outcome, Outcome::Clean);
    let mut report: serde_json::Value = serde_json::from_str(&json).unwrap();
    // The source has its own snapshot; the report pins the census and the proof.
    report.as_object_mut().unwrap().remove("source");
    insta::assert_json_snapshot!("infer_report_users", report);

    let (outcome, text, _) = cli(&[path, "--collection", "people"]);
    assert_eq!(outcome, Outcome::Clean);
    assert!(text.contains("#[mongo(collection = \"people\")]"), "{text}");
    assert!(
        text.ends_with("// proof: the validator these types derive accepts 5 of 5 documents\n")
    );

    let out = dir.join("src");
    let (outcome, text, err) = cli(&[path, "--out", out.to_str().unwrap()]);
    assert_eq!(outcome, Outcome::Clean);
    assert!(
        std::fs::read_to_string(out.join("users.rs"))
            .unwrap()
            .contains("pub struct User {")
    );
    assert!(err.contains("users.rs"), "{err}");
    assert!(!text.contains("pub struct"), "{text}");

    // Rejected documents: exit 1, each explained.
    let deep = dir.join("deep.bson");
    std::fs::write(&deep, bson_file(&[nested(2), nested(101)])).unwrap();
    let (outcome, text, _) = cli(&[deep.to_str().unwrap()]);
    assert_eq!(outcome, Outcome::Findings, "{text}");
    assert!(text.contains("accepts 1 of 2 documents"), "{text}");
    assert!(text.contains("// rejected: document 1"), "{text}");
    assert!(
        text.ends_with("// to admit them: no choice of types can: they nest deeper than the server's 100 levels, which it refuses to store; flatten them\n"),
        "{text}"
    );

    // Errors: exit 2.
    let missing = dir.join("missing.bson");
    let (outcome, _, err) = cli(&[missing.to_str().unwrap()]);
    assert_eq!(outcome, Outcome::Failed);
    assert!(
        err.contains("opening") && err.contains("missing.bson"),
        "{err}"
    );
}

#[test]
fn lints_are_findings_in_every_format_and_json_says_what_would_admit() {
    let dir = scratch("lints");
    let mut docs: Vec<Document> = (0..150).map(|i| doc! { "_id": i, "n": i }).collect();
    docs[3].insert("legacy", true);
    docs[4].insert("log", vec![1; 1200]);
    let file = dir.join("events.bson");
    std::fs::write(&file, bson_file(&docs)).unwrap();
    let path = file.to_str().unwrap();

    let (outcome, json, _) = cli(&[path, "--format", "json"]);
    assert_eq!(outcome, Outcome::Clean);
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    let findings: Vec<(&str, &str, &str)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["severity"].as_str().unwrap(),
                f["kind"].as_str().unwrap(),
                f["path"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        findings,
        [
            ("notice", "rare-field", "legacy"),
            ("notice", "rare-field", "log"),
            ("warning", "unbounded-array", "log"),
        ]
    );
    assert_eq!(report["proof"]["admit"], serde_json::Value::Null);

    let (_, github, _) = cli(&[path, "--format", "github"]);
    let lines: Vec<&str> = github.lines().collect();
    assert_eq!(lines.len(), 3, "{github}");
    assert!(
        lines[2].starts_with(&format!(
            "::warning file={},title=mongo-schema unbounded-array%3A events::arrays of up to 1200",
            path.replace(':', "%3A").replace(',', "%2C")
        )),
        "{github}"
    );

    // With --out the source goes to the file, and the lints are still in the report.
    let out = dir.join("src");
    let (_, text, _) = cli(&[path, "--out", out.to_str().unwrap()]);
    assert!(
        text.starts_with("// note (rare-field): legacy: present in 1 of 150"),
        "{text}"
    );
    let source = std::fs::read_to_string(out.join("events.rs")).unwrap();
    assert!(
        source.contains("\n// warning (unbounded-array): log: arrays of up to 1200"),
        "{source}"
    );

    // Rejected documents: the JSON names what would admit them; github annotates each.
    let deep = dir.join("deep.bson");
    std::fs::write(&deep, bson_file(&[nested(2), nested(101)])).unwrap();
    let deep = deep.to_str().unwrap();
    let (outcome, json, _) = cli(&[deep, "--format", "json"]);
    assert_eq!(outcome, Outcome::Findings);
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(report["proof"]["admit"]["kind"], "too-deep");
    assert!(
        report["proof"]["admit"]["choice"]
            .as_str()
            .unwrap()
            .starts_with("no choice of types can")
    );
    let (outcome, github, _) = cli(&[deep, "--format", "github"]);
    assert_eq!(outcome, Outcome::Findings);
    let errors: Vec<&str> = github
        .lines()
        .filter(|l| l.starts_with("::error"))
        .collect();
    // The too-deep lint, then the one rejected document.
    assert_eq!(errors.len(), 2, "{github}");
    assert!(
        errors[1].contains("rejects document 1") && errors[1].contains("to admit it: no choice"),
        "{github}"
    );
}

#[test]
fn every_command_in_the_adopting_guide_parses() {
    let guide = std::fs::read_to_string(workspace().join("docs/adopting.md")).unwrap();
    // The standalone binary, and the application's own (`cargo run --bin mongo-schema -- ...`).
    let commands: Vec<String> = guide
        .lines()
        .map(str::trim)
        .filter_map(|l| {
            l.strip_prefix("cargo run --bin mongo-schema -- ")
                .map(|rest| format!("mongo-schema {rest}"))
                .or_else(|| l.starts_with("mongo-schema ").then(|| l.to_owned()))
        })
        .collect();
    assert!(commands.len() >= 5, "{commands:?}");
    for line in &commands {
        // clap reads the arguments in order and stops at `--help`: an unknown subcommand, flag or
        // value before it is an error (exit 2), while files need not exist.
        let mut argv: Vec<&str> = line
            .split_whitespace()
            .take_while(|w| !w.starts_with('#'))
            .collect();
        argv.push("--help");
        let mut console = Console::captured("");
        let outcome = mongo_schema_cli::run(argv, None, &mut console);
        assert_eq!(outcome, Outcome::Clean, "{line}: {}", console.stderr_text());
    }
}

/// Small documents of every shape the census distinguishes.
fn value(depth: u32) -> BoxedStrategy<Bson> {
    let leaf = prop_oneof![
        any::<i32>().prop_map(Bson::Int32),
        any::<i64>().prop_map(Bson::Int64),
        (-1.0e6..1.0e6f64).prop_map(Bson::Double),
        "[a-c]{0,3}".prop_map(Bson::String),
        Just(Bson::Null),
        any::<bool>().prop_map(Bson::Boolean),
    ];
    if depth == 0 {
        return leaf.boxed();
    }
    prop_oneof![
        3 => leaf,
        1 => prop::collection::vec(value(depth - 1), 0..4).prop_map(Bson::Array),
        1 => document(depth - 1).prop_map(Bson::Document),
    ]
    .boxed()
}

fn document(depth: u32) -> BoxedStrategy<Document> {
    // Key names from a small set so paths repeat; a wide range sometimes, to cross the map bound.
    prop::collection::vec(("[a-d]|k[0-9]{1,2}", value(depth)), 0..6)
        .prop_map(|entries| entries.into_iter().collect())
        .boxed()
}

/// A document that may carry a schema version (`v`, 1 to 3, or absent), its other fields
/// drawn per version from a few shapes so that versions often decide them.
fn versioned_document() -> BoxedStrategy<Document> {
    (prop::option::of(1..4i32), document(2), any::<bool>())
        .prop_map(|(v, mut d, long)| {
            match v {
                Some(v) => {
                    let value = if long {
                        Bson::Int64(i64::from(v))
                    } else {
                        Bson::Int32(v)
                    };
                    d.insert("v", value);
                    d.insert(format!("only{v}"), v);
                }
                None => {
                    d.insert("legacy", true);
                }
            }
            d
        })
        .boxed()
}

proptest! {
    #[test]
    fn with_versions_the_census_merges_exactly_and_the_validator_accepts_every_document(
        docs in prop::collection::vec(versioned_document(), 0..30),
        cut in 0usize..30,
    ) {
        let cut = cut.min(docs.len());
        let whole = census_of(&docs);
        let mut merged = census_of(&docs[..cut]);
        merged.merge(&census_of(&docs[cut..]));
        prop_assert_eq!(&merged, &whole);
        let inference = infer::infer(&whole, "random", &Options::default()).unwrap();
        let proved = proof(&inference, &docs);
        prop_assert!(proved.is_complete(), "{:?}\n{}", proved.exceptions, inference.source);
    }
}

proptest! {
    #[test]
    fn census_of_two_halves_merged_is_the_census_of_the_whole(
        docs in prop::collection::vec(document(3), 0..40),
        cut in 0usize..40,
    ) {
        let cut = cut.min(docs.len());
        let whole = census_of(&docs);
        let mut merged = census_of(&docs[..cut]);
        merged.merge(&census_of(&docs[cut..]));
        prop_assert_eq!(merged, whole);
    }
}

proptest! {
    #[test]
    fn the_predicted_validator_accepts_every_document_it_was_inferred_from(
        docs in prop::collection::vec(document(3), 0..30),
        enums in any::<bool>(),
    ) {
        let census = census_of(&docs);
        let inference =
            infer::infer(&census, "random", &Options::default().with_enums(enums)).unwrap();
        let proved = proof(&inference, &docs);
        prop_assert!(proved.is_complete(), "{:?}\n{}", proved.exceptions, inference.source);
    }
}
