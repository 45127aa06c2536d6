//! `listDatabases`, `listCollections`, `listIndexes`: the catalog as the drift check reads it.

use bson::{Bson, Document, doc};

use super::{Context, cursor, unknown_field};
use crate::error::{CommandError, code};
use crate::matcher;
use crate::state::State;

/// Source: the manual's `listDatabases` page: `{databases: [{name, sizeOnDisk, empty}],
/// totalSize, totalSizeMb, ok}`; `nameOnly: true` lists `{name}` only; `filter` applies to those
/// fields.
pub(crate) fn list_databases(
    state: &mut State,
    cx: &Context<'_>,
) -> Result<Document, CommandError> {
    let filter = cx.document("filter")?.cloned().unwrap_or_default();
    let name_only = cx.flag("nameOnly");
    let evaluator = state.evaluator.clone();
    matcher::check(&filter, evaluator.as_deref())?;
    let mut databases = Vec::new();
    let mut total: i64 = 0;
    for (name, database) in &state.databases {
        let size: i64 = database
            .collections
            .iter()
            .flat_map(|c| &c.documents)
            .map(|d| d.to_vec().map(|v| v.len() as i64).unwrap_or(0))
            .sum::<i64>()
            + 4096 * database.collections.len() as i64;
        let entry = doc! {"name": name, "sizeOnDisk": size, "empty": false};
        if !matcher::matches(&filter, &entry, evaluator.as_deref())? {
            continue;
        }
        total += size;
        databases.push(if name_only {
            doc! {"name": name}
        } else {
            entry
        });
    }
    if name_only {
        return Ok(doc! {"databases": databases, "ok": 1.0});
    }
    Ok(doc! {
        "databases": databases,
        "totalSize": total,
        "totalSizeMb": total / (1024 * 1024),
        "ok": 1.0,
    })
}

/// Source: the manual's `listCollections` page: entries `{name, type, options, info: {readOnly,
/// uuid}, idIndex}`, `filter` over those fields, `nameOnly: true` giving `{name, type}`, and a
/// cursor on namespace `<db>.$cmd.listCollections` honouring `cursor.batchSize`.
pub(crate) fn list_collections(
    state: &mut State,
    cx: &Context<'_>,
) -> Result<Document, CommandError> {
    for (key, _) in cx.arguments() {
        if ![
            "filter",
            "nameOnly",
            "authorizedCollections",
            "cursor",
            "includePendingDrops",
        ]
        .contains(&key.as_str())
        {
            return Err(unknown_field("listCollections", key));
        }
    }
    let filter = cx.document("filter")?.cloned().unwrap_or_default();
    let name_only = cx.flag("nameOnly");
    let batch_size = cx.batch_size()?;
    let evaluator = state.evaluator.clone();
    matcher::check(&filter, evaluator.as_deref())?;
    let mut entries = Vec::new();
    let reverse = state.quirks.reverse_collection_order;
    if let Some(database) = state.databases.get(cx.db) {
        let ordered: Box<dyn Iterator<Item = _>> = if reverse {
            Box::new(database.collections.iter().rev())
        } else {
            Box::new(database.collections.iter())
        };
        for collection in ordered {
            if !matcher::matches(&filter, &collection.entry, evaluator.as_deref())? {
                continue;
            }
            entries.push(if name_only {
                doc! {"name": collection.name.as_str(), "type": collection.kind()}
            } else {
                collection.entry.clone()
            });
        }
    }
    let ns = format!("{}.$cmd.listCollections", cx.db);
    Ok(cursor::first_batch(
        state,
        ns,
        entries,
        batch_size.unwrap_or(usize::MAX),
        false,
    ))
}

/// Source: the manual's `listIndexes` page (NamespaceNotFound 26 for a missing collection; the
/// cursor's namespace is the collection's) and the server's `list_indexes_include_index_build_info`
/// jstest: with `includeIndexBuildInfo: true` every spec is nested under `spec` and building
/// indexes carry `indexBuildInfo: {buildUUID}`; with `includeBuildUUIDs: true` (older form) building
/// indexes come as `{spec, buildUUID}`.
pub(crate) fn list_indexes(state: &mut State, cx: &Context<'_>) -> Result<Document, CommandError> {
    let name = cx.collection_name()?;
    let batch_size = cx.batch_size()?;
    let build_info = cx.flag("includeIndexBuildInfo");
    let build_uuids = cx.flag("includeBuildUUIDs");
    let ns = format!("{}.{name}", cx.db);
    let Some(collection) = state.collection(cx.db, &name) else {
        return Err(CommandError::new(
            code::NAMESPACE_NOT_FOUND,
            format!("ns does not exist: {ns}"),
        ));
    };
    if collection.kind() == "view" {
        return Err(CommandError::new(
            166,
            format!("Namespace {ns} is a view, not a collection"),
        ));
    }
    let entries: Vec<Document> = collection
        .indexes
        .iter()
        .map(|index| match (&index.build, build_info, build_uuids) {
            (None, true, _) => doc! {"spec": index.spec.clone()},
            (Some(info), true, _) => {
                doc! {"spec": index.spec.clone(), "indexBuildInfo": info.clone()}
            }
            (Some(info), false, true) => doc! {
                "spec": index.spec.clone(),
                "buildUUID": info.get("buildUUID").cloned().unwrap_or(Bson::Null),
            },
            _ => index.spec.clone(),
        })
        .collect();
    Ok(cursor::first_batch(
        state,
        ns,
        entries,
        batch_size.unwrap_or(usize::MAX),
        false,
    ))
}
