//! `$indexStats`: how often each index served a query, per host, and since when, as the server
//! counts it; `find` with a `hint` counts as a use of the hinted index.

use bson::{Bson, DateTime, Document, doc};

use crate::error::CommandError;
use crate::state::State;
use crate::usage::{IndexAccess, key};

/// The `$indexStats` stage: one document per index and reporting host.
///
/// Source: the manual's `$indexStats` page (fields `name`, `key`, `host`, `accesses: {ops,
/// since}`, `shard` on a sharded cluster only, `spec`, `building` only when true; it must be the
/// first stage) and `document_source_index_stats.cpp` (28803 "The $indexStats stage
/// specification must be an empty object"; `host` is `getHostNameCached():port`). First-stage
/// placement is the pipeline's 40602 check (as `jstests` assert for `$search`). A missing
/// collection reports nothing.
pub(crate) fn stage(
    state: &State,
    db: &str,
    collection: &str,
    arg: &Bson,
    position: usize,
) -> Result<Vec<Document>, CommandError> {
    if position != 0 {
        return Err(CommandError::new(
            40602,
            "$indexStats is only valid as the first stage in a pipeline.",
        ));
    }
    if !matches!(arg, Bson::Document(d) if d.is_empty()) {
        return Err(CommandError::new(
            28803,
            "The $indexStats stage specification must be an empty object",
        ));
    }
    let Some(target) = state.collection(db, collection) else {
        return Ok(Vec::new());
    };
    let own_host = format!("127.0.0.1:{}", state.port);
    let mut out = Vec::new();
    for index in &target.indexes {
        let name = index.name();
        for access in state.usage.of(db, collection, name) {
            let mut entry = doc! {
                "name": name,
                "key": index.spec.get_document("key").cloned().unwrap_or_default(),
                "host": access.host.clone().unwrap_or_else(|| own_host.clone()),
                "accesses": {"ops": access.ops, "since": access.since},
            };
            if let Some(shard) = &access.shard {
                entry.insert("shard", shard.clone());
            }
            entry.insert("spec", index.spec.clone());
            if index.build.is_some() {
                entry.insert("building", true);
            }
            out.push(entry);
        }
    }
    Ok(out)
}

/// Restarts an index's counters after a `collMod` of it (named by `name` or `keyPattern`).
///
/// Source: the manual's `$indexStats` page: "Modification of an existing index (see collMod
/// command) resets the statistics for that index."
pub(crate) fn reset(state: &mut State, db: &str, collection: &str, change: &Document) {
    let Some(target) = state.collection(db, collection) else {
        return;
    };
    let name = match (change.get_str("name"), change.get_document("keyPattern")) {
        (Ok(name), _) => Some(name.to_owned()),
        (_, Ok(keys)) => target
            .indexes
            .iter()
            .find(|i| i.spec.get_document("key").is_ok_and(|k| k == keys))
            .map(|i| i.name().to_owned()),
        _ => None,
    };
    if let Some(name) = name {
        let since = DateTime::now();
        let entries = state
            .usage
            .accesses
            .entry(key(db, collection, &name))
            .or_default();
        if entries.is_empty() {
            entries.push(IndexAccess {
                host: None,
                shard: None,
                ops: 0,
                since,
            });
        }
        for entry in entries.iter_mut() {
            entry.ops = 0;
            entry.since = since;
        }
    }
}

/// Counts a `find` with a `hint` (an index name or key pattern) as a use of that index.
///
/// Source: the manual's `$indexStats` page: `accesses.ops` counts user operations that used
/// the index. This server scans every query, so only a hinted index is known to be "used".
pub(crate) fn record_hint(state: &mut State, db: &str, collection: &str, hint: Option<&Bson>) {
    let Some(target) = state.collection(db, collection) else {
        return;
    };
    let name = match hint {
        Some(Bson::String(name)) => target
            .indexes
            .iter()
            .find(|i| i.name() == name)
            .map(|i| i.name().to_owned()),
        Some(Bson::Document(keys)) => target
            .indexes
            .iter()
            .find(|i| i.spec.get_document("key").is_ok_and(|k| k == keys))
            .map(|i| i.name().to_owned()),
        _ => None,
    };
    if let Some(name) = name {
        state.usage.record(db, collection, &name);
    }
}
