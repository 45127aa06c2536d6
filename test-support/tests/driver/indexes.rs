//! createIndexes, dropIndexes, collMod index changes: listed forms, default names and conflicts.

use bson::{Document, doc};
use mongodb::IndexModel;
use mongodb::options::IndexOptions;

use super::{code_of, listed, message_of, run, run_err, start};

async fn specs(db: &mongodb::Database, collection: &str) -> Vec<Document> {
    listed(db, doc! {"listIndexes": collection}).await
}

fn named<'a>(specs: &'a [Document], name: &str) -> &'a Document {
    specs
        .iter()
        .find(|s| s.get_str("name").unwrap() == name)
        .unwrap()
}

#[tokio::test]
async fn create_indexes_reply_and_implicit_collection() {
    let (server, client) = start().await;
    let db = client.database("shop");
    let reply = run(&db, doc! {"createIndexes": "orders", "indexes": [{"key": {"user_id": 1, "status": 1, "created_at": -1}, "name": "user_id_1_status_1_created_at_-1"}]}).await;
    assert_eq!(reply.get_i32("numIndexesBefore").unwrap(), 1);
    assert_eq!(reply.get_i32("numIndexesAfter").unwrap(), 2);
    assert!(reply.get_bool("createdCollectionAutomatically").unwrap());
    assert!(server.collection_entry("shop", "orders").is_some());
}

#[tokio::test]
async fn the_driver_names_indexes_by_default_as_the_server_does() {
    // Source: manual "Index Names": field and value joined with `_`.
    let (server, client) = start().await;
    let db = client.database("shop");
    let coll = db.collection::<Document>("places");
    for keys in [
        doc! {"user_id": 1, "status": 1, "created_at": -1},
        doc! {"a": "hashed"},
        doc! {"loc": "2dsphere"},
    ] {
        coll.create_index(IndexModel::builder().keys(keys).build())
            .await
            .unwrap();
    }
    // And the server names an index sent without one.
    run(
        &db,
        doc! {"createIndexes": "places", "indexes": [{"key": {"title": "text", "body": "text"}}]},
    )
    .await;
    let names: Vec<String> = server
        .index_specs("shop", "places")
        .iter()
        .map(|s| s.get_str("name").unwrap().to_owned())
        .collect();
    assert_eq!(
        names,
        [
            "_id_",
            "user_id_1_status_1_created_at_-1",
            "a_hashed",
            "loc_2dsphere",
            "title_text_body_text"
        ]
    );
    let loc = named(&server.index_specs("shop", "places"), "loc_2dsphere").clone();
    assert_eq!(loc.get_i32("2dsphereIndexVersion").unwrap(), 3);
}

#[tokio::test]
async fn text_indexes_are_listed_in_fts_form() {
    // Source: SERVER-FACTS "Text indexes are listed as key: {_fts: 'text', _ftsx: 1}" with weights,
    // default_language english, language_override language; 2.7 is truncated to 2.
    let (_server, client) = start().await;
    let db = client.database("shop");
    run(
        &db,
        doc! {"createIndexes": "articles", "indexes": [{
            "key": {"tenant": 1, "title": "text", "content": "text"},
            "name": "search",
            "weights": {"title": 10, "content": 2.7},
        }]},
    )
    .await;
    let spec = named(&specs(&db, "articles").await, "search").clone();
    assert_eq!(
        spec,
        doc! {
            "v": 2,
            "key": {"tenant": 1, "_fts": "text", "_ftsx": 1},
            "name": "search",
            "weights": {"content": 2, "title": 10},
            "default_language": "english",
            "language_override": "language",
            "textIndexVersion": 3,
        }
    );
    // A second text index on other fields is the same identity under another name (85).
    let err = run_err(&db, doc! {"createIndexes": "articles", "indexes": [{"key": {"tenant": 1, "body": "text"}, "name": "other"}]}).await;
    assert_eq!(code_of(&err), 85);
    assert!(message_of(&err).contains("different name and options"));
}

#[tokio::test]
async fn identical_index_is_a_no_op_with_a_note() {
    let (server, client) = start().await;
    let db = client.database("shop");
    let index = doc! {"key": {"email": 1}, "name": "email_1", "unique": true};
    run(
        &db,
        doc! {"createIndexes": "users", "indexes": [index.clone()]},
    )
    .await;
    let reply = run(&db, doc! {"createIndexes": "users", "indexes": [index]}).await;
    assert_eq!(reply.get_str("note").unwrap(), "all indexes already exist");
    assert_eq!(reply.get_i32("numIndexesAfter").unwrap(), 2);
    // 1 and 1.0 are the same key.
    run(&db, doc! {"createIndexes": "users", "indexes": [{"key": {"email": 1.0}, "name": "email_1", "unique": true}]}).await;
    assert_eq!(server.index_specs("shop", "users").len(), 2);
}

