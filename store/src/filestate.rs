//! What the store remembers about a managed file on disk, so that a command can tell without
//! reading it whether the file is still what evokb last wrote or read: a *stat fingerprint*
//! (size, inode, change and modification times, as git's index keeps them) and, for files that
//! only ever grow at the end, a content mark that can be extended by the appended bytes alone.
//!
//! **A fingerprint is only trusted when it cannot be racy.** File times come from a coarse
//! kernel clock, so a second write in the same tick as the one the fingerprint describes can
//! leave every field unchanged (same size, same times). A fingerprint therefore records when it
//! was taken, and [`FileStat::vouches_for`] trusts it only when the file's times are older than
//! that moment by more than [`RACY_WINDOW_NS`]; a racily clean file is read again, as git does.
//! Setting the modification time back does not help a hand edit hide: every write and every
//! `utime` call moves the change time, which no unprivileged process can set.

use std::path::Path;

/// How much older than the moment a fingerprint was taken the file's times must be before the
/// fingerprint vouches for the file: more than two ticks of the coarsest kernel clock that
/// stamps file times on Linux (10 ms at HZ=100), so an edit in the same tick cannot match.
pub const RACY_WINDOW_NS: i128 = 25_000_000;

/// The identity and times of a file as `stat` reports them, and when they were read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStat {
    /// Size in bytes.
    pub len: u64,
    /// Device and inode (0 where the platform has none).
    pub dev: u64,
    /// Inode number.
    pub ino: u64,
    /// Modification time, nanoseconds since the epoch.
    pub mtime_ns: i128,
    /// Status change time, nanoseconds since the epoch (the modification time where the
    /// platform has none).
    pub ctime_ns: i128,
    /// When the fingerprint was taken, nanoseconds since the epoch (system clock).
    pub taken_ns: i128,
}

/// Encoded size of a [`FileStat`] in the store.
pub(crate) const FILE_STAT_LEN: usize = 8 * 3 + 16 * 3;

impl FileStat {
    /// The fingerprint of the file at `path`, or `None` when it cannot be read (missing, or
    /// not stat-able). `taken_ns` is set to the current time *after* the stat, so the rule in
    /// [`FileStat::vouches_for`] errs towards reading the file again.
    pub fn of(path: &Path) -> Option<FileStat> {
        let meta = std::fs::metadata(path).ok()?;
        Some(FileStat::from_metadata(&meta))
    }

    /// The fingerprint of an open file's metadata.
    pub fn from_metadata(meta: &std::fs::Metadata) -> FileStat {
        let taken_ns = now_ns();
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            FileStat {
                len: meta.len(),
                dev: meta.dev(),
                ino: meta.ino(),
                mtime_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
                ctime_ns: i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec()),
                taken_ns,
            }
        }
        #[cfg(not(unix))]
        {
            let mtime_ns = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos() as i128);
            FileStat { len: meta.len(), dev: 0, ino: 0, mtime_ns, ctime_ns: mtime_ns, taken_ns }
        }
    }

    /// Whether this fingerprint, taken when the file last matched the store, proves that the
    /// file `now` describes is still that file: same size, inode and times, and those times
    /// older than the fingerprint by more than [`RACY_WINDOW_NS`].
    pub fn vouches_for(&self, now: &FileStat) -> bool {
        self.len == now.len
            && self.dev == now.dev
            && self.ino == now.ino
            && self.mtime_ns == now.mtime_ns
            && self.ctime_ns == now.ctime_ns
            && self.taken_ns - self.ctime_ns.max(self.mtime_ns) > RACY_WINDOW_NS
    }

    /// Whether the file `now` describes has the same size, inode and times as this
    /// fingerprint, racy or not. Enough before *appending* to a file: an edit that hides in the
    /// same clock tick is kept (the append only adds bytes after it), and the file's content
    /// mark, which no longer matches, makes the next import take it as a person's edit.
    pub fn same_as(&self, now: &FileStat) -> bool {
        self.len == now.len
            && self.dev == now.dev
            && self.ino == now.ino
            && self.mtime_ns == now.mtime_ns
            && self.ctime_ns == now.ctime_ns
    }

    pub(crate) fn encode(&self) -> [u8; FILE_STAT_LEN] {
        let mut out = [0u8; FILE_STAT_LEN];
        out[0..8].copy_from_slice(&self.len.to_be_bytes());
        out[8..16].copy_from_slice(&self.dev.to_be_bytes());
        out[16..24].copy_from_slice(&self.ino.to_be_bytes());
        out[24..40].copy_from_slice(&self.mtime_ns.to_be_bytes());
        out[40..56].copy_from_slice(&self.ctime_ns.to_be_bytes());
        out[56..72].copy_from_slice(&self.taken_ns.to_be_bytes());
        out
    }

    pub(crate) fn decode(b: &[u8; FILE_STAT_LEN]) -> FileStat {
        let u = |r: std::ops::Range<usize>| {
            let mut a = [0u8; 8];
            a.copy_from_slice(&b[r]);
            u64::from_be_bytes(a)
        };
        let i = |r: std::ops::Range<usize>| {
            let mut a = [0u8; 16];
            a.copy_from_slice(&b[r]);
            i128::from_be_bytes(a)
        };
        FileStat {
            len: u(0..8),
            dev: u(8..16),
            ino: u(16..24),
            mtime_ns: i(24..40),
            ctime_ns: i(40..56),
            taken_ns: i(56..72),
        }
    }
}

