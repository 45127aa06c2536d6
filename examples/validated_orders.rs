//! The validated orders example: its types and collections are in `apps/validated_orders.rs`.
//!
//! `cargo run -p mongo-schema-examples --example validated_orders` explains it; add `-- generate`, `-- lint`
//! or `-- check --catalog examples/live/validated_orders.json` to run the mongo-schema command on its collections.

fn main() -> std::process::ExitCode {
    mongo_schema_examples::main(&mongo_schema_examples::apps::validated_orders::EXAMPLE)
}
