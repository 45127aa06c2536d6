//! The live catalog: listCollections and listIndexes replies, verbatim, read from a server through
//! the driver as raw documents or from a captured Extended JSON file. `normalize` turns them into specs.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context, bail};
use bson::{Bson, Document, doc};
use indexmap::IndexMap;
use mongo_schema::catalog::shell;
use mongo_schema::normalize;
use mongo_schema::spec::{CollectionSpec, ShardKey};
use mongodb::Database;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use crate::deployment;
use mongo_schema::extjson::{self, ExtJsonMode, Layout};

/// A database's collections and indexes, as the server listed them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Catalog {
    /// listCollections entries, verbatim (`name`, `type`, `options`, `info`, `idIndex`).
    pub collections: Vec<Document>,
    /// listIndexes entries per collection name, verbatim, in the order listed.
    pub indexes: IndexMap<String, Vec<Document>>,
    /// Read through mongos only: the `config.collections` entry (`key`, `unique`, ...) of each
    /// sharded collection, verbatim, by collection name. Written as `shardKeys` when not empty.
    pub shard_keys: IndexMap<String, Document>,
    /// Read through mongos only: what `checkMetadataConsistency` (7.0+) reports, such as an index
    /// that differs across shards. Not part of the file.
    pub inconsistencies: Vec<Document>,
    /// `$listSearchIndexes` entries per collection name, verbatim. Written as `searchIndexes`
    /// when not empty.
    pub search_indexes: IndexMap<String, Vec<Document>>,
    /// Why search indexes could not be read from the deployment (a server without search
    /// answers SearchNotEnabled): declared ones are then not compared. Not part of the file.
    pub search_unavailable: Option<String>,
}

