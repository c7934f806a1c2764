//! The evolution commands: the five deltas, the review queue and the per-task report.

use std::fmt::Write as _;
use std::io::Read;
use std::path::Path;

use evokb_evolve::changelog::{self, ChangeKind};
use evokb_evolve::deltas::{self as evolve, Actor, AddOutcome, MissingTriad};
use evokb_evolve::queue::{self, Applied, NewItem};
use evokb_export::layout::{FileRole, Layout};
use evokb_store::Kind;
use serde_json::json;

use super::{ok, print, print_json};
use crate::cli::{ActorArgs, QueueCmd};
use crate::error::{CmdResult, CommandError, ErrorKind};
use crate::root;

struct Ctx {
    root: std::path::PathBuf,
    store: evokb_store::Store,
    today: String,
}

fn ctx(root: Option<&Path>) -> CmdResult<Ctx> {
    let root = root::find(root)?;
    let store = root::open(&root)?;
    let today = crate::clock::utc_today();
    Ok(Ctx { root, store, today })
}

fn actor<'a>(a: &'a ActorArgs, today: &'a str) -> Actor<'a> {
    Actor { task: &a.task, by: a.by.word(), today }
}

fn read_source(source: Option<&Path>) -> CmdResult<String> {
    let mut text = String::new();
    match source {
        Some(p) if p != Path::new("-") => {
            let bytes = std::fs::read(p).map_err(|e| {
                CommandError::new(
                    ErrorKind::InvalidInput,
                    format!("cannot read '{}': {e}", p.display()),
                )
            })?;
            text = String::from_utf8(bytes).map_err(|e| {
                CommandError::new(
                    ErrorKind::InvalidInput,
                    format!("'{}' is not UTF-8 text: {e}", p.display()),
                )
            })?;
        }
        _ => {
            std::io::stdin().read_to_string(&mut text).map_err(|e| {
                CommandError::new(
                    ErrorKind::InvalidInput,
                    format!("cannot read standard input as UTF-8 text: {e}"),
                )
            })?;
        }
    }
    Ok(text)
}

/// A topic file named by its path, or by its file name in the folder of the layout's first
/// topic glob (`traps-runtime.md`).
fn topic_path(store: &evokb_store::Store, file: &str) -> CmdResult<String> {
    let lay = Layout::of(&store.read()?)?;
    if lay.role_of(file) == Some(FileRole::Topic) {
        return Ok(file.to_string());
    }
    let dir = lay.topics.first().and_then(|g| g.rsplit_once('/')).map_or("", |(d, _)| d);
    Ok(if dir.is_empty() { file.to_string() } else { format!("{dir}/{file}") })
}

/// Adds entries (topic-file text) to `file` under the add rules: the one add of `evokb add`,
/// `evokb negate` and the MCP `add` tool.
pub fn add_text(
    root: &Path,
    file: &str,
    text: &str,
    a: &ActorArgs,
    enqueue: bool,
    negative: bool,
) -> CmdResult<AddOutcome> {
    let c = ctx(Some(root))?;
    let mode = if enqueue { MissingTriad::Enqueue } else { MissingTriad::Refuse };
    Ok(evolve::add(
        &c.store,
        &c.root,
        &topic_path(&c.store, file)?,
        text,
        &actor(a, &c.today),
        negative,
        mode,
    )?)
}

pub fn add(
    root: Option<&Path>,
    file: &str,
    source: Option<&Path>,
    a: &ActorArgs,
    enqueue: bool,
    negative: bool,
) -> CmdResult {
    let root = root::find(root)?;
    let text = read_source(source)?;
    match add_text(&root, file, &text, a, enqueue, negative)? {
        AddOutcome::Added(ids) => {
            print(&ids.iter().map(|i| format!("added entry '{i}'\n")).collect::<String>())?
        }
        AddOutcome::Enqueued(vp) => print(&format!(
            "the entry lacks its evidence triad: queued as {vp} (Tier 1, repro-missing)\n"
        ))?,
    }
    ok()
}

/// Files a pending queue item: `evokb queue add` and the MCP `queue_add` tool.
pub fn queue_add(root: &Path, item: &NewItem, a: &ActorArgs) -> CmdResult<String> {
    let c = ctx(Some(root))?;
    Ok(queue::add(&c.store, item, &actor(a, &c.today))?)
}

/// Adds a confirmation to a queue item: `evokb queue confirm` and the MCP `queue_confirm` tool.
pub fn queue_confirm(
    root: &Path,
    vp: &str,
    lineage: Option<&str>,
    evidence: Option<&str>,
    fast_track: bool,
    a: &ActorArgs,
) -> CmdResult<queue::Confirmed> {
    let c = ctx(Some(root))?;
    Ok(queue::confirm(&c.store, vp, lineage, evidence, fast_track, &actor(a, &c.today))?)
}

