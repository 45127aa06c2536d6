//! The server itself: a loopback listener, one task per connection, and the test-facing handle
//! for seeding, inspecting, recording and injecting failures.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use bson::{Bson, Document};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::{JoinHandle, JoinSet};

use crate::commands;
use crate::error::CommandError;
use crate::failure::Armed;
use crate::state::{Collection, IndexEntry, State};
use crate::wire::{self, ReadError, RequestKind};
use crate::{
    FailAction, Failure, Quirks, RecordedCommand, SchemaEvaluator, ServerVersion, TestServerOptions,
};

/// What every connection task shares.
struct Shared {
    state: Mutex<State>,
    next_connection_id: AtomicI64,
    next_reply_id: AtomicI64,
}

/// A MongoDB wire-protocol server on 127.0.0.1, holding its catalog in memory.
///
/// It serves on the tokio runtime that started it, so the code under test must not block that
/// runtime's only thread: synchronous code (a CLI run, `block_on`) belongs with
/// [`BlockingTestServer`]. Seeding, inspection and injection methods are synchronous and cheap.
/// Dropping it stops the listener and closes every connection.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// use mongo_schema_test_support::{TestServer, TestServerOptions};
/// let server = TestServer::start(TestServerOptions::default()).await;
/// server.seed_collection("shop", bson::doc! {"name": "orders", "type": "collection", "options": {}});
/// assert!(server.uri().starts_with("mongodb://127.0.0.1:"));
/// assert_eq!(server.collection_entry("shop", "orders").unwrap().get_str("name").unwrap(), "orders");
/// # }
/// ```
pub struct TestServer {
    shared: Arc<Shared>,
    address: SocketAddr,
    acceptor: JoinHandle<()>,
}

