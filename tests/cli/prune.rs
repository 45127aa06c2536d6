//! `plan --prune` / `apply --prune` with evidence: each index a prune would drop shows its
//! `$indexStats` usage, and one that may still be in use is kept unless `--force`.
//! `server_with_example` seeds `articles.author_1` (the unowned index) as unused since 2020.

use mongo_schema_test_support::IndexAccess;

use super::*;

const DAY_MS: i64 = 86_400_000;

fn days_ago(days: i64) -> bson::DateTime {
    bson::DateTime::from_millis(bson::DateTime::now().timestamp_millis() - days * DAY_MS)
}

fn author_index(server: &TestServer) -> Option<Document> {
    server
        .index_specs("shop", "articles")
        .into_iter()
        .find(|i| i.get_str("name").ok() == Some("author_1"))
}

/// A query through the official driver that hints the index: the server counts it as a use.
fn use_author_index(server: &BlockingTestServer) {
    let uri = uri(server);
    server.runtime().block_on(async {
        let client = mongodb::Client::with_uri_str(&uri).await.unwrap();
        let articles = client.database("shop").collection::<Document>("articles");
        let found = articles
            .find(doc! {})
            .hint(mongodb::options::Hint::Name("author_1".into()))
            .await;
        assert!(found.is_ok(), "{found:?}");
    });
}

fn prune_args<'a>(command: &'a str, uri: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![command, "--manifest", MANIFEST, "--uri", uri, "--prune"];
    if command == "apply" {
        args.push("--yes");
    }
    args.extend_from_slice(extra);
    args
}

#[test]
fn an_unused_index_is_dropped_with_its_evidence_shown() {
    let server = server_with_example();
    let uri = uri(&server);
    let (outcome, text) = run_in(&prune_args("plan", &uri, &[]), "", Some(&server));
    assert_eq!(outcome, Outcome::Findings, "{text}");
    assert!(text.contains("articles: drop index author_1"), "{text}");
    assert!(
        text.contains("$indexStats: 0 ops on 127.0.0.1:PORT since 2020-09-13T12:26:40Z"),
        "{text}"
    );
    assert!(
        text.contains("consider hiding it first"),
        "hiding stays the advice: {text}"
    );
    let (outcome, text) = run_in(&prune_args("apply", &uri, &[]), "", Some(&server));
    assert_eq!(outcome, Outcome::Clean, "{text}");
    assert_eq!(server.commands_named("dropIndexes").len(), 1, "{text}");
    assert!(author_index(&server).is_none(), "{text}");
}

#[test]
fn a_used_index_is_kept_without_force_and_dropped_with_it() {
    let server = server_with_example();
    use_author_index(&server);
    let uri = uri(&server);
    let (outcome, text) = run_in(&prune_args("plan", &uri, &[]), "", Some(&server));
    assert_eq!(outcome, Outcome::Findings, "{text}");
    assert!(!text.contains("drop index author_1"), "{text}");
    assert!(
        text.contains("skipped articles: index author_1: kept: 1 operation used it"),
        "{text}"
    );
    assert!(text.contains("hide it first (--prune --hide"), "{text}");
    assert!(text.contains("1 op on 127.0.0.1:PORT since"), "{text}");
    // apply asks the same evidence and keeps the index: the rest converges, drift stays (exit 1).
    let (outcome, text) = run_in(&prune_args("apply", &uri, &[]), "", Some(&server));
    assert_eq!(outcome, Outcome::Findings, "{text}");
    assert!(server.commands_named("dropIndexes").is_empty(), "{text}");
    assert!(author_index(&server).is_some(), "{text}");
    assert!(
        text.contains("kept: articles: index author_1: 1 operation used it"),
        "apply says what it kept and why: {text}"
    );
    let (outcome, text) = run_in(&prune_args("apply", &uri, &["--force"]), "", Some(&server));
    assert_eq!(outcome, Outcome::Clean, "{text}");
    assert_eq!(server.commands_named("dropIndexes").len(), 1, "{text}");
    assert!(author_index(&server).is_none(), "{text}");
}

#[test]
fn counters_younger_than_unused_for_keep_the_index() {
    let server = server_with_example();
    let access = |days| IndexAccess {
        host: None,
        shard: None,
        ops: 0,
        since: days_ago(days),
    };
    server.seed_index_usage("shop", "articles", "author_1", vec![access(3)]);
    let uri = uri(&server);
    let (_, text) = run_in(&prune_args("plan", &uri, &[]), "", Some(&server));
    assert!(
        text.contains("kept: 0 operations, but counted only since"),
        "{text}"
    );
    assert!(text.contains("(3 days ago"), "{text}");
    assert!(text.contains("less than --unused-for 14d"), "{text}");
    let (_, text) = run_in(
        &prune_args("plan", &uri, &["--unused-for", "2d"]),
        "",
        Some(&server),
    );
    assert!(text.contains("articles: drop index author_1"), "{text}");
    let (outcome, text) = run_in(
        &prune_args("apply", &uri, &["--unused-for", "72h"]),
        "",
        Some(&server),
    );
    assert_eq!(outcome, Outcome::Clean, "{text}");
    assert!(author_index(&server).is_none(), "{text}");
}

