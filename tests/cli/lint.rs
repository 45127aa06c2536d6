//! `lint`: every format, exit codes, index and shard-key rules.

use super::*;

#[test]
fn lint_in_every_format() {
    for format in ["text", "json", "github"] {
        let (outcome, text) = run(&["lint", "--manifest", MANIFEST, "--format", format]);
        // Warnings and notes only: no declared document can pass 16 MiB with a bound.
        assert_eq!(outcome, Outcome::Clean);
        insta::assert_snapshot!(format!("lint_{format}"), text);
    }
}

#[test]
fn lint_errors_exit_1_and_refused_declarations_exit_2() {
    let dir = std::env::temp_dir().join(format!("mongo-schema-cli-lint-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // 50 notes of up to 100,000 code points: 4 bytes each in the worst case, 20 MB in all.
    let huge = dir.join("huge.json");
    std::fs::write(
        &huge,
        r#"{"collections": [{"name": "notes", "options": {"validator": {"$jsonSchema": {
            "bsonType": "object", "required": ["notes"], "properties": {
            "notes": {"bsonType": "array", "maxItems": 50,
                      "items": {"bsonType": "string", "maxLength": 100000}}}}}}}]}"#,
    )
    .unwrap();
    let (outcome, text) = run(&["lint", "--manifest", huge.to_str().unwrap()]);
    assert_eq!(outcome, Outcome::Findings, "{text}");
    insta::assert_snapshot!("lint_error", text);

    // The server refuses a TTL on a compound index: the manifest is refused before any check.
    let refused = dir.join("refused.json");
    std::fs::write(
        &refused,
        r#"{"collections": [{"name": "sessions", "options": {}, "indexes": [
            {"key": {"user_id": 1, "created_at": 1}, "expireAfterSeconds": 60}]}]}"#,
    )
    .unwrap();
    let (outcome, text) = run(&[
        "check",
        "--manifest",
        refused.to_str().unwrap(),
        "--catalog",
        LIVE,
    ]);
    assert_eq!(outcome, Outcome::Failed, "{text}");
    let text = text.replace(dir.to_str().unwrap(), "DIR");
    insta::assert_snapshot!("refused_manifest", text);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn lint_reports_index_and_shard_key_rules_and_honours_allow_unbounded() {
    let dir = std::env::temp_dir().join(format!("mongo-schema-cli-lint2-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let manifest = dir.join("events.json");
    std::fs::write(
        &manifest,
        r#"{"collections": [{"name": "events", "options": {"validator": {"$jsonSchema": {
            "bsonType": "object", "required": ["kind", "created_at"], "properties": {
            "kind": {"enum": ["click", "view"]}, "created_at": {"bsonType": "date"},
            "tags": {"bsonType": "array", "items": {"bsonType": "string", "maxLength": 20}}}}}},
          "indexes": [{"key": {"kind": 1}, "name": "kind_1"}],
          "shardKey": {"key": {"created_at": 1}}}]}"#,
    )
    .unwrap();
    let path = manifest.to_str().unwrap();
    let (outcome, text) = run(&["lint", "--manifest", path]);
    assert_eq!(outcome, Outcome::Clean, "warnings only: {text}");
    let text = text.replace(dir.to_str().unwrap(), "DIR");
    insta::assert_snapshot!("lint_rules", text);
    let (_, text) = run(&["lint", "--manifest", path, "--allow-unbounded", "tags"]);
    assert!(!text.contains("unbounded-array"), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}
