//! The review queue's lifecycle on the store: adding items, confirmations that count only from
//! distinct tasks of distinct lineages, Tier 1 merges, Tier 2 approvals and anchored applies,
//! rejection, 90-day expiry and the 75-day reminder.
//!
//! Terminal items (merged, rejected, expired, conflict) move to the `## Decided` section, and
//! from then on only their status and `decided_*` fields change (enforced by
//! [`evokb_export::mutate::set_field_in`]). Every operation appends a change-log row.

use std::collections::HashMap;
use std::path::Path;

use evokb_store::{CaseHash, Kind, LayoutItem, Record, Store, WriteTxn};

use crate::changelog::{log, Actor, ChangeKind};
use crate::rules::{has_stamp, repro_path};
use evokb_export::layout::{FileRole, Layout};
use evokb_export::mutate::{commit_file, commit_record, set_field_in};
use evokb_export::parse::parse_file;
use evokb_export::MutateError;

use crate::error::QueueError;

fn invalid(reason: impl Into<String>) -> QueueError {
    QueueError::Refused { reason: reason.into() }
}

fn wrong_status(vp: &str, status: &str, allowed: &str) -> QueueError {
    QueueError::WrongStatus { vp: vp.into(), status: status.into(), allowed: allowed.into() }
}

fn item(src: &dyn evokb_export::render::RecordSource, vp: &str) -> Result<Record, QueueError> {
    src.get(&CaseHash::of(Kind::QueueItem, vp))?
        .ok_or_else(|| MutateError::NotFound { id: vp.into() }.into())
}

fn status(rec: &Record) -> String {
    rec.field("status").unwrap_or("").trim().to_string()
}

/// Whether `rec` is a Tier 2 (R) item: its `type` starts with R.
pub(crate) fn is_tier2(rec: &Record) -> bool {
    rec.field("type").is_some_and(|t| t.trim().starts_with('R'))
}

/// The lineage of a task: its id without the trailing `-YYYYMMDDTHHMMSSZ` run stamp, so later
/// rounds and re-runs of one operator count as one lineage.
pub fn lineage_of(task: &str) -> String {
    let t = task.trim();
    if let Some((head, tail)) = t.rsplit_once('-') {
        let b = tail.as_bytes();
        let stamp =
            b.len() == 16 && b[8] == b'T' && b[15] == b'Z' && b[..8].iter().all(u8::is_ascii_digit);
        if stamp {
            return head.to_string();
        }
    }
    t.to_string()
}

/// The task ids that already confirmed an item: its creator and every `confirmed_by: task …`.
fn confirming_tasks(rec: &Record) -> Vec<String> {
    let mut out = Vec::new();
    for (k, v) in rec.fields() {
        if k == "created_by" || k == "confirmed_by" {
            let mut words = v.split_whitespace();
            if words.next() == Some("task") {
                if let Some(t) = words.next() {
                    out.push(t.trim_end_matches(['，', ',', '（']).to_string());
                }
            }
        }
    }
    out
}

fn count(conf: &str) -> u32 {
    conf.trim().split_once('/').and_then(|(n, _)| n.trim().parse().ok()).unwrap_or(0)
}

/// The next free `VP-{year}-NNNN`: one past the highest number used this year, decided items
/// included, so ids are never reused.
pub fn next_id(w: &WriteTxn, year: &str) -> Result<String, QueueError> {
    let prefix = format!("VP-{year}-");
    let max = w
        .records()?
        .iter()
        .filter(|r| r.kind == Kind::QueueItem)
        .filter_map(|r| r.id.strip_prefix(&prefix)?.parse::<u32>().ok())
        .max()
        .unwrap_or(0);
    Ok(format!("{prefix}{:04}", max + 1))
}

/// A new queue item.
#[derive(Debug, Clone, Default)]
pub struct NewItem {
    /// D, P, R or C.
    pub kind: String,
    /// One sentence.
    pub title: String,
    /// Provenance lines.
    pub evidence: Vec<String>,
    /// A knowledge-domain script, `repro-missing` or `none`.
    pub repro: String,
    /// The toolchain stamp.
    pub toolchain: String,
    /// The target file.
    pub target_doc: String,
    /// The delta text (one of the five actions and the full text, or anchor/old/new).
    pub delta: String,
    /// File it although its title matches a pending or rejected item of its type (the
    /// override is recorded in the change log).
    pub new_topic: bool,
}

