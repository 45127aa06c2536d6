//! `mongo-schema infer`: reads a collection's documents (exported files, stdin, or a live
//! collection), counts what every path holds (`mongo_schema::infer::census`), prints the Rust
//! types that read them and the proof that the validator those types derive accepts every
//! document.
//!
//! Two passes: the census, then the proof against the predicted validator. Files and stdin go
//! through `validate`'s streaming pipeline (`scan`: every core, flat memory, a progress bar on
//! a terminal); live collections through the driver (`live`), or counted by the server's
//! aggregation framework with `--server-side` (`server_side`).

mod live;
mod scan;
mod server_side;

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use mongo_schema::eval::MalformedBson;
use mongo_schema::infer::{self, Census, Inference, Options, Proof};

use crate::Outcome;
use crate::args::{InferArgs, InferFormat};
use crate::console::Console;
use crate::deployment::{self, block_on};
use crate::render;
use crate::validate::Sizes;

/// What `infer` found for one collection.
struct Collected {
    collection: String,
    census: Census,
    inference: Inference,
    proof: Proof,
}

/// Runs `infer`: exit 0 when the predicted validator accepts every document, 1 when it does not.
///
/// # Errors
/// An unreadable or malformed input (with the file and the document's place), a deployment
/// that cannot be read, or a collection name the server would refuse.
pub fn run(args: &InferArgs, console: &mut Console) -> anyhow::Result<Outcome> {
    let options = Options::default().with_enums(args.enums);
    let live = args.inputs.is_empty() && args.connect.uri.is_some();
    let collected = if live {
        from_deployment(args, &options)?
    } else {
        if args.sample.is_some() {
            bail!("--sample reads a live collection: give --uri instead of files");
        }
        if args.server_side {
            bail!(
                "--server-side counts a live collection on its server: give --uri instead of files"
            );
        }
        vec![from_files(args, &options)?]
    };
    let mut complete = true;
    let many = collected.len() > 1;
    let mut reports = Vec::new();
    for (i, c) in collected.iter().enumerate() {
        complete &= c.proof.is_complete();
        if let Some(dir) = &args.out {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
            let file = dir.join(format!("{}.rs", file_stem(&c.collection)));
            std::fs::write(&file, &c.inference.source)
                .with_context(|| format!("cannot write {}", file.display()))?;
            console.err(&format!("wrote {}\n", file.display()));
        }
        match args.format {
            InferFormat::Text => {
                if i > 0 {
                    console.out("\n");
                }
                if args.out.is_none() {
                    console.out(&c.inference.source);
                    console.out("\n");
                }
                if many {
                    console.out(&format!("// collection {}\n", c.collection));
                }
                if args.out.is_some() {
                    // The source, with its lint lines, went to the file: list them here too.
                    console.out(&findings_text(&c.inference.model.findings));
                }
                console.out(&proof_text(&c.proof, &c.census));
            }
            InferFormat::Json => reports.push(json_report(c)),
            InferFormat::Github => {
                let file = args.inputs.first().filter(|p| !scan::is_stdin(p));
                console.out(&github_report(c, file.map(PathBuf::as_path)));
            }
        }
    }
    if args.format == InferFormat::Json {
        let report = if live && args.collection.is_none() {
            serde_json::json!({ "collections": reports })
        } else {
            reports.pop().unwrap_or_default()
        };
        let text = serde_json::to_string_pretty(&report).context("the report")?;
        console.out(&text);
        console.out("\n");
    }
    Ok(if complete {
        Outcome::Clean
    } else {
        Outcome::Findings
    })
}

fn json_report(c: &Collected) -> serde_json::Value {
    let findings: Vec<serde_json::Value> = c
        .inference
        .model
        .findings
        .iter()
        .map(|f| {
            // As the `lint` command's JSON names them (`render::json::findings`).
            serde_json::json!({
                "severity": f.severity.annotation_level(),
                "kind": f.rule,
                "path": f.path,
                "message": f.message,
            })
        })
        .collect();
    let admit = admit(&c.proof, &c.census)
        .map(|(kind, choice)| serde_json::json!({ "kind": kind, "choice": choice }));
    serde_json::json!({
        "collection": c.collection,
        "documents": c.census.documents,
        "tooDeep": c.census.too_deep,
        "largestDocument": c.census.largest_document,
        "paths": c.census.paths(),
        "notes": c.inference.model.notes,
        "findings": findings,
        "proof": {
            "checked": c.proof.checked,
            "accepted": c.proof.accepted,
            "exceptions": c.proof.exceptions,
            "admit": admit,
        },
        "source": c.inference.source,
    })
}

