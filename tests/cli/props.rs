//! Property tests of the round trip: for any text, in any file role, parsing keeps every byte
//! and never panics; for generated entries (CJK, CRLF, BOM, trailing spaces, missing optional
//! fields, unknown keys) the parse finds exactly what was written, and importing the rendered
//! files reproduces the store.

use evokb_export::layout::{defaults::PL_DIR, FileRole};
use evokb_export::parse::parse_file;
use proptest::prelude::*;

use crate::support::rendered;

const ROLES: [FileRole; 7] = [
    FileRole::Topic,
    FileRole::Index,
    FileRole::Bottleneck,
    FileRole::Gaps,
    FileRole::Queue,
    FileRole::Stats,
    FileRole::SearchLog,
];

fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("---".to_string()),
        Just("---  ".to_string()),
        Just("id: PL-1".to_string()),
        Just("kind: trap".to_string()),
        Just("  - continued".to_string()),
        Just("## VP-2026-0001".to_string()),
        Just("- status: pending".to_string()),
        Just("- delta: |".to_string()),
        Just("    block text".to_string()),
        Just("### CG-2026-0001".to_string()),
        Just("```yaml".to_string()),
        Just("```".to_string()),
        Just("gap_id: CG-2026-0001".to_string()),
        Just("## BP_ub_pressure：标题".to_string()),
        Just("### 4. 条目 layout.md".to_string()),
        Just("| ID | 一句话 | 状态 |".to_string()),
        Just("|----|--------|------|".to_string()),
        Just("| a | b \\| c | d |".to_string()),
        Just("| date | by | change |".to_string()),
        Just("| entry | hits | last_hit_task | note |".to_string()),
        Just("{\"ts\": \"2026-09-10T09:04:18Z\", \"query\": \"块宽\"}".to_string()),
        Just(String::new()),
        Just("中文 行  ".to_string()),
        any::<String>(),
    ]
}

fn any_text() -> impl Strategy<Value = String> {
    (
        prop::collection::vec((fragment(), prop_oneof![Just("\n"), Just("\r\n"), Just("")]), 0..40),
        any::<bool>(),
    )
        .prop_map(|(parts, bom)| {
            let mut s = if bom { "\u{feff}".to_string() } else { String::new() };
            for (f, eol) in parts {
                s.push_str(&f);
                s.push_str(eol);
            }
            s
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_text_in_any_role_keeps_every_byte(text in any_text(), role in 0..ROLES.len()) {
        let (pf, _) = parse_file(ROLES[role], "f.md", &text);
        prop_assert_eq!(rendered(&pf), text);
    }
}

#[derive(Debug, Clone)]
struct GenEntry {
    fields: Vec<(String, String)>,
    body: Vec<String>,
}

fn value() -> impl Strategy<Value = String> {
    // No leading whitespace: the separator after the colon owns it.
    "([a-z0-9\\[\\],./+（）\u{4e00}-\u{4e40}][a-z0-9 \\[\\],./+（）\u{4e00}-\u{4e40}]{0,24}( {0,2}))?"
}

fn entry() -> impl Strategy<Value = GenEntry> {
    let optional = |key: &'static str| {
        proptest::option::of(value()).prop_map(move |v| v.map(|v| (key.to_string(), v)))
    };
    (
        optional("kind"),
        optional("family"),
        optional("status"),
        optional("origin_task"),
        optional("toolchain"),
        optional("repro"),
        prop::collection::vec(("x_[a-z]{1,6}", value()), 0..3),
        prop::collection::vec("[ -~\u{4e00}-\u{4e40}]{0,30}", 0..6),
    )
        .prop_map(|(a, b, c, d, e, f, unknown, body)| {
            let mut fields: Vec<(String, String)> =
                [a, b, c, d, e, f].into_iter().flatten().collect();
            let mut seen = std::collections::HashSet::new();
            for (k, v) in unknown {
                if seen.insert(k.clone()) {
                    fields.push((k, v));
                }
            }
            let body = body.into_iter().filter(|l| l.trim_end() != "---").collect();
            GenEntry { fields, body }
        })
}

fn topic_file() -> impl Strategy<Value = (String, Vec<GenEntry>)> {
    (prop::collection::vec(entry(), 0..6), any::<bool>(), any::<bool>()).prop_map(
        |(entries, crlf, bom)| {
            let eol = if crlf { "\r\n" } else { "\n" };
            let mut text = if bom { "\u{feff}".to_string() } else { String::new() };
            text.push_str(&format!("# 主题 topic{eol}{eol}> 说明 note  {eol}{eol}"));
            for (i, e) in entries.iter().enumerate() {
                text.push_str(&format!("---{eol}id: E-{i}-gen{eol}"));
                for (k, v) in &e.fields {
                    text.push_str(&format!("{k}: {v}{eol}"));
                }
                text.push_str(&format!("---{eol}{eol}### 标题 {i}{eol}"));
                for line in &e.body {
                    text.push_str(line);
                    text.push_str(eol);
                }
            }
            (text, entries)
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn generated_entries_parse_to_what_was_written((text, entries) in topic_file()) {
        let (pf, diags) = parse_file(FileRole::Topic, "t.md", &text);
        prop_assert!(diags.iter().all(|d| !d.is_error()), "{:?}", diags);
        prop_assert_eq!(pf.records.len(), entries.len());
        for (i, (pr, e)) in pf.records.iter().zip(&entries).enumerate() {
            let expected_id = format!("E-{i}-gen");
            prop_assert_eq!(pr.record.id.as_str(), expected_id.as_str());
            for (k, v) in &e.fields {
                prop_assert_eq!(pr.record.field(k), Some(v.as_str()));
            }
        }
        prop_assert_eq!(rendered(&pf), text);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn importing_the_rendered_files_reproduces_the_store((text, _) in topic_file()) {
        let kb = tempfile::tempdir().expect("tempdir");
        let path = kb.path().join(PL_DIR).join("gen.md");
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, &text).expect("write");
        let store = evokb_store::Store::create(&kb.path().join(".evokb"), evokb_export::index::default_indexer()).expect("store");
        evokb_export::import(kb.path(), &store, Default::default()).expect("import");
        let out = tempfile::tempdir().expect("tempdir");
        evokb_export::render_to(out.path(), &store, &evokb_export::NoDerivedRows).expect("render");
        prop_assert_eq!(std::fs::read_to_string(out.path().join(PL_DIR).join("gen.md")).expect("read"), text);
        let again = evokb_store::Store::create(&out.path().join(".evokb"), evokb_export::index::default_indexer()).expect("store");
        evokb_export::import(out.path(), &again, Default::default()).expect("import");
        prop_assert_eq!(crate::support::digest(&store), crate::support::digest(&again));
    }
}
