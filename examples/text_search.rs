//! The text search example: its types and collections are in `apps/text_search.rs`.
//!
//! `cargo run -p mongo-schema-examples --example text_search` explains it; add `-- generate`, `-- lint`
//! or `-- check --catalog examples/live/text_search.json` to run the mongo-schema command on its collections.

fn main() -> std::process::ExitCode {
    mongo_schema_examples::main(&mongo_schema_examples::apps::text_search::EXAMPLE)
}
