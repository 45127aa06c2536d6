//! Declared access patterns across crates: query paths resolved through derived types, `lint`
//! over whole collections, explain replies recorded from the manual's documented shapes
//! (`access_cases/*.json`), and the explain round trip through the driver against the
//! wire-protocol test server (and a real server when `MONGODB_URI` is set).

use std::path::Path;

use bson::{Bson, Document, doc, oid::ObjectId};
use mongo_schema::Severity;
use mongo_schema::access::{
    self, AccessFinding, DEFAULT_MAX_TIME_MS, ExplainSummary, FindingKind, MultikeyPaths,
    PlanAccess, QuerySpec,
};
use mongo_schema::spec::CollectionSpec;
use mongo_schema::spec::{IndexKind::*, IndexSpec};
use mongo_schema::{MongoSchema, PathError};
use mongo_schema_test_support::{BlockingTestServer, TestServerOptions};
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Debug, Serialize, Deserialize, MongoSchema)]
struct Customer {
    #[serde(rename = "customerId")]
    id: ObjectId,
    name: String,
}

#[derive(Debug, Serialize, Deserialize, MongoSchema)]
struct Item {
    sku: String,
    qty: i32,
}

#[derive(Debug, Serialize, Deserialize, MongoSchema)]
#[serde(rename_all = "camelCase")]
struct Order {
    #[serde(rename = "_id")]
    id: ObjectId,
    user_id: ObjectId,
    customer: Customer,
    items: Vec<Item>,
    status: String,
    created_at: bson::DateTime,
    total: f64,
}

fn orders(indexes: impl IntoIterator<Item = IndexSpec>) -> CollectionSpec {
    let mut spec = CollectionSpec::new("orders").json_schema(Order::root_schema());
    for index in indexes {
        spec = spec.index(index);
    }
    spec
}

/// The orders queries, written with Rust field names.
fn order_queries() -> Result<Vec<QuerySpec>, PathError> {
    access::resolve_all::<Order>(&[
        QuerySpec::new("recent_of_user")
            .eq("user_id")
            .sort_key("-created_at")
            .range("total")
            .frequency("200/s"),
        QuerySpec::new("by_sku").eq("items.sku").eq("status"),
        QuerySpec::new("customer_totals")
            .eq("customer.id")
            .project(["total"])
            .without_id(),
    ])
}

fn order_indexes() -> Vec<IndexSpec> {
    vec![
        IndexSpec::new([
            ("userId", Ascending),
            ("createdAt", Descending),
            ("total", Ascending),
        ]),
        IndexSpec::new([("status", Ascending), ("items.sku", Ascending)]),
        IndexSpec::new([("customer.customerId", Ascending), ("total", Ascending)]),
    ]
}

#[test]
fn query_paths_resolve_through_serde_renames_embedded_documents_and_arrays() {
    let queries = order_queries().unwrap();
    assert_eq!(queries[0].equality, ["userId"]);
    assert_eq!(
        queries[0].sort,
        [("createdAt".to_owned(), access::Direction::Descending)]
    );
    assert_eq!(queries[1].equality, ["items.sku", "status"]);
    assert_eq!(queries[2].equality, ["customer.customerId"]);
    assert_eq!(
        queries[2].projection.as_ref().unwrap().fields,
        ["total"],
        "projection paths resolve too"
    );
    let by_id = QuerySpec::new("by_id").eq("id").resolve::<Order>().unwrap();
    assert_eq!(by_id.equality, ["_id"]);
}

#[test]
fn misspelled_query_path_is_a_path_error_with_suggestions() {
    let err = QuerySpec::new("q")
        .eq("customer.nmae")
        .resolve::<Order>()
        .unwrap_err();
    assert_eq!(err.segment, "nmae");
    assert!(err.candidates.contains(&"name"), "{err}");
    assert!(
        QuerySpec::new("q")
            .sort_asc("created")
            .resolve::<Order>()
            .is_err()
    );
}

#[test]
fn arrays_of_a_derived_schema_are_multikey() {
    let multikey = MultikeyPaths::from_collection(&orders([]));
    assert_eq!(multikey.iter().collect::<Vec<_>>(), ["items"]);
}

