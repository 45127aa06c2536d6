//! `infer`'s scans of files and stdin: the inputs, framing and progress bar of `validate`'s
//! streaming pipeline (`crate::validate`), with a part of the census (or of the proof) per
//! chunk in place of verdicts, merged in input order so the result is the one a single pass
//! would give (`Census::merge` is exact; first-seen field order is kept by merging in order).

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, mpsc};

use anyhow::Context;
use mongo_schema::eval::MalformedBson;

use crate::args::InputFormat;
use crate::validate::Sizes;
use crate::validate::check::{Broken, each_document};
use crate::validate::framing::{Chain, Framed};
use crate::validate::location::Place;
use crate::validate::progress::Progress;
use crate::validate::source::{Feed, Framing, Raw, Source, read_stream};

/// Adds one document's bytes (already framed) to a part; `Err` when they are not readable BSON.
pub(super) type Add<P> = dyn Fn(&mut P, &[u8]) -> Result<(), MalformedBson> + Sync;

/// How a scan treats each chunk: a fresh part, documents added to it, parts merged in order.
pub(super) struct Scan<'a, P> {
    /// A part for one chunk.
    pub(super) fresh: &'a (dyn Fn() -> P + Sync),
    /// Adds one document's bytes (already framed) to a part.
    pub(super) add: &'a Add<P>,
    /// The progress bar's message after `documents` (`"12,000 docs"`).
    pub(super) label: &'a str,
}

/// What a worker makes of one chunk.
struct Chunk<P> {
    seq: usize,
    offset: u64,
    part: P,
    bytes: usize,
    docs: u64,
    lines: u64,
    broken: Option<Broken>,
    buffer: Vec<u8>,
}

/// An input to scan: a file (read again for the proof) or stdin, spooled to a temporary file
/// during the first pass so the second reads the same documents.
pub(super) struct Input {
    pub(super) path: PathBuf,
    pub(super) format: InputFormat,
}

/// Stdin's copy for the second pass, removed when dropped.
pub(super) struct Spool {
    path: PathBuf,
}

