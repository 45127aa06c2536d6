//! Server replies (`listCollections`, `listIndexes` entries) -> live [`CollectionSpec`]s in
//! canonical form, and the error for a reply the model cannot read.

use bson::{Bson, Document};

use super::canonical::canonical;
use crate::manifest::ManifestError;
use crate::spec::{Collation, CollectionSpec, DocumentError};
use crate::spec::{IndexSpec, SearchIndexSpec};

/// A server reply that cannot be read as a collection or index.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NormalizeError {
    /// A `listCollections` entry with a field of a type the server never sends.
    #[error("{collection}: listCollections entry: {source}")]
    Collection {
        /// The collection.
        collection: String,
        /// What could not be read.
        source: DocumentError,
    },
    /// A `listIndexes` entry that cannot be read.
    #[error("{collection}: index {index:?}: {source}")]
    Index {
        /// The collection.
        collection: String,
        /// The index name, or its position when it has none.
        index: String,
        /// What could not be read.
        source: DocumentError,
    },
    /// A catalog file that is not Extended JSON of the snapshot shape.
    #[error("catalog: {0}")]
    File(#[from] ManifestError),
}

/// Reads one `listCollections` entry and its `listIndexes` entries into a canonical live spec.
/// `None` for a `system.*` collection. A view (`type: "view"`, options `{viewOn, pipeline}`)
/// is a spec with [`CollectionOptions::view`](crate::spec::CollectionOptions::view) set.
///
/// Top-level fields of the entry other than `name`, `type`, `options`, `info` and `idIndex`, and
/// fields of `info` other than `uuid` and `readOnly`, are kept as unmanaged options under their
/// own name (`info.<field>` for the latter).
///
/// ```
/// use bson::doc;
/// use mongo_schema::normalize::live_collection;
/// let live = live_collection(
///     &doc! { "name": "orders", "type": "collection", "options": {}, "info": { "readOnly": false } },
///     &[doc! { "v": 2, "key": { "_id": 1 }, "name": "_id_" },
///       doc! { "v": 2, "key": { "user_id": 1.0 }, "name": "user_id_1", "background": true }],
/// )?.unwrap();
/// assert_eq!(live.indexes.len(), 1);
/// assert!(live.indexes[0].other.is_empty());
/// # Ok::<(), mongo_schema::normalize::NormalizeError>(())
/// ```
///
/// # Errors
/// [`NormalizeError`] for a field the server never sends in that type.
pub fn live_collection(
    entry: &Document,
    indexes: &[Document],
) -> Result<Option<CollectionSpec>, NormalizeError> {
    let ns = entry.get_str("name").unwrap_or_default().to_owned();
    let err = |source: DocumentError| NormalizeError::Collection {
        collection: ns.clone(),
        source,
    };
    if ns.is_empty() {
        return Err(err(DocumentError::missing("name")));
    }
    if ns.starts_with("system.") {
        return Ok(None);
    }
    let options = match entry.get("options") {
        Some(Bson::Document(d)) => d.clone(),
        Some(other) => return Err(err(DocumentError::expected("options", "a document", other))),
        None => Document::new(),
    };
    let mut spec = CollectionSpec::from_options_document(ns.clone(), &options)
        .map_err(|e| err(e.within("options")))?;
    for (key, value) in entry {
        match key.as_str() {
            "name" | "type" | "options" | "idIndex" => {}
            "info" => {
                if let Bson::Document(info) = value {
                    for (k, v) in info {
                        if k != "uuid" && k != "readOnly" {
                            spec.options.other.insert(format!("info.{k}"), v.clone());
                        }
                    }
                }
            }
            _ => {
                spec.options.other.insert(key.clone(), value.clone());
            }
        }
    }
    for (i, entry) in indexes.iter().enumerate() {
        let mut index = live_index(&ns, i, entry)?;
        // The server lists the collation an index inherited; an index listed without one is
        // simple, whatever the collection's default.
        if index.collation.is_none() {
            index.collation = Some(Collation::new("simple"));
        }
        spec.indexes.push(index);
    }
    Ok(Some(canonical(spec)))
}

/// Reads the `$listSearchIndexes` entries of one collection into live search index specs (their
/// status kept).
///
/// # Errors
/// [`NormalizeError::Index`] for an entry without `name` or `latestDefinition`.
pub fn live_search_indexes(
    ns: &str,
    listed: &[Document],
) -> Result<Vec<SearchIndexSpec>, NormalizeError> {
    listed
        .iter()
        .enumerate()
        .map(|(i, entry)| {
            SearchIndexSpec::from_listed(entry).map_err(|source| NormalizeError::Index {
                collection: ns.to_owned(),
                index: entry
                    .get_str("name")
                    .map(str::to_owned)
                    .unwrap_or_else(|_| format!("search #{i}")),
                source,
            })
        })
        .collect()
}

/// Reads one `listIndexes` entry, unwrapping an in-progress build into a spec with
/// [`IndexSpec::build_in_progress`] set. Not yet canonical.
///
/// A build in progress is listed as `{spec, indexBuildInfo}` with `includeIndexBuildInfo` and as
/// `{spec, buildUUID}` with `includeBuildUUIDs` (the comment on `CmdListIndexes` in the server's
/// `src/mongo/db/commands/list_indexes.cpp`); a finished index under `includeIndexBuildInfo` is
/// `{spec}` alone.
fn live_index(ns: &str, position: usize, entry: &Document) -> Result<IndexSpec, NormalizeError> {
    let (entry, building) = match entry.get("spec") {
        Some(Bson::Document(spec)) if !entry.contains_key("key") => (
            spec,
            entry.contains_key("indexBuildInfo") || entry.contains_key("buildUUID"),
        ),
        _ => (entry, false),
    };
    let index = entry
        .get_str("name")
        .map(str::to_owned)
        .unwrap_or_else(|_| format!("#{position}"));
    let mut spec = IndexSpec::from_document(entry).map_err(|source| NormalizeError::Index {
        collection: ns.to_owned(),
        index,
        source,
    })?;
    spec.build_in_progress = building;
    Ok(spec)
}
