//! `mongo-schema validate`: checks exported documents against a `$jsonSchema` offline, with the
//! server's verdicts and explanations (`mongo_schema::eval`).
//!
//! Inputs stream through a bounded pipeline of chunks (up to 1 MiB). Each worker reads its own
//! chunk of a file at its offset, so the copy out of the page cache happens on the core that
//! checks those bytes and no thread only reads (streams such as stdin, and `.json` files, come
//! from a reader thread instead). Chunks are cut in input order in a short turn that hands the
//! partial document or line at a chunk's end to the next; everything else (structure checks,
//! JSON parsing, evaluation, reducing verdicts to counts, example ids and rendered lines) runs in
//! parallel, and this thread writes the results in input order. Chunk buffers are credits: at
//! most two per worker and one more exist, so memory stays flat however large the file and
//! however many documents fail. `.bson` is concatenated BSON as mongodump writes it;
//! `.jsonl`/`.ndjson` and `-` (stdin) are one Extended JSON document per line as mongoexport
//! writes them; `.json` is one document or an array, streamed as one line per element
//! ([`ArrayLines`]). `--input-format` says what `-` or an unusual file name holds.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, mpsc};

use anyhow::{Context, bail};
use bson::{Bson, RawDocumentBuf};
use mongo_schema::eval::{MalformedBson, Validator, Verdict};
use mongo_schema::extjson::{self, ExtJsonError};

use crate::json_array::ArrayLines;

/// Arguments of `mongo-schema validate`.
#[derive(Clone, Debug, clap::Args)]
pub struct ValidateArgs {
    /// A JSON file holding a `$jsonSchema` object or a `{"$jsonSchema": ...}` validator
    /// (Extended JSON, canonical or relaxed).
    #[arg(
        long,
        value_name = "FILE",
        required_unless_present = "manifest",
        conflicts_with = "manifest"
    )]
    pub schema: Option<PathBuf>,
    /// A manifest (what `generate` prints) to take the validator from, with `--collection`.
    #[arg(long, value_name = "FILE")]
    pub manifest: Option<PathBuf>,
    /// The manifest's collection whose validator to use (may be left out when the manifest
    /// declares exactly one collection with a validator).
    #[arg(long, value_name = "NAME", requires = "manifest")]
    pub collection: Option<String>,
    /// Documents to check: `.bson` (mongodump), `.jsonl`/`.ndjson` (mongoexport), `.json` (one
    /// document or an array), `-` for stdin (JSON lines unless --input-format says otherwise).
    /// Without any, stdin is read when it is not a terminal.
    #[arg(value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
    /// What the inputs hold; `auto` (default) goes by the file name, and reads JSON lines on `-`.
    #[arg(long, value_enum, default_value_t = InputFormat::Auto, value_name = "KIND")]
    pub input_format: InputFormat,
    /// `summary` (default): counts and the failing rules ranked; `json`: the same as one JSON
    /// document; `github`: the failing rules as workflow annotations; `jsonl`: one line per
    /// document.
    #[arg(long, value_enum, default_value_t = ValidateFormat::Summary)]
    pub format: ValidateFormat,
    /// Worker threads (default: every core; 1 to 1024).
    #[arg(long, value_parser = crate::args::count::<1, 1024>, value_name = "N")]
    pub threads: Option<usize>,
    /// Example document ids listed per failing rule in the summary (0 to 1000).
    #[arg(long, default_value_t = 3, value_parser = crate::args::count::<0, 1000>, value_name = "N")]
    pub examples: usize,
}

/// What an input holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum InputFormat {
    /// By the file name (`.bson`, `.jsonl`, `.ndjson`, `.json`); JSON lines on stdin.
    Auto,
    /// Concatenated BSON documents, as mongodump writes them.
    Bson,
    /// One Extended JSON document per line, as mongoexport writes them.
    Jsonl,
    /// One Extended JSON document, or an array of them (`mongoexport --jsonArray`).
    Json,
}

impl InputFormat {
    fn noun(self) -> &'static str {
        match self {
            InputFormat::Bson => "BSON documents",
            InputFormat::Json => "a JSON document or array",
            InputFormat::Auto | InputFormat::Jsonl => "JSON lines",
        }
    }
}

