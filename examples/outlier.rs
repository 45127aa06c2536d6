//! The outlier example: its types and collections are in `apps/outlier.rs`.
//!
//! `cargo run -p mongo-schema-examples --example outlier` explains it; add `-- generate`, `-- lint`
//! or `-- check --catalog examples/live/outlier.json` to run the mongo-schema command on its collections.

fn main() -> std::process::ExitCode {
    mongo_schema_examples::main(&mongo_schema_examples::apps::outlier::EXAMPLE)
}
