//! Conformance of the local `$jsonSchema` evaluator with the server, table-driven.
//!
//! Each file in `eval_cases/` holds cases that name the manual page or server source/test they
//! encode. Values are Extended JSON (relaxed numbers: `5` is an int, `5.0` a double; canonical
//! wrappers for other types). A case is one of:
//! - `schema` + `valid` / `invalid`: whole documents the validator accepts or rejects;
//! - `property` + `valid_values` / `invalid_values`: the schema of property `v`, and values of
//!   `v` in documents `{v: value}` (the property is required);
//! - `schema` + `parse_error` `{path, code, reason}`: the server rejects the schema;
//! - `schema` + `not_fully_checked`: documents the schema passes whose verdict stays open,
//!   because the validator has entries beside `$jsonSchema` that are not evaluated locally;
//! - `schema` + `document` + `details` (+ `summaries`): the rejection's `errInfo.details`.

use std::path::Path;

use bson::{Bson, Document, RawDocumentBuf};
use mongo_schema::eval::Validator;
use serde_json::Value;

fn to_doc(v: &Value, what: &str) -> Document {
    match Bson::try_from(v.clone()) {
        Ok(Bson::Document(d)) => d,
        other => panic!("{what}: not an Extended JSON document: {other:?}"),
    }
}

fn to_bson(v: &Value, what: &str) -> Bson {
    Bson::try_from(v.clone()).unwrap_or_else(|e| panic!("{what}: bad Extended JSON: {e}"))
}

fn raw(d: &Document) -> RawDocumentBuf {
    RawDocumentBuf::try_from(d).expect("documents serialize")
}

struct Run {
    checked: usize,
    failures: Vec<String>,
}

impl Run {
    fn expect_verdict(&mut self, label: &str, validator: &Validator, doc: &Document, valid: bool) {
        self.checked += 1;
        let bytes = raw(doc);
        let fast = validator.is_valid(&bytes);
        let verdict = validator.evaluate(&bytes);
        let checked = validator
            .validate_bytes(bytes.as_bytes())
            .expect("well-formed documents");
        if fast != valid || verdict.is_valid() != valid || checked.is_valid() != valid {
            self.failures.push(format!(
                "{label}: expected {} for {doc}, got is_valid={fast} evaluate={} validate_bytes={}",
                if valid { "valid" } else { "invalid" },
                verdict.is_valid(),
                checked.is_valid()
            ));
        }
        if !valid && (verdict.details().is_none() || verdict.summaries().is_empty()) {
            self.failures.push(format!(
                "{label}: rejected {doc} without details or summaries"
            ));
        }
    }
}

fn run_case(run: &mut Run, file: &str, case: &Value) {
    let name = case["name"].as_str().unwrap_or("(unnamed)");
    let label = format!("{file}: {name}");
    assert!(
        case["source"].as_str().is_some_and(|s| !s.is_empty()),
        "{label}: every case names its source"
    );
    let schema = if let Some(p) = case.get("property") {
        let mut s = Document::new();
        s.insert("required", vec!["v"]);
        let mut props = Document::new();
        props.insert("v", to_bson(p, &label));
        s.insert("properties", props);
        s
    } else {
        to_doc(&case["schema"], &label)
    };
    if let Some(expected) = case.get("parse_error") {
        run.checked += 1;
        match Validator::from_document(&schema) {
            Ok(_) => run
                .failures
                .push(format!("{label}: schema accepted, expected {expected}")),
            Err(e) => {
                let got =
                    serde_json::json!({"path": e.path(), "code": e.code(), "reason": e.reason()});
                for key in ["path", "code", "reason"] {
                    if let Some(want) = expected.get(key)
                        && *want != got[key]
                    {
                        run.failures
                            .push(format!("{label}: {key}: expected {want}, got {}", got[key]));
                    }
                }
            }
        }
        return;
    }
    let validator = match Validator::from_document(&schema) {
        Ok(v) => v,
        Err(e) => {
            run.failures.push(format!("{label}: schema rejected: {e}"));
            return;
        }
    };
    for (key, valid) in [("valid", true), ("invalid", false)] {
        for d in case[key].as_array().into_iter().flatten() {
            run.expect_verdict(&label, &validator, &to_doc(d, &label), valid);
        }
    }
    for (key, valid) in [("valid_values", true), ("invalid_values", false)] {
        for v in case[key].as_array().into_iter().flatten() {
            let mut d = Document::new();
            d.insert("v", to_bson(v, &label));
            run.expect_verdict(&label, &validator, &d, valid);
        }
    }
    if let Some(expected) = case.get("details") {
        run.checked += 1;
        let doc = to_doc(&case["document"], &label);
        let verdict = validator.evaluate(&raw(&doc));
        let want = to_doc(expected, &label);
        // Byte-for-byte: the server's test assertions see key order and numeric types too.
        let same = |got: &Document| {
            bson::serialize_to_vec(got).expect("details serialize")
                == bson::serialize_to_vec(&want).expect("expected details serialize")
        };
        match verdict.details() {
            Some(got) if same(got) => {}
            got => run.failures.push(format!(
                "{label}: details\n  expected {want}\n  got      {}",
                got.map_or("none (valid)".to_string(), ToString::to_string)
            )),
        }
        if let Some(summaries) = case.get("summaries") {
            let want: Vec<String> = serde_json::from_value(summaries.clone()).expect("strings");
            if verdict.summaries() != want.as_slice() {
                run.failures.push(format!(
                    "{label}: summaries\n  expected {want:?}\n  got      {:?}",
                    verdict.summaries()
                ));
            }
        }
    }
    for d in case["not_fully_checked"].as_array().into_iter().flatten() {
        run.checked += 1;
        let doc = to_doc(d, &label);
        let verdict = validator.evaluate(&raw(&doc));
        if verdict.is_valid() || verdict.is_rejected() || verdict.is_fully_checked() {
            run.failures.push(format!(
                "{label}: expected an open verdict for {doc}, got {verdict:?}"
            ));
        }
    }
    if let Some(expected) = case.get("not_evaluated") {
        run.checked += 1;
        let want = to_doc(expected, &label);
        if *validator.not_evaluated() != want {
            run.failures.push(format!(
                "{label}: not_evaluated: expected {want}, got {}",
                validator.not_evaluated()
            ));
        }
    }
}

