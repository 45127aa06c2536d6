//! `mongo-schema infer`: reads exported documents, counts what every path holds
//! (`mongo_schema::infer::census`), prints the Rust types that read them and the proof that the
//! validator those types derive accepts every document.
//!
//! Two passes over the files: the census, then the proof against the predicted validator;
//! memory stays flat (one document at a time). The readers here are deliberately simple and
//! single-threaded: `validate`'s parallel pipeline is being restructured (issue 13 asks that
//! both share it once it settles), so `infer` does not build on its internals yet.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use anyhow::{Context, bail};
use bson::{Bson, RawDocumentBuf};
use mongo_schema::infer::{self, Census, Options, Proof};

use crate::Outcome;
use crate::args::{InferArgs, InferFormat};
use crate::console::Console;

/// The largest document the server stores (16 MiB) plus room for the command around it, as the
/// server's `BSONObjMaxInternalSize`: anything longer is not a document length.
const MAX_DOC: usize = 16 * 1024 * 1024 + 16 * 1024;

/// Runs `infer`: exit 0 when the predicted validator accepts every document, 1 when it does not.
///
/// # Errors
/// An unreadable or malformed input (with the file and the document's place), or a collection
/// name the server would refuse.
pub fn run(args: &InferArgs, console: &mut Console) -> anyhow::Result<Outcome> {
    let collection = match &args.collection {
        Some(name) => name.clone(),
        None => default_name(&args.inputs[0])?,
    };
    let mut census = Census::new();
    for path in &args.inputs {
        each_document(path, |doc| {
            census.add(&doc).context("malformed BSON")?;
            Ok(())
        })?;
    }
    let options = Options::default().with_enums(args.enums);
    let inference = infer::infer(&census, &collection, &options)?;
    let mut proof = Proof::new(&inference.validator).context("the predicted validator")?;
    for path in &args.inputs {
        each_document(path, |doc| {
            proof.check(&doc);
            Ok(())
        })?;
    }
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let file = dir.join(format!("{}.rs", file_stem(&collection)));
        std::fs::write(&file, &inference.source)
            .with_context(|| format!("cannot write {}", file.display()))?;
        console.err(&format!("wrote {}\n", file.display()));
    }
    match args.format {
        InferFormat::Text => {
            if args.out.is_none() {
                console.out(&inference.source);
                console.out("\n");
            }
            console.out(&proof_text(&proof));
        }
        InferFormat::Json => {
            let report = serde_json::json!({
                "collection": collection,
                "documents": census.documents,
                "tooDeep": census.too_deep,
                "largestDocument": census.largest_document,
                "paths": census.paths(),
                "notes": inference.model.notes,
                "proof": {
                    "checked": proof.checked,
                    "accepted": proof.accepted,
                    "exceptions": proof.exceptions,
                },
                "source": inference.source,
            });
            let text = serde_json::to_string_pretty(&report).context("the report")?;
            console.out(&text);
            console.out("\n");
        }
    }
    Ok(if proof.is_complete() {
        Outcome::Clean
    } else {
        Outcome::Findings
    })
}

/// The proof as Rust comments, so the whole output still compiles when pasted.
fn proof_text(proof: &Proof) -> String {
    let mut out = format!(
        "// proof: the validator these types derive {}\n",
        proof.summary()
    );
    for e in &proof.exceptions {
        let id = e.id.as_deref().unwrap_or("(no _id)");
        out.push_str(&format!(
            "// rejected: document {} (_id {id}): {}\n",
            e.index,
            e.reasons.join("; ").replace(['\n', '\r'], " ")
        ));
    }
    let unlisted = (proof.checked - proof.accepted) as usize - proof.exceptions.len();
    if unlisted > 0 {
        out.push_str(&format!("// ... and {unlisted} more rejected\n"));
    }
    out
}

/// `dump/shop/orders.bson` -> `orders`.
fn default_name(path: &Path) -> anyhow::Result<String> {
    match path.file_stem().and_then(|s| s.to_str()) {
        Some(stem) if !stem.is_empty() => Ok(stem.to_owned()),
        _ => bail!(
            "cannot take a collection name from {}: pass --collection NAME",
            path.display()
        ),
    }
}

