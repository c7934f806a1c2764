//! `evokb mcp`: the knowledge base served to agents over MCP (JSON-RPC on stdin and stdout), on
//! the official Rust SDK (`rmcp`).
//!
//! Each tool calls the same function as its CLI command (`search::find`, `records::lookup`,
//! `evolve::add_text`, `policy::findings`, …), so a write through MCP is held to exactly the
//! CLI's rules and a search records its hit with the task the client names. A tool returns the
//! JSON its command prints with `--json` (as text and as structured content). Every failure,
//! including a bad argument, an unknown tool and a panic inside a dependency, comes back as a
//! tool error (`isError: true`) carrying the CLI's message and hints; the server then goes on
//! serving. Stdout belongs to the protocol: nothing here prints, and notes go to stderr.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rmcp::handler::server::common::schema_for_type;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::schemars::{self, JsonSchema};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};

use super::{evolve, policy, records, search, sync};
use crate::cli::{ActorArgs, ByArg, FacetArgs};
use crate::error::{CmdResult, CommandError, ErrorKind};
use crate::root;

/// Runs the server until the client closes stdin.
pub fn serve(root: Option<&Path>) -> CmdResult {
    let root = root::find(root)?;
    let root = root.canonicalize().unwrap_or(root);
    // Fail now, with the CLI's message, rather than on every call.
    root::open_for_reading(&root)?;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    runtime.block_on(async move {
        let service =
            Server { root: Arc::new(root) }.serve(rmcp::transport::stdio()).await.map_err(|e| {
                CommandError::new(ErrorKind::Usage, format!("the MCP handshake failed: {e}"))
            })?;
        service.waiting().await.map_err(|e| {
            CommandError::new(ErrorKind::Store, format!("the MCP server stopped: {e}"))
        })?;
        Ok(std::process::ExitCode::SUCCESS)
    })
}

#[derive(Clone)]
struct Server {
    root: Arc<PathBuf>,
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("evokb", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let root = Arc::clone(&self.root);
        let name = request.name.to_string();
        let args = Value::Object(request.arguments.unwrap_or_default());
        // The store work is blocking; a panic inside it is caught here and becomes this call's
        // tool error, so the server keeps serving.
        let joined = tokio::task::spawn_blocking(move || {
            // The checks remember the file system's answers (symlinks, directory listings) for
            // the life of a process, which for the server is every call: each call forgets
            // them first, so a symlink planted while the server runs is seen, as a new `evokb`
            // process would see it.
            evokb_lint::clear_caches();
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| call(&root, &name, args)))
        })
        .await;
        let outcome = match joined {
            Ok(Ok(result)) => result,
            Ok(Err(payload)) => Err(panic_error(payload.as_ref())),
            Err(e) => Err(CommandError::new(ErrorKind::Store, format!("the call failed: {e}"))),
        };
        Ok(match outcome {
            Ok(value) => CallToolResult::structured(value),
            Err(e) => CallToolResult::error(vec![ContentBlock::text(e.full_text())]),
        }
        .into())
    }
}

const INSTRUCTIONS: &str = "evokb holds a coding agent's knowledge base (entries, INDEX rows, \
bottleneck patterns, capability gaps, the review queue) in a store, rendered to markdown. Search \
before you work ('search', passing your task id so the hit is recorded), read whole records with \
'get', filter entries by facets with 'query'. Add knowledge with 'add' (held to the add rules: \
front matter, evidence triad, lint gate); propose changes you cannot prove yet with 'queue_add' \
and confirm another task's proposal with 'queue_confirm'. A failed call returns the CLI's message \
and hint.";

