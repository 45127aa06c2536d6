//! The time series example: its types and collections are in `apps/time_series.rs`.
//!
//! `cargo run -p mongo-schema-examples --example time_series` explains it; add `-- generate`, `-- lint`
//! or `-- check --catalog examples/live/time_series.json` to run the mongo-schema command on its collections.

fn main() -> std::process::ExitCode {
    mongo_schema_examples::main(&mongo_schema_examples::apps::time_series::EXAMPLE)
}
