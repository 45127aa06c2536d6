//! The views example: `order_summaries`, a view over `orders` declared on its own type
//! (`examples/apps/order_views.rs`).
//!
//! `cargo run -p mongo-schema-examples --example order_views` needs no server: it prints the
//! view's manifest entry and mongosh step, then starts the wire-protocol test server and runs
//! `check`, `apply`, a hand edit of the view, `plan` and `apply` against it. With arguments it is
//! the `mongo-schema` command with the example's collections linked in: `-- generate`,
//! `-- check --uri mongodb://...`, `-- plan --uri ...`, `-- apply --uri ...`.

use std::process::ExitCode;

use mongo_schema_cli::Console;
use mongo_schema_examples::apps::order_views;
use mongo_schema_test_support::{BlockingTestServer, TestServerOptions};

fn main() -> ExitCode {
    let collections = order_views::collections();
    let mut console = Console::std();
    if std::env::args_os().len() > 1 {
        return mongo_schema_cli::run(std::env::args_os(), Some(&collections), &mut console).into();
    }
    let server = BlockingTestServer::start(TestServerOptions::default());
    let uri = server.uri_with_db("shop");
    order_views::tour(
        &uri,
        &mut |command| server.execute("shop", command),
        &mut console,
    )
    .into()
}
