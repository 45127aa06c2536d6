//! `migrate`: the background half of the schema-versioning pattern. Finds the documents still on
//! an older version (`Versioned::outdated_filter`), reads each as the current type
//! (`Versioned::from_any_version`) and writes it back with the type's serializer, in batches
//! ordered by `_id`, throttled, never over a change made since the read. At the end it proves
//! that no outdated document is left and shows the validator step that drops the old branches.
//!
//! Resuming is re-running: a rewritten document no longer matches the outdated filter, so a
//! run stopped anywhere (killed, a lost connection, an error) leaves exactly the documents it
//! did not rewrite for the next run to find, and nothing is rewritten twice. Within a run each
//! batch is a new query `{$and: [outdated, {_id: {$gt: last}}]}` sorted by `_id`, so a
//! throttled run holds no cursor open (the server closes idle cursors after 10 minutes); a
//! later pass starts again from the smallest `_id` to retry what another writer changed under
//! it (and `_id`s of another BSON type, which `$gt` compares only within their type).

use std::fmt::Write as _;
use std::future::IntoFuture as _;
use std::time::{Duration, Instant};

use anyhow::Context;
use bson::{Bson, Document, RawDocument, doc};
use mongo_schema::spec::{Collection, CollectionSpec, SpecError};
use mongo_schema::version::{Versioned, version_of};
use mongodb::Database;
use mongodb::error::{ErrorKind, WriteFailure};

use crate::Outcome;
use crate::args::MigrateArgs;
use crate::console::Console;
use crate::deployment::{self, block_on};
use crate::render::human::{Paint, paint, shown};
use mongo_schema::plural::count;

/// One versioned collection `migrate` can rewrite: its declaration and the application's
/// conversion of a stored document to the current version.
#[derive(Clone, Copy, Debug)]
pub struct Migration {
    spec: fn() -> Result<CollectionSpec, SpecError>,
    field: &'static str,
    current: i64,
    outdated: fn() -> Document,
    upgrade: fn(&RawDocument) -> Result<Document, String>,
}

impl Migration {
    /// The migration of `T`'s collection: documents matching `T::outdated_filter()` are read with
    /// `T::from_any_version` and written back as `T` serializes.
    pub fn of<T>() -> Migration
    where
        T: Versioned + Collection + serde::Serialize,
    {
        Migration {
            spec: T::try_collection_spec,
            field: T::FIELD,
            current: T::CURRENT,
            outdated: T::outdated_filter,
            upgrade: upgrade::<T>,
        }
    }
}

fn upgrade<T: Versioned + serde::Serialize>(stored: &RawDocument) -> Result<Document, String> {
    let current = T::from_any_version(stored).map_err(|e| e.to_string())?;
    bson::serialize_to_document(&current).map_err(|e| format!("cannot serialize it: {e}"))
}

/// What one collection's migration did.
#[derive(Debug, Default)]
struct Tally {
    /// Outdated documents when the run started.
    outdated: u64,
    /// Rewritten by this run.
    migrated: u64,
    /// Rewrites not done because the document changed after it was read: retried in the next
    /// pass when it is still outdated.
    changed_meanwhile: u64,
    /// Documents that could not be converted or rewritten: `_id` and why.
    failed: Vec<(Bson, String)>,
    /// With --dry-run: documents that convert, and a few (before, after) pairs.
    convertible: u64,
    samples: Vec<(Document, Document)>,
    /// Outdated documents left at the end (the proof: 0); `None` when the run stopped first.
    left: Option<u64>,
    passes: usize,
}

