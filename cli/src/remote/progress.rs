//! Progress of a remote read on stderr: `URL: fetched 41.0 MiB of 2.1 GiB`, redrawn as bytes
//! arrive, and cleared when the command is done with the file. Drawn only where stderr is a
//! terminal and the command line asked for it ([`show_progress`]: the `offload` command does;
//! the Python module, whose callers draw their own, does not), as `doctor` draws its bar.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};

static SHOWN: AtomicBool = AtomicBool::new(false);

/// Whether remote reads draw their progress (on a terminal only).
pub fn show_progress(shown: bool) {
    SHOWN.store(shown, Ordering::Relaxed);
}

/// The progress of one file: hidden unless drawn.
pub struct Bar(ProgressBar);

impl Bar {
    /// A bar for `url`, whose size is `size` when known.
    pub fn new(url: &str, size: Option<u64>) -> Bar {
        if !SHOWN.load(Ordering::Relaxed) || !std::io::stderr().is_terminal() {
            return Bar(ProgressBar::hidden());
        }
        let bar = ProgressBar::with_draw_target(size, ProgressDrawTarget::stderr());
        let template = match size {
            Some(_) => "{msg}: fetched {bytes} of {total_bytes} {wide_bar}",
            None => "{msg}: fetched {bytes}",
        };
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style);
        }
        bar.set_message(url.to_string());
        Bar(bar)
    }

    /// A bar never drawn.
    pub fn hidden() -> Bar {
        Bar(ProgressBar::hidden())
    }

    /// `fetched` bytes fetched so far.
    pub fn set(&self, fetched: u64) {
        self.0.set_position(fetched);
    }

    /// Clears the bar: the command is done with the file.
    pub fn finish(&self) {
        self.0.finish_and_clear();
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
}
