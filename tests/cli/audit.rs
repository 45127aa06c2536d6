//! `audit`: counts, explanations, versions and the time limit.

use super::*;

#[test]
fn audit_counts_and_explains_rejected_documents_in_every_format() {
    let server = server_with_example();
    seed_orders(&server);
    for format in ["text", "json", "github"] {
        server.clear_commands();
        let (outcome, text) = run_in(
            &[
                "audit",
                "--manifest",
                MANIFEST,
                "--uri",
                &uri(&server),
                "--format",
                format,
            ],
            "",
            Some(&server),
        );
        assert_eq!(outcome, Outcome::Findings, "{text}");
        insta::assert_snapshot!(format!("audit_{format}"), text);
        assert_eq!(server.write_commands(), vec![], "audit must not write");
    }
}

#[test]
fn audit_by_version_counts_each_version() {
    let server = server_with_example();
    seed_orders(&server);
    let (outcome, text) = run_in(
        &[
            "audit",
            "--manifest",
            MANIFEST,
            "--uri",
            &uri(&server),
            "--by-version",
            "status",
            "--sample",
            "0",
        ],
        "",
        Some(&server),
    );
    assert_eq!(outcome, Outcome::Findings, "{text}");
    insta::assert_snapshot!("audit_by_version", text);
}

#[test]
fn an_audit_over_its_time_limit_exits_2_naming_the_limit() {
    let server = server_with_example();
    seed_orders(&server);
    server.inject(
        Failure::on("count")
            .nth(2)
            .error(50, "operation exceeded time limit"),
    );
    let (outcome, text) = run_in(
        &[
            "audit",
            "--manifest",
            MANIFEST,
            "--uri",
            &uri(&server),
            "--max-time",
            "2s",
        ],
        "",
        Some(&server),
    );
    assert_eq!(outcome, Outcome::Failed);
    insta::assert_snapshot!("audit_time_limit", text);
    let sent: Vec<i64> = server
        .commands_named("count")
        .iter()
        .map(|c| c.body.get("maxTimeMS").and_then(Bson::as_i64).unwrap_or(-1))
        .collect();
    assert!(sent.iter().all(|ms| *ms == 2000), "{sent:?}");
}
