//! Times every figure on a generated registry of 100k cases × 20 rounds.
//!
//! `CARGO_TARGET_DIR=target cargo run --release -j1 --example perf`
//!
//! The data is deterministic (fixed-seed xorshift), so runs are comparable.
//! Also writes `pics/recurrence-100k.svg` to check the chart at 20 rounds.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::{Duration, Instant};

use evokb_analytics::chart::recurrence_svg;
use evokb_analytics::figures::{
    recurrence, recurrence_after_entries, recurrence_after_fix, recurrence_after_injection,
    round_breakdown, transitions, EntryLink, ErrorClass, InjectionPoint,
};
use evokb_analytics::parse::{parse_error_registry, parse_iteration_log, parse_timeline};
use evokb_analytics::timeline::{metrics, timeline_summary};

const CASES: usize = 100_000;
const ROUNDS: usize = 20;
const PATTERNS: usize = 12;
const TASKS: usize = 10_000;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

fn registry(rng: &mut Rng) -> String {
    let mut out = String::with_capacity(CASES * 260);
    for c in 0..CASES {
        let mut evaluated = Vec::new();
        let mut failed = Vec::new();
        for r in 0..ROUNDS {
            if rng.chance(92) {
                evaluated.push(format!("\"R{r}\""));
                if rng.chance(18) {
                    failed.push(format!("\"R{r}\""));
                }
            }
        }
        if failed.is_empty() {
            // Registry cases failed at least once.
            if !evaluated.iter().any(|r| r == "\"R0\"") {
                evaluated.insert(0, "\"R0\"".into());
            }
            failed.push("\"R0\"".into());
        }
        // Every 10th case has no case_hash, to exercise the query key.
        let hash = if c % 10 == 0 {
            String::new()
        } else {
            format!("\"case_hash\": \"{:016x}\", ", rng.next())
        };
        let _ = writeln!(
            out,
            "{{{hash}\"query\": \"query number {c}\", \"gold\": \"Music\", \"subset\": \"s\", \"pattern\": \"p{}\", \"evaluated\": [{}], \"failed_rounds\": [{}]}}",
            rng.next() % PATTERNS as u64,
            evaluated.join(", "),
            failed.join(", ")
        );
    }
    out
}

fn iteration_log() -> String {
    let mut out = String::new();
    for r in 0..ROUNDS {
        let iv = if r == 0 {
            String::new()
        } else {
            format!(
                ", \"intervention\": {{\"type\": \"augment\", \"patterns\": [\"p{}\", \"p{}\"]}}",
                r % PATTERNS,
                (r * 5) % PATTERNS
            )
        };
        let _ = writeln!(out, "{{\"round\": \"R{r}\", \"runDic\": {}, \"hypothesis\": \"H{r}\", \"verdict\": \"v\"{iv}}}", 1000 + r);
    }
    out
}

fn timeline(rng: &mut Rng, day: u64) -> String {
    let mut out = String::new();
    let mut t = day * 86_400;
    let ts = |t: u64| {
        let (d, s) = (t / 86_400, t % 86_400);
        format!(
            "2026-{:02}-{:02}T{:02}:{:02}:{:02}Z",
            1 + (d / 28) % 12,
            1 + d % 28,
            s / 3600,
            (s / 60) % 60,
            s % 60
        )
    };
    let _ = writeln!(out, "{{\"action\": \"init\", \"mode\": \"new_op\", \"ts\": \"{}\"}}", ts(t));
    for stage in 1..=4u64 {
        loop {
            t += 30;
            let _ = writeln!(
                out,
                "{{\"action\": \"start\", \"stage\": {stage}, \"ts\": \"{}\"}}",
                ts(t)
            );
            let d = 600 + rng.next() % 3000;
            t += d;
            if rng.chance(25) {
                let v = ["precision", "runtime", "no_improvement"][(rng.next() % 3) as usize];
                let _ = writeln!(out, "{{\"action\": \"fail\", \"stage\": {stage}, \"duration_s\": {d}.0, \"verdict\": \"{v}\", \"ts\": \"{}\"}}", ts(t));
            } else {
                let _ = writeln!(out, "{{\"action\": \"complete\", \"stage\": {stage}, \"duration_s\": {d}.0, \"verdict\": \"pass\", \"ts\": \"{}\"}}", ts(t));
                break;
            }
        }
    }
    out
}

