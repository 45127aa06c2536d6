//! Every pattern example, run as a user runs it: its explanation, `generate`, `lint` and
//! `check --catalog live/<name>.json`, each transcript pinned with insta so that a change to
//! generation shows up in review. The shipped catalogs are what the wire-protocol test server
//! lists after `apply` created the example's collections and the example's drift commands ran.

use bson::{Bson, Document};
use mongo_schema::ExtJsonMode;
use mongo_schema_cli::{Console, Outcome};
use mongo_schema_examples::{ALL, Example};
use mongo_schema_test_support::{BlockingTestServer, TestServerOptions};

/// Runs the example's binary with `args`; returns the outcome and the transcript.
fn run(example: &Example, args: &[&str]) -> (Outcome, String) {
    let mut console = Console::captured("");
    let mut argv = vec![example.name];
    argv.extend_from_slice(args);
    let outcome = mongo_schema_examples::run(example, argv, &mut console);
    let text = format!(
        "exit: {}\n--- stdout\n{}--- stderr\n{}",
        outcome.code(),
        console.stdout_text(),
        console.stderr_text()
    );
    (outcome, text)
}

fn live_path(example: &Example) -> String {
    format!("live/{}.json", example.name)
}

#[test]
fn every_pattern_of_patterns_md_has_an_example() {
    let names: Vec<&str> = ALL.iter().map(|e| e.name).collect();
    assert_eq!(names.len(), 14, "PATTERNS.md has fourteen rows");
    let mut unique = names.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), names.len());
    let manifest = std::fs::read_to_string("Cargo.toml").unwrap();
    for name in names {
        assert!(
            manifest.contains(&format!("name = \"{name}\"\npath = \"{name}.rs\"")),
            "{name} is not a [[example]] of examples/Cargo.toml"
        );
        assert!(std::path::Path::new(&format!("{name}.rs")).exists());
    }
}

#[test]
fn without_arguments_an_example_explains_itself() {
    for example in ALL {
        let (outcome, text) = run(example, &[]);
        assert_eq!(outcome, Outcome::Clean, "{text}");
        assert!(text.contains("-- generate"));
        insta::assert_snapshot!(format!("{}__explain", example.name), text);
    }
}

#[test]
fn generate_prints_each_examples_manifest() {
    for example in ALL {
        let (outcome, text) = run(example, &["generate"]);
        assert_eq!(outcome, Outcome::Clean, "{text}");
        insta::assert_snapshot!(format!("{}__generate", example.name), text);
        // What the example declares is what a manifest reader reads back.
        let json = text
            .split("--- stdout\n")
            .nth(1)
            .and_then(|rest| rest.split("--- stderr\n").next())
            .unwrap();
        let manifest = mongo_schema::manifest::Manifest::from_json(json).unwrap();
        manifest.check().unwrap();
        assert_eq!(manifest.collections.len(), (example.collections)().len());
    }
}

#[test]
fn lint_reports_each_examples_findings() {
    for example in ALL {
        let (outcome, text) = run(example, &["lint"]);
        assert_ne!(outcome, Outcome::Failed, "{text}");
        insta::assert_snapshot!(format!("{}__lint", example.name), text);
    }
}

#[test]
fn check_reports_the_drift_of_each_shipped_catalog() {
    for example in ALL {
        let path = live_path(example);
        let (outcome, text) = run(example, &["check", "--catalog", &path]);
        assert_eq!(
            outcome,
            Outcome::Findings,
            "{}: the shipped catalog has drift: {text}",
            example.name
        );
        // Each example's drift is one hand-made change; more means the catalog is stale.
        assert!(
            text.contains("check: 1 difference in 1 collection"),
            "{}: expected exactly the one drift of the example: {text}",
            example.name
        );
        insta::assert_snapshot!(format!("{}__check", example.name), text);
    }
}

