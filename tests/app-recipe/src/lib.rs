//! A small application's model, declared the ordinary way: in the library crate, with nothing
//! but the derive. Its `src/bin/mongo-schema.rs` is the README's recipe; the tests run that binary.

use bson::oid::ObjectId;
use mongo_schema::MongoSchema;
use serde::{Deserialize, Serialize};

/// A user, with a unique email.
#[derive(Debug, Serialize, Deserialize, MongoSchema)]
#[mongo(collection = "users", index(keys(email), unique))]
pub struct User {
    /// The server's `_id`.
    #[serde(rename = "_id")]
    pub id: ObjectId,
    /// Unique per user.
    pub email: String,
}

/// A note a user wrote.
#[derive(Debug, Serialize, Deserialize, MongoSchema)]
#[mongo(collection = "notes", index(keys(user_id, created_at = -1)))]
pub struct Note {
    /// The server's `_id`.
    #[serde(rename = "_id")]
    pub id: ObjectId,
    /// The author.
    pub user_id: ObjectId,
    /// When it was written.
    pub created_at: bson::DateTime,
    /// What it says.
    pub text: String,
}
