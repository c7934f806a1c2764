//! Agent-sized and terminal-friendly output (issue 11): `query`/`search` windows
//! (`--limit`, `--offset`, `--count`), compact JSON in pipes and `--pretty`, shell completions,
//! and colour in `render --check` diffs only where it belongs.

use std::path::Path;
use std::process::Output;

use crate::support::*;

fn ok(dir: &Path, args: &[&str]) -> Output {
    let out = evokb(dir, args);
    assert!(out.status.success(), "evokb {args:?}: {}", stderr(&out));
    out
}

fn imported() -> tempfile::TempDir {
    let dir = sample();
    ok(dir.path(), &["init"]);
    ok(dir.path(), &["import"]);
    dir
}

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

#[test]
fn query_pages_count_and_says_how_many_of_how_many() {
    let dir = imported();
    let d = dir.path();
    let all = json(&ok(d, &["query", "--family", "attention", "--json"]));
    let all = all.as_array().expect("array").clone();
    assert!(all.len() > 4, "the sample has attention entries");
    let page = json(&ok(
        d,
        &["query", "--family", "attention", "--json", "--limit", "2", "--offset", "1"],
    ));
    assert_eq!(page.as_array().expect("array"), &all[1..3]);
    let past = json(&ok(d, &["query", "--family", "attention", "--json", "--offset", "100000"]));
    assert_eq!(past, serde_json::json!([]));

    let count = stdout(&ok(d, &["query", "--family", "attention", "--count"]));
    assert_eq!(count, format!("{}\n", all.len()));

    let text = stdout(&ok(d, &["query", "--family", "attention", "--limit", "3"]));
    assert_eq!(text.lines().count(), 4, "{text}");
    assert_eq!(text.lines().last(), Some(format!("3 of {} entries", all.len()).as_str()));

    let bad = evokb(d, &["query", "--count", "--limit", "3"]);
    assert_eq!(bad.status.code(), Some(2), "--count takes no window");
    let zero = evokb(d, &["query", "--limit", "0"]);
    assert_eq!(zero.status.code(), Some(2));
    assert!(stderr(&zero).contains("out of range"), "{}", stderr(&zero));
}

#[test]
fn search_offset_skips_ranks_and_only_the_page_counts_as_a_hit() {
    let dir = imported();
    let d = dir.path();
    let full = json(&ok(d, &["search", "attention", "块宽", "--top", "6", "--json"]));
    let page =
        json(&ok(d, &["search", "attention", "块宽", "--limit", "2", "--offset", "3", "--json"]));
    assert_eq!(
        page["results"].as_array().expect("results"),
        &full["results"].as_array().expect("results")[3..5]
    );
    assert_eq!(page["offset"], 3);
    assert!(full.get("offset").is_none(), "the documented shape is unchanged without --offset");
    let log =
        std::fs::read_to_string(d.join(".agents/evolution/kb_search_log.jsonl")).expect("log");
    let last: serde_json::Value =
        serde_json::from_str(log.lines().last().expect("line")).expect("json");
    let ids: Vec<&serde_json::Value> =
        page["results"].as_array().expect("r").iter().map(|r| &r["id"]).collect();
    assert_eq!(last["returned"].as_array().expect("returned").iter().collect::<Vec<_>>(), ids);

    let text = stdout(&ok(d, &["search", "attention", "块宽", "--top", "1", "--offset", "3"]));
    assert!(text.contains("\n[4] "), "ranks count from the offset: {text}");
    let far = evokb(d, &["search", "attention", "--top", "10", "--offset", "995"]);
    assert_eq!(far.status.code(), Some(2));
    assert!(stderr(&far).contains("past result 1000"), "{}", stderr(&far));
}

