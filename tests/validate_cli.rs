//! `mongo-schema validate`: inputs, output shapes, exit codes and malformed input, through the
//! command's own entry point (`cmd::validate::run_to`), as issue 3 item 4 describes it.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use bson::{RawDocumentBuf, doc};
use mongo_schema_cli::args::{InputFormat, ValidateArgs, ValidateFormat};
use mongo_schema_cli::cmd::validate::run_to;

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("validate-cli-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

const SCHEMA: &str = r#"{"$jsonSchema": {
  "bsonType": "object",
  "required": ["name", "items"],
  "properties": {
    "name": {"bsonType": "string", "minLength": 2},
    "items": {"bsonType": "array", "items": {"properties": {"qty": {"bsonType": "int", "minimum": 1}}}}
  }
}}"#;

fn args(
    schema: PathBuf,
    inputs: Vec<PathBuf>,
    format: ValidateFormat,
    threads: usize,
) -> ValidateArgs {
    ValidateArgs {
        schema: Some(schema),
        manifest: None,
        collection: None,
        inputs,
        input_format: InputFormat::Auto,
        format,
        threads: Some(threads),
        examples: 2,
    }
}

/// The exit code (or the error with its context chain) and what went to the output.
fn run(a: &ValidateArgs) -> (Result<ExitCode, String>, String) {
    let mut out = Vec::new();
    let code = run_to(a, &mut out).map_err(|e| format!("{e:#}"));
    (code, String::from_utf8(out).unwrap())
}

fn bson_file(docs: &[bson::Document]) -> Vec<u8> {
    docs.iter()
        .flat_map(|d| RawDocumentBuf::try_from(d).unwrap().as_bytes().to_vec())
        .collect()
}

#[test]
fn jsonl_prints_one_line_per_document_with_server_shaped_errors() {
    let d = dir("jsonl");
    let schema = write(&d, "schema.json", SCHEMA.as_bytes());
    let input = write(
        &d,
        "orders.jsonl",
        b"{\"_id\": 1, \"name\": \"ok\", \"items\": [{\"qty\": 2}]}\n\
          {\"_id\": {\"$oid\": \"507f1f77bcf86cd799439011\"}, \"name\": \"bad\", \"items\": [{\"qty\": 2}, {\"qty\": 0}]}\n",
    );
    let (code, out) = run(&args(schema, vec![input], ValidateFormat::Jsonl, 1));
    assert_eq!(code.unwrap(), ExitCode::from(1));
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(
        lines[0],
        serde_json::json!({"index": 0, "_id": 1, "valid": true})
    );
    assert_eq!(lines[1]["index"], 1);
    assert_eq!(lines[1]["valid"], false);
    assert_eq!(
        lines[1]["_id"],
        serde_json::json!({"$oid": "507f1f77bcf86cd799439011"})
    );
    assert_eq!(lines[1]["errors"][0]["operatorName"], "properties");
    assert_eq!(
        lines[1]["summaries"],
        serde_json::json!(["items.1.qty: 0 is less than the minimum 1"])
    );
}

#[test]
fn summary_ranks_failing_rules_with_example_ids() {
    let d = dir("summary");
    let schema = write(&d, "schema.json", SCHEMA.as_bytes());
    let docs: Vec<bson::Document> = (0..10)
        .map(|i| {
            if i % 3 == 0 {
                doc! { "_id": i, "name": "x", "items": [] }
            } else if i % 3 == 1 {
                doc! { "_id": i, "items": [] }
            } else {
                doc! { "_id": i, "name": "fine", "items": [{ "qty": 3 }] }
            }
        })
        .collect();
    let input = write(&d, "dump.bson", &bson_file(&docs));
    let (code, out) = run(&args(schema, vec![input], ValidateFormat::Summary, 2));
    assert_eq!(code.unwrap(), ExitCode::from(1));
    assert!(
        out.starts_with("documents: 10  valid: 3  invalid: 7"),
        "{out}"
    );
    let minlength = out.find("name (minLength)").expect("minLength rule listed");
    let required = out.find("name (required)").expect("required rule listed");
    assert!(
        minlength < required,
        "4 minLength failures rank above 3 required: {out}"
    );
    assert!(out.contains("e.g. 0, 3"), "{out}");
}