impl Catalog {
    /// Reads a catalog file: `{"collections": [...], "indexes": {"<coll>": [...]}}` in canonical or
    /// relaxed Extended JSON (what `snapshot` writes, or what mongosh's `EJSON.stringify` prints for
    /// `db.getCollectionInfos()` and each `getIndexes()`), or in mongosh's printed form
    /// (`printjson({collections: db.getCollectionInfos(), indexes: {...}})`).
    ///
    /// # Errors
    /// The file cannot be read, is not JSON (with line and column), or has another shape
    /// (with the path of the offending value).
    pub fn from_file(path: &Path) -> anyhow::Result<Self> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read catalog file {}", path.display()))?;
        Self::from_extjson(&text).with_context(|| format!("bad catalog file {}", path.display()))
    }

    /// Parses the text of a catalog file; see [`Catalog::from_file`].
    ///
    /// # Errors
    /// Not JSON (with line and column), or another shape (with the path of the offending value).
    pub fn from_extjson(text: &str) -> anyhow::Result<Self> {
        let value = read_value(text)?;
        let Bson::Document(mut top) = value else {
            bail!("at $: expected an object with \"collections\" and \"indexes\"");
        };
        let collections = match top.remove("collections") {
            Some(Bson::Array(entries)) => entries
                .into_iter()
                .enumerate()
                .map(|(i, entry)| collection_entry(entry, &format!("$.collections[{i}]")))
                .collect::<anyhow::Result<Vec<_>>>()?,
            Some(_) => bail!("at $.collections: expected an array of listCollections entries"),
            None => bail!("at $: missing \"collections\" (an array of listCollections entries)"),
        };
        let mut indexes = IndexMap::new();
        match top.remove("indexes") {
            Some(Bson::Document(per_collection)) => {
                for (name, list) in per_collection {
                    let at = format!("$.indexes.{name}");
                    let Bson::Array(entries) = list else {
                        bail!("at {at}: expected an array of listIndexes entries");
                    };
                    let mut docs = Vec::with_capacity(entries.len());
                    for (i, entry) in entries.into_iter().enumerate() {
                        let Bson::Document(doc) = entry else {
                            bail!("at {at}[{i}]: expected an index document");
                        };
                        if !doc.contains_key("key") && !doc.contains_key("spec") {
                            bail!("at {at}[{i}]: an index needs \"key\"");
                        }
                        // A capture made with includeIndexBuildInfo wraps finished indexes too.
                        docs.push(unwrap_finished(doc));
                    }
                    indexes.insert(name, docs);
                }
            }
            Some(_) => {
                bail!("at $.indexes: expected an object of listIndexes arrays by collection")
            }
            None => {
                bail!("at $: missing \"indexes\" (an object of listIndexes arrays by collection)")
            }
        }
        let mut shard_keys = IndexMap::new();
        match top.remove("shardKeys") {
            None => {}
            Some(Bson::Document(by_name)) => {
                for (name, entry) in by_name {
                    let Bson::Document(entry) = entry else {
                        bail!("at $.shardKeys.{name}: expected a config.collections entry");
                    };
                    if !entry.contains_key("key") {
                        bail!("at $.shardKeys.{name}: a shard key needs \"key\"");
                    }
                    shard_keys.insert(name, entry);
                }
            }
            Some(_) => bail!("at $.shardKeys: expected an object of config.collections entries"),
        }
        let mut search_indexes = IndexMap::new();
        match top.remove("searchIndexes") {
            None => {}
            Some(Bson::Document(per_collection)) => {
                for (name, list) in per_collection {
                    let at = format!("$.searchIndexes.{name}");
                    let Bson::Array(entries) = list else {
                        bail!("at {at}: expected an array of $listSearchIndexes entries");
                    };
                    let mut docs = Vec::with_capacity(entries.len());
                    for (i, entry) in entries.into_iter().enumerate() {
                        let Bson::Document(doc) = entry else {
                            bail!("at {at}[{i}]: expected a search index document");
                        };
                        docs.push(doc);
                    }
                    search_indexes.insert(name, docs);
                }
            }
            Some(_) => bail!(
                "at $.searchIndexes: expected an object of $listSearchIndexes arrays by collection"
            ),
        }
        if let Some(key) = top.keys().next() {
            bail!(
                "at $.{key}: unknown field; expected only \"collections\", \"indexes\", \"shardKeys\" and \"searchIndexes\""
            );
        }
        for name in indexes.keys() {
            if !collections
                .iter()
                .any(|c| c.get_str("name").ok() == Some(name.as_str()))
            {
                bail!("at $.indexes.{name}: no collection named {name:?} in \"collections\"");
            }
        }
        Ok(Catalog {
            collections,
            indexes,
            shard_keys,
            inconsistencies: Vec::new(),
            search_indexes,
            search_unavailable: None,
        })
    }

    /// The catalog as canonical Extended JSON, the shape [`Catalog::from_extjson`] reads.
    pub fn to_extjson(&self) -> String {
        let mut indexes = Document::new();
        for (name, list) in &self.indexes {
            indexes.insert(
                name.clone(),
                Bson::Array(list.iter().cloned().map(Bson::Document).collect()),
            );
        }
        let mut top = Document::new();
        top.insert(
            "collections",
            Bson::Array(
                self.collections
                    .iter()
                    .cloned()
                    .map(Bson::Document)
                    .collect(),
            ),
        );
        top.insert("indexes", indexes);
        if !self.shard_keys.is_empty() {
            let keys: Document = self
                .shard_keys
                .iter()
                .map(|(name, entry)| (name.clone(), Bson::Document(entry.clone())))
                .collect();
            top.insert("shardKeys", keys);
        }
        if !self.search_indexes.is_empty() {
            let search: Document = self
                .search_indexes
                .iter()
                .map(|(name, list)| {
                    let list = list.iter().cloned().map(Bson::Document).collect();
                    (name.clone(), Bson::Array(list))
                })
                .collect();
            top.insert("searchIndexes", search);
        }
        let mut text = extjson::to_string(
            &Bson::Document(top),
            ExtJsonMode::Canonical,
            Layout::Indented,
        );
        text.push('\n');
        text
    }

    /// The canonical live specs ([`normalize::live_collection`]) of every collection and view
    /// listed, `system.*` left out, sorted by name.
    ///
    /// # Errors
    /// An entry whose fields have types the server never sends, naming the collection.
    pub fn live_specs(&self) -> anyhow::Result<Vec<CollectionSpec>> {
        let mut specs = Vec::new();
        for entry in &self.collections {
            let name = entry.get_str("name").unwrap_or_default();
            let spec = normalize::live_collection(entry, self.indexes_of(name))
                .with_context(|| format!("cannot read the live collection {name}"))?;
            let Some(mut spec) = spec else { continue };
            spec.search_indexes_unknown = self.search_unavailable.is_some();
            let listed = self
                .search_indexes
                .get(name)
                .map(Vec::as_slice)
                .unwrap_or(&[]);
            spec.search_indexes = normalize::live_search_indexes(name, listed)
                .with_context(|| format!("cannot read the search indexes of {name}"))?;
            if let Some(sharded) = self.shard_keys.get(name) {
                // config.collections holds more (`lastmod`, `uuid`, ...); the key is `key` and `unique`.
                let mut key = Document::new();
                for field in ["key", "unique"] {
                    if let Some(value) = sharded.get(field) {
                        key.insert(field, value.clone());
                    }
                }
                let shard_key = ShardKey::from_document(&key)
                    .with_context(|| format!("cannot read the shard key of {name}"))?;
                spec.shard_key = Some(shard_key);
            }
            specs.push(spec);
        }
        specs.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(specs)
    }

    /// The listCollections entry of a collection.
    pub fn collection(&self, name: &str) -> Option<&Document> {
        self.collections
            .iter()
            .find(|c| c.get_str("name").ok() == Some(name))
    }

    /// The listIndexes entries of a collection (empty for a view or an unknown name).
    pub fn indexes_of(&self, name: &str) -> &[Document] {
        self.indexes.get(name).map(Vec::as_slice).unwrap_or(&[])
    }
}

