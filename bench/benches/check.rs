//! `cargo bench -p mongo-schema-bench --bench check`: `mongo-schema check` through the real
//! `mongodb` driver against the wire-protocol test server holding 1,000 collections with 6
//! indexes each (plus `_id_`), every one declared and in sync.
//!
//! Criterion measures the wall time of a whole `check` (connect, listCollections, 1,000
//! listIndexes at most 16 at a time, normalize, diff, render); a summary pass then prints the
//! round trips the server received, by command, and the wall time, as a markdown table.
//! Goal: under 2 seconds.

use std::time::{Duration, Instant};

use bson::{Document, doc};
use criterion::Criterion;
use mongo_schema::normalize;
use mongo_schema::spec::CollectionSpec;
use mongo_schema::spec::{IndexKind, IndexSpec};
use mongo_schema_cli::{Console, Outcome};
use mongo_schema_test_support::{BlockingTestServer, TestServerOptions};

const COLLECTIONS: usize = 1_000;

/// Six indexes of the kinds a real collection has: compound, unique, partial, TTL, text, hashed.
fn indexes() -> Vec<IndexSpec> {
    vec![
        IndexSpec::new([
            ("user_id", IndexKind::Ascending),
            ("status", IndexKind::Ascending),
            ("created_at", IndexKind::Descending),
        ]),
        IndexSpec::new([("email", IndexKind::Ascending)]).unique(true),
        IndexSpec::new([("sku", IndexKind::Ascending)])
            .partial_filter_expression(doc! {"qty": {"$gt": 0}}),
        IndexSpec::new([("expires_at", IndexKind::Ascending)]).expire_after_seconds(3600),
        IndexSpec::new([("title", IndexKind::Text), ("body", IndexKind::Text)])
            .weight("title", 10)
            .weight("body", 1),
        IndexSpec::new([("tenant", IndexKind::Hashed)]),
    ]
}

fn declared() -> Vec<CollectionSpec> {
    (0..COLLECTIONS)
        .map(|i| {
            let mut spec = CollectionSpec::new(format!("coll_{i:04}"));
            spec.validator = Some(mongo_schema::spec::ValidatorSpec::query(doc! {
                "$jsonSchema": {
                    "bsonType": "object",
                    "required": ["user_id", "status"],
                    "properties": {
                        "user_id": {"bsonType": "objectId"},
                        "status": {"enum": ["PENDING", "PAID", "SHIPPED", "CANCELLED"]},
                        "qty": {"bsonType": "int", "minimum": 0},
                    },
                },
            }));
            for index in indexes() {
                spec = spec.index(index);
            }
            spec
        })
        .collect()
}

/// Seeds the server with each collection as a server stores it: the listCollections entry and
/// the listIndexes entries in their listed form (`_id_` first, text as `_fts`/`_ftsx`).
fn seed(server: &BlockingTestServer, specs: &[CollectionSpec]) {
    for spec in specs {
        let mut entry = doc! {"name": &spec.name, "type": "collection"};
        entry.insert("options", spec.to_options_document());
        entry.insert("info", doc! {"readOnly": false});
        entry.insert("idIndex", doc! {"v": 2, "key": {"_id": 1}, "name": "_id_"});
        server.seed_collection("bench", entry);
        server.seed_index(
            "bench",
            &spec.name,
            doc! {"v": 2, "key": {"_id": 1}, "name": "_id_"},
        );
        for index in &normalize::declared(spec).indexes {
            let mut listed: Document = doc! {"v": 2};
            listed.extend(index.to_document());
            server.seed_index("bench", &spec.name, listed);
        }
    }
}

fn check(uri: &str, specs: &[CollectionSpec]) -> (Outcome, String) {
    let mut console = Console::captured("");
    let outcome = mongo_schema_cli::run(
        ["mongo-schema", "check", "--uri", uri, "--format", "json"],
        Some(specs),
        &mut console,
    );
    (outcome, console.stdout_text() + &console.stderr_text())
}

fn main() {
    let specs = declared();
    let server = BlockingTestServer::start(TestServerOptions::default());
    seed(&server, &specs);
    let uri = server.uri_with_db("bench");

    // The check must find the deployment in sync, or the benchmark measures something else.
    let (outcome, text) = check(&uri, &specs);
    assert_eq!(outcome, Outcome::Clean, "{}", &text[..text.len().min(2000)]);

    let mut criterion = Criterion::default()
        .sample_size(10)
        .measurement_time(Duration::from_secs(20))
        .configure_from_args();
    criterion.bench_function("check 1000 collections x 6 indexes", |b| {
        b.iter(|| check(&uri, &specs).0)
    });
    criterion.final_summary();

    server.clear_commands();
    let start = Instant::now();
    let (outcome, _) = check(&uri, &specs);
    let wall = start.elapsed();
    assert_eq!(outcome, Outcome::Clean);
    let commands = server.commands();
    let mut by_name: Vec<(String, usize)> = Vec::new();
    for c in &commands {
        match by_name.iter_mut().find(|(n, _)| *n == c.name) {
            Some((_, n)) => *n += 1,
            None => by_name.push((c.name.clone(), 1)),
        }
    }
    let connections = commands
        .iter()
        .map(|c| c.connection_id)
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    println!("\n| check of {COLLECTIONS} collections x 6 indexes | value |");
    println!("|---|---|");
    println!(
        "| wall time (one run, after warm-up) | {:.0} ms |",
        wall.as_secs_f64() * 1000.0
    );
    println!("| round trips (all commands) | {} |", commands.len());
    for (name, n) in &by_name {
        println!("| `{name}` | {n} |");
    }
    println!("| connections used | {connections} |");
}