#[test]
fn declared_queries_pass_lint_and_fail_with_the_esr_index_when_one_is_removed() {
    let queries = order_queries().unwrap();
    let findings = access::lint(&orders(order_indexes()), &queries);
    assert!(!access::has_errors(&findings), "{findings:#?}");
    assert!(findings.is_empty(), "{findings:#?}");

    let mut fewer = order_indexes();
    fewer.remove(0);
    let findings = access::lint(&orders(fewer), &queries);
    assert!(access::has_errors(&findings));
    let error: Vec<&AccessFinding> = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .collect();
    assert_eq!(error.len(), 1);
    assert_eq!(error[0].query.as_deref(), Some("recent_of_user"));
    assert_eq!(
        error[0].to_string(),
        "error: orders: query \"recent_of_user\": no index serves it, the server scans the \
         collection; add the index { \"userId\": 1, \"createdAt\": -1, \"total\": 1 } (ESR order)"
    );
}

// Manual, "Multikey Indexes", Covered Queries: the same declaration with `items.sku` in the
// projection cannot be covered, because `items` holds arrays in the derived schema.
#[test]
fn projection_through_an_array_is_not_covered() {
    let query = QuerySpec::new("skus_by_status")
        .eq("status")
        .project(["items.sku"])
        .without_id()
        .resolve::<Order>()
        .unwrap();
    let findings = access::lint(&orders(order_indexes()), &[query]);
    assert!(
        findings
            .iter()
            .any(|f| matches!(f.kind, FindingKind::NotCovered { .. })),
        "{findings:#?}"
    );
    let none = access::lint_with(
        &orders(order_indexes()),
        &[QuerySpec::new("q")
            .eq("status")
            .project(["items.sku"])
            .without_id()],
        &MultikeyPaths::none(),
    );
    assert!(
        !none
            .iter()
            .any(|f| matches!(f.kind, FindingKind::NotCovered { .. })),
        "{none:#?}"
    );
}

// PATTERNS 8 (catalog, polymorphic on `type`) with a partial index per variant: manual,
// "Partial Indexes".
#[test]
fn polymorphic_queries_use_the_partial_index_of_their_variant() {
    let catalog = CollectionSpec::new("catalog")
        .index(IndexSpec::new([("title", Ascending)]))
        .index(
            IndexSpec::new([("level", Ascending), ("durationHrs", Ascending)])
                .name("courses_by_level")
                .partial_filter_expression(doc! { "type": "COURSE" }),
        );
    let courses = QuerySpec::new("courses_by_level")
        .eq("level")
        .range("durationHrs")
        .filter(doc! { "type": "COURSE" });
    let books = QuerySpec::new("books_by_level")
        .eq("level")
        .filter(doc! { "type": "BOOK" });
    let titles = QuerySpec::new("search_title").eq("title");
    let findings = access::lint(&catalog, &[courses.clone(), titles.clone()]);
    assert!(findings.is_empty(), "{findings:#?}");
    let findings = access::lint(&catalog, &[courses, books, titles]);
    let kinds: Vec<(Severity, &FindingKind)> =
        findings.iter().map(|f| (f.severity, &f.kind)).collect();
    assert!(
        matches!(
            kinds[..],
            [
                (Severity::Error, FindingKind::NoServingIndex { .. }),
                (
                    Severity::Warning,
                    FindingKind::PartialFilterNotImplied { .. }
                )
            ]
        ),
        "{findings:#?}"
    );
}

mongo_schema::__private::inventory::submit! {
    access::QueryRegistration::new("orders", order_queries)
}

#[test]
fn registered_queries_are_gathered_by_collection() {
    let registered = access::registered_queries().unwrap();
    let orders = &registered["orders"];
    assert_eq!(orders.len(), 3);
    assert_eq!(orders[2].equality, ["customer.customerId"]);
}

/// The example catalog's declared queries (`examples/catalog/manifest.json`), in stored names.
fn example_queries(collection: &str) -> Vec<QuerySpec> {
    match collection {
        "orders" => vec![
            QuerySpec::new("user_orders_by_status")
                .eq("user_id")
                .eq("status")
                .sort_desc("created_at")
                .frequency("50/s"),
        ],
        // PATTERNS 11: the unique email index holds only documents where `deleted_at` is null.
        "users" => vec![
            QuerySpec::new("login")
                .eq("email")
                .filter(doc! { "deleted_at": null }),
        ],
        _ => Vec::new(),
    }
}