/// The lint findings as Rust comments, one a line.
fn findings_text(findings: &[mongo_schema::Finding]) -> String {
    findings
        .iter()
        .map(|f| {
            let path = if f.path.is_empty() {
                "(documents)"
            } else {
                &f.path
            };
            format!("// {} ({}): {path}: {}\n", f.severity, f.rule, f.message)
        })
        .collect()
}

/// One annotation per lint finding, and an error annotation per rejected document listed.
fn github_report(c: &Collected, file: Option<&Path>) -> String {
    let mut out = render::github::findings(&c.inference.model.findings, file);
    let choice = admit(&c.proof, &c.census).map(|(_, choice)| choice);
    for e in &c.proof.exceptions {
        let id = e.id.as_deref().unwrap_or("(no _id)");
        let mut message = format!(
            "the validator the inferred types derive rejects document {} (_id {id}): {}",
            e.index,
            e.reasons.join("; ")
        );
        if let Some(choice) = choice {
            message.push_str(&format!("; to admit it: {choice}"));
        }
        out.push_str(&render::github::annotation(
            mongo_schema::Severity::Error,
            file,
            &format!("mongo-schema infer: {}", c.collection),
            &message,
        ));
    }
    out
}

/// Files and stdin through `validate`'s pipeline: the census pass, then the proof pass (stdin
/// read again from its spooled copy).
fn from_files(args: &InferArgs, options: &Options) -> anyhow::Result<Collected> {
    let paths = if args.inputs.is_empty() {
        if std::io::stdin().is_terminal() {
            bail!(
                "no input: give the files to read, `-` to read {} from stdin, or --uri to read \
                 a live collection",
                args.input_format.noun()
            );
        }
        vec![PathBuf::from("-")]
    } else {
        args.inputs.clone()
    };
    let collection = match &args.collection {
        Some(name) => name.clone(),
        None => default_name(&paths[0])?,
    };
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
        .max(1);
    from_paths(&paths, args, options, collection, Sizes::new(threads))
}

/// [`from_files`] with the pipeline's sizes given (tests use tiny chunks to cross their edges).
fn from_paths(
    paths: &[PathBuf],
    args: &InferArgs,
    options: &Options,
    collection: String,
    sizes: Sizes,
) -> anyhow::Result<Collected> {
    let mut inputs = scan::inputs(paths, args.input_format);
    let mut census = Census::new();
    let census_pass = scan::Scan {
        fresh: &Census::new,
        add: &|part: &mut Census, bytes: &[u8]| {
            let doc = bson::RawDocument::from_bytes(bytes).map_err(|e| malformed(bytes, e))?;
            part.add(doc).map_err(|e| malformed(bytes, e))
        },
        label: "census",
    };
    let _spool = scan::scan(&mut inputs, sizes, &census_pass, &mut |part| {
        census.merge(&part);
    })?;
    let inference = infer::infer(&census, &collection, options)?;
    let mut proof = Proof::new(&inference.validator).context("the predicted validator")?;
    let template = proof.part();
    let proof_pass = scan::Scan {
        fresh: &|| template.part(),
        add: &|part: &mut Proof, bytes: &[u8]| {
            part.check(bson::RawDocument::from_bytes(bytes).map_err(|e| malformed(bytes, e))?);
            Ok(())
        },
        label: "proof",
    };
    scan::scan(&mut inputs, sizes, &proof_pass, &mut |part| {
        proof.merge(part)
    })?;
    Ok(Collected {
        collection,
        census,
        inference,
        proof,
    })
}

/// A document bson cannot read, located as the pipeline locates a break: the evaluator's
/// structural check says where and why (byte offset, in our words), as `validate` does; bson's
/// own message only when that check finds nothing.
fn malformed(bytes: &[u8], error: bson::error::Error) -> MalformedBson {
    mongo_schema::eval::check_bson(bytes)
        .err()
        .unwrap_or_else(|| MalformedBson {
            offset: 0,
            reason: error.message.clone().unwrap_or_else(|| error.to_string()),
        })
}