/// Runs the migrations the binary links (or the one `--collection` names).
///
/// # Errors
/// No migration linked, a deployment that cannot be reached, a command the server refuses, or
/// (without `--keep-going`) the first document that cannot be converted or rewritten.
pub fn run(
    args: &MigrateArgs,
    migrations: &[Migration],
    console: &mut Console,
) -> anyhow::Result<Outcome> {
    if migrations.is_empty() {
        anyhow::bail!(
            "no versioned collection is linked into this binary: `migrate` runs in the \
             application's own binary, which names its versioned types: \
             `mongo_schema_cli::main!(my_app; migrate(my_app::User))`"
        );
    }
    let mut chosen = Vec::new();
    for m in migrations {
        let spec = (m.spec)().context("the declared collections")?;
        if args.collection.as_ref().is_none_or(|c| *c == spec.name) {
            chosen.push((*m, spec));
        }
    }
    if chosen.is_empty() {
        let names: Vec<String> = migrations
            .iter()
            .filter_map(|m| (m.spec)().ok().map(|s| s.name))
            .collect();
        anyhow::bail!(
            "--collection {:?} is not a versioned collection of this binary (it migrates: {})",
            args.collection.as_deref().unwrap_or_default(),
            names.join(", ")
        );
    }
    // The run may take hours: --timeout bounds each command, not the whole run.
    block_on(Duration::from_secs(366 * 24 * 3600), async {
        let deployment = deployment::connect(&args.connect).await?;
        let mut outcome = Outcome::Clean;
        for (migration, spec) in &chosen {
            let mut tally = Tally::default();
            let result = migrate(&deployment.db, args, migration, spec, &mut tally, console).await;
            console.out(&report(args, migration, spec, &tally, console.colour));
            result?;
            if args.dry_run {
                if tally.outdated > 0 {
                    outcome = Outcome::Findings;
                }
                continue;
            }
            if tally.left != Some(0) {
                outcome = Outcome::Findings;
            } else {
                let mut plan = mongo_schema::diff::Plan::default();
                crate::cmd::plan::propose_version_drops(
                    &deployment.db,
                    std::slice::from_ref(spec),
                    &mut plan,
                    args.connect.timeout,
                )
                .await;
                console.out(&crate::render::human::proposals(
                    &plan.proposals,
                    console.colour,
                ));
            }
        }
        Ok(outcome)
    })
}

/// One collection: passes until no outdated document is left, a pass neither rewrites a
/// document nor loses one to a concurrent writer (only failures are left), or `--passes` is
/// spent; then counts what is left.
async fn migrate(
    db: &Database,
    args: &MigrateArgs,
    migration: &Migration,
    spec: &CollectionSpec,
    tally: &mut Tally,
    console: &Console,
) -> anyhow::Result<()> {
    let outdated = (migration.outdated)();
    let coll = db.collection::<Document>(&spec.name);
    let timeout = args.connect.timeout;
    tally.outdated = within(timeout, coll.count_documents(outdated.clone()))
        .await
        .with_context(|| format!("{}: counting the outdated documents", spec.name))?;
    let progress = if console.progress && !args.dry_run {
        indicatif::ProgressBar::new(tally.outdated)
    } else {
        indicatif::ProgressBar::hidden()
    };
    progress.set_style(
        indicatif::ProgressStyle::with_template(
            "migrate {prefix} {bar:30} {pos}/{len} documents, {per_sec}, ETA {eta} {msg}",
        )
        .expect("the template is valid"),
    );
    progress.set_prefix(spec.name.clone());
    let started = Instant::now();
    let result = async {
        if args.dry_run {
            return dry_run(&coll, args, migration, &outdated, tally).await;
        }
        for _ in 0..args.passes {
            tally.passes += 1;
            let before = (tally.migrated, tally.changed_meanwhile);
            let mut last: Option<Bson> = None;
            loop {
                let batch =
                    read_batch(&coll, &outdated, last.as_ref(), &tally.failed, args).await?;
                let Some(end) = batch.last().and_then(|d| d.get("_id")).cloned() else {
                    break;
                };
                for stored in &batch {
                    rewrite(&coll, args, migration, stored, tally).await?;
                    progress.set_position(tally.migrated);
                    progress.set_message(format!(
                        "{} changed meanwhile, {} failed",
                        tally.changed_meanwhile,
                        tally.failed.len()
                    ));
                    throttle(args.rate, started, tally.migrated).await;
                }
                last = Some(end);
            }
            // A pass that neither rewrote nor lost a race leaves only failures: stop.
            if (tally.migrated, tally.changed_meanwhile) == before {
                break;
            }
            let left = within(
                timeout,
                coll.count_documents(without_failed(&outdated, &tally.failed)),
            )
            .await?;
            if left == 0 {
                break;
            }
        }
        Ok(())
    }
    .await;
    progress.finish_and_clear();
    result?;
    // The proof of completion: the server's own count of the outdated filter.
    tally.left = Some(
        within(timeout, coll.count_documents(outdated))
            .await
            .with_context(|| format!("{}: counting the outdated documents left", spec.name))?,
    );
    Ok(())
}