/// Every tool, with its input schema, description and hints.
fn tools() -> Vec<Tool> {
    fn tool<T: JsonSchema + 'static>(
        name: &'static str,
        read_only: bool,
        text: &'static str,
    ) -> Tool {
        let mut hints = ToolAnnotations::default();
        hints.read_only_hint = Some(read_only);
        hints.destructive_hint = Some(false);
        hints.open_world_hint = Some(false);
        Tool::new(name, text, schema_for_type::<T>()).with_annotations(hints)
    }
    vec![
        tool::<SearchArgs>(
            "search",
            false,
            "Full-text search (Chinese, English or mixed) over entries, bottleneck patterns, \
             capability gaps and queue items, best first, optionally filtered by facets. Records \
             a hit (with `task`) in kb_search_log.jsonl when anything is returned, exactly as \
             `evokb search` does. Returns {query, total, results: [{id, source, title, path, \
             facets, score, snippet}]}: the `top` best of the `total` records that matched; call \
             `get` with an id for the whole record.",
        ),
        tool::<QueryArgs>(
            "query",
            true,
            "List entries by facets from the facet index (values of one facet are ORed, \
             different facets ANDed), as `evokb query --json`. Returns {count, offset, entries: \
             [{id, kind, title, file, line, family, apis, dtype, device, status}]}, at most \
             `limit` entries from `offset`; `count` is the number that matched.",
        ),
        tool::<GetArgs>(
            "get",
            true,
            "Read one record with all its fields, body and text, as `evokb get --json`. An id \
             consolidated into another entry resolves to the survivor (`resolved_from` names the \
             id asked for). Fails with a tool error when no record has the id.",
        ),
        tool::<AddArgs>(
            "add",
            false,
            "Add one or more entries, written in topic-file format (front matter between --- \
             lines: id, kind, family, status, origin_task, toolchain, repro; then a ### title \
             and the body), to a topic file and its INDEX table, under the same rules as `evokb \
             add`: a data entry needs its evidence triad (or `enqueue: true` files it as a Tier 1 \
             queue item), an entry on an existing topic is refused in favour of an update, and \
             lint errors are refused. Returns {added: [ids]} or {enqueued: id}.",
        ),
        tool::<SimilarArgs>(
            "similar",
            true,
            "Before adding or proposing anything: rank the existing entries and pending, verified \
             or rejected queue items closest to a candidate, with their similarity and the delta \
             the evolution rules call for (`update ID`, `queue confirm VP-…`, or `add`), as \
             `evokb similar --json`. Returns {candidate, delta, threshold, matches: [{id, kind, \
             title, status, similarity, same_topic, delta, type?, reason?}]}.",
        ),
        tool::<QueueAddArgs>(
            "queue_add",
            false,
            "File a pending review-queue item (Tier 1 for D/P/C types, Tier 2 for R), as `evokb \
             queue add`. `delta` is the text to merge into `target_doc` once confirmed. Returns \
             {id}.",
        ),
        tool::<QueueConfirmArgs>(
            "queue_confirm",
            false,
            "Confirm a pending queue item from your task, as `evokb queue confirm`. Only a task \
             of a lineage not yet confirming counts (a repeat appends its evidence, counted: \
             false); two confirmations verify a Tier 1 item. Returns {id, confirmations, status, \
             counted}.",
        ),
        tool::<LintArgs>(
            "lint",
            false,
            "Check entries, queue items, repros and files against the knowledge-base rules and \
             the security checks, as `evokb lint --json`, keeping only the findings of `files` \
             when given. Lifts the quarantine of records that pass now. Returns {findings: \
             [{code, severity, file, line, id, message}], errors, warnings, quarantine_lifted}.",
        ),
        tool::<NoArgs>(
            "render_check",
            true,
            "Compare every managed markdown file with what the store renders, writing nothing, \
             as `evokb render --check`. Returns {ok, files: [{path, missing, diff}]} with a \
             short unified diff (disk → store) per differing file.",
        ),
        tool::<StatsHitsArgs>(
            "stats_hits",
            true,
            "Search hits per entry from the search log, and the entries never hit, as `evokb \
             stats hits --json`. Returns {entries: [{id, hits, last_hit_ts, last_hit_task}], \
             zero_hit: [ids]}.",
        ),
    ]
}

