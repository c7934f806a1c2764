//! Progress bars on stderr for the commands that can run long (`import`, `render`, `verify`,
//! `errors import`), drawn with indicatif from the work units the libraries report through
//! [`evokb_store::Progress`].
//!
//! Whether a bar may be drawn at all is decided once, by [`may_draw`]: only when stderr is a
//! terminal, and never with `--json`, under `CI` or with `--quiet`. A bar that may be drawn
//! still stays hidden until the command has run for about a second ([`reveal_after`]), so a
//! quick command prints nothing extra even on a terminal.

use std::io::IsTerminal;
use std::sync::{mpsc, Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// What decides whether a progress bar may be drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Conditions {
    /// Standard error is a terminal (not a pipe or a file).
    pub stderr_terminal: bool,
    /// The command prints JSON: a script or an agent reads it.
    pub json: bool,
    /// The `CI` environment variable is set.
    pub ci: bool,
    /// `--quiet` was given.
    pub quiet: bool,
}

impl Conditions {
    /// The conditions of this process, for a command printing JSON or not.
    pub fn of_process(json: bool) -> Conditions {
        Conditions {
            stderr_terminal: std::io::stderr().is_terminal(),
            json,
            ci: std::env::var_os("CI").is_some(),
            quiet: crate::commands::quiet(),
        }
    }
}

/// Whether a progress bar may be drawn: on a terminal, and not for JSON, CI or `--quiet`.
pub fn may_draw(c: Conditions) -> bool {
    c.stderr_terminal && !c.json && !c.ci && !c.quiet
}

/// How long a command runs before its bar appears: one second, or `EVOKB_PROGRESS_AFTER_MS`
/// milliseconds (the tests set 0 to see a bar from a short command).
fn reveal_after() -> Duration {
    let ms = std::env::var("EVOKB_PROGRESS_AFTER_MS").ok().and_then(|v| v.parse().ok());
    Duration::from_millis(ms.unwrap_or(1000))
}

/// A progress bar on stderr, or nothing (see [`may_draw`]). It is cleared by [`Bar::finish`]
/// or when dropped, so an error message or the command's output never lands behind it.
pub struct Bar {
    live: Option<Live>,
}

/// A bar that may be drawn, and the thread that reveals it after [`reveal_after`].
struct Live {
    shared: Arc<Mutex<Shown>>,
    started: Instant,
    /// Dropped to tell the reveal thread the command is done.
    done: Option<mpsc::Sender<()>>,
    reveal: Option<JoinHandle<()>>,
}

/// The bar of the current phase, and whether bars are on the terminal yet.
struct Shown {
    bar: ProgressBar,
    revealed: bool,
}

impl Shown {
    /// Puts `bar` on stderr, ticking so that a phase without units (a commit) stays alive.
    ///
    /// The first frame is drawn here, before the steady tick starts: once a ticker is
    /// installed, indicatif's `tick` does nothing and the first frame waits for the ticker
    /// thread to be scheduled, so on a loaded machine a phase of a few milliseconds (`verify`'s
    /// `verifying files` on a small store) could end without ever being shown.
    fn draw(bar: &ProgressBar) {
        bar.set_draw_target(ProgressDrawTarget::stderr());
        bar.tick();
        bar.enable_steady_tick(Duration::from_millis(120));
    }
}

/// The unit a phase counts in: items (files, records) or bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    Items,
    Bytes,
}

impl Bar {
    /// The bar of a command, which prints JSON when `json`: live only when [`may_draw`] says so.
    pub fn for_command(json: bool) -> Bar {
        if !may_draw(Conditions::of_process(json)) {
            return Bar { live: None };
        }
        let bar = styled("starting", 0, Unit::Items, Duration::ZERO);
        let shared = Arc::new(Mutex::new(Shown { bar, revealed: false }));
        let (tx, rx) = mpsc::channel::<()>();
        let to_reveal = Arc::clone(&shared);
        let after = reveal_after();
        let reveal = std::thread::spawn(move || {
            // Anything but a timeout (the sender dropped) means the command finished first.
            if rx.recv_timeout(after) == Err(mpsc::RecvTimeoutError::Timeout) {
                if let Ok(mut shown) = to_reveal.lock() {
                    shown.revealed = true;
                    Shown::draw(&shown.bar);
                }
            }
        });
        Bar {
            live: Some(Live {
                shared,
                started: Instant::now(),
                done: Some(tx),
                reveal: Some(reveal),
            }),
        }
    }

