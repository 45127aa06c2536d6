//! `infer`'s live sources: a collection read through the driver, or every collection of a
//! database. Read-only: a `find` over everything (with `maxTimeMS`), or `$sample` of N
//! documents; the census and the proof are counted as the batches arrive.

use std::time::Duration;

use anyhow::Context;
use bson::{Document, RawDocumentBuf, doc};
use mongo_schema::infer::{Census, Proof};
use mongodb::Database;

use crate::deployment::{self, Deployment};

/// How a live collection is read.
#[derive(Clone, Copy, Debug)]
pub(super) enum Read {
    /// Every document, with this server-side limit for the whole cursor.
    Scan { max_time: Duration },
    /// N documents the server picks with `$sample`, kept for the proof (the next `$sample`
    /// would pick others).
    Sample { size: u64, max_time: Duration },
}

/// The collections of the database `infer` reads: `only` when given, otherwise every
/// collection listed (views, time-series buckets and `system.*` left out: they hold no
/// documents of their own to describe), in listing order.
///
/// # Errors
/// `listCollections` fails, or `only` names no collection of the database.
pub(super) async fn collections(
    deployment: &Deployment,
    only: Option<&str>,
) -> anyhow::Result<Vec<String>> {
    let db = &deployment.db;
    let mut cursor = db
        .run_cursor_command(doc! {"listCollections": 1, "nameOnly": false})
        .await
        .map_err(|e| anyhow::anyhow!("{}", deployment::explain(&e)))
        .context("listCollections failed")?;
    let mut names = Vec::new();
    while cursor
        .advance()
        .await
        .map_err(|e| anyhow::anyhow!("{}", deployment::explain(&e)))
        .context("listCollections failed")?
    {
        let entry = Document::try_from(cursor.current())
            .context("listCollections returned an unreadable entry")?;
        let Ok(name) = entry.get_str("name") else {
            continue;
        };
        // The manual's listCollections: `type` is "collection", "view" or "timeseries".
        let plain = matches!(entry.get_str("type"), Ok("collection") | Err(_));
        if plain && !name.starts_with("system.") {
            names.push(name.to_owned());
        }
    }
    match only {
        Some(name) if names.iter().any(|n| n == name) => Ok(vec![name.to_owned()]),
        Some(name) => anyhow::bail!(
            "{}.{name}: no such collection (the database has {})",
            db.name(),
            if names.is_empty() {
                "none".to_owned()
            } else {
                names.join(", ")
            }
        ),
        None => Ok(names),
    }
}

/// The documents a read yields, one batch at a time, to `each`.
async fn each_document(
    db: &Database,
    collection: &str,
    read: Read,
    mut each: impl FnMut(&bson::RawDocument) -> anyhow::Result<()>,
) -> anyhow::Result<u64> {
    let (command, max_time) = match read {
        Read::Scan { max_time } => (
            doc! {"find": collection, "filter": {}, "maxTimeMS": millis(max_time)},
            max_time,
        ),
        Read::Sample { size, max_time } => (
            doc! {
                "aggregate": collection,
                "pipeline": [{"$sample": {"size": i64::try_from(size).unwrap_or(i64::MAX)}}],
                "cursor": {},
                "maxTimeMS": millis(max_time),
            },
            max_time,
        ),
    };
    let ns = format!("{}.{collection}", db.name());
    let failed = |e: mongodb::error::Error| {
        let mut message = deployment::explain(&e);
        if matches!(e.kind.as_ref(), mongodb::error::ErrorKind::Command(c) if c.code == 50) {
            // MaxTimeMSExpired (50): the manual's maxTimeMS.
            message.push_str(&format!(
                " (the limit was {}; raise it with --max-time, or read --sample N)",
                deployment::show(max_time)
            ));
        }
        anyhow::anyhow!("reading {ns}: {message}")
    };
    let mut cursor = db.run_cursor_command(command).await.map_err(failed)?;
    let mut count = 0;
    while cursor.advance().await.map_err(failed)? {
        each(cursor.current()).with_context(|| format!("{ns}: document {count}"))?;
        count += 1;
    }
    Ok(count)
}

/// `maxTimeMS` as the server reads it (a positive 32-bit count of milliseconds).
pub(super) fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis())
        .unwrap_or(i64::MAX)
        .clamp(1, i64::from(i32::MAX))
}

/// The census of a live collection, and for `$sample` the documents it picked.
///
/// # Errors
/// The read fails (time limit, lost connection), or a document is not readable BSON.
pub(super) async fn census(
    db: &Database,
    collection: &str,
    read: Read,
) -> anyhow::Result<(Census, Vec<RawDocumentBuf>)> {
    let mut census = Census::new();
    let mut kept = Vec::new();
    let keep = matches!(read, Read::Sample { .. });
    each_document(db, collection, read, |doc| {
        census.add(doc).context("malformed BSON")?;
        if keep {
            kept.push(doc.to_owned());
        }
        Ok(())
    })
    .await?;
    Ok((census, kept))
}

/// Checks the documents of a full scan again (a second `find`: memory stays flat), or the
/// sampled ones kept, against the predicted validator.
///
/// # Errors
/// As [`census`].
pub(super) async fn prove(
    db: &Database,
    collection: &str,
    read: Read,
    kept: &[RawDocumentBuf],
    proof: &mut Proof,
) -> anyhow::Result<()> {
    match read {
        Read::Sample { .. } => kept.iter().for_each(|d| proof.check(d)),
        Read::Scan { .. } => {
            each_document(db, collection, read, |doc| {
                proof.check(doc);
                Ok(())
            })
            .await?;
        }
    }
    Ok(())
}
