//! The schema-versioning example's whole life through the official driver against the
//! wire-protocol test server: version 1 stored, the v1|v2 validator planned (classified) and
//! applied, `migrate` (dry run, then for real), and the v2-only validator planned and applied;
//! plus `migrate` under injected failures (it resumes and converges) and beside a concurrent
//! writer (no lost update). docs/schema-evolution.md shows these transcripts.

use std::sync::Arc;
use std::time::Duration;

use bson::{Bson, Document, doc};
use mongo_schema::MongoSchema;
use mongo_schema::spec::{Collection, CollectionSpec, ValidatorSpec};
use mongo_schema::version::Versioned;
use mongo_schema_cli::{Console, Migration, Outcome};
use mongo_schema_examples::apps::schema_versioning::{EXAMPLE, User, UserV1, migrate};
use mongo_schema_test_support::{
    BlockingTestServer, Failure, SchemaEvaluator, TestServer, TestServerOptions,
};

/// The `$jsonSchema` evaluator the test server uses for validators and `$jsonSchema` filters:
/// ours.
struct LocalEvaluator;

impl SchemaEvaluator for LocalEvaluator {
    fn evaluate(&self, schema: &Document, document: &Document) -> Result<(), Document> {
        let validator = mongo_schema::eval::Validator::from_document(&doc! {"$jsonSchema": schema})
            .map_err(|e| doc! {"error": e.to_string()})?;
        let raw =
            bson::RawDocumentBuf::try_from(document).map_err(|e| doc! {"error": e.to_string()})?;
        match validator.evaluate(&raw).details() {
            None => Ok(()),
            Some(details) => Err(details.clone()),
        }
    }
}

const DB: &str = "app";

/// A server whose `users` collection has the v1|v2 validator (what is applied before
/// migrating) and `n` version 1 users.
fn server_with_v1_users(n: usize) -> BlockingTestServer {
    let both = User::collection_spec().validator.unwrap().to_document();
    server_with(both, n)
}

/// A server whose `users` collection has `validator` and `n` version 1 users (the even ones
/// without a version field, as the oldest were written).
fn server_with(validator: Document, n: usize) -> BlockingTestServer {
    let server = BlockingTestServer::start(TestServerOptions::default());
    server.set_schema_evaluator(Arc::new(LocalEvaluator));
    let reply = server.execute(DB, doc! { "create": "users", "validator": validator });
    assert_eq!(reply.get_f64("ok").ok(), Some(1.0), "{reply}");
    server.seed_documents(DB, "users", (0..n).map(v1_user));
    server
}

fn v1_user(i: usize) -> Document {
    let name = match i % 3 {
        0 => format!("Asha Rao {i}"),
        1 => format!("Cher{i}"),
        _ => format!("Lin Wei{i}"),
    };
    let mut d = doc! { "_id": format!("u_{i:03}"), "name": name };
    if i % 2 == 1 {
        d.insert("schemaVersion", 1);
    }
    d
}

fn migrations() -> [Migration; 1] {
    [Migration::of::<User>()]
}

/// Runs the example's binary with `args` (its declarations and its migration linked in).
fn run(server: &TestServer, args: &[&str]) -> (Outcome, String) {
    run_declaring(server, None, args)
}

/// As [`run`], declaring `declared` instead of the example's collections.
fn run_declaring(
    server: &TestServer,
    declared: Option<&[CollectionSpec]>,
    args: &[&str],
) -> (Outcome, String) {
    let mut console = Console::captured("");
    let uri = server.uri_with_db(DB);
    let mut argv = vec!["schema_versioning"];
    argv.extend_from_slice(args);
    argv.extend_from_slice(&["--uri", &uri]);
    let outcome = match declared {
        None => mongo_schema_examples::run_migrating(&EXAMPLE, &migrations(), argv, &mut console),
        Some(declared) => {
            mongo_schema_cli::run_with_migrations(argv, Some(declared), &migrations(), &mut console)
        }
    };
    let text = format!(
        "exit: {}\n--- stdout\n{}--- stderr\n{}",
        outcome.code(),
        console.stdout_text(),
        console.stderr_text()
    )
    .replace(&server.address().to_string(), "127.0.0.1:PORT");
    (outcome, text)
}

