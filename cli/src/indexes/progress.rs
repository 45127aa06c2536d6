//! `apply`'s index build progress: while a `createIndexes` runs, `currentOp` is read every half
//! second and its `progress: {done, total}` drawn as an `indicatif` bar on stderr (on a terminal
//! only; cleared when the build ends).

use std::future::IntoFuture;
use std::time::Duration;

use bson::{Bson, Document, doc};
use mongodb::Database;

use super::whole;

/// How often `currentOp` is read during a build.
pub const POLL_EVERY: Duration = Duration::from_millis(500);

/// The bar of one index build, in the style of `validate`'s: a spinner until `currentOp`
/// reports a total, then done/total documents, rate and ETA.
pub struct BuildBar {
    bar: indicatif::ProgressBar,
}

impl BuildBar {
    /// A bar labelled `label` (`orders: build index a_1`), drawn on stderr when `visible`
    /// (stderr is a terminal) and never otherwise.
    pub fn new(label: &str, visible: bool) -> BuildBar {
        let target = if visible {
            indicatif::ProgressDrawTarget::stderr_with_hz(5)
        } else {
            indicatif::ProgressDrawTarget::hidden()
        };
        let bar = indicatif::ProgressBar::with_draw_target(None, target);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{spinner} {msg} (waiting for currentOp)")
                .expect("the template is valid"),
        );
        bar.set_message(label.to_owned());
        bar.enable_steady_tick(Duration::from_millis(200));
        BuildBar { bar }
    }

    /// Shows what `currentOp` reported: `done` of `total` documents scanned.
    pub fn update(&self, done: u64, total: u64) {
        if self.bar.length().is_none() {
            self.bar.set_style(
                indicatif::ProgressStyle::with_template(
                    // The bar takes what the counts leave of the line, so it never wraps.
                    "{msg} {human_pos}/{human_len} docs {per_sec} ETA {eta} {wide_bar}",
                )
                .expect("the template is valid"),
            );
        }
        self.bar.set_length(total);
        self.bar.set_position(done.min(total));
    }

    /// Whether anything is drawn.
    pub fn is_hidden(&self) -> bool {
        self.bar.is_hidden()
    }

    /// The counts drawn so far (`None` before `currentOp` reported a total).
    pub fn counts(&self) -> Option<(u64, u64)> {
        Some((self.bar.position(), self.bar.length()?))
    }

    /// Clears the bar (the step's "done" line follows).
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// The `currentOp` filter of one collection's index builds.
///
/// Source: the manual's `currentOp` page, "Active Indexing Operations": index builds are
/// operations whose `command.createIndexes` names the collection; their `progress` field holds
/// `done` and `total` work items (documents scanned, then keys inserted).
pub fn filter(db: &str, collection: &str) -> Document {
    doc! {
        "currentOp": true,
        "command.createIndexes": collection,
        "$or": [{"ns": format!("{db}.{collection}")}, {"command.$db": db}],
        "progress": {"$exists": true},
    }
}

/// The progress of a collection's builds in a `currentOp` reply: the sums of `progress.done`
/// and `progress.total` over the matching operations, `None` when none reports progress.
pub fn progress_of(reply: &Document, db: &str, collection: &str) -> Option<(u64, u64)> {
    let ns = format!("{db}.{collection}");
    let mut found: Option<(u64, u64)> = None;
    for op in reply.get_array("inprog").ok()? {
        let Some(op) = op.as_document() else {
            continue;
        };
        let command = op.get_document("command").ok();
        let names_it = command.and_then(|c| c.get_str("createIndexes").ok()) == Some(collection);
        let same_db = op.get_str("ns").ok() == Some(ns.as_str())
            || command.and_then(|c| c.get_str("$db").ok()) == Some(db);
        let Ok(progress) = op.get_document("progress") else {
            continue;
        };
        if !(names_it && same_db) {
            continue;
        }
        let (Some(done), Some(total)) = (whole(progress.get("done")), whole(progress.get("total")))
        else {
            continue;
        };
        let (d, t) = found.unwrap_or((0, 0));
        found = Some((d.saturating_add(done), t.saturating_add(total)));
    }
    found
}

/// Reads the progress of a collection's builds; `None` when `currentOp` is refused (a user
/// without the `inprog` action) or lists no build with progress.
pub async fn poll(db: &Database, collection: &str) -> Option<(u64, u64)> {
    let admin = db.client().database("admin");
    let reply = admin
        .run_command(filter(db.name(), collection))
        .await
        .ok()?;
    progress_of(&reply, db.name(), collection)
}

/// Runs one `createIndexes` step, drawing its bar from `currentOp` meanwhile when `visible`.
///
/// # Errors
/// What the command returns.
pub async fn run_build(
    db: &Database,
    step: &mongo_schema::diff::Step,
    visible: bool,
) -> mongodb::error::Result<Document> {
    let command = db.run_command(step.command.clone()).into_future();
    if !visible {
        // Nothing would be drawn: no `currentOp` is read either.
        return command.await;
    }
    let bar = BuildBar::new(&format!("{}: {}", step.collection, step.summary), visible);
    tokio::pin!(command);
    let result = loop {
        tokio::select! {
            result = &mut command => break result,
            () = tokio::time::sleep(POLL_EVERY) => {
                if let Some((done, total)) = poll(db, &step.collection).await {
                    bar.update(done, total);
                }
            }
        }
    };
    bar.finish();
    result
}

/// Whether a step is an index build whose progress `currentOp` can show.
pub fn is_build(step: &mongo_schema::diff::Step) -> bool {
    step.command
        .keys()
        .next()
        .is_some_and(|k| k == "createIndexes")
        && matches!(step.command.get("indexes"), Some(Bson::Array(a)) if !a.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_sums_the_collections_builds_only() {
        let reply = doc! {"inprog": [
            {"ns": "shop.orders", "command": {"createIndexes": "orders", "$db": "shop"}, "progress": {"done": 40_i64, "total": 100_i64}},
            {"ns": "shop.orders", "command": {"createIndexes": "orders", "$db": "shop"}, "progress": {"done": 1, "total": 2.0}},
            {"ns": "shop.users", "command": {"createIndexes": "users", "$db": "shop"}, "progress": {"done": 5, "total": 9}},
            {"ns": "other.orders", "command": {"createIndexes": "orders", "$db": "other"}, "progress": {"done": 5, "total": 9}},
            {"ns": "shop.orders", "command": {"createIndexes": "orders"}},
            "not a document",
        ], "ok": 1.0};
        assert_eq!(progress_of(&reply, "shop", "orders"), Some((41, 102)));
        assert_eq!(progress_of(&reply, "shop", "carts"), None);
        assert_eq!(progress_of(&doc! {"ok": 1.0}, "shop", "orders"), None);
    }

    #[test]
    fn a_hidden_bar_draws_nothing_but_keeps_counts() {
        let bar = BuildBar::new("orders: build index a_1", false);
        assert!(bar.is_hidden());
        assert_eq!(bar.counts(), None);
        bar.update(30, 100);
        assert_eq!(bar.counts(), Some((30, 100)));
        // A report past the total (a build's key phase) never overflows the bar.
        bar.update(150, 100);
        assert_eq!(bar.counts(), Some((100, 100)));
        bar.finish();
    }
}
