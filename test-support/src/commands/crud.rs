//! `insert`, `find`, `count`, `aggregate`: enough of the data path to load documents and to
//! answer audit's counting and sampling.

use std::cmp::Ordering;

use bson::{Bson, Document, doc, oid::ObjectId};

use super::{Context, collection, cursor, wrong_type};
use crate::error::{CommandError, code};
use crate::matcher::{self, lookup, number, values_equal};
use crate::state::State;

/// Source: the manual's `insert` page: `{n, writeErrors?: [{index, code, errmsg, errInfo?}], ok: 1}`;
/// a missing `_id` gets an ObjectId; a duplicate `_id` is DuplicateKey (11000); a document the
/// validator rejects is DocumentValidationFailure (121) "Document failed validation"; `ordered`
/// (default true) stops at the first error; the collection is created if missing.
pub(crate) fn insert(state: &mut State, cx: &Context<'_>) -> Result<Document, CommandError> {
    let name = cx.collection_name()?;
    let documents = match cx.body.get("documents") {
        Some(Bson::Array(items)) => items.clone(),
        Some(other) => return Err(wrong_type("insert", "documents", other, "array")),
        None => {
            return Err(CommandError::new(
                code::IDL_MISSING_FIELD,
                "BSON field 'insert.documents' is missing but a required field",
            ));
        }
    };
    let ordered = cx.body.get_bool("ordered").unwrap_or(true);
    let bypass = cx.flag("bypassDocumentValidation");
    super::ensure_collection(state, cx.db, &name, "insert")?;
    let snapshot = state
        .collection(cx.db, &name)
        .expect("ensure just made the collection")
        .clone();
    let mut accepted: Vec<Document> = Vec::new();
    let mut write_errors = Vec::new();
    for (index, item) in documents.into_iter().enumerate() {
        let Bson::Document(mut doc) = item else {
            return Err(wrong_type("insert", "documents", &item, "object"));
        };
        if !doc.contains_key("_id") {
            let mut with_id = doc! {"_id": ObjectId::new()};
            with_id.extend(doc);
            doc = with_id;
        }
        let id = doc.get("_id").cloned().unwrap_or(Bson::Null);
        let duplicate = snapshot
            .documents
            .iter()
            .chain(accepted.iter())
            .any(|d| d.get("_id").is_some_and(|other| values_equal(other, &id)));
        let error = if duplicate {
            Some(doc! {
                "index": index as i32,
                "code": code::DUPLICATE_KEY,
                "errmsg": format!("E11000 duplicate key error collection: {}.{name} index: _id_ dup key: {{ _id: {id} }}", cx.db),
            })
        } else if bypass {
            None
        } else {
            collection::validate(state, &snapshot, &doc)
                .err()
                .map(|info| {
                    let mut error = doc! {
                        "index": index as i32,
                        "code": code::DOCUMENT_VALIDATION_FAILURE,
                        "errmsg": "Document failed validation",
                    };
                    if let Some(info) = info {
                        error.insert("errInfo", info);
                    }
                    error
                })
        };
        match error {
            Some(error) => {
                write_errors.push(error);
                if ordered {
                    break;
                }
            }
            None => accepted.push(doc),
        }
    }
    let n = accepted.len() as i32;
    state
        .collection_mut(cx.db, &name)
        .expect("the collection exists")
        .documents
        .extend(accepted);
    let mut reply = doc! {"n": n};
    if !write_errors.is_empty() {
        reply.insert("writeErrors", write_errors);
    }
    reply.insert("ok", 1.0);
    Ok(reply)
}

fn filtered(
    state: &State,
    db: &str,
    name: &str,
    filter: &Document,
) -> Result<Vec<Document>, CommandError> {
    let evaluator = state.evaluator.clone();
    matcher::check(filter, evaluator.as_deref())?;
    let Some(collection) = state.collection(db, name) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for doc in &collection.documents {
        if matcher::matches(filter, doc, evaluator.as_deref())? {
            out.push(doc.clone());
        }
    }
    Ok(out)
}

fn count_arg(cx: &Context<'_>, field: &str) -> Result<Option<i64>, CommandError> {
    match cx.body.get(field) {
        None | Some(Bson::Null) => Ok(None),
        Some(v) => number(v)
            .map(|n| Some(n as i64))
            .ok_or_else(|| wrong_type(cx.name, field, v, "long")),
    }
}

