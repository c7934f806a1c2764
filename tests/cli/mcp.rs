//! `evokb mcp` end to end: the server is spawned on a copy of the sample and driven over stdio
//! with raw JSON-RPC, the way an agent's MCP client drives it. Every tool is listed with its
//! schema and called with an effect checked in the store or the files; bad calls come back as
//! tool errors and the server answers afterwards.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use serde_json::{json, Value};

use crate::support::*;

/// A running `evokb mcp` and the lines it writes.
struct Server {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    next_id: u64,
}

impl Server {
    fn start(root: &Path) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_evokb"))
            .args(["--root", root.to_str().expect("utf-8"), "mcp"])
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("EVOKB_NOW", "1795910400")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn evokb mcp");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Server { child, stdin, lines, next_id: 1 }
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").expect("write to the server");
        self.stdin.flush().expect("flush");
    }

    /// Sends a request and waits for the response with its id (every line must be JSON-RPC).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(60))
                .unwrap_or_else(|_| panic!("no answer to {method} within 60 s"));
            let message: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("the server wrote a non-JSON line ({e}): {line}"));
            assert_eq!(message["jsonrpc"], "2.0", "{message}");
            if message["id"] == json!(id) {
                return message;
            }
        }
    }

    /// Calls a tool; returns its result (`isError` false) or panics with the error text.
    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let res = self.call_raw(tool, arguments);
        assert_eq!(res["isError"], json!(false), "{tool} failed: {res}");
        let text = res["content"][0]["text"].as_str().expect("text content");
        let parsed: Value = serde_json::from_str(text).expect("the text is the JSON");
        assert_eq!(parsed, res["structuredContent"], "text and structured content agree");
        parsed
    }

    /// Calls a tool and returns the raw `result` object.
    fn call_raw(&mut self, tool: &str, arguments: Value) -> Value {
        let res = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        assert!(res.get("error").is_none(), "a protocol error instead of a tool result: {res}");
        res["result"].clone()
    }

    /// Calls a tool that must fail; returns its error text.
    fn call_err(&mut self, tool: &str, arguments: Value) -> String {
        let res = self.call_raw(tool, arguments);
        assert_eq!(res["isError"], json!(true), "{tool} should fail: {res}");
        res["content"][0]["text"].as_str().expect("error text").to_string()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn run_ok(dir: &Path, args: &[&str]) -> std::process::Output {
    let out = evokb(dir, args);
    assert!(out.status.success(), "evokb {args:?}: {}", stderr(&out));
    out
}

/// A copy of the sample with a store, as `evokb init` and `evokb import` leave it.
fn kb() -> tempfile::TempDir {
    let dir = sample();
    run_ok(dir.path(), &["init"]);
    run_ok(dir.path(), &["import"]);
    dir
}

fn handshake(server: &mut Server) -> Value {
    let init = server.request(
        "initialize",
        json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "evokb-test", "version": "0"}
        }),
    );
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    init["result"].clone()
}

const TOOLS: [(&str, &[&str]); 10] = [
    ("search", &["query"]),
    ("query", &[]),
    ("get", &["id"]),
    ("add", &["file", "text", "task"]),
    ("similar", &["text"]),
    ("queue_add", &["type", "title", "target_doc", "delta", "task"]),
    ("queue_confirm", &["id", "task"]),
    ("lint", &[]),
    ("render_check", &[]),
    ("stats_hits", &[]),
];

