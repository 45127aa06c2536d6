//! The pipeline across chunk edges, thread counts, inputs and stream readers: every size gives
//! the report one chunk gives.

use std::path::{Path, PathBuf};

use bson::{Bson, Document, RawDocumentBuf};
use mongo_schema::eval::Validator;

use super::source::{Framing, Source};
use super::*;
use crate::args::{InputFormat, ValidateFormat};

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("validate-pipeline-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A schema file's validator (a bare `$jsonSchema`).
fn load_schema(path: &Path) -> Result<Validator, String> {
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let Ok(Bson::Document(doc)) = Bson::try_from(json) else {
        return Err("not a document".to_string());
    };
    Validator::from_document(&doc).map_err(|e| e.to_string())
}

/// What a run checks (the command's arguments that reach the pipeline).
#[derive(Clone)]
struct Args {
    schema: PathBuf,
    inputs: Vec<PathBuf>,
    format: ValidateFormat,
}

fn args(schema: PathBuf, inputs: Vec<PathBuf>) -> Args {
    Args {
        schema,
        inputs,
        format: ValidateFormat::Summary,
    }
}

/// Documents of varied sizes, every third invalid (`name` too short), some without `_id`.
fn mixed_docs(n: i32) -> Vec<Document> {
    (0..n)
        .map(|i| {
            let mut d = bson::doc! {
                "name": if i % 3 == 0 { "x".to_string() } else { "n".repeat(2 + (i % 40) as usize) },
                "items": (0..i % 5).map(|q| bson::bson!({ "qty": q })).collect::<Vec<_>>(),
            };
            if i % 4 != 1 {
                d.insert("_id", i);
            }
            d
        })
        .collect()
}

const SCHEMA: &[u8] = br#"{"required": ["name"], "properties": {
    "name": {"bsonType": "string", "minLength": 2},
    "items": {"items": {"properties": {"qty": {"minimum": 1}}}}}}"#;

fn bson_bytes(docs: &[Document]) -> Vec<u8> {
    docs.iter()
        .flat_map(|d| RawDocumentBuf::try_from(d).unwrap().as_bytes().to_vec())
        .collect()
}

fn sized(threads: usize, chunk: usize) -> Sizes {
    Sizes {
        threads,
        chunk,
        credits: threads * 2 + 1,
        max_line: 1 << 20,
    }
}

/// The report (or the error) for `args` with the given pipeline sizes.
fn report(args: &Args, sizes: Sizes) -> Result<String, String> {
    let validator = load_schema(&args.schema)?;
    let options = Options {
        input_format: InputFormat::Auto,
        format: args.format,
        examples: 3,
        sizes,
    };
    let mut out = Vec::new();
    let tally = run(&validator, &args.inputs, &options, &mut out).map_err(|e| format!("{e:#}"))?;
    if args.format == ValidateFormat::Summary {
        tally.write_summary(&mut out).unwrap();
    }
    Ok(String::from_utf8(out).unwrap())
}

