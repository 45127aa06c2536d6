//! The computed example: its types and collections are in `apps/computed.rs`.
//!
//! `cargo run -p mongo-schema-examples --example computed` explains it; add `-- generate`, `-- lint`
//! or `-- check --catalog examples/live/computed.json` to run the mongo-schema command on its collections.

fn main() -> std::process::ExitCode {
    mongo_schema_examples::main(&mongo_schema_examples::apps::computed::EXAMPLE)
}