#[test]
fn the_example_catalog_serves_its_queries_and_fails_without_its_index() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/catalog/manifest.json");
    let manifest =
        mongo_schema::manifest::Manifest::from_json(&std::fs::read_to_string(path).unwrap())
            .unwrap();
    for spec in &manifest.collections {
        let findings = access::lint(spec, &example_queries(&spec.name));
        assert!(findings.is_empty(), "{}: {findings:#?}", spec.name);
    }
    let mut orders = manifest
        .collections
        .iter()
        .find(|c| c.name == "orders")
        .unwrap()
        .clone();
    let removed = orders.indexes.remove(0);
    let findings = access::lint(&orders, &example_queries("orders"));
    assert!(access::has_errors(&findings));
    assert_eq!(
        findings[0].kind.suggested_index().unwrap().keys,
        removed.keys,
        "the suggestion is the index removed"
    );
    // "Partial Indexes": a login query that forgets the condition cannot use the index.
    let users = manifest
        .collections
        .iter()
        .find(|c| c.name == "users")
        .unwrap();
    let forgetful = QuerySpec::new("login").eq("email");
    let codes: Vec<&str> = access::lint(users, &[forgetful])
        .iter()
        .map(|f| f.kind.code())
        .collect();
    assert_eq!(codes, ["no-serving-index", "partial-filter-not-implied"]);
}

// ---- explain replies recorded from the manual ----

fn to_doc(v: &Value, what: &str) -> Document {
    match Bson::try_from(v.clone()) {
        Ok(Bson::Document(d)) => d,
        other => panic!("{what}: not an Extended JSON document: {other:?}"),
    }
}

fn access_name(access: PlanAccess) -> &'static str {
    match access {
        PlanAccess::IndexScan => "index scan",
        PlanAccess::CollectionScan => "collection scan",
        PlanAccess::Eof => "eof",
        _ => "unknown",
    }
}

fn summary_as_json(s: &ExplainSummary) -> Value {
    serde_json::json!({
        "access": access_name(s.access),
        "indexes": s.indexes,
        "in_memory_sort": s.in_memory_sort,
        "covered": s.covered,
        "keys_examined": s.keys_examined,
        "docs_examined": s.docs_examined,
        "n_returned": s.n_returned,
        "over_examined": s.is_over_examined(),
        "shards": s.shards,
    })
}

