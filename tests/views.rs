//! Views as declarations (issue 15 item 1): the derive's view, its manifest entry and mongosh
//! step, and check / plan / apply of views through catalog files and through the driver against
//! the wire-protocol test server (create with `viewOn`/`pipeline`, listCollections type `view`,
//! collMod `viewOn` + `pipeline`; the manual's "Modify a View",
//! <https://www.mongodb.com/docs/manual/core/views/update-view/>).

use bson::{Bson, doc};
use mongo_schema::MongoSchema;
use mongo_schema::spec::{Collection, CollectionSpec};
use mongo_schema_cli::{Console, Outcome};
use mongo_schema_test_support::{BlockingTestServer, TestServerOptions};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(collection = "users_v15")]
struct User {
    #[serde(rename = "_id")]
    id: bson::oid::ObjectId,
    name: String,
    active: bool,
    #[serde(rename = "tenantId")]
    tenant_id: String,
}

/// The documents the view produces: a name per active user.
#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(
    view = "active_users_v15",
    view_on = User,
    pipeline = r#"[{"$match": {"active": true}}, {"$project": {"_id": 0, "name": 1}}, {"$limit": {"$numberLong": "100"}}]"#,
)]
struct ActiveUser {
    name: String,
}

/// A view over a view.
#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(view = "first_active_v15", view_on = ActiveUser, pipeline = r#"[{"$limit": 1}]"#)]
struct FirstActive {
    name: String,
}

fn declared() -> Vec<CollectionSpec> {
    vec![
        User::collection_spec(),
        ActiveUser::collection_spec(),
        FirstActive::collection_spec(),
    ]
}

fn run(args: &[&str], linked: &[CollectionSpec]) -> (Outcome, String) {
    let mut console = Console::captured("");
    let mut argv = vec!["mongo-schema"];
    argv.extend_from_slice(args);
    let outcome = mongo_schema_cli::run(argv, Some(linked), &mut console);
    (
        outcome,
        format!("{}{}", console.stdout_text(), console.stderr_text()),
    )
}

#[test]
fn a_view_declares_its_source_and_pipeline_and_nothing_else() {
    let spec = ActiveUser::collection_spec();
    assert!(spec.is_view());
    assert!(spec.validator.is_none());
    assert!(spec.indexes.is_empty());
    assert_eq!(
        spec.to_options_document(),
        doc! {
            "viewOn": "users_v15",
            "pipeline": [
                { "$match": { "active": true } },
                { "$project": { "_id": 0, "name": 1 } },
                { "$limit": 100_i64 },
            ],
        }
    );
    assert_eq!(
        FirstActive::collection_spec().options.view.unwrap().view_on,
        "active_users_v15"
    );
    // The type still derives its schema, for documentation and `validate` of exported output.
    let schema = ActiveUser::root_schema().to_document();
    assert_eq!(
        schema.get_array("required").unwrap(),
        &vec![Bson::from("name")]
    );
}

#[test]
fn the_manifest_entry_reads_back_as_the_same_view() {
    let spec = ActiveUser::collection_spec();
    let entry = spec.to_manifest_document();
    assert_eq!(entry.get_array("indexes").unwrap().len(), 0);
    let back = CollectionSpec::from_manifest_document(&entry).unwrap();
    assert_eq!(back, spec);
    assert!(mongo_schema::diff::diff(&[spec], &[back]).is_empty());
}

#[test]
fn generate_writes_the_view_in_the_manifest_and_the_mongosh_script() {
    let (outcome, text) = run(&["generate"], &declared());
    assert_eq!(outcome, Outcome::Clean, "{text}");
    assert!(text.contains("\"viewOn\": \"users_v15\""), "{text}");
    let (outcome, script) = run(&["generate", "--format", "mongosh"], &declared());
    assert_eq!(outcome, Outcome::Clean, "{script}");
    assert!(script.contains("create: \"active_users_v15\""), "{script}");
    assert!(script.contains("viewOn: \"users_v15\""), "{script}");
    assert!(script.contains("NumberLong"), "{script}");
}

fn server() -> BlockingTestServer {
    BlockingTestServer::start(TestServerOptions::default())
}