impl TestServer {
    /// Binds 127.0.0.1 on a free port and starts serving on the current tokio runtime.
    ///
    /// # Panics
    /// When no loopback port can be bound (the test cannot run at all).
    pub async fn start(options: TestServerOptions) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("binding a loopback port for the test server");
        let address = listener
            .local_addr()
            .expect("a bound listener has a local address");
        let shared = Arc::new(Shared {
            state: Mutex::new(State::new(options, address.port())),
            next_connection_id: AtomicI64::new(1),
            next_reply_id: AtomicI64::new(1),
        });
        let acceptor = tokio::spawn(accept_loop(listener, Arc::clone(&shared)));
        Self {
            shared,
            address,
            acceptor,
        }
    }

    /// The address the server listens on.
    #[must_use]
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// A connection string for the driver: `mongodb://127.0.0.1:PORT/?directConnection=true&serverSelectionTimeoutMS=5000`.
    ///
    /// `directConnection` makes the driver treat the server as a standalone with no discovery; the
    /// short selection timeout turns a failing server into an error in seconds, not thirty.
    #[must_use]
    pub fn uri(&self) -> String {
        format!(
            "mongodb://{}/?directConnection=true&serverSelectionTimeoutMS=5000",
            self.address
        )
    }

    /// Like [`uri`](Self::uri) with a default database in the path:
    /// `mongodb://127.0.0.1:PORT/DB?directConnection=true&...`.
    #[must_use]
    pub fn uri_with_db(&self, db: &str) -> String {
        format!(
            "mongodb://{}/{db}?directConnection=true&serverSelectionTimeoutMS=5000",
            self.address
        )
    }

    fn state(&self) -> MutexGuard<'_, State> {
        lock(&self.shared)
    }

    // ---- configuration ----

    /// Changes the release the server reports (and behaves as) from now on.
    pub fn set_version(&self, version: ServerVersion) {
        self.state().version = version;
    }

    /// Replaces the stored-form quirks.
    pub fn set_quirks(&self, quirks: Quirks) {
        self.state().quirks = quirks;
    }

    /// Plugs in the `$jsonSchema` evaluator.
    pub fn set_schema_evaluator(&self, evaluator: Arc<dyn SchemaEvaluator>) {
        self.state().evaluator = Some(evaluator);
    }

    /// Makes every `createIndexes` on an existing collection take `delay` (`None`: instant),
    /// listed by `currentOp` with its progress (`progress: {done, total}` over the collection's
    /// documents, at a steady pace) until it runs.
    pub fn set_index_build_delay(&self, delay: Option<std::time::Duration>) {
        self.state().builds.delay = delay;
    }

    /// Sets what `$indexStats` reports for one index: one entry per host (an empty list reports
    /// the index on no host). Without it an index reports 0 ops on this server since start-up,
    /// plus one op per `find` that hints it.
    pub fn seed_index_usage(
        &self,
        db: &str,
        collection: &str,
        index: &str,
        accesses: Vec<crate::IndexAccess>,
    ) {
        self.state().usage.seed(db, collection, index, accesses);
    }

    // ---- seeding and inspection ----

    /// Adds (or replaces) a collection from its raw listCollections entry, verbatim: no defaults
    /// are filled and no `_id_` index is added. The entry must have a string `name`.
    ///
    /// # Panics
    /// When the entry has no string `name`.
    pub fn seed_collection(&self, db: &str, entry: Document) {
        let collection =
            Collection::from_entry(entry).expect("a listCollections entry needs a string name");
        self.state().put_collection(db, collection);
    }

    /// Appends a raw listIndexes entry (verbatim) to a collection seeded or created before.
    ///
    /// # Panics
    /// When the collection does not exist.
    pub fn seed_index(&self, db: &str, collection: &str, spec: Document) {
        self.seed_index_entry(db, collection, IndexEntry { spec, build: None });
    }

    /// Adds a search index from a `$listSearchIndexes` entry (`name`, `type`, `status`,
    /// `latestDefinition`): listed with that status first, then moving on as a build does
    /// (`FAILED` stays failed).
    ///
    /// # Panics
    /// When the collection does not exist.
    pub fn seed_search_index(&self, db: &str, collection: &str, listed: Document) {
        let mut state = self.state();
        let id = state.next_search_index_id();
        let coll = state
            .collection_mut(db, collection)
            .expect("seed the collection before its search indexes");
        let status = listed.get_str("status").unwrap_or("READY");
        let step = match status {
            "PENDING" => 0,
            "BUILDING" => 1,
            "FAILED" => usize::MAX,
            _ => 2,
        };
        coll.search_indexes.push(crate::state::SearchIndex {
            id: listed
                .get_str("id")
                .map(str::to_owned)
                .unwrap_or_else(|_| format!("{id:024x}")),
            name: listed.get_str("name").unwrap_or("default").to_owned(),
            kind: listed.get_str("type").unwrap_or("search").to_owned(),
            definition: listed
                .get_document("latestDefinition")
                .cloned()
                .unwrap_or_default(),
            step,
            version: 0,
        });
    }

    /// Appends an index whose build is in progress: `listIndexes` with `includeIndexBuildInfo: true`
    /// lists it as `{spec, indexBuildInfo}`.
    ///
    /// # Panics
    /// When the collection does not exist.
    pub fn seed_index_build(
        &self,
        db: &str,
        collection: &str,
        spec: Document,
        index_build_info: Document,
    ) {
        self.seed_index_entry(
            db,
            collection,
            IndexEntry {
                spec,
                build: Some(index_build_info),
            },
        );
    }

    fn seed_index_entry(&self, db: &str, collection: &str, entry: IndexEntry) {
        let mut state = self.state();
        let target = state
            .collection_mut(db, collection)
            .unwrap_or_else(|| panic!("seed_index: seed collection {db}.{collection} first"));
        target.indexes.push(entry);
    }

    /// Seeds a whole database from a catalog document in the shape `mongo-schema snapshot`
    /// writes: `{collections: [<listCollections entries>], indexes: {<collection>: [<listIndexes
    /// entries>]}}`, verbatim. Index entries wrapped as `{spec, indexBuildInfo}` become builds in
    /// progress.
    ///
    /// # Panics
    /// When `collections` holds an entry without a string `name`, or `indexes` names a collection
    /// not in `collections`.
    pub fn seed_catalog(&self, db: &str, catalog: &Document) {
        for entry in catalog
            .get_array("collections")
            .map(Vec::as_slice)
            .unwrap_or_default()
        {
            let entry = entry.as_document().expect("collections holds documents");
            self.seed_collection(db, entry.clone());
        }
        let indexes = catalog.get_document("indexes").cloned().unwrap_or_default();
        for (collection, entries) in indexes {
            for entry in entries.as_array().map(Vec::as_slice).unwrap_or_default() {
                let entry = entry.as_document().expect("indexes holds documents");
                match (
                    entry.get_document("spec"),
                    entry.get_document("indexBuildInfo"),
                ) {
                    (Ok(spec), Ok(info)) => {
                        self.seed_index_build(db, &collection, spec.clone(), info.clone());
                    }
                    (Ok(spec), Err(_)) => self.seed_index(db, &collection, spec.clone()),
                    _ => self.seed_index(db, &collection, entry.clone()),
                }
            }
        }
    }

    /// A database's catalog in the shape [`seed_catalog`](Self::seed_catalog) reads, as stored
    /// (in-progress builds unwrapped): what a correct `snapshot` of this server must contain.
    #[must_use]
    pub fn catalog(&self, db: &str) -> Document {
        let state = self.state();
        let mut collections = Vec::new();
        let mut indexes = Document::new();
        for collection in state
            .databases
            .get(db)
            .map(|d| d.collections.as_slice())
            .unwrap_or_default()
        {
            collections.push(Bson::Document(collection.entry.clone()));
            if collection.kind() != "view" {
                let specs: Vec<Bson> = collection
                    .indexes
                    .iter()
                    .map(|i| Bson::Document(i.spec.clone()))
                    .collect();
                indexes.insert(collection.name.clone(), specs);
            }
        }
        bson::doc! {"collections": collections, "indexes": indexes}
    }

    /// Appends documents to a collection verbatim (no `_id` added, no validation).
    ///
    /// # Panics
    /// When the collection does not exist.
    pub fn seed_documents(
        &self,
        db: &str,
        collection: &str,
        documents: impl IntoIterator<Item = Document>,
    ) {
        let mut state = self.state();
        let target = state
            .collection_mut(db, collection)
            .unwrap_or_else(|| panic!("seed_documents: seed collection {db}.{collection} first"));
        target.documents.extend(documents);
    }

    /// Answers every command named `command` with `reply` from now on, instead of the built-in
    /// handler or CommandNotFound: for commands this server does not model (`listShards`,
    /// `serverStatus`, `getParameter`, ...). `ok: 1.0` is added when `reply` has no `ok`.
    pub fn seed_reply(&self, command: &str, reply: Document) {
        let mut reply = reply;
        if !reply.contains_key("ok") {
            reply.insert("ok", 1.0);
        }
        self.state().canned.insert(command.to_owned(), reply);
    }

    /// Registers a canned `explain` reply: an `explain` whose inner command has every field of
    /// `command` (compared by value; e.g. `{find: "orders", filter: {status: "PAID"}}`) gets
    /// `reply`. The first registered match wins; without one the server answers with a COLLSCAN plan.
    pub fn seed_explain(&self, command: Document, reply: Document) {
        self.state().explains.push((command, reply));
    }

    /// Runs a command directly, as if a client sent it on database `db`, without recording it or
    /// counting it for failures. Returns the reply (`ok: 0` with `code` on error).
    ///
    /// This is the way to create collections and indexes exactly as the server would store them.
    pub fn execute(&self, db: &str, command: Document) -> Document {
        let mut body = command;
        body.insert("$db", db);
        let mut state = self.state();
        match commands::dispatch(&mut state, &body, 0) {
            Ok(reply) => reply,
            Err(error) => error.to_reply(),
        }
    }

    /// The listCollections entry of a collection, as stored.
    #[must_use]
    pub fn collection_entry(&self, db: &str, collection: &str) -> Option<Document> {
        self.state()
            .collection(db, collection)
            .map(|c| c.entry.clone())
    }

    /// The names of a database's collections, in listing order.
    #[must_use]
    pub fn collection_names(&self, db: &str) -> Vec<String> {
        self.state()
            .databases
            .get(db)
            .map(|d| d.collections.iter().map(|c| c.name.clone()).collect())
            .unwrap_or_default()
    }

    /// The listIndexes specs of a collection (in-progress builds unwrapped), as stored.
    #[must_use]
    pub fn index_specs(&self, db: &str, collection: &str) -> Vec<Document> {
        self.state()
            .collection(db, collection)
            .map(|c| c.indexes.iter().map(|i| i.spec.clone()).collect())
            .unwrap_or_default()
    }

    /// The documents of a collection.
    #[must_use]
    pub fn documents(&self, db: &str, collection: &str) -> Vec<Document> {
        self.state()
            .collection(db, collection)
            .map(|c| c.documents.clone())
            .unwrap_or_default()
    }

    /// How many cursors are open (not exhausted, not killed).
    #[must_use]
    pub fn open_cursors(&self) -> usize {
        self.state().cursors.len()
    }

    // ---- recording ----

    /// Every command received so far, monitoring included, in arrival order.
    #[must_use]
    pub fn commands(&self) -> Vec<RecordedCommand> {
        self.state().recorded.clone()
    }

    /// The names of the commands received, monitoring (`hello`, `isMaster`, `endSessions`) left out.
    #[must_use]
    pub fn command_names(&self) -> Vec<String> {
        self.state()
            .recorded
            .iter()
            .filter(|c| !c.is_monitoring())
            .map(|c| c.name.clone())
            .collect()
    }

    /// The received commands named `name`.
    #[must_use]
    pub fn commands_named(&self, name: &str) -> Vec<RecordedCommand> {
        self.state()
            .recorded
            .iter()
            .filter(|c| c.name == name)
            .cloned()
            .collect()
    }

    /// The received `aggregate` commands whose pipeline starts with `stage` (`"$collStats"`).
    #[must_use]
    pub fn aggregates_starting_with(&self, stage: &str) -> Vec<RecordedCommand> {
        self.commands_named("aggregate")
            .into_iter()
            .filter(|c| {
                c.body
                    .get_array("pipeline")
                    .ok()
                    .and_then(|p| p.first())
                    .and_then(Bson::as_document)
                    .is_some_and(|first| first.contains_key(stage))
            })
            .collect()
    }

    /// The received commands that write (see [`RecordedCommand::is_write`]).
    #[must_use]
    pub fn write_commands(&self) -> Vec<RecordedCommand> {
        self.state()
            .recorded
            .iter()
            .filter(|c| c.is_write())
            .cloned()
            .collect()
    }

    /// Forgets the commands recorded so far and the concurrency peaks.
    pub fn clear_commands(&self) {
        let mut state = self.state();
        state.recorded.clear();
        state.peak_in_flight.clear();
    }

    /// The most commands named `name` the server was serving at the same moment, from receipt to
    /// reply: with a [`Failure::stall`] on that command, this shows how many a client runs
    /// concurrently (e.g. that `listIndexes` calls are concurrent but bounded).
    #[must_use]
    pub fn peak_in_flight(&self, name: &str) -> usize {
        self.state().peak_in_flight.get(name).copied().unwrap_or(0)
    }

    // ---- failure injection ----

    /// Arms a failure; several can be armed at once (the first that fires wins).
    pub fn inject(&self, failure: Failure) {
        self.state().failures.push(Armed::new(failure));
    }

    /// Disarms every injected failure.
    pub fn clear_failures(&self) {
        self.state().failures.clear();
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.acceptor.abort();
    }
}

