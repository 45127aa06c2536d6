//! `mongo-schema validate`: checks exported documents against a `$jsonSchema` offline, with the
//! server's verdicts and explanations (`mongo_schema::eval`).
//!
//! Inputs stream in batches through a bounded pipeline (a reader, worker threads, an in-order
//! writer), so memory stays flat however large the file. `.bson` is concatenated BSON as
//! mongodump writes it; `.jsonl`/`.ndjson` and `-` (stdin) are one Extended JSON document per
//! line as mongoexport writes them; `.json` is one document or an array (read whole).

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{BufRead, BufReader, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use bson::{Bson, Document, RawDocumentBuf};
use mongo_schema::eval::{MalformedBson, Validator, Verdict};

/// Arguments of `mongo-schema validate`.
#[derive(Clone, Debug, clap::Args)]
pub struct ValidateArgs {
    /// A JSON file holding a `$jsonSchema` object or a `{"$jsonSchema": ...}` validator
    /// (Extended JSON, canonical or relaxed).
    #[arg(long, value_name = "FILE")]
    pub schema: PathBuf,
    /// Documents to check: `.bson` (mongodump), `.jsonl`/`.ndjson` (mongoexport), `.json` (one
    /// document or an array), `-` for JSON lines on stdin. Default: `-`.
    #[arg(value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
    /// `summary` (default): counts and the failing rules ranked; `jsonl`: one line per document.
    #[arg(long, value_enum, default_value_t = ValidateFormat::Summary)]
    pub format: ValidateFormat,
    /// Worker threads (default: every core).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Example document ids listed per failing rule in the summary.
    #[arg(long, default_value_t = 3, value_name = "N")]
    pub examples: usize,
}

/// Output formats of `validate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ValidateFormat {
    /// Counts and the failing rules ranked by count, with example ids.
    Summary,
    /// `{"index": N, "_id": ..., "valid": bool, "errors": [...]}` per document.
    Jsonl,
}

/// Runs `validate`, writing the report to stdout: exit 0 when every document is valid, 1 when
/// some are not.
///
/// # Errors
/// An unreadable or rejected schema, an unreadable input, or malformed input (the message names
/// the file, the line or byte offset, and how many documents were read before): exit 2.
pub fn run(args: &ValidateArgs) -> anyhow::Result<ExitCode> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let code = run_to(args, &mut out)?;
    out.flush()?;
    Ok(code)
}

