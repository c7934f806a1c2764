//! Renders both charts for the model-iteration fixture into `pics/`.
//!
//! `cargo run -j1 --example render_charts [FIXTURES_DIR]`
//!
//! There is no hits fixture, so the hits chart uses a small made-up series
//! shaped like kb_search_log counts (entry ids from the tilelang KB).

use std::path::PathBuf;

use evokb_analytics::chart::{hits_svg, recurrence_svg};
use evokb_analytics::parse::{parse_error_registry, parse_iteration_log};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let fixtures = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/data"));
    let dir = fixtures.join("model-iteration/results");
    let reg = dir.join("error_registry.jsonl");
    let log = dir.join("iteration_log.jsonl");
    let (cases, d1) = parse_error_registry(&std::fs::read_to_string(&reg)?, &reg.to_string_lossy());
    let (rounds, d2) = parse_iteration_log(&std::fs::read_to_string(&log)?, &log.to_string_lossy());
    for d in d1.iter().chain(&d2) {
        eprintln!("{d}");
    }
    let out = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("pics");
    std::fs::create_dir_all(&out)?;
    std::fs::write(out.join("recurrence.svg"), recurrence_svg(&cases, &rounds)?)?;

    let series: Vec<(String, Vec<(String, u64)>)> = vec![
        (
            "TRAP-threads-kwarg-noop".into(),
            vec![
                ("2026-09-01".into(), 1),
                ("2026-09-02".into(), 3),
                ("2026-09-04".into(), 2),
                ("2026-09-05".into(), 4),
                ("2026-09-06".into(), 1),
            ],
        ),
        (
            "TRAP-load-nd2nz-strided".into(),
            vec![("2026-09-02".into(), 2), ("2026-09-03".into(), 2), ("2026-09-06".into(), 5)],
        ),
        ("ALG-attention".into(), vec![("2026-09-02".into(), 1), ("2026-09-03".into(), 1)]),
        (
            "BP_run_state_bimodality".into(),
            vec![("2026-09-01".into(), 0), ("2026-09-04".into(), 3), ("2026-09-05".into(), 1)],
        ),
    ];
    std::fs::write(out.join("hits.svg"), hits_svg(&series)?)?;

    // A wide span (one entry, 120 days, weekly buckets) to check the date axis.
    let weekly: Vec<(String, u64)> = (0..18)
        .map(|w| {
            let day = evokb_analytics::util::parse_date_days("2026-06-01").unwrap_or(0) + 7 * w;
            (evokb_analytics::util::format_date_days(day), (w as u64 * 7) % 5 + 1)
        })
        .collect();
    std::fs::write(
        out.join("hits-wide.svg"),
        hits_svg(&[("PATT-weekly-bucketed-entry-with-a-long-identifier".into(), weekly)])?,
    )?;
    println!("wrote {}/recurrence.svg and hits.svg", out.display());
    Ok(())
}