fn item_text(id: &str, n: &NewItem, actor: &Actor<'_>) -> String {
    let tier2 = n.kind.starts_with('R');
    let mut t = format!(
        "## {id}\n\n- type: {}\n- title: {}\n- evidence:\n",
        n.kind,
        n.title.replace('\n', " ")
    );
    for e in &n.evidence {
        t.push_str(&format!("  - {}\n", e.replace('\n', " ")));
    }
    t.push_str(&format!(
        "- repro: {}\n- toolchain_stamp: {}\n- target_doc: {}\n- delta: |\n",
        n.repro, n.toolchain, n.target_doc
    ));
    for l in n.delta.lines() {
        t.push_str(&format!("    {l}\n"));
    }
    t.push_str(&format!(
        "- status: pending\n- confirmations: {}\n- created_by: task {} {}\n- decided_by: -\n- decided_note: -\n\n",
        if tier2 { "-/-" } else { "1/2" },
        actor.task,
        actor.today
    ));
    t
}

/// Where a new pending item goes: after the last pending item of its tier.
fn pending_slot(w: &WriteTxn, items: &[LayoutItem], tier2: bool) -> Result<usize, QueueError> {
    let decided_at = items
        .iter()
        .position(
            |i| matches!(i, LayoutItem::Prose(p) if p.lines().any(|l| l.starts_with("## Decided"))),
        )
        .unwrap_or(items.len());
    let mut last_same = None;
    let mut last_any = None;
    for (pos, it) in items[..decided_at].iter().enumerate() {
        if let LayoutItem::Record(k) = it {
            if let Some(r) = w.record(k)? {
                last_any = Some(pos);
                if is_tier2(&r) == tier2 {
                    last_same = Some(pos);
                }
            }
        }
    }
    Ok(match (last_same, last_any) {
        (Some(p), _) => p + 1,
        (None, Some(p)) if tier2 => p + 1,
        _ => decided_at,
    })
}

/// Adds a pending item; returns its id.
pub fn add_in(w: &mut WriteTxn, n: &NewItem, actor: &Actor<'_>) -> Result<String, QueueError> {
    if !["D", "P", "R", "C"].iter().any(|k| n.kind.starts_with(k)) {
        return Err(invalid(format!("type '{}' is not one of D, P, R, C", n.kind)));
    }
    if n.kind.starts_with('R') && n.target_doc.trim().is_empty() {
        return Err(invalid("an R item must name a concrete target_doc"));
    }
    // Dedupe first: a pending item on the same topic gets a confirmation instead, and a
    // rejected one's reason exists to stop the same proposal coming back.
    let records = w.records()?;
    let beside = crate::similar::duplicate_proposal(&records, &n.kind, &n.title);
    if let (Some((dup, similarity)), false) = (beside, n.new_topic) {
        let vp = dup.id.clone();
        let similarity = (similarity * 1000.0).round() / 1000.0;
        return Err(if dup.field("status").is_some_and(|s| s.trim() == "rejected") {
            QueueError::SameTopicRejected {
                vp,
                similarity,
                reason: dup.field("decided_note").unwrap_or("").trim().to_string(),
            }
        } else {
            QueueError::SameTopicPending { vp, similarity }
        });
    }
    let year = actor.today.get(..4).unwrap_or("2026");
    let id = next_id(w, year)?;
    let text = item_text(&id, n, actor);
    let rec = parse_item(&text)?;
    let queue = Layout::of(&*w)?.queue;
    let mut file = w.file(&queue)?.ok_or(MutateError::UnknownFile { path: queue })?;
    let at = pending_slot(w, &file.items, n.kind.starts_with('R'))?;
    file.items.insert(at, LayoutItem::Record(rec.case_hash()));
    let mut overrides = HashMap::new();
    overrides.insert(rec.case_hash(), rec);
    commit_file(w, file, &overrides)?;
    let subject = match beside {
        Some((dup, s)) => {
            format!("{id}（{}；new topic beside {} at similarity {:.3}）", n.kind, dup.id, s)
        }
        None => format!("{id}（{}）", n.kind),
    };
    log(w, actor, ChangeKind::QueueAdd, &subject)?;
    Ok(id)
}

