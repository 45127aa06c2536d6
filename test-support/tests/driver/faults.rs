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

#[tokio::test]
async fn matching_fails_one_collection_among_concurrent_list_indexes() {
    let (server, client) = start().await;
    for name in ["a", "b", "c"] {
        server.execute("shop", doc! {"create": name});
    }
    server.inject(
        Failure::on("listIndexes")
            .matching(doc! {"listIndexes": "b"})
            .error(13, "no"),
    );
    let db = client.database("shop");
    let (a, b, c) = tokio::join!(
        db.run_command(doc! {"listIndexes": "a"}),
        db.run_command(doc! {"listIndexes": "b"}),
        db.run_command(doc! {"listIndexes": "c"}),
    );
    assert!(a.is_ok() && c.is_ok());
    assert_eq!(code_of(&b.unwrap_err()), 13);
}

#[tokio::test]
async fn a_raw_reply_is_sent_verbatim() {
    let (server, client) = start().await;
    server.inject(Failure::on("ping").reply(doc! {
        "ok": 0.0,
        "errmsg": "not primary",
        "code": 10107,
        "codeName": "NotWritablePrimary",
        "errorLabels": ["RetryableWriteError"],
    }));
    let err = client
        .database("shop")
        .run_command(doc! {"ping": 1})
        .await
        .unwrap_err();
    assert_eq!(code_of(&err), 10107);
    assert!(err.contains_label("RetryableWriteError"));
}

#[tokio::test]
async fn a_stall_longer_than_max_time_ms_fails_with_max_time_ms_expired() {
    let (server, client) = start().await;
    server.execute("shop", doc! {"create": "orders"});
    server.inject(Failure::on("count").stall(Duration::from_secs(30)));
    let db = client.database("shop");
    let err = db
        .run_command(doc! {"count": "orders", "maxTimeMS": 50})
        .await
        .unwrap_err();
    assert_eq!(code_of(&err), 50);
}

#[tokio::test]
async fn credentials_fail_with_authentication_failed() {
    let server = mongo_schema_test_support::TestServer::start(Default::default()).await;
    let uri = server
        .uri()
        .replace("mongodb://", "mongodb://alice:s3cret@");
    let client = mongodb::Client::with_uri_str(uri).await.unwrap();
    let err = client
        .database("shop")
        .run_command(doc! {"ping": 1})
        .await
        .unwrap_err();
    assert!(
        matches!(&*err.kind, ErrorKind::Authentication { .. }),
        "{err:?}"
    );
    assert!(
        server.command_names().contains(&"saslStart".to_owned()),
        "{:?}",
        server.command_names()
    );
}

#[tokio::test]
async fn any_write_fails_the_kth_write_whatever_it_is() {
    let (server, client) = start().await;
    let db = client.database("shop");
    server.inject(Failure::any_write().nth(2).error(11601, "interrupted"));
    run(&db, doc! {"create": "a"}).await;
    run(&db, doc! {"listCollections": 1}).await;
    let err = db
        .run_command(doc! {"createIndexes": "a", "indexes": [{"key": {"x": 1}, "name": "x_1"}]})
        .await
        .unwrap_err();
    assert_eq!(code_of(&err), 11601);
    assert_eq!(server.index_specs("shop", "a").len(), 1);
    let writes = server.write_commands();
    assert_eq!(
        writes.iter().map(|c| c.target()).collect::<Vec<_>>(),
        [Some("a"), Some("a")]
    );
}

#[tokio::test]
async fn peak_in_flight_shows_how_many_commands_ran_at_once() {
    let (server, client) = start().await;
    for i in 0..8 {
        server.execute("shop", doc! {"create": format!("c{i}")});
    }
    server.inject(
        Failure::on("listIndexes")
            .always()
            .stall(Duration::from_millis(100)),
    );
    let db = client.database("shop");
    let mut calls = tokio::task::JoinSet::new();
    for i in 0..8 {
        let db = db.clone();
        calls.spawn(async move { db.run_command(doc! {"listIndexes": format!("c{i}")}).await });
    }
    while let Some(result) = calls.join_next().await {
        result.unwrap().unwrap();
    }
    let peak = server.peak_in_flight("listIndexes");
    assert!(peak > 1 && peak <= 8, "{peak}");
    run(&db, doc! {"ping": 1}).await;
    assert_eq!(server.peak_in_flight("ping"), 1);
}
