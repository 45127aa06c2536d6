//! The manifest of hand-written collection specs for the collections of `PATTERNS.md`: its JSON
//! is pinned by a snapshot, reads back to the same specs, and diffs empty against itself.

use bson::doc;
use mongo_schema::diff::diff;
use mongo_schema::generate::object;
use mongo_schema::manifest::{Manifest, ManifestError};
use mongo_schema::schema::{BsonType, JsonSchema};
use mongo_schema::spec::{
    Capped, Collation, Collection, CollectionSpec, Granularity, ShardKey, TimeseriesOptions,
    ValidationAction, ValidationLevel,
};
use mongo_schema::spec::{IndexKind::*, IndexSpec};
use mongo_schema::{MongoSchema, SchemaGenerator};

/// PATTERNS #11: users with a validated email and a partial unique index.
struct User;

impl MongoSchema for User {
    fn json_schema(_: &mut SchemaGenerator) -> JsonSchema {
        let mut schema = object();
        schema.properties.insert(
            "email".into(),
            JsonSchema {
                pattern: Some(r"^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}$".into()),
                ..JsonSchema::bson_type(BsonType::String)
            },
        );
        schema
            .properties
            .insert("name".into(), JsonSchema::bson_type(BsonType::String));
        schema
            .properties
            .insert("created_at".into(), JsonSchema::bson_type(BsonType::Date));
        for field in ["email", "name", "created_at"] {
            schema.require(field);
        }
        schema
    }
}

impl Collection for User {
    fn collection_spec() -> CollectionSpec {
        CollectionSpec::new("users")
            .json_schema(User::root_schema())
            .validation_action(ValidationAction::Error)
            .index(
                IndexSpec::new([("email", Ascending)])
                    .unique(true)
                    .partial_filter_expression(doc! { "deleted_at": { "$exists": false } }),
            )
    }
}

fn patterns() -> Vec<CollectionSpec> {
    vec![
        User::collection_spec(),
        // PATTERNS #2: orders with a compound index.
        CollectionSpec::new("orders")
            .json_schema(JsonSchema::bson_type(BsonType::Object))
            .validation_level(ValidationLevel::Moderate)
            .index(IndexSpec::new([
                ("user_id", Ascending),
                ("status", Ascending),
                ("created_at", Descending),
            ])),
        // PATTERNS #5: a native time-series collection with a 90-day TTL.
        CollectionSpec::new("sensor_readings")
            .timeseries(
                TimeseriesOptions::new("timestamp")
                    .meta_field("sensor_id")
                    .granularity(Granularity::Minutes),
            )
            .expire_after_seconds(7_776_000),
        // PATTERNS #12: text-indexed articles with weights.
        CollectionSpec::new("articles").index(
            IndexSpec::new([("title", Text), ("content", Text)])
                .weight("title", 10)
                .weight("content", 1),
        ),
        // PATTERNS #13: events with a hashed shard key.
        CollectionSpec::new("events")
            .index(IndexSpec::new([("user_id", Hashed)]))
            .shard_key(ShardKey::hashed("user_id")),
        CollectionSpec::new("audit_log")
            .capped(Capped::size(1 << 20).max(10_000))
            .collation(Collation::new("fr_CA").strength(2))
            .change_stream_pre_and_post_images(true)
            .index(IndexSpec::new([("loc", TwoDSphere)]))
            .index(IndexSpec::new([("$**", Wildcard)]).wildcard_projection(doc! { "meta": 1 })),
    ]
}

#[test]
fn manifest_of_the_patterns_is_pinned() {
    let manifest = Manifest::new(patterns());
    manifest.check().unwrap();
    insta::assert_snapshot!("patterns", manifest.to_json());
}

#[test]
fn manifest_reads_back_to_the_same_json_and_specs() {
    let manifest = Manifest::new(patterns());
    let json = manifest.to_json();
    let read = Manifest::from_json(&json).unwrap();
    assert_eq!(read.to_json(), json);
    let names: Vec<&str> = read.collections.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "articles",
            "audit_log",
            "events",
            "orders",
            "sensor_readings",
            "users"
        ]
    );
    // What was read means the same as what was written.
    assert!(diff(&manifest.collections, &read.collections).is_empty());
    assert!(diff(&read.collections, &manifest.collections).is_empty());
}

#[test]
fn bad_manifests_say_where() {
    let err = Manifest::from_json("{\"collections\": [\n  {\"name\": \"a\",}\n]}").unwrap_err();
    assert!(
        matches!(&err, ManifestError::Json(e) if e.line == 2),
        "{err}"
    );
    let err = Manifest::from_json(
        r#"{"collections": [{"name": "users", "options": {"timeseries": {"metaField": "m"}}}]}"#,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "collections[0](users).options.timeseries.timeField: missing"
    );
    let err =
        Manifest::from_json(r#"{"collections": [{"name": "a", "indexes": {}}]}"#).unwrap_err();
    assert_eq!(
        err.to_string(),
        "collections[0](a).indexes: expected an array, found {}"
    );
}

#[test]
fn canonical_extended_json_reads_too() {
    let text = r#"{"collections": [{"name": "t", "options": {"expireAfterSeconds": {"$numberLong": "60"}, "timeseries": {"timeField": "at"}}, "indexes": [{"key": {"a": {"$numberDouble": "1.0"}}, "name": "a_1"}]}]}"#;
    let manifest = Manifest::from_json(text).unwrap();
    let spec = &manifest.collections[0];
    assert_eq!(spec.options.expire_after_seconds, Some(60));
    assert_eq!(spec.indexes[0].keys.0[0].1, Ascending);
}

/// Issue 17: the manifest reader read `-5` as an Int64 (and `5` as an Int32), so a bound of `-5`
/// came out of `generate --format mongosh` as `NumberLong("-5")`.
#[test]
fn a_negative_bound_in_a_manifest_stays_a_32_bit_integer() {
    let text = r#"{"collections": [{"name": "t", "options": {"validator": {"$jsonSchema": {
        "bsonType": "object",
        "properties": {"n": {"bsonType": "int", "minimum": -5, "maximum": 5}}
    }}}}]}"#;
    let manifest = Manifest::from_json(text).unwrap();
    let validator = manifest.collections[0]
        .validator
        .as_ref()
        .unwrap()
        .to_document();
    let schema = validator.get_document("$jsonSchema").unwrap_or(&validator);
    let n = schema
        .get_document("properties")
        .unwrap()
        .get_document("n")
        .unwrap();
    assert_eq!(n.get("minimum"), Some(&bson::Bson::Int32(-5)));
    assert_eq!(n.get("maximum"), Some(&bson::Bson::Int32(5)));

    let dir = std::env::temp_dir().join(format!("manifest-negative-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("manifest.json");
    std::fs::write(&file, text).unwrap();
    let mut console = mongo_schema_cli::Console::captured("");
    let path = file.to_str().unwrap();
    let argv = [
        "mongo-schema",
        "generate",
        "--manifest",
        path,
        "--format",
        "mongosh",
    ];
    let outcome = mongo_schema_cli::run(argv, None, &mut console);
    let script = console.stdout_text();
    assert_eq!(outcome.code(), 0, "{}", console.stderr_text());
    assert!(
        script.contains("minimum: NumberInt(-5)") || script.contains("minimum: -5"),
        "{script}"
    );
    assert!(!script.contains("NumberLong"), "{script}");
    std::fs::remove_dir_all(&dir).unwrap();
}
