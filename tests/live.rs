//! The CLI against a real MongoDB deployment: runs only when `MONGODB_URI` is set (the README's
//! CI recipe starts a `mongo` service container), and says it was skipped otherwise.
//!
//! Each test works in a database of its own, `mongo_schema_live_<pid>_<test>`, dropped at the end.
//!
//! What a server lacks is found out at run time, never by its name: a server that refuses a
//! text index (CannotCreateIndex, 67, as SecantusDB does) gets the example manifest without its
//! text index, and the test prints `skipped: server lacks text indexes`.

use bson::doc;
use mongo_schema_cli::{Console, Outcome};

const MANIFEST: &str = "../examples/catalog/manifest.json";

fn uri() -> Option<String> {
    match std::env::var("MONGODB_URI") {
        Ok(uri) if !uri.is_empty() => Some(uri),
        _ => {
            println!("skipped: MONGODB_URI not set");
            None
        }
    }
}

fn run(args: &[&str]) -> (Outcome, String) {
    let mut console = Console::captured("");
    let mut argv = vec!["mongo-schema"];
    argv.extend_from_slice(args);
    let outcome = mongo_schema_cli::run(argv, None, &mut console);
    (
        outcome,
        format!("{}{}", console.stdout_text(), console.stderr_text()),
    )
}

/// A database dropped when the test ends, pass or fail.
struct Scratch {
    uri: String,
    name: String,
}

impl Scratch {
    fn new(uri: &str, test: &str) -> Scratch {
        Scratch {
            uri: uri.to_owned(),
            name: format!("mongo_schema_live_{}_{test}", std::process::id()),
        }
    }

    fn command(&self, command: bson::Document) -> bson::Document {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        runtime.block_on(async {
            let client = mongodb::Client::with_uri_str(&self.uri).await.unwrap();
            client
                .database(&self.name)
                .run_command(command)
                .await
                .unwrap()
        })
    }
}

impl Scratch {
    /// Runs a command and returns the server's error code when it refuses it.
    fn try_command(&self, command: bson::Document) -> Result<bson::Document, i32> {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        runtime.block_on(async {
            let client = mongodb::Client::with_uri_str(&self.uri).await.unwrap();
            client
                .database(&self.name)
                .run_command(command)
                .await
                .map_err(|e| match *e.kind {
                    mongodb::error::ErrorKind::Command(ref c) => c.code,
                    _ => panic!("the server did not answer: {e}"),
                })
        })
    }

    /// The example manifest, without its text index when the server refuses text indexes
    /// (probed on a collection of its own, dropped after).
    fn manifest(&self) -> String {
        let probe = self.try_command(doc! {
            "createIndexes": "capability_probe",
            "indexes": [{"key": {"body": "text"}, "name": "body_text"}],
        });
        self.command(doc! {"drop": "capability_probe"});
        match probe {
            Ok(_) => MANIFEST.to_owned(),
            Err(code) => {
                println!(
                    "skipped: server lacks text indexes (createIndexes refused with code {code}): the example's text index is left out"
                );
                let text = std::fs::read_to_string(MANIFEST).unwrap();
                let mut manifest: serde_json::Value = serde_json::from_str(&text).unwrap();
                for collection in manifest["collections"].as_array_mut().unwrap() {
                    if let Some(indexes) = collection["indexes"].as_array_mut() {
                        indexes.retain(|i| {
                            !i["key"].as_object().unwrap().values().any(|v| v == "text")
                        });
                    }
                }
                let path = std::env::temp_dir().join(format!("{}_manifest.json", self.name));
                std::fs::write(&path, manifest.to_string()).unwrap();
                path.to_str().unwrap().to_owned()
            }
        }
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ =
            std::fs::remove_file(std::env::temp_dir().join(format!("{}_manifest.json", self.name)));
        self.command(doc! {"dropDatabase": 1});
    }
}

#[test]
fn apply_then_check_is_in_sync_and_a_changed_ttl_is_drift() {
    let Some(uri) = uri() else { return };
    let db = Scratch::new(&uri, "apply");
    let manifest = db.manifest();
    let base = ["--manifest", &manifest, "--uri", &uri, "--db", &db.name];

    let (outcome, text) = run(&[&["check"][..], &base].concat());
    assert_eq!(
        outcome,
        Outcome::Findings,
        "an empty database lacks everything: {text}"
    );

    let (outcome, text) = run(&[&["apply", "--yes"][..], &base].concat());
    assert_eq!(outcome, Outcome::Clean, "{text}");
    let (outcome, text) = run(&[&["check"][..], &base].concat());
    assert_eq!(
        outcome,
        Outcome::Clean,
        "the server's stored form must not read as drift: {text}"
    );
    let (outcome, text) = run(&[&["apply", "--yes"][..], &base].concat());
    assert_eq!(outcome, Outcome::Clean);
    assert!(text.contains("nothing to do"), "{text}");

    db.command(
        doc! {"collMod": "users", "index": {"name": "deleted_at_1", "expireAfterSeconds": 60}},
    );
    let (outcome, text) = run(&[&["check", "--format", "json"][..], &base].concat());
    assert_eq!(outcome, Outcome::Findings, "{text}");
    assert!(text.contains("expireAfterSeconds"), "{text}");
}

