//! `plan`: every format, through the driver.

use super::*;

#[test]
fn plan_in_every_format() {
    for format in ["text", "json", "mongosh"] {
        let (outcome, text) = run(&[
            "plan",
            "--manifest",
            MANIFEST,
            "--catalog",
            LIVE,
            "--format",
            format,
        ]);
        assert_eq!(outcome, Outcome::Findings);
        insta::assert_snapshot!(format!("plan_{format}"), text);
    }
    let (_, text) = run(&["plan", "--manifest", MANIFEST, "--catalog", LIVE, "--prune"]);
    insta::assert_snapshot!("plan_prune", text);
    let (_, text) = run(&[
        "plan",
        "--manifest",
        MANIFEST,
        "--catalog",
        LIVE,
        "--prune",
        "--hide",
    ]);
    insta::assert_snapshot!("plan_prune_hide", text);
    let (outcome, text) = run(&["plan", "--manifest", MANIFEST, "--catalog", LIVE, "--hide"]);
    assert_eq!(outcome, Outcome::Failed, "--hide needs --prune: {text}");
}

#[test]
fn plan_through_the_driver_shows_document_counts_and_never_writes() {
    let server = server_with_example();
    seed_orders(&server);
    let (outcome, text) = run_in(
        &["plan", "--manifest", MANIFEST, "--uri", &uri(&server)],
        "",
        Some(&server),
    );
    assert_eq!(outcome, Outcome::Findings);
    insta::assert_snapshot!("plan_driver", text);
    assert_eq!(server.write_commands(), vec![]);
}