pub fn update(root: Option<&Path>, id: &str, sets: &[String], a: &ActorArgs) -> CmdResult {
    let c = ctx(root)?;
    let mut changes = Vec::new();
    for s in sets {
        let (k, v) = s.split_once('=').ok_or_else(|| {
            CommandError::new(ErrorKind::Usage, format!("'{s}' is not FIELD=VALUE"))
        })?;
        changes.push((k.trim().to_string(), v.to_string()));
    }
    evolve::update(&c.store, id, &changes, &actor(a, &c.today))?;
    print(&format!("updated {id}\n"))?;
    ok()
}

pub fn consolidate(root: Option<&Path>, ids: &[String], into: &str, a: &ActorArgs) -> CmdResult {
    let c = ctx(root)?;
    evolve::consolidate(&c.store, ids, into, &actor(a, &c.today))?;
    print(&format!("consolidated {} into {into}\n", ids.join(", ")))?;
    ok()
}

pub fn deprecate(
    root: Option<&Path>,
    id: &str,
    by_entry: Option<&str>,
    reason: Option<&str>,
    a: &ActorArgs,
) -> CmdResult {
    let c = ctx(root)?;
    evolve::deprecate(&c.store, id, by_entry, reason, &actor(a, &c.today))?;
    print(&format!("deprecated {id}\n"))?;
    ok()
}

/// `evokb clear ID --reason …`: a person's recorded decision lifting a quarantine flag.
pub fn clear(root: Option<&Path>, id: &str, reason: &str, a: &ActorArgs) -> CmdResult {
    let c = ctx(root)?;
    let mut w = c.store.write()?;
    let flag = evokb_evolve::quarantine::clear(&mut w, id, reason, &actor(a, &c.today))?;
    w.commit()?;
    let mut out = format!("cleared the quarantine of {id} ({} {})\n", flag.kind, flag.file);
    for f in &flag.findings {
        let _ = writeln!(out, "  was: {f}");
    }
    print(&out)?;
    ok()
}