#[test]
fn snapshot_then_check_from_the_file_reads_like_the_server() {
    let Some(uri) = uri() else { return };
    let db = Scratch::new(&uri, "snapshot");
    let manifest = db.manifest();
    let base = ["--manifest", &manifest, "--uri", &uri, "--db", &db.name];
    let (outcome, text) = run(&[&["apply", "--yes"][..], &base].concat());
    assert_eq!(outcome, Outcome::Clean, "{text}");
    db.command(
        doc! {"createIndexes": "articles", "indexes": [{"key": {"author": 1}, "name": "author_1"}]},
    );

    let file = std::env::temp_dir().join(format!("{}.json", db.name));
    let (outcome, text) = run(&[
        "snapshot",
        "--uri",
        &uri,
        "--db",
        &db.name,
        "--out",
        file.to_str().unwrap(),
    ]);
    assert_eq!(outcome, Outcome::Clean, "{text}");
    let (live_outcome, live) = run(&[&["check"][..], &base].concat());
    let (file_outcome, from_file) = run(&[
        "check",
        "--manifest",
        &manifest,
        "--catalog",
        file.to_str().unwrap(),
    ]);
    assert_eq!(live_outcome, Outcome::Findings);
    assert_eq!(file_outcome, live_outcome);
    assert_eq!(from_file, live);
    std::fs::remove_file(&file).unwrap();
}

#[test]
fn check_and_audit_through_a_real_server_exit_as_documented() {
    let Some(uri) = uri() else { return };
    let db = Scratch::new(&uri, "audit");
    let manifest = db.manifest();
    let base = ["--manifest", &manifest, "--uri", &uri, "--db", &db.name];
    let (outcome, text) = run(&[&["apply", "--yes"][..], &base].concat());
    assert_eq!(outcome, Outcome::Clean, "{text}");
    // Written with validation bypassed, as documents that predate the validator would be.
    db.command(doc! {
        "insert": "orders",
        "documents": [{"status": "LOST"}],
        "bypassDocumentValidation": true,
    });
    let (outcome, text) = run(&[&["audit"][..], &base].concat());
    assert_eq!(outcome, Outcome::Findings, "{text}");
    assert!(text.contains("orders: 1 of 1 document rejected"), "{text}");
}

/// A hidden flag is stored (and `check` then reads in sync), or `apply` reports the step failed
/// as acknowledged but not stored: never "done" for a step that changed nothing (issue 12 item 11).
#[test]
fn a_hidden_index_is_stored_or_reported_as_not_stored() {
    let Some(uri) = uri() else { return };
    let db = Scratch::new(&uri, "hidden");
    db.command(doc! {"create": "events"});
    db.command(doc! {"createIndexes": "events", "indexes": [{"key": {"at": 1}, "name": "at_1"}]});
    let manifest = std::env::temp_dir().join(format!("{}_manifest.json", db.name));
    std::fs::write(
        &manifest,
        r#"{"collections": [{"name": "events", "options": {}, "indexes": [{"key": {"at": 1}, "name": "at_1", "hidden": true}]}]}"#,
    )
    .unwrap();
    let manifest = manifest.to_str().unwrap().to_owned();
    let base = ["--manifest", &manifest, "--uri", &uri, "--db", &db.name];
    let (outcome, text) = run(&[&["apply", "--yes"][..], &base].concat());
    if outcome == Outcome::Clean {
        assert!(text.contains("done events: hide index at_1"), "{text}");
        let (outcome, text) = run(&[&["check"][..], &base].concat());
        assert_eq!(outcome, Outcome::Clean, "{text}");
    } else {
        assert_eq!(outcome, Outcome::Failed, "{text}");
        assert!(
            text.contains(
                "failed events: hide index at_1: the server acknowledged it but did not store it"
            ),
            "{text}"
        );
        println!(
            "skipped: server lacks a stored hidden flag (collMod acknowledged, listIndexes unchanged)"
        );
    }
    std::fs::remove_file(&manifest).unwrap();
}