/// [`run`], writing the report to `out` (notes and progress still go to stderr).
///
/// # Errors
/// As [`run`].
pub fn run_to(args: &ValidateArgs, out: &mut impl Write) -> anyhow::Result<ExitCode> {
    let validator = load_schema(&args.schema)?;
    if !validator.not_evaluated().is_empty() {
        eprintln!(
            "note: validator entries not evaluated locally: {}",
            validator.not_evaluated()
        );
    }
    let inputs = if args.inputs.is_empty() {
        vec![PathBuf::from("-")]
    } else {
        args.inputs.clone()
    };
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
        .max(1);
    let mut tally = Tally::new(args.examples);
    let mut progress = Progress::new(std::io::stderr().is_terminal());
    for input in &inputs {
        check_input(
            &validator,
            input,
            threads,
            args.format,
            &mut tally,
            &mut progress,
            out,
        )?;
    }
    progress.finish();
    if args.format == ValidateFormat::Summary {
        tally.write_summary(out)?;
    }
    Ok(if tally.invalid == 0 {
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
    Validator::from_document(&doc).with_context(|| {
        format!(
            "{}: the server would reject this $jsonSchema",
            path.display()
        )
    })
}

/// Documents to check, in batches: raw bytes and where each document starts.
struct Batch {
    seq: usize,
    /// Byte offset of the batch's first document in a `.bson` input (0 for JSON inputs).
    offset: u64,
    /// Index of the batch's first document in the whole run.
    first_index: u64,
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

/// One document's outcome.
struct Outcome {
    id: Option<Bson>,
    verdict: Verdict,
}

const BATCH_BYTES: usize = 1 << 20;
const BATCH_DOCS: usize = 2048;

enum Source {
    Bson(BufReader<Box<dyn Read + Send>>),
    Lines(BufReader<Box<dyn Read + Send>>),
    Whole(std::vec::IntoIter<Document>),
}

/// Where an input is, for error messages.
struct Position {
    name: String,
    docs: u64,
    offset: u64,
    line: u64,
}

impl Source {
    fn open(path: &Path) -> anyhow::Result<Source> {
        let name = path.display().to_string();
        if name == "-" {
            let stdin: Box<dyn Read + Send> = Box::new(std::io::stdin());
            return Ok(Source::Lines(BufReader::with_capacity(1 << 16, stdin)));
        }
        let file: Box<dyn Read + Send> =
            Box::new(File::open(path).with_context(|| format!("opening {name}"))?);
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or_default()
            .to_ascii_lowercase();
        match ext.as_str() {
            "bson" => Ok(Source::Bson(BufReader::with_capacity(1 << 20, file))),
            "jsonl" | "ndjson" => Ok(Source::Lines(BufReader::with_capacity(1 << 16, file))),
            "json" => {
                let mut text = String::new();
                BufReader::new(file)
                    .read_to_string(&mut text)
                    .with_context(|| format!("reading {name}"))?;
                let json: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
                    anyhow::anyhow!("{name}: line {} column {}: {e}", e.line(), e.column())
                })?;
                let docs = match json {
                    serde_json::Value::Array(items) => items
                        .into_iter()
                        .enumerate()
                        .map(|(i, v)| extjson_doc(v).with_context(|| format!("{name}: item {i}")))
                        .collect::<anyhow::Result<Vec<_>>>()?,
                    other => vec![extjson_doc(other).with_context(|| name.clone())?],
                };
                Ok(Source::Whole(docs.into_iter()))
            }
            other => bail!(
                "{name}: unknown input kind {other:?}; expected .bson, .jsonl, .ndjson, .json or -"
            ),
        }
    }

    /// Fills `batch` with up to a batch of documents; `Ok(false)` at the end of input.
    fn fill(&mut self, batch: &mut Batch, pos: &mut Position) -> anyhow::Result<bool> {
        match self {
            Source::Bson(r) => {
                while batch.bytes.len() < BATCH_BYTES && batch.ends.len() < BATCH_DOCS {
                    let mut len = [0u8; 4];
                    match read_full(r, &mut len) {
                        Ok(0) => break,
                        Ok(4) => {}
                        Ok(n) => bail!(
                            "{}: truncated at byte {}: {n} bytes of a document length, after {} documents",
                            pos.name,
                            pos.offset,
                            pos.docs
                        ),
                        Err(e) => return Err(e).context(format!("reading {}", pos.name)),
                    }
                    let n = i32::from_le_bytes(len);
                    if !(5..=48 * 1024 * 1024).contains(&n) {
                        bail!(
                            "{}: byte {}: document length {n} is not plausible (5 bytes to 48 MiB), after {} documents",
                            pos.name,
                            pos.offset,
                            pos.docs
                        );
                    }
                    let start = batch.bytes.len();
                    batch.bytes.extend_from_slice(&len);
                    batch.bytes.resize(start + n as usize, 0);
                    let got = read_full(r, &mut batch.bytes[start + 4..])
                        .with_context(|| format!("reading {}", pos.name))?;
                    if got != n as usize - 4 {
                        bail!(
                            "{}: truncated at byte {}: the document starting at byte {} needs {n} bytes, {} remain; {} documents read before",
                            pos.name,
                            pos.offset + 4 + got as u64,
                            pos.offset,
                            got + 4,
                            pos.docs
                        );
                    }
                    pos.offset += u64::from(n.unsigned_abs());
                    pos.docs += 1;
                    batch.ends.push(batch.bytes.len());
                }
            }
            Source::Lines(r) => {
                let mut line = String::new();
                while batch.bytes.len() < BATCH_BYTES && batch.ends.len() < BATCH_DOCS {
                    line.clear();
                    let n = r
                        .read_line(&mut line)
                        .with_context(|| format!("{}: line {}", pos.name, pos.line + 1))?;
                    if n == 0 {
                        break;
                    }
                    pos.line += 1;
                    if line.trim().is_empty() {
                        continue;
                    }
                    let json: serde_json::Value = serde_json::from_str(&line).map_err(|e| {
                        anyhow::anyhow!(
                            "{}: line {} column {}: {e}; {} documents read before",
                            pos.name,
                            pos.line,
                            e.column(),
                            pos.docs
                        )
                    })?;
                    let doc = extjson_doc(json).with_context(|| {
                        format!(
                            "{}: line {}; {} documents read before",
                            pos.name, pos.line, pos.docs
                        )
                    })?;
                    push_doc(batch, &doc)?;
                    pos.docs += 1;
                }
            }
            Source::Whole(docs) => {
                for doc in docs.by_ref().take(BATCH_DOCS) {
                    push_doc(batch, &doc)?;
                    pos.docs += 1;
                }
            }
        }
        Ok(!batch.ends.is_empty())
    }
}

fn read_full(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

fn extjson_doc(json: serde_json::Value) -> anyhow::Result<Document> {
    match Bson::try_from(json) {
        Ok(Bson::Document(d)) => Ok(d),
        Ok(other) => bail!("expected a document, found {other}"),
        Err(e) => bail!("invalid Extended JSON: {e}"),
    }
}

fn push_doc(batch: &mut Batch, doc: &Document) -> anyhow::Result<()> {
    let raw = RawDocumentBuf::try_from(doc).context("document does not serialize to BSON")?;
    batch.bytes.extend_from_slice(raw.as_bytes());
    batch.ends.push(batch.bytes.len());
    Ok(())
}

/// Checks a batch: the outcomes, or the first malformed document (its index in the batch, its
/// byte offset in the input, and what is wrong).
fn check_batch(
    validator: &Validator,
    batch: &Batch,
) -> Result<Vec<Outcome>, (usize, u64, MalformedBson)> {
    let mut start = 0;
    let mut outcomes = Vec::with_capacity(batch.ends.len());
    for (k, &end) in batch.ends.iter().enumerate() {
        let bytes = &batch.bytes[start..end];
        let doc_offset = batch.offset + start as u64;
        start = end;
        // Structure (lengths, types, UTF-8, nesting) and verdict in one call, on this thread.
        let verdict = validator
            .validate_bytes(bytes)
            .map_err(|e| (k, doc_offset, e))?;
        let id = if verdict.is_valid() {
            None
        } else {
            bson::RawDocument::from_bytes(bytes)
                .ok()
                .and_then(|d| d.get("_id").ok().flatten())
                .and_then(|v| Bson::try_from(v).ok())
        };
        outcomes.push(Outcome { id, verdict });
    }
    Ok(outcomes)
}

/// What a worker sends back: the batch's place, its outcomes or first malformed document, and
/// its size.
type Done = (
    usize,
    u64,
    Result<Vec<Outcome>, (usize, u64, MalformedBson)>,
    usize,
);

#[allow(clippy::too_many_arguments)] // reason: one pipeline, its knobs and its sinks
fn check_input(
    validator: &Validator,
    path: &Path,
    threads: usize,
    format: ValidateFormat,
    tally: &mut Tally,
    progress: &mut Progress,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let mut source = Source::open(path)?;
    let mut pos = Position {
        name: path.display().to_string(),
        docs: 0,
        offset: 0,
        line: 0,
    };
    let base = tally.read;
    // Bounded queues keep memory flat: at most a few batches in flight per worker.
    let (work_tx, work_rx) = mpsc::sync_channel::<Batch>(threads * 2);
    let (done_tx, done_rx) = mpsc::sync_channel::<Done>(threads * 2);
    let work_rx = std::sync::Mutex::new(work_rx);
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| -> anyhow::Result<()> {
        for _ in 0..threads {
            let done_tx = done_tx.clone();
            let work_rx = &work_rx;
            scope.spawn(move || {
                loop {
                    let batch = {
                        let rx = work_rx.lock().expect("no worker panics holding the lock");
                        rx.recv()
                    };
                    let Ok(batch) = batch else { break };
                    let outcomes = check_batch(validator, &batch);
                    let bytes = batch.bytes.len();
                    // If the writer has stopped, keep draining so the reader never blocks.
                    let _ = done_tx.send((batch.seq, batch.first_index, outcomes, bytes));
                }
            });
        }
        drop(done_tx);
        let stop = &stop;
        let reader = scope.spawn(move || -> anyhow::Result<()> {
            let mut seq = 0;
            let mut next_index = base;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let mut batch = Batch {
                    seq,
                    offset: pos.offset,
                    first_index: next_index,
                    bytes: Vec::with_capacity(BATCH_BYTES + 4096),
                    ends: Vec::new(),
                };
                let more = source.fill(&mut batch, &mut pos);
                if !batch.ends.is_empty() {
                    next_index += batch.ends.len() as u64;
                    seq += 1;
                    if work_tx.send(batch).is_err() {
                        break;
                    }
                }
                if !more? {
                    break;
                }
            }
            Ok(())
        });
        // Write results in input order; after a malformed document, drain and stop.
        let mut pending = BTreeMap::new();
        let mut next = 0;
        let mut failed: Option<anyhow::Error> = None;
        for (seq, first, outcomes, bytes) in done_rx {
            if failed.is_some() {
                continue;
            }
            pending.insert(seq, (first, outcomes, bytes));
            'batches: while let Some((first, outcomes, bytes)) = pending.remove(&next) {
                next += 1;
                let outcomes = match outcomes {
                    Ok(o) => o,
                    Err((k, offset, e)) => {
                        let where_ = if path.extension().is_some_and(|x| x == "bson") {
                            format!("byte {}", offset + e.offset as u64)
                        } else {
                            format!("document {}", first - base + k as u64 + 1)
                        };
                        let before = first - base + k as u64;
                        // Documents before the broken one still count and print.
                        failed = Some(anyhow::anyhow!(
                            "{}: {where_}: {}; {before} documents read before",
                            path.display(),
                            e.reason,
                        ));
                        stop.store(true, std::sync::atomic::Ordering::Relaxed);
                        pending.clear();
                        break;
                    }
                };
                for (k, o) in outcomes.into_iter().enumerate() {
                    if let Err(e) = tally.record(first + k as u64, &o, format, out) {
                        failed = Some(e.context("writing results"));
                        stop.store(true, std::sync::atomic::Ordering::Relaxed);
                        pending.clear();
                        break 'batches;
                    }
                }
                progress.advance(bytes);
                progress.show(tally);
            }
        }
        let read = reader.join().expect("the reader does not panic");
        match failed {
            Some(e) => Err(e),
            None => read,
        }
    })
}