/// The declaration once the older versions are dropped: the version 2 branch only.
fn v2_only() -> CollectionSpec {
    let mut spec = User::collection_spec();
    let versions = spec
        .versions
        .as_mut()
        .expect("the example declares versions");
    versions.versions.truncate(1);
    spec.validator = Some(ValidatorSpec::json_schema(versions.current_only()));
    spec
}

fn users(server: &TestServer) -> Vec<Document> {
    server.documents(DB, "users")
}

fn outdated(server: &TestServer) -> Vec<Document> {
    users(server)
        .into_iter()
        .filter(|d| d.get("schemaVersion") != Some(&Bson::Int32(2)))
        .collect()
}

#[test]
fn the_whole_life_v1_then_both_then_migrate_then_v2_only() {
    let server = server_with(UserV1::root_schema().to_validator(), 3);

    // 1. v1 -> v1|v2: the plan classifies the new validator, and counts what it rejects.
    let (outcome, text) = run(&server, &["plan"]);
    assert_eq!(outcome, Outcome::Findings, "{text}");
    assert!(text.contains("validator: "), "{text}");
    insta::assert_snapshot!("life_1_plan_both_versions", text);
    let (outcome, text) = run(&server, &["apply", "--yes"]);
    assert_eq!(outcome, Outcome::Clean, "{text}");
    // Until migrate, the plan says how many documents hold the older version back.
    let (outcome, text) = run(&server, &["plan"]);
    assert_eq!(outcome, Outcome::Clean, "{text}");
    assert!(
        text.contains("next: users: 3 stored documents not at version 2 yet"),
        "{text}"
    );

    // 2. Before migrating, the v2-only validator rejects every stored user: apply refuses it.
    let declared = [v2_only()];
    let (outcome, text) = run_declaring(&server, Some(&declared), &["apply", "--yes"]);
    assert_eq!(outcome, Outcome::Failed, "{text}");
    assert!(
        text.contains("refusing to apply: users: the declared validator is tightening"),
        "{text}"
    );
    assert!(text.contains("3 stored documents fail it"), "{text}");
    insta::assert_snapshot!("life_2_v2_only_refused", text);
    assert!(
        server.commands_named("collMod").len() == 1,
        "only the first apply's collMod ran"
    );

    // 3. migrate --dry-run: counts and before/after pairs, nothing written.
    let before = users(&server);
    let (outcome, text) = run(&server, &["migrate", "--dry-run", "--samples", "2"]);
    assert_eq!(outcome, Outcome::Findings, "{text}");
    insta::assert_snapshot!("life_3_migrate_dry_run", text);
    assert_eq!(users(&server), before);
    assert!(server.commands_named("update").is_empty());

    // 4. migrate: every document rewritten, the proof, and the next step classified.
    let (outcome, text) = run(&server, &["migrate", "--batch", "2"]);
    assert_eq!(outcome, Outcome::Clean, "{text}");
    assert!(text.contains("proof: countDocuments"), "{text}");
    insta::assert_snapshot!("life_4_migrate", text);
    assert!(outdated(&server).is_empty());
    for stored in users(&server) {
        let raw = bson::RawDocumentBuf::try_from(&stored).unwrap();
        let user = User::from_any_version(&raw).unwrap();
        assert_eq!(bson::serialize_to_document(&user).unwrap(), stored);
    }
    let cher = users(&server)
        .into_iter()
        .find(|d| d.get_str("_id").ok() == Some("u_001"))
        .unwrap();
    assert_eq!(
        cher,
        doc! { "_id": "u_001", "firstName": "Cher1", "lastName": "", "schemaVersion": 2 }
    );

    // 4b. plan, the declaration unchanged: nothing to run, and the proposal to drop version 1,
    // classified against the declared validator and counted.
    let (outcome, text) = run(&server, &["plan"]);
    assert_eq!(outcome, Outcome::Clean, "{text}");
    assert!(
        text.contains("next: users: every stored document is version 2"),
        "{text}"
    );
    assert!(text.contains("tightening: e.g."), "{text}");
    assert!(text.contains("0 stored documents fail it"), "{text}");
    insta::assert_snapshot!("life_4b_plan_proposes_v2_only", text);
    let (_, json) = run(&server, &["plan", "--format", "json"]);
    let stdout = json
        .split("--- stdout\n")
        .nth(1)
        .and_then(|t| t.split("--- stderr").next())
        .expect("the run's stdout");
    let report: serde_json::Value = serde_json::from_str(stdout).expect("plan --format json");
    let proposal = &report["proposals"][0];
    assert_eq!(proposal["collection"], "users", "{json}");
    assert_eq!(proposal["validator"]["rejectedDocuments"], 0, "{json}");
    // The proposed validator is the one the v2-only declaration derives.
    let derived = v2_only().validator.unwrap().to_document();
    assert_eq!(
        proposal["command"]["validator"],
        mongo_schema::extjson::to_value(
            &derived.into(),
            mongo_schema::extjson::ExtJsonMode::Relaxed
        )
    );

    // 5. v1|v2 -> v2 only: still a tightening, and now no stored document fails it.
    let (outcome, text) = run_declaring(&server, Some(&declared), &["plan"]);
    assert_eq!(outcome, Outcome::Findings, "{text}");
    assert!(text.contains("tightening: e.g."), "{text}");
    insta::assert_snapshot!("life_5_plan_v2_only", text);
    let (outcome, text) = run_declaring(&server, Some(&declared), &["apply", "--yes"]);
    assert_eq!(outcome, Outcome::Clean, "{text}");
    let (outcome, text) = run_declaring(&server, Some(&declared), &["check"]);
    assert_eq!(outcome, Outcome::Clean, "{text}");
}

