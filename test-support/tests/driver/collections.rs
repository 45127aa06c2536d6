//! create, collMod, drop: options stored as the server lists them, and the server's errors.

use bson::{Bson, doc};
use mongo_schema_test_support::{ServerVersion, TestServerOptions};

use super::{code_of, listed, message_of, run, run_err, start, start_with};

fn options_of(entry: &bson::Document) -> bson::Document {
    entry.get_document("options").unwrap().clone()
}

#[tokio::test]
async fn create_stores_validation_options_and_lists_them() {
    let (server, client) = start().await;
    let db = client.database("shop");
    db.create_collection("orders")
        .validator(doc! {"$jsonSchema": {"bsonType": "object", "required": ["status"]}})
        .validation_level(mongodb::options::ValidationLevel::Moderate)
        .validation_action(mongodb::options::ValidationAction::Warn)
        .await
        .unwrap();
    let entry = server.collection_entry("shop", "orders").unwrap();
    assert_eq!(entry.get_str("type").unwrap(), "collection");
    assert_eq!(
        options_of(&entry),
        doc! {
            "validator": {"$jsonSchema": {"bsonType": "object", "required": ["status"]}},
            "validationLevel": "moderate",
            "validationAction": "warn",
        }
    );
    assert!(matches!(
        entry.get_document("info").unwrap().get("uuid"),
        Some(Bson::Binary(_))
    ));
    assert_eq!(
        entry.get_document("idIndex").unwrap(),
        &doc! {"v": 2, "key": {"_id": 1}, "name": "_id_"}
    );
    let listed_entries = listed(&db, doc! {"listCollections": 1}).await;
    assert_eq!(listed_entries, vec![entry]);
}

#[tokio::test]
async fn create_with_the_same_options_is_a_no_op_and_other_options_conflict() {
    // Source: create_command.cpp checkCollectionOptions: same options succeed, others fail with
    // NamespaceExists (48).
    let (_server, client) = start().await;
    let db = client.database("shop");
    run(&db, doc! {"create": "orders", "validationLevel": "strict"}).await;
    run(&db, doc! {"create": "orders", "validationLevel": "strict"}).await;
    let err = run_err(&db, doc! {"create": "orders", "validationLevel": "off"}).await;
    assert_eq!(code_of(&err), 48);
    assert!(message_of(&err).starts_with(
        "namespace shop.orders already exists, but with different options: { \"uuid\""
    ));
}

#[tokio::test]
async fn before_7_0_create_on_an_existing_namespace_always_fails() {
    // Source: SERVER-60064: create became idempotent on mongod in 7.0.
    let (server, client) = start_with(TestServerOptions {
        version: ServerVersion::V6_0,
        ..Default::default()
    })
    .await;
    let db = client.database("shop");
    run(&db, doc! {"create": "orders"}).await;
    let err = run_err(&db, doc! {"create": "orders"}).await;
    assert_eq!(code_of(&err), 48);
    assert_eq!(message_of(&err), "Collection shop.orders already exists.");
    server.set_version(ServerVersion::V7_0);
    run(&db, doc! {"create": "orders"}).await;
}

#[tokio::test]
async fn create_rejects_unknown_options_and_bad_enumerations() {
    let (_server, client) = start().await;
    let db = client.database("shop");
    let err = run_err(&db, doc! {"create": "c", "validatorr": {}}).await;
    assert_eq!(code_of(&err), 40415);
    let err = run_err(&db, doc! {"create": "c", "validationLevel": "strictest"}).await;
    assert_eq!(code_of(&err), 2);
    assert!(message_of(&err).contains("validationLevel"));
    let err = run_err(&db, doc! {"create": "c", "validator": "x"}).await;
    assert_eq!(code_of(&err), 14);
    let err = run_err(&db, doc! {"create": "c", "validator": {"$where": "true"}}).await;
    assert_eq!(code_of(&err), 224);
    let err = run_err(
        &client.database("admin"),
        doc! {"create": "c", "validator": {"a": 1}},
    )
    .await;
    assert_eq!(code_of(&err), 72);
}

