//! Quickstart: derive the validator of an `orders` collection and print it for mongosh.
//!
//! Run with `cargo run -p mongo-schema-examples --example quickstart`. It takes no arguments
//! (it declares no collection for the commands); `--help` says so, anything else exits 2 and
//! names an example that runs the commands.

use bson::oid::ObjectId;
use bson::{DateTime, Decimal128};
use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

/// Who placed the order: an extended reference (the id plus the fields every page shows).
#[derive(Serialize, Deserialize, MongoSchema)]
struct Customer {
    id: ObjectId,
    name: String,
}

/// One line of the order; the price is frozen at purchase time.
#[derive(Serialize, Deserialize, MongoSchema)]
struct Item {
    sku: String,
    name: String,
    #[mongo(minimum = 0)]
    price: Decimal128,
    #[mongo(minimum = 1)]
    qty: i32,
}

/// Where the order is in its life.
#[derive(Serialize, Deserialize, MongoSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
enum Status {
    Pending,
    Paid,
    Shipped,
    Cancelled,
}

/// An order as stored in the `orders` collection.
#[derive(Serialize, Deserialize, MongoSchema)]
struct Order {
    #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
    id: Option<ObjectId>,
    customer: Customer,
    #[mongo(min_items = 1)]
    items: Vec<Item>,
    total: Decimal128,
    status: Status,
    created_at: DateTime,
    /// Set once the order ships.
    tracking_number: Option<String>,
}

const HELP: &str = "\
quickstart: prints the $jsonSchema validator derived from `struct Order`, for mongosh.

Usage: cargo run -p mongo-schema-examples --example quickstart

It takes no arguments: it declares no collection for the mongo-schema commands. To run
them (generate, lint, check, plan, ...) on declared collections, use another example:
  cargo run -p mongo-schema-examples --example shop -- lint
  cargo run -p mongo-schema-examples --example validated_users -- check --catalog examples/live/validated_users.json
";

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        None => {}
        Some("-h" | "--help") => {
            print!("{HELP}");
            return std::process::ExitCode::SUCCESS;
        }
        Some(other) => {
            eprint!("error: quickstart takes no arguments (got {other:?})\n\n{HELP}");
            return std::process::ExitCode::from(2);
        }
    }
    let validator = Order::root_schema().to_validator();
    let json = bson::Bson::Document(validator).into_relaxed_extjson();
    println!("// The $jsonSchema validator derived from `struct Order` (relaxed Extended JSON).");
    println!(
        "// Required: the fields Order cannot be read without; `tracking_number` is an Option, so it may be"
    );
    println!("// missing or null; `status` accepts exactly the four enum names serde writes.");
    println!("db.createCollection(\"orders\", {{ validator: {json:#} }})");
    std::process::ExitCode::SUCCESS
}