#[test]
fn eval_cases_match_the_server() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("eval_cases");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("eval_cases exists")
        .map(|e| e.expect("readable").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no case files in {}", dir.display());
    let mut run = Run {
        checked: 0,
        failures: Vec::new(),
    };
    for path in &files {
        let text = std::fs::read_to_string(path).expect("readable case file");
        let json: Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let file = path
            .file_name()
            .expect("file name")
            .to_string_lossy()
            .into_owned();
        assert!(
            json["source"].as_str().is_some_and(|s| !s.is_empty()),
            "{file}: the file names its source"
        );
        for case in json["cases"].as_array().expect("cases array") {
            run_case(&mut run, &file, case);
        }
    }
    assert!(run.checked > 100, "only {} checks ran", run.checked);
    assert!(
        run.failures.is_empty(),
        "{} of {} checks failed:\n{}",
        run.failures.len(),
        run.checked,
        run.failures.join("\n")
    );
}

#[test]
fn malformed_bytes_are_errors_with_offsets_never_panics() {
    let validator = Validator::from_document(&bson::doc! { "required": ["a"] }).unwrap();
    let good = raw(&bson::doc! { "a": "text", "b": { "c": [1, 2] } });
    let bytes = good.as_bytes();
    // Every truncation and every single-byte corruption is either an error or a verdict.
    for cut in 0..bytes.len() {
        assert!(
            validator.validate_bytes(&bytes[..cut]).is_err(),
            "cut at {cut}"
        );
    }
    for i in 0..bytes.len() {
        for v in [0u8, 1, 0x7f, 0xff] {
            let mut b = bytes.to_vec();
            b[i] = v;
            let _ = validator.validate_bytes(&b);
            let _ = validator.is_valid_bytes(&b);
        }
    }
    let mut lying = bytes.to_vec();
    lying[0] = 200;
    let e = validator.validate_bytes(&lying).unwrap_err();
    assert_eq!(e.offset, 0);
}

#[test]
fn alternation_pattern_accepts_strings_up_to_the_servers_depth_limit() {
    // Source: server src/third_party/pcre2/build_posix/config.h (PCRE2 10.42, no JIT,
    // MATCH_LIMIT_DEPTH 4000) and src/mongo/util/pcre.cpp (pcre2_match; an error is no match).
    // `^(\w|-)+$` nests two frames per character: 1,998 characters match on the server, 1,999
    // hit the depth limit and are rejected. With the JIT, 1,024 to 1,998 were rejected here.
    let validator = Validator::from_document(&bson::doc! {
        "$jsonSchema": { "properties": { "slug": { "pattern": r"^(\w|-)+$" } } },
    })
    .unwrap();
    for n in [1, 1_023, 1_024, 1_500, 1_998] {
        let doc = bson::rawdoc! { "slug": "a-".repeat(n / 2) + &"b".repeat(n % 2) };
        assert!(validator.is_valid(&doc), "{n} characters");
        assert!(validator.evaluate(&doc).is_valid(), "{n} characters");
    }
    let doc = bson::rawdoc! { "slug": "a".repeat(1_999) };
    assert!(!validator.is_valid(&doc));
    assert!(!validator.evaluate(&doc).is_valid());
}