#[test]
fn every_document_valid_exits_zero_and_json_arrays_are_read() {
    let d = dir("zero");
    let schema = write(&d, "schema.json", SCHEMA.as_bytes());
    let input = write(
        &d,
        "docs.json",
        b"[{\"name\": \"ab\", \"items\": []}, {\"name\": \"cd\", \"items\": [{\"qty\": {\"$numberInt\": \"1\"}}]}]",
    );
    let (code, out) = run(&args(schema, vec![input], ValidateFormat::Summary, 2));
    assert_eq!(code.unwrap(), ExitCode::SUCCESS);
    assert!(
        out.starts_with("documents: 2  valid: 2  invalid: 0"),
        "{out}"
    );
}

#[test]
fn threads_keep_input_order() {
    let d = dir("order");
    let schema = write(&d, "schema.json", SCHEMA.as_bytes());
    let docs: Vec<bson::Document> = (0..20_000)
        .map(|i| doc! { "_id": i, "name": if i % 7 == 0 { "x" } else { "ok" }, "items": [] })
        .collect();
    let input = write(&d, "many.bson", &bson_file(&docs));
    let (c1, one) = run(&args(
        schema.clone(),
        vec![input.clone()],
        ValidateFormat::Jsonl,
        1,
    ));
    let (c2, two) = run(&args(schema, vec![input], ValidateFormat::Jsonl, 2));
    assert_eq!(c1.unwrap(), ExitCode::from(1));
    assert_eq!(c2.unwrap(), ExitCode::from(1));
    assert_eq!(one, two);
    assert_eq!(one.lines().count(), 20_000);
}

#[test]
fn truncated_and_corrupt_bson_say_where_they_broke() {
    let d = dir("broken");
    let schema = write(&d, "schema.json", SCHEMA.as_bytes());
    let docs: Vec<bson::Document> = (0..3)
        .map(|i| doc! { "_id": i, "name": "ok", "items": [] })
        .collect();
    let bytes = bson_file(&docs);
    let one = bytes.len() / 3;

    let cut = write(&d, "cut.bson", &bytes[..bytes.len() - 5]);
    let e = run(&args(schema.clone(), vec![cut], ValidateFormat::Summary, 2))
        .0
        .unwrap_err();
    assert!(
        e.contains("cut.bson") && e.contains("truncated") && e.contains("2 documents read before"),
        "{e}"
    );

    let mut corrupt = bytes.clone();
    corrupt[one + 4] = 0x42; // the second document's first element type
    let bad = write(&d, "corrupt.bson", &corrupt);
    let e = run(&args(schema.clone(), vec![bad], ValidateFormat::Summary, 2))
        .0
        .unwrap_err();
    assert!(
        e.contains(&format!("byte {}", one + 4)) && e.contains("1 document read before"),
        "{e}"
    );

    let mut lying = bytes;
    lying[0] = 0xff;
    lying[3] = 0x7f;
    let bad = write(&d, "lying.bson", &lying);
    let e = run(&args(schema, vec![bad], ValidateFormat::Summary, 1))
        .0
        .unwrap_err();
    assert!(e.contains("byte 0") && e.contains("not plausible"), "{e}");
}

#[test]
fn malformed_json_lines_and_rejected_schemas_are_errors() {
    let d = dir("json-errors");
    let schema = write(&d, "schema.json", SCHEMA.as_bytes());
    let input = write(
        &d,
        "x.ndjson",
        b"{\"name\": \"ok\", \"items\": []}\n{\"name\": ]\n",
    );
    let e = run(&args(
        schema,
        vec![input.clone()],
        ValidateFormat::Summary,
        1,
    ))
    .0
    .unwrap_err();
    assert!(
        e.contains("x.ndjson: line 2") && e.contains("1 document read before"),
        "{e}"
    );

    let rejected = write(
        &d,
        "bad-schema.json",
        br#"{"$jsonSchema": {"properties": {"a": {"type": "integer"}}}}"#,
    );
    let e = run(&args(rejected, vec![input], ValidateFormat::Summary, 1))
        .0
        .unwrap_err();
    assert!(
        e.contains("properties.a.type") && e.contains("integer"),
        "{e}"
    );
}

/// A manifest (as `generate` prints it) declaring `orders` with SCHEMA's validator, and
/// `events` with another.
fn manifest_file(d: &Path) -> PathBuf {
    use mongo_schema::spec::{CollectionSpec, ValidatorSpec};
    let schema: serde_json::Value = serde_json::from_str(SCHEMA).unwrap();
    let bson::Bson::Document(validator) = bson::Bson::try_from(schema).unwrap() else {
        panic!("SCHEMA is a document")
    };
    let orders = CollectionSpec::new("orders").validator(ValidatorSpec::from_document(&validator));
    let events = CollectionSpec::new("events").validator(ValidatorSpec::from_document(
        &doc! { "$jsonSchema": { "required": ["at"] } },
    ));
    let logs = CollectionSpec::new("logs");
    let text = mongo_schema::manifest::Manifest::new(vec![orders, events, logs]).to_json();
    write(d, "manifest.json", text.as_bytes())
}

