//! Search index commands, as a deployment with `mongot` answers them: `createSearchIndexes`,
//! `updateSearchIndex`, `dropSearchIndex`, and the `$listSearchIndexes` aggregation stage.
//! Builds are asynchronous, as the manual describes: a new or updated index is listed
//! `PENDING`, then `BUILDING`, then `READY` and queryable, one step per `$listSearchIndexes`
//! (sources: the manual's createSearchIndexes, updateSearchIndex, dropSearchIndex and
//! $listSearchIndexes pages, "Atlas Search Index Statuses"). With
//! [`Quirks::search_unsupported`](crate::Quirks::search_unsupported) every one of them fails as
//! a mongod without search does: SearchNotEnabled (31082; not re-read in the server's source).

use bson::{Bson, Document, doc};

use super::Context;
use super::cursor::{QUERY_FIRST_BATCH, first_batch};
use crate::error::{CommandError, code};
use crate::state::{SearchIndex, State};

const SEARCH_NOT_ENABLED: i32 = 31082;
/// How the statuses of a build follow one another, one step per listing.
const BUILD_STEPS: &[(&str, bool)] = &[("PENDING", false), ("BUILDING", false), ("READY", true)];

fn not_enabled() -> CommandError {
    CommandError::new(
        SEARCH_NOT_ENABLED,
        "Using Atlas Search Database Commands and the $listSearchIndexes aggregation stage \
         requires additional configuration.",
    )
}

fn check_enabled(state: &State) -> Result<(), CommandError> {
    if state.quirks.search_unsupported {
        return Err(not_enabled());
    }
    Ok(())
}

/// Whether an `aggregate` is `[{$listSearchIndexes: ...}]`, the stage this file answers.
pub(crate) fn is_list_search_indexes(cx: &Context<'_>) -> bool {
    cx.body
        .get_array("pipeline")
        .ok()
        .and_then(|p| p.first())
        .and_then(Bson::as_document)
        .is_some_and(|s| s.contains_key("$listSearchIndexes"))
}

fn collection_of<'s>(
    state: &'s mut State,
    cx: &Context<'_>,
) -> Result<&'s mut crate::state::Collection, CommandError> {
    let name = cx.collection_name()?;
    let ns = format!("{}.{name}", cx.db);
    state.collection_mut(cx.db, &name).ok_or_else(|| {
        CommandError::new(
            code::NAMESPACE_NOT_FOUND,
            format!("Collection '{ns}' does not exist."),
        )
    })
}

/// `createSearchIndexes: <coll>, indexes: [{name, type, definition}]` -> `{indexesCreated:
/// [{id, name}]}`. A name already used fails with IndexAlreadyExists (68).
pub(crate) fn create(state: &mut State, cx: &Context<'_>) -> Result<Document, CommandError> {
    check_enabled(state)?;
    let Some(Bson::Array(list)) = cx.body.get("indexes").cloned() else {
        return Err(CommandError::new(
            code::FAILED_TO_PARSE,
            "BSON field 'createSearchIndexes.indexes' is missing but a required field",
        ));
    };
    let next_id = state.next_search_index_id();
    let collection = collection_of(state, cx)?;
    let mut created = Vec::new();
    let mut added = Vec::new();
    for (i, entry) in list.iter().enumerate() {
        let Bson::Document(entry) = entry else {
            return Err(CommandError::new(
                code::FAILED_TO_PARSE,
                "each index is a document",
            ));
        };
        let name = entry.get_str("name").unwrap_or("default").to_owned();
        let kind = entry.get_str("type").unwrap_or("search").to_owned();
        let Ok(definition) = entry.get_document("definition") else {
            return Err(CommandError::new(
                code::FAILED_TO_PARSE,
                "BSON field 'definition' is missing but a required field",
            ));
        };
        if collection.search_indexes.iter().any(|s| s.name == name)
            || added.iter().any(|s: &SearchIndex| s.name == name)
        {
            return Err(CommandError::new(
                68,
                format!("Index already exists with the name {name}"),
            ));
        }
        let id = format!("{:024x}", next_id + i as u64);
        created.push(Bson::Document(
            doc! { "id": id.clone(), "name": name.clone() },
        ));
        added.push(SearchIndex {
            id,
            name,
            kind,
            definition: definition.clone(),
            step: 0,
            version: 0,
        });
    }
    collection.search_indexes.extend(added);
    Ok(doc! { "indexesCreated": created, "ok": 1.0 })
}

