//! `mongo-schema validate`: checks exported documents against a `$jsonSchema` offline, with the
//! server's verdicts and explanations (`mongo_schema::eval`).
//!
//! Inputs stream through a bounded pipeline: a reader thread that only does bulk reads (chunks
//! of up to 1 MiB, cut after the last whole document or line, the rest starting the next chunk),
//! worker threads that do everything else (framing, structure checks, JSON parsing, evaluation,
//! and reducing verdicts to counts, example ids and rendered lines), and this thread writing the
//! results in input order. Chunk buffers are credits: at most two per worker and one more exist,
//! so memory stays flat however large the file and however many documents fail. `.bson` is
//! concatenated BSON as mongodump writes it; `.jsonl`/`.ndjson` and `-` (stdin) are one Extended
//! JSON document per line as mongoexport writes them; `.json` is one document or an array (read
//! whole).

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, mpsc};
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
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
        .max(1);
    run_sized(args, Sizes::new(threads), out)
}

/// [`run_to`] with the pipeline's sizes given (tests use tiny chunks to cross their edges).
fn run_sized(args: &ValidateArgs, sizes: Sizes, out: &mut impl Write) -> anyhow::Result<ExitCode> {
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
    let mut tally = Tally::new(args.examples);
    let mut progress = Progress::new(std::io::stderr().is_terminal());
    for input in &inputs {
        let source = Source::open(input)?;
        let job = Job {
            validator: &validator,
            framing: source.framing(),
            format: args.format,
            examples: args.examples,
        };
        let name = input.display().to_string();
        check_input(&job, source, &name, sizes, &mut tally, &mut progress, out)?;
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

/// How an input is cut into documents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Framing {
    /// Concatenated BSON documents; errors name byte offsets in the file.
    Bson,
    /// One Extended JSON document per line; errors name lines.
    Lines,
    /// BSON serialized here from a `.json` file; errors name the document's position.
    Docs,
}

/// An opened input.
enum Source {
    /// Bytes read in bulk and cut by the workers.
    Stream(Box<dyn Read + Send>, Framing),
    /// The documents of a `.json` file, already parsed.
    Docs(std::vec::IntoIter<Document>),
}

impl Source {
    fn open(path: &Path) -> anyhow::Result<Source> {
        let name = path.display().to_string();
        if name == "-" {
            return Ok(Source::Stream(Box::new(std::io::stdin()), Framing::Lines));
        }
        let file = File::open(path).with_context(|| format!("opening {name}"))?;
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or_default()
            .to_ascii_lowercase();
        match ext.as_str() {
            "bson" => Ok(Source::Stream(Box::new(file), Framing::Bson)),
            "jsonl" | "ndjson" => Ok(Source::Stream(Box::new(file), Framing::Lines)),
            "json" => {
                let mut text = String::new();
                std::io::BufReader::new(file)
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
                Ok(Source::Docs(docs.into_iter()))
            }
            other => bail!(
                "{name}: unknown input kind {other:?}; expected .bson, .jsonl, .ndjson, .json or -"
            ),
        }
    }

    fn framing(&self) -> Framing {
        match self {
            Source::Stream(_, framing) => *framing,
            Source::Docs(_) => Framing::Docs,
        }
    }
}

/// The largest document length believed before reading it (the server's limit is 16 MiB).
const MAX_DOC: i32 = 48 * 1024 * 1024;
/// The longest JSON line read before giving up (memory stays bounded on a file without newlines).
const MAX_LINE: usize = 64 << 20;
/// Input bytes in flight across the pipeline, at most (chunks are smaller with many threads).
const IN_FLIGHT_BYTES: usize = 16 << 20;
/// The largest chunk: one system call per MiB costs nothing, and a chunk this size is still in
/// the reader's cache when a worker takes it.
const MAX_CHUNK: usize = 1 << 20;

/// Bytes of one input, read in bulk and cut after the last whole document or line (the rest
/// starts the next chunk); at the end of input, whatever remains.
struct Chunk {
    seq: usize,
    /// Where the chunk starts in its input.
    offset: u64,
    bytes: Vec<u8>,
    /// A JSON line longer than [`MAX_LINE`] starts here; nothing more is read.
    overlong: bool,
}

/// Reads `r` until `buf` holds `target` bytes; `Ok(true)` when the input ended first.
fn fill(r: &mut dyn Read, buf: &mut Vec<u8>, target: usize) -> std::io::Result<bool> {
    while buf.len() < target {
        buf.reserve(target - buf.len());
        let want = (target - buf.len()) as u64;
        // `read_to_end` reads into the spare capacity without zeroing it first.
        if r.take(want).read_to_end(buf)? == 0 {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Where to cut a buffer of concatenated BSON.
enum Cut {
    /// After the last whole document, at this length.
    At(usize),
    /// The first document is not whole: it needs this many bytes.
    Need(usize),
    /// A length that cannot be believed: send everything, the worker reports it.
    Implausible,
}

/// Hops over the length prefixes only (a few bytes per document): the reader's share of framing.
fn bson_cut(b: &[u8]) -> Cut {
    let mut p = 0;
    loop {
        let rest = b.len() - p;
        let Some(len) = b.get(p..p + 4) else {
            return if p > 0 { Cut::At(p) } else { Cut::Need(4) };
        };
        let n = i32::from_le_bytes(len.try_into().expect("a slice of 4 bytes"));
        if !(5..=MAX_DOC).contains(&n) {
            return Cut::Implausible;
        }
        let n = n as usize;
        if rest < n {
            return if p > 0 { Cut::At(p) } else { Cut::Need(n) };
        }
        p += n;
        if p == b.len() {
            return Cut::At(p);
        }
    }
}

/// The reader: bulk reads of `chunk` bytes into recycled buffers (one per credit, so at most
/// that many chunks are in flight), cut at a document or line boundary.
fn read_chunks(
    source: Source,
    sizes: Sizes,
    credits: &mpsc::Receiver<Vec<u8>>,
    work: &mpsc::SyncSender<Chunk>,
    stop: &AtomicBool,
    name: &str,
) -> anyhow::Result<()> {
    let Sizes {
        chunk, max_line, ..
    } = sizes;
    let mut seq = 0;
    let mut offset = 0u64;
    let mut carry = Vec::new();
    let (mut reader, framing) = match source {
        Source::Stream(reader, framing) => (reader, framing),
        Source::Docs(docs) => {
            let mut docs = docs.peekable();
            while docs.peek().is_some() && !stop.load(Ordering::Relaxed) {
                let Ok(mut buf) = credits.recv() else { break };
                buf.clear();
                for doc in docs.by_ref() {
                    let raw =
                        RawDocumentBuf::try_from(&doc).context("document does not serialize")?;
                    buf.extend_from_slice(raw.as_bytes());
                    if buf.len() >= chunk {
                        break;
                    }
                }
                let chunk = Chunk {
                    seq,
                    offset: 0,
                    bytes: buf,
                    overlong: false,
                };
                if work.send(chunk).is_err() {
                    break;
                }
                seq += 1;
            }
            return Ok(());
        }
    };
    while !stop.load(Ordering::Relaxed) {
        let Ok(mut buf) = credits.recv() else { break };
        buf.clear();
        buf.append(&mut carry);
        let mut target = chunk.max(buf.len());
        let mut overlong = false;
        let (cut, last) = loop {
            let eof =
                fill(&mut reader, &mut buf, target).with_context(|| format!("reading {name}"))?;
            if eof {
                break (buf.len(), true);
            }
            match framing {
                Framing::Bson | Framing::Docs => match bson_cut(&buf) {
                    Cut::At(cut) => break (cut, false),
                    Cut::Need(n) => target = n,
                    Cut::Implausible => break (buf.len(), true),
                },
                Framing::Lines => match buf.iter().rposition(|&b| b == b'\n') {
                    Some(i) => break (i + 1, false),
                    None if buf.len() >= max_line => {
                        overlong = true;
                        break (buf.len(), true);
                    }
                    None => target = (buf.len() * 2).min(max_line),
                },
            }
        };
        carry.extend_from_slice(&buf[cut..]);
        buf.truncate(cut);
        if buf.is_empty() {
            break;
        }
        let len = buf.len() as u64;
        let chunk = Chunk {
            seq,
            offset,
            bytes: buf,
            overlong,
        };
        if work.send(chunk).is_err() {
            break;
        }
        seq += 1;
        offset += len;
        if last {
            break;
        }
    }
    Ok(())
}

fn extjson_doc(json: serde_json::Value) -> anyhow::Result<Document> {
    match Bson::try_from(json) {
        Ok(Bson::Document(d)) => Ok(d),
        Ok(other) => bail!("expected a document, found {other}"),
        Err(e) => bail!("invalid Extended JSON: {e}"),
    }
}

/// Where and how a chunk stops being readable, relative to the chunk (the writer adds where the
/// chunk starts and how many documents and lines came before).
#[derive(Debug)]
enum Broken {
    /// Fewer than 4 bytes left for a document length.
    ShortLength { at: usize, have: usize },
    /// A document length outside 5 bytes to [`MAX_DOC`].
    Implausible { at: usize, len: i32 },
    /// The input ends inside the document starting at `at`.
    Truncated { at: usize, len: usize, have: usize },
    /// The document starting at `at` (on `line`, for JSON lines) is not valid BSON.
    Malformed {
        at: usize,
        line: u64,
        error: MalformedBson,
    },
    /// A line that is not JSON.
    Json {
        line: u64,
        column: usize,
        error: String,
    },
    /// A line that is JSON but not an Extended JSON document.
    ExtJson { line: u64, error: anyhow::Error },
    /// A line without an end within `len` bytes (the reader's limit).
    Overlong { line: u64, len: usize },
}

/// An example document of a failing rule: its `_id` as relaxed Extended JSON, or its position
/// in the chunk when it has none.
enum Example {
    Id(String),
    Index(u64),
}

/// What a worker makes of a chunk: compact results (counts, rules with a few examples, the
/// rendered JSON lines), never the verdicts themselves.
struct Done {
    seq: usize,
    offset: u64,
    /// The chunk's buffer, back to the reader as a credit.
    buffer: Vec<u8>,
    /// Documents checked (before `broken`, if any).
    docs: u64,
    /// Lines consumed (JSON lines).
    lines: u64,
    invalid: u64,
    rules: HashMap<String, (u64, Vec<Example>)>,
    /// `--format jsonl`: each document's line after `{"index":N`; `ends` marks where each ends.
    out: Vec<u8>,
    ends: Vec<usize>,
    broken: Option<Broken>,
}

/// What every worker needs, shared.
struct Job<'a> {
    validator: &'a Validator,
    framing: Framing,
    format: ValidateFormat,
    examples: usize,
}

/// The worker: frames a chunk, checks each document's structure, parses JSON lines, evaluates,
/// and reduces the verdicts to a [`Done`].
fn check_chunk(job: &Job<'_>, chunk: Chunk) -> Done {
    let mut done = Done {
        seq: chunk.seq,
        offset: chunk.offset,
        buffer: Vec::new(),
        docs: 0,
        lines: 0,
        invalid: 0,
        rules: HashMap::new(),
        out: Vec::new(),
        ends: Vec::new(),
        broken: None,
    };
    let b = &chunk.bytes[..];
    match job.framing {
        Framing::Bson | Framing::Docs => {
            let mut p = 0;
            while p < b.len() {
                let rest = b.len() - p;
                let Some(len) = b.get(p..p + 4) else {
                    done.broken = Some(Broken::ShortLength { at: p, have: rest });
                    break;
                };
                let n = i32::from_le_bytes(len.try_into().expect("a slice of 4 bytes"));
                if !(5..=MAX_DOC).contains(&n) {
                    done.broken = Some(Broken::Implausible { at: p, len: n });
                    break;
                }
                let n = n as usize;
                if rest < n {
                    done.broken = Some(Broken::Truncated {
                        at: p,
                        len: n,
                        have: rest,
                    });
                    break;
                }
                let doc = &b[p..p + n];
                match job.validator.validate_bytes(doc) {
                    Ok(verdict) => done.record(job, &verdict, doc),
                    Err(error) => {
                        done.broken = Some(Broken::Malformed {
                            at: p,
                            line: 0,
                            error,
                        });
                        break;
                    }
                }
                p += n;
            }
        }
        Framing::Lines if chunk.overlong => {
            done.broken = Some(Broken::Overlong {
                line: 1,
                len: b.len(),
            });
        }
        Framing::Lines => {
            let mut p = 0;
            while p < b.len() {
                let end = b[p..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(b.len(), |i| p + i);
                let line = &b[p..end];
                p = end + 1;
                done.lines += 1;
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                let raw = match json_line(line, done.lines) {
                    Ok(raw) => raw,
                    Err(broken) => {
                        done.broken = Some(broken);
                        break;
                    }
                };
                match job.validator.validate_bytes(raw.as_bytes()) {
                    Ok(verdict) => done.record(job, &verdict, raw.as_bytes()),
                    Err(error) => {
                        done.broken = Some(Broken::Malformed {
                            at: 0,
                            line: done.lines,
                            error,
                        });
                        break;
                    }
                }
            }
        }
    }
    done.buffer = chunk.bytes;
    done
}

/// One line of Extended JSON as BSON.
fn json_line(line: &[u8], number: u64) -> Result<RawDocumentBuf, Broken> {
    let json: serde_json::Value = serde_json::from_slice(line).map_err(|e| Broken::Json {
        line: number,
        column: e.column(),
        error: e.to_string(),
    })?;
    extjson_doc(json)
        .and_then(|doc| RawDocumentBuf::try_from(&doc).context("document does not serialize"))
        .map_err(|error| Broken::ExtJson {
            line: number,
            error,
        })
}

/// Ranks failures by rule: the keyword at a path with array positions folded together.
fn rule_key(path: &str, keyword: &str) -> String {
    let mut key = String::with_capacity(path.len() + keyword.len() + 3);
    for (i, part) in path.split('.').enumerate() {
        if i > 0 {
            key.push('.');
        }
        key.push_str(if part.bytes().all(|b| b.is_ascii_digit()) {
            "[]"
        } else {
            part
        });
    }
    key.push_str(" (");
    key.push_str(keyword);
    key.push(')');
    key
}

impl Done {
    fn record(&mut self, job: &Job<'_>, verdict: &Verdict, doc: &[u8]) {
        let local = self.docs;
        self.docs += 1;
        let jsonl = job.format == ValidateFormat::Jsonl;
        if verdict.is_valid() {
            if jsonl {
                self.out
                    .extend_from_slice(b",\"_id\":null,\"valid\":true}\n");
                self.ends.push(self.out.len());
            }
            return;
        }
        self.invalid += 1;
        let id = bson::RawDocument::from_bytes(doc)
            .ok()
            .and_then(|d| d.get("_id").ok().flatten())
            .and_then(|v| Bson::try_from(v).ok())
            .map(Bson::into_relaxed_extjson);
        if jsonl {
            self.render(id, verdict);
            return;
        }
        let mut keys: Vec<String> = Vec::new();
        for f in verdict.failures() {
            let key = rule_key(&f.path, f.keyword);
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
        let shown = id.map(|v| v.to_string());
        for key in keys {
            let (count, examples) = self.rules.entry(key).or_insert((0, Vec::new()));
            *count += 1;
            if examples.len() < job.examples {
                examples.push(match &shown {
                    Some(s) => Example::Id(s.clone()),
                    None => Example::Index(local),
                });
            }
        }
    }

    /// `,"_id":...,"valid":false,"errors":[...],"summaries":[...]}` and a newline.
    fn render(&mut self, id: Option<serde_json::Value>, verdict: &Verdict) {
        let out = &mut self.out;
        out.extend_from_slice(b",\"_id\":");
        write_json(out, &id.unwrap_or(serde_json::Value::Null));
        out.extend_from_slice(b",\"valid\":false");
        if let Some(d) = verdict.details() {
            let errors = d
                .get_array("schemaRulesNotSatisfied")
                .map(|a| Bson::Array(a.clone()))
                .unwrap_or_else(|_| Bson::Array(vec![Bson::Document(d.clone())]));
            out.extend_from_slice(b",\"errors\":");
            write_json(out, &errors.into_relaxed_extjson());
            out.extend_from_slice(b",\"summaries\":");
            write_json(out, &verdict.summaries());
        }
        out.extend_from_slice(b"}\n");
        self.ends.push(out.len());
    }
}

fn write_json(out: &mut Vec<u8>, value: &impl serde::Serialize) {
    serde_json::to_writer(out, value).expect("JSON values and strings serialize to memory");
}

/// Counts before a chunk, per input: where errors are located.
struct Place<'a> {
    name: &'a str,
    framing: Framing,
    offset: u64,
    docs: u64,
    lines: u64,
}

impl Place<'_> {
    /// The message for a broken chunk: the file, the byte offset or line, and how many
    /// documents were read before.
    fn describe(&self, broken: Broken) -> anyhow::Error {
        let Place {
            name,
            offset,
            docs,
            lines,
            ..
        } = *self;
        let at = |p: usize| offset + p as u64;
        match broken {
            Broken::ShortLength { at: p, have } => anyhow::anyhow!(
                "{name}: truncated at byte {}: {have} bytes of a document length, after {docs} documents",
                at(p)
            ),
            Broken::Implausible { at: p, len } => anyhow::anyhow!(
                "{name}: byte {}: document length {len} is not plausible (5 bytes to 48 MiB), after {docs} documents",
                at(p)
            ),
            Broken::Truncated { at: p, len, have } => anyhow::anyhow!(
                "{name}: truncated at byte {}: the document starting at byte {} needs {len} bytes, {have} remain; {docs} documents read before",
                at(p + have),
                at(p)
            ),
            Broken::Malformed { at: p, line, error } => {
                let where_ = match self.framing {
                    Framing::Bson => format!("byte {}", at(p + error.offset)),
                    Framing::Lines => format!("line {}", lines + line),
                    Framing::Docs => format!("document {}", docs + 1),
                };
                anyhow::anyhow!(
                    "{name}: {where_}: {}; {docs} documents read before",
                    error.reason
                )
            }
            Broken::Json {
                line,
                column,
                error,
            } => anyhow::anyhow!(
                "{name}: line {} column {column}: {error}; {docs} documents read before",
                lines + line
            ),
            Broken::ExtJson { line, error } => error.context(format!(
                "{name}: line {}; {docs} documents read before",
                lines + line
            )),
            Broken::Overlong { line, len } => anyhow::anyhow!(
                "{name}: line {} has no end within {len} bytes; {docs} documents read before",
                lines + line
            ),
        }
    }
}

/// Pipeline sizes: how many workers, how big a chunk, how many chunks in flight.
#[derive(Clone, Copy, Debug)]
struct Sizes {
    threads: usize,
    chunk: usize,
    credits: usize,
    /// The longest JSON line read before giving up.
    max_line: usize,
}

impl Sizes {
    fn new(threads: usize) -> Sizes {
        // Each worker holds a chunk, one more is being read, one more written.
        let credits = threads * 2 + 1;
        Sizes {
            threads,
            chunk: (IN_FLIGHT_BYTES / credits).clamp(256 << 10, MAX_CHUNK),
            credits,
            max_line: MAX_LINE,
        }
    }
}

/// Checks one input through the pipeline: a reader thread doing bulk reads, `threads` workers
/// doing everything else, and this thread writing results in input order.
fn check_input(
    job: &Job<'_>,
    source: Source,
    name: &str,
    sizes: Sizes,
    tally: &mut Tally,
    progress: &mut Progress,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    // Credits are the chunk buffers themselves: the reader waits for one, the writer returns it
    // once the chunk is written, so memory stays flat and buffers are reused.
    let (credit_tx, credit_rx) = mpsc::sync_channel::<Vec<u8>>(sizes.credits);
    for _ in 0..sizes.credits {
        credit_tx
            .send(Vec::new())
            .expect("the channel holds every credit");
    }
    let mut credit_tx = Some(credit_tx);
    let (work_tx, work_rx) = mpsc::sync_channel::<Chunk>(sizes.credits);
    let (done_tx, done_rx) = mpsc::channel::<Done>();
    let work_rx = Mutex::new(work_rx);
    let stop = AtomicBool::new(false);
    std::thread::scope(|scope| -> anyhow::Result<()> {
        for _ in 0..sizes.threads {
            let done_tx = done_tx.clone();
            let work_rx = &work_rx;
            scope.spawn(move || {
                loop {
                    let chunk = {
                        let rx = work_rx.lock().expect("no worker panics holding the lock");
                        rx.recv()
                    };
                    let Ok(chunk) = chunk else { break };
                    // If the writer has stopped, keep draining so the reader never blocks.
                    let _ = done_tx.send(check_chunk(job, chunk));
                }
            });
        }
        drop(done_tx);
        let stop = &stop;
        let reader =
            scope.spawn(move || read_chunks(source, sizes, &credit_rx, &work_tx, stop, name));
        let mut place = Place {
            name,
            framing: job.framing,
            offset: 0,
            docs: 0,
            lines: 0,
        };
        let mut pending = BTreeMap::new();
        let mut next = 0;
        let mut failed: Option<anyhow::Error> = None;
        for done in done_rx {
            if failed.is_some() {
                continue;
            }
            pending.insert(done.seq, done);
            while let Some(mut done) = pending.remove(&next) {
                next += 1;
                place.offset = done.offset;
                let written = tally.merge(&mut done, out);
                place.docs += done.docs;
                // A break is located from the lines before the chunk and the documents before it.
                let broken = done.broken.take().map(|b| place.describe(b));
                place.lines += done.lines;
                progress.advance(done.buffer.len());
                progress.show(tally);
                if let Some(e) = broken.or(written
                    .err()
                    .map(|e| anyhow::Error::new(e).context("writing results")))
                {
                    failed = Some(e);
                    stop.store(true, Ordering::Relaxed);
                    credit_tx = None;
                    pending.clear();
                    break;
                }
                if let Some(credits) = &credit_tx {
                    let mut buffer = std::mem::take(&mut done.buffer);
                    if buffer.capacity() > 2 * sizes.chunk {
                        buffer = Vec::new();
                    }
                    // The reader may have stopped; then the credit is not needed.
                    let _ = credits.send(buffer);
                }
            }
        }
        drop(credit_tx);
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

    /// Adds a chunk's results, in input order, and writes its JSON lines with their indexes.
    fn merge(&mut self, done: &mut Done, out: &mut impl Write) -> std::io::Result<()> {
        let first = self.read;
        self.read += done.docs;
        self.invalid += done.invalid;
        for (key, (count, examples)) in done.rules.drain() {
            let (total, shown) = self.rules.entry(key).or_insert((0, Vec::new()));
            *total += count;
            let room = self.examples.saturating_sub(shown.len());
            shown.extend(examples.into_iter().take(room).map(|e| match e {
                Example::Id(id) => id,
                Example::Index(k) => format!("#{}", first + k),
            }));
        }
        let mut start = 0;
        for (k, &end) in done.ends.iter().enumerate() {
            write!(out, "{{\"index\":{}", first + k as u64)?;
            out.write_all(&done.out[start..end])?;
            start = end;
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
    fn report(args: &ValidateArgs, sizes: Sizes) -> Result<String, String> {
        let mut out = Vec::new();
        match run_sized(args, sizes, &mut out) {
            Ok(_) => Ok(String::from_utf8(out).unwrap()),
            Err(e) => Err(format!("{e:#}")),
        }
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
                "line 302 column".to_string(),
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
                out.contains("     200  name (required)\n            e.g. #1, #2, #3\n"),
                "{out}"
            );
        }
    }

    #[test]
    fn a_line_without_an_end_stops_at_the_limit() {
        let d = tmp("overlong");
        let schema = write(&d, "s.json", SCHEMA);
        let mut text = b"{\"name\": \"ok\"}\n".to_vec();
        text.extend(std::iter::repeat_n(b' ', 3 << 20));
        let input = write(&d, "long.jsonl", &text);
        let e = report(&args(schema, vec![input]), sized(2, 4096)).unwrap_err();
        assert!(
            e.contains("line 2 has no end within") && e.contains("1 documents read before"),
            "{e}"
        );
    }
}
