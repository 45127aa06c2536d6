//! Transcripts of the `mongo-schema` command: the stdout, stderr and exit code of each command
//! and format, pinned with insta (`snapshots/cli__*.snap`). The live path runs the real `mongodb`
//! driver against the wire-protocol test server, which also records every command it receives.

use std::sync::Arc;

use bson::{Bson, Document, doc};
use mongo_schema_cli::catalog::Catalog;
use mongo_schema_cli::{Console, Outcome};
use mongo_schema_test_support::{
    BlockingTestServer, Failure, SchemaEvaluator, TestServer, TestServerOptions,
};

/// The example declarations and the snapshot shipped beside them (paths from this crate).
const MANIFEST: &str = "../examples/catalog/manifest.json";
const LIVE: &str = "../examples/catalog/live.json";

/// Runs the command in a captured console; returns the exit outcome and the transcript.
fn run_in(args: &[&str], input: &str, server: Option<&TestServer>) -> (Outcome, String) {
    let mut console = Console::captured(input);
    let mut argv = vec!["mongo-schema"];
    argv.extend_from_slice(args);
    let outcome = mongo_schema_cli::run(argv, None, &mut console);
    let mut text = format!(
        "exit: {}\n--- stdout\n{}--- stderr\n{}",
        outcome.code(),
        console.stdout_text(),
        console.stderr_text()
    );
    if let Some(server) = server {
        text = text.replace(&server.address().to_string(), "127.0.0.1:PORT");
    }
    (outcome, text)
}

fn run(args: &[&str]) -> (Outcome, String) {
    run_in(args, "", None)
}

/// The `$jsonSchema` evaluator the test server uses for audit's queries: ours.
struct LocalEvaluator;

impl SchemaEvaluator for LocalEvaluator {
    fn evaluate(&self, schema: &Document, document: &Document) -> Result<(), Document> {
        let validator = mongo_schema::eval::Validator::from_document(&doc! {"$jsonSchema": schema})
            .map_err(|e| doc! {"error": e.to_string()})?;
        let raw =
            bson::RawDocumentBuf::try_from(document).map_err(|e| doc! {"error": e.to_string()})?;
        let verdict = validator.evaluate(&raw);
        match verdict.details() {
            None => Ok(()),
            Some(details) => Err(details.clone()),
        }
    }
}

/// A test server holding the shipped snapshot in database `shop`, verbatim.
fn server_with_example() -> BlockingTestServer {
    let server = BlockingTestServer::start(TestServerOptions::default());
    server.set_schema_evaluator(Arc::new(LocalEvaluator));
    let catalog = Catalog::from_file(std::path::Path::new(LIVE)).unwrap();
    for entry in &catalog.collections {
        server.seed_collection("shop", entry.clone());
    }
    for (name, indexes) in &catalog.indexes {
        for index in indexes {
            server.seed_index("shop", name, index.clone());
        }
    }
    server
}

fn uri(server: &TestServer) -> String {
    server.uri_with_db("shop")
}

// ---- generate ----

#[test]
fn generate_prints_the_manifest() {
    let (outcome, text) = run(&["generate", "--manifest", MANIFEST]);
    assert_eq!(outcome, Outcome::Clean);
    insta::assert_snapshot!("generate_json", text);
}

#[test]
fn generate_prints_a_mongosh_script() {
    let (outcome, text) = run(&["generate", "--manifest", MANIFEST, "--format", "mongosh"]);
    assert_eq!(outcome, Outcome::Clean);
    insta::assert_snapshot!("generate_mongosh", text);
}

