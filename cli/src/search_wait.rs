//! `apply --wait`: after the plan's search index commands ran, polls `$listSearchIndexes` until
//! every index they created or changed is queryable, with a bar on a terminal.
//!
//! The service builds a search index asynchronously: `createSearchIndexes` and
//! `updateSearchIndex` return at once, and `$listSearchIndexes` reports `status` (`PENDING`,
//! `BUILDING`, `READY`, `FAILED`, `STALE`, `DOES_NOT_EXIST`, `DELETING`) and `queryable` per
//! index; an updated index keeps serving its old definition (`queryable: true`) while the new
//! one builds, so `READY` is what "done" means for both (manual: `$listSearchIndexes`, "Output";
//! docs/server-facts.md#search-indexes). The whole wait is bounded by `--timeout`, as every
//! command's run is.

use std::time::Duration;

use anyhow::{Context as _, bail};
use bson::Document;
use mongo_schema::diff::Plan;
use mongodb::Database;

use crate::deployment;

/// How often the listing is read.
const POLL: Duration = Duration::from_millis(500);

/// The search indexes a plan's steps create or change, as `(collection, index name)`, in order.
pub fn awaited(plan: &Plan) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for step in &plan.steps {
        let command = &step.command;
        if let Ok(collection) = command.get_str("createSearchIndexes") {
            for index in command.get_array("indexes").into_iter().flatten() {
                if let Some(name) = index.as_document().and_then(|i| i.get_str("name").ok()) {
                    out.push((collection.to_owned(), name.to_owned()));
                }
            }
        } else if let (Ok(collection), Ok(name)) = (
            command.get_str("updateSearchIndex"),
            command.get_str("name"),
        ) {
            out.push((collection.to_owned(), name.to_owned()));
        }
    }
    out
}

/// Where one awaited index stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Standing {
    /// `READY` and queryable.
    Ready,
    /// Still on its way, with the status the service reports.
    Building(String),
    /// `FAILED` (or gone), with the service's message when it gives one.
    Failed(String),
}

/// Reads one `$listSearchIndexes` entry (or its absence) as a standing.
pub fn standing(entry: Option<&Document>) -> Standing {
    let Some(entry) = entry else {
        return Standing::Building("not listed yet".to_owned());
    };
    let status = entry.get_str("status").unwrap_or("UNKNOWN");
    let queryable = entry.get_bool("queryable").unwrap_or(false);
    match status {
        "READY" if queryable => Standing::Ready,
        "FAILED" | "DOES_NOT_EXIST" | "DELETING" => Standing::Failed(format!(
            "{status}{}",
            entry
                .get_str("message")
                .map(|m| format!(": {m}"))
                .unwrap_or_default()
        )),
        other => Standing::Building(other.to_owned()),
    }
}

/// Polls until every index of `awaited` is ready.
///
/// # Errors
/// An index the service reports failed, or a listing the deployment refuses.
pub async fn wait(
    db: &Database,
    awaited: &[(String, String)],
    visible: bool,
) -> anyhow::Result<()> {
    if awaited.is_empty() {
        return Ok(());
    }
    let bar = bar(awaited.len(), visible);
    loop {
        let mut ready = 0;
        let mut pending = Vec::new();
        for (collection, name) in awaited {
            let entries = list(db, collection).await?;
            let entry = entries
                .iter()
                .find(|e| e.get_str("name").is_ok_and(|n| n == name));
            match standing(entry) {
                Standing::Ready => ready += 1,
                Standing::Building(status) => pending.push(format!("{collection}.{name} {status}")),
                Standing::Failed(why) => {
                    bar.finish_and_clear();
                    bail!("search index {name} on {collection} did not build: {why}");
                }
            }
        }
        bar.set_position(ready as u64);
        if pending.is_empty() {
            bar.finish_and_clear();
            return Ok(());
        }
        bar.set_message(pending.join(", "));
        deployment::waiting_for(format!(
            "search indexes to become queryable ({}; apply --wait)",
            pending.join(", ")
        ));
        tokio::time::sleep(POLL).await;
    }
}

fn bar(total: usize, visible: bool) -> indicatif::ProgressBar {
    let target = if visible {
        indicatif::ProgressDrawTarget::stderr_with_hz(5)
    } else {
        indicatif::ProgressDrawTarget::hidden()
    };
    let bar = indicatif::ProgressBar::with_draw_target(Some(total as u64), target);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "search indexes queryable {pos}/{len} {elapsed} {wide_msg}",
        )
        .expect("the template is valid"),
    );
    bar
}

async fn list(db: &Database, collection: &str) -> anyhow::Result<Vec<Document>> {
    crate::catalog::search_index_entries(db, collection)
        .await?
        .map_err(|e| anyhow::anyhow!("{}", deployment::explain(&e)))
        .with_context(|| format!("{collection}: listing search indexes"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    #[test]
    fn ready_means_ready_and_queryable_and_failures_carry_the_message() {
        assert_eq!(standing(None), Standing::Building("not listed yet".into()));
        let entry = |status: &str, queryable: bool| doc! {"name": "s", "status": status, "queryable": queryable};
        assert_eq!(standing(Some(&entry("READY", true))), Standing::Ready);
        // An updated index serves its old definition while the new one builds.
        assert_eq!(
            standing(Some(&entry("BUILDING", true))),
            Standing::Building("BUILDING".into())
        );
        assert_eq!(
            standing(Some(&entry("PENDING", false))),
            Standing::Building("PENDING".into())
        );
        let mut failed = entry("FAILED", false);
        failed.insert("message", "bad analyzer");
        assert_eq!(
            standing(Some(&failed)),
            Standing::Failed("FAILED: bad analyzer".into())
        );
    }

    #[test]
    fn the_awaited_indexes_come_from_create_and_update_steps() {
        let plan = Plan {
            steps: vec![
                mongo_schema::diff::Step::new(
                    "products",
                    doc! {"createSearchIndexes": "products", "indexes": [{"name": "a", "definition": {}}, {"name": "b", "definition": {}}]},
                    "create",
                ),
                mongo_schema::diff::Step::new(
                    "products",
                    doc! {"updateSearchIndex": "products", "name": "c", "definition": {}},
                    "update",
                ),
                mongo_schema::diff::Step::new(
                    "products",
                    doc! {"dropSearchIndex": "products", "name": "d"},
                    "drop",
                ),
            ],
            skipped: Vec::new(),
            proposals: Vec::new(),
        };
        let names: Vec<String> = awaited(&plan).into_iter().map(|(_, n)| n).collect();
        assert_eq!(names, ["a", "b", "c"]);
    }
}
