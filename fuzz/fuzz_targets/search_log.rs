//! Fuzzes the search-log importer: raw bytes go through `text::decode_utf8` (as the importer
//! reads files), and the text, valid or made valid, through `parse_file(FileRole::SearchLog, ..)`.
#![no_main]

use evokb_export::layout::FileRole;
use evokb_export::text::decode_utf8;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match decode_utf8(data) {
        Ok(text) => {
            assert_eq!(text.as_bytes(), data);
            evokb_fuzz::check(FileRole::SearchLog, text);
        }
        Err((line, message)) => {
            let err = std::str::from_utf8(data).expect_err("decode_utf8 rejected valid UTF-8");
            let valid = &data[..err.valid_up_to()];
            assert_eq!(line, valid.iter().filter(|&&b| b == b'\n').count() + 1);
            assert!(message.contains(&format!("at byte {}", err.valid_up_to())), "{message}");
            evokb_fuzz::check_bytes(FileRole::SearchLog, data);
        }
    }
});
