//! The examples' declared queries (`query(...)` on the derived roots, `QueryRegistration` beside
//! the hand-written `Collection` impls) are each served by one of the example's indexes: `lint`
//! passes on every example, and removing the index that serves a query makes it fail (exit 1)
//! with the index to add. Several examples declare a collection of the same name (`users`,
//! `orders`, `products`, `reviews`): each example's lint checks its own queries only.

use mongo_schema::spec::CollectionSpec;
use mongo_schema_cli::{Console, Outcome};
use mongo_schema_examples::{ALL, Example, apps};

/// Runs `lint` on `specs` as `example`'s binary does; returns the outcome and stdout.
fn lint(specs: &[CollectionSpec], args: &[&str]) -> (Outcome, String) {
    let mut console = Console::captured("");
    let mut argv = vec!["example", "lint"];
    argv.extend_from_slice(args);
    let outcome = mongo_schema_cli::run(argv, Some(specs), &mut console);
    let text = format!("{}{}", console.stdout_text(), console.stderr_text());
    (outcome, text)
}

/// `example`'s collections with the index named `index` of `collection` removed.
fn without_index(example: &Example, collection: &str, index: &str) -> Vec<CollectionSpec> {
    let mut specs = (example.collections)();
    let spec = specs
        .iter_mut()
        .find(|s| s.name == collection)
        .unwrap_or_else(|| panic!("{} declares {collection}", example.name));
    let before = spec.indexes.len();
    spec.indexes
        .retain(|i| i.name.clone().unwrap_or_else(|| i.default_name()) != index);
    assert_eq!(
        spec.indexes.len() + 1,
        before,
        "{collection} has an index {index}"
    );
    specs
}

#[test]
fn lint_passes_on_every_example() {
    for example in ALL {
        let (outcome, text) = lint(&(example.collections)(), &[]);
        assert_eq!(outcome, Outcome::Clean, "{}: {text}", example.name);
    }
}

/// (example, collection, the index serving the query, the query, the index lint suggests).
const SERVED: &[(&Example, &str, &str, &str, &str)] = &[
    (
        &apps::extended_reference::EXAMPLE,
        "orders",
        "user_id_1_status_1_created_at_-1",
        "my_orders",
        r#"{ "user_id": 1, "status": 1, "created_at": -1 }"#,
    ),
    (
        &apps::validated_users::EXAMPLE,
        "users",
        "email_1",
        "sign_in",
        r#"{ "email": 1 }"#,
    ),
    (
        &apps::subset::EXAMPLE,
        "reviews",
        "product_id_1_created_at_-1",
        "all_reviews",
        r#"{ "product_id": 1, "created_at": -1 }"#,
    ),
    (
        &apps::bucket::EXAMPLE,
        "sensor_data",
        "sensor_id_1_date_1",
        "sensor_hour",
        r#"{ "sensor_id": 1, "date": 1 }"#,
    ),
    (
        &apps::bucket::EXAMPLE,
        "sensor_buckets",
        "sensorId_1_start_1",
        "sensor_range",
        r#"{ "sensorId": 1, "start": 1 }"#,
    ),
    (
        &apps::computed::EXAMPLE,
        "products",
        "average_rating_-1",
        "top_rated",
        r#"{ "average_rating": -1 }"#,
    ),
    (
        &apps::polymorphic::EXAMPLE,
        "catalog",
        "title_1",
        "by_title",
        r#"{ "title": 1 }"#,
    ),
    (
        &apps::unbounded_array::EXAMPLE,
        "likes",
        "post_id_1",
        "post_likes",
        r#"{ "post_id": 1 }"#,
    ),
    (
        &apps::outlier::EXAMPLE,
        "overflow",
        "post_id_1",
        "post_overflow",
        r#"{ "post_id": 1 }"#,
    ),
];

#[test]
fn removing_the_index_that_serves_a_query_fails_lint_with_the_index_to_add() {
    for (example, collection, index, query, suggested) in SERVED {
        let (outcome, text) = lint(&without_index(example, collection, index), &[]);
        assert_eq!(outcome, Outcome::Findings, "{}: {text}", example.name);
        assert_eq!(outcome.code(), 1);
        let errors: Vec<&str> = text.lines().filter(|l| l.contains("error[")).collect();
        assert_eq!(errors.len(), 1, "one query, this example's: {text}");
        assert!(errors[0].contains(&format!("query \"{query}\"")), "{text}");
        assert!(
            errors[0].contains(&format!("add the index {suggested}")),
            "{}: {text}",
            example.name
        );
    }
}

/// The declared queries a lint transcript names (`query "<name>"`), sorted, unique.
fn queries_named(text: &str) -> Vec<String> {
    let mut names: Vec<String> = text
        .split("query \"")
        .skip(1)
        .filter_map(|rest| rest.split_once('"').map(|(name, _)| name.to_owned()))
        .collect();
    names.sort();
    names.dedup();
    names
}

#[test]
fn a_query_is_checked_only_against_the_example_that_declares_it() {
    // `users` is declared by five examples, three of them with a query on it. With every
    // index of `users` removed, each example's lint names its own query and no other.
    let owners = [
        (&apps::embedding::EXAMPLE, "profile"),
        (&apps::schema_versioning::EXAMPLE, "by_id"),
        (&apps::validated_users::EXAMPLE, "sign_in"),
    ];
    for (example, own) in owners {
        let mut specs = (example.collections)();
        for spec in &mut specs {
            if spec.name == "users" {
                spec.indexes.clear();
            }
        }
        let (_, text) = lint(&specs, &[]);
        let named = queries_named(&text);
        assert!(named.contains(&own.to_owned()), "{}: {text}", example.name);
        for (other, theirs) in owners {
            if other.name != example.name {
                assert!(
                    !named.contains(&theirs.to_owned()),
                    "{}: {text}",
                    example.name
                );
            }
        }
    }
}

#[test]
fn without_its_compound_index_the_timeline_sorts_in_memory() {
    // The hashed shard-key index still finds the user's events, but not in `at` order.
    let specs = without_index(&apps::sharding::EXAMPLE, "events", "user_id_1_at_-1");
    let (outcome, text) = lint(&specs, &[]);
    assert_eq!(outcome, Outcome::Clean, "{text}");
    assert!(text.contains("warning[in-memory-sort]"), "{text}");
    assert!(text.contains(r#"query "user_timeline""#), "{text}");
    assert!(
        text.contains(r#"add the index { "user_id": 1, "at": -1 }"#),
        "{text}"
    );
}
