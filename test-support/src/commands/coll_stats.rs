//! `$collStats`: a collection's document count and data size (`storageStats`, `count`), what
//! the size of an index build is judged by.

use bson::{Bson, DateTime, Document, doc};

use crate::error::{CommandError, code};
use crate::state::State;

/// The `$collStats` stage: one document (this is not a sharded cluster) with `ns`, `host`,
/// `localTime`, and `storageStats` / `count` when asked.
///
/// Source: the manual's `$collStats` page ("For a collection in a replica set or a non-sharded
/// collection in a cluster, $collStats outputs a single document"; fields `ns`, `shard` only on
/// a sharded cluster, `host`, `localTime`; `storageStats: {}` uses scale 1, a non-integer scale
/// is truncated; `count: {}` adds `{count: {count}}`; it must be the first stage, 40602) and
/// the `collStats` output fields `size` (the documents' data size), `count`, `avgObjSize` (the
/// server's `appendCollectionStorageStats` writes it only when the collection has records).
/// Sizes here are the BSON sizes of the stored documents; `storageSize` is that size too (no
/// compression is modelled).
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
            "$collStats is only valid as the first stage in a pipeline.",
        ));
    }
    let Bson::Document(spec) = arg else {
        return Err(CommandError::new(
            code::FAILED_TO_PARSE,
            format!(
                "$collStats must take a nested object but found: {}",
                crate::matcher::type_alias(arg)
            ),
        ));
    };
    let ns = format!("{db}.{collection}");
    let mut out = doc! {
        "ns": ns.clone(),
        "host": format!("127.0.0.1:{}", state.port),
        "localTime": DateTime::now(),
    };
    let target = state.collection(db, collection);
    for (field, value) in spec {
        match field.as_str() {
            "storageStats" => {
                let scale = scale(value)?;
                let Some(target) = target else {
                    // Source: the server fails storageStats of a missing namespace with
                    // NamespaceNotFound.
                    return Err(CommandError::new(
                        code::NAMESPACE_NOT_FOUND,
                        format!(
                            "Unable to retrieve storageStats in $collStats stage :: caused by :: Collection [{ns}] not found."
                        ),
                    ));
                };
                let count = target.documents.len() as i64;
                let size: i64 = target
                    .documents
                    .iter()
                    .map(|d| d.to_vec().map_or(0, |bytes| bytes.len() as i64))
                    .sum();
                let mut stats = doc! {
                    "size": size / scale,
                    "count": count,
                };
                if count > 0 {
                    stats.insert("avgObjSize", size / count);
                }
                stats.insert("storageSize", size / scale);
                stats.insert("nindexes", target.indexes.len() as i32);
                stats.insert("scaleFactor", scale as i32);
                out.insert("storageStats", stats);
            }
            "count" => {
                let count = target.map_or(0, |t| t.documents.len() as i64);
                out.insert("count", doc! {"count": count});
            }
            "latencyStats" | "queryExecStats" => {
                out.insert(field.clone(), Document::new());
            }
            other => {
                // Source: IDL parsing of the stage's spec (unknown field 40415).
                return Err(CommandError::new(
                    code::IDL_UNKNOWN_FIELD,
                    format!("BSON field '$collStats.{other}' is an unknown field."),
                ));
            }
        }
    }
    Ok(vec![out])
}

/// `storageStats.scale`: default 1; the integer part of a number of at least 1.
fn scale(value: &Bson) -> Result<i64, CommandError> {
    let scale = match value {
        Bson::Document(d) => d.get("scale"),
        _ => None,
    };
    match scale.map(crate::matcher::number) {
        None => Ok(1),
        Some(Some(n)) if n >= 1.0 => Ok(n as i64),
        Some(_) => Err(CommandError::new(
            code::BAD_VALUE,
            "scale has to be a number >= 1",
        )),
    }
}
