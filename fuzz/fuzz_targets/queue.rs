//! Fuzzes the `queue.md` importer (`## VP-` items):
//! `parse_file(FileRole::Queue, ..)` on arbitrary text; the invariants are in `src/lib.rs`.
#![no_main]

use evokb_export::layout::FileRole;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| evokb_fuzz::check_bytes(FileRole::Queue, data));