fn manifest_args(manifest: PathBuf, collection: Option<&str>, input: PathBuf) -> ValidateArgs {
    ValidateArgs {
        schema: None,
        manifest: Some(manifest),
        collection: collection.map(str::to_string),
        inputs: vec![input],
        input_format: InputFormat::Auto,
        format: ValidateFormat::Summary,
        threads: Some(1),
        examples: 2,
    }
}

#[test]
fn the_validator_can_come_from_a_manifest_collection() {
    let d = dir("manifest");
    let manifest = manifest_file(&d);
    let input = write(
        &d,
        "orders.jsonl",
        b"{\"_id\": 1, \"name\": \"ok\", \"items\": []}\n{\"_id\": 2, \"name\": \"x\", \"items\": []}\n",
    );
    let (code, out) = run(&manifest_args(
        manifest.clone(),
        Some("orders"),
        input.clone(),
    ));
    assert_eq!(code.unwrap(), ExitCode::from(1), "{out}");
    assert!(out.contains("name (minLength)"), "{out}");
    // The events validator requires `at`, which no order has.
    let (code, out) = run(&manifest_args(
        manifest.clone(),
        Some("events"),
        input.clone(),
    ));
    assert_eq!(code.unwrap(), ExitCode::from(1), "{out}");
    assert!(out.contains("required"), "{out}");

    let (code, _) = run(&manifest_args(
        manifest.clone(),
        Some("payments"),
        input.clone(),
    ));
    let e = code.unwrap_err();
    // The manifest lists collections by name.
    assert!(
        e.contains("no collection \"payments\" (it declares events, logs, orders)"),
        "{e}"
    );
    let (code, _) = run(&manifest_args(
        manifest.clone(),
        Some("logs"),
        input.clone(),
    ));
    assert!(code.unwrap_err().contains("declares no validator"));
    // Two collections have validators: the choice is the user's.
    let (code, _) = run(&manifest_args(manifest, None, input));
    let e = code.unwrap_err();
    assert!(e.contains("choose one with --collection"), "{e}");
}

#[test]
fn schema_and_manifest_are_exclusive_on_the_command_line() {
    let d = dir("manifest-args");
    let manifest = manifest_file(&d);
    let m = manifest.to_str().unwrap();
    for argv in [
        vec!["mongo-schema", "validate", "x.jsonl"],
        vec![
            "mongo-schema",
            "validate",
            "--schema",
            "s.json",
            "--manifest",
            m,
            "x.jsonl",
        ],
        vec![
            "mongo-schema",
            "validate",
            "--schema",
            "s.json",
            "--collection",
            "orders",
        ],
    ] {
        let mut console = mongo_schema_cli::console::Console::captured("");
        let outcome = mongo_schema_cli::run(argv.clone(), None, &mut console);
        assert_eq!(outcome.code(), 2, "{argv:?}: {}", console.stderr_text());
    }
}

/// Issue 16 item 10: one message with file, line, column, field path and the accepted forms,
/// never bson's `Kind: ... Message: ...` text nor a second "at line 1 column N".
#[test]
fn a_bad_extended_json_value_names_its_line_field_and_accepted_forms() {
    let d = dir("bad-date");
    let schema = write(&d, "schema.json", SCHEMA.as_bytes());
    let input = write(
        &d,
        "x.jsonl",
        b"{\"name\": \"ok\", \"items\": []}\n{\"name\": \"ok\", \"items\": [{\"at\": {\"$date\": \"garbage\"}}]}\n",
    );
    let e = run(&args(schema, vec![input], ValidateFormat::Summary, 1))
        .0
        .unwrap_err();
    assert!(e.contains("x.jsonl: line 2, column "), "{e}");
    assert!(e.contains(", at items.0.at: "), "{e}");
    assert!(
        e.contains("is not a valid $date; expected") && e.contains("ISO-8601"),
        "{e}"
    );
    assert!(!e.contains("Kind:") && !e.contains("Message:"), "{e}");
    assert_eq!(e.matches("line").count(), 1, "{e}");
}

const TWO_BAD: &[u8] = b"{\"_id\": 1, \"name\": \"ab\", \"items\": []}\n{\"_id\": 2, \"name\": \"x\", \"items\": []}\n{\"_id\": 3, \"items\": [{\"qty\": 0}]}\n";

