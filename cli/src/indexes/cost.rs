//! Index builds with their cost: each build's collection size (documents and data, from
//! `$collStats`), and the `commitQuorum` every `createIndexes` carries when asked.

use std::collections::BTreeMap;

use anyhow::Context;
use bson::{Bson, doc};
use mongo_schema::diff::Plan;
use mongodb::Database;

use super::{bytes, whole};
use crate::deployment;

/// The size of a collection an index build reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CollectionSize {
    /// Documents (metadata count, no scan).
    pub count: u64,
    /// Uncompressed data size in bytes (`storageStats.size`), when the server said.
    pub size: Option<u64>,
}

impl CollectionSize {
    /// The average document size, when the size is known and the collection is not empty.
    pub fn average(&self) -> Option<u64> {
        Some(self.size? / self.count.max(1)).filter(|_| self.count > 0)
    }
}

/// Reads the size of each collection: `$collStats` `storageStats`, summed over shards, or the
/// document count alone (`count` without a query) where the stage is refused (an old or
/// partly compatible server, a user without `collStats`).
///
/// Source: the manual's `$collStats` page: one document per shard for a sharded collection,
/// one otherwise; `storageStats.count` and `storageStats.size` (the uncompressed data size in
/// bytes at the default scale 1).
///
/// # Errors
/// A `count` the server refuses.
pub async fn read_sizes(
    db: &Database,
    names: &[String],
) -> anyhow::Result<BTreeMap<String, CollectionSize>> {
    let mut sizes = BTreeMap::new();
    for name in names {
        let size = match super::aggregate(db, name, doc! {"$collStats": {"storageStats": {}}}).await
        {
            Ok(documents) if !documents.is_empty() => {
                let mut total = CollectionSize {
                    count: 0,
                    size: Some(0),
                };
                for document in &documents {
                    let stats = document.get_document("storageStats").ok();
                    total.count = total
                        .count
                        .saturating_add(whole(stats.and_then(|s| s.get("count"))).unwrap_or(0));
                    total.size = match (total.size, whole(stats.and_then(|s| s.get("size")))) {
                        (Some(sum), Some(size)) => Some(sum.saturating_add(size)),
                        _ => None,
                    };
                }
                total
            }
            _ => CollectionSize {
                count: count(db, name).await?,
                size: None,
            },
        };
        sizes.insert(name.clone(), size);
    }
    Ok(sizes)
}

/// The estimated document count (`count` without a query: collection metadata, no scan).
async fn count(db: &Database, name: &str) -> anyhow::Result<u64> {
    let reply = db
        .run_command(doc! {"count": name})
        .await
        .map_err(|e| anyhow::anyhow!("{}", deployment::explain(&e)))
        .with_context(|| format!("counting documents of {name}"))?;
    Ok(whole(reply.get("n")).unwrap_or(0))
}

/// Adds the data size to the summary of each index build on an existing collection (`build
/// index a_1 (data 1.2 MiB, avg 312 B a document)`), and `commitQuorum` to every
/// `createIndexes` when one is given.
pub fn annotate(
    plan: &mut Plan,
    sizes: &BTreeMap<String, CollectionSize>,
    commit_quorum: Option<&Bson>,
) {
    for step in &mut plan.steps {
        if step.command.keys().next().map(String::as_str) != Some("createIndexes") {
            continue;
        }
        if let Some(quorum) = commit_quorum {
            step.command.insert("commitQuorum", quorum.clone());
        }
        // A build on a collection created by the plan reads nothing.
        if !step.summary.starts_with("build index ") {
            continue;
        }
        // An empty collection's build reads nothing: its `[~0 documents]` says so.
        let Some(size) = sizes.get(&step.collection).filter(|s| s.count > 0) else {
            continue;
        };
        if let Some(data) = size.size {
            let average = size
                .average()
                .map(|a| format!(", avg {} a document", bytes(a)))
                .unwrap_or_default();
            step.summary = format!("{} (data {}{average})", step.summary, bytes(data));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::parse_commit_quorum;
    use mongo_schema::diff::Step;

    #[test]
    fn commit_quorums_are_numbers_modes_or_tags() {
        assert_eq!(parse_commit_quorum("2"), Ok(Bson::Int32(2)));
        assert_eq!(parse_commit_quorum("0"), Ok(Bson::Int32(0)));
        assert_eq!(parse_commit_quorum("50"), Ok(Bson::Int32(50)));
        assert_eq!(parse_commit_quorum("majority"), Ok(Bson::from("majority")));
        assert_eq!(
            parse_commit_quorum("votingMembers"),
            Ok(Bson::from("votingMembers"))
        );
        assert_eq!(parse_commit_quorum("dc-east"), Ok(Bson::from("dc-east")));
        for bad in [
            "",
            " ",
            "51",
            "-1",
            "1.5",
            "99999999999999999999",
            "+x",
            "Majority",
            "votingmembers",
            "a\u{7}",
        ] {
            let error = parse_commit_quorum(bad).expect_err(bad);
            assert!(error.contains("commit quorum"), "{bad}: {error}");
        }
    }

    fn build(collection: &str, summary: &str) -> Step {
        let command =
            doc! {"createIndexes": collection, "indexes": [{"key": {"a": 1}, "name": "a_1"}]};
        let mut step = Step::new(collection, command, summary);
        step.estimated_documents = Some(4);
        step
    }

    #[test]
    fn builds_carry_their_data_size_and_the_commit_quorum() {
        let mut plan = Plan {
            steps: vec![
                build("orders", "build index a_1"),
                build("fresh", "build indexes a_1 on the new collection"),
                {
                    let mut drop = build("orders", "drop index b_1");
                    drop.command = doc! {"dropIndexes": "orders", "index": "b_1"};
                    drop
                },
            ],
            skipped: Vec::new(),
            proposals: Vec::new(),
        };
        let sizes = BTreeMap::from([(
            "orders".to_owned(),
            CollectionSize {
                count: 4,
                size: Some(4096),
            },
        )]);
        annotate(&mut plan, &sizes, Some(&Bson::from("majority")));
        assert_eq!(
            plan.steps[0].summary,
            "build index a_1 (data 4.0 KiB, avg 1.0 KiB a document)"
        );
        assert_eq!(
            plan.steps[0].command.get_str("commitQuorum").ok(),
            Some("majority")
        );
        assert_eq!(
            plan.steps[1].summary,
            "build indexes a_1 on the new collection"
        );
        assert_eq!(
            plan.steps[1].command.get_str("commitQuorum").ok(),
            Some("majority")
        );
        assert!(!plan.steps[2].command.contains_key("commitQuorum"));
    }

    #[test]
    fn an_empty_collection_has_no_average() {
        let empty = CollectionSize {
            count: 0,
            size: Some(0),
        };
        assert_eq!(empty.average(), None);
        let unknown = CollectionSize {
            count: 3,
            size: None,
        };
        assert_eq!(unknown.average(), None);
    }
}
