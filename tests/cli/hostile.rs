//! Hostile input: things at managed paths that are not regular files inside the root, numeric
//! and date flags out of range, and edits whose structure silently turns records into prose.
//! Every case checks the exit code, the message and that a refused command wrote nothing. Runs
//! that could hang if the code regressed (FIFOs) are killed after a timeout and fail.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use evokb_export::layout::defaults::{PL_DIR, QUEUE, REPRO_DIR};

use crate::support::*;

/// An imported copy of the sample and its digest.
fn ready() -> (tempfile::TempDir, String) {
    let kb = sample();
    assert!(evokb(kb.path(), &["init"]).status.success());
    let out = evokb(kb.path(), &["import"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let d = cli_digest(kb.path());
    (kb, d)
}

fn cli_digest(kb: &Path) -> String {
    let out = evokb(kb, &["verify", "--json"]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("verify json");
    json["digest"].as_str().expect("digest").to_string()
}

/// Runs `evokb` like [`evokb`], but kills it and fails the test if it runs longer than 20 s.
fn evokb_timeout(cwd: &Path, args: &[&str]) -> Output {
    let out_dir = tempfile::tempdir().expect("tempdir");
    let out_path = out_dir.path().join("stdout");
    let err_path = out_dir.path().join("stderr");
    let mut child = Command::new(env!("CARGO_BIN_EXE_evokb"))
        .args(args)
        .current_dir(cwd)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("EVOKB_NOW", "1795910400")
        .env_remove("EVOKB_LOCK_TIMEOUT_MS")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).expect("stdout file"))
        .stderr(std::fs::File::create(&err_path).expect("stderr file"))
        .spawn()
        .expect("spawn evokb");
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            break status;
        }
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("evokb {args:?} still running after 20 s: it blocked");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    Output {
        status,
        stdout: std::fs::read(&out_path).expect("stdout"),
        stderr: std::fs::read(&err_path).expect("stderr"),
    }
}

