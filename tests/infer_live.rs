//! `infer --uri`: a live collection read through the real driver from the wire-protocol test
//! server: the same source and proof as the same documents exported to a file, read-only
//! (`find` with `maxTimeMS`, or `$sample`), every collection of a database, and the time limit.

use std::path::PathBuf;

use bson::{Bson, Document, doc};
use mongo_schema_cli::{Console, Outcome};
use mongo_schema_test_support::{BlockingTestServer, Failure, TestServerOptions};

fn cli(args: &[&str]) -> (Outcome, String, String) {
    let mut console = Console::captured("");
    let mut argv = vec!["mongo-schema", "infer"];
    argv.extend_from_slice(args);
    let outcome = mongo_schema_cli::run(argv, None, &mut console);
    (outcome, console.stdout_text(), console.stderr_text())
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("infer-live-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// More documents than the first batch of a `find` (101), so `getMore` is exercised.
fn orders() -> Vec<Document> {
    (0..250)
        .map(|i: i32| {
            let status = ["new", "paid", "shipped"][(i % 3) as usize];
            let mut d = doc! {
                "_id": i,
                "status": status,
                "items": (0..(i % 4)).map(|q| doc! {"sku": format!("s{q}"), "qty": q}).collect::<Vec<_>>(),
                "total": f64::from(i) * 1.5,
            };
            if i % 10 == 0 {
                d.insert("note", "gift");
            }
            d
        })
        .collect()
}

fn events() -> Vec<Document> {
    (0..5_i64)
        .map(|i| doc! {"_id": i, "at": bson::DateTime::from_millis(i * 1000), "kind": "click"})
        .collect()
}

fn server() -> BlockingTestServer {
    let server = BlockingTestServer::start(TestServerOptions::default());
    for name in ["orders", "events"] {
        server.seed_collection(
            "shop",
            doc! {"name": name, "type": "collection", "options": {}},
        );
    }
    server.seed_collection(
        "shop",
        doc! {"name": "paid", "type": "view", "options": {"viewOn": "orders", "pipeline": [{"$match": {"status": "paid"}}]}},
    );
    server.seed_documents("shop", "orders", orders());
    server.seed_documents("shop", "events", events());
    server
}

fn bson_file(dir: &std::path::Path, name: &str, docs: &[Document]) -> PathBuf {
    let mut bytes = Vec::new();
    for d in docs {
        bytes.extend(bson::serialize_to_vec(d).unwrap());
    }
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn a_live_collection_reads_as_its_export_and_is_never_written() {
    let server = server();
    let uri = server.uri_with_db("shop");
    let (outcome, live, stderr) = cli(&["--uri", &uri, "--collection", "orders"]);
    assert_eq!(outcome, Outcome::Clean, "{stderr}");
    let dir = scratch("export");
    let file = bson_file(&dir, "orders.bson", &orders());
    let (_, exported, _) = cli(&[file.to_str().unwrap()]);
    // The same types; the live collection also declares its options (no validator yet).
    let declared = "#[mongo(\n    collection = \"orders\",\n    validator = false,\n)]";
    assert!(live.contains(declared), "{live}");
    assert_eq!(
        live.replace(declared, "#[mongo(collection = \"orders\")]"),
        exported
    );
    assert!(live.ends_with("accepts 250 of 250 documents\n"), "{live}");
    assert!(live.contains("pub note: Option<String>,"), "{live}");
    assert_eq!(server.write_commands(), vec![]);
    // The census and the proof each scan once, with the server-side limit on the cursor.
    let finds = server.commands_named("find");
    assert_eq!(finds.len(), 2);
    for find in &finds {
        assert_eq!(find.body.get("maxTimeMS"), Some(&Bson::Int64(600_000)));
    }
    assert!(!server.commands_named("getMore").is_empty());
}

#[test]
fn sample_reads_n_documents_with_dollar_sample_and_proves_those() {
    let server = server();
    let uri = server.uri_with_db("shop");
    let (outcome, out, stderr) = cli(&[
        "--uri",
        &uri,
        "--collection",
        "orders",
        "--sample",
        "40",
        "--max-time",
        "5s",
    ]);
    assert_eq!(outcome, Outcome::Clean, "{stderr}");
    assert!(out.ends_with("accepts 40 of 40 documents\n"), "{out}");
    // One $sample: a second would pick other documents, so the proof checks the ones kept.
    // (The catalog read beside it, `$listSearchIndexes`, is another aggregate.)
    let aggregates = server.aggregates_starting_with("$sample");
    assert_eq!(aggregates.len(), 1);
    let body = &aggregates[0].body;
    assert_eq!(
        body.get_array("pipeline").unwrap()[0],
        Bson::Document(doc! {"$sample": {"size": 40_i64}})
    );
    assert_eq!(body.get("maxTimeMS"), Some(&Bson::Int64(5_000)));
    assert!(server.commands_named("find").is_empty());
}

#[test]
fn a_whole_database_writes_one_file_per_collection_and_skips_views() {
    let server = server();
    let uri = server.uri_with_db("shop");
    let dir = scratch("db");
    let (outcome, out, stderr) = cli(&["--uri", &uri, "--out", dir.to_str().unwrap()]);
    assert_eq!(outcome, Outcome::Clean, "{stderr}");
    let mut written: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    assert_eq!(written, ["events.rs", "orders.rs"]);
    let events = std::fs::read_to_string(dir.join("events.rs")).unwrap();
    assert!(events.contains("pub at: bson::DateTime,"), "{events}");
    assert!(out.contains("// collection orders\n// proof: the validator these types derive accepts 250 of 250 documents\n"), "{out}");
    assert!(out.contains("// collection events\n"), "{out}");
    let (outcome, json, _) = cli(&["--uri", &uri, "--format", "json"]);
    assert_eq!(outcome, Outcome::Clean);
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    let names: Vec<&str> = report["collections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["collection"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["orders", "events"]);
}

#[test]
fn an_unknown_collection_and_an_expired_time_limit_are_clear_errors() {
    let server = server();
    let uri = server.uri_with_db("shop");
    let (outcome, _, stderr) = cli(&["--uri", &uri, "--collection", "nope"]);
    assert_eq!(outcome, Outcome::Failed);
    assert!(
        stderr.contains("shop.nope: no such collection (the database has orders, events)"),
        "{stderr}"
    );
    server.inject(
        Failure::on("find")
            .always()
            .stall(std::time::Duration::from_secs(2)),
    );
    let (outcome, _, stderr) = cli(&[
        "--uri",
        &uri,
        "--collection",
        "orders",
        "--max-time",
        "100ms",
    ]);
    assert_eq!(outcome, Outcome::Failed);
    assert!(
        stderr.contains("reading shop.orders") && stderr.contains("raise it with --max-time"),
        "{stderr}"
    );
}

/// Users whose indexes and options `infer` should declare: a compound index through a
/// camelCase rename, a unique partial index on an embedded field, a TTL and a hashed index, and
/// one on a field no document holds (left out with a note).
fn users() -> Vec<Document> {
    (0..30_i64)
        .map(|i| {
            doc! {
                "_id": i,
                "userId": i % 7,
                "status": if i % 2 == 0 { "active" } else { "gone" },
                "profile": {"email": format!("u{i}@example.com")},
                "tags": [{"slug": format!("t{}", i % 3)}],
                "createdAt": bson::DateTime::from_millis(i * 60_000),
                "type": "user",
            }
        })
        .collect()
}

fn users_server() -> BlockingTestServer {
    let server = BlockingTestServer::start(TestServerOptions::default());
    server.seed_collection(
        "shop",
        doc! {"name": "users", "type": "collection", "options": {}},
    );
    for index in [
        doc! {"v": 2, "key": {"_id": 1}, "name": "_id_"},
        doc! {"v": 2, "key": {"userId": 1, "status": 1, "createdAt": -1}, "name": "userId_1_status_1_createdAt_-1"},
        doc! {"v": 2, "key": {"profile.email": 1}, "name": "by_email", "unique": true,
        "partialFilterExpression": {"status": {"$eq": "active"}}},
        doc! {"v": 2, "key": {"createdAt": 1}, "name": "createdAt_1", "expireAfterSeconds": 86400},
        doc! {"v": 2, "key": {"tags.slug": "hashed", "type": 1}, "name": "tags.slug_hashed_type_1"},
        doc! {"v": 2, "key": {"legacy": 1}, "name": "legacy_1"},
    ] {
        server.seed_index("shop", "users", index);
    }
    server.seed_documents("shop", "users", users());
    server
}

/// The acceptance test for indexes and options: infer from the deployment, compile what
/// it wrote, and `check` those declarations against the same deployment: in sync, except the
/// index on a field no document holds, which infer reported instead of declaring.
#[test]
fn what_infer_declares_from_a_deployment_is_in_sync_with_it() {
    let server = users_server();
    let uri = server.uri_with_db("shop");
    let dir = scratch("declare");
    let out = dir.join("src");
    let (outcome, text, stderr) = cli(&[
        "--uri",
        &uri,
        "--collection",
        "users",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(outcome, Outcome::Clean, "{stderr}");
    assert!(text.ends_with("accepts 30 of 30 documents\n"), "{text}");
    let source = std::fs::read_to_string(out.join("users.rs")).unwrap();
    for expected in [
        "    validator = false,\n",
        "    index(keys(user_id, status, created_at = -1)),\n",
        "    index(keys(profile.email), name = \"by_email\", unique, partial = r#\"{\"status\":{\"$eq\":\"active\"}}\"#),\n",
        "    index(keys(created_at), ttl = 86400),\n",
        "    index(keys(tags.slug = \"hashed\", \"type\")),\n",
        "// note: index \"legacy_1\" not declared: \"legacy\" is not a field of the inferred types",
    ] {
        assert!(source.contains(expected), "{expected}\n{source}");
    }

    // The declarations, compiled: a crate printing the manifest of the inferred root type.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf();
    let check = root.join("target/infer-check");
    let krate = check.join("live-crate");
    std::fs::create_dir_all(krate.join("src")).unwrap();
    std::fs::write(krate.join("src/users.rs"), &source).unwrap();
    let ty = source
        .split("#[mongo(")
        .nth(1)
        .and_then(|rest| rest.split("pub struct ").nth(1))
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap();
    std::fs::write(
        krate.join("src/main.rs"),
        format!(
            "mod users;\nfn main() {{\n    let spec = <users::{ty} as mongo_schema::Collection>::collection_spec();\n    \
             print!(\"{{}}\", mongo_schema::manifest::Manifest::new(vec![spec]).to_json());\n}}\n"
        ),
    )
    .unwrap();
    std::fs::write(
        krate.join("Cargo.toml"),
        format!(
            "[package]\nname = \"infer-check-live\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
             [dependencies]\nmongo-schema = {{ path = {:?} }}\n\
             bson = {{ version = \"3.1\", features = [\"serde\", \"serde_json-1\"] }}\n\
             serde = {{ version = \"1\", features = [\"derive\"] }}\n\n[workspace]\n",
            root.join("schema-core").display().to_string()
        ),
    )
    .unwrap();
    std::fs::copy(root.join("Cargo.lock"), krate.join("Cargo.lock")).unwrap();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = std::process::Command::new(&cargo)
        .args(["run", "--offline", "--quiet", "--manifest-path"])
        .arg(krate.join("Cargo.toml"))
        // The target directory tests/infer.rs builds its crate in: dependencies built once.
        .env("CARGO_TARGET_DIR", check.join("target"))
        .env("CARGO_PROFILE_DEV_DEBUG", "0")
        .env_remove("RUSTFLAGS")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "the generated crate failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let manifest = dir.join("manifest.json");
    std::fs::write(&manifest, &output.stdout).unwrap();

    let mut console = Console::captured("");
    let argv = [
        "mongo-schema",
        "check",
        "--manifest",
        manifest.to_str().unwrap(),
        "--uri",
        &uri,
    ];
    let outcome = mongo_schema_cli::run(argv, None, &mut console);
    let report = console.stdout_text();
    // The one index infer could not declare is the only difference.
    assert_eq!(outcome, Outcome::Findings, "{report}");
    assert!(
        report.contains("index legacy_1: on the server, not declared")
            && report.contains("check: 1 difference in 1 collection: 1 extra-index"),
        "{report}"
    );
    assert_eq!(server.write_commands(), vec![]);
}

/// `MONGODB_URI` when set (CI's live step), else `None` with the reason printed.
fn live_uri() -> Option<String> {
    match std::env::var("MONGODB_URI") {
        Ok(uri) if !uri.is_empty() => Some(uri),
        _ => {
            println!("skipped: MONGODB_URI not set");
            None
        }
    }
}

/// Runs `command` on `db` of the deployment at `uri`; the server's code when it refuses.
fn live_command(uri: &str, db: &str, command: Document) -> Result<Document, String> {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let client = mongodb::Client::with_uri_str(uri).await.unwrap();
        client
            .database(db)
            .run_command(command)
            .await
            .map_err(|e| match *e.kind {
                mongodb::error::ErrorKind::Command(ref c) => {
                    format!("code {}: {}", c.code, c.message)
                }
                _ => panic!("the server did not answer: {e}"),
            })
    })
}

/// One aggregation per stage or operator `--server-side` uses, run on a one-document
/// collection; the first the server refuses, with its reply.
fn server_side_lacks(uri: &str, db: &str) -> Option<String> {
    let probes: [(&str, Document); 8] = [
        ("$replaceWith", doc! {"$replaceWith": {"v": "$$ROOT"}}),
        ("$set", doc! {"$set": {"t": {"$type": "$a"}}}),
        (
            "$objectToArray",
            doc! {"$set": {"kv": {"$objectToArray": "$$ROOT"}}},
        ),
        (
            "$unwind includeArrayIndex",
            doc! {"$unwind": {"path": "$xs", "includeArrayIndex": "i"}},
        ),
        (
            "$switch and $isArray",
            doc! {"$set": {"s": {"$switch": {"branches": [{"case": {"$isArray": "$xs"}, "then": {"$size": "$xs"}}], "default": null}}}},
        ),
        (
            "$strLenCP, $strLenBytes, $binarySize, $bsonSize",
            doc! {"$set": {"a": {"$strLenCP": "$s"}, "b": {"$strLenBytes": "$s"}, "c": {"$binarySize": "$s"}, "d": {"$bsonSize": "$$ROOT"}}},
        ),
        (
            "$group with $first, $min, $max",
            doc! {"$group": {"_id": {"p": ["$s"]}, "n": {"$sum": 1}, "f": {"$first": {"id": "$_id"}}, "lo": {"$min": "$s"}, "hi": {"$max": "$s"}}},
        ),
        (
            "$firstN",
            doc! {"$group": {"_id": null, "v": {"$firstN": {"input": "$s", "n": 2}}}},
        ),
    ];
    for (name, stage) in probes {
        let reply = live_command(
            uri,
            db,
            doc! {"aggregate": "probe", "pipeline": [stage], "cursor": {}},
        );
        if let Err(why) = reply {
            return Some(format!("{name} ({why})"));
        }
    }
    None
}

#[test]
fn server_side_agrees_with_a_full_scan_on_a_live_server() {
    let Some(uri) = live_uri() else { return };
    let db = format!("mongo_schema_infer_server_side_{}", std::process::id());
    let insert = |name: &str, docs: Vec<Document>| {
        live_command(&uri, &db, doc! {"insert": name, "documents": docs}).unwrap();
    };
    insert("probe", vec![doc! {"_id": 1, "s": "é", "xs": [1, 2]}]);
    let lacks = server_side_lacks(&uri, &db);
    if let Some(what) = &lacks {
        println!("skipped: server lacks {what}");
    } else {
        insert("orders", orders());
        insert("events", events());
        insert("users", users());
        let bins: Vec<Document> = (0..20_i32)
            .map(|i| {
                let subtype = [0_u8, 3, 4, 0x80][(i % 4) as usize];
                let b = bson::Binary {
                    subtype: subtype.into(),
                    bytes: vec![(i * 13 % 256) as u8; 16],
                };
                doc! {"_id": i, "b": b}
            })
            .collect();
        insert("bins", bins);
        // Three schema versions (the first without the field): versions counted server-side.
        let versioned: Vec<Document> = (0..12_i32)
            .map(|i| match i % 3 {
                0 => doc! {"_id": i, "name": format!("A B{i}")},
                1 => doc! {"_id": i, "name": format!("C{i}"), "schemaVersion": 1},
                _ => doc! {"_id": i, "first": "D", "last": format!("E{i}"), "schemaVersion": 2},
            })
            .collect();
        insert("versioned", versioned);
        for collection in ["orders", "events", "users", "bins", "versioned"] {
            let args = [
                "--uri",
                uri.as_str(),
                "--db",
                db.as_str(),
                "--collection",
                collection,
                "--format",
                "json",
            ];
            let (a, local, local_err) = cli(&args);
            let mut with = args.to_vec();
            with.push("--server-side");
            let (b, remote, err) = cli(&with);
            if err.contains("the server orders binary values otherwise than MongoDB") {
                // SecantusDB compares binaries by bytes before subtype.
                println!("skipped: server lacks MongoDB's order of binary values ({collection})");
                assert_eq!(b, Outcome::Failed);
                continue;
            }
            assert_eq!(
                (a, b),
                (Outcome::Clean, Outcome::Clean),
                "{local_err}\n{err}"
            );
            assert_eq!(remote, local, "{collection}");
        }
    }
    let _ = live_command(&uri, &db, doc! {"dropDatabase": 1});
}
