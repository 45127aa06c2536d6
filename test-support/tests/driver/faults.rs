//! Failure injection (errors on the k-th command, closed connections, stalls) and recording.

use std::time::Duration;

use bson::{Document, doc};
use mongo_schema_test_support::Failure;
use mongodb::error::ErrorKind;

use super::{code_of, message_of, run, start};

#[tokio::test]
async fn the_kth_named_command_fails_with_the_given_code() {
    let (server, client) = start().await;
    server.execute("shop", doc! {"create": "a"});
    server.inject(
        Failure::on("listIndexes")
            .nth(2)
            .error(13, "not authorized on shop"),
    );
    let db = client.database("shop");
    run(&db, doc! {"listIndexes": "a"}).await;
    let err = db.run_command(doc! {"listIndexes": "a"}).await.unwrap_err();
    assert_eq!(code_of(&err), 13);
    assert_eq!(message_of(&err), "not authorized on shop");
    run(&db, doc! {"listIndexes": "a"}).await;
}

#[tokio::test]
async fn the_kth_command_of_any_name_fails_and_monitoring_is_not_counted() {
    let (server, client) = start().await;
    let db = client.database("shop");
    server.inject(Failure::any_command().nth(3).error(2, "third"));
    run(&db, doc! {"ping": 1}).await;
    run(&db, doc! {"hello": 1}).await;
    run(&db, doc! {"buildInfo": 1}).await;
    let err = db.run_command(doc! {"ping": 1}).await.unwrap_err();
    assert_eq!(code_of(&err), 2);
}

#[tokio::test]
async fn a_retryable_error_is_retried_by_the_driver() {
    // ExceededTimeLimit (262) is in the retryable-reads code list, so listIndexes is sent twice.
    let (server, client) = start().await;
    server.execute("shop", doc! {"create": "a"});
    server.inject(Failure::on("listIndexes").error(262, "exceeded time limit"));
    let names = client
        .database("shop")
        .collection::<Document>("a")
        .list_index_names()
        .await
        .unwrap();
    assert_eq!(names, ["_id_"]);
    assert_eq!(server.commands_named("listIndexes").len(), 2);
}

#[tokio::test]
async fn always_fails_until_cleared() {
    let (server, client) = start().await;
    let db = client.database("shop");
    server.inject(Failure::on("ping").always().error(8, "down"));
    for _ in 0..3 {
        assert_eq!(
            code_of(&db.run_command(doc! {"ping": 1}).await.unwrap_err()),
            8
        );
    }
    server.clear_failures();
    run(&db, doc! {"ping": 1}).await;
}

#[tokio::test]
async fn a_closed_connection_is_a_network_error_for_the_driver() {
    let (server, client) = start().await;
    let db = client.database("shop");
    server.inject(Failure::on("ping").close_connection());
    let err = db.run_command(doc! {"ping": 1}).await.unwrap_err();
    assert!(matches!(&*err.kind, ErrorKind::Io(_)), "{err:?}");
    // The next command goes through on a fresh connection.
    run(&db, doc! {"ping": 1}).await;
}

#[tokio::test]
async fn a_stalled_command_does_not_answer_in_time() {
    let (server, client) = start().await;
    let db = client.database("shop");
    server.inject(Failure::on("ping").stall(Duration::from_secs(2)));
    let pending =
        tokio::time::timeout(Duration::from_millis(200), db.run_command(doc! {"ping": 1})).await;
    assert!(pending.is_err(), "the stalled ping answered: {pending:?}");
    // Another connection is not held up.
    run(&db, doc! {"buildInfo": 1}).await;
}

#[tokio::test]
async fn reads_are_recorded_and_are_not_writes() {
    let (server, client) = start().await;
    server.execute("shop", doc! {"create": "orders"});
    let db = client.database("shop");
    db.list_collection_names().await.unwrap();
    db.collection::<Document>("orders")
        .list_index_names()
        .await
        .unwrap();
    db.collection::<Document>("orders")
        .count_documents(doc! {})
        .await
        .unwrap();
    assert_eq!(
        server.command_names(),
        ["listCollections", "listIndexes", "aggregate"]
    );
    assert!(server.write_commands().is_empty());
    let recorded = &server.commands_named("listIndexes")[0];
    assert_eq!(recorded.body.get_str("listIndexes").unwrap(), "orders");
    db.collection::<Document>("orders")
        .insert_one(doc! {"a": 1})
        .await
        .unwrap();
    let writes = server.write_commands();
    assert_eq!(writes.len(), 1);
    assert_eq!(writes[0].name, "insert");
    // Document sequences are folded into the body.
    assert_eq!(writes[0].body.get_array("documents").unwrap().len(), 1);
    server.clear_commands();
    assert!(server.command_names().is_empty());
}
