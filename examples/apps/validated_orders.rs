//! Validation: the seed's hand-written `orders` validator (required `customer`, `items`,
//! `status`; `status` one of four values) derived from the Rust type instead, so it cannot
//! drift from what the application writes.

use bson::oid::ObjectId;
use bson::{Decimal128, Document, doc};
use mongo_schema::MongoSchema;
use mongo_schema::spec::{Collection, CollectionSpec};
use serde::{Deserialize, Serialize};

use super::extended_reference::{Customer, Item, Status};
use crate::{Example, json};

/// An order (`orders`): what it must have is what serde always writes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
#[mongo(
    collection = "orders",
    validation_level = "strict",
    validation_action = "error"
)]
pub struct Order {
    /// Assigned by the server when absent.
    #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
    pub id: Option<ObjectId>,
    /// Who ordered.
    pub customer: Customer,
    /// What they ordered.
    #[mongo(min_items = 1, max_items = 100)]
    pub items: Vec<Item>,
    /// Where the order is.
    pub status: Status,
    /// Filled in at checkout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<Decimal128>,
}

/// The seed's validator, written by hand.
pub fn seed_validator() -> Document {
    doc! { "$jsonSchema": {
        "bsonType": "object",
        "required": ["customer", "items", "status"],
        "properties": { "status": { "enum": ["PENDING", "PAID", "SHIPPED", "CANCELLED"] } },
    } }
}

/// The example.
pub const EXAMPLE: Example = Example {
    name: "validated_orders",
    pattern: "validation (orders)",
    summary: "The seed's validator requires customer, items and status and pins status to four \
              values. Derived from `struct Order`, the same rules come out (serde always writes \
              those three; `_id` and `total` are skipped when None, so not required), plus what \
              the hand-written one left out: the shape of customer and of each item.",
    collections,
    explain,
    drift,
};

fn collections() -> Vec<CollectionSpec> {
    vec![Order::collection_spec()]
}

fn explain() -> String {
    let spec = Order::collection_spec();
    let schema = spec
        .validator
        .as_ref()
        .map(|v| v.to_document())
        .unwrap_or_default();
    format!(
        "The seed's hand-written validator:\n{}\n\nDerived from struct Order:\n{}\n",
        json(&seed_validator()),
        json(&schema)
    )
}

/// The deployment runs the seed's hand-written validator: `check` lists what differs.
fn drift() -> Vec<Document> {
    vec![doc! { "collMod": "orders", "validator": seed_validator() }]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict;

    #[test]
    fn required_fields_are_the_seeds() {
        let spec = Order::collection_spec();
        let validator = spec.validator.as_ref().unwrap().to_document();
        let required = validator
            .get_document("$jsonSchema")
            .unwrap()
            .get_array("required")
            .unwrap()
            .clone();
        assert_eq!(
            required,
            vec![
                bson::Bson::from("customer"),
                "items".into(),
                "status".into()
            ]
        );
    }

    #[test]
    fn documents_the_seed_validator_would_take_but_the_type_cannot_read_are_refused() {
        let spec = Order::collection_spec();
        let loose = doc! { "customer": "Asha", "items": [], "status": "PAID" };
        assert!(verdict(&spec, &loose).is_err());
        let ok = doc! {
            "customer": { "id": "u_1", "name": "Asha" },
            "items": [{ "sku": "KB-01", "name": "Keyboard", "price": Decimal128::from_bytes([0; 16]), "qty": 1 }],
            "status": "PENDING",
        };
        assert_eq!(verdict(&spec, &ok), Ok(()));
    }
}
