//! `infer --server-side`: the census computed by the server's aggregation framework
//! (`mongo_schema::infer::census_stats`), so a sharded collection is counted by its shards and
//! only statistics travel. The proof is counted there too: `{$nor: [{$jsonSchema: validator}]}`
//! counts the documents the predicted validator rejects, and only the first
//! [`mongo_schema::infer::MAX_EXCEPTIONS`] of them are read, for their explanations.

use std::time::Duration;

use anyhow::Context;
use bson::{Bson, Document, doc};
use indexmap::IndexMap;
use mongo_schema::JsonSchema;
use mongo_schema::infer::census::{
    Fields, MAX_VARIANTS, MAX_VERSION, MAX_VERSION_FIELDS, Node, Versions, is_version_name,
};
use mongo_schema::infer::census_stats::{Request, ServerCensus};
use mongo_schema::infer::{Census, MAX_EXCEPTIONS, Proof};
use mongo_schema::schema::BsonType;
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
/// Schema versions are counted as the local census counts them
/// ([`Census::versions`]): for each root field whose name reads as a version (at most
/// [`MAX_VERSION_FIELDS`], in the order first seen), its values in the order first seen, and
/// then the census of the documents holding each value and of those lacking the field, each
/// computed by the server behind a `$match`.
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
    let mut census = census_of(db, collection, None, deadline).await?;
    census.versions = versions(db, collection, &census, deadline).await?;
    Ok(census)
}

/// What is left of the limit; at least a millisecond, so an expired one fails on the server
/// with MaxTimeMSExpired rather than here.
fn left(deadline: std::time::Instant) -> Duration {
    deadline.saturating_duration_since(std::time::Instant::now())
}

/// The census of the documents of `collection` that match `filter` (all when `None`).
async fn census_of(
    db: &Database,
    collection: &str,
    filter: Option<&Document>,
    deadline: std::time::Instant,
) -> anyhow::Result<Census> {
    let mut server = ServerCensus::new();
    while let Some(request) = server.next_request() {
        let max_time = left(deadline);
        let rows = match request {
            Request::Aggregate(mut pipeline) => {
                if let Some(filter) = filter {
                    pipeline.insert(0, doc! {"$match": filter.clone()});
                }
                aggregate(db, collection, pipeline, max_time).await?
            }
            Request::NaturalOrder(ids) => natural_order(db, collection, ids, max_time).await?,
            _ => {
                anyhow::bail!("the server-side census asked for something this version cannot run")
            }
        };
        server.answer(rows)?;
    }
    Ok(server.finish()?)
}

/// The documents of these `_id`s, `_id` only, in the collection's natural (scan) order.
async fn natural_order(
    db: &Database,
    collection: &str,
    ids: Vec<Bson>,
    max_time: Duration,
) -> anyhow::Result<Vec<Document>> {
    let what = format!("{}.{collection}: reading the order of documents", db.name());
    let command = doc! {
        "find": collection,
        "filter": {"_id": {"$in": ids}},
        "projection": {"_id": 1},
        "hint": {"$natural": 1},
        "maxTimeMS": millis(max_time),
    };
    documents(db, command, &what).await
}

/// [`Census::versions`] computed by the server, for the census `whole` of the collection.
async fn versions(
    db: &Database,
    collection: &str,
    whole: &Census,
    deadline: std::time::Instant,
) -> anyhow::Result<IndexMap<String, Versions>> {
    let mut out = IndexMap::new();
    let Fields::Named(fields) = &whole.root.fields else {
        return Ok(out);
    };
    let candidates = fields
        .iter()
        .filter(|(name, _)| is_version_name(name))
        .take(MAX_VERSION_FIELDS);
    for (name, node) in candidates {
        let stopped = Versions {
            values: None,
            absent: Node::default(),
        };
        // A value of another type than int or long is no version (the local census stops).
        let whole_numbers = node.types.get(BsonType::Int) + node.types.get(BsonType::Long);
        if whole_numbers != node.count {
            out.insert(name.clone(), stopped);
            continue;
        }
        let Some(values) = version_values(db, collection, name, deadline).await? else {
            out.insert(name.clone(), stopped);
            continue;
        };
        let mut counted = IndexMap::new();
        for value in values {
            let filter = doc! { name.as_str(): value };
            let sub = census_of(db, collection, Some(&filter), deadline).await?;
            counted.insert(value, sub.root);
        }
        let filter = doc! { name.as_str(): {"$exists": false} };
        let absent = census_of(db, collection, Some(&filter), deadline).await?;
        out.insert(
            name.clone(),
            Versions {
                values: Some(counted),
                absent: absent.root,
            },
        );
    }
    Ok(out)
}

/// The values of the version field `name`, in the order first seen; `None` when one is out of
/// `0..=MAX_VERSION` or there are more than [`MAX_VARIANTS`] (the local census then stops
/// counting versions of that field).
async fn version_values(
    db: &Database,
    collection: &str,
    name: &str,
    deadline: std::time::Instant,
) -> anyhow::Result<Option<Vec<i64>>> {
    let field = format!("${name}");
    let pipeline = vec![
        doc! {"$match": {name: {"$exists": true}}},
        doc! {"$group": {"_id": field, "first": {"$first": "$_id"}}},
        doc! {"$limit": i64::try_from(MAX_VARIANTS).unwrap_or(i64::MAX) + 1},
    ];
    let rows = aggregate(db, collection, pipeline, left(deadline)).await?;
    if rows.len() > MAX_VARIANTS {
        return Ok(None);
    }
    let mut values: Vec<(i64, Bson)> = Vec::new();
    for row in rows {
        let value = match row.get("_id") {
            Some(Bson::Int32(v)) => i64::from(*v),
            Some(Bson::Int64(v)) => *v,
            _ => return Ok(None),
        };
        if !(0..=MAX_VERSION).contains(&value) {
            return Ok(None);
        }
        values.push((value, row.get("first").cloned().unwrap_or(Bson::Null)));
    }
    // The order first seen: the natural order of each value's first document.
    let ids: Vec<Bson> = values.iter().map(|(_, id)| id.clone()).collect();
    let ordered = natural_order(db, collection, ids, left(deadline)).await?;
    let position = |id: &Bson| ordered.iter().position(|d| d.get("_id") == Some(id));
    values.sort_by_key(|(_, id)| position(id).unwrap_or(usize::MAX));
    Ok(Some(values.into_iter().map(|(v, _)| v).collect()))
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