fn now_ns() -> i128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i128::try_from(d.as_nanos()).unwrap_or(i128::MAX))
}

/// The content mark of an append-only file: a hash chained over its lines, so that appending
/// lines extends the mark without reading what came before ([`extend_line_mark`]), while the
/// mark stays a function of the bytes alone (import computes it from the file).
///
/// Each line includes its `\n`; a final line without one is hashed as it is.
pub fn line_mark(bytes: &[u8]) -> [u8; 32] {
    extend_line_mark(EMPTY_LINE_MARK, bytes)
}

/// The line mark of an empty file.
pub const EMPTY_LINE_MARK: [u8; 32] = [0u8; 32];

/// The line mark of `old ++ appended`, given the line mark of `old`, when `old` is empty or
/// ends with `\n` (otherwise the first appended bytes continue `old`'s last line and the mark
/// must be computed from the whole file).
pub fn extend_line_mark(mut mark: [u8; 32], appended: &[u8]) -> [u8; 32] {
    let mut rest = appended;
    while !rest.is_empty() {
        let end = memchr_newline(rest).map_or(rest.len(), |i| i + 1);
        mark = *blake3::keyed_hash(&mark, &rest[..end]).as_bytes();
        rest = &rest[end..];
    }
    mark
}

fn memchr_newline(b: &[u8]) -> Option<usize> {
    memchr::memchr(b'\n', b)
}

/// How many line endings (`\n`) `bytes` holds: the number of the last line of an
/// append-only file's earlier part, to number the lines appended after it.
pub fn count_newlines(bytes: &[u8]) -> usize {
    memchr::memchr_iter(b'\n', bytes).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_mark_extends_by_the_appended_lines_alone() {
        let old = b"{\"a\": 1}\n{\"b\": 2}\n";
        let add = b"{\"c\": 3}\n";
        let mut whole = old.to_vec();
        whole.extend_from_slice(add);
        assert_eq!(extend_line_mark(line_mark(old), add), line_mark(&whole));
        assert_ne!(line_mark(old), line_mark(&whole));
        assert_eq!(line_mark(b""), EMPTY_LINE_MARK);
        // Moving a newline changes the mark.
        assert_ne!(line_mark(b"ab\nc\n"), line_mark(b"a\nbc\n"));
    }

    #[test]
    fn a_fingerprint_round_trips_and_is_racy_when_taken_in_the_same_tick() {
        let st = FileStat {
            len: 7,
            dev: 1,
            ino: 2,
            mtime_ns: 1_000_000_000,
            ctime_ns: 1_000_000_000,
            taken_ns: 1_010_000_000,
        };
        assert_eq!(FileStat::decode(&st.encode()), st);
        assert!(!st.vouches_for(&st), "10 ms after the write is within the racy window");
        assert!(st.same_as(&st));
        let settled = FileStat { taken_ns: 1_100_000_000, ..st };
        assert!(settled.vouches_for(&st));
        let touched = FileStat { ctime_ns: 1_000_000_001, ..st };
        assert!(!settled.vouches_for(&touched));
    }
}