/// Runs `import` (with a timeout) and checks exit 3, the expected messages, and that the store
/// is unchanged.
fn refused(kb: &Path, before: &str, expect: &[&str]) {
    let out = evokb_timeout(kb, &["import"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    for e in expect {
        assert!(err.contains(e), "expected {e:?} in:\n{err}");
    }
    assert_eq!(before, cli_digest(kb), "a refused import writes nothing");
}

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().expect("run mkfifo");
    assert!(status.success(), "mkfifo failed");
}

#[test]
fn a_fifo_at_a_managed_path_is_refused_without_blocking() {
    let (kb, before) = ready();
    let queue = kb.path().join(QUEUE);
    std::fs::remove_file(&queue).expect("rm");
    mkfifo(&queue);
    refused(
        kb.path(),
        &before,
        &["queue.md: error: the path is a FIFO", "expected a regular file"],
    );
}

#[test]
fn render_and_render_check_refuse_a_fifo_at_a_managed_path_without_blocking() {
    let (kb, before) = ready();
    let queue = kb.path().join(QUEUE);
    std::fs::remove_file(&queue).expect("rm");
    mkfifo(&queue);
    for args in [&["render"][..], &["render", "--check"][..], &["render", "--force"][..]] {
        let out = evokb_timeout(kb.path(), args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(5), "{args:?}: {err}");
        assert!(err.contains("queue.md: the path is a FIFO"), "{args:?}: {err}");
    }
    let ft = std::fs::symlink_metadata(&queue).expect("still there").file_type();
    assert!(std::os::unix::fs::FileTypeExt::is_fifo(&ft), "render did not replace the FIFO");
    assert_eq!(before, cli_digest(kb.path()));
}

#[test]
fn a_fifo_in_repro_is_refused_without_blocking() {
    let (kb, before) = ready();
    mkfifo(&kb.path().join(REPRO_DIR).join("pipe.py"));
    refused(
        kb.path(),
        &before,
        &["repro/pipe.py: error: repro script: the path is a FIFO", "expected a regular file"],
    );
}

#[test]
fn a_socket_in_repro_is_refused() {
    let (kb, before) = ready();
    let _listener = std::os::unix::net::UnixListener::bind(kb.path().join(REPRO_DIR).join("s.py"))
        .expect("bind a unix socket");
    refused(
        kb.path(),
        &before,
        &["repro/s.py: error: repro script: the path is a socket", "expected a regular file"],
    );
}

#[test]
fn a_repro_symlink_out_of_the_root_is_refused() {
    let (kb, before) = ready();
    let outside = tempfile::tempdir().expect("tempdir");
    let secret = outside.path().join("passwd");
    std::fs::write(&secret, "root:x:0:0\n").expect("write");
    std::os::unix::fs::symlink(&secret, kb.path().join(REPRO_DIR).join("leak.py"))
        .expect("symlink");
    let target = secret.display().to_string();
    refused(
        kb.path(),
        &before,
        &[
            "repro/leak.py: error: repro script: the path is a symlink to",
            &target,
            "outside the knowledge-base root",
        ],
    );
}

#[test]
fn a_managed_file_symlinked_out_of_the_root_is_refused() {
    let (kb, before) = ready();
    let outside = tempfile::tempdir().expect("tempdir");
    let elsewhere = outside.path().join("attention.md");
    let path = kb.path().join(PL_DIR).join("attention.md");
    std::fs::copy(&path, &elsewhere).expect("copy");
    std::fs::remove_file(&path).expect("rm");
    std::os::unix::fs::symlink(&elsewhere, &path).expect("symlink");
    refused(
        kb.path(),
        &before,
        &[
            "attention.md: error: the path is a symlink to",
            &elsewhere.display().to_string(),
            "outside the knowledge-base root",
        ],
    );
}

#[test]
fn a_managed_file_symlinked_inside_the_root_is_read() {
    let (kb, before) = ready();
    let path = kb.path().join(PL_DIR).join("attention.md");
    let moved = kb.path().join("attention-real.md");
    std::fs::rename(&path, &moved).expect("move");
    std::os::unix::fs::symlink(&moved, &path).expect("symlink");
    let out = evokb_timeout(kb.path(), &["import"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(before, cli_digest(kb.path()), "the same bytes through a symlink");
}

#[test]
fn a_directory_named_like_a_topic_file_is_an_error() {
    let (kb, before) = ready();
    let path = kb.path().join(PL_DIR).join("cases.md");
    std::fs::remove_file(&path).expect("rm");
    std::fs::create_dir(&path).expect("mkdir");
    refused(
        kb.path(),
        &before,
        &["cases.md: error: the path is a directory; expected a regular file"],
    );
}

/// Runs `args`, expecting a usage error (exit 2) whose message names `flag` and `expected`.
fn usage_error(kb: &Path, args: &[&str], flag: &str, expected: &str) {
    let out = evokb_timeout(kb, args);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(&format!("for '{flag}")), "{args:?} must name {flag}:\n{err}");
    assert!(err.contains(expected), "{args:?} must say {expected:?}:\n{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn search_top_is_capped() {
    let (kb, before) = ready();
    for bad in ["4294967295", "18446744073709551616", "0", "-1", "1001", "many"] {
        usage_error(
            kb.path(),
            &["search", "attention", &format!("--top={bad}")],
            "--top",
            "expected a whole number from 1 to 1000",
        );
    }
    assert_eq!(before, cli_digest(kb.path()), "a refused search records no hit");
    let out = evokb_timeout(kb.path(), &["search", "attention", "--top", "1000", "--json"]);
    assert!(out.status.success(), "the cap itself is accepted: {}", stderr(&out));
}

#[test]
fn stats_hits_since_is_a_strict_date() {
    let (kb, _) = ready();
    for bad in ["2026-13-45", "2026-02-31", "9000000000000000000-01-01", "2026-9-10", "yesterday"] {
        usage_error(
            kb.path(),
            &["stats", "hits", "--since", bad],
            "--since",
            "expected YYYY-MM-DD (e.g. 2026-09-10) or YYYY-MM-DDTHH:MM:SSZ",
        );
    }
    for good in ["2026-09-10", "2026-09-10T09:04:18Z"] {
        let out = evokb_timeout(kb.path(), &["stats", "hits", "--since", good, "--json"]);
        assert!(out.status.success(), "{good}: {}", stderr(&out));
    }
}

#[test]
fn queue_today_is_a_strict_date() {
    let (kb, before) = ready();
    for sub in ["due", "expire"] {
        for bad in ["2026-13-45", "2026-02-31", "9000000000000000000-01-01", "2026-12-01T00:00:00Z"]
        {
            usage_error(
                kb.path(),
                &["queue", sub, "--today", bad],
                "--today",
                "expected YYYY-MM-DD",
            );
        }
    }
    assert_eq!(before, cli_digest(kb.path()), "a refused expire changes nothing");
    let out = evokb_timeout(kb.path(), &["queue", "due", "--today", "2026-12-01", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn evokb_now_out_of_range_is_ignored_not_overflowed() {
    let (kb, _) = ready();
    for now in ["9223372036854775807", "-9223372036854775808", "soon"] {
        let out = Command::new(env!("CARGO_BIN_EXE_evokb"))
            .args(["search", "attention", "--top", "1", "--json"])
            .current_dir(kb.path())
            .env("EVOKB_NOW", now)
            .output()
            .expect("run evokb");
        let err = stderr(&out);
        assert!(out.status.success(), "EVOKB_NOW={now}: {err}");
        assert!(err.contains(&format!("ignoring EVOKB_NOW='{now}'")), "{err}");
        assert!(err.contains("expected unix seconds between"), "{err}");
    }
}

/// Rewrites one file of the knowledge base.
fn rewrite(kb: &Path, path: &str, f: impl FnOnce(String) -> String) {
    let full = kb.join(path);
    let text = std::fs::read_to_string(&full).expect("read");
    let new = f(text.clone());
    assert_ne!(text, new, "the corruption must change {path}");
    std::fs::write(&full, new).expect("write");
}

/// Applies `corrupt` to an imported sample and checks the three ways of meeting it:
/// `import --strict` and `import --check --strict` exit 3 and write nothing, `import --check`
/// warns and writes nothing, and a plain `import` warns with the same text and goes ahead.
/// `expect` must appear in every message (the `file:line` and the lost-record count).
fn record_loss(corrupt: impl FnOnce(&Path), expect: &[&str]) {
    let (kb, before) = ready();
    corrupt(kb.path());
    for args in [&["import", "--strict"][..], &["import", "--check", "--strict"]] {
        let out = evokb_timeout(kb.path(), args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(3), "{args:?}: {err}");
        for e in expect {
            assert!(err.contains(&e.replace("warning:", "error:")), "{args:?}: {e:?} in:\n{err}");
        }
        assert!(err.contains("nothing was imported"), "{err}");
        assert_eq!(before, cli_digest(kb.path()), "{args:?} writes nothing");
    }
    let out = evokb_timeout(kb.path(), &["import", "--check"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    for e in expect {
        assert!(text.contains(e), "import --check: {e:?} in:\n{text}");
    }
    assert_eq!(before, cli_digest(kb.path()), "import --check writes nothing");
    let out = evokb_timeout(kb.path(), &["import", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("import json");
    let warnings: Vec<String> = json["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .map(|w| {
            format!(
                "{}:{}: warning: {}",
                w["file"].as_str().unwrap_or(""),
                w["line"],
                w["message"].as_str().unwrap_or("")
            )
        })
        .collect();
    for e in expect {
        assert!(warnings.iter().any(|w| w.contains(e)), "import: {e:?} in {warnings:#?}");
    }
}

const BOTTLENECKS: &str = evokb_export::layout::defaults::BOTTLENECKS;
const STATS: &str = evokb_export::layout::defaults::STATS;

#[test]
fn an_unclosed_fence_in_bottleneck_patterns_is_reported_with_the_lost_count() {
    // The template's fence opens at line 27 and closes at line 45; without the close, every
    // `## BP_` heading after it is code.
    record_loss(
        |kb| {
            rewrite(kb, BOTTLENECKS, |t| {
                let mut ls: Vec<&str> = t.split_inclusive('\n').collect();
                assert_eq!(ls[44], "```\n");
                ls.remove(44);
                ls.concat()
            })
        },
        &[
            "bottleneck-patterns.md:27: warning: this code fence (```) is never closed",
            "13 record(s) of this file held by the store at the last import are no longer records ('BP_launch_overhead'",
            "and 8 more)",
        ],
    );
}

#[test]
fn an_unterminated_queue_block_is_reported_with_the_lost_count() {
    // VP-2026-0003's delta becomes its last field: it then runs over the `---` rule that ends
    // the Tier 1 section's first item onwards. The items themselves survive (each VP heading
    // starts a new one), which the count says.
    record_loss(
        |kb| {
            rewrite(kb, QUEUE, |t| {
                let start = t.find("## VP-2026-0003").expect("item");
                let end = start + t[start..].find("## VP-2026-0004").expect("next item");
                let item = &t[start..end];
                let delta = item.find("- delta: |").expect("delta");
                let after = delta + item[delta..].find("\n- ").expect("field after the delta");
                let fields = &item[after + 1..];
                let fields_end = fields.rfind("\n- ").map_or(0, |i| {
                    i + 1 + fields[i + 1..].find('\n').map_or(fields.len() - i - 1, |j| j + 1)
                });
                let new_item = format!(
                    "{}{}{}\n---\n\n",
                    &item[..delta],
                    &fields[..fields_end],
                    &item[delta..after + 1]
                );
                format!("{}{new_item}{}", &t[..start], &t[end..])
            })
        },
        &[
            "queue.md:",
            "warning: the block 'delta' that starts here never ends",
            "0 record(s) of this file held by the store at the last import are no longer records",
        ],
    );
}

#[test]
fn a_hit_table_without_its_delimiter_row_is_reported_with_the_lost_count() {
    record_loss(
        |kb| {
            rewrite(kb, STATS, |t| {
                t.replacen(
                    "| entry | hits | last_hit_task | note |\n|-------|------|---------------|------|\n",
                    "| entry | hits | last_hit_task | note |\n",
                    1,
                )
            })
        },
        &[
            "stats.md:37: warning: this row is the header of a hit_row table but no delimiter row",
            "72 record(s) of this file held by the store at the last import are no longer records",
            "and 67 more)",
        ],
    );
}

#[test]
fn a_stray_bom_before_a_heading_is_reported_with_the_lost_count() {
    record_loss(
        |kb| {
            rewrite(kb, BOTTLENECKS, |t| {
                t.replacen("\n## BP_launch_overhead", "\n\u{feff}## BP_launch_overhead", 1)
            })
        },
        &[
            "bottleneck-patterns.md:58: warning: a byte-order mark (U+FEFF) starts this line",
            "1 record(s) of this file held by the store at the last import are no longer records ('BP_launch_overhead')",
        ],
    );
}

#[test]
fn the_pre_commit_hook_runs_the_strict_import_check() {
    let kb = sample();
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_evokb")).parent().expect("bin dir").to_path_buf();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    let git =
        |args: &[&str]| git_command(kb.path(), args).env("PATH", &path).output().expect("run git");
    assert!(git(&["init", "-q", "-b", "main"]).status.success());
    assert!(evokb(kb.path(), &["init"]).status.success());
    assert!(evokb(kb.path(), &["import"]).status.success());
    assert!(git(&["add", "-A"]).status.success());
    // The sample has lint findings of its own, which the hook's lint step would refuse.
    assert!(git(&["commit", "-q", "--no-verify", "-m", "sample"]).status.success());
    assert!(evokb(kb.path(), &["hooks", "install"]).status.success());
    let hook = std::fs::read_to_string(kb.path().join(".git/hooks/pre-commit")).expect("hook");
    assert!(hook.contains("import --check --strict"), "{hook}");
    let before = cli_digest(kb.path());
    rewrite(kb.path(), BOTTLENECKS, |t| {
        t.replacen("\n## BP_launch_overhead", "\n\u{feff}## BP_launch_overhead", 1)
    });
    assert!(git(&["add", "-A"]).status.success());
    let out = git(&["commit", "-qm", "a stray BOM"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "the hook refuses the commit");
    assert!(err.contains("bottleneck-patterns.md:58: error: a byte-order mark"), "{err}");
    assert!(err.contains("the strict import check failed"), "{err}");
    assert_eq!(before, cli_digest(kb.path()), "the hook writes nothing");
}
