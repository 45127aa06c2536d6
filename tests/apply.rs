//! `plan` and `apply` through the wire-protocol test server: what they say when nothing needs to
//! run, how a step the server refuses or does not store is reported, and which steps still run
//! after one fails (issue 12, items 7, 10 and 11).

use bson::{Document, doc};
use mongo_schema_cli::{Console, Outcome};
use mongo_schema_test_support::{BlockingTestServer, Failure, Quirks, TestServerOptions};

/// Runs the command; returns the outcome and stdout + stderr.
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

/// Writes a manifest of these collections to a file of its own; returns its path.
fn manifest(test: &str, collections: bson::Bson) -> String {
    let path = std::env::temp_dir().join(format!(
        "mongo_schema_apply_{}_{test}.json",
        std::process::id()
    ));
    let text = bson::Bson::Document(doc! { "collections": collections })
        .into_relaxed_extjson()
        .to_string();
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_owned()
}

fn server(quirks: Quirks) -> BlockingTestServer {
    BlockingTestServer::start(TestServerOptions {
        quirks,
        ..TestServerOptions::default()
    })
}

fn uri(server: &BlockingTestServer) -> String {
    server.uri_with_db("shop")
}

fn index_names(server: &BlockingTestServer, collection: &str) -> Vec<String> {
    server
        .index_specs("shop", collection)
        .iter()
        .filter_map(|s: &Document| s.get_str("name").ok().map(str::to_owned))
        .collect()
}

// SERVER-FACTS "$jsonSchema: what the server accepts" (json_schema_parser.cpp): `format` is
// "not currently supported" and fails create with FailedToParse (9). No server can hold this
// declaration, so there is no drift verdict to give: exit 2, naming the keyword and collection.
#[test]
fn a_validator_the_servers_parser_rejects_is_exit_2_in_check_plan_and_apply() {
    let file = manifest(
        "format",
        bson::bson!([{ "name": "orders", "options": { "validator": { "$jsonSchema": {
            "bsonType": "object", "properties": { "email": { "bsonType": "string", "format": "email" } } } } } }]),
    );
    let server = server(Quirks::default());
    let uri = uri(&server);
    for command in ["check", "plan", "apply"] {
        let mut args = vec![command, "--manifest", &file, "--uri", &uri];
        if command == "apply" {
            args.push("--yes");
        }
        let (outcome, text) = run(&args);
        assert_eq!(outcome, Outcome::Failed, "{command}: {text}");
        assert!(
            text.contains("orders: validator: $jsonSchema.properties.email.format")
                && text.contains("not currently supported"),
            "{command}: {text}"
        );
        assert!(!text.contains("drift"), "{command}: {text}");
    }
    assert!(server.write_commands().is_empty());
    std::fs::remove_file(file).unwrap();
}

// Issue 12 item 10: with nothing to run but an unowned index kept, `plan` and `apply` say what is
// in sync and what is kept (and that --prune would drop it), and exit 1 as `check` does.
#[test]
fn nothing_to_run_with_an_unowned_index_is_not_reported_in_sync() {
    let file = manifest(
        "kept",
        bson::bson!([{ "name": "orders", "options": {}, "indexes": [{ "key": { "a": 1 }, "name": "a_1" }] }]),
    );
    let server = server(Quirks::default());
    server.execute("shop", doc! { "create": "orders" });
    server.execute(
        "shop",
        doc! { "createIndexes": "orders", "indexes": [{ "key": { "a": 1 }, "name": "a_1" }, { "key": { "b": 1 }, "name": "b_1" }] },
    );
    let uri = uri(&server);
    for command in ["plan", "apply"] {
        let mut args = vec![command, "--manifest", &file, "--uri", &uri];
        if command == "apply" {
            args.push("--yes");
        }
        let (outcome, text) = run(&args);
        assert_eq!(outcome, Outcome::Findings, "{command}: {text}");
        assert!(!text.contains("in sync:"), "{command}: {text}");
        assert!(!text.contains("nothing to do"), "{command}: {text}");
        assert!(
            text.contains("kept: index not declared: orders.b_1 (--prune would drop it)"),
            "{command}: {text}"
        );
        assert!(text.contains("drift remains"), "{command}: {text}");
    }
    assert!(
        server.write_commands().is_empty(),
        "nothing to run: nothing written"
    );
    // Once the index is gone, the same declaration is in sync and says so.
    server.execute("shop", doc! { "dropIndexes": "orders", "index": "b_1" });
    let (outcome, text) = run(&["plan", "--manifest", &file, "--uri", &uri]);
    assert_eq!(outcome, Outcome::Clean, "{text}");
    assert!(text.contains("in sync: orders"), "{text}");
    assert!(text.contains("plan: nothing to do, in sync"), "{text}");
    std::fs::remove_file(file).unwrap();
}