#[test]
fn check_plan_and_apply_create_and_change_views_on_the_test_server() {
    let server = server();
    let uri = server.uri_with_db("shop");
    let linked = declared();
    // Nothing there: check reports the two views and the collection missing.
    let (outcome, text) = run(&["check", "--uri", &uri], &linked);
    assert_eq!(outcome, Outcome::Findings, "{text}");
    assert!(text.contains("active_users_v15"), "{text}");
    let (outcome, text) = run(&["apply", "--uri", &uri, "--yes"], &linked);
    assert_ne!(outcome, Outcome::Failed, "{text}");
    let entry = server.collection_entry("shop", "active_users_v15").unwrap();
    assert_eq!(entry.get_str("type").unwrap(), "view");
    assert_eq!(
        entry
            .get_document("options")
            .unwrap()
            .get_str("viewOn")
            .unwrap(),
        "users_v15"
    );
    let (outcome, text) = run(&["check", "--uri", &uri], &linked);
    assert_eq!(outcome, Outcome::Clean, "{text}");

    // Someone edits the view by hand: check sees the pipeline, plan fixes it with one collMod.
    server.execute(
        "shop",
        doc! { "collMod": "active_users_v15", "viewOn": "users_v15", "pipeline": [{ "$match": { "active": false } }] },
    );
    let (outcome, text) = run(&["check", "--uri", &uri], &linked);
    assert_eq!(outcome, Outcome::Findings, "{text}");
    assert!(
        text.contains("view: collMod changes the view's viewOn and pipeline"),
        "{text}"
    );
    server.clear_commands();
    let (outcome, text) = run(&["apply", "--uri", &uri, "--yes"], &linked);
    assert_ne!(outcome, Outcome::Failed, "{text}");
    let writes = server.write_commands();
    assert_eq!(writes.len(), 1, "{writes:?}");
    assert_eq!(writes[0].name, "collMod");
    let (outcome, text) = run(&["check", "--uri", &uri], &linked);
    assert_eq!(outcome, Outcome::Clean, "{text}");

    // A pipeline written with other numeric types (the legacy shell's doubles) is in sync.
    server.execute(
        "shop",
        doc! { "collMod": "active_users_v15", "viewOn": "users_v15", "pipeline": [
            { "$match": { "active": true } },
            { "$project": { "_id": 0.0, "name": 1.0 } },
            { "$limit": 100.0 },
        ] },
    );
    let (outcome, text) = run(&["check", "--uri", &uri], &linked);
    assert_eq!(outcome, Outcome::Clean, "{text}");
}

#[test]
fn an_undeclared_live_view_is_an_extra_collection_never_dropped() {
    let server = server();
    server.execute("shop", doc! { "create": "users_v15" });
    server.execute(
        "shop",
        doc! { "create": "stale_view", "viewOn": "users_v15", "pipeline": [] },
    );
    let uri = server.uri_with_db("shop");
    let linked = vec![User::collection_spec()];
    let (outcome, text) = run(&["check", "--uri", &uri, "--format", "json"], &linked);
    assert_eq!(outcome, Outcome::Findings, "{text}");
    assert!(
        text.contains("stale_view") && text.contains("extra-collection"),
        "{text}"
    );
    server.clear_commands();
    let (_, text) = run(&["apply", "--uri", &uri, "--yes", "--prune"], &linked);
    assert!(
        !server.write_commands().iter().any(|c| c.name == "drop"),
        "{text}"
    );
    assert!(server.collection_entry("shop", "stale_view").is_some());
}

/// A server that acknowledges a view's `collMod` without storing it (SecantusDB does): `apply`
/// fails the step and says what is listed otherwise, rather than calling it done.
#[test]
fn a_view_collmod_acknowledged_but_not_stored_fails_the_step_naming_the_pipeline() {
    let server = server();
    let uri = server.uri_with_db("shop");
    let linked = declared();
    let (outcome, text) = run(&["apply", "--uri", &uri, "--yes"], &linked);
    assert_ne!(outcome, Outcome::Failed, "{text}");
    server.execute(
        "shop",
        doc! { "collMod": "active_users_v15", "viewOn": "users_v15", "pipeline": [] },
    );
    server.inject(
        mongo_schema_test_support::Failure::on("collMod")
            .reply(doc! { "ok": 1.0 })
            .always(),
    );
    let (outcome, text) = run(&["apply", "--uri", &uri, "--yes"], &linked);
    assert_eq!(outcome, Outcome::Failed, "{text}");
    assert!(
        text.contains(
            "the server acknowledged it but did not store it: view is listed with another pipeline"
        ),
        "{text}"
    );
}