/// Reads one batch of outdated documents after `last`, sorted by `_id`, skipping those that
/// already failed in this run (with --keep-going).
async fn read_batch(
    coll: &mongodb::Collection<Document>,
    outdated: &Document,
    last: Option<&Bson>,
    failed: &[(Bson, String)],
    args: &MigrateArgs,
) -> anyhow::Result<Vec<Document>> {
    let mut filter = without_failed(outdated, failed);
    if let Some(last) = last {
        filter = doc! { "$and": [filter, { "_id": { "$gt": last.clone() } }] };
    }
    let limit = i64::try_from(args.batch).expect("--batch is at most 100000");
    let read = async {
        let mut cursor = coll
            .find(filter)
            .sort(doc! { "_id": 1 })
            .limit(limit)
            .batch_size(u32::try_from(args.batch).expect("--batch is at most 100000"))
            .await?;
        let mut out = Vec::new();
        while cursor.advance().await? {
            out.push(Document::try_from(cursor.current())?);
        }
        Ok::<_, mongodb::error::Error>(out)
    };
    within(args.connect.timeout, read)
        .await
        .with_context(|| format!("{}: reading a batch of outdated documents", coll.name()))
}

fn without_failed(outdated: &Document, failed: &[(Bson, String)]) -> Document {
    if failed.is_empty() {
        return outdated.clone();
    }
    let ids: Vec<Bson> = failed.iter().map(|(id, _)| id.clone()).collect();
    doc! { "$and": [outdated.clone(), { "_id": { "$nin": ids } }] }
}

/// Converts and rewrites one document, only if it is unchanged since it was read.
///
/// The filter is `{_id, $jsonSchema: {enum: [the document as read]}}`: a top-level `enum`
/// matches the whole document (docs/server-facts.md#migration-writes: the server's
/// `$_internalSchemaRootDocEq`, field order ignored, null matching only null), so any write in
/// between (a lazy migration, an edit) makes it match nothing, and the document is counted as
/// changed meanwhile instead of being overwritten.
async fn rewrite(
    coll: &mongodb::Collection<Document>,
    args: &MigrateArgs,
    migration: &Migration,
    stored: &Document,
    tally: &mut Tally,
) -> anyhow::Result<()> {
    let id = stored.get("_id").cloned().unwrap_or(Bson::Null);
    let converted = match convert(migration, stored) {
        Ok(converted) => converted,
        Err(why) => return fail(args, coll.name(), tally, id, why),
    };
    let unchanged = doc! { "_id": id.clone(), "$jsonSchema": { "enum": [stored.clone()] } };
    let replaced = tokio::time::timeout(
        args.connect.timeout,
        coll.replace_one(unchanged, converted).into_future(),
    )
    .await
    .map_err(|_| {
        anyhow::anyhow!(
            "{}: rewriting _id {} took longer than --timeout ({})",
            coll.name(),
            shown(&id),
            deployment::show(args.connect.timeout)
        )
    })?;
    match replaced {
        Ok(result) if result.matched_count == 1 => tally.migrated += 1,
        Ok(_) => tally.changed_meanwhile += 1,
        Err(error) => match write_error(&error) {
            Some(why) => return fail(args, coll.name(), tally, id, why),
            None => {
                anyhow::bail!(
                    "{}: rewriting _id {}: {}",
                    coll.name(),
                    shown(&id),
                    deployment::explain(&error)
                );
            }
        },
    }
    Ok(())
}

/// The current version of `stored`, checked: same `_id`, version field = the current version
/// (else the next pass would find it again).
fn convert(migration: &Migration, stored: &Document) -> Result<Document, String> {
    let raw = bson::RawDocumentBuf::try_from(stored).map_err(|e| e.to_string())?;
    let converted = (migration.upgrade)(&raw)?;
    if converted.get("_id") != stored.get("_id") {
        return Err(format!(
            "the converted document has _id {}, not the stored one",
            converted
                .get("_id")
                .map_or_else(|| "missing".to_owned(), shown)
        ));
    }
    let raw = bson::RawDocumentBuf::try_from(&converted).map_err(|e| e.to_string())?;
    match version_of(&raw, migration.field) {
        Ok(Some(v)) if v == migration.current => Ok(converted),
        Ok(other) => Err(format!(
            "the converted document has {} {}, not {} (the current type must write its version)",
            migration.field,
            other.map_or_else(|| "absent".to_owned(), |v| v.to_string()),
            migration.current
        )),
        Err(e) => Err(e.to_string()),
    }
}

/// A write error that concerns this document only (the validator refused it, a duplicate
/// key): reported per document. Anything else (a lost connection, a timeout) stops the run.
fn write_error(error: &mongodb::error::Error) -> Option<String> {
    match error.kind.as_ref() {
        ErrorKind::Write(WriteFailure::WriteError(e)) => Some(format!(
            "the server refused the rewrite ({}): {}",
            e.code, e.message
        )),
        _ => None,
    }
}