#[tokio::test]
async fn error_and_log_is_accepted_from_8_1_only() {
    // Source: SERVER-FACTS: validationAction errorAndLog exists from 8.1.
    let (server, client) = start_with(TestServerOptions {
        version: ServerVersion::V8_0,
        ..Default::default()
    })
    .await;
    let db = client.database("shop");
    let err = run_err(&db, doc! {"create": "c", "validationAction": "errorAndLog"}).await;
    assert_eq!(code_of(&err), 2);
    server.set_version(ServerVersion::V8_1);
    run(&db, doc! {"create": "c", "validationAction": "errorAndLog"}).await;
    assert_eq!(
        options_of(&server.collection_entry("shop", "c").unwrap()),
        doc! {"validationAction": "errorAndLog"}
    );
}

#[tokio::test]
async fn time_series_fill_granularity_and_span_and_refuse_validators() {
    // Source: SERVER-FACTS / manual "Time Series Granularity": seconds -> 3600, minutes -> 86400,
    // hours -> 2592000; collection expireAfterSeconds listed as Int64; validators refused (72).
    let (server, client) = start().await;
    let db = client.database("iot");
    run(&db, doc! {"create": "readings", "timeseries": {"timeField": "timestamp", "metaField": "sensor_id", "granularity": "minutes"}, "expireAfterSeconds": 7_776_000}).await;
    let entry = server.collection_entry("iot", "readings").unwrap();
    assert_eq!(entry.get_str("type").unwrap(), "timeseries");
    let options = options_of(&entry);
    assert_eq!(
        options.get_document("timeseries").unwrap(),
        &doc! {"timeField": "timestamp", "metaField": "sensor_id", "granularity": "minutes", "bucketMaxSpanSeconds": 86_400}
    );
    assert_eq!(
        options.get("expireAfterSeconds"),
        Some(&Bson::Int64(7_776_000))
    );
    assert!(!entry.contains_key("idIndex"));

    run(
        &db,
        doc! {"create": "plain", "timeseries": {"timeField": "t"}},
    )
    .await;
    let ts = options_of(&server.collection_entry("iot", "plain").unwrap());
    assert_eq!(
        ts.get_document("timeseries").unwrap(),
        &doc! {"timeField": "t", "granularity": "seconds", "bucketMaxSpanSeconds": 3_600}
    );

    let err = run_err(
        &db,
        doc! {"create": "bad", "timeseries": {"timeField": "t"}, "validator": {"a": 1}},
    )
    .await;
    assert_eq!(code_of(&err), 72);
    assert_eq!(
        message_of(&err),
        "iot.bad: 'timeseries' is not allowed with 'validator'"
    );
    let err = run_err(
        &db,
        doc! {"create": "bad", "timeseries": {"metaField": "m"}},
    )
    .await;
    assert_eq!(code_of(&err), 40414);
    let err = run_err(&db, doc! {"create": "bad", "timeseries": {"timeField": "t", "granularity": "hours", "bucketMaxSpanSeconds": 60}}).await;
    assert_eq!(code_of(&err), 72);
    let err = run_err(&db, doc! {"create": "bad", "expireAfterSeconds": 10}).await;
    assert_eq!(code_of(&err), 72);
}

#[tokio::test]
async fn custom_bucketing_needs_equal_span_and_rounding() {
    let (server, client) = start().await;
    let db = client.database("iot");
    run(&db, doc! {"create": "r", "timeseries": {"timeField": "t", "bucketMaxSpanSeconds": 600, "bucketRoundingSeconds": 600}}).await;
    let ts = options_of(&server.collection_entry("iot", "r").unwrap());
    assert_eq!(
        ts.get_document("timeseries").unwrap(),
        &doc! {"timeField": "t", "bucketRoundingSeconds": 600, "bucketMaxSpanSeconds": 600}
    );
    let err = run_err(
        &db,
        doc! {"create": "s", "timeseries": {"timeField": "t", "bucketMaxSpanSeconds": 600}},
    )
    .await;
    assert_eq!(code_of(&err), 72);
}

