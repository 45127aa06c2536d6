//! Command dispatch: one handler per command, each returning the server's reply or its error.

mod coll_stats;
mod collection;
mod commit_quorum;
mod crud;
pub(crate) mod current_op;
mod cursor;
mod explain;
mod handshake;
mod index;
pub(crate) mod index_stats;
mod listing;
mod search;
mod update;

use bson::{Bson, Document, doc};

use crate::error::{CommandError, code};
use crate::state::State;

/// Runs one command body (with `$db`) against the state.
pub(crate) fn dispatch(
    state: &mut State,
    body: &Document,
    connection_id: i64,
) -> Result<Document, CommandError> {
    let Some(name) = body.keys().next().cloned() else {
        return Err(CommandError::new(code::FAILED_TO_PARSE, "Empty command"));
    };
    let db = match body.get("$db") {
        Some(Bson::String(db)) => db.clone(),
        _ => {
            // Source: the server requires `$db` in every OP_MSG (IDL generic argument).
            return Err(CommandError::new(
                code::IDL_MISSING_FIELD,
                format!("BSON field '{name}.$db' is missing but a required field"),
            ));
        }
    };
    if let Some(reply) = state.canned.get(&name) {
        return Ok(reply.clone());
    }
    let cx = Context {
        db: &db,
        name: &name,
        body,
        connection_id,
    };
    match name.as_str() {
        "hello" | "isMaster" | "ismaster" => Ok(handshake::hello(state, &cx)),
        "buildInfo" | "buildinfo" => Ok(handshake::build_info(state)),
        "ping" | "endSessions" | "killSessions" | "refreshSessions" => Ok(ok()),
        "connectionStatus" => Ok(handshake::connection_status()),
        // Source: the manual's "Authentication": the server has no users, so any credentials
        // fail with AuthenticationFailed (18), as for an unknown user.
        "saslStart" | "saslContinue" | "authenticate" => {
            Err(CommandError::new(18, "Authentication failed."))
        }
        "listDatabases" => listing::list_databases(state, &cx),
        "listCollections" => listing::list_collections(state, &cx),
        "listIndexes" => listing::list_indexes(state, &cx),
        "getMore" => cursor::get_more(state, &cx),
        "killCursors" => cursor::kill_cursors(state, &cx),
        "create" => collection::create(state, &cx),
        "collMod" => collection::coll_mod(state, &cx),
        "drop" => collection::drop(state, &cx),
        "dropDatabase" => Ok(collection::drop_database(state, &cx)),
        "createIndexes" => index::create_indexes(state, &cx),
        "dropIndexes" | "deleteIndexes" => index::drop_indexes(state, &cx),
        "insert" => crud::insert(state, &cx),
        "find" => crud::find(state, &cx),
        "count" => crud::count(state, &cx),
        "aggregate" if search::is_list_search_indexes(&cx) => search::list(state, &cx),
        "aggregate" => crud::aggregate(state, &cx),
        "update" => update::update(state, &cx),
        "createSearchIndexes" => search::create(state, &cx),
        "updateSearchIndex" => search::update(state, &cx),
        "dropSearchIndex" => search::drop(state, &cx),
        "explain" => explain::explain(state, &cx),
        "currentOp" => current_op::current_op(state, &cx),
        // Source: the server's reply to an unknown command (CommandNotFound, 59).
        other => Err(CommandError::new(
            code::COMMAND_NOT_FOUND,
            format!("no such command: '{other}'"),
        )),
    }
}

/// One command being run.
pub(crate) struct Context<'a> {
    pub(crate) db: &'a str,
    pub(crate) name: &'a str,
    pub(crate) body: &'a Document,
    pub(crate) connection_id: i64,
}

/// Generic command arguments every command accepts and ignores here (the server's
/// `generic_argument.idl`).
const GENERIC_ARGUMENTS: &[&str] = &[
    "$db",
    "lsid",
    "txnNumber",
    "autocommit",
    "startTransaction",
    "$clusterTime",
    "$readPreference",
    "readConcern",
    "writeConcern",
    "maxTimeMS",
    "comment",
    "apiVersion",
    "apiStrict",
    "apiDeprecationErrors",
    "$audit",
    "$client",
    "mayBypassWriteBlocking",
];

