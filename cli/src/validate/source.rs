//! Inputs of `validate`: opening a file or stdin, and reading it in chunks (workers at
//! their offsets for files, a reader thread for streams).

use std::fs::File;
use std::io::{IsTerminal, Read};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, mpsc};

use anyhow::{Context, bail};

use super::Sizes;
use crate::args::InputFormat;
use crate::json_array::ArrayLines;

/// How an input is cut into documents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Framing {
    /// Concatenated BSON documents; errors name byte offsets in the file.
    Bson,
    /// One Extended JSON document per line; errors name lines.
    Lines,
    /// A `.json` file's documents, one per line ([`ArrayLines`]); errors name the document's
    /// position in the array.
    Array,
}

/// An opened input.
pub(crate) enum Source {
    /// A regular file: each worker reads its own chunks at their offsets.
    File(File, Framing),
    /// A stream (stdin): a reader thread reads it in chunks.
    Stream(Box<dyn Read + Send>, Framing),
}

impl Source {
    pub(crate) fn open(path: &Path, format: InputFormat) -> anyhow::Result<Source> {
        let name = path.display().to_string();
        if path.is_dir() {
            bail!(
                "{name} is a directory: give the files in it (`mongodump` writes one \
                 COLLECTION.bson per collection under DIR/DATABASE/, e.g. {name}/*.bson)"
            );
        }
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

    pub(crate) fn framing(&self) -> Framing {
        match self {
            Source::File(_, framing) | Source::Stream(_, framing) => *framing,
        }
    }
}

/// Bytes of an input as read, not yet cut into documents: `bytes[..len]`.
pub(crate) struct Raw {
    pub(crate) seq: usize,
    pub(crate) bytes: Vec<u8>,
    pub(crate) len: usize,
    /// The input ends after these bytes (or could not be read further).
    pub(crate) last: bool,
    /// Why reading stopped early.
    pub(crate) error: Option<std::io::Error>,
}

/// Reads `r` until `buf` holds `target` bytes; `Ok(true)` when the input ended first.
pub(crate) fn fill(r: &mut dyn Read, buf: &mut Vec<u8>, target: usize) -> std::io::Result<bool> {
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
pub(crate) fn read_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, offset)
}

#[cfg(windows)]
pub(crate) fn read_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, buf, offset)
}

/// Never called: without positional reads every input is read as a stream.
#[cfg(not(any(unix, windows)))]
pub(crate) fn read_at(_: &File, _: &mut [u8], _: u64) -> std::io::Result<usize> {
    Err(std::io::ErrorKind::Unsupported.into())
}

/// Fills `buf` from `offset` (fewer bytes at the end of the file): how many, and the error
/// that stopped reading, if any.
pub(crate) fn read_full_at(
    file: &File,
    buf: &mut [u8],
    offset: u64,
) -> (usize, Option<std::io::Error>) {
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
pub(crate) enum Feed {
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
    pub(crate) fn next(
        &self,
        credits: &Mutex<mpsc::Receiver<Vec<u8>>>,
        sizes: Sizes,
    ) -> Option<Raw> {
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
pub(crate) fn read_stream(
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
