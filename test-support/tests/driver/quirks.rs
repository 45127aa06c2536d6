//! Version and stored-form quirks: Double TTLs, legacy numbers, in-progress builds, unknown
//! options, system.buckets listings, and raw seeding.

use bson::{Bson, Document, doc};
use mongo_schema_test_support::{Quirks, TestServerOptions};

use super::{listed, run, start, start_with};

fn quirks(quirks: Quirks) -> TestServerOptions {
    TestServerOptions {
        quirks,
        ..Default::default()
    }
}

#[tokio::test]
async fn ttl_as_double_stores_the_legacy_shell_type() {
    // Source: SERVER-FACTS: the legacy shell writes Doubles and the server lists them as written.
    let (server, client) = start_with(quirks(Quirks {
        ttl_as_double: true,
        ..Default::default()
    }))
    .await;
    let db = client.database("shop");
    run(&db, doc! {"createIndexes": "s", "indexes": [{"key": {"at": 1}, "name": "at_1", "expireAfterSeconds": 3600}]}).await;
    let spec = &listed(&db, doc! {"listIndexes": "s"}).await[1];
    assert_eq!(spec.get("expireAfterSeconds"), Some(&Bson::Double(3600.0)));
    assert_eq!(
        server.index_specs("shop", "s")[1]
            .get_document("key")
            .unwrap(),
        &doc! {"at": 1}
    );
}

#[tokio::test]
async fn legacy_numeric_types_store_key_numbers_as_doubles() {
    let (_server, client) = start_with(quirks(Quirks {
        legacy_numeric_types: true,
        ..Default::default()
    }))
    .await;
    let db = client.database("shop");
    run(&db, doc! {"createIndexes": "s", "indexes": [{"key": {"a": 1, "b": -1}, "name": "a_1_b_-1"}, {"key": {"t": "text"}, "name": "t_text"}]}).await;
    let specs = listed(&db, doc! {"listIndexes": "s"}).await;
    assert_eq!(
        specs[1].get_document("key").unwrap(),
        &doc! {"a": 1.0, "b": -1.0}
    );
    assert_eq!(specs[2].get_document("weights").unwrap(), &doc! {"t": 1.0});
}

