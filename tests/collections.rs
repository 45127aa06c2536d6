//! Collection roots declared with `#[mongo(collection = ...)]`: the spec each builds (validator,
//! indexes, options, shard key), the registry, versioned reads, and declared queries.
//! The manifest form of each is a snapshot, read before accepting.

use bson::oid::ObjectId;
use bson::{DateTime, doc};
use mongo_schema::MongoSchema;
use mongo_schema::eval::Validator;
use mongo_schema::manifest::Manifest;
use mongo_schema::spec::{Collection, CollectionSpec};
use mongo_schema::version::{VersionError, Versioned};
use serde::{Deserialize, Serialize};

fn manifest_json(spec: CollectionSpec) -> serde_json::Value {
    serde_json::from_str(&Manifest::new(vec![spec]).to_json()).unwrap()
}

fn keys(spec: &CollectionSpec) -> Vec<bson::Document> {
    spec.indexes.iter().map(|i| i.keys.to_document()).collect()
}

/// Patterns 2 and 10: orders with an extended reference and the seed's compound index.
#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(
    collection = "orders",
    validation_action = "error",
    index(keys(user_id, status, created_at = -1)),
    index(keys(customer.customer_id)),
    index(keys(items.stock_keeping_unit), name = "by_sku"),
    query(name = "recent_by_user", eq(user_id, status), sort(created_at = -1)),
)]
struct Order {
    #[serde(rename = "_id")]
    id: ObjectId,
    user_id: String,
    customer: Customer,
    items: Vec<LineItem>,
    status: Status,
    created_at: DateTime,
}

#[derive(Serialize, Deserialize, MongoSchema)]
struct Customer {
    #[serde(rename = "id")]
    customer_id: String,
    name: String,
}

#[derive(Serialize, Deserialize, MongoSchema)]
#[serde(rename_all = "camelCase")]
struct LineItem {
    stock_keeping_unit: String,
    qty: i32,
}

#[derive(Serialize, Deserialize, MongoSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
enum Status {
    Pending,
    Paid,
    Shipped,
    Cancelled,
}

#[test]
fn index_paths_resolve_through_renames_embedded_documents_and_arrays() {
    let spec = Order::try_collection_spec().unwrap();
    assert_eq!(
        keys(&spec),
        vec![
            doc! { "user_id": 1, "status": 1, "created_at": -1 },
            doc! { "customer.id": 1 },
            doc! { "items.stockKeepingUnit": 1 },
        ]
    );
    assert_eq!(
        spec.indexes[0].effective_name(),
        "user_id_1_status_1_created_at_-1"
    );
    assert_eq!(spec.indexes[2].effective_name(), "by_sku");
    assert_eq!(
        spec.validator.unwrap().json_schema,
        Some(Order::root_schema())
    );
}

#[test]
fn order_manifest() {
    insta::assert_json_snapshot!(manifest_json(Order::collection_spec()));
}

#[test]
fn declared_queries_are_registered_with_stored_names() {
    let queries = mongo_schema::access::registered_queries().unwrap();
    let orders = &queries["orders"];
    assert_eq!(orders.len(), 1);
    assert_eq!(orders[0].name, "recent_by_user");
    assert_eq!(orders[0].equality, vec!["user_id", "status"]);
    let spec = Order::collection_spec();
    // The compound index serves the declared query: the lint finds no error.
    let findings = mongo_schema::access::lint(&spec, orders);
    assert!(!mongo_schema::access::has_errors(&findings), "{findings:?}");
}

/// Pattern 11: validated users with a partial unique index on email and field shorthands.
#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(
    collection = "users",
    validation_level = "strict",
    index(keys(email), unique, partial = r#"{"deleted_at": {"$exists": false}}"#)
)]
struct User {
    #[mongo(pattern = r"^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}$")]
    email: String,
    name: String,
    #[mongo(minimum = 0, maximum = 150)]
    age: Option<i32>,
    #[mongo(index = -1)]
    created_at: DateTime,
    #[mongo(ttl = 86400)]
    session_started_at: Option<DateTime>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    deleted_at: Option<DateTime>,
    #[mongo(unbounded)]
    liked_posts: Vec<ObjectId>,
}