/// Reads the live catalog of a database: one listCollections, then listIndexes for each
/// collection or time-series collection (only those named in `only`, when given), at most
/// `concurrency` at a time.
/// Entries are kept as the server returned them, as raw documents: the driver's typed
/// `CollectionSpecification` and `IndexModel` would drop what they do not model.
///
/// # Errors
/// A command the server refuses, or a lost connection; a collection dropped between the two
/// listings is left out rather than reported.
pub async fn read_live(
    db: &Database,
    only: Option<&[String]>,
    concurrency: usize,
) -> anyhow::Result<Catalog> {
    let command = doc! {"listCollections": 1};
    let mut cursor = db
        .run_cursor_command(command)
        .await
        .map_err(|e| anyhow::anyhow!("{}", deployment::explain(&e)))
        .context("listCollections failed")?;
    let mut collections = Vec::new();
    while cursor
        .advance()
        .await
        .map_err(|e| anyhow::anyhow!("{}", deployment::explain(&e)))
        .context("listCollections failed")?
    {
        let entry = Document::try_from(cursor.current())
            .context("listCollections returned an unreadable entry")?;
        collections.push(entry);
    }

    let (shard_keys, inconsistencies) = if is_mongos(db).await? {
        sharding(db, &collections, only).await?
    } else {
        (IndexMap::new(), Vec::new())
    };

    let with_indexes: Vec<String> = collections
        .iter()
        .filter(|c| matches!(c.get_str("type"), Ok("collection" | "timeseries") | Err(_)))
        .filter_map(|c| c.get_str("name").ok().map(str::to_owned))
        .filter(|name| only.is_none_or(|names| names.contains(name)))
        .collect();
    let limit = Arc::new(Semaphore::new(concurrency.max(1)));
    let build_info = Arc::new(AtomicBool::new(true));
    let mut tasks = JoinSet::new();
    for (position, name) in with_indexes.into_iter().enumerate() {
        let db = db.clone();
        let limit = Arc::clone(&limit);
        let build_info = Arc::clone(&build_info);
        tasks.spawn(async move {
            let _permit = limit.acquire_owned().await;
            let listed = list_indexes(&db, &name, &build_info).await;
            (position, name, listed)
        });
    }
    let mut results = Vec::new();
    while let Some(done) = tasks.join_next().await {
        results.push(done.context("a listIndexes task failed")?);
    }
    // Report in listing order, whichever call finished first, so the same failure always reads
    // the same.
    results.sort_by_key(|(position, _, _)| *position);
    let mut indexes = IndexMap::new();
    for (_, name, result) in results {
        match result {
            Ok(Some(entries)) => {
                indexes.insert(name, entries);
            }
            Ok(None) => collections.retain(|c| c.get_str("name").ok() != Some(name.as_str())),
            Err(e) => return Err(e.context(format!("listIndexes on {name} failed"))),
        }
    }
    let (search_indexes, search_unavailable) = list_search_indexes(db, &collections, only).await?;
    Ok(Catalog {
        collections,
        indexes,
        shard_keys,
        inconsistencies,
        search_indexes,
        search_unavailable,
    })
}

