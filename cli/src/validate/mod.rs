//! The streaming pipeline of `mongo-schema validate`: inputs ([`source`]) are read in chunks,
//! cut in turn ([`framing`]), checked in parallel ([`check`]) and merged in input order into a
//! [`Tally`], the report ([`tally`]).
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
//! ([`ArrayLines`](crate::json_array::ArrayLines)). `--input-format` says what `-` or an unusual file name holds.

pub(crate) mod check;
pub(crate) mod framing;
pub(crate) mod location;
pub(crate) mod pipeline;
pub(crate) mod progress;
pub(crate) mod source;
mod tally;
#[cfg(test)]
mod tests;

use std::io::Write;
use std::path::PathBuf;

use mongo_schema::eval::Validator;

use crate::args::{InputFormat, ValidateFormat};
use check::{Done, Job, check_framed};
use pipeline::Flow;
use progress::Progress;
use source::Source;
pub use tally::Tally;

/// The largest document length believed before reading it (the server's limit is 16 MiB).
pub(super) const MAX_DOC: i32 = 48 * 1024 * 1024;
/// The longest JSON line read before giving up (memory stays bounded on a file without newlines).
pub(super) const MAX_LINE: usize = 64 << 20;
/// Input bytes in flight across the pipeline, at most (chunks are smaller with many threads).
pub(super) const IN_FLIGHT_BYTES: usize = 16 << 20;
/// The largest chunk: one system call per MiB costs nothing, and a chunk this size is still in
/// the worker's cache when it checks the bytes it has just read.
pub(super) const MAX_CHUNK: usize = 1 << 20;

/// What a run reads and how it reports, beside the validator.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// What the inputs hold.
    pub input_format: InputFormat,
    /// How the report is written (`jsonl` lines are written as the documents are checked).
    pub format: ValidateFormat,
    /// Example document ids kept per failing rule.
    pub examples: usize,
    /// The pipeline's sizes.
    pub sizes: Sizes,
}

/// Checks every input in turn against `validator`, writing `--format jsonl` lines to `out` in
/// input order, with a progress bar on stderr; the report is the [`Tally`].
///
/// # Errors
/// An unreadable or malformed input (the message names the file, the line or byte offset, and
/// how many documents were read before), or a failed write other than a closed output.
pub fn run(
    validator: &Validator,
    inputs: &[PathBuf],
    options: &Options,
    out: &mut impl Write,
) -> anyhow::Result<Tally> {
    let mut tally = Tally::new(options.examples);
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
    for input in inputs {
        let source = Source::open(input, options.input_format)?;
        let job = Job {
            validator,
            framing: source.framing(),
            format: options.format,
            examples: options.examples,
        };
        let name = input.display().to_string();
        let checked = check_input(
            &job,
            source,
            &name,
            options.sizes,
            &mut tally,
            &progress,
            out,
        );
        if let Err(e) = checked {
            progress.finish();
            return Err(e);
        }
        if tally.closed {
            break;
        }
    }
    progress.finish();
    Ok(tally)
}

/// Pipeline sizes: how many workers, how big a chunk, how many chunks in flight.
#[derive(Clone, Copy, Debug)]
pub struct Sizes {
    pub(crate) threads: usize,
    pub(crate) chunk: usize,
    pub(crate) credits: usize,
    /// The longest JSON line read before giving up.
    pub(crate) max_line: usize,
}

impl Sizes {
    /// The sizes for `threads` workers.
    pub fn new(threads: usize) -> Sizes {
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
    pipeline::run(
        source,
        name,
        sizes,
        "validate",
        &|_, framed, raw| check_framed(job, framed, raw),
        &mut |done: &mut Done| {
            let written = tally.merge(done, out);
            progress.advance(done.bytes, tally);
            match written {
                // The reader has seen enough (`| head -1`): the end, not an error.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => tally.closed = true,
                Err(e) => return Err(anyhow::Error::new(e).context("writing results")),
                Ok(()) => {}
            }
            Ok(if tally.closed {
                Flow::Closed
            } else {
                Flow::Continue
            })
        },
    )
}