#[test]
fn chunks_smaller_than_a_document_give_the_same_report_as_one_chunk() {
    let d = tmp("chunks");
    let schema = write(&d, "s.json", SCHEMA);
    let docs = mixed_docs(500);
    let input = write(&d, "in.bson", &bson_bytes(&docs));
    for format in [ValidateFormat::Jsonl, ValidateFormat::Summary] {
        let mut a = args(schema.clone(), vec![input.clone()]);
        a.format = format;
        let whole = report(&a, Sizes::new(1)).unwrap();
        for (threads, chunk) in [(1, 7), (3, 7), (2, 64), (3, 1000), (2, 1 << 20)] {
            assert_eq!(
                report(&a, sized(threads, chunk)).unwrap(),
                whole,
                "{format:?} threads {threads} chunk {chunk}"
            );
        }
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn json_lines_across_chunks_match_the_same_documents_as_bson() {
    let d = tmp("lines");
    let schema = write(&d, "s.json", SCHEMA);
    let docs = mixed_docs(300);
    let bson_in = write(&d, "in.bson", &bson_bytes(&docs));
    let mut text = String::new();
    for (i, doc) in docs.iter().enumerate() {
        let json = Bson::Document(doc.clone()).into_canonical_extjson();
        // Blank lines and CRLF endings are allowed; the last line has no newline.
        text.push_str(&json.to_string());
        text.push_str(if i % 50 == 0 { "\r\n\n" } else { "\n" });
    }
    text.pop();
    let lines_in = write(&d, "in.jsonl", text.as_bytes());
    let mut a = args(schema, vec![bson_in]);
    a.format = ValidateFormat::Jsonl;
    let expected = report(&a, Sizes::new(2)).unwrap();
    a.inputs = vec![lines_in];
    for (threads, chunk) in [(1, 5), (3, 100), (2, 1 << 20)] {
        assert_eq!(report(&a, sized(threads, chunk)).unwrap(), expected);
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_break_in_a_later_chunk_names_its_place_in_the_whole_file() {
    let d = tmp("later");
    let schema = write(&d, "s.json", SCHEMA);
    let docs = mixed_docs(400);
    let mut bytes = bson_bytes(&docs);
    let at: usize = docs[..300]
        .iter()
        .map(|doc| RawDocumentBuf::try_from(doc).unwrap().as_bytes().len())
        .sum();
    bytes[at + 4] = 0x77; // document 300's first element type
    let corrupt = write(&d, "corrupt.bson", &bytes);
    let whole = bson_bytes(&docs);
    let cut = write(&d, "cut.bson", &whole[..whole.len() - 2]);
    let short = write(&d, "short.bson", &whole[..at + 3]);
    let mut lines: Vec<String> = docs
        .iter()
        .map(|doc| {
            Bson::Document(doc.clone())
                .into_relaxed_extjson()
                .to_string()
        })
        .collect();
    lines.insert(10, String::new());
    lines[301] = "{\"name\": ".to_string();
    let bad_line = write(&d, "bad.jsonl", lines.join("\n").as_bytes());
    let expect = [
        (
            corrupt,
            format!("byte {}", at + 4),
            "300 documents read before",
        ),
        (
            cut,
            format!("truncated at byte {}", whole.len() - 2),
            "399 documents read before",
        ),
        (
            short,
            format!("truncated at byte {at}: 3 bytes of a document length"),
            "after 300 documents",
        ),
        (
            bad_line,
            "line 302, column".to_string(),
            "300 documents read before",
        ),
    ];
    for (input, place, before) in expect {
        let a = args(schema.clone(), vec![input.clone()]);
        for sizes in [Sizes::new(2), sized(1, 9), sized(3, 333)] {
            let e = report(&a, sizes).unwrap_err();
            assert!(e.contains(&place) && e.contains(before), "{sizes:?}: {e}");
        }
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn summary_examples_are_the_first_failures_in_input_order() {
    let d = tmp("examples");
    let schema = write(&d, "s.json", br#"{"required": ["name"]}"#);
    // No _id: examples are positions, counted across inputs.
    let first = write(&d, "a.bson", &bson_bytes(&[bson::doc! { "name": 1 }]));
    let docs: Vec<Document> = (0..200).map(|i| bson::doc! { "n": i }).collect();
    let second = write(&d, "b.bson", &bson_bytes(&docs));
    let a = args(schema, vec![first, second]);
    for sizes in [Sizes::new(2), sized(3, 11)] {
        let out = report(&a, sizes).unwrap();
        assert!(
            out.contains(
                "     200  name (required)\n            first: name: required property is \
                 missing\n            e.g. #1, #2, #3\n"
            ),
            "{out}"
        );
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_line_without_an_end_stops_at_the_limit() {
    let d = tmp("overlong");
    let schema = write(&d, "s.json", SCHEMA);
    let mut text = b"{\"name\": \"ok\"}\n".to_vec();
    text.extend(std::iter::repeat_n(b' ', 200_000));
    let input = write(&d, "long.jsonl", &text);
    let sizes = Sizes {
        max_line: 1 << 16,
        ..sized(2, 4096)
    };
    let e = report(&args(schema, vec![input]), sizes).unwrap_err();
    assert!(
        e.contains("line 2 has no end within") && e.contains("1 document read before"),
        "{e}"
    );
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn streams_read_by_a_reader_thread_give_the_same_report_as_files() {
    let d = tmp("stream");
    let schema = write(&d, "s.json", SCHEMA);
    let validator = load_schema(&schema).unwrap();
    let docs = mixed_docs(300);
    let bytes = bson_bytes(&docs);
    let text: String = docs
        .iter()
        .map(|doc| {
            Bson::Document(doc.clone())
                .into_relaxed_extjson()
                .to_string()
                + "\n"
        })
        .collect();
    let inputs = [
        (write(&d, "in.bson", &bytes), bytes.clone(), Framing::Bson),
        (
            write(&d, "in.jsonl", text.as_bytes()),
            text.into_bytes(),
            Framing::Lines,
        ),
        (
            write(&d, "cut.bson", &bytes[..bytes.len() - 9]),
            bytes[..bytes.len() - 9].to_vec(),
            Framing::Bson,
        ),
    ];
    for (path, content, framing) in inputs {
        for sizes in [sized(1, 6), sized(3, 1000)] {
            let check = |source: Source| {
                let job = Job {
                    validator: &validator,
                    framing,
                    format: ValidateFormat::Jsonl,
                    examples: 3,
                };
                let mut tally = Tally::new(3);
                let mut out = Vec::new();
                let r = check_input(
                    &job,
                    source,
                    "x",
                    sizes,
                    &mut tally,
                    &Progress::new(None),
                    &mut out,
                );
                (
                    r.map_err(|e| format!("{e:#}")),
                    out,
                    tally.read,
                    tally.invalid,
                )
            };
            let file = check(Source::open(&path, InputFormat::Auto).unwrap());
            assert!(matches!(
                Source::open(&path, InputFormat::Auto).unwrap(),
                Source::File(..)
            ));
            let stream = check(Source::Stream(
                Box::new(std::io::Cursor::new(content.clone())),
                framing,
            ));
            assert_eq!(file, stream, "{} {sizes:?}", path.display());
            assert!(file.2 > 250, "{}", file.2);
        }
    }
    std::fs::remove_dir_all(&d).unwrap();
}
