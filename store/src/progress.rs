//! Progress reports of long operations, in the units of work they really do (files read,
//! files rendered, files verified), for a caller that wants to show them.
//!
//! The libraries only report; drawing is the binary's business, so no library crate depends on
//! a terminal crate. The default receiver, [`Silent`], does nothing: a call through it is one
//! empty virtual call per file, which leaves a library caller's costs as they were.

/// Receives progress reports. Every method has an empty default, so a receiver implements
/// only what it shows.
pub trait Progress {
    /// A phase of `total` work units begins; `label` says what is done ("reading files").
    /// `total` is 0 when the phase is one step whose size is not known (a commit).
    fn phase(&self, label: &str, total: u64) {
        let _ = (label, total);
    }

    /// `n` more units of the current phase are done.
    fn advance(&self, n: u64) {
        let _ = n;
    }
}

/// A receiver that ignores every report: what the functions without a progress argument use.
#[derive(Debug, Clone, Copy, Default)]
pub struct Silent;

impl Progress for Silent {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    /// Keeps what it was told.
    #[derive(Default)]
    struct Log(RefCell<Vec<String>>);

    impl Progress for Log {
        fn phase(&self, label: &str, total: u64) {
            self.0.borrow_mut().push(format!("{label}/{total}"));
        }
        fn advance(&self, n: u64) {
            self.0.borrow_mut().push(format!("+{n}"));
        }
    }

    fn work(p: &dyn Progress) {
        p.phase("reading files", 2);
        p.advance(1);
        p.advance(1);
    }

    #[test]
    fn a_receiver_sees_phases_and_units_and_silent_accepts_them() {
        let log = Log::default();
        work(&log);
        assert_eq!(log.0.into_inner(), ["reading files/2", "+1", "+1"]);
        work(&Silent);
    }
}
