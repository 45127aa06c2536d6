//! Embedding: a user's addresses live inside the user document, as a bounded array.
//!
//! One read returns the user with every address and one write changes them together. The
//! bound (`max_items`) keeps the document small: without it the lint reports the array.

use bson::{Document, doc};
use mongo_schema::MongoSchema;
use mongo_schema::spec::{Collection, CollectionSpec};
use serde::{Deserialize, Serialize};

use crate::{Example, json, verdict};

/// A postal address: always read with its user, never on its own, so it is embedded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
pub struct Address {
    /// `home`, `work`, ...
    #[mongo(max_length = 20)]
    pub label: String,
    /// The city.
    #[mongo(max_length = 80)]
    pub city: String,
    /// The six-digit Indian postal code.
    #[mongo(pattern = "^[0-9]{6}$", max_length = 6)]
    pub pin: String,
}

/// A user with their addresses embedded (`users`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
#[mongo(
    collection = "users",
    // The profile page: one fetch by id returns the user with the addresses.
    query(name = "profile", eq(id), project(name, addresses))
)]
pub struct User {
    /// The user's id (`u_1`).
    #[serde(rename = "_id")]
    #[mongo(max_length = 40)]
    pub id: String,
    /// Display name.
    #[mongo(max_length = 100)]
    pub name: String,
    /// A user has a few addresses: bounded, so the document stays small.
    #[mongo(max_items = 10)]
    pub addresses: Vec<Address>,
}

/// The example.
pub const EXAMPLE: Example = Example {
    name: "embedding",
    pattern: "embedding (users with their addresses)",
    summary: "Data read together is stored together: a user document embeds its addresses. \
              The array is bounded (max_items = 10) and every string has a maximum length, so \
              the lint can prove the worst-case document size; remove the bound and `lint` \
              reports an unbounded array.",
    collections,
    explain,
    drift,
};

fn collections() -> Vec<CollectionSpec> {
    vec![User::collection_spec()]
}

/// The seed's user, as the application writes it.
pub fn asha() -> User {
    User {
        id: "u_1".into(),
        name: "Asha".into(),
        addresses: vec![
            Address {
                label: "home".into(),
                city: "Pune".into(),
                pin: "411001".into(),
            },
            Address {
                label: "work".into(),
                city: "Mumbai".into(),
                pin: "400051".into(),
            },
        ],
    }
}

fn explain() -> String {
    let user = bson::serialize_to_document(&asha()).expect("a User serializes");
    let spec = User::collection_spec();
    let accepted = match verdict(&spec, &user) {
        Ok(()) => "accepted by the validator".to_owned(),
        Err(why) => format!("REJECTED: {why}"),
    };
    format!(
        "The seed's user document ({accepted}):\n{}\n\nOne read: db.users.findOne({})\n",
        json(&user),
        json(&doc! { "_id": "u_1" }),
    )
}

/// Someone added an index by hand: `check` reports it as not declared.
fn drift() -> Vec<Document> {
    vec![doc! {
        "createIndexes": "users",
        "indexes": [{ "key": { "addresses.city": 1 }, "name": "addresses.city_1" }],
    }]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_user_passes_and_an_unbounded_address_list_does_not() {
        let spec = User::collection_spec();
        let mut user = bson::serialize_to_document(&asha()).unwrap();
        assert_eq!(verdict(&spec, &user), Ok(()));
        let many: Vec<bson::Bson> = (0..11)
            .map(|_| bson::Bson::Document(doc! { "label": "x", "city": "y", "pin": "411001" }))
            .collect();
        user.insert("addresses", many);
        assert!(verdict(&spec, &user).is_err());
    }

    #[test]
    fn pin_must_be_six_digits() {
        let spec = User::collection_spec();
        let mut user = asha();
        user.addresses[0].pin = "41100".into();
        let doc = bson::serialize_to_document(&user).unwrap();
        assert!(verdict(&spec, &doc).is_err());
    }
}