#[test]
fn explain_replies_in_the_manuals_documented_shapes() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("access_cases");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 9, "fixtures missing in {}", dir.display());
    let mut failures = Vec::new();
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let case: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            case["source"]
                .as_str()
                .is_some_and(|s| s.contains("manual")),
            "{name}: every case names the manual page it encodes"
        );
        let reply = to_doc(&case["reply"], &name);
        let got = match ExplainSummary::from_reply(&reply) {
            Ok(summary) => summary_as_json(&summary),
            Err(e) => Value::String(e.to_string()),
        };
        if got != case["expect"] {
            failures.push(format!(
                "{name}:\n  expected {}\n  got      {got}",
                case["expect"]
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---- explain through the driver ----

fn run(server: &BlockingTestServer, db: &str, command: Document) -> Document {
    let uri = server.uri();
    server.runtime().block_on(async move {
        let client = mongodb::Client::with_uri_str(&uri).await.unwrap();
        client.database(db).run_command(command).await.unwrap()
    })
}

fn sample(server: &BlockingTestServer, query: &QuerySpec) -> Option<Document> {
    let reply = run(
        server,
        "shop",
        access::sample_command("orders", query, DEFAULT_MAX_TIME_MS),
    );
    reply
        .get_document("cursor")
        .unwrap()
        .get_array("firstBatch")
        .unwrap()
        .first()
        .and_then(Bson::as_document)
        .cloned()
}

fn seeded_server() -> BlockingTestServer {
    let server = BlockingTestServer::start(TestServerOptions::default());
    let ok = server.execute("shop", doc! { "create": "orders" });
    assert_eq!(ok.get_f64("ok").ok(), Some(1.0), "{ok}");
    let user = ObjectId::from_bytes([7; 12]);
    server.seed_documents(
        "shop",
        "orders",
        (0..30).map(|i| {
            doc! {
                "userId": if i < 3 { user } else { ObjectId::new() },
                "status": "PAID",
                "createdAt": bson::DateTime::from_millis(1_700_000_000_000 + i),
                "total": f64::from(i as i32),
            }
        }),
    );
    server
}

#[test]
fn explain_round_trip_reads_the_servers_reply_and_never_writes() {
    let server = seeded_server();
    let query = order_queries().unwrap().remove(0);
    let filter_doc = sample(&server, &query).expect("a matching document");
    let command =
        access::explain_command("orders", &query, &filter_doc, DEFAULT_MAX_TIME_MS).unwrap();
    let find = command.get_document("explain").unwrap().clone();

    // Without a canned reply the test server plans a collection scan of all 30 documents.
    let reply = run(&server, "shop", command.clone());
    let summary = ExplainSummary::from_reply(&reply).unwrap();
    assert_eq!(summary.access, PlanAccess::CollectionScan);
    assert_eq!(summary.docs_examined, Some(30));

    // With the reply a server gives when the ESR index exists: an index scan, no sort stage.
    let recorded = to_doc(
        &serde_json::from_str::<Value>(
            &std::fs::read_to_string(
                Path::new(env!("CARGO_MANIFEST_DIR")).join("access_cases/ixscan-with-index.json"),
            )
            .unwrap(),
        )
        .unwrap()["reply"],
        "ixscan-with-index",
    );
    server.seed_explain(find.clone(), recorded);
    let summary = ExplainSummary::from_reply(&run(&server, "shop", command)).unwrap();
    assert_eq!(summary.access, PlanAccess::IndexScan);
    assert_eq!(summary.index(), Some("quantity_1"));
    assert!(!summary.in_memory_sort && !summary.is_over_examined());

    assert!(server.write_commands().is_empty(), "explain is read-only");
    let explains = server.commands_named("explain");
    assert_eq!(explains.len(), 2);
    for recorded in explains {
        assert_eq!(
            recorded.body.get_str("verbosity").ok(),
            Some("executionStats")
        );
        assert_eq!(
            recorded.body.get_i64("maxTimeMS").ok(),
            Some(i64::from(DEFAULT_MAX_TIME_MS))
        );
        assert_eq!(recorded.body.get_document("explain").ok(), Some(&find));
    }
}

#[test]
fn a_query_no_document_can_match_samples_nothing() {
    let server = seeded_server();
    let query = QuerySpec::new("refunds")
        .eq("userId")
        .filter(doc! { "status": "REFUNDED" });
    assert_eq!(sample(&server, &query), None);
}

// ---- a real server ----

#[test]
fn live_explain_confirms_the_esr_index() {
    let Some(uri) = std::env::var("MONGODB_URI").ok().filter(|u| !u.is_empty()) else {
        println!("skipped: MONGODB_URI not set");
        return;
    };
    let db_name = format!("mongo_schema_live_{}_access", std::process::id());
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let client = mongodb::Client::with_uri_str(&uri).await.unwrap();
        let db = client.database(&db_name);
        let index = order_indexes().remove(0);
        db.run_command(doc! { "createIndexes": "orders", "indexes": [index.to_document()] })
            .await
            .unwrap();
        let user = ObjectId::new();
        let docs: Vec<Document> = (0..200)
            .map(|i| {
                doc! {
                    "userId": if i % 10 == 0 { user } else { ObjectId::new() },
                    "createdAt": bson::DateTime::from_millis(1_700_000_000_000 + i),
                    "total": f64::from(i as i32),
                }
            })
            .collect();
        db.collection::<Document>("orders")
            .insert_many(docs)
            .await
            .unwrap();
        let query = order_queries().unwrap().remove(0);
        let found: Document = db
            .run_command(access::sample_command(
                "orders",
                &query,
                DEFAULT_MAX_TIME_MS,
            ))
            .await
            .unwrap();
        let sample = found
            .get_document("cursor")
            .unwrap()
            .get_array("firstBatch")
            .unwrap()[0]
            .as_document()
            .unwrap()
            .clone();
        let command =
            access::explain_command("orders", &query, &sample, DEFAULT_MAX_TIME_MS).unwrap();
        let reply = db.run_command(command).await.unwrap();
        db.drop().await.unwrap();
        let summary = ExplainSummary::from_reply(&reply).unwrap();
        let winning = reply
            .get_document("queryPlanner")
            .and_then(|p| p.get_document("winningPlan"))
            .unwrap();
        // Found at run time: a planner that does not pick the equality-sort-range index (SORT
        // over COLLSCAN). The summary must still read that reply as what it is.
        if !winning.to_string().contains("IXSCAN") {
            assert_eq!(summary.access, PlanAccess::CollectionScan, "{reply}");
            assert!(summary.in_memory_sort, "{reply}");
            println!(
                "skipped: server lacks planning an equality + sort + range query on its ESR index"
            );
            return;
        }
        assert_eq!(summary.access, PlanAccess::IndexScan, "{reply}");
        assert_eq!(summary.index(), Some("userId_1_createdAt_-1_total_1"));
        assert!(!summary.in_memory_sort, "{reply}");
    });
}