/// Counts, and the failing rules with example ids.
struct Tally {
    read: u64,
    invalid: u64,
    examples: usize,
    rules: HashMap<String, (u64, Vec<String>)>,
}

impl Tally {
    fn new(examples: usize) -> Tally {
        Tally {
            read: 0,
            invalid: 0,
            examples,
            rules: HashMap::new(),
        }
    }

    fn record(
        &mut self,
        index: u64,
        o: &Outcome,
        format: ValidateFormat,
        out: &mut impl Write,
    ) -> anyhow::Result<()> {
        self.read += 1;
        let id = o.id.clone().map(|b| b.into_relaxed_extjson());
        if !o.verdict.is_valid() {
            self.invalid += 1;
            let shown = id
                .as_ref()
                .map_or_else(|| format!("#{index}"), ToString::to_string);
            let mut seen = std::collections::HashSet::new();
            for f in o.verdict.failures() {
                // Rank by rule: the keyword at a path with array positions folded together.
                let path: Vec<&str> = f
                    .path
                    .split('.')
                    .map(|p| {
                        if p.bytes().all(|b| b.is_ascii_digit()) {
                            "[]"
                        } else {
                            p
                        }
                    })
                    .collect();
                let key = format!("{} ({})", path.join("."), f.keyword);
                if !seen.insert(key.clone()) {
                    continue;
                }
                let entry = self.rules.entry(key).or_insert((0, Vec::new()));
                entry.0 += 1;
                if entry.1.len() < self.examples {
                    entry.1.push(shown.clone());
                }
            }
        }
        if format == ValidateFormat::Jsonl {
            let mut line = serde_json::Map::new();
            line.insert("index".into(), index.into());
            line.insert("_id".into(), id.unwrap_or(serde_json::Value::Null));
            line.insert("valid".into(), o.verdict.is_valid().into());
            if let Some(d) = o.verdict.details() {
                let errors = d
                    .get_array("schemaRulesNotSatisfied")
                    .map(|a| Bson::Array(a.clone()))
                    .unwrap_or_else(|_| Bson::Array(vec![Bson::Document(d.clone())]));
                line.insert("errors".into(), errors.into_relaxed_extjson());
                line.insert("summaries".into(), o.verdict.summaries().into());
            }
            serde_json::to_writer(&mut *out, &serde_json::Value::Object(line))?;
            out.write_all(b"\n")?;
        }
        Ok(())
    }