#[test]
fn every_tool_works_over_stdio_and_bad_calls_are_tool_errors() {
    let dir = kb();
    let root = dir.path();
    let mut server = Server::start(root);
    let init = handshake(&mut server);
    assert_eq!(init["serverInfo"]["name"], "evokb");
    assert!(init["capabilities"]["tools"].is_object(), "{init}");

    // tools/list: every tool, an object schema whose required arguments are the expected ones,
    // and a description.
    let list = server.request("tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().expect("tools");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, TOOLS.map(|(n, _)| n));
    for (name, required) in TOOLS {
        let tool = tools.iter().find(|t| t["name"] == name).expect("listed");
        let schema = &tool["inputSchema"];
        assert_eq!(schema["type"], "object", "{name}: {schema}");
        let mut got: Vec<&str> = schema["required"]
            .as_array()
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        got.sort_unstable();
        let mut want = required.to_vec();
        want.sort_unstable();
        assert_eq!(got, want, "{name}: {schema}");
        for arg in required {
            assert!(schema["properties"][arg]["description"].is_string(), "{name}.{arg}");
        }
        assert!(tool["description"].as_str().is_some_and(|d| d.len() > 80), "{name}");
    }
    assert_eq!(tools[0]["inputSchema"]["properties"]["family"]["type"], "array");

    // search: results, and the hit recorded with the task in the store and the log file.
    let found =
        server.call("search", json!({"query": "attention", "task": "task-mcp-1", "top": 3}));
    let results = found["results"].as_array().expect("results");
    assert_eq!(results.len(), 3, "{found}");
    let first = results[0]["id"].as_str().expect("id").to_string();
    let log =
        std::fs::read_to_string(root.join(".agents/evolution/kb_search_log.jsonl")).expect("log");
    let last: Value = serde_json::from_str(log.lines().last().expect("a line")).expect("json");
    assert_eq!(last["task"], "task-mcp-1");
    assert_eq!(last["returned"][0], first.as_str());
    let hits = server.call("stats_hits", json!({}));
    let row =
        hits["entries"].as_array().expect("entries").iter().find(|e| e["id"] == first.as_str());
    assert_eq!(row.expect("the hit entry")["last_hit_task"], "task-mcp-1", "{hits}");

    // query: facets, count and paging.
    let all = server.call("query", json!({"family": ["attention"]}));
    let count = all["count"].as_u64().expect("count");
    assert!(count >= 2, "{all}");
    assert!(all["entries"]
        .as_array()
        .expect("rows")
        .iter()
        .all(|r| r["family"].as_array().is_some_and(|f| f.iter().any(|v| v == "attention"))));
    let page = server.call("query", json!({"family": ["attention"], "limit": 1, "offset": 1}));
    assert_eq!(page["entries"].as_array().map(Vec::len), Some(1));
    assert_eq!(page["entries"][0], all["entries"][1]);

    // add, then get and query see the entry; the CLI's rules hold (a second add is refused).
    let text = "---\nid: PL-mcp-added\nkind: pattern\nfamily: [attention]\nstatus: verified\norigin_task: task-mcp-1\ntoolchain: tilelang 0.1.2+a83118285a（2026-09-10 build）/ CANN 8.5.0\nrepro: none\n---\n\n### 通过 MCP 添加的条目\n\nbody\n";
    let added =
        server.call("add", json!({"file": "attention.md", "text": text, "task": "task-mcp-1"}));
    assert_eq!(added, json!({"added": ["PL-mcp-added"]}));
    let got = server.call("get", json!({"id": "PL-mcp-added"}));
    assert_eq!(got["kind"], "entry");
    assert_eq!(got["fields"]["origin_task"], "task-mcp-1");
    let again = server.call_err("add", json!({"file": "attention.md", "text": text, "task": "t"}));
    assert!(again.contains("PL-mcp-added"), "{again}");
    let listed = stdout(&run_ok(root, &["get", "PL-mcp-added"]));
    assert!(listed.contains("file: .agents"), "the CLI sees the entry: {listed}");

    // similar ranks the queued proposal a candidate repeats, and says to confirm it.
    let same = server.call("similar", json!({"text": "MCP 队列条目 bm 选择", "top": 3}));
    assert!(same["matches"].is_array(), "{same}");

    // queue_add, then queue_confirm from another task verifies it.
    let queued = server.call(
        "queue_add",
        json!({
            "type": "P",
            "title": "MCP 队列条目 bm 选择",
            "evidence": ["task a"],
            "toolchain": "2026 build",
            "target_doc": topic("elementwise.md"),
            "delta": "add\nsomething",
            "task": "rmsnorm-_rms_fwd_kernel-20260905T101420Z"
        }),
    );
    let vp = queued["id"].as_str().expect("id").to_string();
    let again = server.call("similar", json!({"text": "MCP 队列条目 bm 选择"}));
    assert_eq!(again["matches"][0]["id"], vp.as_str(), "{again}");
    assert_eq!(again["delta"], format!("queue confirm {vp}"), "{again}");
    let confirmed = server.call(
        "queue_confirm",
        json!({"id": vp, "task": "softmax-_online_softmax_kernel-20260906T061946Z"}),
    );
    assert_eq!(confirmed["counted"], true, "{confirmed}");
    assert_eq!(confirmed["confirmations"], "2/2");
    assert_eq!(confirmed["status"], "verified");
    let item = server.call("get", json!({"id": vp, "kind": "queue_item"}));
    assert!(item["text"].as_str().is_some_and(|t| t.contains("softmax")), "{item}");

    // lint, restricted to one file; render_check sees what the writes left unrendered.
    let lint = server.call("lint", json!({"files": ["attention.md"]}));
    assert!(lint["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .all(|f| f["file"].as_str().is_some_and(|p| p.ends_with("/attention.md"))));
    // Writes go to the store, as the CLI's do; the files follow at the next render.
    let check = server.call("render_check", json!({}));
    assert_eq!(check["ok"], false, "{check}");
    let differ: Vec<&str> = check["files"]
        .as_array()
        .expect("files")
        .iter()
        .filter_map(|f| f["path"].as_str())
        .collect();
    assert!(differ.contains(&topic("attention.md").as_str()), "{differ:?}");
    assert!(differ.contains(&".agents/evolution/queue.md"), "{differ:?}");
    run_ok(root, &["render"]);
    let check = server.call("render_check", json!({}));
    assert_eq!(check["ok"], true, "{check}");
    std::fs::write(root.join(topic("attention.md")), "edited\n").expect("write");
    let check = server.call("render_check", json!({}));
    assert_eq!(check["ok"], false);
    assert!(check["files"][0]["diff"].as_str().is_some_and(|d| d.contains("+")), "{check}");

    // Bad calls: tool errors with the CLI's message, and the server still answers.
    let unknown = server.call_err("no_such_tool", json!({}));
    assert!(unknown.contains("unknown tool 'no_such_tool'") && unknown.contains("search"));
    let missing = server.call_err("get", json!({}));
    assert!(missing.contains("missing field `id`"), "{missing}");
    let no_id = server.call_err("get", json!({"id": "NO-SUCH-ID"}));
    assert!(no_id.contains("no record has the id 'NO-SUCH-ID'") && no_id.contains("hint:"));
    let extra = server.call_err("search", json!({"query": "x", "famly": ["a"]}));
    assert!(extra.contains("no argument 'famly'"), "{extra}");
    let range = server.call_err("search", json!({"query": "attention", "top": 0}));
    assert!(range.contains("out of range"), "{range}");
    let confirm = server.call_err("queue_confirm", json!({"id": "VP-2026-0008", "task": "x"}));
    assert!(confirm.contains("Tier 2"), "{confirm}");
    let lint_file = server.call_err("lint", json!({"files": ["nope.md"]}));
    assert!(lint_file.contains("'nope.md' is not a file"), "{lint_file}");
    let after = server.call("get", json!({"id": "PL-mcp-added"}));
    assert_eq!(after["id"], "PL-mcp-added");
    // A search says how many records matched in all, as `evokb search` counts them.
    let cli = run_ok(root, &["search", "attention", "--top", "1000", "--json"]);
    let cli: Value = serde_json::from_slice(&cli.stdout).expect("json");
    let matched = cli["results"].as_array().expect("results").len() as u64;
    assert!(matched > 3, "{cli}");
    let one = server.call("search", json!({"query": "attention", "top": 1}));
    assert_eq!(one["results"].as_array().map(Vec::len), Some(1), "{one}");
    assert_eq!(one["total"].as_u64(), Some(matched), "{one}");
    let ping = server.request("ping", json!({}));
    assert!(ping.get("result").is_some(), "{ping}");
}

#[test]
fn a_root_without_a_store_fails_before_serving() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = evokb(dir.path(), &["--root", dir.path().to_str().expect("utf-8"), "mcp"]);
    assert_eq!(out.status.code(), Some(5));
    assert!(stderr(&out).contains("evokb init"), "{}", stderr(&out));
    assert!(out.stdout.is_empty(), "nothing on the protocol channel");
}

/// The server forgets the checks' file-system answers before each call: a symlink out of the
/// repository planted while it runs is caught by the next `add`, as a new `evokb add` process
/// catches it. (Before, the listing of the topic directory made by the first call said the
/// name did not exist, and the path went unchecked.)
#[test]
fn a_symlink_planted_while_the_server_runs_is_seen_by_the_next_call() {
    let dir = kb();
    let root = dir.path();
    let mut server = Server::start(root);
    handshake(&mut server);
    let entry = |id: &str, heading: &str| {
        format!(
            "---\nid: {id}\nkind: pattern\nfamily: [attention]\nstatus: verified\norigin_task: task-mcp-1\ntoolchain: tilelang 0.1.2+a83118285a（2026-09-10 build）/ CANN 8.5.0\nrepro: none\n---\n\n### {heading}\n\nThe tile layout is written down in scratch/ref.md next to this file.\n"
        )
    };
    let added = server.call(
        "add",
        json!({"file": "attention.md", "text": entry("PL-mcp-before", "块宽与流水深度"), "task": "task-mcp-1"}),
    );
    assert_eq!(added, json!({"added": ["PL-mcp-before"]}));

    let outside = tempfile::tempdir().expect("tempdir");
    std::fs::write(outside.path().join("ref.md"), "secret layout\n").expect("write");
    let topic_dir = root.join(topic("attention.md"));
    let topic_dir = topic_dir.parent().expect("a directory");
    std::os::unix::fs::symlink(outside.path(), topic_dir.join("scratch")).expect("symlink");
    let refused = server.call_err(
        "add",
        json!({"file": "attention.md", "text": entry("PL-mcp-after", "向量核的尾块处理"), "task": "task-mcp-1"}),
    );
    assert!(refused.contains("KB-SEC-PATH"), "{refused}");
    let cli = evokb(root, &["lint", "--json"]);
    assert!(stdout(&cli).contains("KB-SEC-PATH"), "the CLI sees it too: {}", stdout(&cli));
}
