//! `validate` wiring and exit codes (the module's own tests pin its output).

use super::*;

#[test]
fn validate_is_wired_with_the_documented_exit_codes() {
    let dir = std::env::temp_dir().join(format!("mongo-schema-cli-val-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let schema = dir.join("schema.json");
    std::fs::write(
        &schema,
        r#"{"$jsonSchema": {"bsonType": "object", "required": ["status"],
            "properties": {"status": {"enum": ["PAID", "SHIPPED"]}}}}"#,
    )
    .unwrap();
    let good = dir.join("good.jsonl");
    std::fs::write(&good, "{\"_id\": 1, \"status\": \"PAID\"}\n").unwrap();
    let bad = dir.join("bad.jsonl");
    std::fs::write(
        &bad,
        "{\"_id\": 1, \"status\": \"PAID\"}\n{\"_id\": 2, \"status\": \"LOST\"}\n",
    )
    .unwrap();
    let schema = schema.to_str().unwrap();
    let (outcome, _) = run(&["validate", "--schema", schema, good.to_str().unwrap()]);
    assert_eq!(outcome, Outcome::Clean);
    let (outcome, _) = run(&["validate", "--schema", schema, bad.to_str().unwrap()]);
    assert_eq!(outcome, Outcome::Findings);
    let (outcome, text) = run(&[
        "validate",
        "--schema",
        "missing.json",
        good.to_str().unwrap(),
    ]);
    assert_eq!(outcome, Outcome::Failed);
    assert!(text.contains("missing.json"), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}
