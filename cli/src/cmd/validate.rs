//! `mongo-schema validate`: checks exported documents against a `$jsonSchema` offline, with the
//! server's verdicts and explanations (`mongo_schema::eval`): loads the validator, runs the
//! streaming pipeline (`crate::validate`) and writes its report.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use bson::Bson;
use mongo_schema::eval::Validator;

use crate::args::{ValidateArgs, ValidateFormat};
use crate::validate::{self, Sizes};

/// Runs `validate`, writing the report to stdout: exit 0 when every document is valid, 1 when
/// some are invalid, 2 when some are not fully checked (neither valid nor invalid).
///
/// # Errors
/// An unreadable or rejected schema, an unreadable input, or malformed input (the message names
/// the file, the line or byte offset, and how many documents were read before): exit 2.
pub fn run(args: &ValidateArgs) -> anyhow::Result<ExitCode> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let code = run_to(args, &mut out)?;
    match out.flush() {
        // A reader that has seen enough (`| head`) ends the output, as for every command.
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(anyhow::Error::new(e).context("writing results"))
        }
        _ => Ok(code),
    }
}

/// [`run`], writing the report to `out` (notes and progress still go to stderr).
///
/// # Errors
/// As [`run`].
pub fn run_to(args: &ValidateArgs, out: &mut impl Write) -> anyhow::Result<ExitCode> {
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
        .max(1);
    run_sized(args, Sizes::new(threads), out)
}

/// [`run_to`] with the pipeline's sizes given (tests use tiny chunks to cross their edges).
fn run_sized(args: &ValidateArgs, sizes: Sizes, out: &mut impl Write) -> anyhow::Result<ExitCode> {
    let validator = match (&args.schema, &args.manifest) {
        (Some(schema), _) => load_schema(schema)?,
        (None, Some(manifest)) => load_from_manifest(manifest, args.collection.as_deref())?,
        (None, None) => {
            bail!("give the schema with --schema FILE or --manifest FILE --collection NAME")
        }
    };
    let inputs = if args.inputs.is_empty() {
        if std::io::stdin().is_terminal() {
            bail!(
                "no input: give the files to check, or `-` to read {} from stdin",
                args.input_format.noun()
            );
        }
        vec![PathBuf::from("-")]
    } else {
        args.inputs.clone()
    };
    let options = validate::Options {
        input_format: args.input_format,
        format: args.format,
        examples: args.examples,
        sizes,
    };
    let tally = validate::run(&validator, &inputs, &options, out)?;
    let written = match args.format {
        ValidateFormat::Summary => tally.write_summary(out),
        ValidateFormat::Json => tally.write_json(out),
        ValidateFormat::Github => tally.write_github(out),
        ValidateFormat::Jsonl => Ok(()),
    };
    if let Err(e) = written
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        return Err(anyhow::Error::new(e).context("writing results"));
    }
    if tally.not_fully_checked() > 0 && args.format == ValidateFormat::Jsonl {
        // The lines mark each one; the exit code needs its reason said once.
        for line in tally.open_lines() {
            eprintln!("error: {line}");
        }
    }
    // A document not fully checked is neither valid nor rejected: nobody here knows what the
    // server would say, so the run cannot answer "nothing rejected" (exit 2, as an error).
    Ok(if tally.not_fully_checked() > 0 {
        ExitCode::from(2)
    } else if tally.invalid() == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Reads a schema file: Extended JSON holding a schema or a validator.
fn load_schema(path: &Path) -> anyhow::Result<Validator> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading schema {}", path.display()))?;
    let json: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{}: not JSON", path.display()))?;
    let doc = match Bson::try_from(json) {
        Ok(Bson::Document(d)) => d,
        Ok(other) => bail!("{}: expected an object, found {other}", path.display()),
        Err(e) => bail!("{}: invalid Extended JSON: {e}", path.display()),
    };
    // A file holds a schema (bare, or {"$jsonSchema": ...} with explicit query operators
    // beside it): a key that is not a keyword is the server's "Unknown $jsonSchema keyword".
    let validator = Validator::from_document(&doc).with_context(|| {
        format!(
            "{}: the server would reject this $jsonSchema",
            path.display()
        )
    })?;
    fully_evaluated(validator, &path.display().to_string())
}