/// A live collection, or every collection of the database, through the driver.
fn from_deployment(args: &InferArgs, options: &Options) -> anyhow::Result<Vec<Collected>> {
    let read = match args.sample {
        Some(size) => live::Read::Sample {
            size,
            max_time: args.max_time,
        },
        None => live::Read::Scan {
            max_time: args.max_time,
        },
    };
    // Each read has its own server-side limit; the client waits for the reads and a margin.
    let wait = args
        .max_time
        .saturating_mul(2)
        .saturating_add(args.connect.timeout);
    block_on(wait, async {
        let deployment = deployment::connect(&args.connect).await?;
        let names = live::collections(&deployment, args.collection.as_deref()).await?;
        let db = &deployment.db;
        // The indexes and options to declare beside the types, normalized as `check` reads them.
        let specs = crate::catalog::read_live(db, Some(&names), 4)
            .await?
            .live_specs()?;
        let mut collected = Vec::new();
        for name in names {
            let (census, kept) = if args.server_side {
                let census = server_side::census(db, &name, args.max_time).await?;
                (census, Vec::new())
            } else {
                live::census(db, &name, read).await?
            };
            let inference = match specs.iter().find(|s| s.name == name) {
                Some(spec) => infer::infer_live(&census, spec, options)?,
                // Dropped between the listings: the types alone.
                None => infer::infer(&census, &name, options)?,
            };
            let mut proof = Proof::new(&inference.validator).context("the predicted validator")?;
            if args.server_side {
                server_side::prove(db, &name, &inference.validator, &mut proof, args.max_time)
                    .await?;
            } else {
                live::prove(db, &name, read, &kept, &mut proof).await?;
            }
            collected.push(Collected {
                collection: name,
                census,
                inference,
                proof,
            });
        }
        Ok(collected)
    })
}

/// The proof as Rust comments, so the whole output still compiles when pasted.
fn proof_text(proof: &Proof, census: &Census) -> String {
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
    if let Some((_, choice)) = admit(proof, census) {
        out.push_str(&format!("// to admit them: {choice}\n"));
    }
    out
}

/// What would admit the rejected documents, with a stable name for programs (`too-deep`,
/// `not-in-census`): the types accept every value the census saw, so a rejection is a document
/// the census could not describe.
fn admit(proof: &Proof, census: &Census) -> Option<(&'static str, &'static str)> {
    if proof.is_complete() {
        None
    } else if census.too_deep > 0 {
        // The server refuses to store them too (the manual's Limits and Thresholds: "Nested
        // Depth for BSON Documents", 100 levels, as `mongo_schema::eval::MAX_DEPTH`).
        Some((
            "too-deep",
            "no choice of types can: they nest deeper than the server's 100 levels, which it \
             refuses to store; flatten them",
        ))
    } else {
        Some((
            "not-in-census",
            "run infer again: these documents were not in the census (written between the two \
             scans of a live collection?)",
        ))
    }
}

