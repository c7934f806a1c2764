//! Progress bars (issue 11): drawn on stderr only on a terminal, never in a pipe, with
//! `--json`, under `CI` or with `--quiet`. `EVOKB_PROGRESS_AFTER_MS=0` shows a bar from the
//! first moment, so these short commands would draw one if they were allowed to.

use std::path::Path;
use std::process::{Command, Output};

use crate::support::*;

/// `evokb ARGS` in `dir` with the bar shown at once and `CI` unset, stderr a pipe.
fn piped(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_evokb"))
        .args(args)
        .current_dir(dir)
        .env("EVOKB_PROGRESS_AFTER_MS", "0")
        .env("EVOKB_NOW", "1795910400")
        .env_remove("CI")
        .output()
        .expect("run evokb")
}

/// Runs `evokb ARGS` in `dir` under a pseudo-terminal (util-linux `script`), bar shown at once,
/// with `env` added; returns what the terminal received (stdout and stderr together).
fn on_terminal(dir: &Path, args: &str, env: &[(&str, &str)]) -> String {
    let bin = env!("CARGO_BIN_EXE_evokb");
    let mut cmd = Command::new("script");
    cmd.args(["-qec", &format!("{bin} {args}"), "/dev/null"])
        .current_dir(dir)
        .env("EVOKB_PROGRESS_AFTER_MS", "0")
        .env("EVOKB_NOW", "1795910400")
        .env_remove("CI");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run util-linux 'script' (the test needs a pseudo-terminal)");
    assert!(out.status.success(), "evokb {args} on a terminal: {}", stdout(&out));
    stdout(&out)
}

/// Whether the terminal text holds a bar: indicatif erases and redraws its line with `ESC [2K`.
fn has_bar(text: &str) -> bool {
    text.contains("\x1b[2K")
}

#[test]
fn in_a_pipe_no_progress_byte_reaches_stderr() {
    let dir = sample();
    let d = dir.path();
    let registry = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/model-iteration/results/error_registry.jsonl");
    let registry = registry.to_str().expect("utf-8 path");
    for args in [
        &["init"][..],
        &["import"],
        &["import", "--check"],
        &["render", "--check"],
        &["render"],
        &["verify"],
        &["errors", "import", registry],
    ] {
        let out = piped(d, args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        assert!(out.stderr.is_empty(), "{args:?} wrote to stderr: {:?}", stderr(&out));
        assert!(!has_bar(&stdout(&out)), "{args:?}: no bar on stdout either");
    }
}

#[test]
fn on_a_terminal_the_bar_counts_files_unless_json_ci_or_quiet() {
    let dir = sample();
    let d = dir.path();
    ok_on(d, &["init"]);
    let text = on_terminal(d, "import", &[]);
    assert!(has_bar(&text), "import draws a bar on a terminal: {text:?}");
    assert!(text.contains("reading files"), "{text:?}");
    // The sample's 13 managed files, counted as they are read.
    assert!(text.contains("/13"), "the bar counts the managed files: {text:?}");
    assert!(text.contains("imported 13 files"), "and the output follows: {text:?}");

    let text = on_terminal(d, "verify", &[]);
    assert!(has_bar(&text) && text.contains("verifying files"), "{text:?}");

    for (args, env) in [
        ("verify --json", &[][..]),
        ("verify", &[("CI", "true")][..]),
        ("verify --quiet", &[][..]),
        ("-q import", &[][..]),
    ] {
        let text = on_terminal(d, args, env);
        assert!(!has_bar(&text), "{args} {env:?} draws no bar: {text:?}");
        for label in ["opening the store", "reading files", "verifying files"] {
            assert!(!text.contains(label), "{args} {env:?}: {text:?}");
        }
    }
}

fn ok_on(dir: &Path, args: &[&str]) {
    let out = evokb(dir, args);
    assert!(out.status.success(), "evokb {args:?}: {}", stderr(&out));
}
