//! The record model: what a knowledge-base record is, independent of any file format.
//!
//! A record is a *template*: a sequence of [`Segment`]s whose concatenation is the record's
//! exact text. Literal segments hold whatever the source had between fields (delimiters,
//! spacing, line endings); field segments hold values that can be read and changed one at a
//! time. Changing a field rewrites only that field's bytes, which is what keeps a re-rendered
//! file's diff confined to the record's own lines.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// Declares [`Kind`] from one line per kind: the variant, its stable tag and what it is. Every
/// other list of kinds (`Kind::ALL`, tag lookup) is generated from these lines, so adding a
/// kind here is the only edit the store needs; the compiler then points at the one
/// exhaustive match in `evokb-export`'s kind table that must describe it.
macro_rules! kinds {
    ($( $(#[$doc:meta])* $variant:ident = $tag:literal, )+) => {
        /// The kinds of record the store holds. The tag strings are part of the key derivation
        /// and of the on-disk format: never rename one.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        pub enum Kind {
            $( $(#[$doc])* $variant, )+
        }

        impl Kind {
            /// Every kind, in declaration (and tag) order.
            pub const ALL: &'static [Kind] = &[$(Kind::$variant),+];

            /// The stable tag used in keys, digests and JSON output.
            pub fn tag(self) -> &'static str {
                match self {
                    $(Kind::$variant => $tag,)+
                }
            }
        }
    };
}

kinds! {
    /// A front-matter entry of a topic file (patterns, traps, cases, constants, ALG entries).
    Entry = "entry",
    /// One row of an `INDEX.md` routing table.
    IndexRow = "index_row",
    /// A `## BP_…：…` bottleneck pattern.
    Bottleneck = "bottleneck",
    /// A `## VP-YYYY-NNNN` review-queue item.
    QueueItem = "queue_item",
    /// A `### CG-YYYY-NNNN` capability gap with its yaml block.
    Gap = "gap",
    /// A row of the stats distillation log (§1).
    DistillRow = "distill_row",
    /// A row of the stats hit table (§2).
    HitRow = "hit_row",
    /// A row of the stats metrics table (§3).
    MetricRow = "metric_row",
    /// A row of the stats change log (§4).
    ChangeRow = "change_row",
    /// One line of `kb_search_log.jsonl`.
    SearchEvent = "search_event",
    /// A repro script: its path and content hash.
    Repro = "repro",
}

impl Kind {
    /// Parses a tag produced by [`Kind::tag`].
    pub fn from_tag(tag: &str) -> Option<Kind> {
        Kind::ALL.iter().copied().find(|k| k.tag() == tag)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.tag())
    }
}

/// The blake3 hash of a record's identity (kind and natural id): the record's primary key.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct CaseHash(pub [u8; 32]);

impl CaseHash {
    /// Derives the key of the record of `kind` whose natural id is `id`.
    pub fn of(kind: Kind, id: &str) -> CaseHash {
        let mut hasher = blake3::Hasher::new();
        hasher.update(b"evokb.case.v1\0");
        hasher.update(kind.tag().as_bytes());
        hasher.update(b"\0");
        hasher.update(id.as_bytes());
        CaseHash(*hasher.finalize().as_bytes())
    }

    /// Lowercase hex, as printed by `get` and `verify`.
    pub fn to_hex(&self) -> String {
        hex(&self.0)
    }
}

impl fmt::Debug for CaseHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CaseHash({})", &self.to_hex()[..12])
    }
}

/// Formats bytes as lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(DIGITS[usize::from(b >> 4)] as char);
        out.push(DIGITS[usize::from(b & 0x0f)] as char);
    }
    out
}

/// The text of a segment, held inline when it is 24 bytes or shorter: then it takes no
/// allocation of its own. Most literals and field values are that short (`status: `,
/// `verified`, a line ending), and an import holds every parsed segment at once: at 100k
/// entries some 2M of them, each a heap block of its own as a `String`. Longer text (a body)
/// is on the heap, as a `String`'s. It encodes as a string, so stored bytes do not depend on
/// it.
pub type SegmentText = compact_str::CompactString;

/// One piece of a record's text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Segment {
    /// Text kept verbatim: delimiters, spacing, line endings, notes.
    Lit(SegmentText),
    /// A named value. Keys are unique within a record only by convention: lookups take the
    /// first occurrence, and the importer warns about repeats.
    Field {
        /// The field name as written in the source (`status`, `origin_task`, a table column).
        /// Shared: a knowledge base names the same few keys in every record, and the parsers
        /// hand each name out once per thread (at 100k entries, ~1.4M field keys), where an
        /// owned string per field was an allocation and 8 more bytes in every segment. Decoding
        /// shares them the same way ([`field_key`]).
        key: FieldKey,
        /// The value exactly as written, without the line ending that follows it.
        value: SegmentText,
    },
    /// The free-text body of a record (markdown after the front-matter, a section's text).
    Body(SegmentText),
}