impl Context<'_> {
    /// The command's first value as a collection name.
    ///
    /// Source: IDL parsing of `namespace: concatenate_with_db` (TypeMismatch 14 for a non-string,
    /// InvalidNamespace 73 for an empty name).
    pub(crate) fn collection_name(&self) -> Result<String, CommandError> {
        match self.body.get(self.name) {
            Some(Bson::String(name)) if name.is_empty() => Err(CommandError::new(
                code::INVALID_NAMESPACE,
                format!("Invalid namespace specified '{}.'", self.db),
            )),
            Some(Bson::String(name)) => Ok(name.clone()),
            Some(other) => Err(CommandError::new(
                code::TYPE_MISMATCH,
                format!(
                    "collection name has invalid type {}",
                    crate::matcher::type_alias(other)
                ),
            )),
            None => Err(CommandError::new(
                code::FAILED_TO_PARSE,
                "missing collection name",
            )),
        }
    }

    /// The body's fields other than the command name and the generic arguments.
    pub(crate) fn arguments(&self) -> impl Iterator<Item = (&String, &Bson)> {
        self.body
            .iter()
            .skip(1)
            .filter(|(key, _)| !GENERIC_ARGUMENTS.contains(&key.as_str()))
    }

    /// An optional document argument (TypeMismatch when present with another type).
    pub(crate) fn document(&self, key: &str) -> Result<Option<&Document>, CommandError> {
        match self.body.get(key) {
            None | Some(Bson::Null) => Ok(None),
            Some(Bson::Document(d)) => Ok(Some(d)),
            Some(other) => Err(wrong_type(self.name, key, other, "object")),
        }
    }

    /// An optional boolean argument (numbers count as booleans, as IDL `safeBool` does).
    pub(crate) fn flag(&self, key: &str) -> bool {
        match self.body.get(key) {
            Some(Bson::Boolean(b)) => *b,
            Some(other) => crate::matcher::number(other).is_some_and(|n| n != 0.0),
            None => false,
        }
    }

    /// `batchSize`, either top level (`find`, `getMore`) or under `cursor` (`aggregate`,
    /// `listCollections`, `listIndexes`).
    pub(crate) fn batch_size(&self) -> Result<Option<usize>, CommandError> {
        let value = self
            .body
            .get("batchSize")
            .or_else(|| self.body.get_document("cursor").ok()?.get("batchSize"));
        match value {
            None => Ok(None),
            Some(v) => match crate::matcher::number(v) {
                // Source: "BatchSize value must be non-negative" (BadValue) in the server's
                // cursor request parsing.
                Some(n) if n >= 0.0 => Ok(Some(n as usize)),
                Some(n) => Err(CommandError::new(
                    code::BAD_VALUE,
                    format!("BatchSize value must be non-negative, but received: {n}"),
                )),
                None => Err(wrong_type(self.name, "batchSize", v, "long")),
            },
        }
    }
}

/// Creates a collection with default options if it does not exist (what `createIndexes` and
/// `insert` do); returns whether it was created.
pub(crate) fn ensure_collection(
    state: &mut State,
    db: &str,
    name: &str,
    command: &str,
) -> Result<bool, CommandError> {
    if let Some(existing) = state.collection(db, name) {
        if existing.kind() == "view" {
            return Err(CommandError::new(
                166,
                format!("Namespace {db}.{name} is a view, not a collection"),
            ));
        }
        return Ok(false);
    }
    let built = collection::build(state, db, name, &Document::new(), command)?;
    state.put_collection(db, built.collection);
    Ok(true)
}

/// IDL's wrong-type message: "BSON field 'create.validator' is the wrong type 'string', expected
/// type 'object'" (TypeMismatch 14).
pub(crate) fn wrong_type(command: &str, field: &str, value: &Bson, expected: &str) -> CommandError {
    CommandError::new(
        code::TYPE_MISMATCH,
        format!(
            "BSON field '{command}.{field}' is the wrong type '{}', expected type '{expected}'",
            crate::matcher::type_alias(value)
        ),
    )
}

/// IDL's unknown-field message (40415).
pub(crate) fn unknown_field(command: &str, field: &str) -> CommandError {
    CommandError::new(
        code::IDL_UNKNOWN_FIELD,
        format!("BSON field '{command}.{field}' is an unknown field."),
    )
}

/// `{ok: 1.0}`: the server always sends `ok` as a Double.
pub(crate) fn ok() -> Document {
    doc! {"ok": 1.0}
}

/// Documents equal by value, ignoring the order of fields at every depth (arrays stay ordered).
pub(crate) fn same_unordered(a: &Document, b: &Document) -> bool {
    a.len() == b.len()
        && a.iter()
            .all(|(k, v)| b.get(k).is_some_and(|w| same_value_unordered(v, w)))
}

fn same_value_unordered(a: &Bson, b: &Bson) -> bool {
    match (a, b) {
        (Bson::Document(x), Bson::Document(y)) => same_unordered(x, y),
        (Bson::Array(x), Bson::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_value_unordered(p, q))
        }
        _ => crate::matcher::values_equal(a, b),
    }
}
