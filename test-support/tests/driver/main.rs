//! The real `mongodb` driver against the test server over loopback: every command, its replies
//! and its errors as the driver surfaces them. One test binary (linking the driver is slow), one
//! module per area.

mod catalog;
mod collections;
mod data;
mod faults;
mod indexes;
mod quirks;

use bson::{Document, doc};
use mongo_schema_test_support::{TestServer, TestServerOptions};
use mongodb::error::{ErrorKind, WriteFailure};
use mongodb::{Client, Cursor, Database};

/// A server with default options and a driver client on it.
async fn start() -> (TestServer, Client) {
    start_with(TestServerOptions::default()).await
}

async fn start_with(options: TestServerOptions) -> (TestServer, Client) {
    let server = TestServer::start(options).await;
    let client = Client::with_uri_str(server.uri()).await.unwrap();
    (server, client)
}

/// The server error code the driver reports, for command and write errors.
fn code_of(error: &mongodb::error::Error) -> i32 {
    match &*error.kind {
        ErrorKind::Command(command) => command.code,
        ErrorKind::Write(WriteFailure::WriteError(write)) => write.code,
        ErrorKind::InsertMany(many) => many.write_errors.as_ref().unwrap()[0].code,
        other => panic!("not a server error: {other:?}"),
    }
}

/// The message of a command error.
fn message_of(error: &mongodb::error::Error) -> String {
    match &*error.kind {
        ErrorKind::Command(command) => command.message.clone(),
        other => panic!("not a command error: {other:?}"),
    }
}

async fn run(db: &Database, command: Document) -> Document {
    db.run_command(command).await.unwrap()
}

async fn run_err(db: &Database, command: Document) -> mongodb::error::Error {
    db.run_command(command).await.unwrap_err()
}

/// Drains a cursor, following getMore batches.
async fn drain(mut cursor: Cursor<Document>) -> Vec<Document> {
    let mut out = Vec::new();
    while cursor.advance().await.unwrap() {
        out.push(cursor.deserialize_current().unwrap());
    }
    out
}

/// A command's listed entries via `run_cursor_command` (all batches).
async fn listed(db: &Database, command: Document) -> Vec<Document> {
    drain(db.run_cursor_command(command).await.unwrap()).await
}

#[tokio::test]
async fn hello_reports_a_writable_standalone_with_the_configured_wire_version() {
    let (server, client) = start().await;
    let admin = client.database("admin");
    let hello = run(&admin, doc! {"hello": 1}).await;
    assert!(hello.get_bool("isWritablePrimary").unwrap());
    assert_eq!(hello.get_i32("maxWireVersion").unwrap(), 21);
    assert_eq!(hello.get_i32("maxBsonObjectSize").unwrap(), 16_777_216);
    assert_eq!(hello.get_i32("logicalSessionTimeoutMinutes").unwrap(), 30);
    assert!(hello.get_datetime("localTime").is_ok());
    let legacy = run(&admin, doc! {"isMaster": 1}).await;
    assert!(legacy.get_bool("ismaster").unwrap());

    server.set_version(mongo_schema_test_support::ServerVersion::V8_0);
    let hello = run(&admin, doc! {"hello": 1}).await;
    assert_eq!(hello.get_i32("maxWireVersion").unwrap(), 25);
    let build = run(&admin, doc! {"buildInfo": 1}).await;
    assert_eq!(build.get_str("version").unwrap(), "8.0.0");
    assert_eq!(
        build.get_array("versionArray").unwrap()[0],
        bson::Bson::Int32(8)
    );
}

#[tokio::test]
async fn the_driver_handshake_is_recorded_as_monitoring() {
    let (server, client) = start().await;
    run(&client.database("x"), doc! {"ping": 1}).await;
    let all = server.commands();
    // The driver opens with legacy hello offering helloOk (driver 3.x `hello_command`).
    let first = &all[0];
    assert!(
        first.name == "isMaster" || first.name == "hello",
        "{first:?}"
    );
    assert!(first.is_monitoring());
    assert_eq!(server.command_names(), vec!["ping".to_owned()]);
    let ping = server.commands_named("ping");
    assert_eq!(ping[0].db, "x");
    assert!(ping[0].body.contains_key("lsid"));
}

#[tokio::test]
async fn unknown_commands_fail_with_command_not_found() {
    let (_server, client) = start().await;
    let err = run_err(&client.database("x"), doc! {"frobnicate": 1}).await;
    assert_eq!(code_of(&err), 59);
    assert_eq!(message_of(&err), "no such command: 'frobnicate'");
}

#[test]
fn blocking_server_serves_a_synchronous_test() {
    let server = mongo_schema_test_support::BlockingTestServer::start(TestServerOptions::default());
    server.execute("shop", doc! {"create": "orders"});
    let uri = server.uri();
    let names = server.runtime().block_on(async move {
        let client = Client::with_uri_str(uri).await.unwrap();
        client
            .database("shop")
            .list_collection_names()
            .await
            .unwrap()
    });
    assert_eq!(names, vec!["orders".to_owned()]);
    assert_eq!(server.command_names(), vec!["listCollections".to_owned()]);
}

#[tokio::test]
async fn a_legacy_op_query_handshake_gets_an_op_reply() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    // Source: the manual's wire protocol page: OP_QUERY (2004) on `admin.$cmd` is answered with
    // OP_REPLY (1): responseFlags, cursorID, startingFrom, numberReturned, then the documents.
    let server = TestServer::start(TestServerOptions::default()).await;
    let mut stream = tokio::net::TcpStream::connect(server.address())
        .await
        .unwrap();
    let query = doc! {"isMaster": 1, "helloOk": true}.to_vec().unwrap();
    let mut body = Vec::new();
    body.extend(0i32.to_le_bytes());
    body.extend(b"admin.$cmd\0");
    body.extend(0i32.to_le_bytes());
    body.extend((-1i32).to_le_bytes());
    body.extend(query);
    let mut message = ((body.len() + 16) as i32).to_le_bytes().to_vec();
    message.extend(42i32.to_le_bytes());
    message.extend(0i32.to_le_bytes());
    message.extend(2004i32.to_le_bytes());
    message.extend(body);
    stream.write_all(&message).await.unwrap();
    let length = stream.read_i32_le().await.unwrap();
    let mut rest = vec![0; length as usize - 4];
    stream.read_exact(&mut rest).await.unwrap();
    assert_eq!(
        i32::from_le_bytes(rest[4..8].try_into().unwrap()),
        42,
        "responseTo"
    );
    assert_eq!(
        i32::from_le_bytes(rest[8..12].try_into().unwrap()),
        1,
        "OP_REPLY"
    );
    assert_eq!(
        i32::from_le_bytes(rest[28..32].try_into().unwrap()),
        1,
        "numberReturned"
    );
    let reply = Document::from_reader(&rest[32..]).unwrap();
    assert!(reply.get_bool("ismaster").unwrap());
    assert!(reply.get_bool("helloOk").unwrap());
    assert_eq!(server.commands()[0].db, "admin");
}