impl std::fmt::Debug for TestServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestServer")
            .field("address", &self.address)
            .finish()
    }
}

fn lock(shared: &Shared) -> MutexGuard<'_, State> {
    // A panic in one handler must not wedge the other tests' view of the state.
    shared
        .state
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

async fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    // Connection tasks live in this set, so aborting the acceptor closes them all.
    let mut connections = JoinSet::new();
    loop {
        while connections.try_join_next().is_some() {}
        let Ok((stream, _)) = listener.accept().await else {
            // Out of descriptors or similar: back off instead of spinning.
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            continue;
        };
        let _ = stream.set_nodelay(true);
        let id = shared.next_connection_id.fetch_add(1, Ordering::Relaxed);
        connections.spawn(serve_connection(stream, Arc::clone(&shared), id));
    }
}

/// What to do with one request after recording it and consulting the armed failures.
enum Next {
    Reply(Document),
    Close,
    StallThenRun(std::time::Duration),
    StallThenFail(std::time::Duration),
    /// An index build held for its delay (listed by `currentOp` meanwhile), then run.
    BuildThenRun(std::time::Duration, i64),
}

/// The command's `maxTimeMS`, when positive.
fn max_time(body: &Document) -> Option<std::time::Duration> {
    let ms = body.get("maxTimeMS").and_then(crate::matcher::number)?;
    (ms > 0.0).then(|| std::time::Duration::from_millis(ms as u64))
}