/// Adds a pending item in its own transaction.
pub fn add(store: &Store, n: &NewItem, actor: &Actor<'_>) -> Result<String, QueueError> {
    let mut w = store.write()?;
    let id = add_in(&mut w, n, actor)?;
    w.commit()?;
    Ok(id)
}

/// Files a data entry that lacks its evidence triad as a Tier 1 item marked `repro-missing`.
pub fn enqueue_entry(
    store: &Store,
    path: &str,
    entry: &Record,
    gaps: &[String],
    actor: &Actor<'_>,
) -> Result<String, QueueError> {
    let n = NewItem {
        kind: "D".into(),
        title: format!(
            "{}：{}",
            entry.id,
            evokb_export::parse::frontmatter::title_of(entry.body().unwrap_or(""))
        ),
        evidence: vec![format!(
            "task {}：证据三件套不全（缺 {}），入队待补",
            actor.task,
            gaps.join("、")
        )],
        repro: "repro-missing".into(),
        toolchain: entry
            .field("toolchain")
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map_or_else(|| format!("版本戳缺失（来源任务 {}）", actor.task), str::to_string),
        target_doc: path.into(),
        delta: format!("add\n{}", entry.text().trim_end()),
        new_topic: false,
    };
    add(store, &n, actor)
}

/// What a confirmation did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confirmed {
    /// The confirmations after it, as in the file (`2/2`).
    pub confirmations: String,
    /// Whether it counted (a new task of a new lineage, or the fast track).
    pub counted: bool,
    /// The status after it.
    pub status: String,
}

/// Confirms a Tier 1 item from task `task`. Only a task of a lineage not yet confirming counts;
/// a repeat appends its evidence without counting. `fast_track` applies the
/// reproduced-elsewhere rule: with the full triad the item counts as 2/2 at once.
pub fn confirm(
    store: &Store,
    vp: &str,
    lineage: Option<&str>,
    evidence: Option<&str>,
    fast_track: bool,
    actor: &Actor<'_>,
) -> Result<Confirmed, QueueError> {
    let mut w = store.write()?;
    let rec = item(&w, vp)?;
    let st = status(&rec);
    if !(st == "pending" || st == "verified") {
        return Err(wrong_status(vp, &st, "only pending or verified items take confirmations"));
    }
    if is_tier2(&rec) {
        return Err(invalid(format!(
            "{vp} is a Tier 2 (R) item: it is approved by a human, not confirmed"
        )));
    }
    let tasks = confirming_tasks(&rec);
    let mine = lineage.map_or_else(|| lineage_of(actor.task), str::to_string);
    let repeat = tasks.iter().any(|t| t == actor.task || lineage_of(t) == mine);
    let n = count(rec.field("confirmations").unwrap_or("0/2"));
    let note = evidence.unwrap_or("confirmation");
    let mut ev = rec.field("evidence").unwrap_or("").to_string();
    let counted = if fast_track {
        let repro_ok = rec
            .field("repro")
            .and_then(|v| repro_path(v, &Layout::of(&w).map(|l| l.repro).unwrap_or_default()))
            .is_some_and(|p| w.record_by_id(Kind::Repro, &p).ok().flatten().is_some());
        if !repro_ok || !rec.field("toolchain_stamp").is_some_and(has_stamp) {
            return Err(invalid(format!("{vp} has no existing repro and toolchain stamp: the fast track needs the full triad")));
        }
        true
    } else {
        !repeat
    };
    ev.push_str(&format!(
        "\n  - task {}{}：{}",
        actor.task,
        if counted { "" } else { "（同任务/同谱系，追加证据不计数）" },
        note.replace('\n', " ")
    ));
    set_field_in(&mut w, vp, Some(Kind::QueueItem), "evidence", &ev)?;
    let mut result = Confirmed { confirmations: format!("{n}/2"), counted, status: st.clone() };
    if counted {
        let new_n = if fast_track { 2 } else { (n + 1).min(2) };
        result.confirmations = format!("{new_n}/2");
        set_field_in(&mut w, vp, Some(Kind::QueueItem), "confirmations", &result.confirmations)?;
        let by = if fast_track {
            format!("repro-runner {} {}", rec.field("repro").unwrap_or("").trim(), actor.today)
        } else {
            format!("task {} {}", actor.task, actor.today)
        };
        append_field(&mut w, vp, "confirmed_by", &by)?;
        if new_n >= 2 {
            set_field_in(&mut w, vp, Some(Kind::QueueItem), "status", "verified")?;
            result.status = "verified".into();
        }
    }
    log(
        &mut w,
        actor,
        ChangeKind::QueueConfirm,
        &format!("{vp} → {}{}", result.confirmations, if counted { "" } else { "（不计数）" }),
    )?;
    w.commit()?;
    Ok(result)
}