    /// A phase counted in bytes (a registry file read), `total` bytes.
    pub fn phase_bytes(&self, label: &str, total: u64) {
        self.start(label, total, Unit::Bytes);
    }

    /// Replaces the bar with one for the new phase, styled and sized before it is drawn (so
    /// no frame shows the new label in the old phase's style), its clock still the command's.
    fn start(&self, label: &str, total: u64, unit: Unit) {
        let Some(live) = &self.live else { return };
        let bar = styled(label, total, unit, live.started.elapsed());
        let Ok(mut shown) = live.shared.lock() else { return };
        let old = std::mem::replace(&mut shown.bar, bar);
        if shown.revealed {
            old.finish_and_clear();
            Shown::draw(&shown.bar);
        }
    }

    /// Clears the bar (if it was ever shown) and stops the thread that would reveal it.
    pub fn finish(&mut self) {
        let Some(mut live) = self.live.take() else { return };
        drop(live.done.take());
        if let Some(reveal) = live.reveal.take() {
            let _ = reveal.join();
        }
        let shown = live.shared.lock();
        if let Ok(shown) = shown {
            shown.bar.finish_and_clear();
        }
    }
}

/// A hidden bar for a phase of `total` units (a spinner when 0), labelled and styled, whose
/// clock starts at `elapsed`.
fn styled(label: &str, total: u64, unit: Unit, elapsed: Duration) -> ProgressBar {
    let template = match (total, unit) {
        (0, _) => "{spinner} {msg} {elapsed}",
        (_, Unit::Items) => "{msg:<26} [{wide_bar}] {pos}/{len} {elapsed}",
        (_, Unit::Bytes) => "{msg:<26} [{wide_bar}] {binary_bytes}/{binary_total_bytes}",
    };
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden())
        .with_elapsed(elapsed)
        .with_message(label.to_string());
    // The templates are constants; a template error would only lose the styling.
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

impl evokb_store::Progress for Bar {
    fn phase(&self, label: &str, total: u64) {
        self.start(label, total, Unit::Items);
    }

    fn advance(&self, n: u64) {
        if let Some(shown) = self.live.as_ref().and_then(|l| l.shared.lock().ok()) {
            shown.bar.inc(n);
        }
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.finish();
    }
}

/// A reader that reports the bytes read through it to a [`Bar`]: the progress of a registry
/// import, whose parser reads its lines from this.
pub struct CountingReader<'a, R> {
    inner: R,
    bar: &'a Bar,
}

impl<'a, R> CountingReader<'a, R> {
    /// Reads from `inner`, advancing `bar` by each read's byte count.
    pub fn new(inner: R, bar: &'a Bar) -> CountingReader<'a, R> {
        CountingReader { inner, bar }
    }
}

impl<R: std::io::Read> std::io::Read for CountingReader<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        evokb_store::Progress::advance(self.bar, n as u64);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bar_is_drawn_only_on_a_terminal_without_json_ci_or_quiet() {
        let mut drawn = Vec::new();
        for stderr_terminal in [false, true] {
            for json in [false, true] {
                for ci in [false, true] {
                    for quiet in [false, true] {
                        let c = Conditions { stderr_terminal, json, ci, quiet };
                        if may_draw(c) {
                            drawn.push(c);
                        }
                    }
                }
            }
        }
        // Of the 16 combinations, exactly one draws.
        let only = Conditions { stderr_terminal: true, json: false, ci: false, quiet: false };
        assert_eq!(drawn, [only]);
    }

    #[test]
    fn a_bar_that_may_not_be_drawn_is_inert_and_counting_reads_pass_bytes_through() {
        use evokb_store::Progress;
        use std::io::Read;
        let mut bar = Bar { live: None };
        bar.phase("reading files", 3);
        bar.advance(1);
        let mut text = String::new();
        CountingReader::new(&b"abc\n"[..], &bar).read_to_string(&mut text).expect("read");
        assert_eq!(text, "abc\n");
        bar.finish();
        assert!(bar.live.is_none());
    }
}
