//! Fixing an unbounded array: a user's `liked_posts` grows forever, so it becomes its own
//! collection, `likes`, one small document per like.

use bson::oid::ObjectId;
use bson::{DateTime, Document, doc};
use mongo_schema::MongoSchema;
use mongo_schema::lint::lint_collection;
use mongo_schema::spec::{Collection, CollectionSpec};
use serde::{Deserialize, Serialize};

use crate::{Example, json};

/// The anti-pattern: every like in the user document (not declared as a collection here).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
pub struct UserWithLikes {
    /// The user id.
    #[serde(rename = "_id")]
    pub id: ObjectId,
    /// Display name.
    #[mongo(max_length = 100)]
    pub name: String,
    /// Millions of ids, eventually.
    pub liked_posts: Vec<ObjectId>,
}

/// The user without the array (`users`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
#[mongo(collection = "users")]
pub struct User {
    /// The user id.
    #[serde(rename = "_id")]
    pub id: ObjectId,
    /// Display name.
    #[mongo(max_length = 100)]
    pub name: String,
}

/// One like (`likes`): one per user and post (unique), and "who liked this post" by `post_id`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
#[mongo(
    collection = "likes",
    index(keys(user_id, post_id), unique),
    // "Has this user liked this post?" and "who liked this post". (Both name `post_id`, which
    // clippy's `duplicated_attributes` reads as a repeated attribute: expected below.)
    query(name = "liked", eq(user_id, post_id)),
    query(name = "post_likes", eq(post_id))
)]
#[expect(
    clippy::duplicated_attributes,
    reason = "two query(...) entries naming the same field read to clippy as a repeated attribute"
)]
pub struct Like {
    /// The like id.
    #[serde(rename = "_id")]
    pub id: ObjectId,
    /// Who liked.
    pub user_id: ObjectId,
    /// What they liked; indexed on its own for "who liked this post".
    // A field shorthand: a second `index(keys(post_id))` beside the compound one trips clippy's
    // `duplicated_attributes`, which reads `post_id` as a repeated attribute.
    #[mongo(index)]
    pub post_id: ObjectId,
    /// When.
    pub created_at: DateTime,
}

/// The example.
pub const EXAMPLE: Example = Example {
    name: "unbounded_array",
    pattern: "fixing an unbounded array (likes)",
    summary: "`liked_posts: Vec<ObjectId>` in the user grows without limit: towards the 16 MiB \
              document limit, with every like rewriting a large document. The lint reports it \
              (unbounded-array). The fix: a `likes` collection, one document per like, with a \
              unique {user_id, post_id} index; the user document stays small.",
    collections,
    explain,
    drift,
};

fn collections() -> Vec<CollectionSpec> {
    vec![User::collection_spec(), Like::collection_spec()]
}

fn explain() -> String {
    let before = CollectionSpec::new("users").json_schema(UserWithLikes::root_schema());
    let findings: Vec<String> = lint_collection(&before, &[])
        .into_iter()
        .map(|l| {
            format!(
                "  {} {} at {}: {}",
                l.severity.as_str(),
                l.rule,
                l.path,
                l.message
            )
        })
        .collect();
    let like = doc! {
        "_id": ObjectId::from_bytes([0x01; 12]),
        "user_id": ObjectId::from_bytes([0x02; 12]),
        "post_id": ObjectId::from_bytes([0x03; 12]),
        "created_at": DateTime::from_millis(1_768_471_200_000),
    };
    format!(
        "The lint of the user with liked_posts embedded:\n{}\n\n\
         After the fix a like is: db.likes.insertOne({})\n\
         and unliking: db.likes.deleteOne({})\n",
        findings.join("\n"),
        json(&like),
        json(
            &doc! { "user_id": ObjectId::from_bytes([0x02; 12]), "post_id": ObjectId::from_bytes([0x03; 12]) }
        ),
    )
}

/// The unique index is missing: a double click stores two likes.
fn drift() -> Vec<Document> {
    vec![doc! { "dropIndexes": "likes", "index": "user_id_1_post_id_1" }]
}

#[cfg(test)]
mod tests {
    use super::*;
    use mongo_schema::lint::LintKind;

    #[test]
    fn the_array_is_reported_and_the_fix_is_clean() {
        let before = CollectionSpec::new("users").json_schema(UserWithLikes::root_schema());
        let unbounded: Vec<String> = lint_collection(&before, &[])
            .into_iter()
            .filter(|l| l.rule == LintKind::UnboundedArray.as_str())
            .map(|l| l.path)
            .collect();
        assert_eq!(unbounded, ["liked_posts"]);
        for spec in collections() {
            assert!(
                lint_collection(&spec, &[])
                    .iter()
                    .all(|l| l.rule != LintKind::UnboundedArray.as_str())
            );
        }
    }
}
