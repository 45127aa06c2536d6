//! `mongo-schema explain` through the wire-protocol test server: each declared query is sampled
//! (`aggregate` with `$match`/`$sample`) and explained (`explain` of a `find`, `executionStats`,
//! `maxTimeMS`); the server's replies are the ones recorded in `access_cases/*.json` from the
//! manual's documented output shape ("Explain Results"). Exit 0 when every query uses an index,
//! 1 on a collection scan or an over-examined query, 2 when the deployment cannot be reached.
//! Read-only: the server's recording shows no write command.

use std::path::Path;

use bson::{Bson, Document, doc, oid::ObjectId};
use mongo_schema::MongoSchema;
use mongo_schema::access::{self, QuerySpec};
use mongo_schema::spec::{Collection, CollectionSpec};
use mongo_schema_cli::{Console, Outcome};
use mongo_schema_test_support::{BlockingTestServer, TestServerOptions};
use serde::{Deserialize, Serialize};

/// An order, with the "my orders with this status" query its indexes serve.
#[derive(Debug, Serialize, Deserialize, MongoSchema)]
#[mongo(
    collection = "explain_orders",
    index(keys(user_id, status)),
    query(name = "by_user_status", eq(user_id, status))
)]
struct Order {
    #[serde(rename = "_id")]
    id: ObjectId,
    user_id: i32,
    status: String,
}

/// A second collection with a query, for runs where one query's explain goes wrong.
#[derive(Debug, Serialize, Deserialize, MongoSchema)]
#[mongo(
    collection = "explain_items",
    index(keys(sku)),
    query(name = "by_sku", eq(sku))
)]
struct Item {
    #[serde(rename = "_id")]
    id: ObjectId,
    sku: String,
}

/// The explain's default per-query time limit, `--max-time 10s`.
const MAX_TIME_MS: u32 = 10_000;

fn specs() -> Vec<CollectionSpec> {
    vec![Order::collection_spec()]
}

fn run(args: &[&str]) -> (Outcome, String) {
    run_with(&specs(), args)
}

fn run_with(specs: &[CollectionSpec], args: &[&str]) -> (Outcome, String) {
    let mut console = Console::captured("");
    let mut argv = vec!["mongo-schema", "explain"];
    argv.extend_from_slice(args);
    let outcome = mongo_schema_cli::run(argv, Some(specs), &mut console);
    let text = format!("{}{}", console.stdout_text(), console.stderr_text());
    (outcome, text)
}

fn the_query() -> QuerySpec {
    access::registered_queries().unwrap()["explain_orders"][0].clone()
}

fn the_order() -> Document {
    doc! { "_id": ObjectId::from_bytes([1; 12]), "user_id": 7, "status": "PAID" }
}

/// A server with one order, the sample every `$sample` returns.
fn server() -> BlockingTestServer {
    let server = BlockingTestServer::start(TestServerOptions::default());
    let ok = server.execute("shop", doc! { "create": "explain_orders" });
    assert_eq!(ok.get_f64("ok").ok(), Some(1.0), "{ok}");
    server.seed_documents("shop", "explain_orders", [the_order()]);
    server
}

/// Makes the server answer the query's explain with the recorded reply `case`.
fn seed_case(server: &BlockingTestServer, case: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("access_cases/{case}.json"));
    let value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let Ok(Bson::Document(reply)) = Bson::try_from(value["reply"].clone()) else {
        panic!("{case}: reply is not a document");
    };
    let command =
        access::explain_command("explain_orders", &the_query(), &the_order(), MAX_TIME_MS).unwrap();
    server.seed_explain(command.get_document("explain").unwrap().clone(), reply);
}

fn uri(server: &BlockingTestServer) -> String {
    server.uri()
}

#[test]
fn an_index_scan_passes_and_nothing_is_written() {
    let server = server();
    seed_case(&server, "ixscan-with-index");
    let uri = uri(&server);
    let (outcome, text) = run(&["--uri", &uri, "--db", "shop"]);
    assert_eq!(outcome, Outcome::Clean, "{text}");
    assert!(
        text.contains("ok: explain_orders.by_user_status: IXSCAN quantity_1"),
        "{text}"
    );
    assert!(text.contains("keys examined"), "{text}");
    assert!(server.write_commands().is_empty(), "explain is read-only");
    let explains = server.commands_named("explain");
    assert_eq!(explains.len(), 1);
    assert_eq!(
        explains[0].body.get_str("verbosity").ok(),
        Some("executionStats")
    );
    assert_eq!(
        explains[0].body.get_i64("maxTimeMS").ok(),
        Some(i64::from(MAX_TIME_MS))
    );
    let samples = server.commands_named("aggregate");
    assert_eq!(samples.len(), 1);
    assert!(samples[0].body.contains_key("maxTimeMS"));
}

