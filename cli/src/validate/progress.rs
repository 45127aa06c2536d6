//! The progress bar of `validate` on stderr.

use super::tally::Tally;

/// A progress bar on stderr (done and total bytes, rate, ETA, documents and invalid ones),
/// drawn only when stderr is a terminal and cleared at the end (indicatif hides it otherwise).
pub(crate) struct Progress {
    pub(crate) bar: indicatif::ProgressBar,
}

impl Progress {
    /// A bar over `total` input bytes, or a spinner when the total is unknown (stdin).
    pub(crate) fn new(total: Option<u64>) -> Progress {
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

    pub(crate) fn advance(&self, bytes: usize, tally: &Tally) {
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

    /// Advances by `bytes` with `message` beside the counts, for a scan that keeps no
    /// [`Tally`] (`infer`); the message is made only when the bar is drawn.
    pub(crate) fn advance_with(&self, bytes: usize, message: impl FnOnce() -> String) {
        if self.bar.is_hidden() {
            return;
        }
        self.bar.inc(bytes as u64);
        self.bar.set_message(message());
    }

    pub(crate) fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
