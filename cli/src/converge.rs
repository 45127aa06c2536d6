//! Plan and apply as an async Rust API, for an application that makes sure its collections exist
//! at start-up. Safe by default: [`ensure_collections`] never drops anything.
//!
//! ```no_run
//! # async fn start(db: mongodb::Database, declared: Vec<mongo_schema::spec::CollectionSpec>) -> anyhow::Result<()> {
//! let applied = mongo_schema_cli::converge::ensure_collections(&db, &declared).await?;
//! for step in &applied.done {
//!     println!("{}: {}", step.collection, step.summary);
//! }
//! # Ok(()) }
//! ```

use std::collections::BTreeMap;

use anyhow::Context;
use bson::{Bson, doc};
use mongo_schema::diff::{self, Change, ChangeKind, Plan, PlanOptions, Step};
use mongo_schema::plural;
use mongo_schema::spec::CollectionSpec;
use mongodb::Database;

pub use crate::indexes::IndexPolicy;
pub use crate::report::Applied;
use crate::{catalog, deployment, indexes};

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

/// The closing lines of `plan` and `apply`: which declared collections are in sync, what the
/// plan keeps (collections and indexes nothing declares, and that `--prune` would drop the
/// indexes), what else it leaves unfixed, and a last line that agrees with the exit code:
/// "nothing to do, in sync" only when no drift remains.
pub fn summary(
    declared: &[CollectionSpec],
    changes: &[Change],
    plan: &Plan,
    prune: bool,
) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let mut in_sync: Vec<&str> = declared
        .iter()
        .map(|d| d.name.as_str())
        .filter(|name| {
            !changes
                .iter()
                .any(|c| c.collection == *name && c.is_drift())
        })
        .collect();
    in_sync.sort_unstable();
    in_sync.dedup();
    if !in_sync.is_empty() {
        let _ = writeln!(out, "in sync: {}", in_sync.join(", "));
    }
    let extra_collections: Vec<&str> = changes
        .iter()
        .filter(|c| c.kind == ChangeKind::ExtraCollection)
        .map(|c| c.collection.as_str())
        .collect();
    if !extra_collections.is_empty() {
        let _ = writeln!(
            out,
            "kept: {} not declared: {} (mongo-schema never drops a collection)",
            plural::noun(extra_collections.len() == 1, "collection"),
            extra_collections.join(", ")
        );
    }
    let extra_indexes: Vec<String> = changes
        .iter()
        .filter(|c| c.kind == ChangeKind::ExtraIndex)
        .filter_map(|c| match &c.aspect {
            diff::Aspect::Index(name) => Some(format!("{}.{name}", c.collection)),
            _ => None,
        })
        .collect();
    if !prune && !extra_indexes.is_empty() {
        let _ = writeln!(
            out,
            "kept: {} not declared: {} (--prune would drop {})",
            plural::noun(extra_indexes.len() == 1, "index"),
            extra_indexes.join(", "),
            if extra_indexes.len() == 1 {
                "it"
            } else {
                "them"
            }
        );
    }
    let unfixed = plan
        .skipped
        .iter()
        .filter(|s| s.kind.is_drift())
        .filter(|s| !matches!(s.kind, ChangeKind::ExtraCollection))
        .filter(|s| prune || s.kind != ChangeKind::ExtraIndex)
        .count();
    let drift = diff::has_drift(changes);
    let steps = plan.steps.len();
    let last = match (steps, drift) {
        (0, false) => "plan: nothing to do, in sync".to_owned(),
        (0, true) => format!(
            "plan: nothing to run, but drift remains{}",
            if unfixed > 0 {
                format!(
                    " ({} no plan makes; see skipped)",
                    plural::count(unfixed, "change")
                )
            } else {
                String::new()
            }
        ),
        (n, _) => format!("plan: {}", plural::count(n, "step")),
    };
    out.push_str(&last);
    out.push('\n');
    out
}

