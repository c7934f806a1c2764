//! Dedupe before anything is added: which existing entries and open or rejected queue items a
//! candidate is closest to, and the delta the evolution rules call for.
//!
//! The similarity is the one `add` already uses for its same-topic rule
//! ([`crate::deltas::same_topic`]): the Jaccard similarity of token sets from the search
//! tokenizer (CJK bigrams and latin words, [`crate::rules::token_set`]). A candidate is
//! compared title with title and body with body, and the higher of the two counts, so a
//! one-line title finds the item it names and a whole entry finds the entry it rewords.
//!
//! What the rules call for, from the closest record at or above its threshold:
//! - an entry ([`crate::deltas::SAME_TOPIC_SIMILARITY`]): `update ID`;
//! - a pending queue item ([`QUEUE_SAME_TOPIC_SIMILARITY`]): confirm it (confirmations+1 and
//!   merged evidence) instead of filing a second one;
//! - a rejected queue item (the same threshold): nothing, because its rejection reason exists
//!   to stop the same proposal coming back;
//! - nothing close enough: `add`.
//!
//! [`rank`] is a plain function over records so that every front end (the CLI, an MCP server)
//! calls the same code.

use std::collections::BTreeSet;

use evokb_store::{Kind, Record};
use serde::Serialize;

use crate::deltas::SAME_TOPIC_SIMILARITY;
use crate::rules::{jaccard, token_set};

/// The title similarity at or above which a proposal is on the same topic as a queue item.
/// Measured on the real sample (`tests/cli/similar.rs` prints the figures): the most similar
/// titles of two distinct queue items of one type score 0.19, while an item's title with its
/// trailing clause cut off scores 0.46 to 0.68 against the item.
pub const QUEUE_SAME_TOPIC_SIMILARITY: f64 = 0.4;

/// A text to be deduplicated: a title and a body (the same text for a one-line candidate).
#[derive(Debug, Clone, Default)]
pub struct Candidate {
    /// A one-line title.
    pub title: String,
    /// The full text.
    pub body: String,
    /// The front-matter `kind` and `family` when the candidate is an entry, which the add
    /// rule compares too (see [`crate::deltas::same_topic`]).
    pub entry: Option<Record>,
}

impl Candidate {
    /// A candidate of one text, used as both title and body.
    pub fn text(text: &str) -> Candidate {
        Candidate { title: text.to_string(), body: text.to_string(), entry: None }
    }

    /// A candidate entry (topic-file format): its title and body, and the entry itself.
    pub fn entry(rec: Record) -> Candidate {
        let body = rec.body().unwrap_or("").to_string();
        Candidate { title: evokb_export::index::title_of(&body), body, entry: Some(rec) }
    }
}

/// What the rules call for, given the closest match.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "action", content = "target", rename_all = "snake_case")]
pub enum Delta {
    /// Update this entry in place.
    Update(String),
    /// Confirm this pending queue item.
    Confirm(String),
    /// This rejected item is the same proposal; do not file it again.
    Rejected(String),
    /// Nothing is close enough: add it.
    Add,
}

impl std::fmt::Display for Delta {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Delta::Update(id) => write!(f, "update {id}"),
            Delta::Confirm(vp) => write!(f, "queue confirm {vp}"),
            Delta::Rejected(vp) => write!(f, "none ({vp} was rejected)"),
            Delta::Add => write!(f, "add"),
        }
    }
}

/// One record close to a candidate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Match {
    /// The entry or queue item.
    pub id: String,
    /// `entry` or `queue_item`.
    pub kind: String,
    /// Its title.
    pub title: String,
    /// The entry's `status`, or the queue item's (`pending`, `rejected`, …).
    pub status: String,
    /// A queue item's `type` (D, P, R, C); empty for entries.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub item_type: String,
    /// The rejection reason of a rejected queue item.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Jaccard similarity, 0 to 1, rounded to 4 places.
    pub similarity: f64,
    /// Whether the similarity reaches the threshold of the record's kind (and, for an entry
    /// candidate, the add rule's kind and family gate passes).
    pub same_topic: bool,
    /// What the rules call for if this is the closest same-topic record.
    pub delta: Delta,
}

/// The queue statuses a candidate is compared with: items still open, and rejected ones.
fn compared_queue_status(status: &str) -> bool {
    matches!(status, "pending" | "verified" | "rejected")
}

/// A record's title, as the search index shows it.
pub fn title_of(rec: &Record) -> String {
    match rec.kind {
        Kind::QueueItem => rec.field("title").unwrap_or("").trim().to_string(),
        _ => evokb_export::index::title_of(rec.body().unwrap_or("")),
    }
}

/// A queue item's status, trimmed.
fn status_of(rec: &Record) -> String {
    rec.field("status").unwrap_or("").trim().to_string()
}

struct Tokens {
    title: BTreeSet<String>,
    body: BTreeSet<String>,
}

/// Title-with-title and body-with-body Jaccard, the higher one.
fn score(c: &Tokens, title: &str, body: &str) -> f64 {
    let t = jaccard(&c.title, &token_set(title));
    let b = if body.is_empty() { 0.0 } else { jaccard(&c.body, &token_set(body)) };
    t.max(b)
}

/// The title similarity of two queue proposals, as [`QUEUE_SAME_TOPIC_SIMILARITY`] judges it.
pub fn title_similarity(a: &str, b: &str) -> f64 {
    jaccard(&token_set(a), &token_set(b))
}