/// Runs tool `name` with `args`.
fn call(root: &Path, name: &str, args: Value) -> CmdResult<Value> {
    match name {
        "search" => {
            let a: SearchArgs = parse(name, args)?;
            let top = crate::args::top(&a.top.to_string())
                .map_err(|e| CommandError::new(ErrorKind::Usage, format!("top: {e}")))?;
            let found =
                search::find(root, &a.query, a.facets.filter(), (top, 0), a.task.as_deref())?;
            for note in &found.notes {
                eprintln!("evokb: {note}");
            }
            Ok(search::results_json(&a.query, &found))
        }
        "query" => {
            let a: QueryArgs = parse(name, args)?;
            let limit = crate::args::top(&a.limit.to_string())
                .map_err(|e| CommandError::new(ErrorKind::Usage, format!("limit: {e}")))?;
            let (rows, quarantined, note) = records::query_rows(root, &a.facets.filter())?;
            if let Some(note) = note {
                eprintln!("evokb: {note}");
            }
            let count = rows.len();
            let page: Vec<_> = rows.into_iter().skip(a.offset).take(limit).collect();
            let entries = records::rows_json(&page, &quarantined)?;
            Ok(json!({"count": count, "offset": a.offset, "entries": entries}))
        }
        "get" => {
            let a: GetArgs = parse(name, args)?;
            let kind = a
                .kind
                .as_deref()
                .map(crate::cli::parse_kind)
                .transpose()
                .map_err(|e| CommandError::new(ErrorKind::Usage, e))?;
            let rec = records::lookup(root, &a.id, kind)?;
            Ok(records::get_json(&rec, &a.id))
        }
        "add" => {
            let a: AddArgs = parse(name, args)?;
            let actor = a.actor.into();
            let out = evolve::add_text(root, &a.file, &a.text, &actor, a.enqueue, a.negative)?;
            Ok(match out {
                evokb_evolve::deltas::AddOutcome::Added(ids) => json!({"added": ids}),
                evokb_evolve::deltas::AddOutcome::Enqueued(vp) => json!({"enqueued": vp}),
            })
        }
        "similar" => {
            let a: SimilarArgs = parse(name, args)?;
            if a.top == 0 || a.top > 1000 {
                return Err(CommandError::new(
                    ErrorKind::Usage,
                    format!(
                        "top: {} is out of range; expected a whole number from 1 to 1000",
                        a.top
                    ),
                ));
            }
            let cand = similar_candidate(&a.text)?;
            evolve::similar_json(root, &cand, a.top)
        }
        "queue_add" => {
            let a: QueueAddArgs = parse(name, args)?;
            let item = evokb_evolve::queue::NewItem {
                kind: a.kind,
                title: a.title,
                evidence: a.evidence,
                repro: a.repro,
                toolchain: a.toolchain,
                target_doc: a.target_doc,
                delta: a.delta,
                new_topic: a.new_topic,
            };
            let id = evolve::queue_add(root, &item, &a.actor.into())?;
            Ok(json!({"id": id}))
        }
        "queue_confirm" => {
            let a: QueueConfirmArgs = parse(name, args)?;
            let r = evolve::queue_confirm(
                root,
                &a.id,
                a.lineage.as_deref(),
                a.evidence.as_deref(),
                a.fast_track,
                &a.actor.into(),
            )?;
            Ok(json!({
                "id": a.id,
                "confirmations": r.confirmations,
                "status": r.status,
                "counted": r.counted,
            }))
        }
        "lint" => {
            let a: LintArgs = parse(name, args)?;
            let (mut findings, lifted) = policy::findings(root, &a.files)?;
            if a.errors_only {
                findings.retain(evokb_evolve::rules::Finding::is_error);
            }
            let errors = findings.iter().filter(|f| f.is_error()).count();
            Ok(json!({
                "findings": findings,
                "errors": errors,
                "warnings": findings.len() - errors,
                "quarantine_lifted": lifted,
            }))
        }
        "render_check" => {
            let _: NoArgs = parse(name, args)?;
            Ok(sync::render_check_json(&sync::render_diffs(root)?))
        }
        "stats_hits" => {
            let a: StatsHitsArgs = parse(name, args)?;
            if let Some(s) = &a.since {
                crate::args::since(s)
                    .map_err(|e| CommandError::new(ErrorKind::Usage, format!("since: {e}")))?;
            }
            let (entries, zero) = search::hit_table(root, a.since.as_deref())?;
            Ok(json!({"entries": entries, "zero_hit": zero}))
        }
        other => {
            let names: Vec<String> = tools().into_iter().map(|t| t.name.to_string()).collect();
            Err(CommandError::new(ErrorKind::Usage, format!("unknown tool '{other}'"))
                .hint(format!("the tools are: {}", names.join(", "))))
        }
    }
}

