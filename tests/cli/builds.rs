//! Index builds with their cost: the data size beside each build (`$collStats`),
//! `--commit-quorum` carried to `createIndexes`, and the build's progress from `currentOp`.

use std::time::Duration;

use mongo_schema_test_support::Quirks;

use super::*;

fn as_replica_set(server: &TestServer) {
    server.set_quirks(Quirks {
        replica_set: Some("rs0".to_owned()),
        ..Quirks::default()
    });
}

#[test]
fn plan_shows_each_builds_documents_and_data_size() {
    let server = server_with_example();
    seed_orders(&server);
    let (_, text) = run_in(
        &["plan", "--manifest", MANIFEST, "--uri", &uri(&server)],
        "",
        Some(&server),
    );
    // Four seeded orders of 229 bytes each, as `$collStats` storageStats reports them.
    assert!(
        text.contains("build index user_id_1_status_1_created_at_-1 (data 916 B, avg 229 B a document) [~4 documents]"),
        "{text}"
    );
    // One $collStats (the catalog read beside it, `$listSearchIndexes`, is another aggregate).
    let coll_stats: Vec<Bson> = server
        .aggregates_starting_with("$collStats")
        .into_iter()
        .filter_map(|c| c.body.get_array("pipeline").ok()?.first().cloned())
        .collect();
    assert_eq!(
        coll_stats,
        [Bson::Document(doc! {"$collStats": {"storageStats": {}}})],
        "one $collStats: {text}"
    );
}

#[test]
fn plan_falls_back_to_a_count_where_coll_stats_is_refused() {
    let server = server_with_example();
    seed_orders(&server);
    server.inject(
        Failure::on("aggregate")
            .always()
            .error(40324, "Unrecognized pipeline stage name: '$collStats'"),
    );
    let (_, text) = run_in(
        &["plan", "--manifest", MANIFEST, "--uri", &uri(&server)],
        "",
        Some(&server),
    );
    assert!(
        text.contains("build index user_id_1_status_1_created_at_-1 [~4 documents]"),
        "{text}"
    );
    assert_eq!(server.commands_named("count").len(), 1, "{text}");
}

#[test]
fn commit_quorum_reaches_the_server() {
    let server = server_with_example();
    as_replica_set(&server);
    let (outcome, text) = run_in(
        &[
            "apply",
            "--manifest",
            MANIFEST,
            "--uri",
            &uri(&server),
            "--yes",
            "--commit-quorum",
            "majority",
        ],
        "",
        Some(&server),
    );
    assert_eq!(
        outcome,
        Outcome::Findings,
        "author_1 stays without --prune: {text}"
    );
    let builds = server.commands_named("createIndexes");
    assert_eq!(builds.len(), 1, "{text}");
    assert_eq!(
        builds[0].body.get_str("commitQuorum").ok(),
        Some("majority")
    );
    assert!(
        server
            .index_specs("shop", "orders")
            .iter()
            .any(|i| i.get_str("name").ok() == Some("user_id_1_status_1_created_at_-1")),
        "{text}"
    );
    // A number of members travels as a number, and the plan shows it.
    let (_, script) = run(&[
        "plan",
        "--manifest",
        MANIFEST,
        "--catalog",
        LIVE,
        "--format",
        "mongosh",
        "--commit-quorum",
        "2",
    ]);
    assert!(script.contains("commitQuorum: 2"), "{script}");
}

#[test]
fn a_standalone_refuses_commit_quorum_and_apply_says_so() {
    let server = server_with_example();
    let (outcome, text) = run_in(
        &[
            "apply",
            "--manifest",
            MANIFEST,
            "--uri",
            &uri(&server),
            "--yes",
            "--commit-quorum",
            "votingMembers",
        ],
        "",
        Some(&server),
    );
    assert_eq!(outcome, Outcome::Failed, "{text}");
    assert!(
        text.contains("Standalones can't specify commitQuorum"),
        "{text}"
    );
}

#[test]
fn bad_commit_quorums_are_refused_before_connecting() {
    for (value, message) in [
        ("51", "whole number from 0 to 50"),
        ("-1", "whole number from 0 to 50"),
        ("1.5", "whole number from 0 to 50"),
        ("Majority", "did you mean majority?"),
        ("", "empty commit quorum"),
    ] {
        // `=` so that clap reads `-1` as the value, not as a flag.
        let flag = format!("--commit-quorum={value}");
        let (outcome, text) = run(&["plan", "--manifest", MANIFEST, "--catalog", LIVE, &flag]);
        assert_eq!(outcome, Outcome::Failed, "{value}: {text}");
        assert!(text.contains(message), "{value}: {text}");
    }
}

