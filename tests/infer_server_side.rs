//! `infer --server-side` against the wire-protocol test server: for corpora of many shapes
//! (PATTERNS.md-style seed collections, maps, sparse and mixed fields, and generated documents)
//! the census the server computes gives the same report, the same Rust source and the same
//! proof as the census read document by document; and no document travels but the few whose
//! `_id`s order the fields.

use std::sync::Arc;

use bson::{Bson, Document, doc, oid::ObjectId, spec::BinarySubtype};
use mongo_schema::eval::Validator;
use mongo_schema_cli::{Console, Outcome};
use mongo_schema_test_support::{BlockingTestServer, FnEvaluator, TestServerOptions};
use proptest::prelude::*;

fn cli(args: &[&str]) -> (Outcome, String, String) {
    let mut console = Console::captured("");
    let mut argv = vec!["mongo-schema", "infer"];
    argv.extend_from_slice(args);
    let outcome = mongo_schema_cli::run(argv, None, &mut console);
    (outcome, console.stdout_text(), console.stderr_text())
}

/// A test server whose `$jsonSchema` queries are decided by mongo-schema's evaluator.
fn server() -> BlockingTestServer {
    let server = BlockingTestServer::start(TestServerOptions::default());
    server.set_schema_evaluator(Arc::new(FnEvaluator(
        |schema: &Document, document: &Document| {
            let validator = Validator::from_document(&doc! { "$jsonSchema": schema });
            let raw = bson::RawDocumentBuf::try_from(document);
            matches!((validator, raw), (Ok(v), Ok(raw)) if v.evaluate(&raw).is_valid())
        },
    )));
    server
}

fn seed(server: &BlockingTestServer, db: &str, name: &str, docs: Vec<Document>) {
    server.seed_collection(db, doc! {"name": name, "type": "collection", "options": {}});
    server.seed_documents(db, name, docs);
}

/// Runs infer on `db.collection` both ways, in `format`; asserts they print the same and
/// returns the output.
fn same_both_ways(
    server: &BlockingTestServer,
    db: &str,
    collection: &str,
    extra: &[&str],
) -> String {
    let uri = server.uri_with_db(db);
    let mut args = vec!["--uri", uri.as_str(), "--collection", collection];
    args.extend_from_slice(extra);
    let (local_outcome, local, local_err) = cli(&args);
    args.push("--server-side");
    server.clear_commands();
    let (outcome, remote, err) = cli(&args);
    assert_eq!(outcome, local_outcome, "{err}\n{local_err}");
    assert_eq!(remote, local, "{collection}: server-side and local differ");
    // Only statistics travel: no find reads documents but those whose `_id`s are asked for.
    for find in server.commands_named("find") {
        let filter = find.body.get_document("filter").unwrap();
        let ids = filter
            .get_document("_id")
            .is_ok_and(|d| d.contains_key("$in"));
        let rejected = filter.contains_key("$nor");
        assert!(ids || rejected, "a find read documents: {:?}", find.body);
    }
    assert_eq!(server.write_commands(), vec![]);
    remote
}

fn oid(n: u64) -> ObjectId {
    let mut bytes = [0u8; 12];
    bytes[4..].copy_from_slice(&n.to_be_bytes());
    ObjectId::from_bytes(bytes)
}

fn date(ms: i64) -> bson::DateTime {
    bson::DateTime::from_millis(1_700_000_000_000 + ms)
}

fn uuid(n: u8) -> Bson {
    Bson::Binary(bson::Binary {
        subtype: BinarySubtype::Uuid,
        bytes: vec![n; 16],
    })
}

/// PATTERNS.md 1: users with a bounded array of embedded addresses, some fields sparse.
fn users() -> Vec<Document> {
    (0..120_u64)
        .map(|i| {
            let addresses: Vec<Document> = (0..i % 3)
                .map(|a| doc! {"street": format!("{a} Main St"), "city": (["Oslo", "Lima", "Pune"][(a % 3) as usize]), "zip": format!("{:05}", i * 7 + a)})
                .collect();
            let mut d = doc! {"_id": oid(i), "email": format!("u{i}@example.com"), "name": format!("User {i}"), "addresses": addresses, "createdAt": date(i as i64 * 1000)};
            if i % 4 == 0 {
                d.insert("phone", format!("+47 {i}"));
            }
            if i % 9 == 0 {
                d.insert("deletedAt", Bson::Null);
            }
            d
        })
        .collect()
}

