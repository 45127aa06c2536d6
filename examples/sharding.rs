//! The sharding example: its types and collections are in `apps/sharding.rs`.
//!
//! `cargo run -p mongo-schema-examples --example sharding` explains it; add `-- generate`, `-- lint`
//! or `-- check --catalog examples/live/sharding.json` to run the mongo-schema command on its collections.

fn main() -> std::process::ExitCode {
    mongo_schema_examples::main(&mongo_schema_examples::apps::sharding::EXAMPLE)
}