#[test]
fn every_host_the_stage_reports_counts() {
    let server = server_with_example();
    let host = |name: &str, shard: &str, ops| IndexAccess {
        host: Some(name.to_owned()),
        shard: Some(shard.to_owned()),
        ops,
        since: days_ago(40),
    };
    server.seed_index_usage(
        "shop",
        "articles",
        "author_1",
        vec![
            host("a.example:27018", "shard-a", 0),
            host("b.example:27018", "shard-b", 5),
        ],
    );
    let (outcome, text) = run_in(&prune_args("plan", &uri(&server), &[]), "", Some(&server));
    assert_eq!(outcome, Outcome::Findings, "{text}");
    assert!(text.contains("kept: 5 operations used it"), "{text}");
    assert!(
        text.contains("0 ops on a.example:27018 (shard shard-a) since")
            && text.contains("5 ops on b.example:27018 (shard shard-b) since"),
        "{text}"
    );
    // An index no host reports has no evidence at all.
    server.seed_index_usage("shop", "articles", "author_1", vec![]);
    let (_, text) = run_in(&prune_args("plan", &uri(&server), &[]), "", Some(&server));
    assert!(
        text.contains("kept: no usage evidence ($indexStats reports it on no host)"),
        "{text}"
    );
}

#[test]
fn hiding_shows_the_usage_and_is_never_refused() {
    let server = server_with_example();
    use_author_index(&server);
    let (outcome, text) = run_in(
        &prune_args("apply", &uri(&server), &["--hide"]),
        "",
        Some(&server),
    );
    assert_eq!(outcome, Outcome::Clean, "{text}");
    assert!(text.contains("hide index author_1"), "{text}");
    let hidden = author_index(&server).expect("hidden, not dropped");
    assert_eq!(hidden.get_bool("hidden").ok(), Some(true));
    let (_, text) = run_in(
        &prune_args("plan", &uri(&server), &["--hide"]),
        "",
        Some(&server),
    );
    assert!(!text.contains("kept:"), "{text}");
    // The collMod that hid it restarted its counters: 0 ops, but only since just now, so the
    // drop waits for --unused-for of silence.
    let (_, text) = run_in(&prune_args("plan", &uri(&server), &[]), "", Some(&server));
    assert!(
        text.contains("kept: 0 operations, but counted only since"),
        "{text}"
    );
    assert!(text.contains("(less than a day ago"), "{text}");
}

#[test]
fn index_stats_refused_keeps_the_index() {
    let server = server_with_example();
    // Source: the manual's `$indexStats` page: it needs the `indexStats` action
    // (clusterMonitor); a user without it is refused with Unauthorized (13).
    server.inject(
        Failure::on("aggregate")
            .matching(doc! {"aggregate": "articles"})
            .always()
            .error(13, "not authorized on shop to execute command"),
    );
    let (outcome, text) = run_in(&prune_args("apply", &uri(&server), &[]), "", Some(&server));
    assert_eq!(outcome, Outcome::Findings, "{text}");
    assert!(server.commands_named("dropIndexes").is_empty(), "{text}");
    let (_, text) = run_in(&prune_args("plan", &uri(&server), &[]), "", Some(&server));
    assert!(
        text.contains(
            "kept: no usage evidence ($indexStats could not be read: $indexStats on articles failed"
        ),
        "{text}"
    );
    assert!(text.contains("not authorized"), "{text}");
}

#[test]
fn usage_flags_are_checked_by_their_parsers() {
    let server = server_with_example();
    let uri = uri(&server);
    for (flag, value, message) in [
        ("--unused-for", "14", "give a unit, e.g. 14d for days"),
        ("--unused-for", "400d", "at most 365d"),
        (
            "--unused-for",
            "99999999999999999999999999w",
            "at most 365d",
        ),
        ("--unused-for", "10s", "at least 1m"),
    ] {
        let (outcome, text) = run_in(&prune_args("plan", &uri, &[flag, value]), "", Some(&server));
        assert_eq!(outcome, Outcome::Failed, "{value}: {text}");
        assert!(text.contains(message), "{value}: {text}");
    }
    let (outcome, text) = run_in(
        &["plan", "--manifest", MANIFEST, "--uri", &uri, "--force"],
        "",
        Some(&server),
    );
    assert_eq!(outcome, Outcome::Failed, "--force needs --prune: {text}");
    assert!(server.write_commands().is_empty());
}