/// The arguments of tool `name`, checked against its schema's properties (an unknown argument
/// is refused, not silently dropped) and deserialised.
fn parse<T: DeserializeOwned + JsonSchema + 'static>(name: &str, args: Value) -> CmdResult<T> {
    let schema = schema_for_type::<T>();
    let known: Vec<&str> = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default();
    if let Some(obj) = args.as_object() {
        if let Some(unknown) = obj.keys().find(|k| !known.contains(&k.as_str())) {
            return Err(CommandError::new(
                ErrorKind::Usage,
                format!("tool '{name}' has no argument '{unknown}'"),
            )
            .hint(if known.is_empty() {
                "it takes no arguments".to_string()
            } else {
                format!("its arguments are: {}", known.join(", "))
            }));
        }
    }
    serde_json::from_value(args).map_err(|e| {
        CommandError::new(ErrorKind::Usage, format!("invalid arguments for tool '{name}': {e}"))
    })
}

/// A panic inside a call, reported like the CLI reports one.
fn panic_error(payload: &(dyn std::any::Any + Send)) -> CommandError {
    let message = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "an unknown failure".to_string());
    CommandError::new(
        ErrorKind::Store,
        format!("internal error in a dependency; the store may be damaged: {message}"),
    )
    .damage_hints()
}

// Facet filters, as `evokb query` and `evokb search` take them (no doc comment: a flattened
// struct's doc would replace the tool's schema description).
#[derive(Debug, Default, Deserialize, JsonSchema)]
struct Facets {
    /// Entries of any of these operator families (e.g. ["attention"])
    #[serde(default)]
    family: Vec<String>,
    /// Entries naming any of these APIs
    #[serde(default)]
    api: Vec<String>,
    /// Entries for any of these dtypes
    #[serde(default)]
    dtype: Vec<String>,
    /// Entries for any of these devices
    #[serde(default)]
    device: Vec<String>,
    /// Entries of any of these front-matter kinds (pattern, trap, case, constant)
    #[serde(default)]
    kind: Vec<String>,
    /// Entries with any of these statuses (verified, stale, overturned)
    #[serde(default)]
    status: Vec<String>,
    /// Entries whose id starts with any of these prefixes
    #[serde(default)]
    id_prefix: Vec<String>,
}

impl Facets {
    fn filter(self) -> evokb_store::Filter {
        FacetArgs {
            family: self.family,
            api: self.api,
            dtype: self.dtype,
            device: self.device,
            kind: self.kind,
            status: self.status,
            id_prefix: self.id_prefix,
        }
        .filter()
    }
}

fn default_top() -> usize {
    8
}

fn default_limit() -> usize {
    100
}

/// The arguments of `search`.
#[derive(Debug, Deserialize, JsonSchema)]
struct SearchArgs {
    /// The query words (Chinese, English or mixed)
    query: String,
    /// Your task id, recorded with the hit
    #[serde(default)]
    task: Option<String>,
    /// How many results, 1 to 1000 (default 8)
    #[serde(default = "default_top")]
    #[schemars(range(min = 1, max = 1000))]
    top: usize,
    #[serde(flatten)]
    facets: Facets,
}

/// The arguments of `query`.
#[derive(Debug, Deserialize, JsonSchema)]
struct QueryArgs {
    /// The most entries returned, 1 to 1000 (default 100)
    #[serde(default = "default_limit")]
    #[schemars(range(min = 1, max = 1000))]
    limit: usize,
    /// Skip this many matching entries first (default 0)
    #[serde(default)]
    offset: usize,
    #[serde(flatten)]
    facets: Facets,
}

/// The arguments of `get`.
#[derive(Debug, Deserialize, JsonSchema)]
struct GetArgs {
    /// The record's id (an entry, queue item, pattern, gap, …)
    id: String,
    /// The record's kind, when several kinds share the id (entry, index_row, queue_item, …)
    #[serde(default)]
    kind: Option<String>,
}

/// Who decides.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum By {
    /// The evolver agent
    Evolver,
    /// A person
    Human,
}

fn default_by() -> By {
    By::Evolver
}

// Who acts, for which task: every mutation records both.
#[derive(Debug, Deserialize, JsonSchema)]
struct Actor {
    /// The task the change comes from (recorded in the change log; confirmations count per task)
    task: String,
    /// Who decided: "evolver" (default) or "human"
    #[serde(default = "default_by")]
    by: By,
}