async fn serve_connection(mut stream: TcpStream, shared: Arc<Shared>, connection_id: i64) {
    loop {
        let request = match wire::read_request(&mut stream).await {
            Ok(request) => request,
            Err(ReadError::Io) => return,
            Err(ReadError::Malformed(why)) => {
                // A real server closes the connection too; say why, for whoever debugs the test.
                eprintln!("test server: closing connection {connection_id}: {why}");
                return;
            }
        };
        let name = request.body.keys().next().cloned().unwrap_or_default();
        let _in_flight = InFlight::enter(&shared, name);
        let next = {
            let mut state = lock(&shared);
            admit(&mut state, &request.body, connection_id)
        };
        let reply = match next {
            Next::Reply(reply) => reply,
            Next::Close => return,
            Next::StallThenRun(duration) => {
                tokio::time::sleep(duration).await;
                run(&mut lock(&shared), &request.body, connection_id)
            }
            Next::BuildThenRun(duration, opid) => {
                tokio::time::sleep(duration).await;
                let mut state = lock(&shared);
                commands::current_op::end(&mut state, opid);
                run(&mut state, &request.body, connection_id)
            }
            Next::StallThenFail(limit) => {
                tokio::time::sleep(limit).await;
                // Source: the manual's maxTimeMS: the operation fails with MaxTimeMSExpired (50).
                CommandError::new(50, "operation exceeded time limit").to_reply()
            }
        };
        if request.kind == RequestKind::MsgNoReply {
            continue;
        }
        let reply_id = shared.next_reply_id.fetch_add(1, Ordering::Relaxed) as i32;
        if wire::write_reply(
            &mut stream,
            reply_id,
            request.request_id,
            request.kind,
            &reply,
        )
        .await
        .is_err()
        {
            return;
        }
    }
}

