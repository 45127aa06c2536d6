//! The subset example: its types and collections are in `apps/subset.rs`.
//!
//! `cargo run -p mongo-schema-examples --example subset` explains it; add `-- generate`, `-- lint`
//! or `-- check --catalog examples/live/subset.json` to run the mongo-schema command on its collections.

fn main() -> std::process::ExitCode {
    mongo_schema_examples::main(&mongo_schema_examples::apps::subset::EXAMPLE)
}