    fn write_summary(&self, out: &mut impl Write) -> anyhow::Result<()> {
        writeln!(
            out,
            "documents: {}  valid: {}  invalid: {}",
            self.read,
            self.read - self.invalid,
            self.invalid
        )?;
        if self.rules.is_empty() {
            return Ok(());
        }
        writeln!(out, "\nfailing rules, most frequent first:")?;
        let mut rules: Vec<_> = self.rules.iter().collect();
        rules.sort_by(|a, b| b.1.0.cmp(&a.1.0).then(a.0.cmp(b.0)));
        for (rule, (count, ids)) in rules {
            writeln!(out, "  {count:>8}  {rule}")?;
            if !ids.is_empty() {
                writeln!(out, "            e.g. {}", ids.join(", "))?;
            }
        }
        Ok(())
    }
}

/// A progress line on stderr, only when it is a terminal.
struct Progress {
    enabled: bool,
    started: Instant,
    last: Instant,
    bytes: u64,
}

impl Progress {
    fn new(enabled: bool) -> Progress {
        let now = Instant::now();
        Progress {
            enabled,
            started: now,
            last: now,
            bytes: 0,
        }
    }

    fn advance(&mut self, bytes: usize) {
        self.bytes += bytes as u64;
    }

    fn show(&mut self, tally: &Tally) {
        if !self.enabled || self.last.elapsed() < Duration::from_millis(200) {
            return;
        }
        self.last = Instant::now();
        let secs = self.started.elapsed().as_secs_f64().max(1e-9);
        eprint!(
            "\r{} documents, {} invalid, {:.1} MB/s   ",
            tally.read,
            tally.invalid,
            self.bytes as f64 / 1e6 / secs
        );
    }

    fn finish(&self) {
        if self.enabled {
            eprintln!();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
            schema,
            inputs,
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
}