/// Runs the command with these declarations linked, as an application's binary would.
fn run_linked(specs: &[mongo_schema::spec::CollectionSpec], args: &[&str]) -> (Outcome, String) {
    let mut console = Console::captured("");
    let mut argv = vec!["mongo-schema"];
    argv.extend_from_slice(args);
    let outcome = mongo_schema_cli::run(argv, Some(specs), &mut console);
    (
        outcome,
        format!("{}{}", console.stdout_text(), console.stderr_text()),
    )
}

/// Every option and index kind SERVER-FACTS lists as stored by a server we did not write, applied
/// and read back: after `apply` (each step read back), `check` finds no drift, so the stored
/// forms (filled time-series defaults, the listed clustered index, collations expanded with
/// `version`, TTLs as Int64) read as what was declared.
#[test]
fn every_stored_option_and_index_kind_reads_back_in_sync() {
    use mongo_schema::spec::{
        Capped, ClusteredIndex, Collation, CollectionSpec, Granularity, TimeseriesOptions,
        ValidationAction, ValidationLevel, ValidatorSpec,
    };
    use mongo_schema::spec::{IndexKind::*, IndexSpec};
    let Some(uri) = uri() else { return };
    let db = Scratch::new(&uri, "stored");
    let specs = vec![
        CollectionSpec::new("readings")
            .timeseries(
                TimeseriesOptions::new("at")
                    .meta_field("sensor")
                    .granularity(Granularity::Minutes),
            )
            .expire_after_seconds(86_400),
        CollectionSpec::new("log").capped(Capped::size(1_048_576).max(1_000)),
        CollectionSpec::new("sessions")
            .clustered_index(ClusteredIndex::new())
            .expire_after_seconds(3_600),
        CollectionSpec::new("people")
            .validator(ValidatorSpec::from_document(&doc! {"$jsonSchema": {
                "bsonType": "object", "required": ["name"],
                "properties": {"name": {"bsonType": "string"}, "age": {"bsonType": "int", "minimum": 0}},
            }}))
            .validation_level(ValidationLevel::Moderate)
            .validation_action(ValidationAction::Warn)
            .index(IndexSpec::new([("name", Ascending)]))
            .index(IndexSpec::new([("email", Ascending)]).unique(true).sparse(true))
            .index(
                IndexSpec::new([("age", Descending)])
                    .partial_filter_expression(doc! {"age": {"$gt": 17}}),
            )
            .index(IndexSpec::new([("seen", Ascending)]).expire_after_seconds(600))
            .index(IndexSpec::new([("home", TwoDSphere)]))
            .index(IndexSpec::new([("tags.$**", Wildcard)]))
            .index(
                IndexSpec::new([("nick", Ascending)])
                    .name("nick_simple")
                    .collation(Collation::new("simple")),
            ),
    ];
    let mut specs = specs;
    let mut steps = 5;
    // The manual ("Collation: Indexes"): an index created without a collation on a collection
    // with one inherits it, and listIndexes lists it; a server that lists such an index without
    // a collation reads, by that rule, as holding a simple-collation index.
    db.command(doc! {"create": "collation_probe", "collation": {"locale": "fr", "strength": 2}});
    db.command(
        doc! {"createIndexes": "collation_probe", "indexes": [{"key": {"a": 1}, "name": "a_1"}]},
    );
    let listed = db.command(doc! {"listIndexes": "collation_probe"});
    db.command(doc! {"drop": "collation_probe"});
    let inherits = listed
        .get_document("cursor")
        .and_then(|c| c.get_array("firstBatch"))
        .unwrap()
        .iter()
        .filter_map(|i| i.as_document())
        .any(|i| i.get_str("name").ok() == Some("a_1") && i.contains_key("collation"));
    if inherits {
        specs.push(
            CollectionSpec::new("names")
                .collation(Collation::new("fr").strength(2))
                .index(IndexSpec::new([("name", Ascending)])),
        );
        steps += 2;
    } else {
        println!(
            "skipped: server lacks listing the collection's collation on an index that inherits it"
        );
    }
    let base = ["--uri", &uri, "--db", &db.name];
    let (outcome, text) = run_linked(&specs, &[&["apply", "--yes"][..], &base].concat());
    assert_eq!(
        outcome,
        Outcome::Clean,
        "every step stored as declared: {text}"
    );
    assert!(
        text.contains(&format!("apply: {steps} done, 0 failed, 0 remaining")),
        "{text}"
    );
    let (outcome, text) = run_linked(&specs, &[&["check"][..], &base].concat());
    assert_eq!(
        outcome,
        Outcome::Clean,
        "the stored forms read as declared: {text}"
    );
    let (outcome, text) = run_linked(&specs, &[&["apply", "--yes"][..], &base].concat());
    assert_eq!(outcome, Outcome::Clean, "{text}");
    assert!(text.contains("plan: nothing to do, in sync"), "{text}");
}

