//! The server's memory: databases, collections (as their listCollections entries), indexes (as
//! their listIndexes entries), documents, open cursors, the command log and armed failures.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;

use bson::{Bson, Document};

use crate::failure::Armed;
use crate::{Quirks, RecordedCommand, SchemaEvaluator, ServerVersion, TestServerOptions};

/// Everything the server holds, behind one lock.
pub(crate) struct State {
    pub(crate) version: ServerVersion,
    pub(crate) quirks: Quirks,
    pub(crate) evaluator: Option<Arc<dyn SchemaEvaluator>>,
    pub(crate) databases: BTreeMap<String, Database>,
    pub(crate) cursors: HashMap<i64, Cursor>,
    next_cursor_id: i64,
    pub(crate) recorded: Vec<RecordedCommand>,
    pub(crate) failures: Vec<Armed>,
    /// Canned explain replies: (fields the explained command must have, reply).
    pub(crate) explains: Vec<(Document, Document)>,
    /// Canned replies by command name, answered instead of the built-in handler.
    pub(crate) canned: HashMap<String, Document>,
    /// Commands being served right now, by name, and the most seen at once.
    pub(crate) in_flight: HashMap<String, usize>,
    pub(crate) peak_in_flight: HashMap<String, usize>,
    pub(crate) port: u16,
    /// `$indexStats` counters.
    pub(crate) usage: crate::usage::Usage,
    /// Index builds held for `currentOp` to see.
    pub(crate) builds: crate::builds::Builds,
    /// The next search index id (`commands/search.rs`).
    next_search_index: u64,
}

/// A database: its collections in creation order (listCollections returns them so).
#[derive(Debug, Default)]
pub(crate) struct Database {
    pub(crate) collections: Vec<Collection>,
}

/// A collection, kept in the form the server lists it.
#[derive(Debug, Clone)]
pub(crate) struct Collection {
    pub(crate) name: String,
    /// The listCollections entry, verbatim.
    pub(crate) entry: Document,
    pub(crate) indexes: Vec<IndexEntry>,
    pub(crate) documents: Vec<Document>,
    /// Search and vector search indexes (`commands/search.rs`).
    pub(crate) search_indexes: Vec<SearchIndex>,
}

/// A search index and how far its build has gone.
#[derive(Debug, Clone)]
pub(crate) struct SearchIndex {
    pub(crate) id: String,
    pub(crate) name: String,
    /// `search` or `vectorSearch`.
    pub(crate) kind: String,
    pub(crate) definition: Document,
    /// Listings since the last create or update: the build's status follows it.
    pub(crate) step: usize,
    /// `latestDefinitionVersion.version`: 0, then one more per update.
    pub(crate) version: i64,
}

/// An index as listIndexes shows it, and its build state.
#[derive(Debug, Clone)]
pub(crate) struct IndexEntry {
    pub(crate) spec: Document,
    /// `indexBuildInfo` while the build is in progress.
    pub(crate) build: Option<Document>,
}

impl IndexEntry {
    pub(crate) fn name(&self) -> &str {
        self.spec.get_str("name").unwrap_or_default()
    }
}

/// An open cursor: its namespace and the documents not yet returned.
#[derive(Debug)]
pub(crate) struct Cursor {
    pub(crate) ns: String,
    pub(crate) remaining: VecDeque<Document>,
}

impl State {
    /// A fresh search index id, as the service hands out ObjectId-like strings.
    pub(crate) fn next_search_index_id(&mut self) -> u64 {
        self.next_search_index += 16;
        self.next_search_index
    }

    pub(crate) fn new(options: TestServerOptions, port: u16) -> Self {
        Self {
            version: options.version,
            quirks: options.quirks,
            evaluator: options.schema_evaluator,
            databases: BTreeMap::new(),
            cursors: HashMap::new(),
            next_cursor_id: 7_340_000_001,
            next_search_index: 0x6524_0960_20da_8408,
            recorded: Vec::new(),
            failures: Vec::new(),
            explains: Vec::new(),
            canned: HashMap::new(),
            in_flight: HashMap::new(),
            peak_in_flight: HashMap::new(),
            port,
            usage: Default::default(),
            builds: Default::default(),
        }
    }

    pub(crate) fn allocate_cursor(&mut self, cursor: Cursor) -> i64 {
        let id = self.next_cursor_id;
        self.next_cursor_id += 1;
        self.cursors.insert(id, cursor);
        id
    }

    pub(crate) fn collection(&self, db: &str, name: &str) -> Option<&Collection> {
        self.databases
            .get(db)?
            .collections
            .iter()
            .find(|c| c.name == name)
    }

    pub(crate) fn collection_mut(&mut self, db: &str, name: &str) -> Option<&mut Collection> {
        self.databases
            .get_mut(db)?
            .collections
            .iter_mut()
            .find(|c| c.name == name)
    }

    /// Adds or replaces a collection.
    pub(crate) fn put_collection(&mut self, db: &str, collection: Collection) {
        let database = self.databases.entry(db.to_owned()).or_default();
        match database
            .collections
            .iter_mut()
            .find(|c| c.name == collection.name)
        {
            Some(existing) => *existing = collection,
            None => database.collections.push(collection),
        }
    }

    /// Removes a collection; drops the database when it was the last one.
    pub(crate) fn remove_collection(&mut self, db: &str, name: &str) -> Option<Collection> {
        let database = self.databases.get_mut(db)?;
        let at = database.collections.iter().position(|c| c.name == name)?;
        let removed = database.collections.remove(at);
        if database.collections.is_empty() {
            self.databases.remove(db);
        }
        Some(removed)
    }
}

impl Collection {
    /// A collection from a raw listCollections entry (which must have a string `name`).
    pub(crate) fn from_entry(entry: Document) -> Option<Self> {
        let name = entry.get_str("name").ok()?.to_owned();
        Some(Self {
            name,
            entry,
            indexes: Vec::new(),
            documents: Vec::new(),
            search_indexes: Vec::new(),
        })
    }

    /// The entry's `options` document (empty when absent).
    pub(crate) fn options(&self) -> Document {
        self.entry
            .get_document("options")
            .cloned()
            .unwrap_or_default()
    }

    pub(crate) fn kind(&self) -> &str {
        self.entry.get_str("type").unwrap_or("collection")
    }

    pub(crate) fn set_option(&mut self, key: &str, value: Option<Bson>) {
        let mut options = self.options();
        match value {
            Some(value) => {
                options.insert(key, value);
            }
            None => {
                options.remove(key);
            }
        }
        self.entry.insert("options", options);
    }
}