/// `$listSearchIndexes` on each collection and view. A deployment without search refuses the
/// stage (SearchNotEnabled, 31082, on a mongod without `mongot`): the first refusal stops the
/// listing and is returned as the reason, so that the rest of the catalog is still checked.
async fn list_search_indexes(
    db: &Database,
    collections: &[Document],
    only: Option<&[String]>,
) -> anyhow::Result<(IndexMap<String, Vec<Document>>, Option<String>)> {
    let mut out = IndexMap::new();
    for entry in collections {
        let Ok(name) = entry.get_str("name") else {
            continue;
        };
        if name.starts_with("system.") || only.is_some_and(|names| !names.iter().any(|n| n == name))
        {
            continue;
        }
        let entries = match search_index_entries(db, name).await? {
            Ok(entries) => entries,
            Err(e) if deployment::is_namespace_not_found(&e) => continue,
            Err(e) => return Ok((IndexMap::new(), Some(deployment::explain(&e)))),
        };
        if !entries.is_empty() {
            out.insert(name.to_owned(), entries);
        }
    }
    Ok((out, None))
}

/// One collection's `$listSearchIndexes` entries. The outer error is a reply that cannot be
/// read; the inner one the server's refusal of the stage, for the caller to judge (a missing
/// collection, a deployment without search).
pub(crate) async fn search_index_entries(
    db: &Database,
    collection: &str,
) -> anyhow::Result<Result<Vec<Document>, mongodb::error::Error>> {
    let command = doc! {
        "aggregate": collection, "pipeline": [{"$listSearchIndexes": {}}], "cursor": {},
    };
    let mut cursor = match db.run_cursor_command(command).await {
        Ok(cursor) => cursor,
        Err(e) => return Ok(Err(e)),
    };
    let mut entries = Vec::new();
    while cursor
        .advance()
        .await
        .map_err(|e| anyhow::anyhow!("{}", deployment::explain(&e)))?
    {
        entries.push(
            Document::try_from(cursor.current())
                .context("$listSearchIndexes returned an unreadable entry")?,
        );
    }
    Ok(Ok(entries))
}

/// Whether the driver is talking to a mongos router (`hello` answers `msg: "isdbgrid"`).
async fn is_mongos(db: &Database) -> anyhow::Result<bool> {
    let hello = db
        .run_command(doc! {"hello": 1})
        .await
        .map_err(|e| anyhow::anyhow!("{}", deployment::explain(&e)))
        .context("hello failed")?;
    Ok(hello.get_str("msg").ok() == Some("isdbgrid"))
}

