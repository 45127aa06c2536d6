//! listDatabases, listCollections (filter, nameOnly, batches), listIndexes, getMore, killCursors.

use bson::{Bson, doc};

use super::{code_of, drain, listed, run, run_err, start};

#[tokio::test]
async fn list_collections_returns_stored_entries_verbatim() {
    let (server, client) = start().await;
    let entry = doc! {
        "name": "orders",
        "type": "collection",
        "options": {"validator": {"$jsonSchema": {"bsonType": "object"}}, "validationLevel": "moderate"},
        "info": {"readOnly": false},
        "idIndex": {"v": 2, "key": {"_id": 1}, "name": "_id_"},
    };
    server.seed_collection("shop", entry.clone());
    let db = client.database("shop");
    let entries = listed(&db, doc! {"listCollections": 1}).await;
    assert_eq!(entries, vec![entry]);
}

#[tokio::test]
async fn list_collections_filters_and_names_only() {
    let (server, client) = start().await;
    for name in ["a", "b", "c"] {
        server.execute("shop", doc! {"create": name});
    }
    server.execute("shop", doc! {"create": "v", "viewOn": "a", "pipeline": []});
    let db = client.database("shop");
    let names = db
        .list_collection_names()
        .filter(doc! {"name": {"$in": ["a", "c"]}})
        .await
        .unwrap();
    assert_eq!(names, vec!["a".to_owned(), "c".to_owned()]);
    let views = listed(&db, doc! {"listCollections": 1, "filter": {"type": "view"}, "nameOnly": true, "authorizedCollections": true}).await;
    assert_eq!(views, vec![doc! {"name": "v", "type": "view"}]);
}

#[tokio::test]
async fn list_collections_batches_follow_get_more() {
    let (server, client) = start().await;
    for i in 0..7 {
        server.execute("shop", doc! {"create": format!("c{i}")});
    }
    let db = client.database("shop");
    let first = run(&db, doc! {"listCollections": 1, "cursor": {"batchSize": 3}}).await;
    let cursor = first.get_document("cursor").unwrap();
    assert_eq!(cursor.get_str("ns").unwrap(), "shop.$cmd.listCollections");
    assert_eq!(cursor.get_array("firstBatch").unwrap().len(), 3);
    let id = cursor.get_i64("id").unwrap();
    assert_ne!(id, 0);
    let more = run(
        &db,
        doc! {"getMore": id, "collection": "$cmd.listCollections", "batchSize": 3},
    )
    .await;
    let more = more.get_document("cursor").unwrap();
    assert_eq!(more.get_array("nextBatch").unwrap().len(), 3);
    assert_eq!(more.get_i64("id").unwrap(), id);
    let last = run(
        &db,
        doc! {"getMore": id, "collection": "$cmd.listCollections"},
    )
    .await;
    let last = last.get_document("cursor").unwrap();
    assert_eq!(last.get_array("nextBatch").unwrap().len(), 1);
    assert_eq!(last.get_i64("id").unwrap(), 0);
    assert_eq!(server.open_cursors(), 0);

    // The driver follows the batches itself.
    let names = db.list_collection_names().batch_size(2).await.unwrap();
    assert_eq!(names.len(), 7);
    assert_eq!(server.commands_named("getMore").len(), 2 + 3);
}

#[tokio::test]
async fn get_more_on_an_unknown_cursor_is_cursor_not_found() {
    let (_server, client) = start().await;
    let db = client.database("shop");
    let err = run_err(&db, doc! {"getMore": 12345_i64, "collection": "x"}).await;
    assert_eq!(code_of(&err), 43);
}

