//! Cursors: first batches, `getMore` and `killCursors`.
//!
//! Source: the manual's `getMore` and `killCursors` pages, and "Cursor batches": a `find` or
//! `aggregate` first batch holds 101 documents unless `batchSize` says otherwise, while
//! `listCollections` and `listIndexes` default to no count limit (`defaultBatchSize =
//! std::numeric_limits<long long>::max()` in their commands); every batch stops at 16 MiB; a
//! `getMore` without `batchSize` returns the rest; an exhausted cursor comes back with `id: 0`.

use std::collections::VecDeque;

use bson::{Bson, Document, doc};

use super::{Context, wrong_type};
use crate::error::{CommandError, code};
use crate::state::{Cursor, State};

/// The first batch size of `find` and `aggregate` when the command names none.
pub(crate) const QUERY_FIRST_BATCH: usize = 101;
/// A batch stops growing past this many bytes (the server's 16 MiB reply budget).
const BATCH_BYTES: usize = 16 * 1024 * 1024 - 64 * 1024;

/// `{cursor: {id, ns, firstBatch}, ok: 1}`, keeping what does not fit in an open cursor.
pub(crate) fn first_batch(
    state: &mut State,
    ns: String,
    documents: Vec<Document>,
    batch_size: usize,
    single_batch: bool,
) -> Document {
    let mut remaining: VecDeque<Document> = documents.into();
    let batch = take_batch(&mut remaining, batch_size);
    let id = if remaining.is_empty() || single_batch {
        0
    } else {
        state.allocate_cursor(Cursor {
            ns: ns.clone(),
            remaining,
        })
    };
    doc! {
        "cursor": {"id": id, "ns": ns, "firstBatch": batch},
        "ok": 1.0,
    }
}

fn take_batch(remaining: &mut VecDeque<Document>, limit: usize) -> Vec<Bson> {
    let mut batch = Vec::new();
    let mut bytes = 0;
    while batch.len() < limit {
        let Some(next) = remaining.front() else { break };
        let size = next.to_vec().map(|v| v.len()).unwrap_or(0);
        if !batch.is_empty() && bytes + size > BATCH_BYTES {
            break;
        }
        bytes += size;
        batch.extend(remaining.pop_front().map(Bson::Document));
    }
    batch
}

/// `getMore`: the next batch of an open cursor.
pub(crate) fn get_more(state: &mut State, cx: &Context<'_>) -> Result<Document, CommandError> {
    let id = match cx.body.get("getMore") {
        Some(Bson::Int64(id)) => *id,
        Some(other) => return Err(wrong_type("getMore", "getMore", other, "long")),
        None => {
            return Err(CommandError::new(
                code::FAILED_TO_PARSE,
                "missing cursor id",
            ));
        }
    };
    let collection = match cx.body.get("collection") {
        Some(Bson::String(c)) => c.clone(),
        Some(other) => return Err(wrong_type("getMore", "collection", other, "string")),
        None => {
            return Err(CommandError::new(
                code::IDL_MISSING_FIELD,
                "BSON field 'getMore.collection' is missing but a required field",
            ));
        }
    };
    let batch_size = cx.batch_size()?.filter(|&n| n > 0).unwrap_or(usize::MAX);
    let requested_ns = format!("{}.{collection}", cx.db);
    let Some(cursor) = state.cursors.get_mut(&id) else {
        // Source: CursorNotFound (43), "cursor id N not found".
        return Err(CommandError::new(
            code::CURSOR_NOT_FOUND,
            format!("cursor id {id} not found"),
        ));
    };
    if cursor.ns != requested_ns {
        // Source: getMore on another namespace is refused as Unauthorized (13).
        return Err(CommandError::new(
            code::UNAUTHORIZED,
            format!(
                "Requested getMore on namespace '{requested_ns}', but cursor belongs to a different namespace {}",
                cursor.ns
            ),
        ));
    }
    let batch = take_batch(&mut cursor.remaining, batch_size);
    let ns = cursor.ns.clone();
    let next_id = if cursor.remaining.is_empty() {
        state.cursors.remove(&id);
        0
    } else {
        id
    };
    Ok(doc! {
        "cursor": {"id": next_id, "ns": ns, "nextBatch": batch},
        "ok": 1.0,
    })
}

/// `killCursors`: closes cursors and says which were found.
pub(crate) fn kill_cursors(state: &mut State, cx: &Context<'_>) -> Result<Document, CommandError> {
    let ids = match cx.body.get("cursors") {
        Some(Bson::Array(ids)) => ids.clone(),
        Some(other) => return Err(wrong_type("killCursors", "cursors", other, "array")),
        None => {
            return Err(CommandError::new(
                code::IDL_MISSING_FIELD,
                "BSON field 'killCursors.cursors' is missing but a required field",
            ));
        }
    };
    let mut killed = Vec::new();
    let mut not_found = Vec::new();
    for id in ids {
        let Bson::Int64(value) = id else {
            return Err(wrong_type("killCursors", "cursors", &id, "long"));
        };
        if state.cursors.remove(&value).is_some() {
            killed.push(id);
        } else {
            not_found.push(id);
        }
    }
    Ok(doc! {
        "cursorsKilled": killed,
        "cursorsNotFound": not_found,
        "cursorsAlive": [],
        "cursorsUnknown": [],
        "ok": 1.0,
    })
}
