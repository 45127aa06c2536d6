//! Views and search indexes against a real MongoDB deployment (issue 15): the view tests run
//! when `MONGODB_URI` is set, the search and vector search tests only when `MONGODB_SEARCH=1`
//! is set too (a deployment with a search service: Atlas, or Community 8.2+ with `mongot`), and
//! each says why it was skipped otherwise.
//!
//! Each test works in a database of its own, `mongo_schema_catalog_<pid>_<test>`, dropped at
//! the end. What a server lacks is found out at run time, never by its name, and printed as
//! `skipped: server lacks X`: SecantusDB, which CI runs, acknowledges a view's `collMod`
//! without storing it, and answers every search command with CommandNotSupported (115).

use bson::oid::ObjectId;
use bson::{Bson, Document, doc};
use mongo_schema::MongoSchema;
use mongo_schema::spec::{Collection, CollectionSpec, SearchIndexSpec, VectorField, View};
use mongo_schema_cli::{Console, Outcome};
use serde::{Deserialize, Serialize};

fn uri() -> Option<String> {
    match std::env::var("MONGODB_URI") {
        Ok(uri) if !uri.is_empty() => Some(uri),
        _ => {
            println!("skipped: MONGODB_URI not set");
            None
        }
    }
}

/// The URI, when the deployment is said to have a search service (`MONGODB_SEARCH=1`).
fn search_uri() -> Option<String> {
    let uri = uri()?;
    if std::env::var("MONGODB_SEARCH").as_deref() == Ok("1") {
        Some(uri)
    } else {
        println!("skipped: MONGODB_SEARCH not set to 1 (search and vector search indexes)");
        None
    }
}

/// A database dropped when the test ends, pass or fail.
struct Scratch {
    uri: String,
    name: String,
    runtime: tokio::runtime::Runtime,
    client: mongodb::Client,
}

impl Scratch {
    fn new(uri: &str, test: &str) -> Scratch {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let client = runtime
            .block_on(mongodb::Client::with_uri_str(uri))
            .unwrap();
        Scratch {
            uri: uri.to_owned(),
            name: format!("mongo_schema_catalog_{}_{test}", std::process::id()),
            runtime,
            client,
        }
    }

    /// Runs a command; the server's error code when it refuses it.
    fn try_command(&self, command: Document) -> Result<Document, i32> {
        self.runtime.block_on(async {
            self.client
                .database(&self.name)
                .run_command(command)
                .await
                .map_err(|e| match *e.kind {
                    mongodb::error::ErrorKind::Command(ref c) => c.code,
                    _ => panic!("the server did not answer: {e}"),
                })
        })
    }

    fn command(&self, command: Document) -> Document {
        let shown = command.to_string();
        self.try_command(command)
            .unwrap_or_else(|code| panic!("{shown} refused with code {code}"))
    }

    /// The first batch of a cursor-returning command.
    fn first_batch(&self, command: Document) -> Vec<Document> {
        let reply = self.command(command);
        reply
            .get_document("cursor")
            .and_then(|c| c.get_array("firstBatch"))
            .map(|b| b.iter().filter_map(|d| d.as_document().cloned()).collect())
            .unwrap_or_default()
    }

    /// The `listCollections` entry of `name`.
    fn entry(&self, name: &str) -> Option<Document> {
        self.first_batch(doc! { "listCollections": 1, "filter": { "name": name } })
            .into_iter()
            .next()
    }

    /// Runs `mongo-schema ARGS --uri URI --db NAME` with `linked` as the application's
    /// declarations; the outcome and everything it printed.
    fn run(&self, linked: &[CollectionSpec], args: &[&str]) -> (Outcome, String) {
        let mut console = Console::captured("");
        let mut argv = vec!["mongo-schema"];
        argv.extend_from_slice(args);
        argv.extend(["--uri", &self.uri, "--db", &self.name]);
        let outcome = mongo_schema_cli::run(argv, Some(linked), &mut console);
        (
            outcome,
            format!("{}{}", console.stdout_text(), console.stderr_text()),
        )
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = self.try_command(doc! { "dropDatabase": 1 });
    }
}

#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(collection = "orders")]
struct Order {
    #[serde(rename = "_id")]
    id: ObjectId,
    customer: String,
    status: String,
    total: f64,
}

/// What the `open_orders` view returns.
#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(
    view = "open_orders",
    view_on = Order,
    pipeline = r#"[{"$match": {"status": "open"}}, {"$project": {"customer": 1, "total": 1}}]"#,
)]
struct OpenOrder {
    #[serde(rename = "_id")]
    id: ObjectId,
    customer: String,
    total: f64,
}