#[test]
fn a_collection_scan_fails_with_exit_1() {
    // Without a recorded reply the test server plans a collection scan.
    let server = server();
    let uri = uri(&server);
    let (outcome, text) = run(&["--uri", &uri, "--db", "shop"]);
    assert_eq!(outcome, Outcome::Findings, "{text}");
    assert_eq!(outcome.code(), 1);
    assert!(
        text.contains("error: explain_orders.by_user_status: COLLSCAN"),
        "{text}"
    );
    assert!(server.write_commands().is_empty());
}

#[test]
fn an_over_examined_index_scan_fails_with_exit_1() {
    // The manual's SBE shape: an index on a low-selectivity prefix, 5000 fetched for 20.
    let server = server();
    seed_case(&server, "sbe-index-over-examined");
    let uri = uri(&server);
    let (outcome, text) = run(&["--uri", &uri, "--db", "shop", "--format", "json"]);
    assert_eq!(outcome, Outcome::Findings, "{text}");
    let json: serde_json::Value = serde_json::from_str(&text).expect("one JSON document");
    let query = &json["queries"][0];
    assert_eq!(query["query"], "by_user_status");
    assert_eq!(query["plan"]["access"], "indexScan");
    assert_eq!(query["plan"]["indexes"][0], "status_1");
    assert_eq!(query["plan"]["overExamined"], true);
    assert_eq!(query["finding"], true);
}

#[test]
fn an_in_memory_sort_is_reported() {
    let server = server();
    seed_case(&server, "sort-stage-in-memory");
    let uri = uri(&server);
    let (_, text) = run(&["--uri", &uri, "--db", "shop"]);
    assert!(text.contains("in-memory sort"), "{text}");
}

// Issue 16 item 7: every query skipped is a run that checked nothing: exit 2, saying so and how
// to give values, never a pass.
#[test]
fn an_empty_collection_checks_nothing_and_exits_2() {
    let server = BlockingTestServer::start(TestServerOptions::default());
    server.execute("shop", doc! { "create": "explain_orders" });
    let uri = uri(&server);
    let (outcome, text) = run(&["--uri", &uri, "--db", "shop"]);
    assert_eq!(outcome, Outcome::Failed, "{text}");
    assert!(
        text.contains("skipped: no document to sample values from"),
        "{text}"
    );
    assert!(
        text.contains("explain checked nothing: 1 query skipped, which is every declared query"),
        "{text}"
    );
    assert!(text.contains("--sample-values FILE"), "{text}");
    assert!(server.commands_named("explain").is_empty());
}

// Issue 16 item 7: values given for an empty collection are explained with.
#[test]
fn sample_values_explain_a_query_of_an_empty_collection() {
    let server = BlockingTestServer::start(TestServerOptions::default());
    server.execute("shop", doc! { "create": "explain_orders" });
    seed_case(&server, "ixscan-with-index");
    let file = std::env::temp_dir().join(format!("explain_values_{}.json", std::process::id()));
    std::fs::write(
        &file,
        r#"{"explain_orders": {"_id": {"$oid": "010101010101010101010101"}, "user_id": 7, "status": "PAID"}}"#,
    )
    .unwrap();
    let uri = uri(&server);
    let (outcome, text) = run(&[
        "--uri",
        &uri,
        "--db",
        "shop",
        "--sample-values",
        file.to_str().unwrap(),
    ]);
    std::fs::remove_file(&file).unwrap();
    assert_eq!(outcome, Outcome::Clean, "{text}");
    assert!(
        text.contains("ok: explain_orders.by_user_status: IXSCAN quantity_1"),
        "{text}"
    );
    let explains = server.commands_named("explain");
    assert_eq!(
        explains.len(),
        1,
        "the given values, as the recorded command has them"
    );
}

// Issue 12 item 13: a reply without the shape of an explain (here `queryPlanner` missing) leaves
// that query unexplained with the reason, and the other queries are still explained.
#[test]
fn a_reply_without_an_explains_shape_skips_that_query_only() {
    let server = server();
    server.execute("shop", doc! { "create": "explain_items" });
    let item = doc! { "_id": ObjectId::from_bytes([2; 12]), "sku": "A-1" };
    server.seed_documents("shop", "explain_items", [item.clone()]);
    let query = access::registered_queries().unwrap()["explain_items"][0].clone();
    let command = access::explain_command("explain_items", &query, &item, MAX_TIME_MS).unwrap();
    server.seed_explain(
        command.get_document("explain").unwrap().clone(),
        doc! { "ok": 1, "note": "not an explain" },
    );
    seed_case(&server, "ixscan-with-index");
    let uri = uri(&server);
    let specs = [Item::collection_spec(), Order::collection_spec()];
    let (outcome, text) = run_with(&specs, &["--uri", &uri, "--db", "shop"]);
    assert_eq!(outcome, Outcome::Clean, "{text}");
    assert!(
        text.contains("explain_items.by_sku: skipped: the explain reply was not understood"),
        "{text}"
    );
    assert!(
        text.contains("ok: explain_orders.by_user_status: IXSCAN quantity_1"),
        "{text}"
    );
    assert_eq!(server.commands_named("explain").len(), 2);
}