/// Output formats of `validate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ValidateFormat {
    /// Counts and the failing rules ranked by count, with example ids.
    Summary,
    /// The summary as one JSON document.
    Json,
    /// The failing rules as GitHub Actions annotations, and a notice with the counts.
    Github,
    /// `{"index": N, "_id": ..., "valid": bool, "errors": [...]}` per document.
    Jsonl,
}

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
    let mut tally = Tally::new(args.examples);
    // The total is known for files; stdin and pipes count towards no total.
    let total = inputs
        .iter()
        .map(|p| {
            std::fs::metadata(p)
                .ok()
                .filter(|m| m.is_file())
                .map(|m| m.len())
        })
        .sum::<Option<u64>>();
    let progress = Progress::new(total);
    for input in &inputs {
        let source = Source::open(input, args.input_format)?;
        let job = Job {
            validator: &validator,
            framing: source.framing(),
            format: args.format,
            examples: args.examples,
        };
        let name = input.display().to_string();
        let checked = check_input(&job, source, &name, sizes, &mut tally, &progress, out);
        if let Err(e) = checked {
            progress.finish();
            return Err(e);
        }
        if tally.closed {
            break;
        }
    }
    progress.finish();
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
    if tally.open > 0 && args.format == ValidateFormat::Jsonl {
        // The lines mark each one; the exit code needs its reason said once.
        for line in tally.open_lines() {
            eprintln!("error: {line}");
        }
    }
    // A document not fully checked is neither valid nor rejected: nobody here knows what the
    // server would say, so the run cannot answer "nothing rejected" (exit 2, as an error).
    Ok(if tally.open > 0 {
        ExitCode::from(2)
    } else if tally.invalid == 0 {
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

/// How an input is cut into documents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Framing {
    /// Concatenated BSON documents; errors name byte offsets in the file.
    Bson,
    /// One Extended JSON document per line; errors name lines.
    Lines,
    /// A `.json` file's documents, one per line ([`ArrayLines`]); errors name the document's
    /// position in the array.
    Array,
}

/// An opened input.
enum Source {
    /// A regular file: each worker reads its own chunks at their offsets.
    File(File, Framing),
    /// A stream (stdin): a reader thread reads it in chunks.
    Stream(Box<dyn Read + Send>, Framing),
}

impl Source {
    fn open(path: &Path, format: InputFormat) -> anyhow::Result<Source> {
        let name = path.display().to_string();
        let by_name = || {
            let ext = path
                .extension()
                .and_then(|e| e.to_str())
                .unwrap_or_default()
                .to_ascii_lowercase();
            match ext.as_str() {
                "bson" => Ok(InputFormat::Bson),
                "jsonl" | "ndjson" => Ok(InputFormat::Jsonl),
                "json" => Ok(InputFormat::Json),
                other => bail!(
                    "{name}: unknown input kind {other:?}; expected .bson, .jsonl, .ndjson, .json \
                     or -, or say which with --input-format"
                ),
            }
        };
        let format = match format {
            InputFormat::Auto if name == "-" => InputFormat::Jsonl,
            InputFormat::Auto => by_name()?,
            given => given,
        };
        let framing = match format {
            InputFormat::Bson => Framing::Bson,
            InputFormat::Json => Framing::Array,
            InputFormat::Auto | InputFormat::Jsonl => Framing::Lines,
        };
        let reader: Box<dyn Read + Send> = if name == "-" {
            let stdin = std::io::stdin();
            if stdin.is_terminal() {
                eprintln!(
                    "validate: reading {} from stdin (end it with Ctrl-D)",
                    format.noun()
                );
            }
            Box::new(stdin)
        } else {
            let file = File::open(path).with_context(|| format!("opening {name}"))?;
            // Named pipes and devices cannot be read at offsets: a reader thread reads them.
            let regular =
                cfg!(any(unix, windows)) && file.metadata().map(|m| m.is_file()).unwrap_or(false);
            if regular && framing != Framing::Array {
                return Ok(Source::File(file, framing));
            }
            Box::new(file)
        };
        Ok(match framing {
            Framing::Array => Source::Stream(Box::new(ArrayLines::new(reader)), framing),
            _ => Source::Stream(reader, framing),
        })
    }

    fn framing(&self) -> Framing {
        match self {
            Source::File(_, framing) | Source::Stream(_, framing) => *framing,
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
/// the worker's cache when it checks the bytes it has just read.
const MAX_CHUNK: usize = 1 << 20;

/// Bytes of an input as read, not yet cut into documents: `bytes[..len]`.
struct Raw {
    seq: usize,
    bytes: Vec<u8>,
    len: usize,
    /// The input ends after these bytes (or could not be read further).
    last: bool,
    /// Why reading stopped early.
    error: Option<std::io::Error>,
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

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, offset)
}

#[cfg(windows)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, buf, offset)
}

/// Never called: without positional reads every input is read as a stream.
#[cfg(not(any(unix, windows)))]
fn read_at(_: &File, _: &mut [u8], _: u64) -> std::io::Result<usize> {
    Err(std::io::ErrorKind::Unsupported.into())
}

/// Fills `buf` from `offset` (fewer bytes at the end of the file): how many, and the error
/// that stopped reading, if any.
fn read_full_at(file: &File, buf: &mut [u8], offset: u64) -> (usize, Option<std::io::Error>) {
    let mut got = 0;
    while got < buf.len() {
        match read_at(file, &mut buf[got..], offset + got as u64) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return (got, Some(e)),
        }
    }
    (got, None)
}

/// Where workers get their raw chunks.
enum Feed {
    /// A regular file: each worker reads its own chunk at its offset, so copying out of the page
    /// cache happens on the core that then checks those bytes (and no thread only reads).
    File {
        file: File,
        next: std::sync::atomic::AtomicUsize,
    },
    /// A reader thread sends the chunks (stdin, `.json`).
    Reader(Mutex<mpsc::Receiver<Raw>>),
}

impl Feed {
    /// The next raw chunk for a worker, or `None` when there is nothing more to do.
    fn next(&self, credits: &Mutex<mpsc::Receiver<Vec<u8>>>, sizes: Sizes) -> Option<Raw> {
        match self {
            Feed::File { file, next } => {
                let mut buf = credits
                    .lock()
                    .expect("no worker panics holding it")
                    .recv()
                    .ok()?;
                // Sequence numbers are taken with a buffer in hand, so every number taken is
                // read and framed: no worker waits for a chunk nobody holds.
                let seq = next.fetch_add(1, Ordering::Relaxed);
                if buf.len() < sizes.chunk {
                    buf.resize(sizes.chunk, 0);
                }
                let offset = (seq * sizes.chunk) as u64;
                let (len, error) = read_full_at(file, &mut buf[..sizes.chunk], offset);
                Some(Raw {
                    seq,
                    bytes: buf,
                    len,
                    last: len < sizes.chunk || error.is_some(),
                    error,
                })
            }
            Feed::Reader(rx) => rx.lock().expect("no worker panics holding it").recv().ok(),
        }
    }
}

/// The reader thread for streams and `.json` documents: reads (or serializes) chunks into
/// recycled buffers, one per credit, without looking inside them.
fn read_stream(
    source: Source,
    sizes: Sizes,
    credits: &Mutex<mpsc::Receiver<Vec<u8>>>,
    work: &mpsc::SyncSender<Raw>,
    stop: &AtomicBool,
) -> anyhow::Result<()> {
    let mut seq = 0;
    let credit = || {
        credits
            .lock()
            .expect("no worker panics holding it")
            .recv()
            .ok()
    };
    match source {
        // `check_input` lets workers read files themselves; given here, a file is a stream.
        Source::File(file, _) => read_stream(
            Source::Stream(Box::new(file), Framing::Bson),
            sizes,
            credits,
            work,
            stop,
        ),
        Source::Stream(mut reader, _) => {
            while !stop.load(Ordering::Relaxed) {
                let Some(mut buf) = credit() else { break };
                buf.clear();
                let (last, error) = match fill(&mut reader, &mut buf, sizes.chunk) {
                    Ok(eof) => (eof, None),
                    Err(e) => (true, Some(e)),
                };
                let len = buf.len();
                let raw = Raw {
                    seq,
                    bytes: buf,
                    len,
                    last,
                    error,
                };
                if work.send(raw).is_err() || last {
                    break;
                }
                seq += 1;
            }
            Ok(())
        }
    }
}

/// Where to cut a buffer of concatenated BSON.
enum Cut {
    /// After the last whole document, at this length.
    At(usize),
    /// Not even the first document is whole.
    None,
    /// A length that cannot be believed: check everything, the worker reports it.
    Implausible,
}

/// Hops over the length prefixes only (a few bytes per document).
fn bson_cut(b: &[u8]) -> Cut {
    let mut p = 0;
    loop {
        let rest = b.len() - p;
        let Some(len) = b.get(p..p + 4) else {
            return if p > 0 { Cut::At(p) } else { Cut::None };
        };
        let n = i32::from_le_bytes(len.try_into().expect("a slice of 4 bytes"));
        if !(5..=MAX_DOC).contains(&n) {
            return Cut::Implausible;
        }
        let n = n as usize;
        if rest < n {
            return if p > 0 { Cut::At(p) } else { Cut::None };
        }
        p += n;
        if p == b.len() {
            return Cut::At(p);
        }
    }
}

/// The framing turn: chunks are cut in input order, each handing the partial document (or line)
/// at its end to the next. Only the cut happens in turn; checking is parallel.
struct Chain {
    link: Mutex<Link>,
    turn: std::sync::Condvar,
}

/// State passed from one chunk to the next.
struct Link {
    /// The chunk whose turn it is.
    seq: usize,
    /// The start of a document or line that continues in the next chunk.
    carry: Vec<u8>,
    /// Where `carry` starts in the input.
    offset: u64,
    /// Nothing after this is framed: the input ended, or framing broke.
    ended: bool,
}

/// A chunk cut into what its worker checks: `joined` (the carried start of a document or line
/// completed from this chunk, or at the end of input everything left), then `raw[body]`.
struct Framed {
    /// Where `joined` starts in the input; `raw[body]` starts `head + body.start` after it.
    origin: u64,
    joined: Vec<u8>,
    head: usize,
    body: std::ops::Range<usize>,
    /// A line still without its end after this many bytes: stop after the body.
    overlong: Option<usize>,
}

impl Chain {
    fn new() -> Chain {
        Chain {
            link: Mutex::new(Link {
                seq: 0,
                carry: Vec::new(),
                offset: 0,
                ended: false,
            }),
            turn: std::sync::Condvar::new(),
        }
    }

    /// Waits for `raw`'s turn and cuts it; `None` once framing has ended.
    fn frame(&self, framing: Framing, raw: &Raw, max_line: usize) -> Option<Framed> {
        let mut link = self.link.lock().expect("no worker panics holding it");
        while link.seq != raw.seq {
            link = self.turn.wait(link).expect("no worker panics holding it");
        }
        let framed = if link.ended {
            None
        } else {
            Some(cut(&mut link, framing, raw, max_line))
        };
        link.seq += 1;
        drop(link);
        self.turn.notify_all();
        framed
    }
}

/// Cuts `raw` after the last whole document or line, completing the carried one first.
fn cut(link: &mut Link, framing: Framing, raw: &Raw, max_line: usize) -> Framed {
    let data = &raw.bytes[..raw.len];
    let head = std::mem::take(&mut link.carry);
    let h = head.len();
    let origin = link.offset;
    let mut framed = Framed {
        origin,
        joined: Vec::new(),
        head: h,
        body: 0..0,
        overlong: None,
    };
    let joined = |k: usize| {
        let mut j = head.clone();
        j.extend_from_slice(&data[..k]);
        j
    };
    if raw.last {
        // Everything left is checked; a partial document at the end is reported.
        link.ended = true;
        if h == 0 {
            framed.body = 0..data.len();
        } else {
            framed.joined = joined(data.len());
        }
        return framed;
    }
    // How much of `data` completes the carried document or line (`None`: it goes on).
    let k = if h == 0 {
        Some(0)
    } else {
        match framing {
            Framing::Bson => {
                let mut len = [0u8; 4];
                let have = h.min(4);
                len[..have].copy_from_slice(&head[..have]);
                let more = (4 - have).min(data.len());
                len[have..have + more].copy_from_slice(&data[..more]);
                let n = i32::from_le_bytes(len);
                if have + more < 4 {
                    None
                } else if !(5..=MAX_DOC).contains(&n) {
                    // Check it all: the worker reports the length; nothing after is framed.
                    link.ended = true;
                    framed.joined = joined(data.len());
                    return framed;
                } else {
                    (n as usize - h <= data.len()).then(|| n as usize - h)
                }
            }
            Framing::Lines | Framing::Array => data.iter().position(|&b| b == b'\n').map(|i| i + 1),
        }
    };
    let Some(k) = k else {
        link.carry = joined(data.len());
        if framing != Framing::Bson && link.carry.len() >= max_line {
            link.ended = true;
            framed.overlong = Some(link.carry.len());
        }
        return framed;
    };
    if h > 0 {
        framed.joined = joined(k);
    }
    let end = match framing {
        Framing::Bson => match bson_cut(&data[k..]) {
            Cut::At(c) => k + c,
            Cut::None => k,
            Cut::Implausible => {
                link.ended = true;
                data.len()
            }
        },
        Framing::Lines | Framing::Array => data[k..]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(k, |i| k + i + 1),
    };
    framed.body = k..end;
    link.carry = data[end..].to_vec();
    link.offset = origin + (h + end) as u64;
    if framing == Framing::Lines && link.carry.len() >= max_line {
        link.ended = true;
        framed.overlong = Some(link.carry.len());
    }
    framed
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
    /// A line that is not an Extended JSON document (the error's line is always 1).
    Json { line: u64, error: ExtJsonError },
    /// A document BSON cannot hold (a NUL character in a field name).
    Unstorable { line: u64 },
    /// A line without an end within `len` bytes (the reader's limit).
    Overlong { line: u64, len: usize },
    /// Reading the input failed after the chunk's documents.
    Io(std::io::Error),
}

/// An example document of a failing rule: its `_id` as relaxed Extended JSON, or its position
/// in the chunk when it has none.
#[derive(Clone)]
enum Example {
    Id(String),
    Index(u64),
}

/// One failing rule in a chunk: how often, a few example documents, and the first failure's
/// one-line summary (`items.0.qty: 0 is less than the minimum 1`).
#[derive(Default)]
struct RuleSeen {
    count: u64,
    examples: Vec<Example>,
    first: String,
}

/// What a worker makes of a chunk: compact results (counts, rules with a few examples, the
/// rendered JSON lines), never the verdicts themselves.
struct Done {
    seq: usize,
    offset: u64,
    /// The chunk's buffer, back as a credit.
    buffer: Vec<u8>,
    /// Input bytes framed in this chunk (for the progress line).
    bytes: usize,
    /// Documents checked (before `broken`, if any).
    docs: u64,
    /// Lines consumed (JSON lines).
    lines: u64,
    invalid: u64,
    /// Documents not fully checked, per reason ([`Verdict::skipped`], joined).
    open: HashMap<String, u64>,
    rules: HashMap<String, RuleSeen>,
    /// Scratch space for one document's rule keys.
    keys: String,
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

/// The worker's part after the cut: frames the documents, checks each one's structure, parses
/// JSON lines, evaluates, and reduces the verdicts to a [`Done`].
fn check_framed(job: &Job<'_>, framed: Framed, raw: Raw) -> Done {
    let mut done = Done {
        seq: raw.seq,
        offset: framed.origin,
        buffer: Vec::new(),
        bytes: framed.joined.len() + framed.body.len(),
        docs: 0,
        lines: 0,
        invalid: 0,
        open: HashMap::new(),
        rules: HashMap::new(),
        keys: String::new(),
        out: Vec::new(),
        ends: Vec::new(),
        broken: None,
    };
    let body = &raw.bytes[framed.body.clone()];
    if done.check(job, &framed.joined, 0) {
        done.check(job, body, framed.head + framed.body.start);
    }
    if done.broken.is_none() {
        if let Some(len) = framed.overlong {
            done.broken = Some(Broken::Overlong {
                line: done.lines + 1,
                len,
            });
        } else if let Some(error) = raw.error {
            done.broken = Some(Broken::Io(error));
        }
    }
    done.buffer = raw.bytes;
    done
}

impl Done {
    /// Checks the documents or lines in `b`, which starts `base` bytes after the chunk's origin;
    /// `false` once the input is broken.
    fn check(&mut self, job: &Job<'_>, b: &[u8], base: usize) -> bool {
        match job.framing {
            Framing::Bson => {
                let mut p = 0;
                while p < b.len() {
                    let rest = b.len() - p;
                    let at = base + p;
                    let Some(len) = b.get(p..p + 4) else {
                        self.broken = Some(Broken::ShortLength { at, have: rest });
                        return false;
                    };
                    let n = i32::from_le_bytes(len.try_into().expect("a slice of 4 bytes"));
                    if !(5..=MAX_DOC).contains(&n) {
                        self.broken = Some(Broken::Implausible { at, len: n });
                        return false;
                    }
                    let n = n as usize;
                    if rest < n {
                        self.broken = Some(Broken::Truncated {
                            at,
                            len: n,
                            have: rest,
                        });
                        return false;
                    }
                    let doc = &b[p..p + n];
                    match job.validator.validate_bytes(doc) {
                        Ok(verdict) => self.record(job, &verdict, doc),
                        Err(error) => {
                            self.broken = Some(Broken::Malformed { at, line: 0, error });
                            return false;
                        }
                    }
                    p += n;
                }
            }
            Framing::Lines | Framing::Array => {
                let mut p = 0;
                while p < b.len() {
                    let end = b[p..]
                        .iter()
                        .position(|&c| c == b'\n')
                        .map_or(b.len(), |i| p + i);
                    let line = &b[p..end];
                    p = end + 1;
                    self.lines += 1;
                    if line.iter().all(u8::is_ascii_whitespace) {
                        continue;
                    }
                    let raw = match json_line(line, self.lines) {
                        Ok(raw) => raw,
                        Err(broken) => {
                            self.broken = Some(broken);
                            return false;
                        }
                    };
                    match job.validator.validate_bytes(raw.as_bytes()) {
                        Ok(verdict) => self.record(job, &verdict, raw.as_bytes()),
                        Err(error) => {
                            self.broken = Some(Broken::Malformed {
                                at: 0,
                                line: self.lines,
                                error,
                            });
                            return false;
                        }
                    }
                }
            }
        }
        true
    }
}

/// One line of Extended JSON as BSON.
fn json_line(line: &[u8], number: u64) -> Result<RawDocumentBuf, Broken> {
    let doc = extjson::parse_document_slice(line).map_err(|error| Broken::Json {
        line: number,
        error,
    })?;
    RawDocumentBuf::try_from(&doc).map_err(|_| Broken::Unstorable { line: number })
}

/// Ranks failures by rule: the keyword at a path with array positions folded together.
/// Appends the rule of a failure to `key`: the keyword at a path with array positions folded
/// together (`items.[].qty (minimum)`).
fn push_rule_key(key: &mut String, path: &str, keyword: &str) {
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
}

impl Done {
    fn record(&mut self, job: &Job<'_>, verdict: &Verdict, doc: &[u8]) {
        let local = self.docs;
        self.docs += 1;
        let jsonl = job.format == ValidateFormat::Jsonl;
        let id = || {
            bson::RawDocument::from_bytes(doc)
                .ok()
                .and_then(|d| d.get("_id").ok().flatten())
                .and_then(|v| Bson::try_from(v).ok())
                .map(Bson::into_relaxed_extjson)
        };
        if verdict.is_valid() {
            if jsonl {
                self.out.extend_from_slice(b",\"_id\":");
                write_json(&mut self.out, &id().unwrap_or(serde_json::Value::Null));
                self.out.extend_from_slice(b",\"valid\":true}\n");
                self.ends.push(self.out.len());
            }
            return;
        }
        if !verdict.is_fully_checked() {
            // Neither valid nor invalid: counted apart, never ranked as a failing rule.
            let reason = verdict.skipped().join(", ");
            if jsonl {
                self.out.extend_from_slice(b",\"_id\":");
                write_json(&mut self.out, &id().unwrap_or(serde_json::Value::Null));
                self.out
                    .extend_from_slice(b",\"valid\":null,\"notFullyChecked\":");
                write_json(&mut self.out, &reason);
                self.out.extend_from_slice(b"}\n");
                self.ends.push(self.out.len());
            }
            *self.open.entry(reason).or_default() += 1;
            return;
        }
        self.invalid += 1;
        if jsonl {
            self.render(id(), verdict);
            return;
        }
        // This document's rules, each once, in `keys` (reused, so steady state allocates only
        // for a rule the chunk has not seen).
        let mut keys = std::mem::take(&mut self.keys);
        let failures = verdict.failures();
        let mut spans: Vec<(std::ops::Range<usize>, usize)> = Vec::with_capacity(failures.len());
        keys.clear();
        for (i, f) in failures.iter().enumerate() {
            let start = keys.len();
            push_rule_key(&mut keys, &f.path, f.keyword);
            if spans.iter().any(|(r, _)| keys[r.clone()] == keys[start..]) {
                keys.truncate(start);
            } else {
                spans.push((start..keys.len(), i));
            }
        }
        // The id is rendered only while a rule still wants examples.
        let mut shown: Option<Example> = None;
        for (span, i) in spans {
            let key = &keys[span];
            let seen = match self.rules.get_mut(key) {
                Some(entry) => entry,
                None => self
                    .rules
                    .entry(key.to_string())
                    .or_insert_with(|| RuleSeen {
                        first: failures[i].to_string(),
                        ..RuleSeen::default()
                    }),
            };
            seen.count += 1;
            if seen.examples.len() < job.examples {
                let example = shown.get_or_insert_with(|| match id() {
                    Some(v) => Example::Id(v.to_string()),
                    None => Example::Index(local),
                });
                seen.examples.push(example.clone());
            }
        }
        self.keys = keys;
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
                    Framing::Lines | Framing::Array => self.unit(lines + line),
                };
                anyhow::anyhow!(
                    "{name}: {where_}: {}; {docs} documents read before",
                    error.reason
                )
            }
            Broken::Json { line, error } => {
                let at = if error.path.is_empty() {
                    String::new()
                } else {
                    format!(", at {}", error.path)
                };
                // An array's element was made one line here: its column means nothing to
                // the reader of the file, the field path does.
                let column = match self.framing {
                    Framing::Array => String::new(),
                    _ => format!(", column {}", error.column),
                };
                anyhow::anyhow!(
                    "{name}: {}{column}{at}: {}; {docs} documents read before",
                    self.unit(lines + line),
                    error.message
                )
            }
            Broken::Unstorable { line } => anyhow::anyhow!(
                "{name}: {}: a field name holds a NUL character, which BSON cannot store; \
                 {docs} documents read before",
                self.unit(lines + line)
            ),
            Broken::Io(error) => match self.framing {
                // The array splitter's own errors say where in the file.
                Framing::Array if error.kind() == std::io::ErrorKind::InvalidData => {
                    anyhow::anyhow!("{name}: {error}; {docs} documents read before")
                }
                _ => anyhow::Error::new(error)
                    .context(format!("reading {name}; {docs} documents read before")),
            },
            Broken::Overlong { line, len } => anyhow::anyhow!(
                "{name}: {} has no end within {len} bytes; {docs} documents read before",
                self.unit(lines + line)
            ),
        }
    }

    /// A JSON line's place: its line, or for an array its position (1-based).
    fn unit(&self, line: u64) -> String {
        match self.framing {
            Framing::Array => format!("document {line} of the array"),
            _ => format!("line {line}"),
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

/// Checks one input: `threads` workers each read a chunk (from the file at its offset, or from
/// a reader thread for streams), take their turn to cut it, check it, and reduce it; this
/// thread writes results in input order.
fn check_input(
    job: &Job<'_>,
    source: Source,
    name: &str,
    sizes: Sizes,
    tally: &mut Tally,
    progress: &Progress,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    // Credits are the chunk buffers themselves: a chunk is read only into one, and the writer
    // returns it once the chunk is written, so memory stays flat and buffers are reused.
    let (credit_tx, credit_rx) = mpsc::sync_channel::<Vec<u8>>(sizes.credits);
    for _ in 0..sizes.credits {
        credit_tx
            .send(Vec::new())
            .expect("the channel holds every credit");
    }
    let mut credit_tx = Some(credit_tx);
    let credits = Mutex::new(credit_rx);
    let (work_tx, work_rx) = mpsc::sync_channel::<Raw>(sizes.credits);
    let (done_tx, done_rx) = mpsc::channel::<Done>();
    let stop = AtomicBool::new(false);
    let chain = Chain::new();
    let (feed, stream) = match source {
        Source::File(file, _) => (
            Feed::File {
                file,
                next: std::sync::atomic::AtomicUsize::new(0),
            },
            None,
        ),
        other => (Feed::Reader(Mutex::new(work_rx)), Some(other)),
    };
    std::thread::scope(|scope| -> anyhow::Result<()> {
        let (feed, credits, stop, chain) = (&feed, &credits, &stop, &chain);
        for _ in 0..sizes.threads {
            let done_tx = done_tx.clone();
            // Named, so profilers show the workers' and the reader's shares apart.
            std::thread::Builder::new()
                .name("validate-worker".into())
                .spawn_scoped(scope, move || {
                    while let Some(raw) = feed.next(credits, sizes) {
                        let Some(framed) = chain.frame(job.framing, &raw, sizes.max_line) else {
                            break;
                        };
                        // If the writer has stopped, keep going so nobody waits for a turn.
                        let _ = done_tx.send(check_framed(job, framed, raw));
                    }
                })
                .expect("the system starts a worker thread");
        }
        drop(done_tx);
        let reader = stream.map(|source| {
            std::thread::Builder::new()
                .name("validate-reader".into())
                .spawn_scoped(scope, move || {
                    read_stream(source, sizes, credits, &work_tx, stop)
                })
                .expect("the system starts the reader thread")
        });
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
            if failed.is_some() || tally.closed {
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
                progress.advance(done.bytes, tally);
                let written = match written {
                    // The reader has seen enough (`| head -1`): the end, not an error.
                    Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                        tally.closed = true;
                        Ok(())
                    }
                    other => other,
                };
                if tally.closed {
                    stop.store(true, Ordering::Relaxed);
                    credit_tx = None;
                    pending.clear();
                    break;
                }
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
                    // Workers may have stopped; then the credit is not needed.
                    let _ = credits.send(buffer);
                }
            }
        }
        drop(credit_tx);
        let read = reader.map_or(Ok(()), |r| r.join().expect("the reader does not panic"));
        match failed {
            Some(e) => Err(e),
            None => read,
        }
    })
}