/// Source: the manual's `find` page: `filter`, `sort`, `projection`, `skip`, `limit`,
/// `batchSize`, `singleBatch`; a cursor on the collection's namespace.
pub(crate) fn find(state: &mut State, cx: &Context<'_>) -> Result<Document, CommandError> {
    let name = cx.collection_name()?;
    let filter = cx.document("filter")?.cloned().unwrap_or_default();
    let mut docs = filtered(state, cx.db, &name, &filter)?;
    super::index_stats::record_hint(state, cx.db, &name, cx.body.get("hint"));
    if let Some(sort) = cx.document("sort")? {
        sort_documents(&mut docs, sort)?;
    }
    let skip = count_arg(cx, "skip")?.unwrap_or(0).max(0) as usize;
    let limit = count_arg(cx, "limit")?.unwrap_or(0);
    let mut docs: Vec<Document> = docs.into_iter().skip(skip).collect();
    if limit != 0 {
        docs.truncate(limit.unsigned_abs() as usize);
    }
    if let Some(projection) = cx.document("projection")? {
        docs = docs
            .iter()
            .map(|d| project(d, projection))
            .collect::<Result<_, _>>()?;
    }
    let single = cx.flag("singleBatch") || limit < 0;
    let ns = format!("{}.{name}", cx.db);
    let batch_size = cx.batch_size()?;
    Ok(cursor::first_batch(
        state,
        ns,
        docs,
        batch_size.unwrap_or(cursor::QUERY_FIRST_BATCH),
        single,
    ))
}

/// Source: the manual's `count` page: `{n, ok}` over `query`, with `skip` and `limit`; a missing
/// collection counts 0.
pub(crate) fn count(state: &mut State, cx: &Context<'_>) -> Result<Document, CommandError> {
    let name = cx.collection_name()?;
    let query = cx.document("query")?.cloned().unwrap_or_default();
    let docs = filtered(state, cx.db, &name, &query)?;
    let skip = count_arg(cx, "skip")?.unwrap_or(0).max(0) as usize;
    let limit = count_arg(cx, "limit")?.unwrap_or(0).unsigned_abs() as usize;
    let mut n = docs.len().saturating_sub(skip);
    if limit > 0 {
        n = n.min(limit);
    }
    Ok(doc! {"n": n as i32, "ok": 1.0})
}