/// Whether drift stays after every step of `plan` ran: a change the plan skips that is drift.
/// An unowned index left hidden under `--prune --hide` is the state asked for, not drift left.
pub fn drift_remains(changes: &[Change], plan: &Plan, options: &PlanOptions) -> bool {
    // A missing collection is created by a step; what the plan leaves of it (sharding it through
    // mongos) is advice, and `check` does not fail on a shard key it cannot read.
    let asked = |s: &diff::Skipped| {
        s.kind == ChangeKind::MissingCollection
            || (options.prune && options.hide_before_drop && s.kind == ChangeKind::ExtraIndex)
    };
    plan.skipped.iter().filter(|s| !asked(s)).any(|s| {
        changes
            .iter()
            .any(|c| c.collection == s.collection && c.aspect == s.aspect && c.is_drift())
    })
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
    plan_with(db, None, declared, options, &IndexPolicy::default()).await
}

/// [`plan`] under an [`IndexPolicy`]: each build shows its collection's data size (from
/// `$collStats`) and carries the policy's `commitQuorum`; with `options.prune`, each index
/// the plan would drop or hide shows its `$indexStats` usage, and a drop that evidence does not
/// allow is kept (a skipped change saying why) unless the policy forces it.
///
/// # Errors
/// A command the server refuses or a lost connection (an unreadable `$indexStats` is not one:
/// it keeps the index).
pub async fn plan_with(
    db: &Database,
    members: Option<&mongodb::options::ClientOptions>,
    declared: &[CollectionSpec],
    options: PlanOptions,
    policy: &IndexPolicy,
) -> anyhow::Result<(Vec<Change>, Plan)> {
    let changes = changes(db, declared, 16).await?;
    let mut options = options;
    let sizes = indexes::cost::read_sizes(db, &collections_with_builds(&changes)).await?;
    options.estimated_documents = sizes
        .iter()
        .map(|(name, size)| (name.clone(), size.count))
        .collect();
    let mut plan = plan_changes(&changes, &options);
    indexes::cost::annotate(&mut plan, &sizes, policy.commit_quorum.as_ref());
    if options.prune {
        let usage = indexes::usage::read_pruned(db, members, &plan, &changes).await;
        indexes::usage::guard(
            &mut plan,
            &changes,
            &indexes::usage::Source::Live(&usage),
            policy,
            bson::DateTime::now(),
        );
    }
    Ok((changes, plan))
}

/// [`diff::plan`] (kept as the CLI's one planning entry point).
pub fn plan_changes(changes: &[Change], options: &PlanOptions) -> Plan {
    diff::plan(changes, options)
}

/// Runs the steps in order. A step the server refuses, or acknowledges without storing, is
/// reported failed and holds back only the steps that need it ([`Step::depends_on`]); the
/// independent steps after it still run. The run stops when the deployment goes away.
pub async fn apply(db: &Database, plan: &Plan) -> Applied {
    apply_reporting(db, plan, |_| {}).await
}

/// As [`apply`], calling `on_done` as each step succeeds (index builds can take long).
pub async fn apply_reporting(db: &Database, plan: &Plan, on_done: impl FnMut(&Step)) -> Applied {
    apply_showing(db, plan, on_done, false).await
}

/// As [`apply_reporting`], drawing each index build's progress from `currentOp` on stderr when
/// `progress` (stderr is a terminal; [`indexes::progress`]).
pub async fn apply_showing(
    db: &Database,
    plan: &Plan,
    mut on_done: impl FnMut(&Step),
    progress: bool,
) -> Applied {
    let mut applied = Applied::default();
    // Positions of the steps that did not happen: a step needing one of them is blocked.
    let mut not_done: Vec<usize> = Vec::new();
    for (i, step) in plan.steps.iter().enumerate() {
        if let Some(&needed) = step.depends_on.iter().find(|d| not_done.contains(d)) {
            not_done.push(i);
            let reason = format!(
                "not run: it needs step {} ({}: {}), which did not happen",
                needed + 1,
                plan.steps[needed].collection,
                plan.steps[needed].summary
            );
            applied.blocked.push((step.clone(), reason));
            continue;
        }
        let reply = if progress && indexes::progress::is_build(step) {
            indexes::progress::run_build(db, step, true).await
        } else {
            db.run_command(step.command.clone()).await
        };
        let outcome = match reply {
            Ok(_) => read_back(db, step).await,
            Err(e) if deployment_lost(&e) => {
                applied.failed.push((step.clone(), deployment::explain(&e)));
                applied.remaining = plan.steps[i + 1..].to_vec();
                break;
            }
            Err(e) => Err(deployment::explain(&e)),
        };
        match outcome {
            Ok(()) => {
                on_done(step);
                applied.done.push(step.clone());
            }
            Err(reason) => {
                not_done.push(i);
                applied.failed.push((step.clone(), reason));
            }
        }
    }
    applied
}