/// A failing rule's count, example ids and first failure's summary.
type RuleTally = (u64, Vec<String>, String);

/// Counts, and the failing rules with example ids.
struct Tally {
    read: u64,
    invalid: u64,
    /// Documents not fully checked: neither valid nor invalid.
    open: u64,
    /// Per reason, how many documents it left not fully checked.
    open_reasons: BTreeMap<String, u64>,
    examples: usize,
    /// Per rule: count, example ids, the first failure's summary (in input order).
    rules: HashMap<String, RuleTally>,
    /// The output was closed by its reader: nothing more is checked or written.
    closed: bool,
}

impl Tally {
    fn new(examples: usize) -> Tally {
        Tally {
            read: 0,
            invalid: 0,
            open: 0,
            open_reasons: BTreeMap::new(),
            examples,
            rules: HashMap::new(),
            closed: false,
        }
    }

    /// Documents checked and found valid.
    fn valid(&self) -> u64 {
        self.read - self.invalid - self.open
    }

    /// `N documents not fully checked (reason)`, one per reason.
    fn open_lines(&self) -> impl Iterator<Item = String> + '_ {
        self.open_reasons.iter().map(|(reason, count)| {
            format!(
                "{count} document{} not fully checked ({reason})",
                if *count == 1 { "" } else { "s" }
            )
        })
    }

    /// The failing rules, most frequent first.
    fn ranked(&self) -> Vec<(&String, &RuleTally)> {
        let mut rules: Vec<_> = self.rules.iter().collect();
        rules.sort_by(|a, b| b.1.0.cmp(&a.1.0).then(a.0.cmp(b.0)));
        rules
    }

    /// `{"documents", "valid", "invalid", "notFullyChecked", "notFullyCheckedReasons":
    /// [{"reason", "count"}], "rules": [{"rule", "count", "first", "examples"}]}`.
    fn write_json(&self, out: &mut impl Write) -> std::io::Result<()> {
        let rules: Vec<serde_json::Value> = self
            .ranked()
            .into_iter()
            .map(|(rule, (count, ids, first))| {
                // Examples are `_id`s as relaxed Extended JSON, or `#N` positions.
                let examples: Vec<serde_json::Value> = ids
                    .iter()
                    .map(|id| {
                        serde_json::from_str(id)
                            .unwrap_or_else(|_| serde_json::Value::String(id.clone()))
                    })
                    .collect();
                serde_json::json!({
                    "rule": rule, "count": count, "first": first, "examples": examples,
                })
            })
            .collect();
        let reasons: Vec<serde_json::Value> = self
            .open_reasons
            .iter()
            .map(|(reason, count)| serde_json::json!({ "reason": reason, "count": count }))
            .collect();
        let summary = serde_json::json!({
            "documents": self.read,
            "valid": self.valid(),
            "invalid": self.invalid,
            "notFullyChecked": self.open,
            "notFullyCheckedReasons": reasons,
            "rules": rules,
        });
        serde_json::to_writer_pretty(&mut *out, &summary)?;
        writeln!(out)
    }

    /// One `::error` per failing rule and per reason documents were not fully checked, and a
    /// `::notice` with the counts.
    fn write_github(&self, out: &mut impl Write) -> std::io::Result<()> {
        use crate::render::{Severity, github::annotation};
        for (rule, (count, ids, first)) in self.ranked() {
            let examples = if ids.is_empty() {
                String::new()
            } else {
                format!(" (e.g. {})", ids.join(", "))
            };
            let message = format!("{count} documents fail {rule}; first: {first}{examples}");
            out.write_all(
                annotation(
                    Severity::Error,
                    None,
                    &format!("validate: {rule}"),
                    &message,
                )
                .as_bytes(),
            )?;
        }
        for line in self.open_lines() {
            out.write_all(
                annotation(Severity::Error, None, "validate: not fully checked", &line).as_bytes(),
            )?;
        }
        let mut counts = format!(
            "{} documents: {} valid, {} invalid",
            self.read,
            self.valid(),
            self.invalid
        );
        if self.open > 0 {
            counts.push_str(&format!(", {} not fully checked", self.open));
        }
        out.write_all(annotation(Severity::Note, None, "validate", &counts).as_bytes())
    }

    /// Adds a chunk's results, in input order, and writes its JSON lines with their indexes.
    fn merge(&mut self, done: &mut Done, out: &mut impl Write) -> std::io::Result<()> {
        let first = self.read;
        self.read += done.docs;
        self.invalid += done.invalid;
        for (reason, count) in done.open.drain() {
            self.open += count;
            *self.open_reasons.entry(reason).or_default() += count;
        }
        for (key, seen) in done.rules.drain() {
            // Chunks merge in input order: the first chunk to see a rule has its first failure.
            let (total, shown, _) = self
                .rules
                .entry(key)
                .or_insert_with(|| (0, Vec::new(), seen.first));
            *total += seen.count;
            let room = self.examples.saturating_sub(shown.len());
            shown.extend(seen.examples.into_iter().take(room).map(|e| match e {
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

    fn write_summary(&self, out: &mut impl Write) -> std::io::Result<()> {
        writeln!(
            out,
            "documents: {}  valid: {}  invalid: {}",
            self.read,
            self.valid(),
            self.invalid
        )?;
        for line in self.open_lines() {
            writeln!(out, "{line}")?;
        }
        if self.rules.is_empty() {
            return Ok(());
        }
        writeln!(out, "\nfailing rules, most frequent first:")?;
        for (rule, (count, ids, first)) in self.ranked() {
            writeln!(out, "  {count:>8}  {rule}")?;
            writeln!(out, "            first: {first}")?;
            if !ids.is_empty() {
                writeln!(out, "            e.g. {}", ids.join(", "))?;
            }
        }
        Ok(())
    }
}

/// A progress bar on stderr (done and total bytes, rate, ETA, documents and invalid ones),
/// drawn only when stderr is a terminal and cleared at the end (indicatif hides it otherwise).
struct Progress {
    bar: indicatif::ProgressBar,
}

impl Progress {
    /// A bar over `total` input bytes, or a spinner when the total is unknown (stdin).
    fn new(total: Option<u64>) -> Progress {
        let target = indicatif::ProgressDrawTarget::stderr_with_hz(5);
        let bar = match total {
            Some(total) => {
                let bar = indicatif::ProgressBar::with_draw_target(Some(total), target);
                bar.set_style(
                    indicatif::ProgressStyle::with_template(
                        // The bar takes what the counts leave of the line, so it never wraps.
                        "{bytes}/{total_bytes} {binary_bytes_per_sec} ETA {eta} {msg} {wide_bar}",
                    )
                    .expect("the template is valid"),
                );
                bar
            }
            None => {
                let bar = indicatif::ProgressBar::with_draw_target(None, target);
                bar.set_style(
                    indicatif::ProgressStyle::with_template(
                        "{spinner} {bytes} {binary_bytes_per_sec} {msg}",
                    )
                    .expect("the template is valid"),
                );
                bar
            }
        };
        Progress { bar }
    }

    fn advance(&self, bytes: usize, tally: &Tally) {
        if self.bar.is_hidden() {
            return;
        }
        self.bar.inc(bytes as u64);
        let mut message = format!("{} docs, {} invalid", tally.read, tally.invalid);
        if tally.open > 0 {
            message.push_str(&format!(", {} not fully checked", tally.open));
        }
        self.bar.set_message(message);
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::Document;

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
            e.contains("line 2 has no end within") && e.contains("1 documents read before"),
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
}