/// The catalog the test server lists after creating the example's collections with `apply`
/// and running `commands`, without the random collection uuids.
fn catalog_after(example: &Example, commands: &[Document]) -> Document {
    let server = BlockingTestServer::start(TestServerOptions::default());
    let uri = server.uri_with_db("app");
    let (outcome, text) = run(example, &["apply", "--uri", &uri, "--yes"]);
    assert_eq!(outcome, Outcome::Clean, "{}: apply: {text}", example.name);
    for command in commands {
        let reply = server.execute("app", command.clone());
        assert_eq!(
            reply.get("ok").and_then(Bson::as_f64),
            Some(1.0),
            "{}: {command} -> {reply}",
            example.name
        );
    }
    let mut catalog = server.catalog("app");
    if let Ok(collections) = catalog.get_array_mut("collections") {
        for entry in collections.iter_mut() {
            if let Some(info) = entry
                .as_document_mut()
                .and_then(|e| e.get_document_mut("info").ok())
            {
                info.remove("uuid");
            }
        }
    }
    catalog
}

#[test]
fn shipped_catalogs_are_what_the_server_lists_after_the_drift() {
    let bless = std::env::var_os("MONGO_SCHEMA_BLESS").is_some();
    for example in ALL {
        let catalog = catalog_after(example, &(example.drift)());
        let text = mongo_schema::extjson::to_string_pretty(
            &Bson::Document(catalog),
            ExtJsonMode::Canonical,
        ) + "\n";
        let path = live_path(example);
        if bless {
            std::fs::write(&path, &text).unwrap();
        }
        let shipped = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            shipped == text,
            "{path} is not what the server lists; rerun with MONGO_SCHEMA_BLESS=1, review the diff, then \
             run the tests again (the check transcripts read these files)"
        );
    }
}

#[test]
fn applied_declarations_are_in_sync() {
    for example in ALL {
        let catalog = catalog_after(example, &[]);
        let text = mongo_schema::extjson::to_string_pretty(
            &Bson::Document(catalog),
            ExtJsonMode::Canonical,
        );
        let path = std::env::temp_dir().join(format!(
            "mongo-schema-examples-{}-{}.json",
            std::process::id(),
            example.name
        ));
        std::fs::write(&path, text).unwrap();
        let (outcome, report) = run(example, &["check", "--catalog", path.to_str().unwrap()]);
        std::fs::remove_file(&path).unwrap();
        assert_eq!(
            outcome,
            Outcome::Clean,
            "{}: applied but not in sync: {report}",
            example.name
        );
    }
}

#[test]
fn the_guide_lists_every_example_and_names_only_files_that_exist() {
    let index = std::fs::read_to_string("../docs/patterns/README.md").unwrap();
    for example in ALL {
        assert!(
            index.contains(&format!("`{}`", example.name)),
            "docs/patterns/README.md does not list {}",
            example.name
        );
    }
    let pages = ["../docs", "../docs/patterns"]
        .into_iter()
        .flat_map(|dir| std::fs::read_dir(dir).unwrap())
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"));
    for path in pages {
        let text = std::fs::read_to_string(&path).unwrap();
        for name in ALL.iter().map(|e| e.name) {
            for mentioned in [
                format!("examples/apps/{name}.rs"),
                format!("examples/live/{name}.json"),
            ] {
                if text.contains(&mentioned) {
                    let local = mentioned.trim_start_matches("examples/");
                    assert!(
                        std::path::Path::new(local).exists(),
                        "{} names {mentioned}, which does not exist",
                        path.display()
                    );
                }
            }
        }
        // Every relative link to another page resolves.
        for link in text.split("](").skip(1) {
            let target = link.split(')').next().unwrap_or_default();
            let target = target.split('#').next().unwrap_or_default();
            if target.ends_with(".md") && !target.contains("://") {
                let resolved = path.parent().unwrap().join(target);
                assert!(
                    resolved.exists(),
                    "{} links to {target}, which does not exist",
                    path.display()
                );
            }
        }
    }
}

/// The catalog examples (`order_views`, `product_search`) are not patterns: each tours the
/// command against the wire-protocol test server, as `cargo run --example NAME` does.
mod catalog_examples {
    use mongo_schema_cli::{Console, Outcome};
    use mongo_schema_examples::apps::{order_views, product_search};
    use mongo_schema_test_support::{BlockingTestServer, Quirks, TestServerOptions};

