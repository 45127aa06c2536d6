//! Validation and a partial unique index: `users` requires `email`, `name` and `created_at`,
//! checks the email's shape, limits `role` and `age`, rejects invalid writes
//! (`validationAction: error`), and keeps emails unique among users not soft-deleted.

use bson::oid::ObjectId;
use bson::{DateTime, Document, doc};
use mongo_schema::MongoSchema;
use mongo_schema::spec::IndexSpec;
use mongo_schema::spec::{Collection, CollectionSpec};
use serde::{Deserialize, Serialize};

use crate::{Example, json};

/// What a user may do.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Everyone.
    User,
    /// Full access.
    Admin,
    /// Moderates content.
    Moderator,
}

/// A user (`users`). The email is unique among accounts not soft-deleted.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
#[mongo(
    collection = "users",
    validation_action = "error",
    index(keys(email), unique, partial = r#"{"deleted_at": {"$exists": false}}"#),
    // Sign-in: the live account with this email. The condition of the partial index is part of
    // the query, else the planner cannot use that index.
    query(
        name = "sign_in",
        eq(email),
        filter = r#"{"deleted_at": {"$exists": false}}"#
    )
)]
pub struct User {
    /// Assigned by the server when absent.
    #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
    pub id: Option<ObjectId>,
    /// The seed's pattern, as written there.
    #[mongo(
        pattern = r"^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}$",
        max_length = 254
    )]
    pub email: String,
    /// Display name.
    #[mongo(max_length = 100)]
    pub name: String,
    /// When the account was created.
    pub created_at: DateTime,
    /// Absent means `user`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<Role>,
    /// Whole years, 0 to 150, stored as a 32-bit int.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[mongo(minimum = 0, maximum = 150, bson_type = "int")]
    pub age: Option<i32>,
    /// Set when the account is soft-deleted; its email may then be reused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deleted_at: Option<DateTime>,
}

/// The example.
pub const EXAMPLE: Example = Example {
    name: "validated_users",
    pattern: "validation + partial unique index (users)",
    summary: "Required email, name, created_at (what serde always writes); the seed's email \
              pattern; role one of user, admin, moderator; age an int from 0 to 150; \
              validationAction error. The unique index on email applies only where deleted_at \
              does not exist, so a soft-deleted account frees its address.",
    collections,
    explain,
    drift,
};

fn collections() -> Vec<CollectionSpec> {
    vec![User::collection_spec()]
}

fn explain() -> String {
    let spec = User::collection_spec();
    let index = spec
        .indexes
        .first()
        .map(IndexSpec::to_document)
        .unwrap_or_default();
    format!(
        "db.createCollection(\"users\", {})\ndb.users.createIndexes([{}])\n\n\
         A login must repeat the partial filter to use the index:\n\
         db.users.findOne({})\n",
        json(&spec.to_options_document()),
        json(&index),
        json(&doc! { "email": "asha@example.com", "deleted_at": { "$exists": false } }),
    )
}

/// The email index was built without its partial filter: every soft-deleted address stays taken.
/// `check` shows it must be rebuilt (a partial filter cannot change in place).
fn drift() -> Vec<Document> {
    vec![
        doc! { "dropIndexes": "users", "index": "email_1" },
        doc! {
            "createIndexes": "users",
            "indexes": [{ "key": { "email": 1 }, "name": "email_1", "unique": true }],
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict;

    fn user() -> Document {
        doc! { "email": "asha@example.com", "name": "Asha", "created_at": DateTime::from_millis(0) }
    }

    #[test]
    fn the_seeds_rules_hold() {
        let spec = User::collection_spec();
        assert_eq!(verdict(&spec, &user()), Ok(()));
        let with = |k: &str, v: bson::Bson| {
            let mut d = user();
            d.insert(k, v);
            verdict(&spec, &d).is_ok()
        };
        assert!(!with("email", "asha@example".into()));
        assert!(with("role", "moderator".into()));
        assert!(!with("role", "root".into()));
        assert!(with("age", bson::Bson::Int32(150)));
        assert!(!with("age", bson::Bson::Int32(151)));
        assert!(!with("age", bson::Bson::Int64(30)));
        let mut missing = user();
        missing.remove("created_at");
        assert!(verdict(&spec, &missing).is_err());
    }
}
