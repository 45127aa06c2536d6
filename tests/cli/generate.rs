//! `generate`: the manifest and the mongosh script, round trips, `--check`, bad manifests.

use super::*;

#[test]
fn generate_prints_the_manifest() {
    let (outcome, text) = run(&["generate", "--manifest", MANIFEST]);
    assert_eq!(outcome, Outcome::Clean);
    insta::assert_snapshot!("generate_json", text);
}

#[test]
fn generate_prints_a_mongosh_script() {
    let (outcome, text) = run(&["generate", "--manifest", MANIFEST, "--format", "mongosh"]);
    assert_eq!(outcome, Outcome::Clean);
    insta::assert_snapshot!("generate_mongosh", text);
}

#[test]
fn generate_round_trips_its_own_manifest() {
    let dir = std::env::temp_dir().join(format!("mongo-schema-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("manifest.json");
    let out = out.to_str().unwrap();
    let (outcome, text) = run(&["generate", "--manifest", MANIFEST, "--out", out]);
    assert_eq!(outcome, Outcome::Clean, "{text}");
    let (_, first) = run(&["generate", "--manifest", MANIFEST]);
    let (_, second) = run(&["generate", "--manifest", out]);
    assert_eq!(first, second);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn generate_without_declarations_exits_2() {
    let (outcome, text) = run(&["generate"]);
    assert_eq!(outcome, Outcome::Failed);
    insta::assert_snapshot!("generate_without_declarations", text);
}

#[test]
fn bad_manifest_names_line_and_column_or_path() {
    let dir = std::env::temp_dir().join(format!("mongo-schema-cli-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let not_json = dir.join("not-json.json");
    std::fs::write(
        &not_json,
        "{\"collections\": [\n  {\"name\": \"orders\",}\n]}",
    )
    .unwrap();
    let wrong_shape = dir.join("wrong-shape.json");
    std::fs::write(
        &wrong_shape,
        r#"{"collections": [{"name": "orders", "indexes": {"a": 1}}]}"#,
    )
    .unwrap();
    for (name, path) in [("not_json", &not_json), ("wrong_shape", &wrong_shape)] {
        let (outcome, text) = run(&["generate", "--manifest", path.to_str().unwrap()]);
        assert_eq!(outcome, Outcome::Failed);
        let text = text.replace(dir.to_str().unwrap(), "DIR");
        insta::assert_snapshot!(format!("bad_manifest_{name}"), text);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 16 item 12: `generate --check FILE` passes on the file `generate` wrote, fails with a
/// diff on a stale one, and exits 2 on one it cannot read.
#[test]
fn generate_check_compares_with_the_committed_file() {
    let dir = std::env::temp_dir().join(format!("generate-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let committed = dir.join("manifest.json");
    let path = committed.to_str().unwrap();
    let (outcome, text) = run(&["generate", "--manifest", MANIFEST, "--out", path]);
    assert_eq!(outcome, Outcome::Clean, "{text}");
    let (outcome, text) = run(&["generate", "--manifest", MANIFEST, "--check", path]);
    assert_eq!(outcome, Outcome::Clean, "{text}");
    assert!(text.contains("is up to date"), "{text}");

    let fresh = std::fs::read_to_string(&committed).unwrap();
    std::fs::write(
        &committed,
        fresh.replace("\"unique\": true", "\"unique\": false"),
    )
    .unwrap();
    let (outcome, text) = run(&["generate", "--manifest", MANIFEST, "--check", path]);
    assert_eq!(outcome, Outcome::Findings, "{text}");
    let removed = text
        .lines()
        .any(|l| l.starts_with('-') && l.contains("\"unique\": false"));
    let added = text
        .lines()
        .any(|l| l.starts_with('+') && l.contains("\"unique\": true"));
    assert!(removed && added, "{text}");
    assert!(text.contains("+++ generated"), "{text}");
    assert!(text.contains("is stale: regenerate it with"), "{text}");

    let missing = dir.join("missing.json");
    let (outcome, text) = run(&[
        "generate",
        "--manifest",
        MANIFEST,
        "--check",
        missing.to_str().unwrap(),
    ]);
    assert_eq!(outcome, Outcome::Failed, "{text}");
    assert!(text.contains("cannot read"), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}
