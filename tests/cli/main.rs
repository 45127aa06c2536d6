//! Transcripts of the `mongo-schema` command: the stdout, stderr and exit code of each command
//! and format, pinned with insta (`snapshots/cli__<command>__*.snap`), one file per command.
//! The live path runs the real `mongodb` driver against the wire-protocol test server, which
//! also records every command it receives.

use std::sync::Arc;

use bson::{Bson, Document, doc};
use mongo_schema_cli::catalog::Catalog;
use mongo_schema_cli::{Console, Outcome};
use mongo_schema_test_support::{
    BlockingTestServer, Failure, SchemaEvaluator, TestServer, TestServerOptions,
};

mod apply;
mod audit;
mod builds;
mod catalog;
mod check;
mod connect;
mod console;
mod converge;
mod drift;
mod generate;
mod lint;
mod plan;
mod prune;
mod snapshot;
mod usage;
mod validate;

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
    // The unowned index has served nothing for years, so `--prune` may drop it (see prune.rs).
    server.seed_index_usage(
        "shop",
        "articles",
        "author_1",
        vec![mongo_schema_test_support::IndexAccess {
            host: None,
            shard: None,
            ops: 0,
            since: bson::DateTime::from_millis(1_600_000_000_000),
        }],
    );
    server
}

fn uri(server: &TestServer) -> String {
    server.uri_with_db("shop")
}

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