/// `updateSearchIndex: <coll>, name, definition`: the new definition builds again.
pub(crate) fn update(state: &mut State, cx: &Context<'_>) -> Result<Document, CommandError> {
    check_enabled(state)?;
    let name = cx.body.get_str("name").unwrap_or_default().to_owned();
    let Ok(definition) = cx.body.get_document("definition").cloned() else {
        return Err(CommandError::new(
            code::FAILED_TO_PARSE,
            "BSON field 'updateSearchIndex.definition' is missing but a required field",
        ));
    };
    let collection = collection_of(state, cx)?;
    let Some(index) = collection
        .search_indexes
        .iter_mut()
        .find(|s| s.name == name)
    else {
        return Err(CommandError::new(
            code::INDEX_NOT_FOUND,
            format!("Search index {name} not found"),
        ));
    };
    index.definition = definition;
    index.step = 0;
    index.version += 1;
    Ok(doc! { "ok": 1.0 })
}

/// `dropSearchIndex: <coll>, name`.
pub(crate) fn drop(state: &mut State, cx: &Context<'_>) -> Result<Document, CommandError> {
    check_enabled(state)?;
    let name = cx.body.get_str("name").unwrap_or_default().to_owned();
    let collection = collection_of(state, cx)?;
    let before = collection.search_indexes.len();
    collection.search_indexes.retain(|s| s.name != name);
    if collection.search_indexes.len() == before {
        return Err(CommandError::new(
            code::INDEX_NOT_FOUND,
            format!("Search index {name} not found"),
        ));
    }
    Ok(doc! { "ok": 1.0 })
}

/// `aggregate: <coll>, pipeline: [{$listSearchIndexes: {name?}}]`: each index as
/// `{id, name, type, status, queryable, latestDefinitionVersion, latestDefinition}`; each
/// listing moves every build one status on.
pub(crate) fn list(state: &mut State, cx: &Context<'_>) -> Result<Document, CommandError> {
    check_enabled(state)?;
    let filter = cx
        .body
        .get_array("pipeline")
        .ok()
        .and_then(|p| p.first())
        .and_then(Bson::as_document)
        .and_then(|s| s.get_document("$listSearchIndexes").ok())
        .and_then(|s| s.get_str("name").ok())
        .map(str::to_owned);
    let name = cx.collection_name()?;
    let ns = format!("{}.{name}", cx.db);
    let mut listed = Vec::new();
    if let Some(collection) = state.collection_mut(cx.db, &name) {
        for index in &mut collection.search_indexes {
            if filter.as_ref().is_some_and(|f| *f != index.name) {
                continue;
            }
            // A seeded FAILED build (step usize::MAX) stays failed.
            let (status, queryable) = if index.step == usize::MAX {
                ("FAILED", false)
            } else {
                BUILD_STEPS[index.step.min(BUILD_STEPS.len() - 1)]
            };
            listed.push(doc! {
                "id": index.id.clone(),
                "name": index.name.clone(),
                "type": index.kind.clone(),
                "status": status,
                "queryable": queryable,
                "latestDefinitionVersion": { "version": index.version },
                "latestDefinition": index.definition.clone(),
            });
            index.step = index.step.saturating_add(1);
        }
    }
    Ok(first_batch(state, ns, listed, QUERY_FIRST_BATCH, false))
}
