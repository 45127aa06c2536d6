//! insert, find, count, aggregate ($match, $count, $group, $jsonSchema through the evaluator
//! hook, $nor) and explain.

use std::sync::Arc;

use bson::{Bson, Document, doc};
use mongo_schema_test_support::{FnEvaluator, SchemaEvaluator, TestServerOptions};

use super::{code_of, drain, listed, run, run_err, start, start_with};

/// A tiny `$jsonSchema` evaluator for these tests: only `required` at the top level.
struct RequiredOnly;

impl SchemaEvaluator for RequiredOnly {
    fn check(&self, schema: &Document) -> Result<(), String> {
        match schema
            .keys()
            .find(|k| !["required", "bsonType"].contains(&k.as_str()))
        {
            Some(k) => Err(format!("Unknown $jsonSchema keyword: {k}")),
            None => Ok(()),
        }
    }

    fn evaluate(&self, schema: &Document, document: &Document) -> Result<(), Document> {
        let required = schema.get_array("required").cloned().unwrap_or_default();
        let missing: Vec<Bson> = required
            .into_iter()
            .filter(|f| !document.contains_key(f.as_str().unwrap()))
            .collect();
        if missing.is_empty() {
            Ok(())
        } else {
            Err(
                doc! {"operatorName": "$jsonSchema", "schemaRulesNotSatisfied": [{"operatorName": "required", "missingProperties": missing}]},
            )
        }
    }
}

fn with_required_only() -> TestServerOptions {
    TestServerOptions {
        schema_evaluator: Some(Arc::new(RequiredOnly)),
        ..Default::default()
    }
}

#[tokio::test]
async fn insert_many_loads_documents_and_adds_ids() {
    let (server, client) = start().await;
    let coll = client.database("shop").collection::<Document>("orders");
    let result = coll
        .insert_many([doc! {"n": 1}, doc! {"n": 2}])
        .await
        .unwrap();
    assert_eq!(result.inserted_ids.len(), 2);
    let stored = server.documents("shop", "orders");
    assert_eq!(stored.len(), 2);
    assert!(matches!(stored[0].get("_id"), Some(Bson::ObjectId(_))));
    let err = coll.insert_one(stored[0].clone()).await.unwrap_err();
    assert_eq!(code_of(&err), 11000);
}

#[tokio::test]
async fn validator_rejections_carry_err_info_from_the_evaluator() {
    // Source: manual "Schema Validation": DocumentValidationFailure (121) with errInfo.details.
    let (server, client) = start_with(with_required_only()).await;
    let db = client.database("shop");
    run(
        &db,
        doc! {"create": "orders", "validator": {"$jsonSchema": {"required": ["status"]}}},
    )
    .await;
    let coll = db.collection::<Document>("orders");
    coll.insert_one(doc! {"_id": 1, "status": "PAID"})
        .await
        .unwrap();
    let err = coll.insert_one(doc! {"_id": 2}).await.unwrap_err();
    assert_eq!(code_of(&err), 121);
    let mongodb::error::ErrorKind::Write(mongodb::error::WriteFailure::WriteError(write)) =
        &*err.kind
    else {
        panic!("{err:?}")
    };
    let info = write.details.as_ref().unwrap();
    assert_eq!(info.get_i32("failingDocumentId").unwrap(), 2);
    assert_eq!(
        info.get_document("details")
            .unwrap()
            .get_str("operatorName")
            .unwrap(),
        "$jsonSchema"
    );
    assert_eq!(server.documents("shop", "orders").len(), 1);
    // The evaluator's parse check applies at create.
    let err = run_err(
        &db,
        doc! {"create": "bad", "validator": {"$jsonSchema": {"$ref": "#"}}},
    )
    .await;
    assert_eq!(code_of(&err), 9);
    // Warn lets the document in; bypassDocumentValidation too.
    run(&db, doc! {"collMod": "orders", "validationAction": "warn"}).await;
    coll.insert_one(doc! {"_id": 3}).await.unwrap();
    assert_eq!(server.documents("shop", "orders").len(), 2);
}

#[tokio::test]
async fn audit_counts_with_nor_json_schema_server_side() {
    let (server, client) = start_with(with_required_only()).await;
    server.execute("shop", doc! {"create": "orders"});
    server.seed_documents(
        "shop",
        "orders",
        [
            doc! {"_id": 1, "status": "PAID", "v": 1},
            doc! {"_id": 2, "v": 1},
            doc! {"_id": 3, "v": 2},
        ],
    );
    let db = client.database("shop");
    let coll = db.collection::<Document>("orders");
    let rejected = doc! {"$nor": [{"$jsonSchema": {"required": ["status"]}}]};
    assert_eq!(coll.count_documents(rejected.clone()).await.unwrap(), 2);
    let counted = listed(&db, doc! {"aggregate": "orders", "pipeline": [{"$match": rejected.clone()}, {"$count": "n"}], "cursor": {}}).await;
    assert_eq!(counted, vec![doc! {"n": 2}]);
    let by_version = listed(&db, doc! {"aggregate": "orders", "pipeline": [{"$match": rejected}, {"$group": {"_id": "$v", "n": {"$sum": 1}}}, {"$sort": {"_id": 1}}], "cursor": {}}).await;
    assert_eq!(
        by_version,
        vec![doc! {"_id": 1, "n": 1}, doc! {"_id": 2, "n": 1}]
    );
    let sample = listed(
        &db,
        doc! {"aggregate": "orders", "pipeline": [{"$sample": {"size": 1}}], "cursor": {}},
    )
    .await;
    assert_eq!(sample.len(), 1);
    assert_eq!(coll.estimated_document_count().await.unwrap(), 3);
    let reply = run(&db, doc! {"count": "orders", "query": {"v": 1}}).await;
    assert_eq!(reply.get_i32("n").unwrap(), 2);
    assert!(
        server.write_commands().is_empty(),
        "{:?}",
        server.command_names()
    );
}