#[test]
fn an_unreachable_deployment_exits_2() {
    // A port nothing listens on: bind one, note it, close it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let uri = format!("mongodb://127.0.0.1:{port}/?serverSelectionTimeoutMS=500");
    let (outcome, text) = run(&["--uri", &uri, "--db", "shop", "--timeout", "3s"]);
    assert_eq!(outcome, Outcome::Failed, "{text}");
    assert_eq!(outcome.code(), 2);
}

/// Through a real server: the declared index built, one order stored, the query explained.
/// A server that plans the query without the index prints `skipped: server lacks ...` only
/// after the reply was read as a collection scan; an empty collection would check nothing.
#[test]
fn live_explain_against_mongodb_uri() {
    let Some(uri) = std::env::var("MONGODB_URI").ok().filter(|u| !u.is_empty()) else {
        println!("skipped: MONGODB_URI not set");
        return;
    };
    let db = format!("mongo_schema_explain_live_{}", std::process::id());
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let client = runtime
        .block_on(mongodb::Client::with_uri_str(&uri))
        .unwrap();
    let database = client.database(&db);
    runtime.block_on(async {
        let index = Order::collection_spec().indexes[0].to_document();
        database
            .run_command(doc! { "createIndexes": "explain_orders", "indexes": [index] })
            .await
            .unwrap();
        database
            .collection::<Document>("explain_orders")
            .insert_one(the_order())
            .await
            .unwrap();
    });
    let (outcome, text) = run(&["--uri", &uri, "--db", &db]);
    runtime.block_on(async { database.drop().await }).unwrap();
    assert!(text.contains("explain: 1 query,"), "{text}");
    assert!(!text.contains("skipped: no document"), "{text}");
    if text.contains("COLLSCAN") {
        assert_eq!(outcome, Outcome::Findings, "{text}");
        println!("skipped: server lacks planning an equality query on its compound index");
    } else {
        assert_eq!(outcome, Outcome::Clean, "{text}");
        assert!(
            text.contains("ok: explain_orders.by_user_status: IXSCAN user_id_1_status_1"),
            "{text}"
        );
    }
}

#[test]
fn github_format_annotates_each_unserved_query_and_the_count() {
    let server = server();
    let uri = uri(&server);
    let (outcome, text) = run(&["--uri", &uri, "--db", "shop", "--format", "github"]);
    assert_eq!(outcome, Outcome::Findings, "{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "::error title=mongo-schema explain%3A explain_orders.by_user_status::not served by an \
         index: COLLSCAN, keys examined 0, docs examined 1, returned 1",
        "{text}"
    );
    assert_eq!(
        lines.last().copied(),
        Some("::notice title=mongo-schema explain::explain: 1 query, 1 not served by an index"),
        "{text}"
    );
}

// Issue 12 item 13: an explain the server refuses leaves that query unexplained with the
// server's words and code; the other queries are still explained.
#[test]
fn an_explain_the_server_refuses_skips_that_query_only() {
    let server = server();
    server.execute("shop", doc! { "create": "explain_items" });
    let item = doc! { "_id": ObjectId::from_bytes([2; 12]), "sku": "A-1" };
    server.seed_documents("shop", "explain_items", [item]);
    seed_case(&server, "ixscan-with-index");
    // Collections are explained in name order: explain_items first.
    server.inject(
        mongo_schema_test_support::Failure::on("explain").error(2, "explain is not allowed here"),
    );
    let uri = uri(&server);
    let specs = [Item::collection_spec(), Order::collection_spec()];
    let (outcome, text) = run_with(&specs, &["--uri", &uri, "--db", "shop"]);
    assert_eq!(outcome, Outcome::Clean, "{text}");
    assert!(
        text.contains(
            "explain_items.by_sku: skipped: the server refused the explain: explain is not allowed here (BadValue, code 2)"
        ),
        "{text}"
    );
    assert!(
        text.contains("ok: explain_orders.by_user_status: IXSCAN quantity_1"),
        "{text}"
    );
}
