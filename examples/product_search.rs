//! The search indexes example: `products` with a vector search index on its embedding, filtered
//! by status and category, and a full-text search index (`examples/apps/product_search.rs`).
//!
//! `cargo run -p mongo-schema-examples --example product_search` needs no server: it prints the
//! search indexes' manifest entry and mongosh step, then starts the wire-protocol test server
//! (whose search service builds indexes asynchronously) and runs `apply --wait`, a hand edit,
//! `check`, `plan` and `apply` against it, and `check` against a second one without search.
//! With arguments it is the `mongo-schema` command with `products` linked in.

use std::process::ExitCode;

use mongo_schema_cli::Console;
use mongo_schema_examples::apps::product_search;
use mongo_schema_test_support::{BlockingTestServer, Quirks, TestServerOptions};

fn main() -> ExitCode {
    let collections = product_search::collections();
    let mut console = Console::std();
    if std::env::args_os().len() > 1 {
        return mongo_schema_cli::run(std::env::args_os(), Some(&collections), &mut console).into();
    }
    let server = BlockingTestServer::start(TestServerOptions::default());
    let without_search = BlockingTestServer::start(TestServerOptions {
        quirks: Quirks {
            search_unsupported: true,
            ..Quirks::default()
        },
        ..TestServerOptions::default()
    });
    product_search::tour(
        &server.uri_with_db("shop"),
        &mut |command| server.execute("shop", command),
        &without_search.uri_with_db("shop"),
        &mut console,
    )
    .into()
}
