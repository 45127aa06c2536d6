//! The example application: seven collections of a small shop, declared with
//! `#[derive(MongoSchema)]` in `apps/`, checked against a catalog snapshot shipped beside it.
//!
//! `cargo run -p mongo-schema-examples --example shop` needs no server: it prints the `orders`
//! validator the types derive, then runs `mongo-schema check` of every declaration against
//! `examples/catalog/shop.json` (a snapshot of a deployment that has drifted) and prints the
//! report. With arguments it is the `mongo-schema` command with these collections linked in:
//! `-- generate`, `-- lint`, `-- check --catalog examples/catalog/shop.json` (exit 1: drift),
//! `-- plan --catalog ...`, or `-- check --uri mongodb://...` against a real deployment.

use std::process::ExitCode;

use mongo_schema::spec::{Collection, CollectionSpec};
use mongo_schema_cli::{Console, Outcome};
use mongo_schema_examples::apps;

/// The snapshot shipped with the examples: what `mongo-schema snapshot` captured from a
/// deployment where each collection has drifted from the code in one realistic way.
const SNAPSHOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/catalog/shop.json");

fn collections() -> Vec<CollectionSpec> {
    let mut all = Vec::new();
    for example in [
        &apps::validated_orders::EXAMPLE,
        &apps::validated_users::EXAMPLE,
        &apps::text_search::EXAMPLE,
        &apps::sharding::EXAMPLE,
        &apps::time_series::EXAMPLE,
        &apps::polymorphic::EXAMPLE,
    ] {
        all.extend((example.collections)());
    }
    all.sort_by(|a, b| a.name.cmp(&b.name));
    all
}

fn main() -> ExitCode {
    let collections = collections();
    let mut console = Console::std();
    if std::env::args_os().len() > 1 {
        return mongo_schema_cli::run(std::env::args_os(), Some(&collections), &mut console).into();
    }
    let order = apps::validated_orders::Order::collection_spec();
    let validator = order
        .validator
        .as_ref()
        .expect("orders declares a validator")
        .to_document();
    let json = bson::Bson::Document(validator).into_relaxed_extjson();
    println!("// 1. The validator `struct Order` derives (apps/validated_orders.rs), for mongosh:");
    println!("db.createCollection(\"orders\", {{ validator: {json:#} }})");
    println!();
    println!(
        "// 2. `mongo-schema check`: the {} declared collections against the shipped snapshot",
        collections.len()
    );
    println!("//    examples/catalog/shop.json (no server needed):");
    let outcome = mongo_schema_cli::run(
        ["mongo-schema", "check", "--catalog", SNAPSHOT],
        Some(&collections),
        &mut console,
    );
    println!();
    match outcome {
        Outcome::Findings => println!(
            "// Drift found: in CI, `check` exits 1 here; an outage would exit 2. Try\n\
             //   cargo run -p mongo-schema-examples --example shop -- plan --catalog examples/catalog/shop.json"
        ),
        Outcome::Clean => println!("// In sync."),
        Outcome::Failed => return ExitCode::from(2),
    }
    ExitCode::SUCCESS
}