/// Whether an error means this run cannot go on: the connection or the server is gone, or the
/// node stopped being primary. The codes are the retryable-write errors of the drivers'
/// Retryable Writes specification (as the Ruby driver's `WRITE_RETRY_ERRORS` lists them):
/// 6 HostUnreachable, 7 HostNotFound, 89 NetworkTimeout, 91 ShutdownInProgress,
/// 189 PrimarySteppedDown, 262 ExceededTimeLimit, 9001 SocketException, 10107 NotWritablePrimary,
/// 11600 InterruptedAtShutdown, 11602 InterruptedDueToReplStateChange,
/// 13435 NotPrimaryNoSecondaryOk, 13436 NotPrimaryOrSecondary. Any other reply is the server
/// refusing this one step.
fn deployment_lost(error: &mongodb::error::Error) -> bool {
    use mongodb::error::ErrorKind;
    match error.kind.as_ref() {
        ErrorKind::Command(command) => matches!(
            command.code,
            6 | 7 | 89 | 91 | 189 | 262 | 9001 | 10107 | 11600 | 11602 | 13435 | 13436
        ),
        ErrorKind::Write(_) | ErrorKind::InsertMany(_) | ErrorKind::BulkWrite(_) => false,
        ErrorKind::Authentication { .. } | ErrorKind::InvalidArgument { .. } => false,
        _ => true,
    }
}

/// Reads back what a step changed and says what the server acknowledged without storing it
/// (a hidden flag that does not persist, a `create` option it dropped, an index it did not
/// build or built otherwise), so that a step that did nothing is reported failed, not done.
///
/// The collection is listed again and normalized; the step's command is then applied to that
/// listed state in the model ([`diff::apply_command`], the server's rules): when the server
/// stored the step, applying it once more changes nothing the diff calls drift. An index's
/// `collMod` is checked field by field against its listed entry instead, as the model's
/// `unique` conversion needs a `prepareUnique` the server clears.
async fn read_back(db: &Database, step: &Step) -> Result<(), String> {
    let command = &step.command;
    let Some((verb, _)) = command.iter().next() else {
        return Ok(());
    };
    let collection = step.collection.as_str();
    let unread = |e: anyhow::Error| format!("acknowledged, but reading it back failed: {e:#}");
    let not_stored =
        |what: String| format!("the server acknowledged it but did not store it: {what}");
    if verb == "collMod" && command.contains_key("index") {
        return read_back_index_coll_mod(db, collection, command)
            .await
            .map_err(unread)?
            .map_or(Ok(()), |what| Err(not_stored(what)));
    }
    let live = live_spec(db, collection).await.map_err(unread)?;
    let Some(live) = live else {
        return Err(not_stored(format!("{collection} is not listed")));
    };
    let (mut wanted, mut listed) = match verb.as_str() {
        // Against an empty model: `create` on the listed collection would be NamespaceExists.
        "create" => {
            let mut model = Vec::new();
            diff::apply_command(&mut model, command).map_err(|e| format!("{e}"))?;
            (model.remove(0), live)
        }
        "createIndexes" | "dropIndexes" | "collMod" => {
            let mut model = vec![live.clone()];
            // A build the server lists as in progress was accepted and is under way.
            for index in &mut model[0].indexes {
                index.build_in_progress = false;
            }
            match diff::apply_command(&mut model, command) {
                Ok(()) => {}
                // Dropping what is not listed: it is gone, as asked.
                Err(e) if verb == "dropIndexes" && e.code == 27 => return Ok(()),
                Err(e) => {
                    return Err(not_stored(format!(
                        "what is listed conflicts with it ({e})"
                    )));
                }
            }
            (model.remove(0), live)
        }
        _ => return Ok(()),
    };
    if verb == "create" {
        // The indexes a collection is created with come in the next step.
        wanted.indexes.clear();
        listed.indexes.clear();
    }
    let left: Vec<String> = diff::diff(&[wanted], &[listed])
        .iter()
        .filter(|c| c.is_drift())
        .map(not_stored_part)
        .collect();
    if left.is_empty() {
        Ok(())
    } else {
        Err(not_stored(left.join("; ")))
    }
}

