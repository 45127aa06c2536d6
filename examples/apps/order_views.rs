//! Views: `order_summaries`, a read model over `orders` declared on the type of the documents it
//! produces (`struct OrderSummary`), with its source (`view_on = Order`, checked at compile time)
//! and its pipeline (Extended JSON, checked to parse at compile time).

use bson::oid::ObjectId;
use bson::{Document, doc};
use mongo_schema::MongoSchema;
use mongo_schema::spec::{Collection, CollectionSpec};
use mongo_schema_cli::{Console, Outcome};
use serde::{Deserialize, Serialize};

use super::extended_reference::Status;
use super::validated_orders::Order;
use crate::json;
use crate::tour::{Tour, URI};

/// One open order as the view returns it: who ordered, where the order is, how many lines.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
#[mongo(
    view = "order_summaries",
    view_on = Order,
    pipeline = r#"[
        {"$match": {"status": {"$in": ["PENDING", "PAID"]}}},
        {"$project": {"customer": "$customer.name", "status": 1, "lines": {"$size": "$items"}}}
    ]"#,
)]
pub struct OrderSummary {
    /// The order's id (`$project` keeps `_id`).
    #[serde(rename = "_id")]
    pub id: ObjectId,
    /// The customer's name, from the order's extended reference.
    pub customer: String,
    /// Pending or paid: the view leaves the others out.
    pub status: Status,
    /// How many items the order has (`$size` returns an int).
    pub lines: i32,
}

/// The example's declarations: the source collection and the view on it.
pub fn collections() -> Vec<CollectionSpec> {
    vec![Order::collection_spec(), OrderSummary::collection_spec()]
}

/// What someone edits by hand on a deployment: the view's pipeline without its `$match`, so
/// cancelled orders show up.
pub fn hand_edit() -> Document {
    doc! {
        "collMod": "order_summaries",
        "viewOn": "orders",
        "pipeline": [
            { "$project": { "customer": "$customer.name", "status": 1, "lines": { "$size": "$items" } } },
        ],
    }
}

/// The same pipeline as declared, written by a client that sends numbers as doubles (the
/// legacy shell): the server stores what it is sent, and `check` compares numbers by value.
pub fn doubles_edit() -> Document {
    doc! {
        "collMod": "order_summaries",
        "viewOn": "orders",
        "pipeline": [
            { "$match": { "status": { "$in": ["PENDING", "PAID"] } } },
            { "$project": { "customer": "$customer.name", "status": 1.0, "lines": { "$size": "$items" } } },
        ],
    }
}

/// The tour `cargo run -p mongo-schema-examples --example order_views` prints: the view's
/// manifest entry and mongosh step, then `check`, `apply`, a hand edit, `plan` and `apply`
/// against the deployment at `uri` (database `shop`), on which `execute` runs a command.
pub fn tour(
    uri: &str,
    execute: &mut dyn FnMut(Document) -> Document,
    console: &mut Console,
) -> Outcome {
    let view = OrderSummary::collection_spec();
    let mut tour = Tour::new(console, collections(), uri);
    tour.out(
        "order_views: a view declared on the type of the documents it produces\n\n\
         struct OrderSummary (examples/apps/order_views.rs) is the view `order_summaries` on\n\
         `orders` (struct Order, examples/apps/validated_orders.rs): `view_on = Order` names the\n\
         source by its type, so renaming the collection renames it here; the pipeline is\n\
         Extended JSON, parsed at compile time. A view has no validator and no indexes.",
    );
    tour.heading("1. The view's entry in the manifest (`-- generate` prints every collection):");
    tour.out(&json(&view.to_manifest_document()));
    tour.heading("2. Its step of the mongosh script (`-- generate --format mongosh`):");
    tour.run_on(
        std::slice::from_ref(&view),
        &["generate", "--format", "mongosh"],
        Outcome::Clean,
    );
    tour.heading(
        "3. Against a deployment (here a fresh wire-protocol test server, database shop):",
    );
    tour.run(&["check", "--uri", URI], Outcome::Findings);
    tour.run(&["apply", "--uri", URI, "--yes"], Outcome::Clean);
    tour.run(&["check", "--uri", URI], Outcome::Clean);
    let edit = hand_edit();
    tour.heading(&format!(
        "Someone drops the $match by hand: db.runCommand({})",
        bson::Bson::Document(edit.clone()).into_relaxed_extjson()
    ));
    execute(edit);
    tour.run(&["check", "--uri", URI], Outcome::Findings);
    tour.run(&["plan", "--uri", URI], Outcome::Findings);
    tour.run(&["apply", "--uri", URI, "--yes"], Outcome::Clean);
    tour.run(&["check", "--uri", URI], Outcome::Clean);
    tour.heading(
        "Not drift: the same pipeline written with doubles (`status: 1.0`, as the legacy shell sends it):",
    );
    execute(doubles_edit());
    tour.run(&["check", "--uri", URI], Outcome::Clean);
    tour.heading(
        "4. The view's documents have a schema too (OrderSummary::root_schema(), the manifest's\n\
         //    documentSchema above): `mongo-schema validate --manifest manifest.json --collection\n\
         //    order_summaries export.jsonl` checks exported view output with it, as here:",
    );
    let schema = OrderSummary::root_schema().to_document();
    let validator =
        mongo_schema::eval::Validator::from_document(&schema).expect("a derived schema parses");
    for (document, valid) in [
        (
            doc! { "_id": ObjectId::from_bytes([1; 12]), "customer": "Ada", "status": "PAID", "lines": 2 },
            true,
        ),
        (
            doc! { "_id": ObjectId::from_bytes([2; 12]), "customer": "Ada", "status": "paid", "lines": 2 },
            false,
        ),
    ] {
        let raw = bson::RawDocumentBuf::try_from(&document).expect("a small document");
        let verdict = validator.evaluate(&raw);
        tour.out(&format!(
            "{} -> {}",
            bson::Bson::Document(document.clone()).into_relaxed_extjson(),
            if verdict.is_valid() {
                "valid"
            } else {
                "rejected"
            }
        ));
        if verdict.is_valid() != valid {
            tour.wrong(format!("the view's schema judged {document} otherwise"));
        }
    }
    tour.finish()
}
