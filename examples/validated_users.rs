//! The validated users example: its types and collections are in `apps/validated_users.rs`.
//!
//! `cargo run -p mongo-schema-examples --example validated_users` explains it; add `-- generate`, `-- lint`
//! or `-- check --catalog examples/live/validated_users.json` to run the mongo-schema command on its collections.

fn main() -> std::process::ExitCode {
    mongo_schema_examples::main(&mongo_schema_examples::apps::validated_users::EXAMPLE)
}