fn fail(
    args: &MigrateArgs,
    collection: &str,
    tally: &mut Tally,
    id: Bson,
    why: String,
) -> anyhow::Result<()> {
    if args.keep_going {
        tally.failed.push((id, why));
        Ok(())
    } else {
        anyhow::bail!(
            "{collection}: _id {}: {why}; nothing more was rewritten (pass --keep-going to go on \
             past such documents; running again continues from what is done)",
            shown(&id)
        )
    }
}

/// Sleeps so that at most `rate` documents per second are rewritten since `started`.
async fn throttle(rate: Option<usize>, started: Instant, done: u64) {
    let Some(rate) = rate else { return };
    #[expect(
        clippy::cast_precision_loss,
        reason = "document counts stay far below 2^52"
    )]
    let due = Duration::from_secs_f64(done as f64 / rate as f64);
    if let Some(wait) = due.checked_sub(started.elapsed()) {
        tokio::time::sleep(wait).await;
    }
}

/// --dry-run: one cursor over the outdated documents (nothing is written, so nothing moves
/// under it), each converted and checked, a few kept as before/after pairs.
async fn dry_run(
    coll: &mongodb::Collection<Document>,
    args: &MigrateArgs,
    migration: &Migration,
    outdated: &Document,
    tally: &mut Tally,
) -> anyhow::Result<()> {
    let mut cursor = within(
        args.connect.timeout,
        coll.find(outdated.clone()).sort(doc! { "_id": 1 }),
    )
    .await
    .with_context(|| format!("{}: reading the outdated documents", coll.name()))?;
    loop {
        let more = within(args.connect.timeout, cursor.advance())
            .await
            .with_context(|| format!("{}: reading the outdated documents", coll.name()))?;
        if !more {
            break;
        }
        let stored = Document::try_from(cursor.current())?;
        match convert(migration, &stored) {
            Ok(converted) => {
                tally.convertible += 1;
                if tally.samples.len() < args.samples {
                    tally.samples.push((stored, converted));
                }
            }
            Err(why) => {
                let id = stored.get("_id").cloned().unwrap_or(Bson::Null);
                tally.failed.push((id, why));
            }
        }
    }
    tally.left = Some(tally.outdated);
    Ok(())
}

async fn within<T>(
    timeout: Duration,
    work: impl std::future::IntoFuture<Output = Result<T, mongodb::error::Error>>,
) -> anyhow::Result<T> {
    match tokio::time::timeout(timeout, work.into_future()).await {
        Ok(result) => result.map_err(|e| anyhow::anyhow!("{}", deployment::explain(&e))),
        Err(_) => anyhow::bail!(
            "a command took longer than --timeout ({})",
            deployment::show(timeout)
        ),
    }
}

fn report(
    args: &MigrateArgs,
    migration: &Migration,
    spec: &CollectionSpec,
    tally: &Tally,
    colour: bool,
) -> String {
    let mut out = String::new();
    let filter = shown(&Bson::Document((migration.outdated)()));
    let _ = writeln!(
        out,
        "{}: {} ({filter}, current version {})",
        spec.name,
        count(tally.outdated, "outdated document"),
        migration.current
    );
    if args.dry_run {
        let _ = writeln!(
            out,
            "  dry run, nothing written: {} convert{}, {} cannot be converted",
            tally.convertible,
            if tally.convertible == 1 { "s" } else { "" },
            tally.failed.len()
        );
        for (before, after) in &tally.samples {
            let _ = writeln!(out, "  before: {}", shown(&Bson::Document(before.clone())));
            let _ = writeln!(out, "  after:  {}", shown(&Bson::Document(after.clone())));
        }
    } else {
        let _ = writeln!(
            out,
            "  migrated {}, changed by another writer between read and rewrite {} (retried while \
             still outdated), failed {}, in {} pass{}",
            tally.migrated,
            tally.changed_meanwhile,
            tally.failed.len(),
            tally.passes,
            if tally.passes == 1 { "" } else { "es" }
        );
    }
    for (id, why) in &tally.failed {
        let _ = writeln!(
            out,
            "  {} _id {}: {why}",
            paint("failed", Paint::Red, colour),
            shown(id)
        );
    }
    match tally.left {
        _ if args.dry_run => {}
        None => {
            let _ = writeln!(
                out,
                "  {} the rest is left for the next run, which continues from what is done",
                paint("stopped:", Paint::Red, colour)
            );
        }
        Some(left) => {
            let _ = writeln!(
                out,
                "  {} countDocuments({filter}) = {left}",
                if left == 0 {
                    paint("proof:", Paint::Green, colour)
                } else {
                    paint("left:", Paint::Red, colour)
                }
            );
        }
    }
    out
}