/// How many distinct field keys each thread keeps to hand out again. A knowledge base uses a
/// few dozen (front-matter keys, table columns, queue fields); past this many, a key is
/// allocated for its field alone, so that no input makes the linear search long.
const SHARED_KEYS_MAX: usize = 64;

thread_local! {
    /// The field keys this thread has handed out, in order of first use.
    static SHARED_KEYS: std::cell::RefCell<Vec<FieldKey>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// The field key `name`, as a [`Segment::Field`] holds it: the same allocation for every field
/// of that name this thread parses or decodes (an import of 100k entries names ~1.4M keys, of a
/// few dozen names).
pub fn field_key(name: &str) -> FieldKey {
    SHARED_KEYS.with(|keys| {
        let mut keys = keys.borrow_mut();
        if let Some(k) = keys.iter().find(|k| &***k == name) {
            return k.clone();
        }
        let k = FieldKey(Arc::new(name.into()));
        if keys.len() < SHARED_KEYS_MAX {
            keys.push(k.clone());
        }
        k
    })
}

/// A field's name as a [`Segment::Field`] holds it: one allocation shared by every field of
/// that name ([`field_key`]), behind a pointer of one word. An `Arc<str>` is two words, and
/// made a segment 40 bytes where this makes it 32 (an import holds every parsed segment at
/// once: millions at 100k entries). Compares, hashes, prints and serialises as its text.
#[derive(Clone)]
pub struct FieldKey(Arc<Box<str>>);

impl std::ops::Deref for FieldKey {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl PartialEq for FieldKey {
    fn eq(&self, other: &FieldKey) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || **self == **other
    }
}

impl Eq for FieldKey {}

impl std::hash::Hash for FieldKey {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        (**self).hash(h);
    }
}

impl fmt::Debug for FieldKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl fmt::Display for FieldKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self)
    }
}

impl From<&str> for FieldKey {
    fn from(name: &str) -> FieldKey {
        field_key(name)
    }
}

impl Serialize for FieldKey {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self)
    }
}

impl<'de> Deserialize<'de> for FieldKey {
    /// Through [`field_key`], without an allocation for a key seen before.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<FieldKey, D::Error> {
        struct KeyVisitor;
        impl serde::de::Visitor<'_> for KeyVisitor {
            type Value = FieldKey;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a field name")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<FieldKey, E> {
                Ok(field_key(v))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

/// Decodes a shared string in one allocation (serde's own `Arc<str>` goes through a
/// `Box<str>` and copies it).
fn deserialize_arc_str<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Arc<str>, D::Error> {
    struct ArcStrVisitor;
    impl serde::de::Visitor<'_> for ArcStrVisitor {
        type Value = Arc<str>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a string")
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Arc<str>, E> {
            Ok(Arc::from(v))
        }
    }
    d.deserialize_str(ArcStrVisitor)
}

/// A record: its identity, the file it renders into, and its text as segments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// What kind of record this is.
    pub kind: Kind,
    /// The natural id: an entry id, `VP-2026-0003`, `BP_ub_pressure`, a row key.
    pub id: String,
    /// The repository-relative path (with `/` separators) of the file holding the record.
    /// Shared by the records a parse of one file gives (at 100k entries, ~230k records in
    /// 5,000 files held one copy each of their path).
    #[serde(deserialize_with = "deserialize_arc_str")]
    pub file: Arc<str>,
    /// The record's text.
    pub segments: Vec<Segment>,
}

impl Record {
    /// The primary key of this record.
    pub fn case_hash(&self) -> CaseHash {
        CaseHash::of(self.kind, &self.id)
    }

    /// The record's exact text: the concatenation of its segments.
    pub fn text(&self) -> String {
        let mut out = String::new();
        self.write_text(&mut out);
        out
    }

    /// Appends the record's exact text to `out`.
    pub fn write_text(&self, out: &mut String) {
        for seg in &self.segments {
            match seg {
                Segment::Lit(s) | Segment::Body(s) => out.push_str(s),
                Segment::Field { value, .. } => out.push_str(value),
            }
        }
    }

    /// The blake3 hash of the record's text, used to tell whether a file or the store changed
    /// the record since the two were last in sync.
    pub fn text_hash(&self) -> [u8; 32] {
        *blake3::hash(self.text().as_bytes()).as_bytes()
    }

    /// The first value of field `key`, if the record has one.
    pub fn field(&self, key: &str) -> Option<&str> {
        self.segments.iter().find_map(|seg| match seg {
            Segment::Field { key: k, value } if **k == *key => Some(value.as_str()),
            _ => None,
        })
    }

