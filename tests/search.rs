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

/// Static mappings naming Rust fields, and queries naming search and vector indexes (issue 15
/// items 2 and 3): the derived definitions, the declared stages, and `lint` judging each query
/// against the collection's search indexes.
mod search_queries {
    use bson::doc;
    use mongo_schema::MongoSchema;
    use mongo_schema::access::{SearchStage, registered_queries};
    use mongo_schema::spec::{Collection, CollectionSpec, SearchIndexType};
    use mongo_schema_cli::Outcome;
    use mongo_schema_test_support::{BlockingTestServer, TestServerOptions};
    use serde::{Deserialize, Serialize};

    use super::run;

    #[derive(Serialize, Deserialize, MongoSchema)]
    struct Author {
        name: String,
        #[serde(rename = "bioText")]
        bio: String,
    }

    #[derive(Serialize, Deserialize, MongoSchema)]
    #[serde(rename_all = "camelCase")]
    #[mongo(
        collection = "posts_v15",
        search_index(
            name = "text",
            analyzer = "lucene.english",
            mappings(
                title(type = "string"),
                body_text(type = "string", analyzer = "lucene.french", search_analyzer = "lucene.french"),
                tags(type = "token"),
                author.name(type = "string"),
                view_count(type = "number"),
            ),
        ),
        search_index(name = "everything", dynamic),
        vector_index(name = "embeddings", path = embedding, dimensions = 3, similarity = "cosine", filter(status)),
        query(name = "find_text", search(index = "text", paths(title, body_text))),
        query(name = "by_author", search(index = "text", paths(author.name)), limit = 10),
        query(name = "anything", search(index = "everything", paths(author.bio))),
        query(name = "similar", vector_search(index = "embeddings", path = embedding, filter(status))),
    )]
    struct Post {
        #[serde(rename = "_id")]
        id: bson::oid::ObjectId,
        title: String,
        body_text: String,
        tags: Vec<String>,
        author: Author,
        view_count: i64,
        status: String,
        embedding: [f32; 3],
    }

    #[derive(Serialize, Deserialize, MongoSchema)]
    #[mongo(
        collection = "posts_bad_v15",
        search_index(name = "text", mappings(title(type = "string"), tags(type = "token"))),
        vector_index(name = "embeddings", path = embedding, dimensions = 3, similarity = "cosine", filter(status)),
        query(name = "misspelt_index", search(index = "txt", paths(title))),
        query(name = "wrong_kind", search(index = "embeddings", paths(title))),
        query(name = "unmapped", search(index = "text", paths(title, body))),
        query(name = "token_only", search(index = "text", paths(tags))),
        query(name = "other_vector", vector_search(index = "embeddings", path = other, filter(status, body))),
        query(name = "vector_on_text", vector_search(index = "text", path = embedding)),
        query(name = "by_status", eq(status)),
    )]
    struct BadPost {
        #[serde(rename = "_id")]
        id: bson::oid::ObjectId,
        title: String,
        body: String,
        tags: Vec<String>,
        status: String,
        embedding: [f32; 3],
        other: Vec<f32>,
    }

    #[derive(Serialize, Deserialize, MongoSchema)]
    #[mongo(
        collection = "nested_mismatch_v15",
        search_index(name = "text", mappings(author.bio(type = "number"))),
    )]
    struct NestedMismatch {
        #[serde(rename = "_id")]
        id: bson::oid::ObjectId,
        author: Author,
    }

    #[test]
    fn static_mappings_name_stored_paths_through_renames_and_nest_documents() {
        let spec = Post::collection_spec();
        let text = &spec.search_indexes[0];
        assert_eq!(text.index_type, SearchIndexType::Search);
        assert_eq!(
            text.definition,
            doc! {
                "mappings": { "dynamic": false, "fields": {
                    "title": { "type": "string" },
                    "bodyText": { "type": "string", "analyzer": "lucene.french", "searchAnalyzer": "lucene.french" },
                    "tags": { "type": "token" },
                    "author": { "type": "document", "fields": { "name": { "type": "string" } } },
                    "viewCount": { "type": "number" },
                } },
                "analyzer": "lucene.english",
            }
        );
        assert_eq!(
            spec.search_indexes[1].definition,
            doc! { "mappings": { "dynamic": true } }
        );
    }

    #[test]
    fn a_nested_mapping_of_the_wrong_type_is_refused_when_the_spec_is_built() {
        let error = NestedMismatch::try_collection_spec()
            .unwrap_err()
            .to_string();
        assert!(
            error.contains(r#""author.bioText" is string, which a search mapping of type "number" does not index"#),
            "{error}"
        );
    }

    #[test]
    fn declared_queries_carry_their_search_stage_with_stored_paths() {
        let queries = registered_queries().unwrap();
        let posts = &queries["posts_v15"];
        let stages: Vec<_> = posts.iter().map(|q| q.search_stage.clone()).collect();
        assert_eq!(
            stages,
            [
                Some(SearchStage::Search {
                    index: "text".into(),
                    paths: vec!["title".into(), "bodyText".into()]
                }),
                Some(SearchStage::Search {
                    index: "text".into(),
                    paths: vec!["author.name".into()]
                }),
                Some(SearchStage::Search {
                    index: "everything".into(),
                    paths: vec!["author.bioText".into()]
                }),
                Some(SearchStage::VectorSearch {
                    index: "embeddings".into(),
                    path: "embedding".into(),
                    filters: vec!["status".into()]
                }),
            ]
        );
        assert_eq!(posts[1].limit, Some(10));
        assert_eq!(
            posts[0].to_document(),
            doc! { "name": "find_text", "$search": { "index": "text", "path": ["title", "bodyText"] } }
        );
        assert_eq!(
            posts[3].search_stage.as_ref().unwrap().to_stage(),
            doc! { "$vectorSearch": { "index": "embeddings", "path": "embedding" } }
        );
    }

    fn linked() -> Vec<CollectionSpec> {
        vec![Post::collection_spec(), BadPost::collection_spec()]
    }

    #[test]
    fn lint_notes_covered_search_queries_and_refuses_the_others() {
        let (outcome, text) = run(&["lint", "--format", "json"], &linked());
        assert_eq!(outcome, Outcome::Findings, "{text}");
        let report: serde_json::Value = serde_json::from_str(&text).unwrap();
        let findings = report["findings"]
            .as_array()
            .unwrap_or_else(|| panic!("{text}"));
        let of = |collection: &str| -> Vec<(String, String, String)> {
            findings
                .iter()
                .filter(|f| f["collection"] == collection)
                .filter(|f| f["kind"].as_str().unwrap().contains("search"))
                .map(|f| {
                    (
                        f["severity"].as_str().unwrap().to_owned(),
                        f["kind"].as_str().unwrap().to_owned(),
                        f["path"].as_str().unwrap().to_owned(),
                    )
                })
                .collect()
        };
        let note = |q: &str| ("notice".to_owned(), "search-query".to_owned(), q.to_owned());
        assert_eq!(
            of("posts_v15"),
            [
                note("find_text"),
                note("by_author"),
                note("anything"),
                note("similar")
            ],
            "{text}"
        );
        let error = |code: &str, q: &str| ("error".to_owned(), code.to_owned(), q.to_owned());
        assert_eq!(
            of("posts_bad_v15"),
            [
                error("unknown-search-index", "misspelt_index"),
                error("wrong-search-index-type", "wrong_kind"),
                error("search-path-not-indexed", "unmapped"),
                error("search-path-not-indexed", "token_only"),
                error("search-path-not-indexed", "other_vector"),
                error("search-path-not-indexed", "other_vector"),
                error("wrong-search-index-type", "vector_on_text"),
            ],
            "{text}"
        );
        // No B-tree finding for a search query: the only coverage finding is the eq query's.
        let btree: Vec<&str> = findings
            .iter()
            .filter(|f| f["kind"] == "no-serving-index")
            .map(|f| f["path"].as_str().unwrap())
            .collect();
        assert_eq!(btree, ["by_status"], "{text}");
    }

    #[test]
    fn lint_messages_name_the_index_the_path_and_the_way_out() {
        let (_, text) = run(&["lint"], &linked());
        for wanted in [
            r#"$search names the search index "txt", which is not declared; did you mean "text"?"#,
            r#"$search needs a search index, but "embeddings" is a vectorSearch index"#,
            r#"search index "text" does not index "body": no dynamic mapping covers it and the static mappings do not list it"#,
            r#"search index "text" does not index "tags": it is mapped as token; the text operator searches fields mapped as string"#,
            r#"search index "embeddings" does not index "other": $vectorSearch path must be the index's vector field (embedding)"#,
            r#"search index "embeddings" does not index "body": a $vectorSearch filter field must be indexed as a filter field"#,
            r#"runs $vectorSearch on the search index "embeddings", not a B-tree plan"#,
        ] {
            assert!(text.contains(wanted), "missing {wanted:?} in {text}");
        }
    }

    #[test]
    fn generate_writes_static_mappings_to_the_manifest_and_the_mongosh_script() {
        let linked = vec![Post::collection_spec()];
        let (outcome, manifest) = run(&["generate"], &linked);
        assert_eq!(outcome, Outcome::Clean, "{manifest}");
        let manifest: serde_json::Value = serde_json::from_str(&manifest).unwrap();
        let text = &manifest["collections"][0]["searchIndexes"][0];
        assert_eq!(text["name"], "text", "{manifest}");
        assert_eq!(
            text["definition"]["mappings"]["fields"]["author"],
            serde_json::json!({ "type": "document", "fields": { "name": { "type": "string" } } })
        );
        assert_eq!(
            text["definition"]["mappings"]["fields"]["bodyText"]["analyzer"],
            "lucene.french"
        );
        let (outcome, script) = run(&["generate", "--format", "mongosh"], &linked);
        assert_eq!(outcome, Outcome::Clean, "{script}");
        let (_, search) = script
            .split_once("createSearchIndexes")
            .unwrap_or_else(|| panic!("{script}"));
        for wanted in [
            r#"name: "text""#,
            r#"bodyText: { type: "string", analyzer: "lucene.french", searchAnalyzer: "lucene.french" }"#,
            r#"author: { type: "document", fields: { name: { type: "string" } } }"#,
            r#"type: "vectorSearch""#,
        ] {
            assert!(search.contains(wanted), "missing {wanted:?} in {search}");
        }
    }

    /// Static-mapping options through the driver against the test server: the same declaration
    /// is in sync once built; another field analyzer is drift, changed with updateSearchIndex.
    #[test]
    fn a_static_mapping_option_is_compared_through_the_driver() {
        let server = BlockingTestServer::start(TestServerOptions::default());
        let uri = server.uri_with_db("shop");
        let declared = |analyzer: &str| {
            vec![CollectionSpec::new("posts").search_index(
                mongo_schema::spec::SearchIndexSpec::static_mappings(
                    "text",
                    [
                        ("title", doc! { "type": "string", "analyzer": analyzer }),
                        ("author.name", doc! { "type": "token" }),
                    ],
                ),
            )]
        };
        let same = declared("lucene.english");
        let (outcome, text) = run(&["apply", "--uri", &uri, "--yes", "--wait"], &same);
        assert_eq!(outcome, Outcome::Clean, "{text}");
        let (outcome, text) = run(&["check", "--uri", &uri], &same);
        assert_eq!(outcome, Outcome::Clean, "{text}");
        let differs = declared("lucene.french");
        let (outcome, text) = run(&["check", "--uri", &uri], &differs);
        assert_eq!(outcome, Outcome::Findings, "{text}");
        assert!(text.contains("search index text"), "{text}");
        server.clear_commands();
        let (outcome, text) = run(&["apply", "--uri", &uri, "--yes"], &differs);
        assert_ne!(outcome, Outcome::Failed, "{text}");
        let writes: Vec<String> = server
            .write_commands()
            .iter()
            .map(|c| c.name.clone())
            .collect();
        assert_eq!(writes, ["updateSearchIndex"], "{text}");
        let (outcome, text) = run(&["check", "--uri", &uri], &differs);
        assert_ne!(outcome, Outcome::Findings, "{text}");
    }
}
