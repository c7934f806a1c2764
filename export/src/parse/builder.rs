//! Building blocks shared by the parsers: a segment builder that merges adjacent literal text,
//! and a file builder that interleaves prose and records.

use std::sync::Arc;

use evokb_store::{field_key, FileLayout, LayoutItem, Record, Segment, SegmentText};

/// A record found in a file, with the line where it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedRecord {
    /// The record.
    pub record: Record,
    /// The 1-based line of its first byte.
    pub line: usize,
}

/// A parsed file: its layout and its records in file order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedFile {
    /// Prose and record references, in order.
    pub layout: FileLayout,
    /// The records, in file order.
    pub records: Vec<ParsedRecord>,
}

impl ParsedFile {
    /// The length in bytes of the text this file renders to.
    pub fn text_len(&self) -> usize {
        let mut n = 0;
        let mut recs = self.records.iter();
        for item in &self.layout.items {
            match item {
                LayoutItem::Prose(p) => n += p.len(),
                LayoutItem::Record(_) => n += recs.next().map_or(0, |r| r.record.text().len()),
            }
        }
        n
    }

    /// The text this file renders to: its prose and records concatenated, which is the parsed
    /// text byte for byte.
    pub fn text(&self) -> String {
        let mut out = String::with_capacity(self.text_len());
        let mut recs = self.records.iter();
        for item in &self.layout.items {
            match item {
                LayoutItem::Prose(p) => out.push_str(p),
                LayoutItem::Record(_) => {
                    if let Some(r) = recs.next() {
                        r.record.write_text(&mut out);
                    }
                }
            }
        }
        out
    }
}

/// Accumulates a file's items.
pub struct FileBuilder {
    /// The file's path, as its records hold it: one allocation they all share.
    file: Arc<str>,
    items: Vec<LayoutItem>,
    records: Vec<ParsedRecord>,
    prose: String,
}

impl FileBuilder {
    /// Starts an empty file at `path`.
    pub fn new(path: &str) -> FileBuilder {
        FileBuilder {
            file: path.into(),
            items: Vec::new(),
            records: Vec::new(),
            prose: String::new(),
        }
    }

    /// The file's path.
    pub fn path(&self) -> &str {
        &self.file
    }

    /// The path for a record of this file ([`Record::file`]), shared with the file's others.
    pub fn file(&self) -> Arc<str> {
        Arc::clone(&self.file)
    }

    /// Appends prose.
    pub fn prose(&mut self, text: &str) {
        self.prose.push_str(text);
    }

    /// Appends a record that starts at `line`.
    pub fn record(&mut self, record: Record, line: usize) {
        self.flush_prose();
        self.items.push(LayoutItem::Record(record.case_hash()));
        self.records.push(ParsedRecord { record, line });
    }

    fn flush_prose(&mut self) {
        if !self.prose.is_empty() {
            let prose = std::mem::take(&mut self.prose);
            // Grown by appending: kept in exactly its length (see [`SegBuilder::finish`]).
            let prose =
                if prose.capacity() > prose.len() { prose.as_str().to_owned() } else { prose };
            self.items.push(LayoutItem::Prose(prose));
        }
    }

    /// Finishes the file, its layout and records held in exactly the memory they need (an
    /// import holds every parsed file at once: see [`SegBuilder::finish`]).
    pub fn finish(mut self) -> ParsedFile {
        self.flush_prose();
        ParsedFile {
            layout: FileLayout { path: self.file.to_string(), items: exact(self.items) },
            records: exact(self.records),
        }
    }
}

/// `v` moved into a vector of exactly its length.
fn exact<T>(v: Vec<T>) -> Vec<T> {
    if v.capacity() == v.len() {
        return v;
    }
    let mut out = Vec::with_capacity(v.len());
    out.extend(v);
    out
}

/// The smallest buffer a [`SegmentText`] puts on the heap (compact_str 0.9: its inline size and
/// a word): a copy of a literal no longer than this would be no smaller.
const HEAP_TEXT_MIN: usize = std::mem::size_of::<SegmentText>() + std::mem::size_of::<usize>();

/// Accumulates a record's segments, merging adjacent literal text.
#[derive(Default)]
pub struct SegBuilder {
    segs: Vec<Segment>,
}

impl SegBuilder {
    /// Appends literal text.
    pub fn lit(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        if let Some(Segment::Lit(last)) = self.segs.last_mut() {
            last.push_str(text);
        } else {
            self.segs.push(Segment::Lit(text.into()));
        }
    }

    /// Appends a field.
    pub fn field(&mut self, key: &str, value: &str) {
        self.segs.push(Segment::Field { key: field_key(key), value: value.into() });
    }

    /// Appends a `key: value` line and its continuation lines as one field: `prefix`, the key
    /// and separator as literal text, the value from line `first` through the continuation
    /// lines up to `last` (joined by their own line endings), then `last`'s line ending.
    pub fn keyed_field(
        &mut self,
        prefix: &str,
        kl: &super::keyline::KeyLine<'_>,
        lines: &[crate::text::Line<'_>],
        first: usize,
        last: usize,
    ) {
        self.lit(prefix);
        self.lit(kl.key);
        self.lit(kl.sep);
        let mut value = kl.value.to_string();
        for k in first + 1..=last {
            value.push_str(lines[k - 1].eol);
            value.push_str(lines[k].content);
        }
        self.field(kl.key, &value);
        self.lit(lines[last].eol);
    }

    /// Appends a body.
    pub fn body(&mut self, text: &str) {
        self.segs.push(Segment::Body(text.into()));
    }

    /// The segments, each held in exactly the memory it needs.
    ///
    /// An import holds every parsed record until it has written them (230k at 100k entries).
    /// A vector grown by doubling carries up to half its size unused, a literal grown by
    /// appending up to a third, and shrinking them in place does not help: mimalloc keeps a block that is
    /// still at least half used. So the segments move into a vector of exactly their number,
    /// and a literal on the heap with spare room is copied into one of exactly its length (a
    /// short one is held inline: see [`SegmentText`]).
    pub fn finish(self) -> Vec<Segment> {
        let mut out = Vec::with_capacity(self.segs.len());
        out.extend(self.segs.into_iter().map(|seg| match seg {
            Segment::Lit(s)
                if s.is_heap_allocated() && s.capacity() > s.len().max(HEAP_TEXT_MIN) =>
            {
                Segment::Lit(SegmentText::from(s.as_str()))
            }
            other => other,
        }));
        out
    }
}

/// Puts segments into the form the parsers produce: adjacent literals merged, empty literals
/// dropped. A mutated record must be normalised, or re-importing its file would not give it
/// back identically.
pub fn normalize(segments: Vec<Segment>) -> Vec<Segment> {
    let mut b = SegBuilder::default();
    for seg in segments {
        match seg {
            Segment::Lit(s) => b.lit(&s),
            other => b.segs.push(other),
        }
    }
    b.finish()
}