impl From<Actor> for ActorArgs {
    fn from(a: Actor) -> ActorArgs {
        let by = match a.by {
            By::Evolver => ByArg::Evolver,
            By::Human => ByArg::Human,
        };
        ActorArgs { task: a.task, by }
    }
}

/// The arguments of `add`.
#[derive(Debug, Deserialize, JsonSchema)]
struct AddArgs {
    /// The topic file, relative to the root, or just its name (e.g. "attention.md")
    file: String,
    /// The entries in topic-file format
    text: String,
    /// File a data entry that lacks its evidence triad as a Tier 1 queue item instead
    #[serde(default)]
    enqueue: bool,
    /// The entry is a negative one (a dead end, its reason and evidence), as `evokb negate`
    #[serde(default)]
    negative: bool,
    #[serde(flatten)]
    actor: Actor,
}

fn default_repro() -> String {
    "repro-missing".to_string()
}

/// The arguments of `queue_add`.
#[derive(Debug, Deserialize, JsonSchema)]
struct QueueAddArgs {
    /// The item type: D, P, R or C
    #[serde(rename = "type")]
    kind: String,
    /// One sentence with keywords
    title: String,
    /// Provenance lines
    #[serde(default)]
    evidence: Vec<String>,
    /// A knowledge-domain script, "repro-missing" (default) or "none"
    #[serde(default = "default_repro")]
    repro: String,
    /// The toolchain stamp
    #[serde(default)]
    toolchain: String,
    /// The target file (repository path)
    target_doc: String,
    /// The delta text
    delta: String,
    /// File it although a pending or rejected item of the same type is on the same topic (the
    /// override is logged); without it such a proposal is refused, naming the item (call
    /// `similar` first)
    #[serde(default)]
    new_topic: bool,
    #[serde(flatten)]
    actor: Actor,
}

/// The arguments of `similar`.
#[derive(Debug, Deserialize, JsonSchema)]
struct SimilarArgs {
    /// The candidate: a title and body text, or a whole entry in topic-file format (front
    /// matter between --- lines)
    text: String,
    /// How many matches (1 to 1000)
    #[serde(default = "default_similar_top")]
    top: usize,
}

fn default_similar_top() -> usize {
    5
}

/// The arguments of `queue_confirm`.
#[derive(Debug, Deserialize, JsonSchema)]
struct QueueConfirmArgs {
    /// The queue item (e.g. "VP-2026-0003")
    id: String,
    /// The op lineage (default: the task id without its run stamp)
    #[serde(default)]
    lineage: Option<String>,
    /// The evidence this task brings
    #[serde(default)]
    evidence: Option<String>,
    /// Reproduced elsewhere with the full triad: count as 2/2 (Tier 1 only)
    #[serde(default)]
    fast_track: bool,
    #[serde(flatten)]
    actor: Actor,
}

/// The arguments of `lint`.
#[derive(Debug, Deserialize, JsonSchema)]
struct LintArgs {
    /// Only the findings of these files (paths relative to the root, or topic-file names);
    /// every file when empty
    #[serde(default)]
    files: Vec<String>,
    /// Only error-severity findings
    #[serde(default)]
    errors_only: bool,
}

/// The arguments of `stats_hits`.
#[derive(Debug, Deserialize, JsonSchema)]
struct StatsHitsArgs {
    /// Only events at or after this date ("2026-09-10") or UTC timestamp
    /// ("2026-09-10T09:04:18Z")
    #[serde(default)]
    since: Option<String>,
}

/// No arguments.
#[derive(Debug, Deserialize, JsonSchema)]
struct NoArgs {}

/// The candidate of the `similar` tool: the entry when `text` is one in topic-file format,
/// else the text itself (its first line is the title).
fn similar_candidate(text: &str) -> CmdResult<evokb_evolve::similar::Candidate> {
    use evokb_evolve::similar::Candidate;
    if text.trim().is_empty() {
        return Err(CommandError::new(ErrorKind::Usage, "text: the candidate is empty"));
    }
    let (parsed, _) = evokb_export::parse::parse_file(
        evokb_export::layout::FileRole::Topic,
        "candidate.md",
        text,
    );
    let mut entries = parsed.records.into_iter().map(|p| p.record);
    Ok(match (entries.next(), entries.next()) {
        (Some(e), None) => Candidate::entry(e),
        _ => Candidate::text(text),
    })
}