#[test]
fn migrate_stops_at_an_injected_failure_and_a_rerun_converges_without_rewriting_twice() {
    let server = server_with_v1_users(40);
    // The 9th rewrite fails (UnknownError, which no driver retries), then a later batch read.
    server.inject(Failure::on("update").nth(9).error(8, "injected failure"));
    let (outcome, text) = run(&server, &["migrate", "--batch", "7"]);
    assert_eq!(outcome, Outcome::Failed, "{text}");
    assert!(text.contains("migrated 8,"), "{text}");
    assert!(text.contains("injected failure"), "{text}");
    assert_eq!(outdated(&server).len(), 32);

    server.inject(Failure::on("find").nth(2).error(8, "injected failure"));
    let (outcome, text) = run(&server, &["migrate", "--batch", "7"]);
    assert_eq!(outcome, Outcome::Failed, "{text}");
    let left = outdated(&server).len();
    assert_eq!(
        left,
        32 - 7,
        "one batch was rewritten before the lost connection"
    );

    let updates_before = server.commands_named("update").len();
    let (outcome, text) = run(&server, &["migrate", "--batch", "7", "--rate", "100000"]);
    assert_eq!(outcome, Outcome::Clean, "{text}");
    assert!(text.contains(&format!("migrated {left},")), "{text}");
    assert!(outdated(&server).is_empty());
    // Each remaining document was rewritten once: nothing already current was read again.
    assert_eq!(server.commands_named("update").len() - updates_before, left);
    let (outcome, text) = run(&server, &["migrate"]);
    assert_eq!(outcome, Outcome::Clean, "{text}");
    assert!(text.contains("0 outdated documents"), "{text}");
}