#[tokio::test]
async fn time_series_default_index_appears_from_6_3() {
    // Source: manual "Time Series Indexes": from 6.3 the server creates {metaField: 1, timeField: 1}.
    let (server, client) = start_with(TestServerOptions {
        version: ServerVersion::V6_0,
        ..Default::default()
    })
    .await;
    let db = client.database("iot");
    run(
        &db,
        doc! {"create": "old", "timeseries": {"timeField": "ts", "metaField": "m"}},
    )
    .await;
    assert!(server.index_specs("iot", "old").is_empty());
    server.set_version(ServerVersion::V6_3);
    run(
        &db,
        doc! {"create": "new", "timeseries": {"timeField": "ts", "metaField": "m"}},
    )
    .await;
    let specs = listed(&db, doc! {"listIndexes": "new"}).await;
    assert_eq!(
        specs,
        vec![doc! {"v": 2, "key": {"m": 1, "ts": 1}, "name": "m_1_ts_1"}]
    );
}

#[tokio::test]
async fn clustered_capped_collation_and_pre_images_are_stored() {
    let (server, client) = start().await;
    let db = client.database("shop");
    run(&db, doc! {"create": "log", "clusteredIndex": {"key": {"_id": 1}, "unique": true}, "expireAfterSeconds": 60}).await;
    let entry = server.collection_entry("shop", "log").unwrap();
    assert_eq!(
        options_of(&entry).get_document("clusteredIndex").unwrap(),
        &doc! {"v": 2, "key": {"_id": 1}, "name": "_id_", "unique": true}
    );
    assert!(!entry.contains_key("idIndex"));
    let specs = listed(&db, doc! {"listIndexes": "log"}).await;
    assert_eq!(
        specs,
        vec![doc! {"v": 2, "key": {"_id": 1}, "name": "_id_", "unique": true, "clustered": true}]
    );
    let err = run_err(
        &db,
        doc! {"create": "bad", "clusteredIndex": {"key": {"a": 1}, "unique": true}},
    )
    .await;
    assert_eq!(code_of(&err), 5_979_701);

    run(
        &db,
        doc! {"create": "ring", "capped": true, "size": 4096, "max": 10},
    )
    .await;
    assert_eq!(
        options_of(&server.collection_entry("shop", "ring").unwrap()),
        doc! {"capped": true, "size": 4096, "max": 10}
    );
    let err = run_err(&db, doc! {"create": "bad", "capped": true}).await;
    assert_eq!(code_of(&err), 72);

    run(&db, doc! {"create": "names", "collation": {"locale": "fr_CA"}, "changeStreamPreAndPostImages": {"enabled": true}}).await;
    let options = options_of(&server.collection_entry("shop", "names").unwrap());
    let collation = options.get_document("collation").unwrap();
    assert_eq!(collation.get_str("locale").unwrap(), "fr_CA");
    assert!(collation.get_bool("backwards").unwrap());
    assert!(collation.contains_key("version"));
    assert_eq!(
        options
            .get_document("changeStreamPreAndPostImages")
            .unwrap(),
        &doc! {"enabled": true}
    );
    // The _id index carries the collection's collation.
    let id = &server.index_specs("shop", "names")[0];
    assert_eq!(id.get_document("collation").unwrap(), collation);

    run(
        &db,
        doc! {"create": "simple", "collation": {"locale": "simple"}},
    )
    .await;
    assert_eq!(
        options_of(&server.collection_entry("shop", "simple").unwrap()),
        doc! {}
    );
}

#[tokio::test]
async fn capped_sizes_round_up_to_256_before_6_2() {
    // Source: SERVER-FACTS: capped size may be rounded up to a multiple of 256 (before 6.2).
    let (server, client) = start_with(TestServerOptions {
        version: ServerVersion::V6_0,
        ..Default::default()
    })
    .await;
    let db = client.database("shop");
    run(&db, doc! {"create": "old", "capped": true, "size": 1000}).await;
    let options = options_of(&server.collection_entry("shop", "old").unwrap());
    assert_eq!(options.get("size"), Some(&Bson::Int32(1024)));
    server.set_version(ServerVersion::V7_0);
    run(&db, doc! {"create": "new", "capped": true, "size": 1000}).await;
    let options = options_of(&server.collection_entry("shop", "new").unwrap());
    assert_eq!(options.get("size"), Some(&Bson::Int32(1000)));
    let err = run_err(&db, doc! {"create": "bad", "size": 1000}).await;
    assert_eq!(code_of(&err), 72);
}