/// `dump/shop/orders.bson` -> `orders`.
fn default_name(path: &Path) -> anyhow::Result<String> {
    if scan::is_stdin(path) {
        bail!("reading stdin: name the collection with --collection NAME");
    }
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
        let args = args_for(inputs);
        let mut console = Console::captured("");
        let outcome = run(&args, &mut console).map_err(|e| format!("{e:#}"));
        (outcome, console.stdout_text())
    }

    fn args_for(inputs: Vec<PathBuf>) -> InferArgs {
        InferArgs {
            inputs,
            input_format: crate::args::InputFormat::Auto,
            threads: Some(2),
            collection: None,
            connect: crate::args::ConnectArgs {
                uri: None,
                db: None,
                timeout: std::time::Duration::from_secs(5),
            },
            sample: None,
            max_time: std::time::Duration::from_secs(5),
            server_side: false,
            enums: false,
            format: InferFormat::Text,
            out: None,
        }
    }

    /// Documents of varied shapes: sparse fields, fields that change type, growing arrays,
    /// a map, strings that cross a chunk edge in JSON.
    fn varied(n: i64) -> Vec<bson::Document> {
        (0..n)
            .map(|i| {
                let mut d = bson::doc! { "_id": i, "name": format!("n{}", i % 37) };
                if i % 3 == 0 {
                    d.insert("sometimes", i * 1_000_000_007);
                }
                if i % 5 == 0 {
                    d.insert("mixed", "text");
                } else if i % 7 == 0 {
                    d.insert("mixed", bson::doc! { "k": i });
                }
                let tags: Vec<_> = (0..i % 9).map(|t| format!("t{t}")).collect();
                d.insert("tags", tags);
                let mut m = bson::Document::new();
                for k in 0..(i % 4) * 30 {
                    m.insert(format!("key{}", (k * 7 + i) % 200), k);
                }
                d.insert("m", m);
                d
            })
            .collect()
    }

    #[test]
    fn chunk_edges_and_threads_do_not_change_the_census_or_the_proof() {
        let docs = varied(400);
        let mut sequential = Census::new();
        for d in &docs {
            sequential
                .add(&bson::RawDocumentBuf::try_from(d).unwrap())
                .unwrap();
        }
        let mut bytes = Vec::new();
        let mut lines = String::new();
        for d in &docs {
            bytes.extend(bson::serialize_to_vec(d).unwrap());
            lines.push_str(
                &bson::Bson::Document(d.clone())
                    .into_canonical_extjson()
                    .to_string(),
            );
            lines.push('\n');
        }
        let array = format!("[{}]", lines.trim_end().replace('\n', ",\n"));
        let files = [
            tmp("edges.bson", &bytes),
            tmp("edges.jsonl", lines.as_bytes()),
            tmp("edges.json", array.as_bytes()),
        ];
        let expected = serde_json::to_string(&sequential.paths()).unwrap();
        for file in files {
            for (threads, chunk) in [(1, 1 << 20), (3, 61), (4, 1000)] {
                let sizes = Sizes {
                    threads,
                    chunk,
                    credits: threads * 2 + 1,
                    max_line: 1 << 20,
                };
                let args = args_for(vec![file.clone()]);
                let got = from_paths(
                    std::slice::from_ref(&file),
                    &args,
                    &Options::default(),
                    "edges".into(),
                    sizes,
                )
                .unwrap();
                let what = format!(
                    "{} with {threads} threads, chunks of {chunk}",
                    file.display()
                );
                assert_eq!(got.census, sequential, "{what}");
                assert_eq!(
                    serde_json::to_string(&got.census.paths()).unwrap(),
                    expected,
                    "{what}"
                );
                assert_eq!(
                    (got.proof.checked, got.proof.accepted),
                    (400, 400),
                    "{what}"
                );
            }
        }
    }

    #[test]
    fn stdin_is_spooled_so_the_proof_reads_the_same_documents() {
        use crate::validate::source::{Framing, Source};
        let text = "[{\"a\": 1}, {\"a\": \"x\", \"b\": [1, 2]}]";
        let source = Source::Stream(
            Box::new(crate::json_array::ArrayLines::new(std::io::Cursor::new(
                text.as_bytes().to_vec(),
            ))),
            Framing::Array,
        );
        let mut spool = None;
        let (source, path) = scan::tee(source, &mut spool).unwrap();
        let sizes = Sizes::new(2);
        let count = |source: Source| -> Census {
            let mut census = Census::new();
            let pass = scan::Scan {
                fresh: &Census::new,
                add: &|part: &mut Census, bytes: &[u8]| {
                    part.add(bson::RawDocument::from_bytes(bytes).map_err(|e| malformed(bytes, e))?)
                        .map_err(|e| malformed(bytes, e))
                },
                label: "census",
            };
            scan::scan_one(source, "-", sizes, &pass, &mut |p| census.merge(&p)).unwrap();
            census
        };
        let first = count(source);
        assert_eq!(first.documents, 2);
        let again = Source::open(&path, crate::args::InputFormat::Jsonl).unwrap();
        assert_eq!(count(again), first);
        drop(spool);
        assert!(!path.exists(), "the spool is removed");
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
            error.contains("cut.bson: truncated at byte") && error.contains("0 documents read"),
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
    fn a_rejection_says_what_would_admit_it() {
        let mut census = Census::new();
        census.add(&bson::rawdoc! { "a": 1 }).unwrap();
        let inference = infer::infer(&census, "c", &Options::default()).unwrap();
        let mut proof = Proof::new(&inference.validator).unwrap();
        proof.check(&bson::rawdoc! { "a": 1 });
        assert_eq!(admit(&proof, &census), None);
        // A document the census never saw (written after it, on a live collection).
        proof.check(&bson::rawdoc! { "a": "late" });
        let (kind, choice) = admit(&proof, &census).unwrap();
        assert_eq!(kind, "not-in-census");
        assert!(choice.starts_with("run infer again"));
        census.too_deep = 1;
        let (kind, choice) = admit(&proof, &census).unwrap();
        assert_eq!(kind, "too-deep");
        assert!(choice.starts_with("no choice of types can"));
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