pub fn queue(root: Option<&Path>, cmd: &QueueCmd) -> CmdResult {
    let root = root::find(root)?;
    // Add and confirm share their function with the MCP tools, which open the store themselves.
    match cmd {
        QueueCmd::Add {
            kind,
            title,
            evidence,
            repro,
            toolchain,
            target_doc,
            delta_file,
            new_topic,
            actor: a,
        } => {
            let n = NewItem {
                kind: kind.clone(),
                title: title.clone(),
                evidence: evidence.clone(),
                repro: repro.clone(),
                toolchain: toolchain.clone(),
                target_doc: target_doc.clone(),
                delta: read_source(Some(delta_file))?,
                new_topic: *new_topic,
            };
            let id = queue_add(&root, &n, a)?;
            print(&format!("queued {id}\n"))?;
            return ok();
        }
        QueueCmd::Confirm { vp, lineage, evidence, fast_track, actor: a } => {
            let r =
                queue_confirm(&root, vp, lineage.as_deref(), evidence.as_deref(), *fast_track, a)?;
            let note = if r.counted {
                ""
            } else {
                " (same task or lineage: evidence appended, not counted)"
            };
            print(&format!("{vp}: {} {}{note}\n", r.confirmations, r.status))?;
            return ok();
        }
        _ => {}
    }
    let c = ctx(Some(&root))?;
    match cmd {
        QueueCmd::Add { .. } | QueueCmd::Confirm { .. } => {}
        QueueCmd::Show { vp, json: json_out } => {
            let rec = c.store.read()?.record_by_id(Kind::QueueItem, vp)?.ok_or_else(|| {
                CommandError::new(ErrorKind::Usage, format!("no queue item '{vp}'"))
            })?;
            if *json_out {
                let mut fields = serde_json::Map::new();
                for (k, v) in rec.fields() {
                    fields.entry(k.to_string()).or_insert_with(|| json!(v.trim()));
                }
                let confirmed_by: Vec<&str> = rec
                    .fields()
                    .filter(|(k, _)| *k == "confirmed_by")
                    .map(|(_, v)| v.trim())
                    .collect();
                fields.insert("confirmed_by".into(), json!(confirmed_by));
                print_json(&serde_json::Value::Object(fields))?;
            } else {
                print(&rec.text())?;
            }
        }
        QueueCmd::Merge { vp, applied, actor: a } => {
            let anchor = queue::merge(&c.store, &c.root, vp, *applied, &actor(a, &c.today))?;
            print(&format!("merged {vp}: {anchor}\n"))?;
        }
        QueueCmd::Approve { vp, note, actor: a } => {
            queue::approve(&c.store, vp, note, &actor(a, &c.today))?;
            print(&format!("approved {vp}\n"))?;
        }
        QueueCmd::Apply { vps, validate, actor: a } => {
            let results =
                queue::apply(&c.store, &c.root, vps, validate.as_deref(), &actor(a, &c.today))?;
            let mut out = String::new();
            let mut failed = false;
            for (vp, r) in &results {
                match r {
                    Applied::Merged(t) => {
                        let _ = writeln!(out, "{vp}: applied to {t}, merged");
                    }
                    Applied::Skipped(why) => {
                        let _ = writeln!(out, "{vp}: skipped, {why}");
                    }
                    Applied::Conflict(why) => {
                        failed = true;
                        let _ = writeln!(out, "{vp}: conflict, {why}; the target is untouched");
                    }
                }
            }
            print(&out)?;
            if failed {
                return Ok(std::process::ExitCode::from(ErrorKind::Conflict.exit_code()));
            }
        }
        QueueCmd::Reject { vp, reason, actor: a } => {
            queue::reject(&c.store, vp, reason, &actor(a, &c.today))?;
            print(&format!("rejected {vp}\n"))?;
        }
        QueueCmd::Expire { today, actor: a } => {
            let today = today.clone().unwrap_or_else(|| c.today.clone());
            let expired = queue::expire(&c.store, &actor(a, &today))?;
            print(&format!(
                "{} item(s) expired{}{}\n",
                expired.len(),
                if expired.is_empty() { "" } else { ": " },
                expired.join(", ")
            ))?;
        }
        QueueCmd::Due { today, json: json_out } => {
            let today = today.clone().unwrap_or_else(|| c.today.clone());
            let due = queue::pending_older_than(&c.store, &today, 75)?;
            if *json_out {
                let rows: Vec<serde_json::Value> = due.iter().map(|(id, age, title)| json!({"id": id, "age_days": age, "expires_in_days": 90 - age, "title": title})).collect();
                print_json(&serde_json::Value::Array(rows))?;
            } else {
                let mut out = String::new();
                for (id, age, title) in &due {
                    let _ = writeln!(
                        out,
                        "{id}  pending {age} days{}  {}",
                        if *age > 90 { " (expired: run 'evokb queue expire')" } else { "" },
                        title.chars().take(70).collect::<String>()
                    );
                }
                let _ = writeln!(out, "{} item(s) pending more than 75 days", due.len());
                print(&out)?;
            }
        }
    }
    ok()
}

/// The Evolution Result block of a task, from the change-log rows that name it.
pub fn report(root: Option<&Path>, task: &str, json_out: bool) -> CmdResult {
    let c = ctx(root)?;
    let txn = c.store.read()?;
    let events = changelog::events_of_task(&txn, task)?;
    let changes: Vec<String> = events
        .iter()
        .map(|e| {
            if e.subject.is_empty() {
                e.kind.verb().to_string()
            } else {
                format!("{} {}", e.kind.verb(), e.subject)
            }
        })
        .collect();
    let count = |kind: ChangeKind| events.iter().filter(|e| e.kind == kind).count();
    let records = txn.records()?;
    let pending_tier2 = records
        .iter()
        .filter(|r| {
            r.kind == Kind::QueueItem
                && r.field("type").is_some_and(|t| t.trim().starts_with('R'))
                && r.field("status").map(str::trim) == Some("pending")
        })
        .count();
    let merged = events.iter().filter(|e| e.kind.merges()).count();
    let verdict = if changes.is_empty() { "[EVOLVE_SKIP]" } else { "EVOLVE_COMPLETED" };
    let counts = [
        ("merged_tier0", merged),
        ("updated", count(ChangeKind::Update)),
        ("deprecated", count(ChangeKind::Deprecate)),
        ("enqueued", count(ChangeKind::QueueAdd)),
        ("confirmed", count(ChangeKind::QueueConfirm)),
        ("pending_tier2", pending_tier2),
        ("conflicts", count(ChangeKind::ApplyFailed)),
        ("consolidation", count(ChangeKind::Consolidate)),
    ];
    if json_out {
        // The block's fields with their types: counts as numbers, `stats_updated` a boolean.
        let mut block = serde_json::Map::new();
        block.insert("mode".into(), json!("distill"));
        block.insert("task".into(), json!(task));
        block.insert("verdict".into(), json!(verdict));
        for (k, n) in counts {
            block.insert(k.into(), json!(n));
        }
        block.insert("stats_updated".into(), json!(!changes.is_empty()));
        block.insert("changes".into(), json!(changes));
        print_json(&serde_json::Value::Object(block))?;
        return ok();
    }
    let mut out = String::new();
    let _ = writeln!(out, "## Evolution Result\n");
    let head = [
        ("mode", "distill".to_string()),
        ("task", task.to_string()),
        ("verdict", verdict.to_string()),
    ];
    let tail = [("stats_updated", (!changes.is_empty()).to_string())];
    for (k, v) in
        head.into_iter().chain(counts.iter().map(|(k, n)| (*k, n.to_string()))).chain(tail)
    {
        let _ = writeln!(out, "- {k}: {v}");
    }
    let _ = writeln!(out, "- changes:");
    for ch in &changes {
        let _ = writeln!(out, "  - {ch}");
    }
    print(&out)?;
    ok()
}