/// Appends a repeated field line (`confirmed_by`) even when the item already has one.
fn append_field(w: &mut WriteTxn, vp: &str, key: &str, value: &str) -> Result<(), QueueError> {
    let rec = item(w, vp)?;
    let text = rec.text();
    let Some(pos) = last_field_line_end(&text) else {
        return Err(invalid("the item has no fields"));
    };
    let new_text = format!("{}- {key}: {value}\n{}", &text[..pos], &text[pos..]);
    replace_item_text(w, &rec, &new_text)
}

/// The byte offset just past the last `- key:` field's last line.
fn last_field_line_end(text: &str) -> Option<usize> {
    let trimmed = text.trim_end_matches(['\n', '\r']);
    Some(trimmed.len() + text[trimmed.len()..].find('\n').map_or(0, |i| i + 1))
}

/// Parses the text of one queue item.
fn parse_item(text: &str) -> Result<Record, QueueError> {
    // The path only labels diagnostics: the item's text is parsed on its own.
    let (pf, diags) = parse_file(FileRole::Queue, "queue item", text);
    if let Some(d) = diags.iter().find(|d| d.is_error()) {
        return Err(invalid(d.to_string()));
    }
    pf.records.into_iter().next().map(|p| p.record).ok_or_else(|| invalid("the item did not parse"))
}

fn replace_item_text(w: &mut WriteTxn, rec: &Record, new_text: &str) -> Result<(), QueueError> {
    let new = parse_item(new_text)?;
    commit_record(w, &rec.file, rec.case_hash(), new)?;
    Ok(())
}

/// Moves a decided item to the end of the `## Decided` section.
fn archive(w: &mut WriteTxn, vp: &str) -> Result<(), QueueError> {
    let key = CaseHash::of(Kind::QueueItem, vp);
    let queue = Layout::of(&*w)?.queue;
    let mut file = w.file(&queue)?.ok_or(MutateError::UnknownFile { path: queue })?;
    let decided_at = file.items.iter().position(
        |i| matches!(i, LayoutItem::Prose(p) if p.lines().any(|l| l.starts_with("## Decided"))),
    );
    let Some(pos) = file.items.iter().position(|i| *i == LayoutItem::Record(key)) else {
        return Ok(());
    };
    if decided_at.is_some_and(|d| pos > d) {
        return Ok(());
    }
    file.items.remove(pos);
    // Removing the item may leave two prose pieces side by side; the re-parse merges them.
    if pos > 0 && pos < file.items.len() {
        if let (LayoutItem::Prose(a), LayoutItem::Prose(b)) =
            (file.items[pos - 1].clone(), file.items[pos].clone())
        {
            file.items[pos - 1] = LayoutItem::Prose(a + &b);
            file.items.remove(pos);
        }
    }
    let mut overrides = HashMap::new();
    if let Some(LayoutItem::Record(last)) = file.items.last() {
        if let Some(mut prev) = w.record(last)? {
            let t = prev.text();
            if !t.ends_with("\n\n") {
                prev.segments.push(evokb_store::Segment::Lit(if t.ends_with('\n') {
                    "\n".into()
                } else {
                    "\n\n".into()
                }));
                prev.segments = evokb_export::parse::normalize(prev.segments);
                overrides.insert(*last, prev);
            }
        }
    }
    file.items.push(LayoutItem::Record(key));
    commit_file(w, file, &overrides)?;
    Ok(())
}