/// Issue 16 item 9: the summary as one JSON document.
#[test]
fn json_format_is_the_summary_as_one_document() {
    let d = dir("format-json");
    let schema = write(&d, "schema.json", SCHEMA.as_bytes());
    let input = write(&d, "in.jsonl", TWO_BAD);
    let (code, out) = run(&args(schema, vec![input], ValidateFormat::Json, 2));
    assert_eq!(code.unwrap(), ExitCode::from(1));
    let summary: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(summary["documents"], 3);
    assert_eq!(summary["valid"], 1);
    assert_eq!(summary["invalid"], 2);
    let rules = summary["rules"].as_array().unwrap();
    let names: Vec<&str> = rules.iter().map(|r| r["rule"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "items.[].qty (minimum)",
            "name (minLength)",
            "name (required)"
        ]
    );
    assert_eq!(rules[0]["examples"], serde_json::json!([3]));
    assert_eq!(rules[0]["count"], 1);
}

/// Issue 16 item 9: failing rules as GitHub annotations, and a notice with the counts.
#[test]
fn github_format_annotates_each_failing_rule() {
    let d = dir("format-github");
    let schema = write(&d, "schema.json", SCHEMA.as_bytes());
    let input = write(&d, "in.jsonl", TWO_BAD);
    let (code, out) = run(&args(schema, vec![input], ValidateFormat::Github, 1));
    assert_eq!(code.unwrap(), ExitCode::from(1));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert!(
        lines[0].starts_with(
            "::error title=validate%3A items.[].qty (minimum)::items.[].qty (minimum) rejects 1 document; first: "
        ),
        "{out}"
    );
    assert!(lines[0].ends_with("(e.g. 3)"), "{out}");
    assert_eq!(
        lines[3],
        "::notice title=validate::3 documents: 1 valid, 2 invalid"
    );
}

/// Issue 16 item 2: a `.json` array streams (one document per element, pretty-printed or not),
/// and a broken one names the document or the byte.
#[test]
fn json_arrays_stream_and_name_the_broken_document() {
    let d = dir("array");
    let schema = write(&d, "schema.json", SCHEMA.as_bytes());
    let pretty = write(
        &d,
        "pretty.json",
        b"[\n  {\n    \"_id\": 1,\n    \"name\": \"ab\",\n    \"items\": []\n  },\n  {\"_id\": 2, \"name\": \"x\", \"items\": []}\n]\n",
    );
    let (code, out) = run(&args(
        schema.clone(),
        vec![pretty],
        ValidateFormat::Summary,
        2,
    ));
    assert_eq!(code.unwrap(), ExitCode::from(1));
    assert!(
        out.starts_with("documents: 2  valid: 1  invalid: 1"),
        "{out}"
    );

    let bad_value = write(
        &d,
        "bad.json",
        b"[{\"name\": \"ab\", \"items\": []},\n {\"name\": \"ab\", \"items\": [{\"at\": {\"$date\": \"x\"}}]}]",
    );
    let e = run(&args(
        schema.clone(),
        vec![bad_value],
        ValidateFormat::Summary,
        1,
    ))
    .0
    .unwrap_err();
    assert!(
        e.contains("bad.json: document 2 of the array, at items.0.at: ")
            && e.contains("1 document read before"),
        "{e}"
    );

    let trailing = write(&d, "trailing.json", b"[{\"name\": \"ab\", \"items\": []},]");
    let e = run(&args(schema, vec![trailing], ValidateFormat::Summary, 1))
        .0
        .unwrap_err();
    assert!(
        e.contains("trailing.json: byte 29: expected a document after `[` or `,` (a trailing comma is not JSON)"),
        "{e}"
    );
}

#[test]
fn a_misspelt_keyword_in_a_schema_file_is_an_error_naming_it() {
    // Issue 12 item 1; the server: json_schema_parser.cpp "Unknown $jsonSchema keyword"
    // (FailedToParse). Before, this file was taken for a query validator and every document
    // was reported valid with exit 0.
    let d = dir("typo");
    let input = write(&d, "docs.jsonl", b"{\"_id\": 1}\n");
    for text in [
        r#"{"bsonType": "object", "required": ["a"], "propertes": {"a": {"bsonType": "int"}}}"#,
        r#"{"$jsonSchema": {"bsonType": "object", "required": ["a"], "propertes": {}}}"#,
    ] {
        let schema = write(&d, "schema.json", text.as_bytes());
        let (code, out) = run(&args(
            schema,
            vec![input.clone()],
            ValidateFormat::Summary,
            1,
        ));
        let e = code.unwrap_err();
        assert!(e.contains("Unknown $jsonSchema keyword: propertes"), "{e}");
        assert!(out.is_empty(), "{out}");
    }
}