#[tokio::test]
async fn in_progress_builds_are_wrapped_with_index_build_info() {
    // Source: the server's list_indexes_include_index_build_info jstest.
    let (server, client) = start_with(quirks(Quirks {
        index_builds_in_progress: true,
        ..Default::default()
    }))
    .await;
    let db = client.database("shop");
    run(&db, doc! {"create": "c"}).await;
    run(
        &db,
        doc! {"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}]},
    )
    .await;
    let plain = listed(&db, doc! {"listIndexes": "c"}).await;
    assert_eq!(plain[1], doc! {"v": 2, "key": {"a": 1}, "name": "a_1"});
    let wrapped = listed(
        &db,
        doc! {"listIndexes": "c", "includeIndexBuildInfo": true},
    )
    .await;
    assert_eq!(
        wrapped[0],
        doc! {"spec": {"v": 2, "key": {"_id": 1}, "name": "_id_"}}
    );
    assert_eq!(wrapped[1].get_document("spec").unwrap(), &plain[1]);
    let info = wrapped[1].get_document("indexBuildInfo").unwrap();
    assert!(matches!(info.get("buildUUID"), Some(Bson::Binary(_))));

    server.seed_index_build(
        "shop",
        "c",
        doc! {"v": 2, "key": {"b": 1}, "name": "b_1"},
        doc! {"buildUUID": "x"},
    );
    let older = listed(&db, doc! {"listIndexes": "c", "includeBuildUUIDs": true}).await;
    assert_eq!(
        older[2],
        doc! {"spec": {"v": 2, "key": {"b": 1}, "name": "b_1"}, "buildUUID": "x"}
    );
}

#[tokio::test]
async fn unknown_collection_options_are_listed() {
    let (server, client) = start_with(quirks(Quirks {
        unknown_collection_options: doc! {"recordIdsReplicated": true},
        ..Default::default()
    }))
    .await;
    let db = client.database("shop");
    run(&db, doc! {"create": "c", "validationLevel": "strict"}).await;
    let entry = server.collection_entry("shop", "c").unwrap();
    assert_eq!(
        entry.get_document("options").unwrap(),
        &doc! {"validationLevel": "strict", "recordIdsReplicated": true}
    );
    // Creating again with the same requested options is still a no-op.
    run(&db, doc! {"create": "c", "validationLevel": "strict"}).await;
}

#[tokio::test]
async fn buckets_collections_are_listed_beside_time_series_when_asked() {
    let (server, client) = start_with(quirks(Quirks {
        list_buckets_collections: true,
        ..Default::default()
    }))
    .await;
    let db = client.database("iot");
    run(&db, doc! {"create": "r", "timeseries": {"timeField": "t"}}).await;
    let names = db.list_collection_names().await.unwrap();
    assert_eq!(names, ["system.buckets.r", "r"]);
    run(&db, doc! {"drop": "r"}).await;
    assert!(server.collection_names("iot").is_empty());
}

#[tokio::test]
async fn raw_seeded_entries_are_listed_verbatim() {
    let (server, client) = start().await;
    let entry = doc! {"name": "old", "type": "collection", "options": {"validator": {"a": {"$gte": 1.0}}, "flags": 1}, "info": {"readOnly": false}};
    server.seed_collection("legacy", entry.clone());
    let spec = doc! {"v": 1, "key": {"at": 1.0}, "name": "at_1", "ns": "legacy.old", "expireAfterSeconds": 3600.0, "unique": 1};
    server.seed_index("legacy", "old", spec.clone());
    let db = client.database("legacy");
    assert_eq!(listed(&db, doc! {"listCollections": 1}).await, vec![entry]);
    let specs: Vec<Document> = listed(&db, doc! {"listIndexes": "old"}).await;
    assert_eq!(specs, vec![spec]);
}

#[tokio::test]
async fn a_snapshot_shaped_catalog_seeds_and_reads_back() {
    let (server, client) = start().await;
    let catalog = doc! {
        "collections": [
            {"name": "orders", "type": "collection", "options": {"validationLevel": "moderate"}, "info": {"readOnly": false}},
            {"name": "recent", "type": "view", "options": {"viewOn": "orders", "pipeline": []}, "info": {"readOnly": true}},
        ],
        "indexes": {
            "orders": [
                {"v": 2, "key": {"_id": 1}, "name": "_id_"},
                {"spec": {"v": 2, "key": {"s": 1}, "name": "s_1"}, "indexBuildInfo": {"buildUUID": "u"}},
            ],
        },
    };
    server.seed_catalog("shop", &catalog);
    let db = client.database("shop");
    let wrapped = listed(
        &db,
        doc! {"listIndexes": "orders", "includeIndexBuildInfo": true},
    )
    .await;
    assert_eq!(
        wrapped[1],
        doc! {"spec": {"v": 2, "key": {"s": 1}, "name": "s_1"}, "indexBuildInfo": {"buildUUID": "u"}}
    );
    let back = server.catalog("shop");
    assert_eq!(
        back.get_array("collections").unwrap(),
        catalog.get_array("collections").unwrap()
    );
    let orders = back
        .get_document("indexes")
        .unwrap()
        .get_array("orders")
        .unwrap();
    assert_eq!(orders.len(), 2);
    assert!(!back.get_document("indexes").unwrap().contains_key("recent"));
}

#[tokio::test]
async fn a_mongos_with_canned_list_shards_and_seeded_shard_keys() {
    let (server, client) = start_with(quirks(Quirks {
        mongos: true,
        ..Default::default()
    }))
    .await;
    server.seed_reply(
        "listShards",
        doc! {"shards": [{"_id": "shard01", "host": "rs1/h:27018"}]},
    );
    server.execute("config", doc! {"create": "collections"});
    server.seed_documents(
        "config",
        "collections",
        [doc! {"_id": "shop.events", "key": {"user_id": "hashed"}, "unique": false}],
    );
    let hello = run(&client.database("admin"), doc! {"hello": 1}).await;
    assert_eq!(hello.get_str("msg").unwrap(), "isdbgrid");
    let shards = run(&client.database("admin"), doc! {"listShards": 1}).await;
    assert_eq!(shards.get_array("shards").unwrap().len(), 1);
    assert_eq!(shards.get_f64("ok").unwrap(), 1.0);
    let found = client
        .database("config")
        .collection::<Document>("collections")
        .find_one(doc! {"_id": "shop.events"})
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        found.get_document("key").unwrap(),
        &doc! {"user_id": "hashed"}
    );
}

#[tokio::test]
async fn collections_can_be_listed_in_reverse_order() {
    let (server, client) = start_with(quirks(Quirks {
        reverse_collection_order: true,
        ..Default::default()
    }))
    .await;
    for name in ["a", "b", "c"] {
        server.execute("shop", doc! {"create": name});
    }
    let names = client
        .database("shop")
        .list_collection_names()
        .await
        .unwrap();
    assert_eq!(names, ["c", "b", "a"]);
}