/// `evokb similar TEXT|--file F`: the dedupe ranking of a candidate (read-only).
pub fn similar(
    root: Option<&Path>,
    text: &[String],
    file: Option<&Path>,
    top: usize,
    json_out: bool,
) -> CmdResult {
    use evokb_evolve::similar::{self, Candidate};
    let cand = match file {
        Some(path) => {
            let text = read_source(Some(path))?;
            let name = path.display().to_string();
            let (parsed, diags) = evokb_export::parse::parse_file(FileRole::Topic, &name, &text);
            let errors: Vec<String> =
                diags.iter().filter(|d| d.is_error()).map(ToString::to_string).collect();
            if !errors.is_empty() {
                let mut e =
                    CommandError::new(ErrorKind::InvalidInput, "the candidate entry is malformed");
                e.details = errors;
                return Err(e);
            }
            let mut entries = parsed.records.into_iter().map(|p| p.record);
            match (entries.next(), entries.next()) {
                (None, _) => Candidate::text(&text),
                (Some(e), None) => Candidate::entry(e),
                (Some(_), Some(_)) => {
                    return Err(CommandError::new(
                        ErrorKind::Usage,
                        format!("'{name}' holds more than one entry; give one candidate at a time"),
                    ))
                }
            }
        }
        None => Candidate::text(&text.join(" ")),
    };
    if cand.title.trim().is_empty() && cand.body.trim().is_empty() {
        return Err(CommandError::new(ErrorKind::Usage, "the candidate is empty"));
    }
    let root = root::find(root)?;
    if json_out {
        print_json(&similar_json(&root, &cand, top)?)?;
        return ok();
    }
    let store = root::open_for_reading(&root)?;
    let records = store.read()?.records()?;
    let matches = similar::rank(&records, &cand, top);
    let delta = similar::suggest(&matches);
    let mut out = String::new();
    for m in &matches {
        let _ = writeln!(
            out,
            "{:.3}{} {:<10} {:<44} {}  [{}]",
            m.similarity,
            if m.same_topic { "*" } else { " " },
            m.kind,
            m.id,
            m.title.chars().take(60).collect::<String>(),
            m.status
        );
        if let Some(r) = m.reason.as_deref().filter(|r| !r.is_empty()) {
            let _ = writeln!(out, "       rejected: {r}");
        }
    }
    let _ = writeln!(out, "delta: {delta}");
    print(&out)?;
    ok()
}

/// The `similar --json` shape for `cand` against the store at `root`: shared by the CLI and the
/// MCP `similar` tool.
pub fn similar_json(
    root: &Path,
    cand: &evokb_evolve::similar::Candidate,
    top: usize,
) -> CmdResult<serde_json::Value> {
    use evokb_evolve::similar;
    let store = root::open_for_reading(root)?;
    let records = store.read()?.records()?;
    let matches = similar::rank(&records, cand, top);
    let delta = similar::suggest(&matches);
    Ok(json!({
            "candidate": cand.title,
        "delta": delta.to_string(),
        "threshold": {
            "entry": evolve::SAME_TOPIC_SIMILARITY,
            "queue_item": similar::QUEUE_SAME_TOPIC_SIMILARITY,
        },
        "matches": matches.iter().map(|m| {
            let mut v = json!({
                "id": m.id,
                "kind": m.kind,
                "title": m.title,
                "status": m.status,
                "similarity": m.similarity,
                "same_topic": m.same_topic,
                "delta": m.delta.to_string(),
            });
            if !m.item_type.is_empty() {
                v["type"] = json!(m.item_type);
            }
            if let Some(r) = &m.reason {
                v["reason"] = json!(r);
            }
            v
        }).collect::<Vec<_>>(),
    }))
}