impl Drop for Spool {
    fn drop(&mut self) {
        // A leftover temporary file is harmless; a failed removal is not worth an error.
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Copies what is read into the spool file.
struct Tee {
    inner: Box<dyn Read + Send>,
    copy: File,
}

impl Read for Tee {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.copy.write_all(&buf[..n])?;
        Ok(n)
    }
}

/// Scans `inputs` in turn, handing each chunk's part to `merge` in input order; a stdin input
/// is replaced by its spooled copy (and the spool returned) so a later pass can read it again.
///
/// # Errors
/// An unreadable or malformed input: the file, the byte offset or line, and how many documents
/// were read before (as `validate` says it).
pub(super) fn scan<P: Send>(
    inputs: &mut [Input],
    sizes: Sizes,
    scan: &Scan<'_, P>,
    merge: &mut dyn FnMut(P),
) -> anyhow::Result<Option<Spool>> {
    let total = inputs
        .iter()
        .map(|i| {
            std::fs::metadata(&i.path)
                .ok()
                .filter(|m| m.is_file())
                .map(|m| m.len())
        })
        .sum::<Option<u64>>();
    let progress = Progress::new(total);
    let mut spool = None;
    let mut documents = 0;
    for input in inputs.iter_mut() {
        let mut source = Source::open(&input.path, input.format)?;
        let name = input.path.display().to_string();
        if name == "-" {
            let (spooled, path) = tee(source, &mut spool)?;
            source = spooled;
            // The spool holds what the workers frame: lines for JSON (an array's elements
            // already split one per line), documents for BSON.
            input.format = match source.framing() {
                Framing::Bson => InputFormat::Bson,
                Framing::Lines | Framing::Array => InputFormat::Jsonl,
            };
            input.path = path;
        }
        let scanned = scan_input(source, &name, sizes, scan, merge, &progress, &mut documents);
        if let Err(e) = scanned {
            progress.finish();
            return Err(e);
        }
    }
    progress.finish();
    Ok(spool)
}

/// Scans one opened input, without a progress bar's total.
///
/// # Errors
/// As [`scan`].
#[cfg(test)]
pub(super) fn scan_one<P: Send>(
    source: Source,
    name: &str,
    sizes: Sizes,
    scan: &Scan<'_, P>,
    merge: &mut dyn FnMut(P),
) -> anyhow::Result<()> {
    let progress = Progress::new(None);
    let scanned = scan_input(source, name, sizes, scan, merge, &progress, &mut 0);
    progress.finish();
    scanned
}

/// Wraps stdin so what it yields is copied to a new temporary file.
pub(super) fn tee(source: Source, spool: &mut Option<Spool>) -> anyhow::Result<(Source, PathBuf)> {
    let path = std::env::temp_dir().join(format!(
        "mongo-schema-infer-stdin-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    ));
    let copy = File::create(&path)
        .with_context(|| format!("cannot keep stdin for the proof in {}", path.display()))?;
    *spool = Some(Spool { path: path.clone() });
    let source = match source {
        Source::Stream(inner, framing) => Source::Stream(Box::new(Tee { inner, copy }), framing),
        file @ Source::File(..) => file,
    };
    Ok((source, path))
}

/// One input: workers read chunks (at their offsets for files, from a reader thread for
/// streams), cut them in turn, count their documents into a part; this thread merges the parts
/// in input order.
fn scan_input<P: Send>(
    source: Source,
    name: &str,
    sizes: Sizes,
    scan: &Scan<'_, P>,
    merge: &mut dyn FnMut(P),
    progress: &Progress,
    documents: &mut u64,
) -> anyhow::Result<()> {
    let framing = source.framing();
    // Credits are the chunk buffers, as in `validate`: memory stays flat however large the input.
    let (credit_tx, credit_rx) = mpsc::sync_channel::<Vec<u8>>(sizes.credits);
    for _ in 0..sizes.credits {
        credit_tx
            .send(Vec::new())
            .expect("the channel holds every credit");
    }
    let mut credit_tx = Some(credit_tx);
    let credits = Mutex::new(credit_rx);
    let (work_tx, work_rx) = mpsc::sync_channel::<Raw>(sizes.credits);
    let (done_tx, done_rx) = mpsc::channel::<Chunk<P>>();
    let stop = AtomicBool::new(false);
    let chain = Chain::new();
    let (feed, stream) = match source {
        Source::File(file, _) => (
            Feed::File {
                file,
                next: AtomicUsize::new(0),
            },
            None,
        ),
        other => (Feed::Reader(Mutex::new(work_rx)), Some(other)),
    };
    std::thread::scope(|scope| -> anyhow::Result<()> {
        let (feed, credits, stop, chain) = (&feed, &credits, &stop, &chain);
        for _ in 0..sizes.threads {
            let done_tx = done_tx.clone();
            std::thread::Builder::new()
                .name("infer-worker".into())
                .spawn_scoped(scope, move || {
                    while let Some(raw) = feed.next(credits, sizes) {
                        let Some(framed) = chain.frame(framing, &raw, sizes.max_line) else {
                            break;
                        };
                        // If the merger has stopped, keep going so nobody waits for a turn.
                        let _ = done_tx.send(count(framing, framed, raw, scan));
                    }
                })
                .expect("the system starts a worker thread");
        }
        drop(done_tx);
        let reader = stream.map(|source| {
            std::thread::Builder::new()
                .name("infer-reader".into())
                .spawn_scoped(scope, move || {
                    read_stream(source, sizes, credits, &work_tx, stop)
                })
                .expect("the system starts the reader thread")
        });
        let mut place = Place {
            name,
            framing,
            offset: 0,
            docs: 0,
            lines: 0,
        };
        let mut pending = BTreeMap::new();
        let mut next = 0;
        let mut failed: Option<anyhow::Error> = None;
        for chunk in done_rx {
            if failed.is_some() {
                continue;
            }
            pending.insert(chunk.seq, chunk);
            while let Some(mut chunk) = pending.remove(&next) {
                next += 1;
                place.offset = chunk.offset;
                merge(chunk.part);
                place.docs += chunk.docs;
                *documents += chunk.docs;
                let broken = chunk.broken.take().map(|b| place.describe(b));
                place.lines += chunk.lines;
                let done = *documents;
                progress.advance_with(chunk.bytes, || format!("{done} docs, {}", scan.label));
                if let Some(e) = broken {
                    failed = Some(e);
                    stop.store(true, Ordering::Relaxed);
                    credit_tx = None;
                    pending.clear();
                    break;
                }
                if let Some(credits) = &credit_tx {
                    let mut buffer = std::mem::take(&mut chunk.buffer);
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

/// The worker's part after the cut: every whole document of the chunk into a fresh part.
fn count<P>(framing: Framing, framed: Framed, raw: Raw, scan: &Scan<'_, P>) -> Chunk<P> {
    let mut part = (scan.fresh)();
    let mut docs = 0;
    let mut lines = 0;
    let mut add = |doc: &[u8]| {
        (scan.add)(&mut part, doc)?;
        docs += 1;
        Ok(())
    };
    let body = &raw.bytes[framed.body.clone()];
    let mut read = each_document(framing, &framed.joined, 0, &mut lines, &mut add);
    if read.is_ok() {
        read = each_document(
            framing,
            body,
            framed.head + framed.body.start,
            &mut lines,
            &mut add,
        );
    }
    let mut broken = read.err();
    if broken.is_none() {
        if let Some(len) = framed.overlong {
            broken = Some(Broken::Overlong {
                line: lines + 1,
                len,
            });
        } else if let Some(error) = raw.error {
            broken = Some(Broken::Io(error));
        }
    }
    Chunk {
        seq: raw.seq,
        offset: framed.origin,
        part,
        bytes: framed.joined.len() + framed.body.len(),
        docs,
        lines,
        broken,
        buffer: raw.bytes,
    }
}

/// The inputs named on the command line, `-` for stdin.
pub(super) fn inputs(paths: &[PathBuf], format: InputFormat) -> Vec<Input> {
    paths
        .iter()
        .map(|p| Input {
            path: p.clone(),
            format,
        })
        .collect()
}

/// Whether `path` names stdin.
pub(super) fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}