#[test]
fn users_manifest_has_the_partial_unique_index_and_shorthands() {
    let spec = User::collection_spec();
    assert_eq!(
        keys(&spec),
        vec![
            doc! { "email": 1 },
            doc! { "created_at": -1 },
            doc! { "session_started_at": 1 },
        ]
    );
    assert!(spec.indexes[0].unique);
    assert_eq!(spec.indexes[2].expire_after_seconds, Some(86400));
    assert_eq!(spec.acknowledged_unbounded, vec!["liked_posts".to_owned()]);
    insta::assert_json_snapshot!(manifest_json(spec));
}

#[test]
fn acknowledged_unbounded_array_is_not_linted() {
    let spec = User::collection_spec();
    let lints = mongo_schema::lint::lint_collection(&spec, &[]);
    assert!(
        lints
            .iter()
            .all(|l| l.rule != mongo_schema::lint::LintKind::UnboundedArray.as_str()),
        "{lints:?}"
    );
}

/// Pattern 12: a text index with weights, from field shorthands.
#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(collection = "articles")]
struct Article {
    #[mongo(text = 10)]
    title: String,
    #[mongo(text)]
    content: String,
}

#[test]
fn text_shorthands_make_one_weighted_text_index() {
    let spec = Article::collection_spec();
    assert_eq!(
        keys(&spec),
        vec![doc! { "title": "text", "content": "text" }]
    );
    assert_eq!(spec.indexes[0].weights.get("title"), Some(&10));
    insta::assert_json_snapshot!(manifest_json(spec));
}

/// Pattern 5: a native time-series collection (no validator: the server refuses one).
#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(
    collection = "sensor_readings",
    timeseries(time_field = timestamp, meta_field = sensor_id, granularity = "minutes"),
    expire_after_seconds = 7776000
)]
struct SensorReading {
    timestamp: DateTime,
    sensor_id: String,
    temperature: f64,
}

#[test]
fn timeseries_has_options_and_no_validator() {
    let spec = SensorReading::collection_spec();
    assert!(spec.validator.is_none());
    assert_eq!(spec.options.expire_after_seconds, Some(7_776_000));
    insta::assert_json_snapshot!(manifest_json(spec));
}

/// Pattern 13: hashed shard key on user_id.
#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(collection = "events", shard_key(keys(user_id = "hashed")))]
struct Event {
    user_id: String,
    kind: String,
    at: DateTime,
}

#[test]
fn hashed_shard_key_is_declared_and_not_linted() {
    let spec = Event::collection_spec();
    assert_eq!(
        spec.shard_key.as_ref().map(|k| k.keys.to_document()),
        Some(doc! { "user_id": "hashed" })
    );
    let lints = mongo_schema::lint::lint_collection(&spec, &[]);
    assert!(
        lints
            .iter()
            .all(|l| l.rule != mongo_schema::lint::LintKind::MonotonicShardKey.as_str())
    );
}

/// Pattern 8: a polymorphic catalog; a variant's unique index is scoped to it.
#[derive(Serialize, Deserialize, MongoSchema)]
#[serde(tag = "type", rename_all = "UPPERCASE")]
#[mongo(collection = "catalog", index(keys(title)))]
enum CatalogItem {
    #[mongo(index(keys(isbn), unique))]
    Book {
        title: String,
        isbn: String,
        pages: u32,
    },
    Course {
        title: String,
        #[serde(rename = "durationHrs")]
        duration_hrs: f64,
        level: Level,
    },
}

#[derive(Serialize, Deserialize, MongoSchema)]
#[serde(rename_all = "UPPERCASE")]
enum Level {
    Beginner,
    Advanced,
}

#[test]
fn variant_index_is_scoped_by_the_discriminator() {
    let spec = CatalogItem::collection_spec();
    assert_eq!(keys(&spec), vec![doc! { "title": 1 }, doc! { "isbn": 1 }]);
    assert_eq!(
        spec.indexes[1].partial_filter_expression,
        Some(doc! { "type": "BOOK" })
    );
    let lints = mongo_schema::lint::lint_collection(&spec, &[]);
    assert!(
        lints
            .iter()
            .all(|l| l.rule != mongo_schema::lint::LintKind::UnscopedUniqueIndex.as_str()),
        "{lints:?}"
    );
    insta::assert_json_snapshot!(manifest_json(spec));
}

/// Pattern 9: users migrating from one `name` (v1) to `firstName`/`lastName` (v2).
#[derive(Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
#[serde(rename_all = "camelCase")]
#[mongo(
    collection = "people",
    version(field = "schemaVersion", current = 2, previous(PersonV1 = 1))
)]
struct Person {
    schema_version: i32,
    first_name: String,
    last_name: String,
}

