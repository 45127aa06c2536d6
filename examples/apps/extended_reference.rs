//! Referencing and extended reference: an order references its user by id (`user_id`) and copies
//! the few user fields every order list shows (`customer: {id, name}`); each line freezes the
//! product's name and price at purchase time.

use bson::oid::ObjectId;
use bson::{DateTime, Decimal128, Document, doc};
use mongo_schema::MongoSchema;
use mongo_schema::spec::{Collection, CollectionSpec};
use serde::{Deserialize, Serialize};

use crate::{Example, json, verdict};

/// The extended reference: the customer's id plus the name every order page shows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
pub struct Customer {
    /// The user's `_id`.
    #[mongo(max_length = 40)]
    pub id: String,
    /// Copied at order time: an order shows the name it was placed under.
    #[mongo(max_length = 100)]
    pub name: String,
}

/// One order line, frozen at purchase: later price changes do not rewrite history.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
pub struct Item {
    /// Stock-keeping unit (`KB-01`).
    #[mongo(max_length = 32)]
    pub sku: String,
    /// The product's name at purchase time.
    #[mongo(max_length = 200)]
    pub name: String,
    /// The unit price at purchase time.
    #[mongo(minimum = 0)]
    pub price: Decimal128,
    /// How many.
    #[mongo(minimum = 1)]
    pub qty: i32,
}

/// Where the order is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Status {
    /// Placed, not paid.
    Pending,
    /// Paid.
    Paid,
    /// On its way.
    Shipped,
    /// Cancelled.
    Cancelled,
}

/// An order (`orders`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
#[mongo(
    collection = "orders",
    // "My orders with this status, newest first": equality, equality, sort (the ESR rule).
    index(keys(user_id, status, created_at = -1)),
    query(name = "my_orders", eq(user_id, status), sort(created_at = -1)),
)]
pub struct Order {
    /// The order id.
    #[serde(rename = "_id")]
    pub id: ObjectId,
    /// The reference: the user's `_id`, for "my orders" queries.
    #[mongo(max_length = 40)]
    pub user_id: String,
    /// The extended reference: shown without a `$lookup`.
    pub customer: Customer,
    /// The lines, frozen at purchase.
    #[mongo(min_items = 1, max_items = 100)]
    pub items: Vec<Item>,
    /// The order total.
    pub total: Decimal128,
    /// Where the order is.
    pub status: Status,
    /// When it was placed.
    pub created_at: DateTime,
}

/// The example.
pub const EXAMPLE: Example = Example {
    name: "extended_reference",
    pattern: "referencing + extended reference (orders)",
    summary: "An order references its user (`user_id`) and copies the fields every order list \
              shows (`customer: {id, name}`); each line keeps the price paid. The compound index \
              {user_id: 1, status: 1, created_at: -1} serves \"my orders with this status, newest \
              first\".",
    collections,
    explain,
    drift,
};

fn collections() -> Vec<CollectionSpec> {
    vec![Order::collection_spec()]
}

/// The seed's order.
pub fn sample() -> Order {
    Order {
        id: ObjectId::from_bytes([0x65; 12]),
        user_id: "u_1".into(),
        customer: Customer {
            id: "u_1".into(),
            name: "Asha".into(),
        },
        items: vec![Item {
            sku: "KB-01".into(),
            name: "Mechanical Keyboard".into(),
            price: "89.99".parse().expect("a decimal literal"),
            qty: 1,
        }],
        total: "129.49".parse().expect("a decimal literal"),
        status: Status::Paid,
        created_at: DateTime::from_millis(1_768_471_200_000),
    }
}

fn explain() -> String {
    let order = bson::serialize_to_document(&sample()).expect("an Order serializes");
    let accepted = match verdict(&Order::collection_spec(), &order) {
        Ok(()) => "accepted by the validator".to_owned(),
        Err(why) => format!("REJECTED: {why}"),
    };
    format!(
        "The seed's order ({accepted}):\n{}\n\nAn order list needs no $lookup; the index serves:\n\
         db.orders.find({}).sort({})\n",
        json(&order),
        json(&doc! { "user_id": "u_1", "status": "PAID" }),
        json(&doc! { "created_at": -1 }),
    )
}

/// The compound index was never created on this deployment: `check` reports it missing.
fn drift() -> Vec<Document> {
    vec![doc! { "dropIndexes": "orders", "index": "user_id_1_status_1_created_at_-1" }]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_order_passes_and_an_unknown_status_does_not() {
        let spec = Order::collection_spec();
        let mut order = bson::serialize_to_document(&sample()).unwrap();
        assert_eq!(verdict(&spec, &order), Ok(()));
        order.insert("status", "LOST");
        assert!(verdict(&spec, &order).is_err());
    }

    #[test]
    fn the_compound_index_is_the_seeds() {
        let spec = Order::collection_spec();
        assert_eq!(
            spec.indexes[0].keys.to_document(),
            doc! { "user_id": 1, "status": 1, "created_at": -1 }
        );
    }
}