#[tokio::test]
async fn same_keys_with_other_options_conflict_with_85() {
    // Source: SERVER-FACTS: same keys with a different TTL fail with IndexOptionsConflict (85).
    let (_server, client) = start().await;
    let db = client.database("shop");
    let coll = db.collection::<Document>("sessions");
    let ttl = |seconds: u64| {
        IndexModel::builder()
            .keys(doc! {"created_at": 1})
            .options(
                IndexOptions::builder()
                    .expire_after(std::time::Duration::from_secs(seconds))
                    .build(),
            )
            .build()
    };
    coll.create_index(ttl(3600)).await.unwrap();
    let err = coll.create_index(ttl(60)).await.unwrap_err();
    assert_eq!(code_of(&err), 85);
    assert!(message_of(&err).contains("same name but different options"));
    // Same keys and options under another name.
    let err = run_err(&db, doc! {"createIndexes": "sessions", "indexes": [{"key": {"created_at": 1}, "name": "other", "expireAfterSeconds": 3600}]}).await;
    assert_eq!(code_of(&err), 85);
    assert_eq!(
        message_of(&err),
        "Index already exists with a different name: created_at_1"
    );
    // Same keys but another identity (a partial filter) is a second index.
    run(&db, doc! {"createIndexes": "sessions", "indexes": [{"key": {"created_at": 1}, "name": "partial", "partialFilterExpression": {"x": {"$exists": true}}}]}).await;
}

#[tokio::test]
async fn same_name_with_other_keys_conflicts_with_86() {
    let (_server, client) = start().await;
    let db = client.database("shop");
    run(
        &db,
        doc! {"createIndexes": "users", "indexes": [{"key": {"a": 1}, "name": "idx"}]},
    )
    .await;
    let err = run_err(
        &db,
        doc! {"createIndexes": "users", "indexes": [{"key": {"a": -1}, "name": "idx"}]},
    )
    .await;
    assert_eq!(code_of(&err), 86);
    // Same keys under the same name but another identity option (unique) is also 86.
    let err = run_err(&db, doc! {"createIndexes": "users", "indexes": [{"key": {"a": 1}, "name": "idx", "unique": true}]}).await;
    assert_eq!(code_of(&err), 86);
    // Only a non-identity option (hidden) differing is 85.
    let err = run_err(&db, doc! {"createIndexes": "users", "indexes": [{"key": {"a": 1}, "name": "idx", "hidden": true}]}).await;
    assert_eq!(code_of(&err), 85);
}

#[tokio::test]
async fn invalid_specs_are_refused() {
    let (_server, client) = start().await;
    let db = client.database("shop");
    let err = run_err(
        &db,
        doc! {"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a", "colour": 1}]},
    )
    .await;
    assert_eq!(code_of(&err), 197);
    let err = run_err(
        &db,
        doc! {"createIndexes": "c", "indexes": [{"key": {"a": "hashd"}, "name": "a"}]},
    )
    .await;
    assert_eq!(code_of(&err), 67);
    let err = run_err(&db, doc! {"createIndexes": "c", "indexes": [{"key": {"a": 1, "b": 1}, "name": "ab", "expireAfterSeconds": 5}]}).await;
    assert_eq!(code_of(&err), 67);
    let err = run_err(&db, doc! {"createIndexes": "c", "indexes": []}).await;
    assert_eq!(code_of(&err), 2);
}

#[tokio::test]
async fn indexes_inherit_the_collection_collation() {
    // Source: manual "Collation": an index created without a collation takes the collection's.
    let (server, client) = start().await;
    let db = client.database("shop");
    run(
        &db,
        doc! {"create": "names", "collation": {"locale": "fr", "strength": 2}},
    )
    .await;
    run(&db, doc! {"createIndexes": "names", "indexes": [{"key": {"n": 1}, "name": "n_1"}, {"key": {"m": 1}, "name": "m_1", "collation": {"locale": "simple"}}]}).await;
    let specs = server.index_specs("shop", "names");
    assert_eq!(
        named(&specs, "n_1")
            .get_document("collation")
            .unwrap()
            .get_i32("strength")
            .unwrap(),
        2
    );
    assert!(!named(&specs, "m_1").contains_key("collation"));
}