fn decide(
    w: &mut WriteTxn,
    vp: &str,
    status: &str,
    by: &str,
    note: &str,
) -> Result<(), QueueError> {
    set_field_in(w, vp, Some(Kind::QueueItem), "status", status)?;
    set_or_add(w, vp, "decided_by", by)?;
    set_or_add(w, vp, "decided_note", &note.replace('\n', " "))?;
    archive(w, vp)
}

fn set_or_add(w: &mut WriteTxn, vp: &str, key: &str, value: &str) -> Result<(), QueueError> {
    set_field_in(w, vp, Some(Kind::QueueItem), key, value)?;
    Ok(())
}

/// Rejects a pending item; the reason is required.
pub fn reject(store: &Store, vp: &str, reason: &str, actor: &Actor<'_>) -> Result<(), QueueError> {
    if reason.trim().is_empty() {
        return Err(invalid("a rejection needs a reason"));
    }
    let mut w = store.write()?;
    let rec = item(&w, vp)?;
    let st = status(&rec);
    if !matches!(st.as_str(), "pending" | "verified" | "conflict") {
        return Err(wrong_status(
            vp,
            &st,
            "only pending, verified or conflict items can be rejected",
        ));
    }
    decide(&mut w, vp, "rejected", actor.by, reason)?;
    log(&mut w, actor, ChangeKind::QueueReject, &format!("{vp}：{reason}"))?;
    w.commit()?;
    Ok(())
}

/// The last `YYYY-MM-DD` in a `created_by` value.
fn created_date(rec: &Record) -> Option<String> {
    let v = rec.field("created_by")?;
    v.split(|c: char| !(c.is_ascii_digit() || c == '-'))
        .rfind(|w| w.len() == 10 && w.as_bytes()[4] == b'-' && w.as_bytes()[7] == b'-')
        .map(str::to_string)
}

/// Days since the Unix epoch of a `YYYY-MM-DD` calendar date; `None` for anything that is not
/// a real date (`2026-02-31`). The workspace's one date parser, shared with the analytics.
fn days(date: &str) -> Option<i64> {
    evokb_analytics::util::parse_date_days(date)
}

/// Pending items older than `min_days` on `today`, with their age, oldest first.
pub fn pending_older_than(
    store: &Store,
    today: &str,
    min_days: i64,
) -> Result<Vec<(String, i64, String)>, QueueError> {
    let now = days(today).ok_or_else(|| QueueError::BadDate { value: today.to_string() })?;
    let mut out = Vec::new();
    for rec in store.read()?.records()? {
        if rec.kind != Kind::QueueItem || status(&rec) != "pending" {
            continue;
        }
        let Some(created) = created_date(&rec) else { continue };
        let Some(then) = days(&created) else { continue };
        if now - then > min_days {
            out.push((
                rec.id.clone(),
                now - then,
                rec.field("title").unwrap_or("").trim().to_string(),
            ));
        }
    }
    out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Ok(out)
}

/// Marks items pending more than 90 days as expired (they are kept, in Decided).
pub fn expire(store: &Store, actor: &Actor<'_>) -> Result<Vec<String>, QueueError> {
    let old = pending_older_than(store, actor.today, 90)?;
    let mut w = store.write()?;
    for (vp, age, _) in &old {
        decide(
            &mut w,
            vp,
            "expired",
            "evolver",
            &format!("pending {age} days (> 90) as of {}", actor.today),
        )?;
    }
    if !old.is_empty() {
        let ids: Vec<&str> = old.iter().map(|(v, _, _)| v.as_str()).collect();
        log(&mut w, actor, ChangeKind::QueueExpire, &ids.join(", "))?;
    }
    w.commit()?;
    Ok(old.into_iter().map(|(v, _, _)| v).collect())
}