#[tokio::test]
async fn json_schema_without_an_evaluator_fails_loudly() {
    let (server, client) = start().await;
    server.execute("shop", doc! {"create": "orders"});
    let coll = client.database("shop").collection::<Document>("orders");
    let err = coll
        .count_documents(doc! {"$jsonSchema": {}})
        .await
        .unwrap_err();
    assert_eq!(code_of(&err), 2);
    // A closure evaluator plugged in later is used.
    server.set_schema_evaluator(Arc::new(FnEvaluator(|_: &Document, d: &Document| {
        d.contains_key("x")
    })));
    server.seed_documents("shop", "orders", [doc! {"x": 1}, doc! {"y": 1}]);
    assert_eq!(
        coll.count_documents(doc! {"$jsonSchema": {}})
            .await
            .unwrap(),
        1
    );
}

#[tokio::test]
async fn find_filters_sorts_limits_and_projects() {
    let (server, client) = start().await;
    server.execute("shop", doc! {"create": "items"});
    server.seed_documents(
        "shop",
        "items",
        (0..10).map(|i| doc! {"_id": i, "n": i % 3, "tag": ["a", "b"]}),
    );
    let coll = client.database("shop").collection::<Document>("items");
    let cursor = coll
        .find(doc! {"n": {"$gte": 1}, "tag": "b"})
        .sort(doc! {"n": -1, "_id": 1})
        .skip(1)
        .limit(3)
        .projection(doc! {"n": 1})
        .await
        .unwrap();
    let docs = drain(cursor).await;
    assert_eq!(
        docs,
        vec![
            doc! {"_id": 5, "n": 2},
            doc! {"_id": 8, "n": 2},
            doc! {"_id": 1, "n": 1}
        ]
    );
    let cursor = coll.find(doc! {}).batch_size(4).await.unwrap();
    assert_eq!(drain(cursor).await.len(), 10);
    assert_eq!(server.commands_named("getMore").len(), 2);
}

#[tokio::test]
async fn unknown_stages_and_operators_are_refused() {
    let (server, client) = start().await;
    server.execute("shop", doc! {"create": "c"});
    let db = client.database("shop");
    let err = run_err(
        &db,
        doc! {"aggregate": "c", "pipeline": [{"$frob": {}}], "cursor": {}},
    )
    .await;
    assert_eq!(code_of(&err), 40324);
    let err = run_err(&db, doc! {"find": "c", "filter": {"a": {"$frob": 1}}}).await;
    assert_eq!(code_of(&err), 2);
    let err = run_err(&db, doc! {"aggregate": "c", "pipeline": []}).await;
    assert_eq!(code_of(&err), 9);
}

#[tokio::test]
async fn explain_returns_canned_replies_or_a_collscan() {
    let (server, client) = start().await;
    server.execute("shop", doc! {"create": "orders"});
    server.seed_documents(
        "shop",
        "orders",
        [doc! {"status": "PAID"}, doc! {"status": "NEW"}],
    );
    let canned = doc! {"queryPlanner": {"winningPlan": {"stage": "FETCH", "inputStage": {"stage": "IXSCAN", "indexName": "status_1"}}}};
    server.seed_explain(
        doc! {"find": "orders", "filter": {"status": "PAID"}},
        canned.clone(),
    );
    let db = client.database("shop");
    let reply = run(&db, doc! {"explain": {"find": "orders", "filter": {"status": "PAID"}}, "verbosity": "executionStats"}).await;
    assert_eq!(
        reply.get_document("queryPlanner").unwrap(),
        canned.get_document("queryPlanner").unwrap()
    );
    let reply = run(&db, doc! {"explain": {"find": "orders", "filter": {"status": "NEW"}}, "verbosity": "executionStats"}).await;
    let stats = reply.get_document("executionStats").unwrap();
    assert_eq!(stats.get_i32("nReturned").unwrap(), 1);
    assert_eq!(stats.get_i32("totalDocsExamined").unwrap(), 2);
    let plan = reply
        .get_document("queryPlanner")
        .unwrap()
        .get_document("winningPlan")
        .unwrap();
    assert_eq!(plan.get_str("stage").unwrap(), "COLLSCAN");
    let reply = run(
        &db,
        doc! {"explain": {"count": "orders", "query": {}}, "verbosity": "queryPlanner"},
    )
    .await;
    assert!(!reply.contains_key("executionStats"));
}
