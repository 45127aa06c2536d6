//! The `$indexStats` counters the server keeps per index and host: part of the server's state,
//! read and written by `commands/index_stats.rs`.

use std::collections::BTreeMap;

use bson::DateTime;

/// Usage an index has on one host, as `$indexStats` reports it (what a test seeds).
#[derive(Debug, Clone, PartialEq)]
pub struct IndexAccess {
    /// `host`: `hostname:port` of the reporting `mongod` (`None`: this server's own address).
    pub host: Option<String>,
    /// `shard`: the shard the host belongs to (only on a sharded cluster).
    pub shard: Option<String>,
    /// `accesses.ops`: user operations that used the index.
    pub ops: i64,
    /// `accesses.since`: when the counting started (start-up, index creation, or its last collMod).
    pub since: DateTime,
}

/// The usage counters of every index, by (database, collection, index name).
#[derive(Debug)]
pub(crate) struct Usage {
    /// When this server started: the `since` of an index nothing seeded or used.
    pub(crate) started: DateTime,
    pub(crate) accesses: BTreeMap<(String, String, String), Vec<IndexAccess>>,
}

impl Default for Usage {
    fn default() -> Self {
        Self {
            started: DateTime::now(),
            accesses: BTreeMap::new(),
        }
    }
}

pub(crate) fn key(db: &str, collection: &str, index: &str) -> (String, String, String) {
    (db.to_owned(), collection.to_owned(), index.to_owned())
}

impl Usage {
    /// Replaces what `$indexStats` reports for one index with `accesses`, one entry per host.
    pub(crate) fn seed(
        &mut self,
        db: &str,
        collection: &str,
        index: &str,
        accesses: Vec<IndexAccess>,
    ) {
        self.accesses.insert(key(db, collection, index), accesses);
    }

    /// What is reported for one index: the seeded entries, or this server at zero since start.
    pub(crate) fn of(&self, db: &str, collection: &str, index: &str) -> Vec<IndexAccess> {
        self.accesses
            .get(&key(db, collection, index))
            .cloned()
            .unwrap_or_else(|| {
                vec![IndexAccess {
                    host: None,
                    shard: None,
                    ops: 0,
                    since: self.started,
                }]
            })
    }

    /// Counts one use of an index on this server.
    pub(crate) fn record(&mut self, db: &str, collection: &str, index: &str) {
        let started = self.started;
        let entries = self.accesses.entry(key(db, collection, index)).or_default();
        match entries.iter_mut().find(|a| a.host.is_none()) {
            Some(own) => own.ops += 1,
            None => entries.push(IndexAccess {
                host: None,
                shard: None,
                ops: 1,
                since: started,
            }),
        }
    }
}