/// Performs a verified Tier 1 item's delta and marks it merged. A delta carrying a front-matter
/// entry is added to the target topic file under the add rules; a delta carrying a `## BP_`
/// section is appended to the bottleneck patterns; any other delta is prose that a person
/// applies, after which `applied` records the merge.
pub fn merge(
    store: &Store,
    root: &Path,
    vp: &str,
    applied: bool,
    actor: &Actor<'_>,
) -> Result<String, QueueError> {
    let rec = item(&store.read()?, vp)?;
    if is_tier2(&rec) {
        return Err(invalid(format!("{vp} is a Tier 2 (R) item: approve it, then 'queue apply'")));
    }
    if status(&rec) != "verified" {
        return Err(wrong_status(
            vp,
            &format!(
                "{} with {} confirmations",
                status(&rec),
                rec.field("confirmations").unwrap_or("?").trim()
            ),
            "it merges at 2/2 (verified)",
        ));
    }
    let delta = dedent_block(rec.field("delta").unwrap_or(""));
    let target = rec.field("target_doc").unwrap_or("").trim().to_string();
    let anchor = if let Some(at) = delta.find("---\nid:") {
        let entry_text = &delta[at..];
        let path = if Layout::of(&store.read()?)?.role_of(&target) == Some(FileRole::Topic) {
            target.clone()
        } else {
            return Err(invalid(format!("{vp} carries an entry but its target '{target}' is not a pattern-library topic file")));
        };
        match crate::deltas::add(
            store,
            root,
            &path,
            entry_text,
            actor,
            false,
            crate::deltas::MissingTriad::Refuse,
        )? {
            crate::deltas::AddOutcome::Added(ids) => ids.join(", "),
            crate::deltas::AddOutcome::Enqueued(v) => {
                return Err(invalid(format!("the entry lacks its triad and was queued as {v}")))
            }
        }
    } else if applied {
        format!("applied by hand to {target}")
    } else {
        return Err(invalid(format!("{vp}'s delta is prose, not an entry: apply it to {target} by hand, then run 'evokb queue merge {vp} --applied'")));
    };
    let mut w = store.write()?;
    decide(&mut w, vp, "merged", actor.by, &format!("合入 {target}：{anchor}（{}）", actor.today))?;
    log(&mut w, actor, ChangeKind::QueueMerge, &format!("{vp} → {anchor}"))?;
    w.commit()?;
    Ok(anchor)
}

/// Records a human's approval of a Tier 2 item.
pub fn approve(store: &Store, vp: &str, note: &str, actor: &Actor<'_>) -> Result<(), QueueError> {
    let mut w = store.write()?;
    let rec = item(&w, vp)?;
    if !is_tier2(&rec) || status(&rec) != "pending" {
        return Err(invalid(format!("{vp} is not a pending Tier 2 (R) item")));
    }
    let value = format!("human {}：{}", actor.today, note.replace('\n', " "));
    if rec.field("approved_by").is_some() {
        set_field_in(&mut w, vp, Some(Kind::QueueItem), "approved_by", &value)?;
    } else {
        append_field(&mut w, vp, "approved_by", &value)?;
    }
    log(&mut w, actor, ChangeKind::QueueApprove, vp)?;
    w.commit()?;
    Ok(())
}

/// Lines without their common indentation (blank lines do not count towards it).
fn dedent<'a>(lines: &[&'a str]) -> Vec<&'a str> {
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    lines.iter().map(|l| l.get(indent..).unwrap_or("")).collect()
}

/// Removes the `|` line of a block field and the block's common indentation.
fn dedent_block(value: &str) -> String {
    let body: Vec<&str> =
        value.lines().skip(usize::from(value.trim_start().starts_with(['|', '>']))).collect();
    dedent(&body).iter().map(|l| l.trim_end_matches('\r')).collect::<Vec<_>>().join("\n")
}