#[test]
fn search_says_how_many_of_how_many_matched() {
    let dir = imported();
    let d = dir.path();
    let all = json(&ok(d, &["search", "attention", "--top", "1000", "--json"]));
    let ids: Vec<&str> = all["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| r["id"].as_str().expect("id"))
        .collect();
    assert!(ids.len() > 10, "the sample has many attention records");
    assert_eq!(all["total"].as_u64(), Some(ids.len() as u64), "every match was returned");

    let page = json(&ok(d, &["search", "attention", "--top", "3", "--offset", "2", "--json"]));
    assert_eq!(page["results"].as_array().map(Vec::len), Some(3));
    assert_eq!(page["total"], all["total"], "the total does not depend on the page");
    let text = stdout(&ok(d, &["search", "attention", "--top", "3"]));
    assert_eq!(text.lines().last(), Some(format!("3 of {} entries", ids.len()).as_str()));

    // Facets and id prefixes narrow what is counted, as they narrow what is ranked.
    let prefixed = ids.iter().filter(|id| id.starts_with("PL-1")).count();
    assert!(prefixed > 1 && prefixed < ids.len());
    let narrow =
        json(&ok(d, &["search", "attention", "--id-prefix", "PL-1", "--top", "1", "--json"]));
    assert_eq!(narrow["total"].as_u64(), Some(prefixed as u64), "{narrow}");
    assert!(narrow["results"][0]["id"].as_str().is_some_and(|id| id.starts_with("PL-1")));

    let past = stdout(&ok(d, &["search", "attention", "--top", "5", "--offset", "995"]));
    assert_eq!(past.lines().last(), Some(format!("0 of {} entries", ids.len()).as_str()));
    let none = stdout(&ok(d, &["search", "zzqqxx"]));
    assert_eq!(none.lines().last(), Some("0 of 0 entries"), "{none}");
}

#[test]
fn json_is_compact_in_a_pipe_and_pretty_on_request_for_every_json_command() {
    let dir = imported();
    let d = dir.path();
    for args in [
        &["query", "--json"][..],
        &["list", "--json"],
        &["get", "PL-1.6-copy-floor", "--json"],
        &["verify", "--json"],
        &["stats", "hits", "--json"],
        &["lint", "--json"],
        &["budget", "--json"],
        &["queue", "show", "VP-2026-0003", "--json"],
    ] {
        // `lint` exits 1 when it finds errors; its JSON is printed either way.
        let compact = evokb(d, args);
        assert!(matches!(compact.status.code(), Some(0 | 1)), "{args:?}: {}", stderr(&compact));
        let text = stdout(&compact);
        assert_eq!(text.lines().count(), 1, "{args:?} prints one line in a pipe");
        let mut pretty_args = args.to_vec();
        pretty_args.push("--pretty");
        let pretty = evokb(d, &pretty_args);
        assert_eq!(pretty.status.code(), compact.status.code(), "{args:?} --pretty");
        assert!(stdout(&pretty).lines().count() > 1, "{args:?} --pretty");
        assert_eq!(json(&compact), json(&pretty), "{args:?}: the same document either way");
    }
}

#[test]
fn completions_name_every_subcommand_for_each_shell() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (shell, marker) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef evokb"),
        ("fish", "complete -c evokb"),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let out = ok(dir.path(), &["completions", shell]);
        let script = stdout(&out);
        assert!(script.contains(marker), "{shell}: {marker}");
        for sub in ["import", "render", "query", "search", "completions", "merge-driver"] {
            assert!(script.contains(sub), "{shell} completes '{sub}'");
        }
    }
    let out = ok(dir.path(), &["completions", "bash"]);
    let path = dir.path().join("evokb.bash");
    std::fs::write(&path, &out.stdout).expect("write");
    // bash itself parses the script.
    let status = std::process::Command::new("bash").arg("-n").arg(&path).status().expect("bash");
    assert!(status.success(), "bash -n accepts the script");
    let bad = evokb(dir.path(), &["completions", "tcsh"]);
    assert_eq!(bad.status.code(), Some(2));
}

fn render_check(dir: &Path, extra: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_evokb"));
    cmd.args(extra).args(["render", "--check"]).current_dir(dir).env_remove("CLICOLOR_FORCE");
    cmd.env_remove("NO_COLOR");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("run evokb")
}

#[test]
fn render_check_diffs_are_coloured_only_when_asked_or_on_a_terminal() {
    let dir = imported();
    let d = dir.path();
    ok(d, &["set", "PL-1.6-copy-floor", "status", "stale"]);
    let piped = render_check(d, &[], &[]);
    assert_eq!(piped.status.code(), Some(1));
    assert!(stdout(&piped).contains("+status: stale"), "{}", stdout(&piped));
    assert!(!piped.stdout.contains(&0x1b), "no escape codes in a pipe");
    let no_color = render_check(d, &["--color", "always"], &[("NO_COLOR", "1")]);
    let forced = render_check(d, &["--color", "always"], &[]);
    assert!(forced.stdout.contains(&0x1b), "--color always colours: {}", stdout(&forced));
    assert!(stdout(&forced).contains("\u{1b}[32m+status: stale"), "{}", stdout(&forced));
    let never = render_check(d, &["--color", "never"], &[("CLICOLOR_FORCE", "1")]);
    assert!(!never.stdout.contains(&0x1b), "--color never wins over CLICOLOR_FORCE");
    // An explicit --color always beats NO_COLOR; auto honours it.
    assert!(no_color.stdout.contains(&0x1b));
    let auto_no_color = render_check(d, &[], &[("NO_COLOR", "1"), ("CLICOLOR_FORCE", "1")]);
    assert!(!auto_no_color.stdout.contains(&0x1b), "NO_COLOR is respected");
    // Stripped output is the same text.
    let strip = String::from_utf8(forced.stdout.clone()).expect("utf-8");
    let plain: String = strip
        .split('\u{1b}')
        .enumerate()
        .map(
            |(i, part)| {
                if i == 0 {
                    part
                } else {
                    part.split_once('m').map_or(part, |(_, rest)| rest)
                }
            },
        )
        .collect();
    assert_eq!(plain, stdout(&piped));
}