/// PATTERNS.md 2 and 10: orders with a reference, an extended reference, line items with
/// frozen prices, money as doubles and a status with few values.
fn orders() -> Vec<Document> {
    (0..150_i64)
        .map(|i| {
            let items: Vec<Document> = (0..1 + i % 4)
                .map(|q| doc! {"sku": format!("SKU-{}", (i + q) % 17), "qty": (q + 1) as i32, "price": 9.99 + q as f64})
                .collect();
            doc! {
                "_id": oid(1000 + i as u64),
                "customerId": oid(i as u64 % 20),
                "customer": {"name": format!("C{}", i % 20), "tier": (["gold", "silver"][(i % 2) as usize])},
                "status": (["new", "paid", "shipped", "cancelled"][(i % 4) as usize]),
                "items": items,
                "total": i as f64 * 2.5,
                "placedAt": date(i * 60_000),
                "seq": i,
            }
        })
        .collect()
}

/// PATTERNS.md 4: sensor buckets of up to 60 readings.
fn sensor_data() -> Vec<Document> {
    (0..40_i64)
        .map(|i| {
            let readings: Vec<Document> = (0..(i * 7) % 61)
                .map(|r| doc! {"t": date(i * 3_600_000 + r * 60_000), "v": (r as f64) / 3.0})
                .collect();
            doc! {"_id": oid(5000 + i as u64), "sensorId": format!("s{}", i % 5), "start": date(i * 3_600_000), "count": readings.len() as i32, "readings": readings}
        })
        .collect()
}

/// PATTERNS.md 8: books and courses told apart by `type` (a discriminator).
fn catalog() -> Vec<Document> {
    (0..60_u64)
        .map(|i| {
            if i % 3 == 0 {
                doc! {"_id": oid(9000 + i), "type": "COURSE", "title": format!("course {i}"), "durationHrs": 1.5, "level": (["BEGINNER", "ADVANCED"][(i % 2) as usize])}
            } else {
                doc! {"_id": oid(9000 + i), "type": "BOOK", "title": format!("book {i}"), "isbn": format!("978-{i}"), "pages": 100 + i as i32}
            }
        })
        .collect()
}

/// Objects keyed by data (more keys than a struct would have), nested under arrays too.
fn maps() -> Vec<Document> {
    (0..30_i32)
        .map(|i| {
            let mut scores = Document::new();
            for k in 0..(i * 5) {
                scores.insert(format!("day-{}", (k * 3 + i) % 90), doc! {"n": k, "at": date(i64::from(k))});
            }
            doc! {"_id": i, "scores": scores.clone(), "history": [{"scores": scores}], "small": {"a": i}}
        })
        .collect()
}

/// Fields that change type, nulls, NaN, empty arrays and objects, binaries, long strings.
fn mixed() -> Vec<Document> {
    (0..80_i32)
        .map(|i| {
            let mut d = doc! {"_id": i};
            d.insert(
                "mixed",
                match i % 6 {
                    0 => Bson::String("text".into()),
                    1 => Bson::Document(doc! {"k": i}),
                    2 => Bson::Int64(i64::from(i) << 40),
                    3 => Bson::Null,
                    4 => Bson::Double(if i % 4 == 0 {
                        f64::NAN
                    } else {
                        f64::from(i) / 7.0
                    }),
                    _ => Bson::Array(vec![Bson::Int32(i), Bson::String("x".into())]),
                },
            );
            d.insert("nested", bson::bson!([[i], [], [[i, i]]]));
            d.insert("empty", doc! {});
            if i % 5 == 0 {
                d.insert("id", uuid(i as u8));
            }
            d.insert(
                "blob",
                Bson::Binary(bson::Binary {
                    subtype: BinarySubtype::Generic,
                    bytes: vec![0; (i % 7) as usize],
                }),
            );
            d.insert("long_text", "é".repeat((i as usize) * 3));
            d.insert("flag", i % 2 == 0);
            d
        })
        .collect()
}

fn corpora() -> Vec<(&'static str, Vec<Document>)> {
    vec![
        ("users", users()),
        ("orders", orders()),
        ("sensor_data", sensor_data()),
        ("catalog", catalog()),
        ("maps", maps()),
        ("mixed", mixed()),
        ("empty", Vec::new()),
    ]
}

#[test]
fn the_server_side_census_reads_as_the_local_one_for_every_shape() {
    let server = server();
    for (name, docs) in corpora() {
        seed(&server, "shop", name, docs);
    }
    for (name, _) in corpora() {
        let report = same_both_ways(&server, "shop", name, &["--format", "json"]);
        let json: serde_json::Value = serde_json::from_str(&report).unwrap();
        assert_eq!(json["proof"]["checked"], json["documents"], "{name}");
        let text = same_both_ways(&server, "shop", name, &["--enums"]);
        assert!(
            text.contains("// proof: the validator these types derive accepts"),
            "{text}"
        );
    }
}

