//! The schema versioning example: its types and collections are in `apps/schema_versioning.rs`.
//!
//! `cargo run -p mongo-schema-examples --example schema_versioning` explains it; add `-- generate`, `-- lint`
//! or `-- check --catalog examples/live/schema_versioning.json` to run the mongo-schema command on its collections.

fn main() -> std::process::ExitCode {
    mongo_schema_examples::main(&mongo_schema_examples::apps::schema_versioning::EXAMPLE)
}
