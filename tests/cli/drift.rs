//! Drift cases through the driver, and sharded clusters.

use super::*;

/// Seeds `db` with a catalog file's collections and indexes as the server would hold them
/// (a build in progress as a build, not as a finished index).
fn seed_catalog(server: &TestServer, db: &str, catalog: &Catalog) {
    for entry in &catalog.collections {
        server.seed_collection(db, entry.clone());
    }
    for (name, indexes) in &catalog.indexes {
        for index in indexes {
            match (
                index.get_document("spec"),
                index.get_document("indexBuildInfo"),
            ) {
                (Ok(spec), Ok(info)) => {
                    server.seed_index_build(db, name, spec.clone(), info.clone())
                }
                _ => server.seed_index(db, name, index.clone()),
            }
        }
    }
    for (name, listed) in &catalog.search_indexes {
        for index in listed {
            server.seed_search_index(db, name, index.clone());
        }
    }
}

/// Every drift case of `diff_cases/` (each normalization rule, a same and a differs case) gives
/// the same report through the driver as from its snapshot file, and `-same` cases are in sync.
#[test]
fn every_drift_case_reads_the_same_through_the_driver() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("diff_cases");
    let mut cases: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("live.json").exists() && p.join("declared.json").exists())
        .collect();
    cases.sort();
    assert!(cases.len() >= 20, "{cases:?}");
    for case in cases {
        let name = case.file_name().unwrap().to_str().unwrap().to_owned();
        let declared = case.join("declared.json");
        let live = case.join("live.json");
        let server = BlockingTestServer::start(TestServerOptions::default());
        seed_catalog(&server, "shop", &Catalog::from_file(&live).unwrap());
        let declared = declared.to_str().unwrap();
        let (file_outcome, from_file) = run(&[
            "check",
            "--manifest",
            declared,
            "--catalog",
            live.to_str().unwrap(),
            "--format",
            "json",
        ]);
        let (driver_outcome, through_driver) = run_in(
            &[
                "check",
                "--manifest",
                declared,
                "--uri",
                &uri(&server),
                "--format",
                "json",
            ],
            "",
            Some(&server),
        );
        assert_eq!(through_driver, from_file, "{name}");
        assert_eq!(driver_outcome, file_outcome, "{name}");
        assert_ne!(driver_outcome, Outcome::Failed, "{name}: {through_driver}");
        if name.ends_with("-same") {
            assert_eq!(driver_outcome, Outcome::Clean, "{name}: {through_driver}");
        }
        assert_eq!(server.write_commands(), vec![], "{name}");
    }
}

#[test]
fn a_server_without_index_build_info_is_asked_again_without_it() {
    let server = server_with_example();
    server.inject(Failure::on("listIndexes").error(
        40415,
        "BSON field 'listIndexes.includeIndexBuildInfo' is an unknown field.",
    ));
    let (outcome, text) = run_in(
        &["check", "--manifest", MANIFEST, "--uri", &uri(&server)],
        "",
        Some(&server),
    );
    assert_eq!(outcome, Outcome::Findings, "{text}");
    let (_, from_file) = run(&["check", "--manifest", MANIFEST, "--catalog", LIVE]);
    assert_eq!(text, from_file);
    let flags: Vec<bool> = server
        .commands_named("listIndexes")
        .iter()
        .map(|c| c.body.get_bool("includeIndexBuildInfo").unwrap_or(false))
        .collect();
    assert!(flags.contains(&true) && flags.contains(&false), "{flags:?}");
}

const EVENTS_MANIFEST: &str = r#"{"collections": [{"name": "events", "options": {}, "indexes": [],
  "shardKey": {"key": {"user_id": "hashed"}}}]}"#;

fn events_entry() -> Document {
    doc! {"name": "events", "type": "collection", "options": {}, "info": {"readOnly": false},
    "idIndex": {"v": 2, "key": {"_id": 1}, "name": "_id_"}}
}