/// Counts a command as being served until dropped (reply written, connection closed or task
/// aborted).
struct InFlight {
    shared: Arc<Shared>,
    name: String,
}

impl InFlight {
    fn enter(shared: &Arc<Shared>, name: String) -> Self {
        let mut state = lock(shared);
        let now = state.in_flight.entry(name.clone()).or_insert(0);
        *now += 1;
        let now = *now;
        let peak = state.peak_in_flight.entry(name.clone()).or_insert(0);
        *peak = (*peak).max(now);
        Self {
            shared: Arc::clone(shared),
            name,
        }
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        if let Some(now) = lock(&self.shared).in_flight.get_mut(&self.name) {
            *now = now.saturating_sub(1);
        }
    }
}

/// Records the command, then runs it unless an armed failure takes it.
fn admit(state: &mut State, body: &Document, connection_id: i64) -> Next {
    let name = body.keys().next().cloned().unwrap_or_default();
    let db = match body.get("$db") {
        Some(Bson::String(db)) => db.clone(),
        _ => String::new(),
    };
    let recorded = RecordedCommand {
        name,
        db,
        body: body.clone(),
        connection_id,
    };
    let mut fired = None;
    for armed in &mut state.failures {
        if let Some(action) = armed.observe(&recorded) {
            fired.get_or_insert(action);
        }
    }
    state.failures.retain(|armed| !armed.is_spent());
    state.recorded.push(recorded);
    match fired {
        Some(FailAction::Error { code, message }) => {
            Next::Reply(CommandError::new(code, message).to_reply())
        }
        Some(FailAction::CloseConnection) => Next::Close,
        Some(FailAction::Reply(reply)) => Next::Reply(reply),
        Some(FailAction::Stall(duration)) => match max_time(body) {
            Some(limit) if limit < duration => Next::StallThenFail(limit),
            _ => Next::StallThenRun(duration),
        },
        None => match commands::current_op::begin(state, body) {
            Some((delay, opid)) => Next::BuildThenRun(delay, opid),
            None => Next::Reply(run(state, body, connection_id)),
        },
    }
}

fn run(state: &mut State, body: &Document, connection_id: i64) -> Document {
    match commands::dispatch(state, body, connection_id) {
        Ok(reply) => reply,
        Err(error) => error.to_reply(),
    }
}

/// A [`TestServer`] with its own tokio runtime, for synchronous tests (CLI transcripts).
///
/// It dereferences to the [`TestServer`] for seeding and inspection. Drop it outside any async
/// context (dropping a runtime inside one panics).
///
/// ```
/// use mongo_schema_test_support::{BlockingTestServer, TestServerOptions};
/// let server = BlockingTestServer::start(TestServerOptions::default());
/// let reply = server.execute("shop", bson::doc! {"create": "orders"});
/// assert_eq!(reply.get_f64("ok").unwrap(), 1.0);
/// ```
pub struct BlockingTestServer {
    server: Option<TestServer>,
    runtime: tokio::runtime::Runtime,
}

impl BlockingTestServer {
    /// Starts a server on a fresh single-worker runtime.
    ///
    /// # Panics
    /// When the runtime cannot be built or no loopback port can be bound.
    #[must_use]
    pub fn start(options: TestServerOptions) -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("building the test server's runtime");
        let server = runtime.block_on(TestServer::start(options));
        Self {
            server: Some(server),
            runtime,
        }
    }

    /// The runtime serving the connections, to `block_on` driver calls in a synchronous test.
    #[must_use]
    pub fn runtime(&self) -> &tokio::runtime::Runtime {
        &self.runtime
    }
}

impl std::ops::Deref for BlockingTestServer {
    type Target = TestServer;

    fn deref(&self) -> &TestServer {
        self.server.as_ref().expect("the server lives until drop")
    }
}

impl Drop for BlockingTestServer {
    fn drop(&mut self) {
        // Abort the acceptor inside the runtime's context before the runtime shuts down.
        let _guard = self.runtime.enter();
        self.server.take();
    }
}

impl std::fmt::Debug for BlockingTestServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlockingTestServer")
            .field("server", &self.server)
            .finish()
    }
}