/// A file name for the collection's source: characters other than letters, digits, `_` and `-`
/// become `_` (a collection name may hold `.`, which is fine, or `/`, which is not).
fn file_stem(collection: &str) -> String {
    collection
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[derive(Clone, Copy)]
enum Format {
    Bson,
    Lines,
    Json,
}

fn format_of(path: &Path) -> anyhow::Result<Format> {
    match path.extension().and_then(|e| e.to_str()) {
        Some("bson") => Ok(Format::Bson),
        Some("jsonl" | "ndjson") => Ok(Format::Lines),
        Some("json") => Ok(Format::Json),
        _ => bail!(
            "{}: unknown input kind; expected .bson, .jsonl, .ndjson or .json",
            path.display()
        ),
    }
}

/// Calls `f` on each document of the file in turn.
fn each_document(
    path: &Path,
    mut f: impl FnMut(RawDocumentBuf) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let format = format_of(path)?;
    let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut reader = BufReader::with_capacity(1 << 20, file);
    match format {
        Format::Bson => {
            let mut index = 0u64;
            let mut offset = 0u64;
            loop {
                let mut len = [0u8; 4];
                match reader.read(&mut len[..1]) {
                    Ok(0) => break,
                    Ok(_) => {}
                    Err(e) => return Err(e).context(format!("cannot read {}", path.display())),
                }
                reader
                    .read_exact(&mut len[1..])
                    .with_context(|| format!("{}: truncated at byte {offset}", path.display()))?;
                let n = i32::from_le_bytes(len);
                let size = usize::try_from(n)
                    .ok()
                    .filter(|n| (5..=MAX_DOC).contains(n))
                    .with_context(|| {
                        format!(
                            "{}: document {index} at byte {offset} has an impossible length {n}",
                            path.display()
                        )
                    })?;
                let mut bytes = vec![0u8; size];
                bytes[..4].copy_from_slice(&len);
                reader.read_exact(&mut bytes[4..]).with_context(|| {
                    format!(
                        "{}: document {index} at byte {offset} is truncated",
                        path.display()
                    )
                })?;
                let doc = RawDocumentBuf::from_bytes(bytes).with_context(|| {
                    format!("{}: document {index} at byte {offset}", path.display())
                })?;
                f(doc).with_context(|| {
                    format!("{}: document {index} at byte {offset}", path.display())
                })?;
                index += 1;
                offset += size as u64;
            }
        }
        Format::Lines => {
            let mut line = String::new();
            let mut number = 0u64;
            loop {
                line.clear();
                let read = reader
                    .read_line(&mut line)
                    .with_context(|| format!("cannot read {}", path.display()))?;
                if read == 0 {
                    break;
                }
                number += 1;
                if line.trim().is_empty() {
                    continue;
                }
                let doc = json_document(&line)
                    .with_context(|| format!("{}: line {number}", path.display()))?;
                f(doc).with_context(|| format!("{}: line {number}", path.display()))?;
            }
        }
        Format::Json => {
            let mut text = String::new();
            reader
                .read_to_string(&mut text)
                .with_context(|| format!("cannot read {}", path.display()))?;
            let value: serde_json::Value = serde_json::from_str(&text)
                .with_context(|| format!("{}: not JSON", path.display()))?;
            let values = match value {
                serde_json::Value::Array(values) => values,
                other => vec![other],
            };
            for (index, value) in values.into_iter().enumerate() {
                let doc = extjson_document(value)
                    .with_context(|| format!("{}: document {index}", path.display()))?;
                f(doc).with_context(|| format!("{}: document {index}", path.display()))?;
            }
        }
    }
    Ok(())
}

fn json_document(line: &str) -> anyhow::Result<RawDocumentBuf> {
    extjson_document(serde_json::from_str(line).context("not JSON")?)
}

/// Extended JSON (canonical or relaxed, as bson reads it) to a document.
fn extjson_document(value: serde_json::Value) -> anyhow::Result<RawDocumentBuf> {
    match Bson::try_from(value) {
        Ok(Bson::Document(doc)) => {
            RawDocumentBuf::try_from(&doc).context("the document does not serialize")
        }
        Ok(other) => bail!("expected a document, found {other}"),
        Err(e) => bail!("invalid Extended JSON: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn tmp(name: &str, bytes: &[u8]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("infer-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    fn run_on(inputs: Vec<PathBuf>) -> (Result<Outcome, String>, String) {
        let args = InferArgs {
            inputs,
            collection: None,
            enums: false,
            format: InferFormat::Text,
            out: None,
        };
        let mut console = Console::captured("");
        let outcome = run(&args, &mut console).map_err(|e| format!("{e:#}"));
        (outcome, console.stdout_text())
    }

    #[test]
    fn bson_json_lines_and_json_arrays_give_the_same_source() {
        let docs = [bson::doc! { "_id": 1, "n": 2_i64 }, bson::doc! { "_id": 2 }];
        let mut bytes = Vec::new();
        for d in &docs {
            bytes.extend(bson::serialize_to_vec(d).unwrap());
        }
        let lines = "{\"_id\": 1, \"n\": {\"$numberLong\": \"2\"}}\n\n{\"_id\": 2}\n";
        let array = "[{\"_id\": 1, \"n\": {\"$numberLong\": \"2\"}}, {\"_id\": 2}]";
        let (a, from_bson) = run_on(vec![tmp("people.bson", &bytes)]);
        let (b, from_lines) = run_on(vec![tmp("people.jsonl", lines.as_bytes())]);
        let (c, from_array) = run_on(vec![tmp("people.json", array.as_bytes())]);
        assert_eq!(
            (a, b, c),
            (Ok(Outcome::Clean), Ok(Outcome::Clean), Ok(Outcome::Clean))
        );
        assert_eq!(from_bson, from_lines);
        assert_eq!(from_bson, from_array);
        assert!(from_bson.contains("pub n: Option<i64>,"), "{from_bson}");
        assert!(
            from_bson.ends_with("accepts 2 of 2 documents\n"),
            "{from_bson}"
        );
    }

    #[test]
    fn truncated_bson_is_an_error_with_its_place() {
        let bytes = bson::serialize_to_vec(&bson::doc! { "a": 1 }).unwrap();
        let path = tmp("cut.bson", &bytes[..bytes.len() - 2]);
        let (outcome, _) = run_on(vec![path]);
        let error = outcome.unwrap_err();
        assert!(
            error.contains("document 0 at byte 0 is truncated"),
            "{error}"
        );
    }

    #[test]
    fn a_bad_line_names_its_number() {
        let path = tmp("bad.jsonl", b"{\"a\": 1}\n{oops\n");
        let error = run_on(vec![path]).0.unwrap_err();
        assert!(error.contains("bad.jsonl: line 2"), "{error}");
    }

    #[test]
    fn unknown_extensions_are_refused() {
        let path = tmp("data.csv", b"a,b\n");
        assert!(
            run_on(vec![path])
                .0
                .unwrap_err()
                .contains("unknown input kind")
        );
    }
}