// Issue 12 item 11: SecantusDB 0.7.0b3 acknowledges `collMod {index: {hidden: true}}` without
// storing it. Read back, the step is failed, not done; every run says so instead of reporting
// success and planning the same step again unseen.
#[test]
fn a_hidden_flag_the_server_does_not_store_is_reported_failed() {
    let file = manifest(
        "hidden",
        bson::bson!([{ "name": "orders", "options": {}, "indexes": [{ "key": { "a": 1 }, "name": "a_1", "hidden": true }] }]),
    );
    let server = server(Quirks {
        hidden_not_persisted: true,
        ..Quirks::default()
    });
    server.execute("shop", doc! { "create": "orders" });
    server.execute(
        "shop",
        doc! { "createIndexes": "orders", "indexes": [{ "key": { "a": 1 }, "name": "a_1" }] },
    );
    let uri = uri(&server);
    for _ in 0..2 {
        let (outcome, text) = run(&["apply", "--manifest", &file, "--uri", &uri, "--yes"]);
        assert_eq!(outcome, Outcome::Failed, "{text}");
        assert!(
            text.contains("failed orders: hide index a_1: the server acknowledged it but did not store it: index a_1 is listed with hidden false, not true"),
            "{text}"
        );
        assert!(
            text.contains("apply: 0 done, 1 failed, 0 remaining"),
            "{text}"
        );
        assert!(!text.contains("done orders"), "{text}");
    }
    std::fs::remove_file(file).unwrap();
}

// Issue 12 item 11: a `create` option the server acknowledges and drops is a failed step.
#[test]
fn a_create_option_the_server_drops_is_reported_failed() {
    let file = manifest(
        "dropped",
        bson::bson!([{ "name": "orders", "options": { "validator": { "$jsonSchema": { "required": ["a"] } }, "validationAction": "warn" } }]),
    );
    let server = server(Quirks {
        dropped_collection_options: vec!["validationAction".to_owned()],
        ..Quirks::default()
    });
    let (outcome, text) = run(&[
        "apply",
        "--manifest",
        &file,
        "--uri",
        &uri(&server),
        "--yes",
    ]);
    assert_eq!(outcome, Outcome::Failed, "{text}");
    assert!(
        text.contains("failed orders: create collection orders: the server acknowledged it but did not store it: validationAction is listed as error, not warn"),
        "{text}"
    );
    std::fs::remove_file(file).unwrap();
}