#[test]
fn a_concurrent_writer_is_never_overwritten() {
    let server = server_with_v1_users(4);
    // migrate's first rewrite (u_000) waits a second at the server, after its batch was read;
    // meanwhile the application edits u_000 (still version 1) and migrates u_002 lazily.
    server.inject(Failure::on("update").stall(Duration::from_secs(1)));
    let server: &TestServer = &server;
    let (outcome, text) = std::thread::scope(|scope| {
        scope.spawn(|| {
            while server.commands_named("update").is_empty() {
                std::thread::sleep(Duration::from_millis(5));
            }
            let edit = doc! {
                "update": "users",
                "updates": [{ "q": { "_id": "u_000" }, "u": { "$set": { "name": "Asha Q Rao" } } }],
            };
            assert_eq!(server.execute(DB, edit).get_i32("nModified").ok(), Some(1));
            let lazy = migrate(&User::from(UserV1 {
                id: "u_002".into(),
                name: "Lin Wei2".into(),
            }));
            let lazy = doc! {
                "update": "users",
                "updates": [{ "q": lazy.filter, "u": lazy.update }],
            };
            assert_eq!(server.execute(DB, lazy).get_i32("nModified").ok(), Some(1));
        });
        run(server, &["migrate", "--batch", "10"])
    });
    assert_eq!(outcome, Outcome::Clean, "{text}");
    assert!(
        text.contains("changed by another writer between read and rewrite 2"),
        "{text}"
    );
    let asha = users(server)
        .into_iter()
        .find(|d| d.get_str("_id").ok() == Some("u_000"))
        .unwrap();
    // The edit survived: the retry read it and split the edited name.
    assert_eq!(asha.get_str("firstName").ok(), Some("Asha"));
    assert_eq!(asha.get_str("lastName").ok(), Some("Q Rao"));
    // The lazy migration's write stands as the application wrote it.
    let lin = users(server)
        .into_iter()
        .find(|d| d.get_str("_id").ok() == Some("u_002"))
        .unwrap();
    assert_eq!(
        lin,
        doc! { "_id": "u_002", "firstName": "Lin", "lastName": "Wei2", "schemaVersion": 2 }
    );
    assert!(outdated(server).is_empty());
}

#[test]
fn keep_going_reports_every_unreadable_document_and_exits_1() {
    let server = server_with_v1_users(5);
    // A version 1 document whose name is not a string: UserV1 cannot read it.
    server.seed_documents(
        DB,
        "users",
        [doc! { "_id": "u_bad", "name": 7, "schemaVersion": 1 }],
    );
    let (outcome, text) = run(&server, &["migrate"]);
    assert_eq!(outcome, Outcome::Failed, "{text}");
    assert!(text.contains("u_bad"), "{text}");
    assert!(text.contains("pass --keep-going"), "{text}");
    let (outcome, text) = run(&server, &["migrate", "--keep-going"]);
    assert_eq!(outcome, Outcome::Findings, "{text}");
    insta::assert_snapshot!("keep_going", text);
    assert_eq!(outdated(&server).len(), 1);
}

#[test]
fn migrate_without_a_linked_migration_says_how_to_link_one() {
    let server = server_with_v1_users(1);
    let mut console = Console::captured("");
    let uri = server.uri_with_db(DB);
    let outcome = mongo_schema_cli::run(
        ["mongo-schema", "migrate", "--uri", &uri],
        None,
        &mut console,
    );
    assert_eq!(outcome, Outcome::Failed);
    assert!(
        console
            .stderr_text()
            .contains("main!(my_app; migrate(my_app::User))")
    );
}

/// Against a real deployment when MONGODB_URI is set: a scratch database, the same life.
#[test]
fn live_migrate_converges_on_a_real_server() {
    let Ok(uri) = std::env::var("MONGODB_URI") else {
        eprintln!("skipped: MONGODB_URI not set");
        return;
    };
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let db_name = format!("mongo_schema_migrate_{}", std::process::id());
    let client = runtime
        .block_on(mongodb::Client::with_uri_str(&uri))
        .unwrap();
    let db = client.database(&db_name);
    runtime.block_on(async {
        db.drop().await.unwrap();
        db.create_collection("users")
            .validator(UserV1::root_schema().to_validator())
            .await
            .unwrap();
        db.collection::<Document>("users")
            .insert_many((0..25).map(v1_user))
            .await
            .unwrap();
    });
    // As in the life above: the v1|v2 validator first, or the v1 one refuses every rewrite.
    let live = |args: &[&str]| {
        let mut console = Console::captured("");
        let mut argv = vec!["schema_versioning"];
        argv.extend_from_slice(args);
        argv.extend_from_slice(&["--uri", &uri, "--db", &db_name]);
        let outcome =
            mongo_schema_examples::run_migrating(&EXAMPLE, &migrations(), argv, &mut console);
        let text = format!("{}{}", console.stdout_text(), console.stderr_text());
        assert_eq!(outcome, Outcome::Clean, "{text}");
        text
    };
    live(&["apply", "--yes"]);
    let migrated = live(&["migrate", "--batch", "4"]);
    assert!(migrated.contains("migrated 25,"), "{migrated}");
    assert!(migrated.contains("proof: countDocuments"), "{migrated}");
    assert!(
        migrated.contains("next: users: every stored document is version 2"),
        "{migrated}"
    );
    let left = runtime.block_on(async {
        let n = db
            .collection::<Document>("users")
            .count_documents(User::outdated_filter())
            .await
            .unwrap();
        db.drop().await.unwrap();
        n
    });
    assert_eq!(left, 0);
}

