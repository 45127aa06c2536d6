//! `infer --server-side`: the census computed by the server's aggregation framework
//! (`mongo_schema::infer::census_stats`), so a sharded collection is counted by its shards and
//! only statistics travel. The proof is counted there too: `{$nor: [{$jsonSchema: validator}]}`
//! counts the documents the predicted validator rejects, and only the first
//! [`mongo_schema::infer::MAX_EXCEPTIONS`] of them are read, for their explanations.

use std::time::Duration;

use anyhow::Context;
use bson::{Bson, Document, doc};
use mongo_schema::JsonSchema;
use mongo_schema::infer::census_stats::{Request, ServerCensus};
use mongo_schema::infer::{Census, MAX_EXCEPTIONS, Proof};
use mongodb::Database;

use super::live::millis;
use crate::deployment;

/// Every result document of one command's cursor.
async fn documents(db: &Database, command: Document, what: &str) -> anyhow::Result<Vec<Document>> {
    let failed = |e: mongodb::error::Error| anyhow::anyhow!("{what}: {}", deployment::explain(&e));
    let mut cursor = db.run_cursor_command(command).await.map_err(failed)?;
    let mut out = Vec::new();
    while cursor.advance().await.map_err(failed)? {
        out.push(
            Document::try_from(cursor.current())
                .with_context(|| format!("{what}: an unreadable result document"))?,
        );
    }
    Ok(out)
}

/// Runs `pipeline` on `collection` (allowed to spill to disk: the groups per distinct string
/// and key may outgrow the server's memory limit for a stage).
async fn aggregate(
    db: &Database,
    collection: &str,
    pipeline: Vec<Document>,
    max_time: Duration,
) -> anyhow::Result<Vec<Document>> {
    let what = format!("{}.{collection}: the server-side census", db.name());
    documents(
        db,
        doc! {
            "aggregate": collection,
            "pipeline": pipeline,
            "cursor": {},
            "allowDiskUse": true,
            "maxTimeMS": millis(max_time),
        },
        &what,
    )
    .await
}

/// The census of `collection`, computed by the server; `max_time` bounds all its aggregations
/// together (each is given what is left), as it bounds the one `find` of a full scan.
///
/// # Errors
/// An aggregation fails (a server without an operator the pipelines use names it), or its
/// result cannot be read.
pub(super) async fn census(
    db: &Database,
    collection: &str,
    max_time: Duration,
) -> anyhow::Result<Census> {
    let deadline = std::time::Instant::now() + max_time;
    let mut server = ServerCensus::new();
    while let Some(request) = server.next_request() {
        // What is left of the limit; at least a millisecond, so an expired one fails on the
        // server with MaxTimeMSExpired rather than here.
        let max_time = deadline.saturating_duration_since(std::time::Instant::now());
        let rows = match request {
            Request::Aggregate(pipeline) => aggregate(db, collection, pipeline, max_time).await?,
            Request::NaturalOrder(ids) => {
                // The scan order of the fields: where each path was first seen.
                let what = format!("{}.{collection}: reading the order of documents", db.name());
                let command = doc! {
                    "find": collection,
                    "filter": {"_id": {"$in": ids}},
                    "projection": {"_id": 1},
                    "hint": {"$natural": 1},
                    "maxTimeMS": millis(max_time),
                };
                documents(db, command, &what).await?
            }
            _ => {
                anyhow::bail!("the server-side census asked for something this version cannot run")
            }
        };
        server.answer(rows)?;
    }
    Ok(server.finish()?)
}

/// How many documents of `collection` match `filter`.
async fn count(
    db: &Database,
    collection: &str,
    filter: &Document,
    max_time: Duration,
) -> anyhow::Result<u64> {
    let pipeline = vec![doc! {"$match": filter.clone()}, doc! {"$count": "n"}];
    let rows = aggregate(db, collection, pipeline, max_time).await?;
    Ok(match rows.first().and_then(|r| r.get("n")) {
        Some(Bson::Int32(n)) => u64::try_from(*n).unwrap_or(0),
        Some(Bson::Int64(n)) => u64::try_from(*n).unwrap_or(0),
        _ => 0,
    })
}

/// The proof counted by the server: every document, those the validator rejects, and the
/// first rejected ones read and explained locally. An exception's `index` is its place among
/// the rejected documents, in natural order.
///
/// # Errors
/// A count or the read of the rejected documents fails.
pub(super) async fn prove(
    db: &Database,
    collection: &str,
    validator: &JsonSchema,
    proof: &mut Proof,
    max_time: Duration,
) -> anyhow::Result<()> {
    let rejected_filter = doc! {"$nor": [{"$jsonSchema": validator.to_document()}]};
    let total = count(db, collection, &doc! {}, max_time).await?;
    let rejected = count(db, collection, &rejected_filter, max_time).await?;
    if rejected > 0 {
        let what = format!("{}.{collection}: reading rejected documents", db.name());
        let command = doc! {
            "find": collection,
            "filter": rejected_filter,
            "limit": MAX_EXCEPTIONS as i64,
            "maxTimeMS": millis(max_time),
        };
        for doc in documents(db, command, &what).await? {
            let raw = bson::RawDocumentBuf::try_from(&doc).context("a rejected document")?;
            proof.check(&raw);
        }
    }
    proof.checked = total;
    proof.accepted = total.saturating_sub(rejected);
    Ok(())
}