fn declared() -> Vec<CollectionSpec> {
    vec![Order::collection_spec(), OpenOrder::collection_spec()]
}

/// The same view with another pipeline: what the next release of the code declares.
fn changed() -> Vec<CollectionSpec> {
    let pipeline = vec![
        doc! { "$match": { "status": { "$in": ["open", "held"] } } },
        doc! { "$project": { "customer": 1, "total": 1 } },
    ];
    vec![
        Order::collection_spec(),
        CollectionSpec::new("open_orders").view(View::new("orders", pipeline)),
    ]
}

fn stored_pipeline(db: &Scratch) -> Option<Bson> {
    db.entry("open_orders")?
        .get_document("options")
        .ok()?
        .get("pipeline")
        .cloned()
}

/// A view created by `apply` is listed as a view and reads in sync; its output is what the
/// view's type derives a schema for; a changed pipeline is drift that `plan` fixes with one
/// `collMod`, after which the deployment is in sync again (or the server is reported as not
/// storing a view's `collMod`).
#[test]
fn a_view_is_created_checked_and_changed_with_collmod() {
    let Some(uri) = uri() else { return };
    let db = Scratch::new(&uri, "views");
    let linked = declared();

    let (outcome, text) = db.run(&linked, &["check"]);
    assert_eq!(outcome, Outcome::Findings, "an empty database: {text}");
    assert!(text.contains("open_orders"), "{text}");
    let (outcome, text) = db.run(&linked, &["apply", "--yes"]);
    assert_eq!(outcome, Outcome::Clean, "{text}");
    let entry = db.entry("open_orders").expect("apply created the view");
    assert_eq!(entry.get_str("type").ok(), Some("view"), "{entry}");
    assert_eq!(
        entry
            .get_document("options")
            .unwrap()
            .get_str("viewOn")
            .ok(),
        Some("orders"),
        "{entry}"
    );
    let (outcome, text) = db.run(&linked, &["check"]);
    assert_eq!(
        outcome,
        Outcome::Clean,
        "the server's stored view must not read as drift: {text}"
    );

    // The view runs its pipeline, and what it returns passes the schema its type derives.
    db.command(doc! { "insert": "orders", "documents": [
        { "_id": ObjectId::new(), "customer": "Ada", "status": "open", "total": 12.5 },
        { "_id": ObjectId::new(), "customer": "Bob", "status": "shipped", "total": 3.0 },
    ] });
    let output = db.first_batch(doc! { "find": "open_orders", "filter": {} });
    assert_eq!(output.len(), 1, "{output:?}");
    let schema =
        mongo_schema::eval::Validator::from_document(&OpenOrder::root_schema().to_document())
            .unwrap();
    for document in &output {
        let raw = bson::RawDocumentBuf::try_from(document).unwrap();
        assert!(schema.evaluate(&raw).is_valid(), "{document}");
        assert!(!document.contains_key("status"), "{document}");
    }

    let next = changed();
    let (outcome, text) = db.run(&next, &["check"]);
    assert_eq!(outcome, Outcome::Findings, "{text}");
    assert!(
        text.contains("view: collMod changes the view's viewOn and pipeline"),
        "{text}"
    );
    let (outcome, text) = db.run(&next, &["plan"]);
    assert_eq!(outcome, Outcome::Findings, "{text}");
    assert!(
        text.contains("1. open_orders: change view open_orders"),
        "{text}"
    );
    let (_, script) = db.run(&next, &["plan", "--format", "mongosh"]);
    assert!(
        script.contains("collMod: \"open_orders\"") && script.contains("viewOn: \"orders\""),
        "{script}"
    );
    let before = stored_pipeline(&db);
    let (outcome, text) = db.run(&next, &["apply", "--yes"]);
    if stored_pipeline(&db) == before {
        // Acknowledged without being stored: apply must not call that done.
        assert_ne!(outcome, Outcome::Clean, "{text}");
        println!(
            "skipped: server lacks a stored view collMod (acknowledged, listCollections unchanged): {}",
            text.lines().last().unwrap_or_default()
        );
        return;
    }
    assert_eq!(outcome, Outcome::Clean, "{text}");
    let (outcome, text) = db.run(&next, &["check"]);
    assert_eq!(outcome, Outcome::Clean, "{text}");
    let output = db.first_batch(doc! { "find": "open_orders", "filter": {} });
    assert_eq!(output.len(), 1, "{output:?}");
}