#[test]
fn a_discriminator_and_a_map_survive_the_server_side_census() {
    let server = server();
    seed(&server, "shop", "catalog", catalog());
    seed(&server, "shop", "maps", maps());
    let catalog = same_both_ways(&server, "shop", "catalog", &[]);
    assert!(catalog.contains("#[serde(tag = \"type\""), "{catalog}");
    let maps = same_both_ways(&server, "shop", "maps", &[]);
    assert!(maps.contains("HashMap<String,"), "{maps}");
}

#[test]
fn the_whole_database_reads_the_same_both_ways() {
    let server = server();
    seed(&server, "shop", "orders", orders());
    seed(&server, "shop", "users", users());
    let uri = server.uri_with_db("shop");
    let (a, local, _) = cli(&["--uri", &uri, "--format", "json"]);
    let (b, remote, err) = cli(&["--uri", &uri, "--format", "json", "--server-side"]);
    assert_eq!((a, b), (Outcome::Clean, Outcome::Clean), "{err}");
    assert_eq!(remote, local);
}

#[test]
fn the_census_travels_as_statistics_and_the_proof_as_counts() {
    let server = server();
    seed(&server, "shop", "orders", orders());
    let uri = server.uri_with_db("shop");
    let (outcome, out, err) = cli(&["--uri", &uri, "--collection", "orders", "--server-side"]);
    assert_eq!(outcome, Outcome::Clean, "{err}");
    assert!(out.ends_with("accepts 150 of 150 documents\n"), "{out}");
    // Every document-level read is an aggregate; the proof is a $jsonSchema count.
    // (The catalog read's `$listSearchIndexes` aside.)
    let aggregates: Vec<_> = server
        .commands_named("aggregate")
        .into_iter()
        .filter(|a| !format!("{:?}", a.body).contains("$listSearchIndexes"))
        .collect();
    assert!(aggregates.len() >= 5, "{}", aggregates.len());
    for a in &aggregates {
        assert!(
            a.body.get_bool("allowDiskUse").is_ok_and(|b| b),
            "{:?}",
            a.body
        );
    }
    let nor = server
        .aggregates_starting_with("$match")
        .into_iter()
        .filter(|a| format!("{:?}", a.body).contains("$jsonSchema"))
        .count();
    assert_eq!(nor, 1);
    let reply_bytes: usize = server
        .commands_named("find")
        .iter()
        .map(|f| f.body.get_document("filter").map_or(0, |f| f.len()))
        .sum();
    assert!(reply_bytes <= 1, "one find of _ids at most");
}

#[test]
fn flags_that_cannot_go_together_are_refused() {
    let (outcome, _, err) = cli(&["orders.bson", "--server-side"]);
    assert_eq!(outcome, Outcome::Failed);
    assert!(
        err.contains("--server-side counts a live collection"),
        "{err}"
    );
    let (outcome, _, err) = cli(&[
        "--uri",
        "mongodb://127.0.0.1:1",
        "--server-side",
        "--sample",
        "5",
    ]);
    assert_eq!(outcome, Outcome::Failed);
    assert!(err.contains("cannot be used with"), "{err}");
}

#[test]
fn binaries_of_one_length_with_several_subtypes_are_counted_per_subtype() {
    let server = server();
    let bin = |subtype: u8, len: usize| {
        Bson::Binary(bson::Binary {
            subtype: subtype.into(),
            bytes: vec![subtype; len],
        })
    };
    let docs = (0..30_i32)
        .map(|i| {
            let b = match i % 5 {
                0 => uuid(i as u8),
                1 => bin(0, 16),
                2 => bin(0x80, 16),
                3 => bin(4, 8),
                _ => bin(3, 16),
            };
            doc! {"_id": i, "b": b, "only_uuids": uuid(1), "uuid_like": [bin(4, 16), bin(4, 3)]}
        })
        .collect();
    seed(&server, "shop", "bins", docs);
    let report = same_both_ways(&server, "shop", "bins", &["--format", "json"]);
    assert!(report.contains("\"binarySubtypes\""), "{report}");
    let source = same_both_ways(&server, "shop", "bins", &[]);
    assert!(source.contains("pub only_uuids: bson::Uuid,"), "{source}");
    assert!(!source.contains("pub b: bson::Uuid,"), "{source}");
}

