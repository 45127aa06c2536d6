//! Search and vector search indexes (issue 15 item 2) through the driver against the
//! wire-protocol test server: `apply` creates them with createSearchIndexes, `check` reads them
//! with `$listSearchIndexes` (a build in progress reported, not drift), a changed definition is
//! updated with updateSearchIndex, an undeclared one dropped only with `--prune`, and a deployment
//! without search leaves the rest of the catalog checked.

use bson::doc;
use mongo_schema::spec::{CollectionSpec, SearchIndexSpec, VectorField};
use mongo_schema_cli::{Console, Outcome};
use mongo_schema_test_support::{BlockingTestServer, Quirks, TestServerOptions};

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

fn products(dimensions: i64) -> Vec<CollectionSpec> {
    vec![
        CollectionSpec::new("products")
            .search_index(SearchIndexSpec::dynamic("default"))
            .search_index(SearchIndexSpec::vector(
                "embedding_index",
                VectorField::new("embedding", dimensions, "cosine"),
                ["status", "tenantId"],
            )),
    ]
}

fn names(server: &BlockingTestServer) -> Vec<String> {
    let reply = server.execute(
        "shop",
        doc! { "aggregate": "products", "pipeline": [{ "$listSearchIndexes": {} }], "cursor": {} },
    );
    reply
        .get_document("cursor")
        .unwrap()
        .get_array("firstBatch")
        .unwrap()
        .iter()
        .filter_map(|d| d.as_document()?.get_str("name").ok().map(str::to_owned))
        .collect()
}

#[test]
fn apply_creates_check_waits_for_the_build_and_a_change_is_an_update() {
    let server = BlockingTestServer::start(TestServerOptions::default());
    let uri = server.uri_with_db("shop");
    let linked = products(768);
    let (outcome, text) = run(&["apply", "--uri", &uri, "--yes"], &linked);
    assert_ne!(outcome, Outcome::Failed, "{text}");
    let created: Vec<String> = server
        .write_commands()
        .iter()
        .filter(|c| c.name == "createSearchIndexes")
        .map(|c| c.body.get_array("indexes").unwrap().len().to_string())
        .collect();
    assert_eq!(created, ["2"], "{text}");
    // The service builds asynchronously: listed PENDING, then BUILDING, then READY.
    let (outcome, text) = run(&["check", "--uri", &uri], &linked);
    assert!(text.contains("not queryable yet"), "{text}");
    assert_eq!(
        outcome,
        Outcome::Clean,
        "a build in progress is not drift: {text}"
    );
    let (_, _) = run(&["check", "--uri", &uri], &linked);
    let (outcome, text) = run(&["check", "--uri", &uri], &linked);
    assert_eq!(outcome, Outcome::Clean, "{text}");
    assert!(!text.contains("not queryable"), "{text}");

    // Another dimension count: one updateSearchIndex, nothing dropped.
    let changed = products(1024);
    let (outcome, text) = run(&["check", "--uri", &uri], &changed);
    assert_eq!(outcome, Outcome::Findings, "{text}");
    assert!(text.contains("search index embedding_index"), "{text}");
    server.clear_commands();
    let (outcome, text) = run(&["apply", "--uri", &uri, "--yes"], &changed);
    assert_ne!(outcome, Outcome::Failed, "{text}");
    let writes: Vec<String> = server
        .write_commands()
        .iter()
        .map(|c| c.name.clone())
        .collect();
    assert_eq!(writes, ["updateSearchIndex"], "{text}");
}

#[test]
fn an_undeclared_search_index_is_dropped_only_with_prune() {
    let server = BlockingTestServer::start(TestServerOptions::default());
    server.execute("shop", doc! { "create": "products" });
    server.seed_search_index(
        "shop",
        "products",
        doc! { "name": "legacy", "type": "search", "status": "READY",
        "latestDefinition": { "mappings": { "dynamic": true } } },
    );
    let uri = server.uri_with_db("shop");
    let linked = vec![CollectionSpec::new("products")];
    let (outcome, text) = run(&["apply", "--uri", &uri, "--yes"], &linked);
    assert_ne!(outcome, Outcome::Failed, "{text}");
    assert_eq!(names(&server), ["legacy"]);
    let (outcome, text) = run(&["apply", "--uri", &uri, "--yes", "--prune"], &linked);
    assert_ne!(outcome, Outcome::Failed, "{text}");
    assert!(names(&server).is_empty(), "{text}");
}

#[test]
fn a_deployment_without_search_still_checks_the_rest() {
    let server = BlockingTestServer::start(TestServerOptions {
        quirks: Quirks {
            search_unsupported: true,
            ..Quirks::default()
        },
        ..TestServerOptions::default()
    });
    server.execute("shop", doc! { "create": "products" });
    let uri = server.uri_with_db("shop");
    let mut linked = products(768);
    linked[0] = linked[0]
        .clone()
        .index(mongo_schema::spec::IndexSpec::new([(
            "sku",
            mongo_schema::spec::IndexKind::Ascending,
        )]));
    let (outcome, text) = run(&["check", "--uri", &uri, "--format", "json"], &linked);
    assert!(text.contains("search indexes not compared"), "{text}");
    // The B-tree index is still checked and reported; the search part could not be: exit 2.
    assert!(text.contains("sku_1"), "{text}");
    assert!(
        text.contains("search indexes not checked: the deployment does not list them"),
        "{text}"
    );
    assert_eq!(outcome, Outcome::Failed, "{text}");
    // Without declared search indexes the same deployment checks as before.
    let plain = vec![CollectionSpec::new("products")];
    let (outcome, text) = run(&["check", "--uri", &uri], &plain);
    assert_eq!(outcome, Outcome::Clean, "{text}");
    server.clear_commands();
    let (_, text) = run(&["apply", "--uri", &uri, "--yes"], &linked);
    let writes: Vec<String> = server
        .write_commands()
        .iter()
        .map(|c| c.name.clone())
        .collect();
    assert_eq!(writes, ["createIndexes"], "{text}");
}