#[test]
fn the_test_server_parses_commit_quorum_as_the_server_does() {
    let server = server_with_example();
    as_replica_set(&server);
    let build = |quorum: Bson| {
        server.execute(
            "shop",
            doc! {"createIndexes": "orders", "indexes": [{"key": {"q": 1}, "name": "q_1"}], "commitQuorum": quorum},
        )
    };
    for (quorum, code) in [
        (Bson::Int32(51), 9),
        (Bson::Int32(-1), 9),
        (Bson::Document(doc! {}), 9),
        (Bson::String(String::new()), 9),
    ] {
        let reply = build(quorum.clone());
        assert_eq!(reply.get_i32("code").ok(), Some(code), "{quorum}: {reply}");
    }
    for quorum in [
        Bson::Int32(0),
        Bson::from("majority"),
        Bson::from("dc-east"),
    ] {
        let reply = build(quorum.clone());
        assert_eq!(reply.get_f64("ok").ok(), Some(1.0), "{quorum}: {reply}");
    }
}

#[test]
fn apply_off_a_terminal_draws_no_progress_and_reads_no_current_op() {
    let server = server_with_example();
    seed_orders(&server);
    server.set_index_build_delay(Some(Duration::from_millis(700)));
    let (outcome, text) = run_in(
        &[
            "apply",
            "--manifest",
            MANIFEST,
            "--uri",
            &uri(&server),
            "--yes",
        ],
        "",
        Some(&server),
    );
    assert_eq!(outcome, Outcome::Findings, "{text}");
    let stderr = text.split("--- stderr\n").nth(1).unwrap();
    assert_eq!(stderr, "", "{text}");
    assert!(server.commands_named("currentOp").is_empty());
    assert!(
        text.contains("done orders: build index user_id_1_status_1_created_at_-1"),
        "{text}"
    );
}

/// The progress path itself, through the official driver: while a held build runs, `currentOp`
/// reports its progress over the collection's documents; once it is done, nothing.
#[test]
fn build_progress_is_read_from_current_op_while_the_build_runs() {
    let server = server_with_example();
    seed_orders(&server);
    server.set_index_build_delay(Some(Duration::from_millis(1500)));
    let db_uri = uri(&server);
    let (during, after, polled) = server.runtime().block_on(async {
        let client = mongodb::Client::with_uri_str(&db_uri).await.unwrap();
        let db = client.database("shop");
        let building = db.clone();
        let build = tokio::spawn(async move {
            building
                .run_command(
                    doc! {"createIndexes": "orders", "indexes": [{"key": {"p": 1}, "name": "p_1"}]},
                )
                .await
        });
        tokio::time::sleep(Duration::from_millis(400)).await;
        let during = mongo_schema_cli::indexes::progress::poll(&db, "orders").await;
        build.await.unwrap().unwrap();
        let after = mongo_schema_cli::indexes::progress::poll(&db, "orders").await;
        // The bar's own loop, visible: it polls while the build runs (indicatif draws nothing
        // here, stderr not being a terminal).
        let mut step = mongo_schema::diff::Step::new(
            "orders",
            doc! {"createIndexes": "orders", "indexes": [{"key": {"r": 1}, "name": "r_1"}]},
            "build index r_1",
        );
        step.estimated_documents = Some(4);
        mongo_schema_cli::indexes::progress::run_build(&db, &step, true)
            .await
            .unwrap();
        (during, after, ())
    });
    let () = polled;
    let (done, total) = during.expect("currentOp lists the build with its progress");
    assert_eq!(total, 4);
    assert!(done <= total);
    assert_eq!(after, None);
    let polls = server.commands_named("currentOp");
    assert!(polls.len() >= 3, "{polls:?}");
    assert!(polls.iter().all(|p| p.db == "admin"));
    assert_eq!(
        polls[0].body.get_str("command.createIndexes").ok(),
        Some("orders")
    );
}

#[test]
fn current_op_runs_only_on_admin_and_filters_its_output() {
    let server = server_with_example();
    let reply = server.execute("shop", doc! {"currentOp": true});
    assert_eq!(reply.get_i32("code").ok(), Some(13), "{reply}");
    let reply = server.execute("admin", doc! {"currentOp": true, "$all": true});
    assert_eq!(
        reply.get_array("inprog").map(Vec::len).ok(),
        Some(0),
        "{reply}"
    );
}