/// The anchor, old and new texts of a Tier 2 delta: blocks under `anchor:`/`定位锚:`,
/// `old:`/`old 文本:` and `new:`/`new 文本:` keys, each indented deeper than its key.
pub fn anchored_diff(delta: &str) -> Option<(String, String, String)> {
    let lines: Vec<&str> = delta.lines().collect();
    let block = |names: &[&str]| -> Option<String> {
        let (i, key_indent, inline) = lines.iter().enumerate().find_map(|(i, l)| {
            let t = l.trim_start();
            let indent = l.len() - t.len();
            names.iter().find_map(|n| {
                t.strip_prefix(n)
                    .and_then(|r| r.strip_prefix(':'))
                    .map(|r| (i, indent, r.trim().to_string()))
            })
        })?;
        if !(inline.is_empty() || inline == "|") {
            return Some(inline.trim_matches('"').to_string());
        }
        let body: Vec<&str> = lines[i + 1..]
            .iter()
            .take_while(|l| l.trim().is_empty() || l.len() - l.trim_start().len() > key_indent)
            .copied()
            .collect();
        Some(dedent(&body).join("\n").trim_end().to_string())
    };
    let anchor = block(&["anchor", "定位锚"])?;
    let old = block(&["old", "old 文本"]).map(|o| {
        if o.contains("即上述定位锚") {
            anchor.clone()
        } else {
            o
        }
    })?;
    let new = block(&["new", "new 文本"])?;
    Some((anchor, old, new))
}

/// What applying one Tier 2 item did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Applied {
    /// Merged: the target was changed.
    Merged(String),
    /// Not applicable (not Tier 2, not pending, not approved): skipped with the reason.
    Skipped(String),
    /// Failed: the item is now `conflict` with the reason, and the target is untouched.
    Conflict(String),
}

/// Applies approved Tier 2 items: the anchor must occur exactly once in the target, the old
/// text is replaced by the new, and `validate` (a shell command; `$EVOKB_APPLY_FILE` names the
/// changed temporary copy) must pass first. Any failure marks the item `conflict` and leaves
/// the target untouched.
pub fn apply(
    store: &Store,
    root: &Path,
    ids: &[String],
    validate: Option<&str>,
    actor: &Actor<'_>,
) -> Result<Vec<(String, Applied)>, QueueError> {
    let mut out = Vec::new();
    // One transaction for every item and the import of the changed targets: the target is
    // read, validated and written while no other evokb process can render it, and its new
    // text is imported before anyone sees the decision.
    let mut w = store.write()?;
    let mut touched_managed = false;
    let mut written: Vec<(std::path::PathBuf, Vec<u8>)> = Vec::new();
    for vp in ids {
        let rec = item(&w, vp)?;
        if !is_tier2(&rec) || status(&rec) != "pending" {
            out.push((
                vp.clone(),
                Applied::Skipped(format!("not a pending Tier 2 item ({})", status(&rec))),
            ));
            continue;
        }
        if rec.field("approved_by").is_none() {
            out.push((
                vp.clone(),
                Applied::Skipped("not approved (run 'evokb queue approve' first)".into()),
            ));
            continue;
        }
        let target_rel = rec.field("target_doc").unwrap_or("").trim().to_string();
        let result = try_apply(root, &target_rel, rec.field("delta").unwrap_or(""), validate);
        match result {
            Ok((new_text, anchor)) => {
                let target = root.join(&target_rel);
                let before = std::fs::read(&target).map_err(|source| {
                    evokb_export::RenderError::Io { path: target.clone(), source }
                })?;
                evokb_export::render::write_atomic(&target, new_text.as_bytes(), None)?;
                written.push((target, before));
                touched_managed |= Layout::of(&w)?.role_of(&target_rel).is_some();
                let short: String = anchor.lines().next().unwrap_or("").chars().take(60).collect();
                decide(
                    &mut w,
                    vp,
                    "merged",
                    "human",
                    &format!("applied at anchor「{short}」in {target_rel}（{}）", actor.today),
                )?;
                log(&mut w, actor, ChangeKind::Apply, &format!("{vp} → {target_rel}"))?;
                out.push((vp.clone(), Applied::Merged(target_rel)));
            }
            Err(reason) => {
                decide(&mut w, vp, "conflict", "evolver", &reason)?;
                log(&mut w, actor, ChangeKind::ApplyFailed, &format!("{vp}：{reason}"))?;
                out.push((vp.clone(), Applied::Conflict(reason)));
            }
        }
    }
    let imported = if touched_managed {
        evokb_export::sync::import_in(&mut w, root, evokb_export::sync::ImportOptions::default())
            .map(|_| ())
            .map_err(|e| invalid(format!("the applied change could not be imported: {e}")))
    } else {
        Ok(())
    };
    let committed = imported.and_then(|()| w.commit().map_err(QueueError::from));
    if let Err(err) = committed {
        // Nothing was decided: put every target back as it was, so the files agree with the
        // store again and the items can be applied once the problem is fixed.
        for (target, before) in written.iter().rev() {
            evokb_export::render::write_atomic(target, before, None)?;
        }
        return Err(err);
    }
    Ok(out)
}