#[test]
fn generate_round_trips_its_own_manifest() {
    let dir = std::env::temp_dir().join(format!("mongo-schema-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("manifest.json");
    let out = out.to_str().unwrap();
    let (outcome, text) = run(&["generate", "--manifest", MANIFEST, "--out", out]);
    assert_eq!(outcome, Outcome::Clean, "{text}");
    let (_, first) = run(&["generate", "--manifest", MANIFEST]);
    let (_, second) = run(&["generate", "--manifest", out]);
    assert_eq!(first, second);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn generate_without_declarations_exits_2() {
    let (outcome, text) = run(&["generate"]);
    assert_eq!(outcome, Outcome::Failed);
    insta::assert_snapshot!("generate_without_declarations", text);
}

#[test]
fn bad_manifest_names_line_and_column_or_path() {
    let dir = std::env::temp_dir().join(format!("mongo-schema-cli-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let not_json = dir.join("not-json.json");
    std::fs::write(
        &not_json,
        "{\"collections\": [\n  {\"name\": \"orders\",}\n]}",
    )
    .unwrap();
    let wrong_shape = dir.join("wrong-shape.json");
    std::fs::write(
        &wrong_shape,
        r#"{"collections": [{"name": "orders", "indexes": {"a": 1}}]}"#,
    )
    .unwrap();
    for (name, path) in [("not_json", &not_json), ("wrong_shape", &wrong_shape)] {
        let (outcome, text) = run(&["generate", "--manifest", path.to_str().unwrap()]);
        assert_eq!(outcome, Outcome::Failed);
        let text = text.replace(dir.to_str().unwrap(), "DIR");
        insta::assert_snapshot!(format!("bad_manifest_{name}"), text);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---- lint ----

#[test]
fn lint_in_every_format() {
    for format in ["text", "json", "github"] {
        let (outcome, text) = run(&["lint", "--manifest", MANIFEST, "--format", format]);
        // Warnings and notes only: no declared document can pass 16 MiB with a bound.
        assert_eq!(outcome, Outcome::Clean);
        insta::assert_snapshot!(format!("lint_{format}"), text);
    }
}

// ---- usage ----

#[test]
fn usage_errors_exit_2_and_help_exits_0() {
    let (outcome, text) = run(&["frobnicate"]);
    assert_eq!(outcome, Outcome::Failed);
    insta::assert_snapshot!("usage_error", text);
    let (outcome, text) = run(&["--help"]);
    assert_eq!(outcome, Outcome::Clean);
    insta::assert_snapshot!("help", text);
}

// ---- snapshot (through the driver) ----

#[test]
fn snapshot_reproduces_the_server_catalog_verbatim_and_sends_no_write() {
    let server = server_with_example();
    let (outcome, text) = run_in(&["snapshot", "--uri", &uri(&server)], "", Some(&server));
    assert_eq!(outcome, Outcome::Clean, "{text}");
    let printed = text
        .split("--- stdout\n")
        .nth(1)
        .and_then(|rest| rest.split("--- stderr\n").next())
        .unwrap();
    let written = Catalog::from_extjson(printed).unwrap();
    let shipped = Catalog::from_file(std::path::Path::new(LIVE)).unwrap();
    assert_eq!(written, shipped);
    // Canonical Extended JSON keeps the stored numeric types: the legacy shell's doubles stay doubles.
    assert!(
        printed.contains(r#""maxLength": {"$numberDouble":"200.0"}"#)
            || printed.contains(r#""$numberDouble": "200.0""#),
        "{printed}"
    );
    assert_eq!(server.write_commands(), vec![]);
    let names = server
        .commands()
        .into_iter()
        .filter(|c| !c.is_monitoring())
        .map(|c| c.name)
        .collect::<Vec<_>>();
    assert_eq!(names[0], "listCollections");
    assert_eq!(names.iter().filter(|n| *n == "listIndexes").count(), 3);
}

#[test]
fn snapshot_to_a_file_reports_counts_on_stderr() {
    let server = server_with_example();
    let dir = std::env::temp_dir().join(format!("mongo-schema-cli-snap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("live.json");
    let (outcome, text) = run_in(
        &[
            "snapshot",
            "--uri",
            &uri(&server),
            "--out",
            out.to_str().unwrap(),
        ],
        "",
        Some(&server),
    );
    assert_eq!(outcome, Outcome::Clean);
    let text = text.replace(dir.to_str().unwrap(), "DIR");
    insta::assert_snapshot!("snapshot_to_file", text);
    let written = Catalog::from_file(&out).unwrap();
    assert_eq!(written.collections.len(), 3);
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---- could not check: exit 2, one clear message, no credentials ----

#[test]
fn credentials_never_appear_in_any_output() {
    let server = server_with_example();
    // The test server does not authenticate, so the driver's SCRAM handshake fails: the error
    // path is the one most likely to echo a connection string.
    let secret_uri = format!(
        "mongodb://ann:Sup3rS%40cret@{}/shop?directConnection=true&serverSelectionTimeoutMS=2000",
        server.address()
    );
    let (outcome, text) = run_in(
        &["snapshot", "--uri", secret_uri.as_str(), "--timeout", "5s"],
        "",
        Some(&server),
    );
    assert_eq!(outcome, Outcome::Failed);
    insta::assert_snapshot!("credentials_redacted", text);
    for args in [
        vec!["snapshot", "--uri", secret_uri.as_str(), "--timeout", "5s"],
        vec![
            "audit",
            "--manifest",
            MANIFEST,
            "--uri",
            secret_uri.as_str(),
            "--timeout",
            "5s",
        ],
        vec![
            "snapshot",
            "--uri",
            "mongodb://ann:Sup3rS%40cret@[::1",
            "--timeout",
            "5s",
        ],
    ] {
        let (_, text) = run_in(&args, "", Some(&server));
        assert!(!text.contains("Sup3rS"), "{text}");
        assert!(!text.contains("S@cret"), "{text}");
    }
    let (outcome, text) = run_in(
        &[
            "snapshot",
            "--uri",
            "mongodb://ann:Sup3rS%40cret@[::1",
            "--timeout",
            "5s",
        ],
        "",
        Some(&server),
    );
    assert_eq!(outcome, Outcome::Failed);
    assert!(text.contains("mongodb://ann:****@"), "{text}");
}

#[test]
fn unreachable_server_exits_2_with_the_cause() {
    // A port nobody listens on: bind one, then close it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let uri = format!("mongodb://127.0.0.1:{port}/shop?directConnection=true");
    let (outcome, text) = run(&["snapshot", "--uri", &uri, "--timeout", "1s"]);
    assert_eq!(outcome, Outcome::Failed);
    let text = text.replace(&port.to_string(), "PORT");
    assert!(text.contains("error: "), "{text}");
    assert!(
        !text.contains("Topology"),
        "driver internals leaked: {text}"
    );
    assert!(!text.contains("panicked"), "{text}");
}

#[test]
fn a_stalled_server_times_out_with_exit_2() {
    let server = server_with_example();
    server.inject(Failure::on("listCollections").stall(std::time::Duration::from_secs(5)));
    let (outcome, text) = run_in(
        &["snapshot", "--uri", &uri(&server), "--timeout", "500ms"],
        "",
        Some(&server),
    );
    assert_eq!(outcome, Outcome::Failed);
    insta::assert_snapshot!("snapshot_timeout", text);
}

#[test]
fn a_refused_command_exits_2_naming_the_server_error() {
    let server = server_with_example();
    server.inject(
        Failure::on("listIndexes")
            .always()
            .error(13, "not authorized on shop to execute command"),
    );
    let (outcome, text) = run_in(&["snapshot", "--uri", &uri(&server)], "", Some(&server));
    assert_eq!(outcome, Outcome::Failed);
    insta::assert_snapshot!("snapshot_unauthorized", text);
}

#[test]
fn no_database_named_exits_2() {
    let server = server_with_example();
    let (outcome, text) = run_in(&["snapshot", "--uri", &server.uri()], "", Some(&server));
    assert_eq!(outcome, Outcome::Failed);
    insta::assert_snapshot!("snapshot_without_database", text);
}

// ---- audit ----

fn seed_orders(server: &TestServer) {
    let id = |n: u8| Bson::ObjectId(bson::oid::ObjectId::from_bytes([n; 12]));
    let order = |n: u8, status: &str| {
        doc! {
            "_id": id(n), "user_id": id(100), "customer": {"id": id(100), "name": "Ann"},
            "items": [{"sku": "A-1", "name": "Mug", "price": bson::Decimal128::from_bytes([0; 16]), "qty": 1}],
            "total": bson::Decimal128::from_bytes([0; 16]), "status": status,
            "created_at": bson::DateTime::from_millis(1_700_000_000_000),
        }
    };
    server.seed_documents(
        "shop",
        "orders",
        [
            order(1, "PAID"),
            order(2, "CANCELLED"),
            order(3, "LOST"),
            order(4, "SHIPPED"),
        ],
    );
}

#[test]
fn audit_counts_and_explains_rejected_documents_in_every_format() {
    let server = server_with_example();
    seed_orders(&server);
    for format in ["text", "json", "github"] {
        server.clear_commands();
        let (outcome, text) = run_in(
            &[
                "audit",
                "--manifest",
                MANIFEST,
                "--uri",
                &uri(&server),
                "--format",
                format,
            ],
            "",
            Some(&server),
        );
        assert_eq!(outcome, Outcome::Findings, "{text}");
        insta::assert_snapshot!(format!("audit_{format}"), text);
        assert_eq!(server.write_commands(), vec![], "audit must not write");
    }
}

#[test]
fn audit_by_version_counts_each_version() {
    let server = server_with_example();
    seed_orders(&server);
    let (outcome, text) = run_in(
        &[
            "audit",
            "--manifest",
            MANIFEST,
            "--uri",
            &uri(&server),
            "--by-version",
            "status",
            "--sample",
            "0",
        ],
        "",
        Some(&server),
    );
    assert_eq!(outcome, Outcome::Findings, "{text}");
    insta::assert_snapshot!("audit_by_version", text);
}

// ---- check ----

/// The README's main job: the example declarations against the shipped snapshot, no server.
#[test]
fn check_example_against_shipped_snapshot_in_every_format() {
    for format in ["text", "json", "github"] {
        let (outcome, text) = run(&[
            "check",
            "--manifest",
            MANIFEST,
            "--catalog",
            LIVE,
            "--format",
            format,
        ]);
        // Drift: a missing index, a TTL changed in place, a validator difference, an extra index.
        assert_eq!(outcome, Outcome::Findings, "{text}");
        insta::assert_snapshot!(format!("check_{format}"), text);
    }
}

#[test]
fn check_through_the_driver_reads_the_same_as_the_snapshot_and_never_writes() {
    let server = server_with_example();
    let (outcome, through_driver) = run_in(
        &["check", "--manifest", MANIFEST, "--uri", &uri(&server)],
        "",
        Some(&server),
    );
    assert_eq!(outcome, Outcome::Findings);
    let (_, from_file) = run(&["check", "--manifest", MANIFEST, "--catalog", LIVE]);
    assert_eq!(through_driver, from_file);
    assert_eq!(server.write_commands(), vec![]);
}

/// `check` of the example manifest against a catalog file holding `content`, written in `dir`.
fn check_catalog_text(dir: &std::path::Path, file: &str, content: &str) -> (Outcome, String) {
    let path = dir.join(file);
    std::fs::write(&path, content).unwrap();
    run(&[
        "check",
        "--manifest",
        MANIFEST,
        "--catalog",
        path.to_str().unwrap(),
    ])
}

#[test]
fn bad_catalog_files_exit_2_with_the_location() {
    let dir = std::env::temp_dir().join(format!("mongo-schema-cli-cat-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases = [
        (
            "not_json",
            "{\"collections\": [\n  {\"name\": \"orders\"\n]}",
        ),
        ("no_indexes", r#"{"collections": [{"name": "orders"}]}"#),
        (
            "bad_entry",
            r#"{"collections": [{"name": "orders"}, {"name": 5}], "indexes": {}}"#,
        ),
        (
            "bad_number",
            r#"{"collections": [{"name": "orders", "options": {"max": {"$numberInt": "x"}}}], "indexes": {}}"#,
        ),
    ];
    for (name, content) in cases {
        let (outcome, text) = check_catalog_text(&dir, &format!("{name}.json"), content);
        assert_eq!(outcome, Outcome::Failed, "{text}");
        let text = text.replace(dir.to_str().unwrap(), "DIR");
        insta::assert_snapshot!(format!("check_bad_catalog_{name}"), text);
    }
    let (outcome, text) = run(&[
        "check",
        "--manifest",
        MANIFEST,
        "--catalog",
        "does-not-exist.json",
    ]);
    assert_eq!(outcome, Outcome::Failed);
    assert!(
        text.contains("cannot read catalog file does-not-exist.json"),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---- plan ----

#[test]
fn plan_in_every_format() {
    for format in ["text", "json", "mongosh"] {
        let (outcome, text) = run(&[
            "plan",
            "--manifest",
            MANIFEST,
            "--catalog",
            LIVE,
            "--format",
            format,
        ]);
        assert_eq!(outcome, Outcome::Findings);
        insta::assert_snapshot!(format!("plan_{format}"), text);
    }
    let (_, text) = run(&["plan", "--manifest", MANIFEST, "--catalog", LIVE, "--prune"]);
    insta::assert_snapshot!("plan_prune", text);
    let (_, text) = run(&[
        "plan",
        "--manifest",
        MANIFEST,
        "--catalog",
        LIVE,
        "--prune",
        "--hide",
    ]);
    insta::assert_snapshot!("plan_prune_hide", text);
    let (outcome, text) = run(&["plan", "--manifest", MANIFEST, "--catalog", LIVE, "--hide"]);
    assert_eq!(outcome, Outcome::Failed, "--hide needs --prune: {text}");
}

#[test]
fn plan_through_the_driver_shows_document_counts_and_never_writes() {
    let server = server_with_example();
    seed_orders(&server);
    let (outcome, text) = run_in(
        &["plan", "--manifest", MANIFEST, "--uri", &uri(&server)],
        "",
        Some(&server),
    );
    assert_eq!(outcome, Outcome::Findings);
    insta::assert_snapshot!("plan_driver", text);
    assert_eq!(server.write_commands(), vec![]);
}

// ---- apply ----

#[test]
fn apply_refuses_without_yes_off_a_terminal() {
    let server = server_with_example();
    let (outcome, text) = run_in(
        &["apply", "--manifest", MANIFEST, "--uri", &uri(&server)],
        "",
        Some(&server),
    );
    assert_eq!(outcome, Outcome::Failed);
    insta::assert_snapshot!("apply_without_yes", text);
    assert_eq!(server.write_commands(), vec![]);
}

fn run_interactive(args: &[&str], answer: &str, server: &TestServer) -> (Outcome, String) {
    let mut console = Console::captured(answer);
    console.interactive = true;
    let mut argv = vec!["mongo-schema"];
    argv.extend_from_slice(args);
    let outcome = mongo_schema_cli::run(argv, None, &mut console);
    let text = format!(
        "exit: {}\n--- stdout\n{}--- stderr\n{}",
        outcome.code(),
        console.stdout_text(),
        console.stderr_text()
    )
    .replace(&server.address().to_string(), "127.0.0.1:PORT");
    (outcome, text)
}

#[test]
fn apply_on_a_terminal_shows_the_plan_and_asks() {
    let server = server_with_example();
    let args = ["apply", "--manifest", MANIFEST, "--uri", &uri(&server)];
    let (outcome, text) = run_interactive(&args, "n\n", &server);
    assert_eq!(outcome, Outcome::Findings);
    insta::assert_snapshot!("apply_declined", text);
    assert_eq!(server.write_commands(), vec![]);
    let (outcome, text) = run_interactive(&args, "y\n", &server);
    // Without --prune the unowned index author_1 stays: drift remains, exit 1 as `check` says.
    assert_eq!(outcome, Outcome::Findings, "{text}");
    insta::assert_snapshot!("apply_confirmed", text);
}

#[test]
fn apply_twice_converges_and_the_second_run_changes_nothing() {
    let server = server_with_example();
    let args = [
        "apply",
        "--manifest",
        MANIFEST,
        "--uri",
        &uri(&server),
        "--yes",
        "--prune",
    ];
    let (outcome, text) = run_in(&args, "", Some(&server));
    assert_eq!(outcome, Outcome::Clean, "{text}");
    insta::assert_snapshot!("apply_yes_prune", text);
    server.clear_commands();
    let (outcome, text) = run_in(&args, "", Some(&server));
    assert_eq!(outcome, Outcome::Clean);
    insta::assert_snapshot!("apply_second_run", text);
    assert_eq!(server.write_commands(), vec![]);
    let (outcome, text) = run_in(
        &["check", "--manifest", MANIFEST, "--uri", &uri(&server)],
        "",
        Some(&server),
    );
    assert_eq!(outcome, Outcome::Clean, "{text}");
}

/// A failure injected at every step: apply stops there, reports done/failed/remaining, and a
/// second run finishes the job.
#[test]
fn apply_converges_after_a_failure_at_every_step() {
    let probe = server_with_example();
    let (_, plan_json) = run_in(
        &[
            "plan",
            "--manifest",
            MANIFEST,
            "--uri",
            &uri(&probe),
            "--prune",
            "--format",
            "json",
        ],
        "",
        Some(&probe),
    );
    let json = plan_json
        .split("--- stdout\n")
        .nth(1)
        .unwrap()
        .split("--- stderr\n")
        .next()
        .unwrap();
    let plan = mongo_schema::extjson::parse(json).unwrap();
    let steps: Vec<String> = plan
        .as_document()
        .unwrap()
        .get_array("steps")
        .unwrap()
        .iter()
        .map(|s| {
            let command = s.as_document().unwrap().get_document("command").unwrap();
            command.keys().next().unwrap().clone()
        })
        .collect();
    assert!(steps.len() >= 4, "{steps:?}");
    let failures = steps.iter().enumerate().flat_map(|(k, name)| {
        let nth = steps[..=k].iter().filter(|n| *n == name).count() as u64;
        [
            (
                k,
                false,
                Failure::on(name)
                    .nth(nth)
                    .error(11600, "interrupted at shutdown"),
            ),
            // The connection drops instead of a reply: the driver reports an I/O error.
            (k, true, Failure::on(name).nth(nth).close_connection()),
        ]
    });
    for (k, dropped, failure) in failures {
        let server = server_with_example();
        server.inject(failure);
        let args = [
            "apply",
            "--manifest",
            MANIFEST,
            "--uri",
            &uri(&server),
            "--yes",
            "--prune",
        ];
        let (outcome, text) = run_in(&args, "", Some(&server));
        assert_eq!(outcome, Outcome::Failed, "step {k}: {text}");
        let summary = format!(
            "apply: {k} done, 1 failed, {} remaining",
            steps.len() - k - 1
        );
        assert!(text.contains(&summary), "step {k}: {text}");
        if k == 1 && !dropped {
            insta::assert_snapshot!("apply_failed_at_step_2", text);
        }
        if k == 1 && dropped {
            insta::assert_snapshot!("apply_connection_lost_at_step_2", text);
        }
        server.clear_failures();
        let (outcome, text) = run_in(&args, "", Some(&server));
        assert_eq!(outcome, Outcome::Clean, "step {k} rerun: {text}");
        let (outcome, text) = run_in(
            &["check", "--manifest", MANIFEST, "--uri", &uri(&server)],
            "",
            Some(&server),
        );
        assert_eq!(outcome, Outcome::Clean, "step {k} check: {text}");
    }
}

// ---- drift cases through the driver ----

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

// ---- sharded clusters ----

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

// ---- the async API ----

#[test]
fn ensure_collections_creates_what_is_missing_and_never_drops() {
    let server = server_with_example();
    let declared = mongo_schema_cli::cmd::read_manifest(std::path::Path::new(MANIFEST)).unwrap();
    let db_uri = uri(&server);
    let (first, second) = server.runtime().block_on(async {
        let client = mongodb::Client::with_uri_str(&db_uri).await.unwrap();
        let db = client.database("shop");
        let first = mongo_schema_cli::converge::ensure_collections(&db, &declared)
            .await
            .unwrap();
        let second = mongo_schema_cli::converge::ensure_collections(&db, &declared)
            .await
            .unwrap();
        (first, second)
    });
    let summaries: Vec<&str> = first.done.iter().map(|s| s.summary.as_str()).collect();
    assert_eq!(
        summaries,
        [
            "set the validator",
            "build index user_id_1_status_1_created_at_-1",
            "set expireAfterSeconds of index deleted_at_1 to 2592000",
        ]
    );
    assert!(first.is_complete());
    assert_eq!(second.done, vec![], "a second call has nothing to do");
    assert!(server.commands_named("dropIndexes").is_empty());
    let names: Vec<String> = server
        .index_specs("shop", "articles")
        .iter()
        .map(|i| i.get_str("name").unwrap().to_owned())
        .collect();
    assert!(
        names.contains(&"author_1".to_owned()),
        "the unmanaged index stays: {names:?}"
    );
}

// ---- terminals ----

#[test]
fn colour_only_when_the_console_is_a_terminal() {
    let mut console = Console::captured("");
    console.colour = true;
    let outcome = mongo_schema_cli::run(
        [
            "mongo-schema",
            "check",
            "--manifest",
            MANIFEST,
            "--catalog",
            LIVE,
        ],
        None,
        &mut console,
    );
    assert_eq!(outcome, Outcome::Findings);
    let coloured = console.stdout_text();
    assert!(coloured.contains("\u{1b}[31m"), "{coloured}");
    let (_, plain) = run(&["check", "--manifest", MANIFEST, "--catalog", LIVE]);
    assert!(!plain.contains('\u{1b}'), "{plain}");
    // Same words either way.
    let stripped: String = {
        let mut out = String::new();
        let mut chars = coloured.chars();
        while let Some(c) = chars.next() {
            if c == '\u{1b}' {
                for c in chars.by_ref() {
                    if c == 'm' {
                        break;
                    }
                }
            } else {
                out.push(c);
            }
        }
        out
    };
    assert!(plain.contains(&stripped), "{stripped}");
}

// ---- catalogs pasted from mongosh ----

/// `printjson({collections: db.getCollectionInfos(), indexes: {...getIndexes()}})` prints shell
/// syntax, not JSON: unquoted keys, single quotes, `UUID('...')`, `Long('...')`. It reads the same.
#[test]
fn a_catalog_printed_by_mongosh_reads_like_the_json_one() {
    let dir = std::env::temp_dir().join(format!("mongo-schema-cli-sh-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let catalog = Catalog::from_file(std::path::Path::new(LIVE)).unwrap();
    let printed = mongo_schema_cli::render::mongosh::value(
        &Bson::Document(bson::Document::from_iter([
            (
                "collections".to_owned(),
                Bson::Array(
                    catalog
                        .collections
                        .iter()
                        .cloned()
                        .map(Bson::Document)
                        .collect(),
                ),
            ),
            (
                "indexes".to_owned(),
                Bson::Document(
                    catalog
                        .indexes
                        .iter()
                        .map(|(name, list)| {
                            (
                                name.clone(),
                                Bson::Array(list.iter().cloned().map(Bson::Document).collect()),
                            )
                        })
                        .collect(),
                ),
            ),
        ])),
        0,
    )
    // mongosh quotes with single quotes.
    .replace('"', "'");
    let file = dir.join("live.mongosh.txt");
    std::fs::write(&file, &printed).unwrap();
    assert_eq!(Catalog::from_file(&file).unwrap(), catalog);
    let (outcome, from_shell) = run(&[
        "check",
        "--manifest",
        MANIFEST,
        "--catalog",
        file.to_str().unwrap(),
    ]);
    let (_, from_json) = run(&["check", "--manifest", MANIFEST, "--catalog", LIVE]);
    assert_eq!(outcome, Outcome::Findings);
    assert_eq!(from_shell, from_json);

    std::fs::write(
        &file,
        "{\n  collections: [ { name: 'orders', options: Frob(1) } ],\n  indexes: {}\n}",
    )
    .unwrap();
    let (outcome, text) = run(&[
        "check",
        "--manifest",
        MANIFEST,
        "--catalog",
        file.to_str().unwrap(),
    ]);
    assert_eq!(outcome, Outcome::Failed);
    let text = text.replace(dir.to_str().unwrap(), "DIR");
    insta::assert_snapshot!("check_bad_mongosh_catalog", text);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn lint_errors_exit_1_and_refused_declarations_exit_2() {
    let dir = std::env::temp_dir().join(format!("mongo-schema-cli-lint-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // 50 notes of up to 100,000 code points: 4 bytes each in the worst case, 20 MB in all.
    let huge = dir.join("huge.json");
    std::fs::write(
        &huge,
        r#"{"collections": [{"name": "notes", "options": {"validator": {"$jsonSchema": {
            "bsonType": "object", "required": ["notes"], "properties": {
            "notes": {"bsonType": "array", "maxItems": 50,
                      "items": {"bsonType": "string", "maxLength": 100000}}}}}}}]}"#,
    )
    .unwrap();
    let (outcome, text) = run(&["lint", "--manifest", huge.to_str().unwrap()]);
    assert_eq!(outcome, Outcome::Findings, "{text}");
    insta::assert_snapshot!("lint_error", text);

    // The server refuses a TTL on a compound index: the manifest is refused before any check.
    let refused = dir.join("refused.json");
    std::fs::write(
        &refused,
        r#"{"collections": [{"name": "sessions", "options": {}, "indexes": [
            {"key": {"user_id": 1, "created_at": 1}, "expireAfterSeconds": 60}]}]}"#,
    )
    .unwrap();
    let (outcome, text) = run(&[
        "check",
        "--manifest",
        refused.to_str().unwrap(),
        "--catalog",
        LIVE,
    ]);
    assert_eq!(outcome, Outcome::Failed, "{text}");
    let text = text.replace(dir.to_str().unwrap(), "DIR");
    insta::assert_snapshot!("refused_manifest", text);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn apply_with_hide_hides_once_and_then_has_nothing_to_do() {
    let server = server_with_example();
    let args = [
        "apply",
        "--manifest",
        MANIFEST,
        "--uri",
        &uri(&server),
        "--yes",
        "--prune",
        "--hide",
    ];
    let (outcome, text) = run_in(&args, "", Some(&server));
    assert_eq!(outcome, Outcome::Clean, "{text}");
    assert!(text.contains("hide index author_1"), "{text}");
    let hidden = server
        .index_specs("shop", "articles")
        .into_iter()
        .find(|i| i.get_str("name").ok() == Some("author_1"))
        .expect("hidden, not dropped");
    assert_eq!(hidden.get_bool("hidden").ok(), Some(true));
    server.clear_commands();
    let (outcome, text) = run_in(&args, "", Some(&server));
    assert_eq!(outcome, Outcome::Clean, "{text}");
    assert_eq!(server.write_commands(), vec![], "{text}");
}

#[test]
fn list_indexes_calls_run_concurrently_within_the_bound() {
    let server = BlockingTestServer::start(TestServerOptions::default());
    let mut manifest = String::from(r#"{"collections": ["#);
    for i in 0..24 {
        server.seed_collection(
            "shop",
            doc! {"name": format!("c{i:02}"), "type": "collection", "options": {}},
        );
        server.seed_index(
            "shop",
            &format!("c{i:02}"),
            doc! {"v": 2, "key": {"_id": 1}, "name": "_id_"},
        );
        if i > 0 {
            manifest.push(',');
        }
        manifest.push_str(&format!(
            r#"{{"name": "c{i:02}", "options": {{}}, "indexes": []}}"#
        ));
    }
    manifest.push_str("]}");
    server.inject(
        Failure::on("listIndexes")
            .always()
            .stall(std::time::Duration::from_millis(100)),
    );
    let dir = std::env::temp_dir().join(format!("mongo-schema-cli-conc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("manifest.json");
    std::fs::write(&file, manifest).unwrap();
    for bound in ["1", "4"] {
        server.clear_commands();
        let (outcome, text) = run_in(
            &[
                "check",
                "--manifest",
                file.to_str().unwrap(),
                "--uri",
                &uri(&server),
                "--concurrency",
                bound,
            ],
            "",
            Some(&server),
        );
        assert_eq!(outcome, Outcome::Clean, "{text}");
        let peak = server.peak_in_flight("listIndexes");
        assert!(peak <= bound.parse().unwrap(), "bound {bound}, peak {peak}");
        if bound != "1" {
            assert!(peak > 1, "listIndexes calls did not overlap: peak {peak}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_audit_over_its_time_limit_exits_2_naming_the_limit() {
    let server = server_with_example();
    seed_orders(&server);
    server.inject(
        Failure::on("count")
            .nth(2)
            .error(50, "operation exceeded time limit"),
    );
    let (outcome, text) = run_in(
        &[
            "audit",
            "--manifest",
            MANIFEST,
            "--uri",
            &uri(&server),
            "--max-time",
            "2s",
        ],
        "",
        Some(&server),
    );
    assert_eq!(outcome, Outcome::Failed);
    insta::assert_snapshot!("audit_time_limit", text);
    let sent: Vec<i64> = server
        .commands_named("count")
        .iter()
        .map(|c| c.body.get("maxTimeMS").and_then(Bson::as_i64).unwrap_or(-1))
        .collect();
    assert!(sent.iter().all(|ms| *ms == 2000), "{sent:?}");
}

#[test]
fn lint_reports_index_and_shard_key_rules_and_honours_allow_unbounded() {
    let dir = std::env::temp_dir().join(format!("mongo-schema-cli-lint2-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let manifest = dir.join("events.json");
    std::fs::write(
        &manifest,
        r#"{"collections": [{"name": "events", "options": {"validator": {"$jsonSchema": {
            "bsonType": "object", "required": ["kind", "created_at"], "properties": {
            "kind": {"enum": ["click", "view"]}, "created_at": {"bsonType": "date"},
            "tags": {"bsonType": "array", "items": {"bsonType": "string", "maxLength": 20}}}}}},
          "indexes": [{"key": {"kind": 1}, "name": "kind_1"}],
          "shardKey": {"key": {"created_at": 1}}}]}"#,
    )
    .unwrap();
    let path = manifest.to_str().unwrap();
    let (outcome, text) = run(&["lint", "--manifest", path]);
    assert_eq!(outcome, Outcome::Clean, "warnings only: {text}");
    let text = text.replace(dir.to_str().unwrap(), "DIR");
    insta::assert_snapshot!("lint_rules", text);
    let (_, text) = run(&["lint", "--manifest", path, "--allow-unbounded", "tags"]);
    assert!(!text.contains("unbounded-array"), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---- validate (the module's own tests pin its output; here: wiring and exit codes) ----

#[test]
fn validate_is_wired_with_the_documented_exit_codes() {
    let dir = std::env::temp_dir().join(format!("mongo-schema-cli-val-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let schema = dir.join("schema.json");
    std::fs::write(
        &schema,
        r#"{"$jsonSchema": {"bsonType": "object", "required": ["status"],
            "properties": {"status": {"enum": ["PAID", "SHIPPED"]}}}}"#,
    )
    .unwrap();
    let good = dir.join("good.jsonl");
    std::fs::write(&good, "{\"_id\": 1, \"status\": \"PAID\"}\n").unwrap();
    let bad = dir.join("bad.jsonl");
    std::fs::write(
        &bad,
        "{\"_id\": 1, \"status\": \"PAID\"}\n{\"_id\": 2, \"status\": \"LOST\"}\n",
    )
    .unwrap();
    let schema = schema.to_str().unwrap();
    let (outcome, _) = run(&["validate", "--schema", schema, good.to_str().unwrap()]);
    assert_eq!(outcome, Outcome::Clean);
    let (outcome, _) = run(&["validate", "--schema", schema, bad.to_str().unwrap()]);
    assert_eq!(outcome, Outcome::Findings);
    let (outcome, text) = run(&[
        "validate",
        "--schema",
        "missing.json",
        good.to_str().unwrap(),
    ]);
    assert_eq!(outcome, Outcome::Failed);
    assert!(text.contains("missing.json"), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 16 item 4: a refused connection fails at once, naming the address and the reason, not
/// after `--timeout` (600 s here: were it waited for, this test would not finish).
#[test]
fn a_closed_port_fails_at_once_whatever_the_timeout() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let uri = format!("mongodb://127.0.0.1:{port}/shop");
    for command in ["snapshot", "audit"] {
        let mut args = vec![command, "--uri", &uri, "--timeout", "600s"];
        if command == "audit" {
            args.extend(["--manifest", MANIFEST]);
        }
        let (outcome, text) = run(&args);
        assert_eq!(outcome, Outcome::Failed, "{text}");
        assert!(
            text.contains(&format!("127.0.0.1:{port}: connection refused")),
            "{text}"
        );
        assert!(
            text.contains("a longer --timeout would not change this"),
            "{text}"
        );
    }
    let (outcome, text) = run(&[
        "snapshot",
        "--uri",
        "mongodb://no-such-host.invalid/shop",
        "--timeout",
        "600s",
    ]);
    assert_eq!(outcome, Outcome::Failed, "{text}");
    assert!(
        text.contains("no-such-host.invalid:27017: cannot resolve the host"),
        "{text}"
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

    /// Issue 16 item 3: whatever the scheme looks like (right, mistyped or missing), the
    /// password never appears in any output.
    #[test]
    fn no_password_is_printed_whatever_the_scheme(
        user in "[a-z][a-z0-9]{2,8}",
        password in "[A-Za-z0-9_~!*]{10,18}",
        scheme in proptest::sample::select(vec![
            "mongodb://", "mongodb:/", "mongodb//", "mongodb:", "", "mongodb+srv://",
            "mongodb+srv:/", "mongo://", "MongoDB://", "mongodb:///", "//",
        ]),
        tail in proptest::sample::select(vec!["/shop", "/shop?authSource=admin", "", "/"]),
    ) {
        let uri = format!("{scheme}{user}:{password}@127.0.0.1:1{tail}");
        for command in ["snapshot", "check", "audit"] {
            let mut args = vec![command, "--uri", &uri, "--timeout", "2s"];
            if command != "snapshot" {
                args.extend(["--manifest", MANIFEST]);
            }
            let (outcome, text) = run(&args);
            proptest::prop_assert_eq!(outcome, Outcome::Failed, "{}", text);
            proptest::prop_assert!(!text.contains(&password), "{}", text);
        }
    }
}

/// A schema file and a one-document input for `validate` runs, written once.
fn validate_inputs() -> &'static (String, String) {
    static FILES: std::sync::OnceLock<(String, String)> = std::sync::OnceLock::new();
    FILES.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("cli-args-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let schema = dir.join("schema.json");
        std::fs::write(&schema, r#"{"bsonType": "object"}"#).unwrap();
        let input = dir.join("in.jsonl");
        std::fs::write(&input, "{\"a\": 1}\n").unwrap();
        (
            schema.to_str().unwrap().to_owned(),
            input.to_str().unwrap().to_owned(),
        )
    })
}

/// A value for a numeric or duration flag: numbers of any size, with or without a unit, signed,
/// fractional, or any text at all.
fn flag_value() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    prop_oneof![
        "[0-9]{1,30}",
        "-?[0-9]{1,25}(\\.[0-9]{0,5})?(e[0-9]{1,4})?(ms|s|m|min|h|d|)",
        "\\PC{0,12}",
        Just("18446744073709551615".to_owned()),
        Just("99999999999999999999s".to_owned()),
        Just("NaN".to_owned()),
        Just("inf".to_owned()),
    ]
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(40))]

    /// Issue 16 item 5: no argument value makes any command panic; one its parser refuses is a
    /// usage error, exit 2, naming the flag.
    #[test]
    fn no_flag_value_panics_and_refused_values_exit_2(value in flag_value()) {
        let (schema, input) = validate_inputs();
        let closed = "mongodb://127.0.0.1:1/shop";
        let cases: Vec<(Vec<&str>, &str)> = vec![
            (vec!["check", "--manifest", MANIFEST, "--catalog", LIVE], "--timeout"),
            (vec!["check", "--manifest", MANIFEST, "--catalog", LIVE], "--concurrency"),
            (vec!["plan", "--manifest", MANIFEST, "--catalog", LIVE], "--timeout"),
            (vec!["snapshot", "--uri", closed], "--timeout"),
            (vec!["snapshot", "--uri", closed], "--concurrency"),
            (vec!["audit", "--manifest", MANIFEST, "--uri", closed], "--max-time"),
            (vec!["audit", "--manifest", MANIFEST, "--uri", closed], "--sample"),
            (vec!["audit", "--manifest", MANIFEST, "--uri", closed], "--timeout"),
            (vec!["apply", "--manifest", MANIFEST, "--uri", closed], "--timeout"),
            (vec!["explain", "--manifest", MANIFEST, "--uri", closed], "--max-time"),
            (vec!["validate", "--schema", schema, input], "--threads"),
            (vec!["validate", "--schema", schema, input], "--examples"),
        ];
        for (mut args, flag) in cases {
            let with_value = format!("{flag}={value}");
            args.push(&with_value);
            let (outcome, text) = run(&args);
            proptest::prop_assert!(!text.contains("panicked"), "{}", text);
            if text.contains("error: invalid value") {
                proptest::prop_assert_eq!(outcome, Outcome::Failed, "{}", text);
                proptest::prop_assert!(text.contains(flag), "{}", text);
            }
        }
    }
}

/// Issue 16 item 6: a run that exits 2 with `--format github` leaves an `::error` annotation,
/// for errors while running and for command lines clap refuses.
#[test]
fn github_format_annotates_a_run_that_could_not_check() {
    let closed = "mongodb://127.0.0.1:1/shop";
    for args in [
        vec![
            "check",
            "--manifest",
            "missing.json",
            "--catalog",
            LIVE,
            "--format",
            "github",
        ],
        vec![
            "audit",
            "--manifest",
            MANIFEST,
            "--uri",
            closed,
            "--format=github",
        ],
        vec![
            "lint",
            "--manifest",
            MANIFEST,
            "--format",
            "github",
            "--no-such-flag",
        ],
        vec![
            "validate",
            "--schema",
            "missing.json",
            "x.jsonl",
            "--format",
            "github",
        ],
    ] {
        let mut console = Console::captured("");
        let mut argv = vec!["mongo-schema"];
        argv.extend_from_slice(&args);
        let outcome = mongo_schema_cli::run(argv, None, &mut console);
        assert_eq!(outcome, Outcome::Failed);
        let out = console.stdout_text();
        let line = out.lines().last().unwrap_or_default();
        assert!(
            line.starts_with(&format!(
                "::error title=mongo-schema {} could not run::",
                args[0]
            )),
            "{out}"
        );
    }
    // Without github format, stdout stays empty on exit 2.
    let mut console = Console::captured("");
    let argv = [
        "mongo-schema",
        "check",
        "--manifest",
        "missing.json",
        "--catalog",
        LIVE,
    ];
    assert_eq!(
        mongo_schema_cli::run(argv, None, &mut console),
        Outcome::Failed
    );
    assert_eq!(console.stdout_text(), "");
}

/// Issue 16 item 12: `generate --check FILE` passes on the file `generate` wrote, fails with a
/// diff on a stale one, and exits 2 on one it cannot read.
#[test]
fn generate_check_compares_with_the_committed_file() {
    let dir = std::env::temp_dir().join(format!("generate-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let committed = dir.join("manifest.json");
    let path = committed.to_str().unwrap();
    let (outcome, text) = run(&["generate", "--manifest", MANIFEST, "--out", path]);
    assert_eq!(outcome, Outcome::Clean, "{text}");
    let (outcome, text) = run(&["generate", "--manifest", MANIFEST, "--check", path]);
    assert_eq!(outcome, Outcome::Clean, "{text}");
    assert!(text.contains("is up to date"), "{text}");

    let fresh = std::fs::read_to_string(&committed).unwrap();
    std::fs::write(
        &committed,
        fresh.replace("\"unique\": true", "\"unique\": false"),
    )
    .unwrap();
    let (outcome, text) = run(&["generate", "--manifest", MANIFEST, "--check", path]);
    assert_eq!(outcome, Outcome::Findings, "{text}");
    let removed = text
        .lines()
        .any(|l| l.starts_with('-') && l.contains("\"unique\": false"));
    let added = text
        .lines()
        .any(|l| l.starts_with('+') && l.contains("\"unique\": true"));
    assert!(removed && added, "{text}");
    assert!(text.contains("+++ generated"), "{text}");
    assert!(text.contains("is stale: regenerate it with"), "{text}");

    let missing = dir.join("missing.json");
    let (outcome, text) = run(&[
        "generate",
        "--manifest",
        MANIFEST,
        "--check",
        missing.to_str().unwrap(),
    ]);
    assert_eq!(outcome, Outcome::Failed, "{text}");
    assert!(text.contains("cannot read"), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 16 item 11: a catalog pasted with the shell's prompt, or shortened by the REPL, says
/// so and how to print the full form, instead of "expected '(' at line 6 column 53".
#[test]
fn a_mongosh_paste_with_a_prompt_or_shortened_output_says_so() {
    let dir = std::env::temp_dir().join(format!("mongo-schema-cli-paste-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, content, expected) in [
        (
            "prompt",
            "shop> printjson({collections: db.getCollectionInfos(), indexes: {}})\n{\n  collections: [ { name: 'orders', type: 'collection' } ],\n  indexes: {}\n}\n",
            "line 1 is a mongosh prompt (`shop>`)",
        ),
        (
            "shortened",
            "{\n  collections: [ { name: 'orders', options: { validator: { '$jsonSchema': [Object] } } } ],\n  indexes: {}\n}\n",
            "line 2: `[Object]` is mongosh's shortened display",
        ),
    ] {
        let (outcome, text) = check_catalog_text(&dir, &format!("{name}.txt"), content);
        assert_eq!(outcome, Outcome::Failed, "{text}");
        assert!(text.contains(expected), "{text}");
        assert!(
            text.contains("EJSON.stringify(<expression>, null, 2)"),
            "{text}"
        );
        assert!(!text.contains("expected '('"), "{text}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
