//! The bucket example: its types and collections are in `apps/bucket.rs`.
//!
//! `cargo run -p mongo-schema-examples --example bucket` explains it; add `-- generate`, `-- lint`
//! or `-- check --catalog examples/live/bucket.json` to run the mongo-schema command on its collections.

fn main() -> std::process::ExitCode {
    mongo_schema_examples::main(&mongo_schema_examples::apps::bucket::EXAMPLE)
}
