//! Plan and apply as an async Rust API, for an application that makes sure its collections exist
//! at start-up. Safe by default: [`ensure_collections`] never drops anything.
//!
//! ```no_run
//! # async fn start(db: mongodb::Database, declared: Vec<mongo_schema::collection::CollectionSpec>) -> anyhow::Result<()> {
//! let applied = mongo_schema_cli::converge::ensure_collections(&db, &declared).await?;
//! for step in &applied.done {
//!     println!("{}: {}", step.collection, step.summary);
//! }
//! # Ok(()) }
//! ```

use std::collections::BTreeMap;

use anyhow::Context;
use bson::{Bson, doc};
use mongo_schema::collection::CollectionSpec;
use mongo_schema::diff::{self, Change, ChangeKind, Plan, PlanOptions, Step};
use mongodb::Database;

use crate::{catalog, deployment};

/// How a run of a plan ended.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Applied {
    /// Steps the server accepted, in order.
    pub done: Vec<Step>,
    /// The step the server refused, with its error in one sentence.
    pub failed: Option<(Step, String)>,
    /// Steps not attempted.
    pub remaining: Vec<Step>,
}

impl Applied {
    /// Whether every step ran.
    pub fn is_complete(&self) -> bool {
        self.failed.is_none() && self.remaining.is_empty()
    }
}

/// Checks each declaration as the server's `create` would (its `$jsonSchema` through the
/// server-faithful parser among them), so that `check`, `plan` and `apply` refuse with exit 2 a
/// declaration no server can hold instead of reporting drift against it.
///
/// # Errors
/// The first declaration the server would refuse, naming the collection and the keyword.
pub fn check_declared(declared: &[CollectionSpec]) -> anyhow::Result<()> {
    for spec in declared {
        spec.check()
            .context("the declaration cannot be created on any server; fix it first")?;
    }
    Ok(())
}

/// Reads the live collections the declarations name and diffs them.
///
/// # Errors
/// A command the server refuses or a lost connection.
pub async fn changes(
    db: &Database,
    declared: &[CollectionSpec],
    concurrency: usize,
) -> anyhow::Result<Vec<Change>> {
    let names: Vec<String> = declared.iter().map(|s| s.name.clone()).collect();
    let live = catalog::read_live(db, Some(&names), concurrency).await?;
    Ok(diff::diff(declared, &live.live_specs()?))
}

/// The plan that makes the deployment match `declared`, with estimated document counts beside
/// index builds. Drops only with `options.prune`.
///
/// # Errors
/// A command the server refuses or a lost connection.
pub async fn plan(
    db: &Database,
    declared: &[CollectionSpec],
    options: PlanOptions,
) -> anyhow::Result<(Vec<Change>, Plan)> {
    let changes = changes(db, declared, 16).await?;
    let mut options = options;
    options.estimated_documents = estimate_counts(db, &collections_with_builds(&changes)).await?;
    let plan = plan_changes(&changes, &options);
    Ok((changes, plan))
}

/// [`diff::plan`] (kept as the CLI's one planning entry point).
pub fn plan_changes(changes: &[Change], options: &PlanOptions) -> Plan {
    diff::plan(changes, options)
}

/// Runs the steps in order and stops at the first the server refuses.
pub async fn apply(db: &Database, plan: &Plan) -> Applied {
    apply_reporting(db, plan, |_| {}).await
}

/// As [`apply`], calling `on_done` as each step succeeds (index builds can take long).
pub async fn apply_reporting(
    db: &Database,
    plan: &Plan,
    mut on_done: impl FnMut(&Step),
) -> Applied {
    let mut applied = Applied {
        remaining: plan.steps.clone(),
        ..Applied::default()
    };
    while !applied.remaining.is_empty() {
        let step = applied.remaining.remove(0);
        match db.run_command(step.command.clone()).await {
            Ok(_) => {
                on_done(&step);
                applied.done.push(step);
            }
            Err(e) => {
                applied.failed = Some((step, deployment::explain(&e)));
                break;
            }
        }
    }
    applied
}

/// Creates missing collections and indexes and brings options in line, never dropping anything.
///
/// # Errors
/// The deployment cannot be read, or a step fails (the error names it; what was done stays done,
/// and the next call continues from there).
pub async fn ensure_collections(
    db: &Database,
    declared: &[CollectionSpec],
) -> anyhow::Result<Applied> {
    let (_, plan) = plan(db, declared, PlanOptions::default()).await?;
    let applied = apply(db, &plan).await;
    if let Some((step, error)) = &applied.failed {
        anyhow::bail!("{}: {} failed: {error}", step.collection, step.summary);
    }
    Ok(applied)
}

/// The collections that would get an index build: those worth an estimated count.
pub fn collections_with_builds(changes: &[Change]) -> Vec<String> {
    let mut names: Vec<String> = changes
        .iter()
        .filter(|c| matches!(c.kind, ChangeKind::MissingIndex | ChangeKind::Rebuild))
        .map(|c| c.collection.clone())
        .collect();
    names.dedup();
    names
}

/// Estimated document counts (`count` without a query: collection metadata, no scan).
///
/// # Errors
/// A count the server refuses.
pub async fn estimate_counts(
    db: &Database,
    names: &[String],
) -> anyhow::Result<BTreeMap<String, u64>> {
    let mut counts = BTreeMap::new();
    for name in names {
        let reply = db
            .run_command(doc! {"count": name})
            .await
            .map_err(|e| anyhow::anyhow!("{}", deployment::explain(&e)))
            .with_context(|| format!("counting documents of {name}"))?;
        let n = match reply.get("n") {
            Some(Bson::Int32(n)) => u64::try_from(*n).unwrap_or(0),
            Some(Bson::Int64(n)) => u64::try_from(*n).unwrap_or(0),
            // Counts are whole numbers; some servers send them as doubles.
            Some(Bson::Double(n)) if *n >= 0.0 => *n as u64,
            _ => 0,
        };
        counts.insert(name.clone(), n);
    }
    Ok(counts)
}