fn time<T>(label: &str, f: impl FnOnce() -> T) -> (T, Duration) {
    let start = Instant::now();
    let out = f();
    let took = start.elapsed();
    println!("{label:<34} {:>9.1} ms", took.as_secs_f64() * 1000.0);
    (out, took)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let reg_text = registry(&mut rng);
    let log_text = iteration_log();
    println!(
        "generated {CASES} cases × {ROUNDS} rounds ({:.1} MB of JSONL)",
        reg_text.len() as f64 / 1e6
    );
    let ((cases, d1), _) = time("parse_error_registry", || parse_error_registry(&reg_text, "reg"));
    let (rounds, d2) = parse_iteration_log(&log_text, "log");
    assert!(
        d1.is_empty() && d2.is_empty(),
        "{:?}",
        d1.iter().chain(&d2).take(3).collect::<Vec<_>>()
    );
    let mut worst = Duration::ZERO;
    let mut track = |d: Duration| worst = worst.max(d);
    let (t, d) = time("transitions (all 19 pairs)", || transitions(&cases, &rounds, None, None));
    track(d);
    println!("  R0->R1 {:?}", t?.first().map(|t| (t.persistent, t.new_fail, t.new_fix)));
    let (r, d) = time("recurrence", || recurrence(&cases));
    track(d);
    println!("  {r:?}");
    let (f, d) = time("recurrence_after_fix", || recurrence_after_fix(&cases, &rounds));
    track(d);
    println!("  {f:?}");
    let (inj, d) =
        time("recurrence_after_injection", || recurrence_after_injection(&cases, &rounds));
    track(d);
    println!(
        "  {} patterns, first {:?}",
        inj.len(),
        inj.first().map(|i| (&i.pattern, i.cases, i.recurred))
    );
    let links: Vec<EntryLink> = (0..PATTERNS)
        .map(|p| EntryLink {
            entry_id: format!("E{p}"),
            class: ErrorClass::Pattern(format!("p{p}")),
        })
        .collect();
    let points: BTreeMap<String, InjectionPoint> = (0..PATTERNS)
        .map(|p| (format!("E{p}"), InjectionPoint::Round(format!("R{}", 1 + p))))
        .collect();
    let (rows, d) = time("recurrence_after_entries (12)", || {
        recurrence_after_entries(&links, &points, &cases, &rounds, &[])
    });
    track(d);
    println!("  {} rows", rows?.len());
    let (_, d) = time("round_breakdown", || round_breakdown(&cases, &rounds));
    track(d);
    let (svg, d) = time("recurrence_svg", || recurrence_svg(&cases, &rounds));
    track(d);
    let out = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("pics");
    std::fs::create_dir_all(&out)?;
    std::fs::write(out.join("recurrence-100k.svg"), svg?)?;

    let texts: Vec<String> = (0..TASKS).map(|i| timeline(&mut rng, i as u64 % 300)).collect();
    let ((tasks, _), _) = time("parse 10k timelines", || {
        let mut diags = 0;
        let tasks: Vec<_> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let id = format!("task-{i}");
                let (ev, d) = parse_timeline(t, "p", &id);
                diags += d.len();
                (id, ev)
            })
            .collect();
        (tasks, diags)
    });
    let (_, d) = time("timeline_summary × 10k", || {
        tasks.iter().map(|(_, e)| timeline_summary(e, "p").events_total).sum::<u64>()
    });
    track(d);
    let (m, d) = time("metrics (10k tasks)", || metrics(&tasks));
    track(d);
    println!("  first_pass {:?}, modes {}", m.first_pass_rate.rate, m.recurrence.failure_modes);
    println!("slowest figure: {:.1} ms", worst.as_secs_f64() * 1000.0);
    Ok(())
}