    fn transcript(outcome: Outcome, console: &Console) -> String {
        format!(
            "exit: {}\n--- stdout\n{}--- stderr\n{}",
            outcome.code(),
            console.stdout_text(),
            console.stderr_text()
        )
    }

    #[test]
    fn both_are_examples_of_the_manifest() {
        let manifest = std::fs::read_to_string("Cargo.toml").unwrap();
        for name in ["order_views", "product_search"] {
            assert!(
                manifest.contains(&format!("name = \"{name}\"\npath = \"{name}.rs\"")),
                "{name} is not a [[example]] of examples/Cargo.toml"
            );
        }
    }

    #[test]
    fn the_views_tour_creates_edits_plans_and_fixes_the_view() {
        let server = BlockingTestServer::start(TestServerOptions::default());
        let mut console = Console::captured("");
        let outcome = order_views::tour(
            &server.uri_with_db("shop"),
            &mut |command| server.execute("shop", command),
            &mut console,
        );
        let text = transcript(outcome, &console);
        assert_eq!(outcome, Outcome::Clean, "{text}");
        // The tour's last check ran on the declared view, stored with doubles.
        let entry = server.collection_entry("shop", "order_summaries").unwrap();
        assert_eq!(entry.get_str("type").unwrap(), "view");
        let collmods = server.commands_named("collMod");
        assert!(
            collmods
                .iter()
                .any(|c| c.body.get_str("collMod").ok() == Some("order_summaries")),
            "apply fixed the hand edit with collMod: {text}"
        );
        insta::assert_snapshot!("order_views__tour", text);
    }

    #[test]
    fn the_search_tour_waits_updates_and_reports_a_deployment_without_search() {
        let server = BlockingTestServer::start(TestServerOptions::default());
        let without_search = BlockingTestServer::start(TestServerOptions {
            quirks: Quirks {
                search_unsupported: true,
                ..Quirks::default()
            },
            ..TestServerOptions::default()
        });
        let mut console = Console::captured("");
        let outcome = product_search::tour(
            &server.uri_with_db("shop"),
            &mut |command| server.execute("shop", command),
            &without_search.uri_with_db("shop"),
            &mut console,
        );
        let text = transcript(outcome, &console);
        assert_eq!(outcome, Outcome::Clean, "{text}");
        let updates: Vec<String> = server
            .write_commands()
            .iter()
            .filter(|c| c.name == "updateSearchIndex")
            .map(|c| c.body.get_str("name").unwrap_or_default().to_owned())
            .collect();
        // The hand edits go around the wire (`execute`): the one update sent is apply's fix.
        assert_eq!(updates, ["embedding_index"], "{text}");
        let listed = server.execute(
            "shop",
            bson::doc! { "aggregate": "products", "pipeline": [{ "$listSearchIndexes": { "name": "embedding_index" } }], "cursor": {} },
        );
        let listed = listed
            .get_document("cursor")
            .unwrap()
            .get_array("firstBatch")
            .unwrap();
        let definition = listed[0]
            .as_document()
            .unwrap()
            .get_document("latestDefinition")
            .unwrap();
        assert!(
            definition.to_string().contains("\"cosine\""),
            "{definition}"
        );
        insta::assert_snapshot!("product_search__tour", text);
    }

    #[test]
    fn with_arguments_each_is_the_command_on_its_collections() {
        for (collections, expected) in [
            (order_views::collections(), "\"viewOn\": \"orders\""),
            (product_search::collections(), "\"searchIndexes\""),
        ] {
            let mut console = Console::captured("");
            let outcome = mongo_schema_cli::run(
                ["mongo-schema", "generate"],
                Some(&collections),
                &mut console,
            );
            let text = transcript(outcome, &console);
            assert_eq!(outcome, Outcome::Clean, "{text}");
            assert!(text.contains(expected), "{text}");
        }
    }
}