#[tokio::test]
async fn coll_mod_changes_validator_level_and_action() {
    let (server, client) = start().await;
    let db = client.database("shop");
    run(
        &db,
        doc! {"create": "orders", "validator": {"a": {"$exists": true}}},
    )
    .await;
    run(&db, doc! {"collMod": "orders", "validator": {"b": {"$exists": true}}, "validationLevel": "moderate", "validationAction": "warn"}).await;
    assert_eq!(
        options_of(&server.collection_entry("shop", "orders").unwrap()),
        doc! {"validator": {"b": {"$exists": true}}, "validationLevel": "moderate", "validationAction": "warn"}
    );
    let err = run_err(
        &db,
        doc! {"collMod": "orders", "validationAction": "explode"},
    )
    .await;
    assert_eq!(code_of(&err), 2);
    let err = run_err(&db, doc! {"collMod": "missing", "validationLevel": "off"}).await;
    assert_eq!(code_of(&err), 26);
    let err = run_err(&db, doc! {"collMod": "orders", "colour": "red"}).await;
    assert_eq!(code_of(&err), 40415);
    // A failed collMod changes nothing.
    let err = run_err(
        &db,
        doc! {"collMod": "orders", "validationLevel": "off", "validationAction": "nope"},
    )
    .await;
    assert_eq!(code_of(&err), 2);
    assert_eq!(
        options_of(&server.collection_entry("shop", "orders").unwrap())
            .get_str("validationLevel")
            .unwrap(),
        "moderate"
    );
}

#[tokio::test]
async fn coll_mod_raises_time_series_granularity_only() {
    let (server, client) = start().await;
    let db = client.database("iot");
    run(
        &db,
        doc! {"create": "r", "timeseries": {"timeField": "t", "granularity": "minutes"}},
    )
    .await;
    run(
        &db,
        doc! {"collMod": "r", "timeseries": {"granularity": "hours"}},
    )
    .await;
    let ts = options_of(&server.collection_entry("iot", "r").unwrap());
    assert_eq!(
        ts.get_document("timeseries")
            .unwrap()
            .get_i32("bucketMaxSpanSeconds")
            .unwrap(),
        2_592_000
    );
    let err = run_err(
        &db,
        doc! {"collMod": "r", "timeseries": {"granularity": "seconds"}},
    )
    .await;
    assert_eq!(code_of(&err), 72);
    let err = run_err(&db, doc! {"collMod": "r", "validator": {"a": 1}}).await;
    assert_eq!(code_of(&err), 72);
    run(&db, doc! {"collMod": "r", "expireAfterSeconds": 3600}).await;
    let options = options_of(&server.collection_entry("iot", "r").unwrap());
    assert_eq!(options.get("expireAfterSeconds"), Some(&Bson::Int64(3600)));
}

#[tokio::test]
async fn drop_reports_indexes_and_missing_collections_follow_the_version() {
    // Source: manual `drop`: from 7.0 dropping a missing collection succeeds.
    let (server, client) = start().await;
    let db = client.database("shop");
    run(&db, doc! {"create": "orders"}).await;
    let reply = run(&db, doc! {"drop": "orders"}).await;
    assert_eq!(reply.get_i32("nIndexesWas").unwrap(), 1);
    assert!(server.collection_entry("shop", "orders").is_none());
    run(&db, doc! {"drop": "orders"}).await;
    server.set_version(ServerVersion::V6_0);
    let err = run_err(&db, doc! {"drop": "orders"}).await;
    assert_eq!(code_of(&err), 26);
    // The driver's own drop() ignores NamespaceNotFound.
    db.collection::<bson::Document>("orders")
        .drop()
        .await
        .unwrap();
}