    /// The body text, if the record has one.
    pub fn body(&self) -> Option<&str> {
        self.segments.iter().find_map(|seg| match seg {
            Segment::Body(b) => Some(b.as_str()),
            _ => None,
        })
    }

    /// All fields in source order, as `(key, value)` pairs.
    pub fn fields(&self) -> impl Iterator<Item = (&str, &str)> {
        self.segments.iter().filter_map(|seg| match seg {
            Segment::Field { key, value } => Some((&**key, value.as_str())),
            _ => None,
        })
    }

    /// Replaces the first value of field `key`. Returns false when the record has no such field.
    pub fn set_field(&mut self, key: &str, new_value: &str) -> bool {
        for seg in &mut self.segments {
            if let Segment::Field { key: k, value } = seg {
                if **k == *key {
                    // Cleared and refilled, so a value on the heap keeps its buffer.
                    value.clear();
                    value.push_str(new_value);
                    return true;
                }
            }
        }
        false
    }

    /// Replaces the body. Returns false when the record has no body.
    pub fn set_body(&mut self, new_body: &str) -> bool {
        for seg in &mut self.segments {
            if let Segment::Body(b) = seg {
                b.clear();
                b.push_str(new_body);
                return true;
            }
        }
        false
    }
}

/// One item of a file's layout: prose kept verbatim, or a reference to a record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum LayoutItem {
    /// Text that belongs to no record: preambles, section headings, notes, separators.
    Prose(String),
    /// The record with this key renders here.
    Record(CaseHash),
}

/// How a managed file is put together from prose and records.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileLayout {
    /// The repository-relative path, with `/` separators.
    pub path: String,
    /// The file's items in order.
    pub items: Vec<LayoutItem>,
}

impl FileLayout {
    /// The keys of the records the file holds, in file order.
    pub fn record_keys(&self) -> impl Iterator<Item = CaseHash> + '_ {
        self.items.iter().filter_map(|item| match item {
            LayoutItem::Record(key) => Some(*key),
            LayoutItem::Prose(_) => None,
        })
    }
}

/// What the store remembers about the last time a record or file matched its markdown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyncMark {
    /// blake3 of the text as last imported or rendered in place.
    pub text_hash: [u8; 32],
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn a_segment_is_four_words() {
        // An import holds every parsed segment at once; a field key of two words made each 40.
        assert_eq!(std::mem::size_of::<Segment>(), 32);
    }

    /// A segment as plain strings: what [`Segment`] encoded as before its texts and keys had
    /// types of their own.
    #[derive(Serialize)]
    enum Plain<'a> {
        Lit(&'a str),
        Field { key: &'a str, value: &'a str },
        Body(&'a str),
    }

    /// Segment text, inline or on the heap, encodes as the plain strings it replaced did, and
    /// decodes back: stored bytes do not depend on how a text is held.
    #[test]
    fn segment_text_encodes_as_a_string_inline_or_not() -> Result<(), String> {
        let long = "a value well past the twenty-four bytes held inline: 流水线 ✓";
        for text in ["", "verified", "exactly twenty-four byte", long] {
            let cases = [
                (Segment::Lit(text.into()), Plain::Lit(text)),
                (
                    Segment::Field { key: field_key("status"), value: text.into() },
                    Plain::Field { key: "status", value: text },
                ),
                (Segment::Body(text.into()), Plain::Body(text)),
            ];
            for (seg, plain) in cases {
                let bytes = crate::codec::encode(&seg);
                assert_eq!(bytes, crate::codec::encode(&plain), "{seg:?}");
                let back: Segment = crate::codec::decode(&bytes)?;
                assert_eq!(back, seg);
            }
        }
        assert!(!SegmentText::from("exactly twenty-four byte").is_heap_allocated());
        assert!(SegmentText::from(long).is_heap_allocated());
        Ok(())
    }

    #[test]
    fn a_field_key_is_shared_and_encodes_as_its_name() -> Result<(), String> {
        let (a, b) = (field_key("status"), field_key("status"));
        assert!(Arc::ptr_eq(&a.0, &b.0), "one allocation per name and thread");
        assert_eq!(a, FieldKey(Arc::new("status".into())), "compared by name");
        assert_eq!(format!("{a} {a:?}"), "status \"status\"");
        let seg = Segment::Field { key: a, value: "verified".into() };
        let bytes = crate::codec::encode(&seg);
        // The same bytes as a segment whose key is a plain string.
        assert_eq!(bytes, crate::codec::encode(&Plain::Field { key: "status", value: "verified" }));
        let back: Segment = crate::codec::decode(&bytes)?;
        assert_eq!(back, seg);
        Ok(())
    }
}