/// A `config.collections` entry as a 7.0 config server keeps it.
fn config_entry(key: Document) -> Document {
    doc! {"_id": "shop.events", "lastmodEpoch": bson::oid::ObjectId::from_bytes([1; 12]),
    "lastmod": bson::DateTime::from_millis(0), "timestamp": bson::Timestamp { time: 1, increment: 1 },
    "uuid": bson::Binary { subtype: bson::spec::BinarySubtype::Uuid, bytes: vec![7; 16] },
    "key": key, "unique": false, "noBalance": false}
}

#[test]
fn shard_keys_are_compared_from_a_catalog_file() {
    let dir = std::env::temp_dir().join(format!("mongo-schema-cli-shard-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let manifest = dir.join("manifest.json");
    std::fs::write(&manifest, EVENTS_MANIFEST).unwrap();
    for (name, key) in [
        ("same", doc! {"user_id": "hashed"}),
        ("differs", doc! {"user_id": 1}),
    ] {
        let catalog = Catalog {
            collections: vec![events_entry()],
            indexes: [(
                "events".to_owned(),
                vec![doc! {"v": 2, "key": {"_id": 1}, "name": "_id_"}],
            )]
            .into_iter()
            .collect(),
            shard_keys: [("events".to_owned(), config_entry(key))]
                .into_iter()
                .collect(),
            inconsistencies: Vec::new(),
            ..Catalog::default()
        };
        let file = dir.join(format!("{name}.json"));
        std::fs::write(&file, catalog.to_extjson()).unwrap();
        assert_eq!(Catalog::from_file(&file).unwrap(), catalog);
        let (outcome, text) = run(&[
            "check",
            "--manifest",
            manifest.to_str().unwrap(),
            "--catalog",
            file.to_str().unwrap(),
        ]);
        insta::assert_snapshot!(format!("shard_key_{name}"), text);
        let expected = if name == "same" {
            Outcome::Clean
        } else {
            Outcome::Findings
        };
        assert_eq!(outcome, expected, "{text}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn through_mongos_shard_keys_and_cross_shard_index_inconsistencies_are_read() {
    let options = TestServerOptions {
        quirks: mongo_schema_test_support::Quirks {
            mongos: true,
            ..Default::default()
        },
        ..TestServerOptions::default()
    };
    let server = BlockingTestServer::start(options);
    server.seed_collection("shop", events_entry());
    server.seed_index(
        "shop",
        "events",
        doc! {"v": 2, "key": {"_id": 1}, "name": "_id_"},
    );
    server.seed_collection(
        "config",
        doc! {"name": "collections", "type": "collection", "options": {}},
    );
    server.seed_documents(
        "config",
        "collections",
        [config_entry(doc! {"user_id": "hashed"})],
    );
    let dir = std::env::temp_dir().join(format!("mongo-schema-cli-mongos-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let manifest = dir.join("manifest.json");
    std::fs::write(&manifest, EVENTS_MANIFEST).unwrap();
    let manifest = manifest.to_str().unwrap();

    let (outcome, text) = run_in(
        &["check", "--manifest", manifest, "--uri", &uri(&server)],
        "",
        Some(&server),
    );
    assert_eq!(outcome, Outcome::Clean, "{text}");

    // Source: the manual's checkMetadataConsistency page (7.0): a cursor of
    // `{type, description, details}`; InconsistentIndex when shards disagree on an index.
    server.seed_reply(
        "checkMetadataConsistency",
        doc! {"cursor": {"id": 0_i64, "ns": "shop.$cmd.aggregate", "firstBatch": [{
            "type": "InconsistentIndex",
            "description": "Found an index of a sharded collection that is inconsistent between different shards",
            "details": {"namespace": "shop.events", "info": {"missingFromShards": ["shard02"]}},
        }]}},
    );
    let (outcome, text) = run_in(
        &["check", "--manifest", manifest, "--uri", &uri(&server)],
        "",
        Some(&server),
    );
    assert_eq!(outcome, Outcome::Findings, "{text}");
    insta::assert_snapshot!("mongos_inconsistent_index", text);
    assert_eq!(server.write_commands(), vec![]);
    std::fs::remove_dir_all(&dir).unwrap();
}
