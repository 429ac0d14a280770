//! A file whose host ignores `Range` and sends it whole: the body is written, as it arrives, by
//! a thread of its own to an unlinked temporary file (never held in memory), and a read waits
//! until the bytes it asks for have arrived, so that the explorer works while the rest is
//! still coming ([`super::early`] explores a zip's members as they arrive). When the download
//! fails or ends before those bytes, the read fails saying which bytes were asked for and how
//! far the download got.

use super::progress;
use crate::fail::{Failure, Outcome};
use std::fs::File;
use std::io::{Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};

/// Bytes written to the temporary file at a time (and so how often readers hear of more).
const PIECE: usize = 256 << 10;

/// A body arriving into a temporary file.
pub struct Arrival {
    url: String,
    /// The temporary file, read at any offset (`pread`) while the download appends to it.
    file: File,
    /// What the host said the body's size is (`Content-Length`), when it said.
    length: Option<u64>,
    state: Mutex<State>,
    /// Told when bytes arrive and when the download ends.
    changed: Condvar,
    /// Set when nobody reads the file any more: the download stops.
    abandoned: AtomicBool,
}

#[derive(Default)]
struct State {
    arrived: u64,
    /// `None` while the download runs; then `Ok` or why it failed.
    ended: Option<Result<(), String>>,
}

impl Arrival {
    /// Starts writing `body` (of `length` bytes, when the host said) to an unlinked temporary
    /// file on a thread of its own, drawing its progress on `bar`.
    pub fn start(
        url: &str,
        length: Option<u64>,
        body: ureq::BodyReader<'static>,
        bar: progress::Bar,
    ) -> Outcome<Arc<Arrival>> {
        let told = length.map(|n| format!(" ({n} bytes)")).unwrap_or_default();
        eprintln!(
            "offload: note: {url}: the host ignores `Range`; reading the whole file{told} into a temporary file, explored as it arrives"
        );
        let cannot = || Failure::new(format!("{url}: cannot make a temporary file for the download"));
        let file = crate::temporary::unlinked_file().ok_or_else(cannot)?;
        let writer = file.try_clone().map_err(|_| cannot())?;
        let arrival = Arc::new(Arrival {
            url: url.to_string(),
            file,
            length,
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
            abandoned: AtomicBool::new(false),
        });
        let writing = Arc::clone(&arrival);
        std::thread::Builder::new()
            .name("offload-download".into())
            .spawn(move || writing.download(body, writer, bar))
            .map_err(|e| Failure::new(format!("{url}: cannot start the download thread: {e}")))?;
        Ok(arrival)
    }

    /// The download thread: the body into `writer`, then whether it all came.
    fn download(&self, mut body: ureq::BodyReader<'static>, mut writer: File, bar: progress::Bar) {
        let mut buffer = vec![0u8; PIECE];
        let mut arrived = 0u64;
        let ended = loop {
            if self.abandoned.load(Ordering::Relaxed) {
                break Err(format!("{}: the download was abandoned after {arrived} bytes", self.url));
            }
            let n = match body.read(&mut buffer) {
                Ok(0) => break self.check_length(arrived),
                Ok(n) => n,
                Err(e) => break Err(format!("{}: the download failed after {arrived} bytes: {e}", self.url)),
            };
            if let Err(e) = writer.write_all(&buffer[..n]) {
                break Err(format!("{}: writing the temporary file after {arrived} bytes: {e}", self.url));
            }
            arrived += n as u64;
            bar.set(arrived);
            self.state().arrived = arrived;
            self.changed.notify_all();
        };
        bar.finish();
        self.state().ended = Some(ended);
        self.changed.notify_all();
    }

    fn check_length(&self, arrived: u64) -> Result<(), String> {
        match self.length {
            Some(expected) if expected != arrived => Err(format!(
                "{}: expected {expected} bytes (`Content-Length`), the download ended after {arrived}",
                self.url
            )),
            _ => Ok(()),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The size the host announced (`Content-Length`), if it did.
    pub fn length(&self) -> Option<u64> {
        self.length
    }

    /// Bytes arrived so far.
    pub fn arrived(&self) -> u64 {
        self.state().arrived
    }

    /// The file's size: the host's `Content-Length`, or, when it sent none (a chunked body),
    /// what has arrived once the download has ended (waiting for it). A download that failed
    /// gives what arrived: reads past it fail and say why.
    pub fn size(&self) -> u64 {
        if let Some(length) = self.length {
            return length;
        }
        let _ = self.wait_end();
        self.arrived()
    }

    /// Waits until the download has ended: what arrived, or why it failed.
    pub fn wait_end(&self) -> Result<u64, String> {
        let mut state = self.state();
        loop {
            match &state.ended {
                Some(Ok(())) => return Ok(state.arrived),
                Some(Err(why)) => return Err(why.clone()),
                None => state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner()),
            }
        }
    }

    /// Waits until the bytes before `end` have arrived; fails when the download ends first.
    pub fn wait_for(&self, end: u64) -> Result<(), String> {
        let mut state = self.state();
        loop {
            if state.arrived >= end {
                return Ok(());
            }
            match &state.ended {
                Some(Ok(())) => {
                    return Err(format!(
                        "{}: bytes up to {end} asked for, past the end of its {} bytes",
                        self.url, state.arrived
                    ))
                }
                Some(Err(why)) => {
                    return Err(format!("bytes up to {end} asked for, none past {}: {why}", state.arrived))
                }
                None => state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner()),
            }
        }
    }

    /// The `size` bytes at `offset`, once they have arrived.
    pub fn read_at(&self, offset: u64, size: u64) -> Result<Vec<u8>, String> {
        use std::os::unix::fs::FileExt;
        let end = offset
            .checked_add(size)
            .ok_or_else(|| format!("{}: bytes {offset}..+{size} asked for, past any file's end", self.url))?;
        let wanted = usize::try_from(size).map_err(|_| format!("{}: a read of {size} bytes", self.url))?;
        self.wait_for(end)?;
        let mut bytes = vec![0; wanted];
        self.file
            .read_exact_at(&mut bytes, offset)
            .map_err(|e| format!("{}: reading bytes {offset}..{end} of the downloaded copy: {e}", self.url))?;
        Ok(bytes)
    }

    /// Up to `max` bytes at `offset`, as soon as at least one has arrived; none at the end of
    /// the file.
    pub fn read_some(&self, offset: u64, max: u64) -> Result<Vec<u8>, String> {
        let available = {
            let mut state = self.state();
            loop {
                if state.arrived > offset || state.ended.is_some() {
                    break state.arrived.saturating_sub(offset);
                }
                state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
            }
        };
        if available == 0 {
            // At (or past) the end: the end of the file, or why the download stopped short.
            return match self.wait_end() {
                Ok(_) => Ok(Vec::new()),
                Err(why) => Err(format!("bytes from {offset} asked for: {why}")),
            };
        }
        self.read_at(offset, available.min(max))
    }

    /// Nobody reads the file any more: the download stops at its next piece.
    pub fn abandon(&self) {
        self.abandoned.store(true, Ordering::Relaxed);
    }
}
