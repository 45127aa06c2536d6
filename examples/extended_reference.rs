//! The extended reference example: its types and collections are in `apps/extended_reference.rs`.
//!
//! `cargo run -p mongo-schema-examples --example extended_reference` explains it; add `-- generate`, `-- lint`
//! or `-- check --catalog examples/live/extended_reference.json` to run the mongo-schema command on its collections.

fn main() -> std::process::ExitCode {
    mongo_schema_examples::main(&mongo_schema_examples::apps::extended_reference::EXAMPLE)
}
