//! `check`: the example against the shipped snapshot, through the driver, bad catalog files.

use super::*;

/// The README's main job: the example declarations against the shipped snapshot, no server.
#[test]
fn check_example_against_shipped_snapshot_in_every_format() {
    for format in ["text", "json", "github"] {
        let (outcome, text) = run(&[
            "check",
            "--manifest",
            MANIFEST,
            "--catalog",
            LIVE,
            "--format",
            format,
        ]);
        // Drift: a missing index, a TTL changed in place, a validator difference, an extra index.
        assert_eq!(outcome, Outcome::Findings, "{text}");
        insta::assert_snapshot!(format!("check_{format}"), text);
    }
}

#[test]
fn check_through_the_driver_reads_the_same_as_the_snapshot_and_never_writes() {
    let server = server_with_example();
    let (outcome, through_driver) = run_in(
        &["check", "--manifest", MANIFEST, "--uri", &uri(&server)],
        "",
        Some(&server),
    );
    assert_eq!(outcome, Outcome::Findings);
    let (_, from_file) = run(&["check", "--manifest", MANIFEST, "--catalog", LIVE]);
    assert_eq!(through_driver, from_file);
    assert_eq!(server.write_commands(), vec![]);
}

#[test]
fn bad_catalog_files_exit_2_with_the_location() {
    let dir = std::env::temp_dir().join(format!("mongo-schema-cli-cat-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases = [
        (
            "not_json",
            "{\"collections\": [\n  {\"name\": \"orders\"\n]}",
        ),
        ("no_indexes", r#"{"collections": [{"name": "orders"}]}"#),
        (
            "bad_entry",
            r#"{"collections": [{"name": "orders"}, {"name": 5}], "indexes": {}}"#,
        ),
        (
            "bad_number",
            r#"{"collections": [{"name": "orders", "options": {"max": {"$numberInt": "x"}}}], "indexes": {}}"#,
        ),
    ];
    for (name, content) in cases {
        let (outcome, text) = check_catalog_text(&dir, &format!("{name}.json"), content);
        assert_eq!(outcome, Outcome::Failed, "{text}");
        let text = text.replace(dir.to_str().unwrap(), "DIR");
        insta::assert_snapshot!(format!("check_bad_catalog_{name}"), text);
    }
    let (outcome, text) = run(&[
        "check",
        "--manifest",
        MANIFEST,
        "--catalog",
        "does-not-exist.json",
    ]);
    assert_eq!(outcome, Outcome::Failed);
    assert!(
        text.contains("cannot read catalog file does-not-exist.json"),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn list_indexes_calls_run_concurrently_within_the_bound() {
    let server = BlockingTestServer::start(TestServerOptions::default());
    let mut manifest = String::from(r#"{"collections": ["#);
    for i in 0..24 {
        server.seed_collection(
            "shop",
            doc! {"name": format!("c{i:02}"), "type": "collection", "options": {}},
        );
        server.seed_index(
            "shop",
            &format!("c{i:02}"),
            doc! {"v": 2, "key": {"_id": 1}, "name": "_id_"},
        );
        if i > 0 {
            manifest.push(',');
        }
        manifest.push_str(&format!(
            r#"{{"name": "c{i:02}", "options": {{}}, "indexes": []}}"#
        ));
    }
    manifest.push_str("]}");
    server.inject(
        Failure::on("listIndexes")
            .always()
            .stall(std::time::Duration::from_millis(100)),
    );
    let dir = std::env::temp_dir().join(format!("mongo-schema-cli-conc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("manifest.json");
    std::fs::write(&file, manifest).unwrap();
    for bound in ["1", "4"] {
        server.clear_commands();
        let (outcome, text) = run_in(
            &[
                "check",
                "--manifest",
                file.to_str().unwrap(),
                "--uri",
                &uri(&server),
                "--concurrency",
                bound,
            ],
            "",
            Some(&server),
        );
        assert_eq!(outcome, Outcome::Clean, "{text}");
        let peak = server.peak_in_flight("listIndexes");
        assert!(peak <= bound.parse().unwrap(), "bound {bound}, peak {peak}");
        if bound != "1" {
            assert!(peak > 1, "listIndexes calls did not overlap: peak {peak}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