/// Through mongos: the shard keys of the listed collections (from `config.collections`), and
/// what `checkMetadataConsistency` reports for the database (7.0+; skipped where unknown).
async fn sharding(
    db: &Database,
    collections: &[Document],
    only: Option<&[String]>,
) -> anyhow::Result<(IndexMap<String, Document>, Vec<Document>)> {
    let names: Vec<&str> = collections
        .iter()
        .filter_map(|c| c.get_str("name").ok())
        .filter(|name| only.is_none_or(|only| only.iter().any(|o| o == name)))
        .collect();
    let namespaces: Vec<String> = names.iter().map(|n| format!("{}.{n}", db.name())).collect();
    let config = db.client().database("config");
    let mut cursor = config
        .run_cursor_command(doc! {"find": "collections", "filter": {"_id": {"$in": namespaces}}})
        .await
        .map_err(|e| anyhow::anyhow!("{}", deployment::explain(&e)))
        .context("reading shard keys from config.collections failed")?;
    let mut shard_keys = IndexMap::new();
    while cursor
        .advance()
        .await
        .map_err(|e| anyhow::anyhow!("{}", deployment::explain(&e)))?
    {
        let entry =
            Document::try_from(cursor.current()).context("unreadable config.collections entry")?;
        let name = entry
            .get_str("_id")
            .ok()
            .and_then(|ns| ns.split_once('.'))
            .map(|(_, name)| name.to_owned());
        // A dropped collection keeps its entry marked `dropped: true` before 5.0.
        if let Some(name) = name
            && !entry.get_bool("dropped").unwrap_or(false)
        {
            shard_keys.insert(name, entry);
        }
    }
    shard_keys.sort_by(|a, _, b, _| {
        let position = |n: &str| names.iter().position(|m| *m == n);
        position(a).cmp(&position(b))
    });
    let mut inconsistencies = Vec::new();
    match db
        .run_cursor_command(doc! {"checkMetadataConsistency": 1})
        .await
    {
        Ok(mut cursor) => {
            while cursor
                .advance()
                .await
                .map_err(|e| anyhow::anyhow!("{}", deployment::explain(&e)))?
            {
                inconsistencies.push(
                    Document::try_from(cursor.current()).context("unreadable inconsistency")?,
                );
            }
        }
        // Before 7.0 the command does not exist (CommandNotFound, 59): nothing to add.
        Err(e) if matches!(e.kind.as_ref(), mongodb::error::ErrorKind::Command(c) if c.code == 59) =>
            {}
        Err(e) => {
            return Err(anyhow::anyhow!("{}", deployment::explain(&e)))
                .context("checkMetadataConsistency failed");
        }
    }
    Ok((shard_keys, inconsistencies))
}

/// listIndexes on one collection; `None` when it no longer exists.
///
/// Asks for `includeIndexBuildInfo` so that a build in progress is listed as
/// `{spec, indexBuildInfo}` (neither missing nor extra) rather than as a finished index; the
/// finished ones, which the flag also wraps as `{spec}`, are unwrapped back to their plain listed
/// form. A server too old for the flag refuses it as an unknown field, and is asked again without.
async fn list_indexes(
    db: &Database,
    name: &str,
    build_info: &AtomicBool,
) -> anyhow::Result<Option<Vec<Document>>> {
    let with_flag = build_info.load(Ordering::Relaxed);
    let mut command = doc! {"listIndexes": name};
    if with_flag {
        command.insert("includeIndexBuildInfo", true);
    }
    let mut cursor = match db.run_cursor_command(command).await {
        Ok(cursor) => cursor,
        Err(e) if deployment::is_namespace_not_found(&e) => return Ok(None),
        Err(e) if with_flag && deployment::is_unknown_field(&e) => {
            build_info.store(false, Ordering::Relaxed);
            return Box::pin(list_indexes(db, name, build_info)).await;
        }
        Err(e) => return Err(anyhow::anyhow!("{}", deployment::explain(&e))),
    };
    let mut entries = Vec::new();
    while cursor
        .advance()
        .await
        .map_err(|e| anyhow::anyhow!("{}", deployment::explain(&e)))?
    {
        let entry = Document::try_from(cursor.current())
            .context("listIndexes returned an unreadable entry")?;
        entries.push(unwrap_finished(entry));
    }
    Ok(Some(entries))
}

/// `{spec: {...}}` without `indexBuildInfo` is a finished index as `includeIndexBuildInfo` lists
/// it: keep the form a plain listIndexes gives.
fn unwrap_finished(entry: Document) -> Document {
    match (
        entry.get("spec"),
        entry.contains_key("indexBuildInfo"),
        entry.contains_key("key"),
    ) {
        (Some(Bson::Document(spec)), false, false) if entry.len() == 1 => spec.clone(),
        _ => entry,
    }
}

