//! Recording: every command the server receives, so a test can prove what was (not) sent.

use bson::Document;

/// One command as the server received it.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedCommand {
    /// The command name (the body's first key), e.g. `listCollections`.
    pub name: String,
    /// The database from `$db`.
    pub db: String,
    /// The whole body, document sequences (`documents`, `indexes`...) folded in as arrays, and
    /// generic fields (`$db`, `lsid`, ...) kept.
    pub body: Document,
    /// Which connection sent it (numbered from 1 in accept order).
    pub connection_id: i64,
}

/// Commands the driver's monitoring and session bookkeeping send on their own schedule.
const MONITORING: &[&str] = &["hello", "isMaster", "ismaster", "endSessions"];

/// Commands that change data or the catalog.
const WRITES: &[&str] = &[
    "applyOps",
    "bulkWrite",
    "cloneCollectionAsCapped",
    "collMod",
    "compact",
    "convertToCapped",
    "create",
    "createIndexes",
    "createSearchIndexes",
    "delete",
    "drop",
    "dropDatabase",
    "dropIndexes",
    "dropSearchIndex",
    "enableSharding",
    "findAndModify",
    "insert",
    "reIndex",
    "renameCollection",
    "shardCollection",
    "update",
    "updateSearchIndex",
];

impl RecordedCommand {
    /// Whether the driver sent this on its own (heartbeats and handshakes: `hello`, `isMaster`;
    /// `endSessions` at shutdown) rather than because the application asked.
    #[must_use]
    pub fn is_monitoring(&self) -> bool {
        MONITORING.contains(&self.name.as_str())
    }

    /// The collection the command names (its first value, when a string), e.g. `orders` for
    /// `{listIndexes: "orders"}`.
    #[must_use]
    pub fn target(&self) -> Option<&str> {
        self.body.get(&self.name).and_then(bson::Bson::as_str)
    }

    /// Whether this command writes: a catalog or data change, or an `aggregate` whose pipeline
    /// ends in `$out` or `$merge`.
    #[must_use]
    pub fn is_write(&self) -> bool {
        if WRITES.contains(&self.name.as_str()) {
            return true;
        }
        self.name == "aggregate"
            && self.body.get_array("pipeline").is_ok_and(|stages| {
                stages.iter().any(|stage| {
                    stage
                        .as_document()
                        .is_some_and(|s| s.contains_key("$out") || s.contains_key("$merge"))
                })
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    fn recorded(body: Document) -> RecordedCommand {
        RecordedCommand {
            name: body.keys().next().unwrap().clone(),
            db: "d".into(),
            body,
            connection_id: 1,
        }
    }

    #[test]
    fn aggregate_with_out_is_a_write() {
        assert!(
            recorded(doc! {"aggregate": "c", "pipeline": [{"$match": {}}, {"$out": "x"}]})
                .is_write()
        );
        assert!(!recorded(doc! {"aggregate": "c", "pipeline": [{"$count": "n"}]}).is_write());
    }

    #[test]
    fn reads_are_not_writes() {
        for name in [
            "listCollections",
            "listIndexes",
            "find",
            "count",
            "getMore",
            "hello",
        ] {
            assert!(!recorded(doc! {name: 1}).is_write(), "{name}");
        }
        assert!(recorded(doc! {"collMod": "c"}).is_write());
    }
}