#[derive(Serialize, Deserialize, MongoSchema)]
struct PersonV1 {
    name: String,
}

impl From<PersonV1> for Person {
    fn from(v1: PersonV1) -> Person {
        // A name without a space is a real edge case: it is all first name.
        let (first, last) = v1.name.split_once(' ').unwrap_or((&v1.name, ""));
        Person {
            schema_version: 2,
            first_name: first.to_owned(),
            last_name: last.to_owned(),
        }
    }
}

fn raw(d: bson::Document) -> bson::RawDocumentBuf {
    bson::RawDocumentBuf::try_from(&d).unwrap()
}

#[test]
fn versioned_validator_accepts_each_version_pinned() {
    let spec = Person::collection_spec();
    let schema = spec.validator.unwrap().json_schema.unwrap();
    let validator = Validator::new(&schema).unwrap();
    let v2 = raw(doc! { "_id": 1, "schemaVersion": 2, "firstName": "Asha", "lastName": "Rao" });
    let v1 = raw(doc! { "_id": 2, "name": "Asha Rao" });
    let v1_marked = raw(doc! { "_id": 3, "schemaVersion": 1, "name": "Asha" });
    let wrong_pin = raw(doc! { "_id": 4, "schemaVersion": 1, "firstName": "A", "lastName": "R" });
    let unknown = raw(doc! { "_id": 5, "schemaVersion": 3, "name": "x" });
    // 2.0 equals 2 in `enum`, but Person reads schemaVersion as an i32: refused.
    let double = raw(doc! { "_id": 6, "schemaVersion": 2.0, "firstName": "A", "lastName": "R" });
    assert!(!validator.is_valid(&double));
    assert!(validator.is_valid(&v2));
    assert!(validator.is_valid(&v1));
    assert!(validator.is_valid(&v1_marked));
    assert!(!validator.is_valid(&wrong_pin));
    assert!(!validator.is_valid(&unknown));
}

#[test]
fn any_version_reads_as_the_current_type() {
    assert_eq!(
        Person::from_any_version(&raw(doc! { "name": "Asha Rao" })).unwrap(),
        Person {
            schema_version: 2,
            first_name: "Asha".into(),
            last_name: "Rao".into()
        }
    );
    // No space in the name: no crash, an empty last name.
    assert_eq!(
        Person::from_any_version(&raw(doc! { "schemaVersion": 1, "name": "Cher" }))
            .unwrap()
            .last_name,
        ""
    );
    assert!(matches!(
        Person::from_any_version(&raw(doc! { "schemaVersion": 7 })),
        Err(VersionError::Unknown { .. })
    ));
    assert_eq!(
        Person::outdated_filter(),
        doc! { "schemaVersion": { "$ne": 2 } }
    );
}

#[test]
fn registry_lists_every_root_sorted_by_name() {
    let names: Vec<String> = mongo_schema::registry::checked_collections()
        .unwrap()
        .into_iter()
        .map(|c| c.name)
        .collect();
    assert_eq!(
        names,
        [
            "articles",
            "catalog",
            "events",
            "orders",
            "people",
            "sensor_readings",
            "users"
        ]
    );
}

/// `mongo-schema lint` in an application's own binary: the declared query is served by the
/// compound index (no error); without that index it is an error that names the index to add.
#[test]
fn lint_checks_declared_queries_against_the_declared_indexes() {
    use mongo_schema_cli::{Console, Outcome};
    let lint = |spec: CollectionSpec| {
        let mut console = Console::captured("");
        let outcome = mongo_schema_cli::run(
            ["mongo-schema", "lint", "--format", "json"],
            Some(&[spec]),
            &mut console,
        );
        (outcome, console.stdout_text())
    };
    let (outcome, report) = lint(Order::collection_spec());
    assert!(!report.contains("no-serving-index"), "{report}");
    assert_ne!(outcome, Outcome::Failed, "{report}");

    let mut without = Order::collection_spec();
    without.indexes.remove(0);
    let (outcome, report) = lint(without);
    assert_eq!(outcome, Outcome::Findings, "{report}");
    assert!(report.contains("no-serving-index"), "{report}");
    assert!(report.contains("recent_by_user"), "{report}");
    assert!(report.contains("created_at"), "{report}");
}
