//! `snapshot` through the driver: the server catalog verbatim, no write.

use super::*;

#[test]
fn snapshot_reproduces_the_server_catalog_verbatim_and_sends_no_write() {
    let server = server_with_example();
    let (outcome, text) = run_in(&["snapshot", "--uri", &uri(&server)], "", Some(&server));
    assert_eq!(outcome, Outcome::Clean, "{text}");
    let printed = text
        .split("--- stdout\n")
        .nth(1)
        .and_then(|rest| rest.split("--- stderr\n").next())
        .unwrap();
    let written = Catalog::from_extjson(printed).unwrap();
    let shipped = Catalog::from_file(std::path::Path::new(LIVE)).unwrap();
    assert_eq!(written, shipped);
    // Canonical Extended JSON keeps the stored numeric types: the legacy shell's doubles stay doubles.
    assert!(
        printed.contains(r#""maxLength": {"$numberDouble":"200.0"}"#)
            || printed.contains(r#""$numberDouble": "200.0""#),
        "{printed}"
    );
    assert_eq!(server.write_commands(), vec![]);
    let names = server
        .commands()
        .into_iter()
        .filter(|c| !c.is_monitoring())
        .map(|c| c.name)
        .collect::<Vec<_>>();
    assert_eq!(names[0], "listCollections");
    assert_eq!(names.iter().filter(|n| *n == "listIndexes").count(), 3);
}

#[test]
fn snapshot_to_a_file_reports_counts_on_stderr() {
    let server = server_with_example();
    let dir = std::env::temp_dir().join(format!("mongo-schema-cli-snap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("live.json");
    let (outcome, text) = run_in(
        &[
            "snapshot",
            "--uri",
            &uri(&server),
            "--out",
            out.to_str().unwrap(),
        ],
        "",
        Some(&server),
    );
    assert_eq!(outcome, Outcome::Clean);
    let text = text.replace(dir.to_str().unwrap(), "DIR");
    insta::assert_snapshot!("snapshot_to_file", text);
    let written = Catalog::from_file(&out).unwrap();
    assert_eq!(written.collections.len(), 3);
    std::fs::remove_dir_all(&dir).unwrap();
}