mod derived {
    use mongo_schema::MongoSchema;
    use mongo_schema::spec::{Collection, SearchIndexSpec, VectorField};
    use serde::{Deserialize, Serialize};

    #[derive(Serialize, Deserialize, MongoSchema)]
    #[serde(rename_all = "SCREAMING_SNAKE_CASE")]
    enum Status {
        Active,
        Retired,
    }

    #[derive(Serialize, Deserialize, MongoSchema)]
    struct Tag {
        label: String,
    }

    #[derive(Serialize, Deserialize, MongoSchema)]
    #[mongo(
        collection = "products_v15",
        search_index(name = "default", dynamic, analyzer = "lucene.english"),
        vector_index(
            name = "embedding_index",
            path = embedding,
            dimensions = 4,
            similarity = "dotProduct",
            quantization = "scalar",
            filter(status, tenant_id),
        ),
    )]
    struct Product {
        #[serde(rename = "_id")]
        id: bson::oid::ObjectId,
        status: Status,
        #[serde(rename = "tenantId")]
        tenant_id: String,
        embedding: Vec<f32>,
        tags: Vec<Tag>,
    }

    #[derive(Serialize, Deserialize, MongoSchema)]
    #[mongo(
        collection = "bad_filter_v15",
        vector_index(name = "e", path = embedding, dimensions = 3, similarity = "cosine", filter(tag)),
    )]
    struct BadFilter {
        #[serde(rename = "_id")]
        id: bson::oid::ObjectId,
        embedding: [f32; 3],
        tag: Tag,
    }

    #[test]
    fn a_derived_vector_index_names_stored_paths_and_pins_the_length() {
        let spec = Product::collection_spec();
        assert_eq!(
            spec.search_indexes,
            [
                SearchIndexSpec::dynamic("default").analyzer("lucene.english"),
                SearchIndexSpec::vector(
                    "embedding_index",
                    VectorField::new("embedding", 4, "dotProduct").quantization("scalar"),
                    ["status", "tenantId"],
                ),
            ]
        );
        let validator = spec.validator.unwrap();
        let schema = validator.json_schema.as_ref().unwrap();
        let embedding = &schema.properties["embedding"];
        assert_eq!(
            (embedding.min_items, embedding.max_items),
            (Some(4), Some(4))
        );
        // The declared validator then refuses a vector of another length, and takes one of four.
        let eval = mongo_schema::eval::Validator::from_document(&validator.to_document()).unwrap();
        let product = |embedding: Vec<f64>| {
            let doc = bson::doc! {
                "_id": bson::oid::ObjectId::new(), "status": "ACTIVE", "tenantId": "t",
                "embedding": embedding, "tags": [],
            };
            bson::serialize_to_raw_document_buf(&doc).unwrap()
        };
        assert!(!eval.evaluate(&product(vec![0.5, 0.25])).is_valid());
        assert!(
            eval.evaluate(&product(vec![0.5, 0.25, 0.0, 1.0]))
                .is_valid()
        );
    }

    #[test]
    fn a_filter_on_an_embedded_document_is_refused_when_the_spec_is_built() {
        let error = BadFilter::try_collection_spec().unwrap_err().to_string();
        assert!(error.contains("filter field \"tag\" is object"), "{error}");
    }
}

/// `apply --wait`: the command returns only once `$listSearchIndexes` says every created index
/// is READY and queryable (the test server moves a build one step per listing: PENDING,
/// BUILDING, READY), so a `check` right after it is in sync.
#[test]
fn apply_wait_returns_once_every_created_index_is_queryable() {
    let server = BlockingTestServer::start(TestServerOptions::default());
    let uri = server.uri_with_db("shop");
    let linked = products(768);
    let (outcome, text) = run(&["apply", "--uri", &uri, "--yes", "--wait"], &linked);
    assert_eq!(outcome, Outcome::Clean, "{text}");
    assert!(text.contains("2 search indexes queryable"), "{text}");
    let listings = server.aggregates_starting_with("$listSearchIndexes").len();
    // The plan's own catalog read, then the wait's polls until READY.
    assert!(listings >= 3, "{listings} listings: {text}");
    let reply = server.execute(
        "shop",
        doc! { "aggregate": "products", "pipeline": [{ "$listSearchIndexes": {} }], "cursor": {} },
    );
    for entry in reply
        .get_document("cursor")
        .unwrap()
        .get_array("firstBatch")
        .unwrap()
    {
        let entry = entry.as_document().unwrap();
        // One listing more moves nothing: they were ready when apply returned.
        assert_eq!(entry.get_str("status").ok(), Some("READY"), "{entry}");
        assert_eq!(entry.get_bool("queryable").ok(), Some(true), "{entry}");
    }
    // Without --wait, apply returns before the builds are done.
    let fresh = BlockingTestServer::start(TestServerOptions::default());
    let (_, text) = run(
        &["apply", "--uri", &fresh.uri_with_db("shop"), "--yes"],
        &linked,
    );
    assert!(!text.contains("queryable"), "{text}");
}