/// Values of every kind the census tells apart, from a small pool of field names so that
/// paths recur across documents.
fn value(depth: u32) -> BoxedStrategy<Bson> {
    let leaf = prop_oneof![
        any::<i32>().prop_map(Bson::Int32),
        (-5_i64..5).prop_map(|n| Bson::Int64(n << 35)),
        prop_oneof![(-1.0e6..1.0e6_f64), Just(f64::NAN), Just(f64::INFINITY)]
            .prop_map(Bson::Double),
        "[a-c]{0,3}".prop_map(Bson::String),
        "[é✓x]{60,70}".prop_map(Bson::String),
        (0_i64..1_000_000).prop_map(|ms| Bson::DateTime(date(ms))),
        Just(Bson::Null),
        any::<bool>().prop_map(Bson::Boolean),
        (0_u64..5).prop_map(|n| Bson::ObjectId(oid(n))),
        (0_u8..3).prop_map(uuid),
        (0_usize..4).prop_map(|n| Bson::Binary(bson::Binary {
            subtype: BinarySubtype::Generic,
            bytes: vec![1; n],
        })),
    ];
    if depth == 0 {
        return leaf.boxed();
    }
    prop_oneof![
        4 => leaf,
        1 => prop::collection::vec(value(depth - 1), 0..4).prop_map(Bson::Array),
        1 => object(depth - 1).prop_map(Bson::Document),
    ]
    .boxed()
}

fn object(depth: u32) -> BoxedStrategy<Document> {
    prop::collection::vec(
        (
            prop::sample::select(vec!["a", "b", "c", "kind", "$d", "e.f"]),
            value(depth),
        ),
        0..5,
    )
    .prop_map(|fields| fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
    .boxed()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn generated_corpora_agree(docs in prop::collection::vec(object(3), 1..25)) {
        let docs: Vec<Document> = docs
            .into_iter()
            .enumerate()
            .map(|(i, d)| {
                let mut with_id = doc! {"_id": i as i32};
                with_id.extend(d);
                with_id
            })
            .collect();
        let server = server();
        seed(&server, "gen", "docs", docs);
        same_both_ways(&server, "gen", "docs", &["--format", "json"]);
    }
}

/// Users over three schema versions (documents from before versioning lack the field), the
/// shape the local census turns into `version(...)`.
fn versioned_users() -> Vec<Document> {
    let mut docs = Vec::new();
    for i in 0..4 {
        docs.push(doc! {"_id": format!("u{i:02}"), "name": format!("Asha Rao {i}")});
    }
    for i in 4..8 {
        docs.push(
            doc! {"_id": format!("u{i:02}"), "name": format!("Cher {i}"), "schemaVersion": 1},
        );
    }
    for i in 8..14 {
        let version = if i % 2 == 0 {
            Bson::Int32(2)
        } else {
            Bson::Int64(2)
        };
        docs.push(doc! {
            "_id": format!("u{i:02}"),
            "firstName": format!("Ada {i}"),
            "lastName": "Lovelace",
            "schemaVersion": version,
        });
    }
    docs
}

/// A field named like a version that cannot be one: a double among its values, or a value out
/// of range. Both ways stop counting versions of it.
fn not_versions() -> (Vec<Document>, Vec<Document>) {
    let mut doubles = versioned_users();
    doubles.push(doc! {"_id": "u99", "firstName": "X", "lastName": "Y", "schemaVersion": 2.0});
    let mut out_of_range = versioned_users();
    out_of_range
        .push(doc! {"_id": "u99", "firstName": "X", "lastName": "Y", "schemaVersion": 100_000});
    (doubles, out_of_range)
}

#[test]
fn schema_versions_are_detected_server_side_as_locally() {
    let server = server();
    seed(&server, "shop", "users_versioned", versioned_users());
    let source = same_both_ways(&server, "shop", "users_versioned", &[]);
    assert!(source.contains("version("), "{source}");
    assert!(source.contains("previous("), "{source}");
    let report = same_both_ways(&server, "shop", "users_versioned", &["--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&report).unwrap();
    assert_eq!(json["proof"]["checked"], json["documents"], "{report}");

    let (doubles, out_of_range) = not_versions();
    seed(&server, "shop", "doubles", doubles);
    seed(&server, "shop", "out_of_range", out_of_range);
    for name in ["doubles", "out_of_range"] {
        let source = same_both_ways(&server, "shop", name, &[]);
        assert!(!source.contains("previous("), "{name}: {source}");
    }
}