#[test]
fn query_operators_beside_json_schema_make_the_run_not_fully_checked() {
    // Issue 12 item 1: what is not evaluated locally is never counted valid (exit 2).
    let d = dir("partial");
    let input = write(&d, "docs.jsonl", b"{\"_id\": 1, \"a\": 5}\n");
    let schema = write(
        &d,
        "schema.json",
        br#"{"$jsonSchema": {"required": ["a"]}, "$expr": {"$gt": ["$a", 1]}, "status": "open"}"#,
    );
    let (code, out) = run(&args(
        schema,
        vec![input.clone()],
        ValidateFormat::Summary,
        1,
    ));
    let e = code.unwrap_err();
    assert!(
        e.contains("not fully checked: the validator's $expr, status are not evaluated locally"),
        "{e}"
    );
    assert!(out.is_empty(), "{out}");

    // The same from a manifest: a declared validator without $jsonSchema is a query.
    use mongo_schema::spec::{CollectionSpec, ValidatorSpec};
    let spec = CollectionSpec::new("orders").validator(ValidatorSpec::from_document(
        &doc! { "status": { "$in": ["open"] } },
    ));
    let text = mongo_schema::manifest::Manifest::new(vec![spec]).to_json();
    let manifest = write(&d, "manifest.json", text.as_bytes());
    let (code, _) = run(&manifest_args(manifest, Some("orders"), input));
    let e = code.unwrap_err();
    assert!(
        e.contains("not fully checked: the validator's status is not evaluated"),
        "{e}"
    );
}

#[test]
fn a_verdict_not_fully_checked_is_neither_valid_nor_invalid_and_exits_2() {
    // Issue 12 item 1: a dotted property name crossing an array (`a.b` when `a` is an array)
    // leaves the verdict open; it is counted apart, never as valid or as a failing rule.
    let d = dir("open");
    let schema = write(
        &d,
        "schema.json",
        br#"{"properties": {"a.b": {"bsonType": "int"}, "n": {"minimum": 1}}}"#,
    );
    let input = write(
        &d,
        "docs.jsonl",
        b"{\"_id\": 1, \"a\": [{\"b\": \"x\"}]}\n\
          {\"_id\": 2, \"a\": {\"b\": 3}}\n\
          {\"_id\": 3, \"n\": 0}\n",
    );
    let reason = "dotted name a.b across an array";

    let (code, out) = run(&args(
        schema.clone(),
        vec![input.clone()],
        ValidateFormat::Summary,
        1,
    ));
    assert_eq!(code.unwrap(), ExitCode::from(2));
    assert!(
        out.starts_with(&format!(
            "documents: 3  valid: 1  invalid: 1\n1 document not fully checked ({reason})\n"
        )),
        "{out}"
    );
    assert!(!out.contains("notFullyChecked"), "{out}");
    assert!(out.contains("n (minimum)"), "{out}");

    let (code, out) = run(&args(
        schema.clone(),
        vec![input.clone()],
        ValidateFormat::Jsonl,
        1,
    ));
    assert_eq!(code.unwrap(), ExitCode::from(2));
    let first: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(
        first,
        serde_json::json!({"index": 0, "_id": 1, "valid": null, "notFullyChecked": reason})
    );

    let (code, out) = run(&args(
        schema.clone(),
        vec![input.clone()],
        ValidateFormat::Json,
        1,
    ));
    assert_eq!(code.unwrap(), ExitCode::from(2));
    let summary: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(summary["valid"], 1);
    assert_eq!(summary["invalid"], 1);
    assert_eq!(summary["notFullyChecked"], 1);
    assert_eq!(
        summary["notFullyCheckedReasons"],
        serde_json::json!([{"reason": reason, "count": 1}])
    );
    assert_eq!(summary["rules"].as_array().unwrap().len(), 1);

    let (code, out) = run(&args(schema, vec![input], ValidateFormat::Github, 1));
    assert_eq!(code.unwrap(), ExitCode::from(2));
    assert!(
        out.contains(&format!(
            "::error title=validate%3A not fully checked::1 document not fully checked ({reason})"
        )),
        "{out}"
    );
    assert!(
        out.contains("3 documents: 1 valid, 1 invalid, 1 not fully checked"),
        "{out}"
    );
}