/// Whether the deployment lists search indexes; the refusal's code when it does not.
fn search_support(db: &Scratch) -> Result<(), i32> {
    db.command(doc! { "create": "search_probe" });
    let listed = db.try_command(doc! {
        "aggregate": "search_probe", "pipeline": [{ "$listSearchIndexes": {} }], "cursor": {},
    });
    db.command(doc! { "drop": "search_probe" });
    listed.map(drop)
}

fn products(dimensions: i64) -> Vec<CollectionSpec> {
    vec![
        CollectionSpec::new("products")
            .search_index(SearchIndexSpec::dynamic("default"))
            .search_index(SearchIndexSpec::vector(
                "embedding_index",
                VectorField::new("embedding", dimensions, "cosine"),
                ["status", "category"],
            )),
    ]
}

/// On a deployment with search: `apply --wait` returns once both indexes are queryable, `check`
/// then reads in sync (the service's defaults are not drift), another dimension count is one
/// `updateSearchIndex`, and an undeclared index is dropped only with `--prune`.
#[test]
fn search_indexes_are_created_waited_for_changed_and_pruned() {
    let Some(uri) = search_uri() else { return };
    let db = Scratch::new(&uri, "search");
    if let Err(code) = search_support(&db) {
        println!(
            "skipped: server lacks search indexes ($listSearchIndexes refused with code {code})"
        );
        return;
    }
    let linked = products(4);
    let (outcome, text) = db.run(&linked, &["apply", "--yes", "--wait", "--timeout", "10m"]);
    assert_eq!(outcome, Outcome::Clean, "{text}");
    assert!(text.contains("2 search indexes queryable"), "{text}");
    let (outcome, text) = db.run(&linked, &["check"]);
    assert_eq!(
        outcome,
        Outcome::Clean,
        "the service's stored definitions must not read as drift: {text}"
    );

    let next = products(8);
    let (outcome, text) = db.run(&next, &["check"]);
    assert_eq!(outcome, Outcome::Findings, "{text}");
    assert!(text.contains("search index embedding_index"), "{text}");
    let (outcome, text) = db.run(&next, &["apply", "--yes", "--wait", "--timeout", "10m"]);
    assert_eq!(outcome, Outcome::Clean, "{text}");
    let (outcome, text) = db.run(&next, &["check"]);
    assert_eq!(outcome, Outcome::Clean, "{text}");

    let only_default =
        vec![CollectionSpec::new("products").search_index(SearchIndexSpec::dynamic("default"))];
    let (_, text) = db.run(&only_default, &["apply", "--yes"]);
    let listed = db.first_batch(doc! {
        "aggregate": "products", "pipeline": [{ "$listSearchIndexes": {} }], "cursor": {},
    });
    assert_eq!(listed.len(), 2, "dropped without --prune: {text}");
    let (outcome, text) = db.run(&only_default, &["apply", "--yes", "--prune"]);
    assert_ne!(outcome, Outcome::Failed, "{text}");
}

/// On a deployment without search (a plain mongod, SecantusDB): declared search indexes make
/// `check` exit 2 with the reason, while the collection and its B-tree indexes are still
/// compared; without declared search indexes the same deployment checks as before.
#[test]
fn a_deployment_without_search_is_reported_and_the_rest_still_checked() {
    let Some(uri) = uri() else { return };
    let db = Scratch::new(&uri, "nosearch");
    if search_support(&db).is_ok() {
        println!("skipped: the server lists search indexes (this test is for deployments without)");
        return;
    }
    let plain = vec![
        CollectionSpec::new("products").index(mongo_schema::spec::IndexSpec::new([(
            "sku",
            mongo_schema::spec::IndexKind::Ascending,
        )])),
    ];
    let (outcome, text) = db.run(&plain, &["apply", "--yes"]);
    assert_eq!(outcome, Outcome::Clean, "{text}");
    let (outcome, text) = db.run(&plain, &["check"]);
    assert_eq!(outcome, Outcome::Clean, "{text}");

    let mut linked = products(4);
    linked[0] = linked[0]
        .clone()
        .index(mongo_schema::spec::IndexSpec::new([(
            "sku",
            mongo_schema::spec::IndexKind::Ascending,
        )]));
    let (outcome, text) = db.run(&linked, &["check"]);
    assert_eq!(outcome, Outcome::Failed, "{text}");
    assert!(
        text.contains("search indexes not checked: the deployment does not list them"),
        "{text}"
    );
    // The B-tree side was compared: an index dropped by hand shows up beside the search part.
    db.command(doc! { "dropIndexes": "products", "index": "sku_1" });
    let (outcome, text) = db.run(&linked, &["check"]);
    assert_eq!(outcome, Outcome::Failed, "{text}");
    assert!(text.contains("sku_1"), "{text}");
}
