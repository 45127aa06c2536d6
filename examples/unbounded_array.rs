//! The unbounded array example: its types and collections are in `apps/unbounded_array.rs`.
//!
//! `cargo run -p mongo-schema-examples --example unbounded_array` explains it; add `-- generate`, `-- lint`
//! or `-- check --catalog examples/live/unbounded_array.json` to run the mongo-schema command on its collections.

fn main() -> std::process::ExitCode {
    mongo_schema_examples::main(&mongo_schema_examples::apps::unbounded_array::EXAMPLE)
}