/// Refuses a validator with entries the evaluator does not check: every verdict would be open,
/// so the run could only say "not fully checked", never count valid documents.
fn fully_evaluated(validator: Validator, what: &str) -> anyhow::Result<Validator> {
    if validator.is_fully_evaluated() {
        return Ok(validator);
    }
    let skipped: Vec<&str> = validator
        .not_evaluated()
        .keys()
        .map(String::as_str)
        .collect();
    bail!(
        "{what}: not fully checked: the validator's {} not evaluated locally (only \
         $jsonSchema is), so no document could be counted valid; check them on a server \
         (mongo-schema audit) or validate the $jsonSchema alone",
        if skipped.len() == 1 {
            format!("{} is", skipped[0])
        } else {
            format!("{} are", skipped.join(", "))
        }
    )
}

/// The validator a manifest declares for `collection` (or for its only validated collection).
fn load_from_manifest(path: &Path, collection: Option<&str>) -> anyhow::Result<Validator> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading manifest {}", path.display()))?;
    let manifest = mongo_schema::manifest::Manifest::from_json(&text)
        .with_context(|| format!("{}: not a manifest", path.display()))?;
    let validated: Vec<_> = manifest
        .collections
        .iter()
        .filter(|c| c.validator.is_some())
        .collect();
    let spec = match collection {
        Some(name) => match manifest.collections.iter().find(|c| c.name == name) {
            Some(spec) => spec,
            None => {
                let names: Vec<&str> = manifest
                    .collections
                    .iter()
                    .map(|c| c.name.as_str())
                    .collect();
                bail!(
                    "{}: no collection {name:?} (it declares {})",
                    path.display(),
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                );
            }
        },
        None => match validated.as_slice() {
            [only] => only,
            _ => {
                let names: Vec<&str> = validated.iter().map(|c| c.name.as_str()).collect();
                bail!(
                    "{}: {} collections have a validator ({}); choose one with --collection",
                    path.display(),
                    names.len(),
                    names.join(", ")
                );
            }
        },
    };
    let Some(declared) = &spec.validator else {
        // A view has no validator: its documents are checked against the schema its type
        // derives (the manifest's `documentSchema`), as a `--schema` file would be.
        if let Some(schema) = &spec.document_schema {
            let validator = Validator::from_document(&schema.to_document()).with_context(|| {
                format!(
                    "{}: the server would reject the documentSchema of view {:?}",
                    path.display(),
                    spec.name
                )
            })?;
            return fully_evaluated(validator, &format!("{} ({})", path.display(), spec.name));
        }
        if spec.is_view() {
            bail!(
                "{}: view {:?} has no validator and the manifest gives no documentSchema for \
                 its documents (a derived view's manifest has one: run generate again)",
                path.display(),
                spec.name
            );
        }
        bail!(
            "{}: collection {:?} declares no validator (time-series collections have none)",
            path.display(),
            spec.name
        );
    };
    // The declared validator option, read as the server reads it: a query document.
    let validator = Validator::from_validator(&declared.to_document()).with_context(|| {
        format!(
            "{}: the server would reject the $jsonSchema of {:?}",
            path.display(),
            spec.name
        )
    })?;
    fully_evaluated(validator, &format!("{} ({})", path.display(), spec.name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::RawDocumentBuf;

    use crate::args::InputFormat;

    fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    }

    fn tmp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("validate-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn args(schema: PathBuf, inputs: Vec<PathBuf>) -> ValidateArgs {
        ValidateArgs {
            schema: Some(schema),
            manifest: None,
            collection: None,
            inputs,
            input_format: InputFormat::Auto,
            format: ValidateFormat::Summary,
            threads: Some(2),
            examples: 3,
        }
    }

    #[test]
    fn exit_codes_follow_the_verdicts() {
        let d = tmp("codes");
        let schema = write(&d, "s.json", br#"{"$jsonSchema": {"required": ["a"]}}"#);
        let good = write(&d, "good.jsonl", b"{\"a\": 1}\n{\"a\": 2, \"b\": 3}\n");
        let bad = write(&d, "bad.jsonl", b"{\"a\": 1}\n{\"_id\": 7}\n");
        assert_eq!(
            run(&args(schema.clone(), vec![good])).unwrap(),
            ExitCode::SUCCESS
        );
        assert_eq!(run(&args(schema, vec![bad])).unwrap(), ExitCode::from(1));
    }

    #[test]
    fn bson_streams_and_reports_where_a_truncated_file_breaks() {
        let d = tmp("bson");
        let schema = write(&d, "s.json", br#"{"required": ["a"]}"#);
        let mut bytes = Vec::new();
        for i in 0..5000 {
            bytes.extend_from_slice(
                RawDocumentBuf::try_from(&bson::doc! { "a": i })
                    .unwrap()
                    .as_bytes(),
            );
        }
        let whole = write(&d, "all.bson", &bytes);
        assert_eq!(
            run(&args(schema.clone(), vec![whole])).unwrap(),
            ExitCode::SUCCESS
        );
        let cut = write(&d, "cut.bson", &bytes[..bytes.len() - 3]);
        let e = run(&args(schema, vec![cut])).unwrap_err().to_string();
        assert!(
            e.contains("truncated") && e.contains("4999 documents read before"),
            "{e}"
        );
    }

    #[test]
    fn malformed_json_names_the_line() {
        let d = tmp("json");
        let schema = write(&d, "s.json", br#"{"required": ["a"]}"#);
        let input = write(&d, "in.ndjson", b"{\"a\": 1}\n{\"a\": \n");
        let e = run(&args(schema, vec![input])).unwrap_err().to_string();
        assert!(e.contains("line 2"), "{e}");
    }

    #[test]
    fn a_schema_the_server_rejects_is_an_error() {
        let d = tmp("schema");
        let schema = write(&d, "s.json", br#"{"$jsonSchema": {"type": "integer"}}"#);
        let input = write(&d, "in.json", b"[{\"a\": 1}]");
        let e = format!("{:#}", run(&args(schema, vec![input])).unwrap_err());
        assert!(e.contains("integer"), "{e}");
    }

    /// A view has no validator: `--collection VIEW` checks exported view output against the
    /// schema its type derives (the manifest's `documentSchema`, issue 15 item 1).
    #[test]
    fn a_view_is_validated_against_its_document_schema() {
        let d = tmp("view");
        let view = |extra: &str| {
            format!(
                r#"{{"collections": [{{"name": "users", "options": {{}}, "indexes": []}},
                {{"name": "names", "options": {{"viewOn": "users", "pipeline": [{{"$project": {{"name": 1}}}}]}},
                  "indexes": []{extra}}}]}}"#
            )
        };
        let with_schema = write(
            &d,
            "m.json",
            view(r#", "documentSchema": {"bsonType": "object", "required": ["name"], "properties": {"name": {"bsonType": "string"}}}"#)
                .as_bytes(),
        );
        let output = write(
            &d,
            "names.jsonl",
            b"{\"name\": \"Ada\"}\n{\"name\": 7}\n{}\n",
        );
        let mut a = args(PathBuf::new(), vec![output.clone()]);
        a.schema = None;
        a.manifest = Some(with_schema);
        a.collection = Some("names".into());
        let mut out = Vec::new();
        assert_eq!(run_to(&a, &mut out).unwrap(), ExitCode::from(1));
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("valid: 1  invalid: 2"), "{text}");

        // A hand-written manifest without it says what is missing.
        a.manifest = Some(write(&d, "bare.json", view("").as_bytes()));
        let error = run_to(&a, &mut Vec::new()).unwrap_err().to_string();
        assert!(
            error.contains(
                "view \"names\" has no validator and the manifest gives no documentSchema"
            ),
            "{error}"
        );
    }
}