/// Issue 14 item 1 on a real server: a validator that rejects stored documents is classified as
/// tightening, its rejects are counted with `{$nor: [validator]}` by the server, and `apply`
/// sets it only with `--allow-tightening`.
#[test]
fn a_tightening_validator_is_counted_and_refused_until_allowed() {
    let Some(uri) = uri() else { return };
    let scratch = Scratch::new(&uri, "tighten");
    scratch.command(doc! {"create": "items"});
    scratch.command(doc! {"insert": "items", "documents": [
        {"_id": 1, "n": 5}, {"_id": 2, "n": -1}, {"_id": 3, "n": "x"},
    ]});
    let count = scratch.try_command(doc! {
        "count": "items",
        "query": {"$nor": [{"$jsonSchema": {"properties": {"n": {"bsonType": "int", "minimum": 0}}}}]},
    });
    let Ok(counted) = count else {
        println!(
            "skipped: server lacks $jsonSchema in a count query (refused with code {}): the tightening gate needs it",
            count.unwrap_err()
        );
        return;
    };
    assert_eq!(counted.get_i32("n").ok(), Some(2), "{counted:?}");
    let validator = mongo_schema::spec::ValidatorSpec::parse_document(&doc! {
        "$jsonSchema": {"properties": {"n": {"bsonType": "int", "minimum": 0}}},
    })
    .unwrap();
    let specs = [mongo_schema::spec::CollectionSpec::new("items").validator(validator)];
    let args = |extra: &[&'static str]| {
        let mut a = vec!["--uri", &uri, "--db", &scratch.name];
        a.extend_from_slice(extra);
        a
    };
    let mut plan = vec!["plan"];
    plan.extend(args(&[]));
    let (outcome, text) = run_linked(&specs, &plan);
    assert_eq!(outcome, Outcome::Findings, "{text}");
    assert!(text.contains("tightening"), "{text}");
    assert!(text.contains("2 stored documents fail it"), "{text}");
    let mut apply = vec!["apply"];
    apply.extend(args(&["--yes"]));
    let (outcome, text) = run_linked(&specs, &apply);
    assert_eq!(outcome, Outcome::Failed, "{text}");
    assert!(text.contains("refusing to apply"), "{text}");
    apply.push("--allow-tightening");
    let (outcome, text) = run_linked(&specs, &apply);
    assert_eq!(outcome, Outcome::Clean, "{text}");
    let mut check = vec!["check"];
    check.extend(args(&[]));
    let (outcome, text) = run_linked(&specs, &check);
    assert_eq!(outcome, Outcome::Clean, "{text}");
}

/// Issue 14 item 3 on a real server: `plan --prune` reads `$indexStats` for the index it would
/// drop; counters that started with the index (seconds ago) are younger than any window, so the
/// drop is kept with the evidence, and `--force` plans it.
#[test]
fn prune_keeps_an_index_whose_counters_are_too_young() {
    let Some(uri) = uri() else { return };
    let scratch = Scratch::new(&uri, "prune");
    scratch.command(doc! {"create": "items"});
    scratch.command(doc! {"createIndexes": "items", "indexes": [{"key": {"a": 1}, "name": "a_1"}]});
    let stats = scratch.try_command(doc! {
        "aggregate": "items", "pipeline": [{"$indexStats": {}}], "cursor": {},
    });
    if let Err(code) = stats {
        println!("skipped: server lacks $indexStats (refused with code {code}): prune evidence");
        return;
    }
    let specs = [mongo_schema::spec::CollectionSpec::new("items")];
    let db = scratch.name.clone();
    let plan = |extra: &[&str]| {
        let mut a = vec![
            "plan",
            "--prune",
            "--uri",
            &uri,
            "--db",
            &db,
            "--unused-for",
            "1d",
        ];
        a.extend_from_slice(extra);
        run_linked(&specs, &a)
    };
    let (_, text) = plan(&[]);
    assert!(!text.contains("drop index a_1"), "{text}");
    assert!(text.contains("index a_1: kept:"), "{text}");
    let (outcome, text) = plan(&["--force"]);
    assert_eq!(outcome, Outcome::Findings, "{text}");
    assert!(text.contains("drop index a_1"), "{text}");
    assert!(text.contains("forced past the usage evidence"), "{text}");
}
