//! Sharding: `events` is sharded on a hashed `user_id`, which spreads inserts over every shard;
//! a ranged key on an ever-growing field (`_id`, a timestamp) would send them all to one.

use bson::oid::ObjectId;
use bson::{DateTime, Document, doc};
use mongo_schema::MongoSchema;
use mongo_schema::lint::lint_collection;
use mongo_schema::spec::{Collection, CollectionSpec, ShardKey};
use serde::{Deserialize, Serialize};

use crate::{Example, json};

/// An event (`events`), sharded on a hashed `user_id` (with the hashed index supporting the key)
/// and read per user, newest first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
#[mongo(
    collection = "events",
    shard_key(keys(user_id = "hashed")),
    index(keys(user_id = "hashed")),
    index(keys(user_id, at = -1)),
    // A user's timeline, newest first: targeted to one shard by the hashed user_id.
    query(name = "user_timeline", eq(user_id), sort(at = -1), limit = 50)
)]
pub struct Event {
    /// Grows with time: a bad ranged shard key.
    #[serde(rename = "_id")]
    pub id: ObjectId,
    /// Whose event: many distinct values, spread by hashing.
    #[mongo(max_length = 64)]
    pub user_id: String,
    /// What happened.
    #[serde(rename = "type")]
    #[mongo(max_length = 64)]
    pub kind: String,
    /// When: grows with time.
    pub at: DateTime,
}

/// The example.
pub const EXAMPLE: Example = Example {
    name: "sharding",
    pattern: "sharding (events)",
    summary: "The shard key is declared with the collection: hashed user_id (the seed's fix). \
              A ranged key on _id or on a timestamp only grows, so every insert lands in the \
              last chunk on one shard; the collection lint (monotonic-shard-key) reports it, as \
              shown below for the same collection sharded on {_id: 1}.",
    collections,
    explain,
    drift,
};

fn collections() -> Vec<CollectionSpec> {
    vec![Event::collection_spec()]
}

fn explain() -> String {
    let spec = Event::collection_spec();
    let key = spec
        .shard_key
        .as_ref()
        .map(|k| k.keys.to_document())
        .unwrap_or_default();
    let mut hot = spec.clone();
    hot.shard_key = Some(ShardKey::ranged(["_id"]));
    let findings: Vec<String> = lint_collection(&hot, &[])
        .into_iter()
        .filter(|l| l.rule == "monotonic-shard-key")
        .map(|l| format!("  {} {}: {}", l.severity.as_str(), l.rule, l.message))
        .collect();
    format!(
        "sh.shardCollection(\"<db>.events\", {})\n\nThe same collection with a ranged {{_id: 1}} key:\n{}\n",
        json(&key),
        findings.join("\n"),
    )
}

/// The timeline index was never built.
fn drift() -> Vec<Document> {
    vec![doc! { "dropIndexes": "events", "index": "user_id_1_at_-1" }]
}

#[cfg(test)]
mod tests {
    use super::*;
    use mongo_schema::lint::LintKind;

    #[test]
    fn hashed_key_is_clean_and_a_ranged_id_key_is_reported() {
        let spec = Event::collection_spec();
        assert_eq!(
            spec.shard_key.as_ref().unwrap().keys.to_document(),
            doc! { "user_id": "hashed" }
        );
        assert!(
            lint_collection(&spec, &[])
                .iter()
                .all(|l| l.rule != LintKind::MonotonicShardKey.as_str())
        );
        let mut hot = spec;
        hot.shard_key = Some(ShardKey::ranged(["at"]));
        assert!(
            lint_collection(&hot, &[])
                .iter()
                .any(|l| l.rule == LintKind::MonotonicShardKey.as_str())
        );
    }
}