/// One difference between what a step asked for and what is listed after it, in words.
fn not_stored_part(change: &Change) -> String {
    let shown = |value: &Option<Bson>| match value {
        None => "absent".to_owned(),
        Some(Bson::String(s)) => s.clone(),
        Some(Bson::Document(_) | Bson::Array(_)) => "another value".to_owned(),
        Some(other) => other.to_string(),
    };
    match change.kind {
        ChangeKind::MissingIndex | ChangeKind::MissingCollection => {
            format!("{} is not listed", change.aspect)
        }
        ChangeKind::ExtraIndex => format!("{} is still listed", change.aspect),
        // An index option or a view's viewOn/pipeline: name what differs, not the whole value.
        _ if !change.fields.is_empty()
            && matches!(change.aspect, diff::Aspect::Index(_) | diff::Aspect::View) =>
        {
            format!(
                "{} is listed with another {}",
                change.aspect,
                change.fields.join(", ")
            )
        }
        _ => format!(
            "{} is listed as {}, not {}",
            change.aspect,
            shown(&change.live),
            shown(&change.declared)
        ),
    }
}

/// What a `collMod` of an index asked for and the server does not list, if anything.
async fn read_back_index_coll_mod(
    db: &Database,
    collection: &str,
    command: &bson::Document,
) -> anyhow::Result<Option<String>> {
    let Ok(index) = command.get_document("index") else {
        return Ok(None);
    };
    let name = index.get_str("name").unwrap_or_default();
    let listed = listed_indexes(db, collection).await?;
    let Some(live) = listed.iter().find(|l| index_name(l) == Some(name)) else {
        return Ok(Some(format!("index {name} is not listed")));
    };
    for (field, wanted) in index.iter().filter(|(k, _)| *k != "name") {
        // `hidden`, `unique` and `prepareUnique` absent are false.
        let stored = live
            .get(field)
            .cloned()
            .or_else(|| matches!(wanted, Bson::Boolean(_)).then_some(Bson::Boolean(false)));
        let same = stored
            .as_ref()
            .is_some_and(|s| mongo_schema::normalize::values_equal(s, wanted));
        if !same {
            let shown = stored.map_or_else(|| "absent".to_owned(), |s| s.to_string());
            return Ok(Some(format!(
                "index {name} is listed with {field} {shown}, not {wanted}"
            )));
        }
    }
    Ok(None)
}

/// The listed, normalized spec of one collection (`None` when it is not listed).
async fn live_spec(db: &Database, collection: &str) -> anyhow::Result<Option<CollectionSpec>> {
    let live = catalog::read_live(db, Some(&[collection.to_owned()]), 1).await?;
    Ok(live
        .live_specs()?
        .into_iter()
        .find(|spec| spec.name == collection))
}

/// The `listIndexes` entries of a collection, an in-progress build unwrapped to its spec.
async fn listed_indexes(db: &Database, collection: &str) -> anyhow::Result<Vec<bson::Document>> {
    let live = catalog::read_live(db, Some(&[collection.to_owned()]), 1).await?;
    Ok(live
        .indexes_of(collection)
        .iter()
        .map(|entry| match entry.get("spec") {
            Some(Bson::Document(spec)) if !entry.contains_key("key") => spec.clone(),
            _ => entry.clone(),
        })
        .collect())
}

fn index_name(entry: &bson::Document) -> Option<&str> {
    entry.get_str("name").ok()
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
    if let Some((step, error)) = applied.failed.first() {
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
