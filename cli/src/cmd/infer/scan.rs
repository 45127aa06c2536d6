//! `infer`'s scans of files and stdin: the inputs, framing and progress bar of `validate`'s
//! streaming pipeline (`crate::validate`), with a part of the census (or of the proof) per
//! chunk in place of verdicts, merged in input order so the result is the one a single pass
//! would give (`Census::merge` is exact; first-seen field order is kept by merging in order).

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use mongo_schema::eval::MalformedBson;

use crate::args::InputFormat;
use crate::validate::Sizes;
use crate::validate::check::{Broken, each_document};
use crate::validate::framing::Framed;
use crate::validate::pipeline::{self, Flow};
use crate::validate::progress::Progress;
use crate::validate::source::{Framing, Raw, Source};

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
    /// Taken by the merge.
    part: Option<P>,
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

/// One input through `validate`'s pipeline: workers count the documents of each chunk into a
/// part; this thread merges the parts in input order.
fn scan_input<P: Send>(
    source: Source,
    name: &str,
    sizes: Sizes,
    scan: &Scan<'_, P>,
    merge: &mut dyn FnMut(P),
    progress: &Progress,
    documents: &mut u64,
) -> anyhow::Result<()> {
    pipeline::run(
        source,
        name,
        sizes,
        "infer",
        &|framing, framed, raw| count(framing, framed, raw, scan),
        &mut |chunk: &mut Chunk<P>| {
            if let Some(part) = chunk.part.take() {
                merge(part);
            }
            *documents += chunk.docs;
            let done = *documents;
            progress.advance_with(chunk.bytes, || format!("{done} docs, {}", scan.label));
            Ok(Flow::Continue)
        },
    )
}

impl<P: Send> pipeline::Chunk for Chunk<P> {
    fn seq(&self) -> usize {
        self.seq
    }
    fn offset(&self) -> u64 {
        self.offset
    }
    fn docs(&self) -> u64 {
        self.docs
    }
    fn lines(&self) -> u64 {
        self.lines
    }
    fn take_broken(&mut self) -> Option<Broken> {
        self.broken.take()
    }
    fn take_buffer(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.buffer)
    }
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
        part: Some(part),
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