#[test]
fn apply_sets_a_rejecting_validator_only_with_allow_tightening_or_under_warn() {
    let server = server_with_v1_users(2);
    let strict = [v2_only()];
    let (outcome, text) = run_declaring(&server, Some(&strict), &["apply", "--yes"]);
    assert_eq!(outcome, Outcome::Failed, "{text}");
    assert!(server.commands_named("collMod").is_empty(), "{text}");

    // Declared with validationAction "warn": the plan sets both, and apply goes ahead.
    let (outcome, text) = run_declaring(&server, Some(&[v2_only_warn()]), &["plan"]);
    assert_eq!(outcome, Outcome::Findings, "{text}");
    assert!(
        text.contains("2 stored documents fail it: declare validationAction \"warn\" first"),
        "{text}"
    );
    let (outcome, text) = run_declaring(&server, Some(&[v2_only_warn()]), &["apply", "--yes"]);
    assert_eq!(outcome, Outcome::Clean, "{text}");

    // Back to "error" with the documents still outdated: refused again, unless asked for.
    let (outcome, text) = run_declaring(&server, Some(&strict), &["apply", "--yes"]);
    assert_eq!(outcome, Outcome::Failed, "{text}");
    let (outcome, text) = run_declaring(
        &server,
        Some(&strict),
        &["apply", "--yes", "--allow-tightening"],
    );
    assert_eq!(outcome, Outcome::Clean, "{text}");
}

fn v2_only_warn() -> CollectionSpec {
    let mut spec = v2_only();
    spec.validation_action = Some(mongo_schema::spec::ValidationAction::Warn);
    spec
}

#[test]
fn the_plan_classification_reads_in_json_and_mongosh() {
    let server = server_with_v1_users(3);
    let declared = [v2_only()];
    let (outcome, text) = run_declaring(&server, Some(&declared), &["plan", "--format", "json"]);
    assert_eq!(outcome, Outcome::Findings, "{text}");
    let json = text
        .split("--- stdout\n")
        .nth(1)
        .and_then(|t| t.split("--- stderr").next())
        .unwrap();
    let plan = mongo_schema::extjson::parse_document(json).unwrap();
    let step = plan.get_array("steps").unwrap()[0]
        .as_document()
        .unwrap()
        .clone();
    let validator = step.get_document("validator").unwrap();
    assert_eq!(validator.get_str("classification").ok(), Some("tightening"));
    // Relaxed Extended JSON reads the count back as the smallest integer type that holds it.
    assert_eq!(validator.get("rejectedDocuments"), Some(&Bson::Int32(3)));
    // The counterexample really is one: the live (v1|v2) validator accepts it, the declared
    // one rejects it.
    let witness = validator.get_document("counterexample").unwrap();
    let live = User::collection_spec();
    assert!(mongo_schema_examples::verdict(&live, witness).is_ok());
    assert!(mongo_schema_examples::verdict(&declared[0], witness).is_err());

    let (_, text) = run_declaring(&server, Some(&declared), &["plan", "--format", "mongosh"]);
    assert!(text.contains("// validator: tightening: e.g. {"), "{text}");
}

/// The plan's version counts are advice: a count the server refuses (or that runs out of
/// `maxTimeMS` on a large collection) becomes a proposal saying so, and the plan still runs.
#[test]
fn a_refused_version_count_is_said_and_the_plan_goes_on() {
    let server = server_with_v1_users(3);
    let (outcome, text) = run(&server, &["apply", "--yes"]);
    assert_eq!(outcome, Outcome::Clean, "{text}");
    server.inject(Failure::on("count").error(50, "operation exceeded time limit"));
    let (outcome, text) = run(&server, &["plan"]);
    assert_eq!(outcome, Outcome::Clean, "{text}");
    assert!(
        text.contains("next: users: the documents at older versions were not counted"),
        "{text}"
    );
    assert!(text.contains("in sync: users"), "{text}");
}
