//! The one setting of the allocator (mimalloc, installed by the `evokb` binary) that evokb
//! changes at run time: when freed memory goes back to the OS. The workspace forbids
//! `unsafe`; this crate holds the calls into C.

/// mimalloc's `mi_option_purge_delay`: its place in `mi_option_e` of the v3 `mimalloc.h`. The
/// sys crate names its neighbours (`mi_option_eager_commit_delay`, 14, and
/// `mi_option_use_numa_nodes`, 16) but not it; a test checks that it reads v3's default.
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// The purge delay, in milliseconds, of a command that frees and allocates again hundreds of
/// megabytes (an import): mimalloc v2's default, where v3's is 1000.
const SHORT_PURGE_DELAY_MS: std::ffi::c_long = 10;

/// Has memory freed by this process go back to the OS after 10 ms instead of a second. An
/// import frees each file's bytes once parsed, its parse once written, and builds the indexes
/// and verdicts after: with v3's one-second delay the freed pages were still resident when the
/// next phase allocated fresh ones. Measured at 100k entries, 5 alternated fresh imports:
/// maxrss ~565 → ~530 MB, system time 1.22 → 1.55 s, wall time within the runs' spread (8.8 to
/// 10.4 s either way). The same delay set by `MIMALLOC_PURGE_DELAY=10` at process start gave
/// ~515 MB; 0 (purge at once) gave ~490 MB for ~0.5 s more.
#[allow(unsafe_code)]
pub fn return_freed_memory_sooner() {
    // SAFETY: `mi_option_set` stores a value that mimalloc reads each time it schedules a
    // purge; it takes no pointer and may be called at any time.
    unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, SHORT_PURGE_DELAY_MS) }
}

/// The purge delay that turns purging off (mimalloc: "-1 disables purging completely").
const NEVER_PURGE: std::ffi::c_long = -1;

/// Keeps memory freed by this process until it exits, for a command that reads a few
/// megabytes and exits within milliseconds (a query, a `get`). Each page redb reads is a fresh
/// allocation, freed when its cache lets it go; with purging on, the pages freed so were
/// scheduled for return to the OS and handed back by `madvise` when the process exited,
/// about 4% of a four-facet query's CPU at 100k entries. The kernel takes them back at exit
/// anyway.
#[allow(unsafe_code)]
pub fn keep_freed_memory() {
    // SAFETY: as in `return_freed_memory_sooner`.
    unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, NEVER_PURGE) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(unsafe_code)]
    fn the_purge_delay_option_is_the_one_named() {
        // Set from the environment, the option holds whatever it says.
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
            return;
        }
        // SAFETY: reads an option's value.
        let delay = unsafe { libmimalloc_sys::mi_option_get(PURGE_DELAY) };
        assert_eq!(delay, 1000, "option {PURGE_DELAY} is not mimalloc v3's purge delay");
    }
}