/// Ranks the entries and the pending, verified or rejected queue items of `records` by their
/// similarity to `cand`, closest first (ties by id), keeping the `top` closest. Each match
/// carries the delta the rules call for if it is the closest same-topic record.
pub fn rank(records: &[Record], cand: &Candidate, top: usize) -> Vec<Match> {
    let tokens = Tokens { title: token_set(&cand.title), body: token_set(&cand.body) };
    let mut out = Vec::new();
    for rec in records {
        let m = match rec.kind {
            Kind::Entry => {
                let body = rec.body().unwrap_or("");
                let title = title_of(rec);
                let similarity = score(&tokens, &title, body);
                // An entry candidate is held to the add rule itself (kind, family, bodies).
                let same_topic = match &cand.entry {
                    Some(e) => crate::deltas::same_topic(rec, e).is_some(),
                    None => similarity >= SAME_TOPIC_SIMILARITY,
                };
                Match {
                    id: rec.id.clone(),
                    kind: "entry".into(),
                    title,
                    status: rec.field("status").unwrap_or("").trim().to_string(),
                    item_type: String::new(),
                    reason: None,
                    similarity,
                    same_topic,
                    delta: Delta::Update(rec.id.clone()),
                }
            }
            Kind::QueueItem if compared_queue_status(&status_of(rec)) => {
                let status = status_of(rec);
                let title = title_of(rec);
                // Queue items are compared by title: a proposal's topic is its title, and its
                // evidence and delta are provenance that grows with every confirmation.
                let similarity = jaccard(&tokens.title, &token_set(&title));
                let rejected = status == "rejected";
                Match {
                    id: rec.id.clone(),
                    kind: "queue_item".into(),
                    title,
                    item_type: rec.field("type").unwrap_or("").trim().to_string(),
                    reason: rejected
                        .then(|| rec.field("decided_note").unwrap_or("").trim().to_string()),
                    status,
                    similarity,
                    same_topic: similarity >= QUEUE_SAME_TOPIC_SIMILARITY,
                    delta: if rejected {
                        Delta::Rejected(rec.id.clone())
                    } else {
                        Delta::Confirm(rec.id.clone())
                    },
                }
            }
            _ => continue,
        };
        out.push(m);
    }
    for m in &mut out {
        m.similarity = (m.similarity * 10_000.0).round() / 10_000.0;
    }
    out.sort_by(|a, b| b.similarity.total_cmp(&a.similarity).then_with(|| a.id.cmp(&b.id)));
    out.truncate(top);
    out
}

/// The delta for a candidate: that of the closest same-topic match, else [`Delta::Add`].
pub fn suggest(matches: &[Match]) -> Delta {
    matches.iter().find(|m| m.same_topic).map_or(Delta::Add, |m| m.delta.clone())
}

/// The first queue item in `records` a new proposal of type `item_type` titled `title` would
/// duplicate: a pending (or verified) item of the same type, or a rejected item of the same
/// type, at or above [`QUEUE_SAME_TOPIC_SIMILARITY`]; the closest one wins, ties by id.
pub fn duplicate_proposal<'a>(
    records: &'a [Record],
    item_type: &str,
    title: &str,
) -> Option<(&'a Record, f64)> {
    let ty = |s: &str| s.trim().chars().next();
    let cand = token_set(title);
    records
        .iter()
        .filter(|r| r.kind == Kind::QueueItem && compared_queue_status(&status_of(r)))
        .filter(|r| ty(r.field("type").unwrap_or("")) == ty(item_type))
        .map(|r| (r, jaccard(&cand, &token_set(&title_of(r)))))
        .filter(|(_, s)| *s >= QUEUE_SAME_TOPIC_SIMILARITY)
        .max_by(|a, b| a.1.total_cmp(&b.1).then_with(|| b.0.id.cmp(&a.0.id)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use evokb_store::Segment;

    fn item(id: &str, ty: &str, title: &str, status: &str) -> Record {
        let f = |k: &str, v: &str| Segment::Field { key: k.into(), value: v.into() };
        Record {
            kind: Kind::QueueItem,
            id: id.into(),
            file: "queue.md".into(),
            segments: vec![f("type", ty), f("title", title), f("status", status)],
        }
    }

    #[test]
    fn a_pending_item_with_the_same_title_is_confirmed_and_a_rejected_one_is_not_refiled() {
        let recs = vec![
            item("VP-1", "P", "UB 膨胀 multi-buffer 双缓冲", "pending"),
            item("VP-2", "D", "完全不同的 标题", "rejected"),
            item("VP-3", "P", "UB 膨胀 multi-buffer 双缓冲", "merged"),
        ];
        let m = rank(&recs, &Candidate::text("UB 膨胀 multi-buffer 双缓冲"), 5);
        assert_eq!(m[0].id, "VP-1");
        assert_eq!(suggest(&m), Delta::Confirm("VP-1".into()));
        assert!(m.iter().all(|m| m.id != "VP-3"), "merged items are not compared");
        let m = rank(&recs, &Candidate::text("完全不同的 标题"), 5);
        assert_eq!(suggest(&m), Delta::Rejected("VP-2".into()));
        assert_eq!(m[0].reason.as_deref(), Some(""));
        assert_eq!(suggest(&rank(&recs, &Candidate::text("nothing alike"), 5)), Delta::Add);
        assert_eq!(
            duplicate_proposal(&recs, "P", "UB 膨胀 multi-buffer 双缓冲").map(|x| x.0.id.as_str()),
            Some("VP-1")
        );
        assert!(duplicate_proposal(&recs, "D", "UB 膨胀 multi-buffer 双缓冲").is_none());
    }
}