fn try_apply(
    root: &Path,
    target_rel: &str,
    delta: &str,
    validate: Option<&str>,
) -> Result<(String, String), String> {
    if target_rel.is_empty()
        || target_rel.starts_with('/')
        || target_rel.split('/').any(|c| c == "..")
    {
        return Err(format!("target_doc '{target_rel}' is not a path inside the repository"));
    }
    let (anchor, old, new) =
        anchored_diff(&dedent_block(delta)).ok_or("the delta has no anchor/old/new blocks")?;
    let target = root.join(target_rel);
    let text =
        std::fs::read_to_string(&target).map_err(|e| format!("cannot read '{target_rel}': {e}"))?;
    let n = text.matches(anchor.as_str()).count();
    if n != 1 {
        return Err(format!(
            "the anchor occurs {n} times in '{target_rel}'; it must occur exactly once"
        ));
    }
    let m = text.matches(old.as_str()).count();
    if m != 1 {
        return Err(format!(
            "the old text occurs {m} times in '{target_rel}'; it must occur exactly once"
        ));
    }
    let new_text = text.replacen(old.as_str(), new.as_str(), 1);
    if let Some(cmd) = validate {
        let tmp = tempfile_path(&target);
        std::fs::write(&tmp, &new_text)
            .map_err(|e| format!("cannot write the temporary copy: {e}"))?;
        let status = std::process::Command::new("sh")
            .arg("-c")
            .arg(cmd)
            .env("EVOKB_APPLY_FILE", &tmp)
            .env("EVOKB_APPLY_TARGET", target_rel)
            .status();
        let _ = std::fs::remove_file(&tmp);
        match status {
            Ok(s) if s.success() => {}
            Ok(s) => return Err(format!("validation '{cmd}' failed ({s})")),
            Err(e) => return Err(format!("validation '{cmd}' could not run: {e}")),
        }
    }
    Ok((new_text, anchor))
}

fn tempfile_path(target: &Path) -> std::path::PathBuf {
    let name = target.file_name().and_then(|n| n.to_str()).unwrap_or("target");
    std::env::temp_dir().join(format!("evokb-apply-{}-{name}", std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lineage_drops_the_run_stamp() {
        assert_eq!(
            lineage_of("lerp_tensor-_make_lerp_tensor_kernel-20260907T010433Z"),
            "lerp_tensor-_make_lerp_tensor_kernel"
        );
        assert_eq!(lineage_of("logsumexp-migration-2026-08"), "logsumexp-migration-2026-08");
    }

    #[test]
    fn anchored_diffs_parse_both_spellings() {
        let d = "动作: update\n定位锚: |\n  11. 交付清单\nold 文本: （即上述定位锚原文）\nnew 文本: |\n  11. 交付清单\n  > note\n";
        let (a, o, n) = anchored_diff(d).expect("diff");
        assert_eq!(
            (a.as_str(), o.as_str(), n.as_str()),
            ("11. 交付清单", "11. 交付清单", "11. 交付清单\n> note")
        );
    }

    #[test]
    fn days_count_from_the_epoch() {
        assert_eq!(days("1970-01-01"), Some(0));
        assert_eq!(days("2026-12-08").zip(days("2026-09-09")).map(|(a, b)| a - b), Some(90));
        assert_eq!(days("9000000000000000000-01-01"), None);
        assert_eq!(days("2026-13-45"), None);
        assert_eq!(days("2026-02-31"), None);
        assert_eq!(days("2024-02-29").zip(days("2024-02-28")).map(|(a, b)| a - b), Some(1));
    }
}