/// The JSON plan carries the evidence as fields: a CI job reads the verdict, the decision and
/// each host's counters without parsing the text.
#[test]
fn the_json_plan_carries_the_evidence_as_fields() {
    let server = server_with_example();
    use_author_index(&server);
    let uri = uri(&server);
    let (_, text) = run_in(
        &prune_args("plan", &uri, &["--format", "json"]),
        "",
        Some(&server),
    );
    let stdout = stdout_of(&text);
    let plan: serde_json::Value = serde_json::from_str(stdout).expect("a JSON plan");
    let kept = plan["skipped"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|s| s["aspect"] == "index author_1")
        .unwrap_or_else(|| panic!("the kept drop is under skipped: {stdout}"));
    let evidence = &kept["evidence"];
    assert_eq!(evidence["source"], "$indexStats", "{stdout}");
    assert_eq!(evidence["verdict"], "used", "{stdout}");
    assert_eq!(evidence["decision"], "kept", "{stdout}");
    assert_eq!(evidence["ops"], 1, "{stdout}");
    assert_eq!(evidence["unusedFor"], "14d", "{stdout}");
    let hosts = evidence["hosts"].as_array().expect("hosts");
    assert_eq!(hosts.len(), 1, "{stdout}");
    assert_eq!(hosts[0]["ops"], 1, "{stdout}");
    assert!(hosts[0]["since"].is_object(), "a date: {stdout}");

    // Forced, the same evidence stays on the drop step, with the decision it led to.
    let (_, text) = run_in(
        &prune_args("plan", &uri, &["--format", "json", "--force"]),
        "",
        Some(&server),
    );
    let stdout = stdout_of(&text);
    let plan: serde_json::Value = serde_json::from_str(stdout).expect("a JSON plan");
    let drop = plan["steps"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|s| s["command"]["dropIndexes"] == "articles")
        .unwrap_or_else(|| panic!("the forced drop is a step: {stdout}"));
    assert_eq!(drop["evidence"]["decision"], "forced", "{stdout}");
    assert_eq!(drop["evidence"]["verdict"], "used", "{stdout}");
}

/// The standard output of a captured run.
fn stdout_of(text: &str) -> &str {
    text.split("--- stdout\n")
        .nth(1)
        .and_then(|t| t.split("--- stderr").next())
        .unwrap_or(text)
}

/// On a replica set each member counts only its own operations: a secondary that served reads
/// through the index keeps it, although the primary the command talks to shows 0 operations.
/// Each member is read over a direct connection of its own.
#[test]
fn every_member_of_a_replica_set_is_read() {
    let primary = server_with_example();
    let secondary = server_with_example();
    let hosts = vec![
        primary.address().to_string(),
        secondary.address().to_string(),
    ];
    for server in [&primary, &secondary] {
        server.set_quirks(mongo_schema_test_support::Quirks {
            replica_set: Some("rs0".to_owned()),
            replica_set_hosts: hosts.clone(),
            ..Default::default()
        });
    }
    let on = |ops| {
        vec![IndexAccess {
            host: None,
            shard: None,
            ops,
            since: days_ago(40),
        }]
    };
    primary.seed_index_usage("shop", "articles", "author_1", on(0));
    secondary.seed_index_usage("shop", "articles", "author_1", on(3));
    let (outcome, text) = run_in(&prune_args("plan", &uri(&primary), &[]), "", Some(&primary));
    let text = text.replace(&hosts[1], "SECONDARY");
    assert_eq!(outcome, Outcome::Findings, "{text}");
    assert!(!text.contains("drop index author_1"), "{text}");
    assert!(text.contains("kept: 3 operations used it"), "{text}");
    assert!(
        text.contains("0 ops on 127.0.0.1:PORT since") && text.contains("3 ops on SECONDARY since"),
        "both members are named: {text}"
    );
    assert_eq!(
        secondary.aggregates_starting_with("$indexStats").len(),
        1,
        "the secondary is asked directly"
    );

    // A member that cannot be read leaves the evidence unknown: the index is kept.
    secondary
        .inject(mongo_schema_test_support::Failure::on("aggregate").error(13, "not authorized"));
    let (_, text) = run_in(&prune_args("plan", &uri(&primary), &[]), "", Some(&primary));
    let text = text.replace(&hosts[1], "SECONDARY");
    assert!(!text.contains("drop index author_1"), "{text}");
    assert!(
        text.contains("member SECONDARY could not be read"),
        "{text}"
    );
}