// Issue 12 item 11: a step the server refuses for good (SecantusDB answers a text index with
// CannotCreateIndex, 67) is reported with the server's code and holds back only the steps that
// need it: other collections and other indexes still get theirs, and a failed create blocks the
// indexes of that collection.
#[test]
fn a_refused_step_blocks_only_the_steps_that_need_it() {
    let file = manifest(
        "independent",
        bson::bson!([
            { "name": "articles", "options": {}, "indexes": [{ "key": { "title": "text" }, "name": "title_text" }] },
            { "name": "orders", "options": {}, "indexes": [{ "key": { "a": 1 }, "name": "a_1" }] },
            { "name": "users", "options": {}, "indexes": [{ "key": { "email": 1 }, "name": "email_1" }] },
        ]),
    );
    let server = server(Quirks::default());
    server.inject(
        Failure::on("createIndexes")
            .matching(doc! { "createIndexes": "articles" })
            .error(67, "text indexes are not supported"),
    );
    server.inject(
        Failure::on("create")
            .matching(doc! { "create": "orders" })
            .error(72, "orders cannot be created here"),
    );
    let (outcome, text) = run(&[
        "apply",
        "--manifest",
        &file,
        "--uri",
        &uri(&server),
        "--yes",
    ]);
    assert_eq!(outcome, Outcome::Failed, "{text}");
    assert!(
        text.contains("failed articles: build indexes title_text on the new collection: text indexes are not supported (CannotCreateIndex, code 67)"),
        "{text}"
    );
    assert!(text.contains("code 72"), "{text}");
    assert!(
        text.contains("blocked orders: build indexes a_1 on the new collection: not run: it needs step 3 (orders: create collection orders)"),
        "{text}"
    );
    assert!(
        text.contains("apply: 3 done, 2 failed, 0 remaining, 1 blocked by a failed step"),
        "{text}"
    );
    assert_eq!(index_names(&server, "users"), ["_id_", "email_1"]);
    assert_eq!(index_names(&server, "articles"), ["_id_"]);
    assert!(
        !server
            .collection_names("shop")
            .contains(&"orders".to_owned())
    );
    // Once the server accepts them, a second run does the rest and only the rest.
    server.clear_failures();
    server.clear_commands();
    let (outcome, text) = run(&[
        "apply",
        "--manifest",
        &file,
        "--uri",
        &uri(&server),
        "--yes",
    ]);
    assert_eq!(outcome, Outcome::Clean, "{text}");
    assert!(
        text.contains("apply: 3 done, 0 failed, 0 remaining"),
        "{text}"
    );
    std::fs::remove_file(file).unwrap();
}

// An index the server still lists as building after createIndexes returned (SERVER-FACTS:
// "Index builds in progress are listed wrapped as {spec, indexBuildInfo}") was accepted: the
// read-back counts the step done, and `check` reports the build in progress, not drift.
#[test]
fn a_build_still_in_progress_after_create_indexes_is_done() {
    let file = manifest(
        "building",
        bson::bson!([{ "name": "orders", "options": {}, "indexes": [{ "key": { "a": 1 }, "name": "a_1" }] }]),
    );
    let server = server(Quirks {
        index_builds_in_progress: true,
        ..Quirks::default()
    });
    server.execute("shop", doc! { "create": "orders" });
    let uri = uri(&server);
    let (outcome, text) = run(&["apply", "--manifest", &file, "--uri", &uri, "--yes"]);
    assert_eq!(outcome, Outcome::Clean, "{text}");
    assert!(text.contains("done orders: build index a_1"), "{text}");
    let (outcome, text) = run(&["check", "--manifest", &file, "--uri", &uri]);
    assert_eq!(outcome, Outcome::Clean, "{text}");
    assert!(text.contains("index-build-in-progress"), "{text}");
    std::fs::remove_file(file).unwrap();
}

// A retryable-write error (here PrimarySteppedDown, 189) means the deployment changed under the
// run: nothing more is attempted, and the steps left are listed as remaining, not failed.
#[test]
fn a_stepped_down_primary_stops_the_run_with_the_rest_remaining() {
    let file = manifest(
        "stepdown",
        bson::bson!([
            { "name": "orders", "options": {} },
            { "name": "users", "options": {} },
        ]),
    );
    let server = server(Quirks::default());
    server.inject(Failure::on("create").error(189, "primary stepped down"));
    let (outcome, text) = run(&[
        "apply",
        "--manifest",
        &file,
        "--uri",
        &uri(&server),
        "--yes",
    ]);
    assert_eq!(outcome, Outcome::Failed, "{text}");
    assert!(
        text.contains("remaining users: create collection users"),
        "{text}"
    );
    assert!(
        text.contains("apply: 0 done, 1 failed, 1 remaining"),
        "{text}"
    );
    std::fs::remove_file(file).unwrap();
}
