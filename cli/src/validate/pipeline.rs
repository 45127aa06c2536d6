//! The pipeline every reading command shares: workers read chunks of one input (at their
//! offsets for a file, from a reader thread for a stream), take their turn to cut whole
//! documents, work on them, and this thread merges the results in input order. `validate`
//! checks and writes; `infer` counts into a census. Credits are the chunk buffers themselves:
//! a chunk is read only into one, and the merge returns it, so memory stays flat and buffers are
//! reused however large the input.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, mpsc};

use super::Sizes;
use super::check::Broken;
use super::framing::{Chain, Framed};
use super::location::Place;
use super::source::{Feed, Framing, Raw, Source, read_stream};

/// What a worker hands back for one chunk, for the merge to place it.
pub(crate) trait Chunk: Send {
    /// The chunk's turn, from 0 in input order.
    fn seq(&self) -> usize;
    /// Where the chunk starts in the input.
    fn offset(&self) -> u64;
    /// Documents read from it (before the break, if any).
    fn docs(&self) -> u64;
    /// Lines consumed (JSON lines).
    fn lines(&self) -> u64;
    /// Where the input stopped being readable, if it did in this chunk.
    fn take_broken(&mut self) -> Option<Broken>;
    /// The chunk's buffer, back as a credit.
    fn take_buffer(&mut self) -> Vec<u8>;
}

/// `validate`'s chunks.
impl Chunk for super::check::Done {
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

/// What the merge of one chunk says about the run.
pub(crate) enum Flow {
    /// Go on.
    Continue,
    /// The output has seen enough (`| head -1`): the end, not an error.
    Closed,
}

/// Runs one input through `work` on `sizes.threads` workers (threads named `{label}-worker`,
/// `{label}-reader`) and `merge` on this thread, in input order. The first broken input or
/// merge error stops the run and is returned, located in the input.
pub(crate) fn run<C: Chunk>(
    source: Source,
    name: &str,
    sizes: Sizes,
    label: &str,
    work: &(dyn Fn(Framing, Framed, Raw) -> C + Sync),
    merge: &mut dyn FnMut(&mut C) -> anyhow::Result<Flow>,
) -> anyhow::Result<()> {
    let framing = source.framing();
    let (credit_tx, credit_rx) = mpsc::sync_channel::<Vec<u8>>(sizes.credits);
    for _ in 0..sizes.credits {
        credit_tx
            .send(Vec::new())
            .expect("the channel holds every credit");
    }
    let mut credit_tx = Some(credit_tx);
    let credits = Mutex::new(credit_rx);
    let (work_tx, work_rx) = mpsc::sync_channel::<Raw>(sizes.credits);
    let (done_tx, done_rx) = mpsc::channel::<C>();
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
            // Named, so profilers show the workers' and the reader's shares apart.
            std::thread::Builder::new()
                .name(format!("{label}-worker"))
                .spawn_scoped(scope, move || {
                    while let Some(raw) = feed.next(credits, sizes) {
                        let Some(framed) = chain.frame(framing, &raw, sizes.max_line) else {
                            break;
                        };
                        // If the merge has stopped, keep going so nobody waits for a turn.
                        let _ = done_tx.send(work(framing, framed, raw));
                    }
                })
                .expect("the system starts a worker thread");
        }
        drop(done_tx);
        let reader = stream.map(|source| {
            std::thread::Builder::new()
                .name(format!("{label}-reader"))
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
        let mut closed = false;
        for chunk in done_rx {
            if failed.is_some() || closed {
                continue;
            }
            pending.insert(chunk.seq(), chunk);
            while let Some(mut chunk) = pending.remove(&next) {
                next += 1;
                place.offset = chunk.offset();
                let flow = merge(&mut chunk);
                place.docs += chunk.docs();
                // A break is located from the lines before the chunk and the documents before it.
                let broken = chunk.take_broken().map(|b| place.describe(b));
                place.lines += chunk.lines();
                if matches!(flow, Ok(Flow::Closed)) {
                    closed = true;
                } else if let Some(e) = broken.or(flow.err()) {
                    failed = Some(e);
                }
                if closed || failed.is_some() {
                    stop.store(true, Ordering::Relaxed);
                    credit_tx = None;
                    pending.clear();
                    break;
                }
                if let Some(credits) = &credit_tx {
                    let mut buffer = chunk.take_buffer();
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