#[tokio::test]
async fn drop_indexes_by_name_key_list_and_star() {
    let (server, client) = start().await;
    let db = client.database("shop");
    let indexes: Vec<Document> = ["a", "b", "c", "d"]
        .iter()
        .map(|f| doc! {"key": {*f: 1}, "name": format!("{f}_1")})
        .collect();
    run(&db, doc! {"createIndexes": "c", "indexes": indexes}).await;
    let reply = run(&db, doc! {"dropIndexes": "c", "index": "a_1"}).await;
    assert_eq!(reply.get_i32("nIndexesWas").unwrap(), 5);
    run(&db, doc! {"dropIndexes": "c", "index": {"b": 1}}).await;
    db.collection::<Document>("c")
        .drop_index("c_1")
        .await
        .unwrap();
    let names: Vec<String> = server
        .index_specs("shop", "c")
        .iter()
        .map(|s| s.get_str("name").unwrap().to_owned())
        .collect();
    assert_eq!(names, ["_id_", "d_1"]);
    assert_eq!(
        code_of(&run_err(&db, doc! {"dropIndexes": "c", "index": "zzz"}).await),
        27
    );
    assert_eq!(
        code_of(&run_err(&db, doc! {"dropIndexes": "c", "index": "_id_"}).await),
        72
    );
    assert_eq!(
        code_of(&run_err(&db, doc! {"dropIndexes": "nope", "index": "x"}).await),
        26
    );
    run(&db, doc! {"dropIndexes": "c", "index": "*"}).await;
    assert_eq!(server.index_specs("shop", "c").len(), 1);
}

#[tokio::test]
async fn coll_mod_changes_ttl_and_hidden_by_name_or_key_pattern() {
    let (server, client) = start().await;
    let db = client.database("shop");
    run(&db, doc! {"createIndexes": "s", "indexes": [{"key": {"at": 1}, "name": "at_1", "expireAfterSeconds": 60}, {"key": {"u": 1}, "name": "u_1"}]}).await;
    let reply = run(
        &db,
        doc! {"collMod": "s", "index": {"name": "at_1", "expireAfterSeconds": 120}},
    )
    .await;
    assert_eq!(reply.get_i32("expireAfterSeconds_old").unwrap(), 60);
    assert_eq!(reply.get_i32("expireAfterSeconds_new").unwrap(), 120);
    let reply = run(
        &db,
        doc! {"collMod": "s", "index": {"keyPattern": {"u": 1}, "hidden": true}},
    )
    .await;
    assert!(!reply.get_bool("hidden_old").unwrap());
    assert!(reply.get_bool("hidden_new").unwrap());
    let specs = server.index_specs("shop", "s");
    assert_eq!(
        named(&specs, "at_1").get_i32("expireAfterSeconds").unwrap(),
        120
    );
    assert!(named(&specs, "u_1").get_bool("hidden").unwrap());
    let err = run_err(
        &db,
        doc! {"collMod": "s", "index": {"name": "nope", "hidden": true}},
    )
    .await;
    assert_eq!(code_of(&err), 27);
    let err = run_err(
        &db,
        doc! {"collMod": "s", "index": {"name": "_id_", "hidden": true}},
    )
    .await;
    assert_eq!(code_of(&err), 2);
}

#[tokio::test]
async fn coll_mod_makes_an_index_unique_after_prepare_unique() {
    // Source: manual collMod "Convert an existing index to a unique index" (6.0+).
    let (server, client) = start().await;
    let db = client.database("shop");
    run(
        &db,
        doc! {"createIndexes": "users", "indexes": [{"key": {"email": 1}, "name": "email_1"}]},
    )
    .await;
    let err = run_err(
        &db,
        doc! {"collMod": "users", "index": {"name": "email_1", "unique": true}},
    )
    .await;
    assert_eq!(code_of(&err), 72);
    run(
        &db,
        doc! {"collMod": "users", "index": {"name": "email_1", "prepareUnique": true}},
    )
    .await;
    assert!(
        named(&server.index_specs("shop", "users"), "email_1")
            .get_bool("prepareUnique")
            .unwrap()
    );
    server.seed_documents(
        "shop",
        "users",
        [doc! {"_id": 1, "email": "a"}, doc! {"_id": 2, "email": "a"}],
    );
    let err = run_err(
        &db,
        doc! {"collMod": "users", "index": {"name": "email_1", "unique": true}},
    )
    .await;
    assert_eq!(code_of(&err), 359);
    run(&db, doc! {"createIndexes": "clean", "indexes": [{"key": {"email": 1}, "name": "email_1", "prepareUnique": true}]}).await;
    server.seed_documents(
        "shop",
        "clean",
        [doc! {"_id": 1, "email": "a"}, doc! {"_id": 2, "email": "b"}],
    );
    let reply = run(
        &db,
        doc! {"collMod": "clean", "index": {"name": "email_1", "unique": true}},
    )
    .await;
    assert!(reply.get_bool("unique_new").unwrap());
    let spec = named(&server.index_specs("shop", "clean"), "email_1").clone();
    assert!(spec.get_bool("unique").unwrap());
    assert!(!spec.contains_key("prepareUnique"));
}