#[tokio::test]
async fn kill_cursors_closes_an_open_cursor() {
    let (server, client) = start().await;
    for i in 0..5 {
        server.execute("shop", doc! {"create": format!("c{i}")});
    }
    let db = client.database("shop");
    let first = run(&db, doc! {"listCollections": 1, "cursor": {"batchSize": 1}}).await;
    let id = first.get_document("cursor").unwrap().get_i64("id").unwrap();
    assert_eq!(server.open_cursors(), 1);
    let reply = run(
        &db,
        doc! {"killCursors": "$cmd.listCollections", "cursors": [id, 99_i64]},
    )
    .await;
    assert_eq!(
        reply.get_array("cursorsKilled").unwrap(),
        &vec![Bson::Int64(id)]
    );
    assert_eq!(
        reply.get_array("cursorsNotFound").unwrap(),
        &vec![Bson::Int64(99)]
    );
    assert_eq!(server.open_cursors(), 0);

    // Dropping a driver cursor early makes the driver send killCursors.
    let mut cursor = db
        .run_cursor_command(doc! {"listCollections": 1, "cursor": {"batchSize": 1}})
        .await
        .unwrap();
    assert!(cursor.advance().await.unwrap());
    drop(cursor);
    for _ in 0..100 {
        if server.open_cursors() == 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(server.open_cursors(), 0);
    assert_eq!(server.commands_named("killCursors").len(), 2);
}

#[tokio::test]
async fn list_indexes_lists_specs_in_batches() {
    let (server, client) = start().await;
    server.execute("shop", doc! {"create": "orders"});
    for field in ["a", "b", "c", "d"] {
        server.execute("shop", doc! {"createIndexes": "orders", "indexes": [{"key": {field: 1}, "name": format!("{field}_1")}]});
    }
    let db = client.database("shop");
    let specs = listed(
        &db,
        doc! {"listIndexes": "orders", "cursor": {"batchSize": 2}},
    )
    .await;
    let names: Vec<&str> = specs.iter().map(|s| s.get_str("name").unwrap()).collect();
    assert_eq!(names, ["_id_", "a_1", "b_1", "c_1", "d_1"]);
    assert_eq!(specs[0], doc! {"v": 2, "key": {"_id": 1}, "name": "_id_"});
    // The driver's getMore carries no batchSize here, so the rest comes in one batch.
    assert_eq!(server.commands_named("getMore").len(), 1);
    let via_driver = db
        .collection::<bson::Document>("orders")
        .list_index_names()
        .await
        .unwrap();
    assert_eq!(via_driver.len(), 5);
}

#[tokio::test]
async fn list_indexes_on_a_missing_collection_is_namespace_not_found() {
    let (_server, client) = start().await;
    let err = run_err(&client.database("shop"), doc! {"listIndexes": "nope"}).await;
    assert_eq!(code_of(&err), 26);
}

#[tokio::test]
async fn list_databases_lists_databases_with_collections() {
    let (server, client) = start().await;
    server.execute("shop", doc! {"create": "orders"});
    server.execute("crm", doc! {"create": "people"});
    let names = client.list_database_names().await.unwrap();
    assert_eq!(names, vec!["crm".to_owned(), "shop".to_owned()]);
    let reply = run(
        &client.database("admin"),
        doc! {"listDatabases": 1, "filter": {"name": "shop"}},
    )
    .await;
    let dbs = reply.get_array("databases").unwrap();
    assert_eq!(dbs.len(), 1);
    assert!(reply.get_i64("totalSize").is_ok());
}

#[tokio::test]
async fn drained_cursors_leave_nothing_open() {
    let (server, client) = start().await;
    server.execute("shop", doc! {"create": "orders"});
    let docs: Vec<_> = (0..250).map(|i| doc! {"_id": i}).collect();
    server.seed_documents("shop", "orders", docs);
    let cursor = client
        .database("shop")
        .collection::<bson::Document>("orders")
        .find(doc! {})
        .await
        .unwrap();
    assert_eq!(drain(cursor).await.len(), 250);
    assert_eq!(server.open_cursors(), 0);
}

#[tokio::test]
async fn listing_commands_return_everything_in_the_first_batch_by_default() {
    // Source: list_collections.cpp / list_indexes.cpp: defaultBatchSize is unlimited (16 MiB cap).
    let (server, client) = start().await;
    for i in 0..150 {
        server.execute("shop", doc! {"create": format!("c{i}")});
    }
    let db = client.database("shop");
    let reply = run(&db, doc! {"listCollections": 1}).await;
    let cursor = reply.get_document("cursor").unwrap();
    assert_eq!(cursor.get_array("firstBatch").unwrap().len(), 150);
    assert_eq!(cursor.get_i64("id").unwrap(), 0);
    server.seed_documents("shop", "c0", (0..150).map(|i| doc! {"_id": i}));
    let reply = run(&db, doc! {"find": "c0"}).await;
    let cursor = reply.get_document("cursor").unwrap();
    assert_eq!(cursor.get_array("firstBatch").unwrap().len(), 101);
    assert_ne!(cursor.get_i64("id").unwrap(), 0);
}
