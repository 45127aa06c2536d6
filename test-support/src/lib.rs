//! A MongoDB wire-protocol test server: it speaks OP_MSG to the official `mongodb` driver over
//! loopback and keeps databases, collections (with their options), indexes and documents in
//! memory, answering with the server's documented reply shapes and error codes.
//!
//! It exists because no MongoDB server runs on our machines: the CLI's live path is tested
//! through the real driver against this server. Tests seed the catalog (raw listCollections /
//! listIndexes entries, to mimic any release's stored form, or real commands through
//! [`TestServer::execute`]), switch version quirks, inject failures, and read back every command
//! received.
//!
//! Commands: `hello`/`isMaster`, `buildInfo`, `ping`, `endSessions`, `connectionStatus`;
//! `listDatabases`, `listCollections` (`filter`, `nameOnly`, batches), `listIndexes`
//! (`includeIndexBuildInfo`, `includeBuildUUIDs`), `getMore`, `killCursors`; `create` (validation
//! options, time-series, clustered, capped, views, collation, pre-images), `collMod` (validator,
//! level, action, index TTL/hidden/prepareUnique/unique, time-series granularity, TTL), `drop`,
//! `dropDatabase`, `createIndexes` (listed forms, default names, conflicts 85/86), `dropIndexes`;
//! `insert` (validation through the [`SchemaEvaluator`]), `find`, `count`, `aggregate` (`$match`,
//! `$count`, `$group`, `$sort`, `$skip`, `$limit`, `$sample`, `$project`), `explain` (canned or
//! COLLSCAN), `currentOp` (index builds held by a build delay, with their progress), the
//! `$indexStats` and `$collStats` stages, `commitQuorum` on `createIndexes`. Credentials fail with AuthenticationFailed (18); anything else is CommandNotFound (59).
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! use mongo_schema_test_support::{Failure, TestServer, TestServerOptions};
//! let server = TestServer::start(TestServerOptions::default()).await;
//! server.execute("shop", bson::doc! {"create": "orders", "validator": {"status": {"$exists": true}}});
//! server.inject(Failure::on("listIndexes").error(11601, "operation was interrupted"));
//! // ... run the code under test against server.uri() ...
//! assert!(server.write_commands().is_empty());
//! # }
//! ```

mod aggregate;
mod builds;
mod collation;
mod commands;
mod error;
mod evaluator;
mod failure;
mod matcher;
mod options;
mod record;
mod server;
mod state;
mod usage;
mod version;
mod wire;

pub use evaluator::{FnEvaluator, SchemaEvaluator};
pub use failure::{FailAction, Failure};
pub use options::{Quirks, TestServerOptions};
pub use record::RecordedCommand;
pub use server::{BlockingTestServer, TestServer};
pub use usage::IndexAccess;
pub use version::ServerVersion;
