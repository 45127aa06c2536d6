//! The embedding example: its types and collections are in `apps/embedding.rs`.
//!
//! `cargo run -p mongo-schema-examples --example embedding` explains it; add `-- generate`, `-- lint`
//! or `-- check --catalog examples/live/embedding.json` to run the mongo-schema command on its collections.

fn main() -> std::process::ExitCode {
    mongo_schema_examples::main(&mongo_schema_examples::apps::embedding::EXAMPLE)
}
