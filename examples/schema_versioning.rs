//! The schema versioning example: its types and collections are in `apps/schema_versioning.rs`.
//!
//! `cargo run -p mongo-schema-examples --example schema_versioning` explains it; add `-- generate`, `-- lint`
//! or `-- check --catalog examples/live/schema_versioning.json` to run the mongo-schema command on its collections,
//! and `-- migrate --uri ...` to rewrite the version 1 users (docs/schema-evolution.md walks the whole life).

use mongo_schema_examples::apps::schema_versioning::{EXAMPLE, User};

fn main() -> std::process::ExitCode {
    mongo_schema_examples::main_migrating(&EXAMPLE, &[mongo_schema_cli::Migration::of::<User>()])
}