/// Source: the manual's `aggregate` page and the stage pages for `$match`, `$count`, `$limit`, `$skip`,
/// `$sample` (here: the first N, deterministic), `$sort`, `$project`; unknown stages fail with
/// 40324 "Unrecognized pipeline stage name". `$group`, `$unwind`, `$set` and `$replaceWith` are
/// `crate::aggregate`'s.
pub(crate) fn aggregate(state: &mut State, cx: &Context<'_>) -> Result<Document, CommandError> {
    let name = match cx.body.get("aggregate") {
        Some(Bson::String(name)) => name.clone(),
        _ => {
            return Err(CommandError::new(
                code::INVALID_NAMESPACE,
                "the test server runs collection aggregations only",
            ));
        }
    };
    let pipeline = match cx.body.get("pipeline") {
        Some(Bson::Array(stages)) => stages.clone(),
        Some(other) => return Err(wrong_type("aggregate", "pipeline", other, "array")),
        None => {
            return Err(CommandError::new(
                code::IDL_MISSING_FIELD,
                "BSON field 'aggregate.pipeline' is missing but a required field",
            ));
        }
    };
    if !cx.body.contains_key("cursor") && !cx.flag("explain") {
        // Source: the manual's aggregate page: "The 'cursor' option is required, except for
        // aggregate with the explain argument" (FailedToParse 9).
        return Err(CommandError::new(
            code::FAILED_TO_PARSE,
            "The 'cursor' option is required, except for aggregate with the explain argument",
        ));
    }
    let mut docs = state
        .collection(cx.db, &name)
        .map(|c| c.documents.clone())
        .unwrap_or_default();
    let evaluator = state.evaluator.clone();
    for (position, stage) in pipeline.iter().enumerate() {
        let Bson::Document(stage) = stage else {
            return Err(CommandError::new(
                code::TYPE_MISMATCH,
                "Each element of the 'pipeline' array must be an object",
            ));
        };
        let Some((op, arg)) = stage.iter().next() else {
            return Err(CommandError::new(
                40323,
                "A pipeline stage specification object must contain exactly one field.",
            ));
        };
        // `$group`, `$unwind`, `$set`, `$replaceWith` with expressions: the aggregate module.
        if let Some(result) = crate::aggregate::stage(op, arg, &docs) {
            docs = result?;
            continue;
        }
        docs = match (op.as_str(), arg) {
            ("$match", Bson::Document(filter)) => {
                matcher::check(filter, evaluator.as_deref())?;
                let mut kept = Vec::new();
                for doc in docs {
                    if matcher::matches(filter, &doc, evaluator.as_deref())? {
                        kept.push(doc);
                    }
                }
                kept
            }
            ("$count", Bson::String(field)) => {
                if docs.is_empty() {
                    Vec::new()
                } else {
                    vec![doc! {field.as_str(): docs.len() as i32}]
                }
            }
            ("$limit", n) => {
                let n = number(n)
                    .filter(|n| *n > 0.0)
                    .ok_or_else(|| CommandError::new(15958, "the limit must be positive"))?;
                docs.into_iter().take(n as usize).collect()
            }
            ("$skip", n) => {
                let n = number(n).filter(|n| *n >= 0.0).ok_or_else(|| {
                    CommandError::new(
                        15956,
                        "invalid argument to $skip stage: Expected a non-negative number",
                    )
                })?;
                docs.into_iter().skip(n as usize).collect()
            }
            ("$sample", Bson::Document(spec)) => {
                let n = spec
                    .get("size")
                    .and_then(number)
                    .filter(|n| *n >= 0.0)
                    .ok_or_else(|| {
                        CommandError::new(
                            28747,
                            "size argument to $sample must be a non-negative number",
                        )
                    })?;
                docs.into_iter().take(n as usize).collect()
            }
            ("$sort", Bson::Document(spec)) => {
                sort_documents(&mut docs, spec)?;
                docs
            }
            ("$project", Bson::Document(spec)) => docs
                .iter()
                .map(|d| project(d, spec))
                .collect::<Result<_, _>>()?,
            ("$indexStats", arg) => super::index_stats::stage(state, cx.db, &name, arg, position)?,
            ("$collStats", arg) => super::coll_stats::stage(state, cx.db, &name, arg, position)?,
            (other, _) if ["$out", "$merge"].contains(&other) => {
                return Err(CommandError::new(
                    code::COMMAND_NOT_FOUND,
                    format!("the test server does not write with {other}"),
                ));
            }
            (other, _) => {
                return Err(CommandError::new(
                    40324,
                    format!("Unrecognized pipeline stage name: '{other}'"),
                ));
            }
        };
    }
    let ns = format!("{}.{name}", cx.db);
    let batch_size = cx.batch_size()?;
    Ok(cursor::first_batch(
        state,
        ns,
        docs,
        batch_size.unwrap_or(cursor::QUERY_FIRST_BATCH),
        false,
    ))
}

fn sort_documents(docs: &mut [Document], spec: &Document) -> Result<(), CommandError> {
    let mut keys = Vec::new();
    for (field, direction) in spec {
        let dir = number(direction)
            .filter(|d| *d == 1.0 || *d == -1.0)
            .ok_or_else(|| {
                CommandError::new(
                    15975,
                    "$sort key ordering must be 1 (for ascending) or -1 (for descending)",
                )
            })?;
        keys.push((field.clone(), dir < 0.0));
    }
    docs.sort_by(|a, b| {
        for (field, descending) in &keys {
            let x = lookup(a, field)
                .first()
                .map(|v| (*v).clone())
                .unwrap_or(Bson::Null);
            let y = lookup(b, field)
                .first()
                .map(|v| (*v).clone())
                .unwrap_or(Bson::Null);
            let order = crate::aggregate::order::compare(&x, &y);
            let order = if *descending { order.reverse() } else { order };
            if order != Ordering::Equal {
                return order;
            }
        }
        Ordering::Equal
    });
    Ok(())
}

/// Top-level inclusion (`{a: 1}`, `_id` kept unless excluded) or exclusion (`{a: 0}`) projections.
fn project(doc: &Document, spec: &Document) -> Result<Document, CommandError> {
    let inclusion = spec.iter().any(|(k, v)| {
        k != "_id" && (matches!(v, Bson::Boolean(true)) || number(v).is_some_and(|n| n != 0.0))
    });
    let excluded = |field: &str| {
        spec.get(field)
            .is_some_and(|v| matches!(v, Bson::Boolean(false)) || number(v) == Some(0.0))
    };
    let mut out = Document::new();
    for (field, value) in doc {
        let keep = if inclusion {
            (field == "_id" && !excluded("_id")) || (spec.contains_key(field) && !excluded(field))
        } else {
            !excluded(field)
        };
        if keep {
            out.insert(field.clone(), value.clone());
        }
    }
    Ok(out)
}