/// Extended JSON, or else mongosh's printed form; when neither reads, the error of the reader
/// that got further.
fn read_value(text: &str) -> anyhow::Result<Bson> {
    match extjson::parse(text) {
        Ok(value) => Ok(value),
        Err(json) => match shell::parse(text) {
            Ok(value) => Ok(value),
            Err(shell) => {
                if let Some(why) = shell::diagnose(text) {
                    bail!("{why}");
                }
                let json_offset: usize = text
                    .split_inclusive('\n')
                    .take(json.line.saturating_sub(1))
                    .map(str::len)
                    .sum::<usize>()
                    + json.column;
                if shell.offset > json_offset {
                    bail!("neither Extended JSON nor mongosh output: {shell}")
                }
                bail!("{json}")
            }
        },
    }
}

fn collection_entry(entry: Bson, at: &str) -> anyhow::Result<Document> {
    let Bson::Document(doc) = entry else {
        bail!("at {at}: expected a listCollections entry (an object)");
    };
    match doc.get("name") {
        Some(Bson::String(_)) => {}
        Some(_) => bail!("at {at}.name: expected a string"),
        None => bail!("at {at}: missing \"name\""),
    }
    match doc.get("options") {
        None | Some(Bson::Document(_)) => {}
        Some(_) => bail!("at {at}.options: expected an object"),
    }
    Ok(doc)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = r#"{
      "collections": [
        {"name": "orders", "type": "collection", "options": {"validationLevel": "strict"},
         "info": {"readOnly": false, "uuid": {"$binary": {"base64": "AAAAAAAAAAAAAAAAAAAAAA==", "subType": "04"}}},
         "idIndex": {"v": 2, "key": {"_id": 1}, "name": "_id_"}}
      ],
      "indexes": {"orders": [
        {"v": {"$numberInt": "2"}, "key": {"_id": {"$numberInt": "1"}}, "name": "_id_"},
        {"v": 2, "key": {"user_id": 1, "status": 1, "created_at": -1}, "name": "user_id_1_status_1_created_at_-1"}
      ]}
    }"#;

    #[test]
    fn reads_canonical_and_relaxed_alike_and_round_trips() {
        let catalog = Catalog::from_extjson(SAMPLE).unwrap();
        assert_eq!(catalog.collections.len(), 1);
        assert_eq!(
            catalog.indexes_of("orders")[1].get_document("key").unwrap(),
            &doc! {"user_id": 1, "status": 1, "created_at": -1}
        );
        let again = Catalog::from_extjson(&catalog.to_extjson()).unwrap();
        assert_eq!(again, catalog);
    }

    #[test]
    fn finished_indexes_wrapped_by_include_index_build_info_are_unwrapped() {
        let text = r#"{"collections": [{"name": "c"}], "indexes": {"c": [
            {"spec": {"v": 2, "key": {"a": 1}, "name": "a_1"}},
            {"spec": {"v": 2, "key": {"b": 1}, "name": "b_1"}, "indexBuildInfo": {"opid": 7}}
        ]}}"#;
        let catalog = Catalog::from_extjson(text).unwrap();
        assert_eq!(
            catalog.indexes_of("c")[0],
            doc! {"v": 2, "key": {"a": 1}, "name": "a_1"}
        );
        assert!(catalog.indexes_of("c")[1].contains_key("indexBuildInfo"));
    }

    #[test]
    fn shape_errors_name_the_path() {
        let err = |text: &str| format!("{:#}", Catalog::from_extjson(text).unwrap_err());
        assert_eq!(
            err("[]"),
            "at $: expected an object with \"collections\" and \"indexes\""
        );
        assert_eq!(
            err(r#"{"collections": [{"nam": "x"}], "indexes": {}}"#),
            "at $.collections[0]: missing \"name\""
        );
        assert_eq!(
            err(r#"{"collections": [{"name": "x"}], "indexes": {"x": [{"name": "a"}]}}"#),
            "at $.indexes.x[0]: an index needs \"key\""
        );
        assert_eq!(
            err(r#"{"collections": [], "indexes": {"y": []}}"#),
            "at $.indexes.y: no collection named \"y\" in \"collections\""
        );
        assert!(err("{\"collections\": [\n,]}").contains("line 2"));
    }
}
