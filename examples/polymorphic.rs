//! The polymorphic example: its types and collections are in `apps/polymorphic.rs`.
//!
//! `cargo run -p mongo-schema-examples --example polymorphic` explains it; add `-- generate`, `-- lint`
//! or `-- check --catalog examples/live/polymorphic.json` to run the mongo-schema command on its collections.

fn main() -> std::process::ExitCode {
    mongo_schema_examples::main(&mongo_schema_examples::apps::polymorphic::EXAMPLE)
}
