//! The index builds under way (held so that `currentOp` can see them): part of the server's
//! state, read and written by `commands/current_op.rs`.

use std::time::{Duration, Instant};

use bson::Document;

/// The index builds under way, and how long each one takes.
#[derive(Debug)]
pub(crate) struct Builds {
    pub(crate) delay: Option<Duration>,
    pub(crate) next_opid: i64,
    pub(crate) running: Vec<Build>,
}

impl Default for Builds {
    fn default() -> Self {
        Self {
            delay: None,
            next_opid: 9_100,
            running: Vec::new(),
        }
    }
}

#[derive(Debug)]
pub(crate) struct Build {
    pub(crate) opid: i64,
    pub(crate) ns: String,
    pub(crate) command: Document,
    pub(crate) started: Instant,
    pub(crate) delay: Duration,
    pub(crate) total: i64,
}

impl Build {
    /// Documents scanned so far: the build scans at a steady pace over its delay.
    pub(crate) fn done(&self) -> i64 {
        let fraction = if self.delay.is_zero() {
            1.0
        } else {
            (self.started.elapsed().as_secs_f64() / self.delay.as_secs_f64()).min(1.0)
        };
        (self.total as f64 * fraction) as i64
    }
}
