//! Full-text search: a tantivy index in `.evokb/search/` over entries, bottleneck patterns,
//! capability gaps and queue items.
//!
//! The index is kept in step with the records through a *search generation*, stored in redb
//! and as the tantivy commit payload, and a table of pending keys in redb (`store::db`). A
//! write transaction that changes a few searchable records puts their keys in the pending
//! table, atomically with the records, and leaves tantivy alone; one that changes many
//! replaces their documents (and the pending ones) at commit, or rebuilds the index. The next
//! reader of the index replaces the pending documents first, under the write lock; a reader
//! that finds the index at neither the records' generation nor the pending keys' base, or
//! cannot open it, rebuilds it and says so.
//!
//! Scoring is tantivy's BM25 over one text field holding id, title and body, tokenised by
//! [`tokenize::CjkBigramTokenizer`]; each distinct query token is a `Should` term query, and
//! facet filters are `Must` clauses over raw keyword fields, as are id prefixes (term ranges
//! over the raw id, scored 0 so they leave BM25 as it is). Ties are broken by id so results
//! are deterministic. The same query is counted as it is ranked, so a search also says how
//! many records matched in all.
//!
//! The index stores nothing of a document but its record key (32 bytes): the title, path,
//! facets and snippet of a hit come from the record itself, through a resolver the store
//! gives [`SearchIndex::search`]. Storing them made tantivy's document store three quarters of
//! the index (78 of 104 MB at 100k entries), all of it copies of what the records table holds;
//! a search reads the few records it returns instead. Term positions are not kept either: no
//! query is a phrase query, and BM25 needs only term frequencies and field norms.

pub mod tokenize;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use std::ops::Bound;

use tantivy::collector::{Count, TopDocs};
use tantivy::directory::MmapDirectory;
use tantivy::index::SegmentMeta;
use tantivy::merge_policy::{LogMergePolicy, MergeCandidate, MergePolicy};
use tantivy::query::{BooleanQuery, ConstScoreQuery, Occur, Query, RangeQuery, TermQuery};
use tantivy::schema::{
    Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions, Value, INDEXED, STORED,
    STRING,
};
use tantivy::tokenizer::{TextAnalyzer, TokenStream};
use tantivy::{Index, IndexReader, ReloadPolicy, TantivyDocument, Term};

use crate::record::CaseHash;
use tokenize::{CjkBigramTokenizer, TOKENIZER_NAME};

/// Why the search index could not be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SearchError {
    /// tantivy failed.
    #[error("search index error in '{}': {source}", dir.display())]
    Index {
        /// The index directory.
        dir: PathBuf,
        /// What tantivy said.
        source: tantivy::TantivyError,
    },
    /// A hit names a record the store does not hold: the index is not the records' index.
    #[error("the search index in '{}' names record {key}, which the store does not hold", dir.display())]
    UnknownRecord {
        /// The index directory.
        dir: PathBuf,
        /// The record key, in hex.
        key: String,
    },
    /// The store failed to give a hit's record.
    #[error("a search hit's record cannot be read: {detail}")]
    Resolve {
        /// What the store said.
        detail: String,
    },
    /// The index directory could not be created or cleared.
    #[error("cannot prepare the search index directory '{}': {source}", dir.display())]
    Io {
        /// The index directory.
        dir: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
}

/// The longest token, in bytes, the index holds: tantivy drops longer ones when it indexes a
/// document, so a search for one finds nothing.
pub const MAX_INDEXED_TOKEN_BYTES: usize = tantivy::tokenizer::MAX_TOKEN_LEN;

/// The facets a search can filter by, as indexed keyword fields.
pub const FILTER_FACETS: [&str; 6] = ["family", "apis", "dtype", "device", "kind", "status"];

/// A document of the search index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchDoc {
    /// The record's key.
    pub key: CaseHash,
    /// The record's id (`BP_ub_pressure`, not a title fragment).
    pub id: String,
    /// Where it comes from: `pattern-library`, `bottleneck-patterns`, `capability-gaps`,
    /// `queue`, `algorithm-candidates`.
    pub source: String,
    /// A one-line title.
    pub title: String,
    /// The file.
    pub path: String,
    /// The text searched and quoted in snippets.
    pub body: String,
    /// The facets as written (front-matter strings), for output.
    pub facets: BTreeMap<String, String>,
    /// The values each filter facet matches, as `(facet, lowercased value)`: a list facet
    /// written `[a, b]` gives two. Facets outside [`FILTER_FACETS`] are ignored.
    pub filters: Vec<(String, String)>,
}

impl SearchDoc {
    /// The text the index tokenizes for this document: id, title and body.
    fn indexed_text(&self) -> String {
        format!("{} {} {}", self.id, self.title, self.body)
    }

    /// How many of the distinct `terms` the index would hold for this document: its
    /// [`Self::indexed_text`] through the index's own tokenizer. A term longer than
    /// [`MAX_INDEXED_TOKEN_BYTES`] is counted here although the index drops it; callers of
    /// [`SearchIndex::sharing`] leave such terms out.
    pub fn terms_held(&self, terms: &[String]) -> usize {
        let mut a = analyzer();
        let text = self.indexed_text();
        let mut ts = a.token_stream(&text);
        let mut held = BTreeSet::new();
        while ts.advance() {
            let t = &ts.token().text;
            if terms.iter().any(|x| x == t) {
                held.insert(t.clone());
            }
        }
        held.len()
    }

    /// Whether the document passes every facet filter as [`SearchIndex::sharing`] and
    /// [`SearchIndex::search`] apply them: values ORed within a facet, compared lowercased;
    /// facets ANDed; an empty value list, or a facet outside [`FILTER_FACETS`], filters nothing.
    pub fn matches_facets(&self, facets: &BTreeMap<String, Vec<String>>) -> bool {
        facets.iter().all(|(facet, values)| {
            !FILTER_FACETS.contains(&facet.as_str())
                || values.is_empty()
                || values.iter().any(|v| {
                    let v = v.to_lowercase();
                    self.filters.iter().any(|(f, x)| f == facet && *x == v)
                })
        })
    }
}

#[derive(Debug, Clone, Copy)]
struct Fields {
    /// The record key's 32 bytes: indexed, so that a changed record's document is deleted,
    /// and stored, all the document store holds.
    key: Field,
    id: Field,
    text: Field,
    filters: [Field; 6],
}

/// The field whose presence tells this layout from older ones (which stored whole documents).
const LAYOUT_FIELD: &str = "key_bytes";

fn schema() -> (Schema, Fields) {
    let text = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(TOKENIZER_NAME)
            .set_index_option(IndexRecordOption::WithFreqs),
    );
    let mut sb = Schema::builder();
    let fields = Fields {
        key: sb.add_bytes_field(LAYOUT_FIELD, INDEXED | STORED),
        id: sb.add_text_field("id", STRING),
        text: sb.add_text_field("text", text),
        filters: FILTER_FACETS.map(|f| sb.add_text_field(&format!("f_{f}"), STRING)),
    };
    (sb.build(), fields)
}

/// A search request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchQuery {
    /// The free text.
    pub text: String,
    /// Facet filters: values ORed within a facet, facets ANDed.
    pub facets: BTreeMap<String, Vec<String>>,
    /// Id prefixes, ORed.
    pub id_prefixes: Vec<String>,
    /// How many results.
    pub top: usize,
}

/// One result.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchHit {
    /// The record id.
    pub id: String,
    /// Where it comes from.
    pub source: String,
    /// A one-line title.
    pub title: String,
    /// The file.
    pub path: String,
    /// Facets as written.
    pub facets: BTreeMap<String, String>,
    /// BM25 score.
    pub score: f32,
    /// The first body line holding a query token (else the first line), cut to 160 chars.
    pub snippet: String,
}

/// What a search found: the best hits, and how many records matched the query in all.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchResults {
    /// At most [`SearchQuery::top`] hits, best first.
    pub hits: Vec<SearchHit>,
    /// The records matching the query and its filters, of which `hits` are the best.
    pub total: usize,
}

/// The memory budget of a writer that replaces a few documents: tantivy's minimum (15 MB; it
/// refuses less), which it flushes a segment at long before a few documents fill it.
const SMALL_WRITER_BYTES: usize = 15_000_000;

/// The most live documents a segment may hold and still be merged with others (see
/// [`BulkSegmentsKept`]).
const MERGED_SEGMENT_MAX_DOCS: usize = 10_000;

/// The merge policy of the search index: tantivy's log merge policy, except that a segment of
/// more than [`MERGED_SEGMENT_MAX_DOCS`] live documents is not merged with others again. The
/// segments a bulk build flushes (~37k documents each under its 32 MB budget, for the
/// generated corpus) stay as they are, and only the small segments of later writes are merged,
/// with each other; a bulk segment of which more than half the documents are deleted is
/// rewritten alone, without them, so replaced documents do not pile up in it.
///
/// With the default policy a first import of 300k entries, whose build flushed eight
/// segments, merged them into one before its commit, and a later write that brought a level to
/// eight segments rewrote them all: the merges made the import's time grow as n log n.
/// Measured at 300k (3 alternated runs): the import 32.4 -> 29.8 s; a search reading eight
/// segments instead of one 10.4 -> 11.3 ms, with the same output byte for byte on that fresh
/// index. (After edits, BM25 counts deleted documents until a merge drops them, under either
/// policy, so scores there depend on which merges happened.)
#[derive(Debug)]
struct BulkSegmentsKept {
    log: LogMergePolicy,
}

impl BulkSegmentsKept {
    fn new() -> BulkSegmentsKept {
        let mut log = LogMergePolicy::default();
        log.set_max_docs_before_merge(MERGED_SEGMENT_MAX_DOCS);
        BulkSegmentsKept { log }
    }
}

impl MergePolicy for BulkSegmentsKept {
    fn compute_merge_candidates(&self, segments: &[SegmentMeta]) -> Vec<MergeCandidate> {
        // The log policy considers only segments of at most the bound's live documents, so a
        // segment is never in two candidates.
        let mut out = self.log.compute_merge_candidates(segments);
        out.extend(
            segments
                .iter()
                .filter(|s| {
                    s.num_docs() as usize > MERGED_SEGMENT_MAX_DOCS
                        && u64::from(s.num_deleted_docs()) * 2 > u64::from(s.max_doc())
                })
                .map(|s| MergeCandidate(vec![s.id()])),
        );
        out
    }
}

/// An open search index.
pub struct SearchIndex {
    index: Index,
    fields: Fields,
    dir: PathBuf,
    /// A reader over the segments of the last commit, opened with the index so that a missing
    /// or truncated segment file is found at open rather than by the first query that needs it.
    reader: Option<IndexReader>,
}

fn analyzer() -> TextAnalyzer {
    TextAnalyzer::from(CjkBigramTokenizer::default())
}

impl SearchIndex {
    /// Opens the index in `dir`, if there is one, with a reader over every segment: each
    /// segment file must be present and end in a valid tantivy footer.
    pub fn open(dir: &Path) -> Result<SearchIndex, SearchError> {
        let err = |source| SearchError::Index { dir: dir.into(), source };
        let mmap = MmapDirectory::open(dir).map_err(|e| err(e.into()))?;
        let index = Index::open(mmap).map_err(err)?;
        let (_, fields) = schema();
        if index.schema().get_field(LAYOUT_FIELD).is_err() {
            return Err(err(tantivy::TantivyError::SchemaError("an older index layout".into())));
        }
        index.tokenizers().register(TOKENIZER_NAME, analyzer());
        let reader = open_reader(&index).map_err(err)?;
        Ok(SearchIndex { index, fields, dir: dir.into(), reader: Some(reader) })
    }

    /// The search generation of the index's last commit.
    pub fn generation(&self) -> Option<u64> {
        self.index.load_metas().ok()?.payload?.parse().ok()
    }

    /// Replaces the whole index in `dir` with `docs`, at generation `gen`. The documents are
    /// taken one at a time, so a caller can make them as they are indexed instead of holding
    /// every one. Returns the index and how many documents it holds.
    pub fn rebuild(
        dir: &Path,
        docs: impl IntoIterator<Item = SearchDoc>,
        gen: u64,
    ) -> Result<(SearchIndex, usize), SearchError> {
        let io = |source| SearchError::Io { dir: dir.into(), source };
        if dir.exists() {
            std::fs::remove_dir_all(dir).map_err(io)?;
        }
        std::fs::create_dir_all(dir).map_err(io)?;
        let err = |source| SearchError::Index { dir: dir.into(), source };
        let (schema, fields) = schema();
        let mmap = MmapDirectory::open(dir).map_err(|e| err(e.into()))?;
        let index = Index::create(mmap, schema, Default::default()).map_err(err)?;
        index.tokenizers().register(TOKENIZER_NAME, analyzer());
        let mut idx = SearchIndex { index, fields, dir: dir.into(), reader: None };
        // A new index holds no document to replace.
        let n = idx.write(&[], docs, gen, false)?;
        idx.reader = Some(open_reader(&idx.index).map_err(err)?);
        Ok((idx, n))
    }

    /// Removes the documents of `removed` keys, replaces or adds `added` ones, and commits at
    /// generation `gen`. Returns how many documents were added.
    pub fn apply(
        &self,
        removed: &[CaseHash],
        added: impl IntoIterator<Item = SearchDoc>,
        gen: u64,
    ) -> Result<usize, SearchError> {
        self.write(removed, added, gen, true)
    }

    fn write(
        &self,
        removed: &[CaseHash],
        added: impl IntoIterator<Item = SearchDoc>,
        gen: u64,
        replace: bool,
    ) -> Result<usize, SearchError> {
        let err = |source| SearchError::Index { dir: self.dir.clone(), source };
        // The writer's term table is sized from its memory budget and zeroed up front: at 32 MB
        // that is most of what a one-document change (`set status`, a queue confirmation)
        // costs. A replacement of a few documents takes tantivy's smallest budget.
        let budget = if replace { SMALL_WRITER_BYTES } else { 32_000_000 };
        let mut writer =
            self.index.writer_with_num_threads::<TantivyDocument>(1, budget).map_err(err)?;
        writer.set_merge_policy(Box::new(BulkSegmentsKept::new()));
        let f = self.fields;
        for key in removed {
            writer.delete_term(Term::from_field_bytes(f.key, &key.0));
        }
        let mut n = 0;
        for d in added {
            n += 1;
            if replace {
                // The old document goes first (a delete applies to earlier documents only).
                writer.delete_term(Term::from_field_bytes(f.key, &d.key.0));
            }
            let mut doc = TantivyDocument::default();
            doc.add_bytes(f.key, &d.key.0[..]);
            doc.add_text(f.id, &d.id);
            doc.add_text(f.text, d.indexed_text());
            for (facet, value) in &d.filters {
                if let Some(i) = FILTER_FACETS.iter().position(|x| x == facet) {
                    doc.add_text(f.filters[i], value);
                }
            }
            writer.add_document(doc).map_err(err)?;
        }
        let mut prepared = writer.prepare_commit().map_err(err)?;
        prepared.set_payload(&gen.to_string());
        prepared.commit().map_err(err)?;
        writer.wait_merging_threads().map_err(err)?;
        Ok(n)
    }

    /// The distinct tokens of a query, in order of first appearance.
    pub fn query_tokens(text: &str) -> Vec<String> {
        let mut a = analyzer();
        let mut ts = a.token_stream(text);
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        while ts.advance() {
            let t = ts.token().text.clone();
            if seen.insert(t.clone()) {
                out.push(t);
            }
        }
        out
    }

    /// Runs a search. `resolve` gives the search document of a hit's record (`Ok(None)` when
    /// the store holds no such record, which makes the search fail: the index is not the
    /// records').
    pub fn search(
        &self,
        q: &SearchQuery,
        resolve: &dyn Fn(&CaseHash) -> Result<Option<SearchDoc>, String>,
    ) -> Result<SearchResults, SearchError> {
        let err = |source| SearchError::Index { dir: self.dir.clone(), source };
        let f = self.fields;
        let tokens = Self::query_tokens(&q.text);
        if tokens.is_empty() || q.top == 0 {
            return Ok(SearchResults { hits: Vec::new(), total: 0 });
        }
        let text: Vec<(Occur, Box<dyn Query>)> = tokens
            .iter()
            .map(|t| {
                let tq =
                    TermQuery::new(Term::from_field_text(f.text, t), IndexRecordOption::WithFreqs);
                (Occur::Should, Box::new(tq) as Box<dyn Query>)
            })
            .collect();
        let mut must: Vec<(Occur, Box<dyn Query>)> =
            vec![(Occur::Must, Box::new(BooleanQuery::new(text)))];
        for (facet, values) in &q.facets {
            let Some(i) = FILTER_FACETS.iter().position(|x| x == facet) else { continue };
            if values.is_empty() {
                continue;
            }
            let any: Vec<(Occur, Box<dyn Query>)> = values
                .iter()
                .map(|v| {
                    let tq = TermQuery::new(
                        Term::from_field_text(f.filters[i], &v.to_lowercase()),
                        IndexRecordOption::Basic,
                    );
                    (Occur::Should, Box::new(tq) as Box<dyn Query>)
                })
                .collect();
            must.push((Occur::Must, Box::new(BooleanQuery::new(any))));
        }
        // An empty prefix admits every id, so it needs no clause.
        if !q.id_prefixes.is_empty() && q.id_prefixes.iter().all(|p| !p.is_empty()) {
            let any: Vec<(Occur, Box<dyn Query>)> = q
                .id_prefixes
                .iter()
                .map(|p| {
                    let upper = match prefix_successor(p) {
                        Some(u) => Bound::Excluded(Term::from_field_text(f.id, &u)),
                        None => Bound::Unbounded,
                    };
                    let range =
                        RangeQuery::new(Bound::Included(Term::from_field_text(f.id, p)), upper);
                    (Occur::Should, Box::new(ConstScoreQuery::new(Box::new(range), 0.0)) as _)
                })
                .collect();
            must.push((Occur::Must, Box::new(BooleanQuery::new(any))));
        }
        let query = BooleanQuery::new(must);
        let reader = match &self.reader {
            Some(reader) => reader.clone(),
            None => open_reader(&self.index).map_err(err)?,
        };
        let searcher = reader.searcher();
        // Fetch extra so ties at the cut are broken by id, not by segment order.
        let want = q.top + 32;
        let (total, top) = searcher
            .search(&query, &(Count, TopDocs::with_limit(want).order_by_score()))
            .map_err(err)?;
        let mut hits = Vec::with_capacity(top.len());
        for (score, addr) in top {
            let key = stored_key(&searcher, addr, f.key).map_err(err)?;
            let doc = resolve(&key).map_err(|detail| SearchError::Resolve { detail })?.ok_or_else(
                || SearchError::UnknownRecord { dir: self.dir.clone(), key: key.to_hex() },
            )?;
            hits.push(SearchHit {
                snippet: snippet(&doc.body, &tokens),
                id: doc.id,
                source: doc.source,
                title: doc.title,
                path: doc.path,
                facets: doc.facets,
                score,
            });
        }
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.id.cmp(&b.id)));
        hits.truncate(q.top);
        Ok(SearchResults { hits, total })
    }
}

impl SearchIndex {
    /// Visits every document whose text holds at least `min` of the distinct `terms` (as the
    /// tokenizer gives them) and that matches every facet filter (values ORed within a facet,
    /// facets ANDed, as in [`SearchQuery::facets`]), most terms held first, with how many it
    /// holds; `visit` returns whether to go on. Not cut to a top k: a caller that needs every
    /// document above an overlap bound (the same-topic rule of `add`) gets all of them, and
    /// can stop as soon as no later document can beat what it found. A term longer than
    /// tantivy indexes ([`MAX_INDEXED_TOKEN_BYTES`]) matches nothing; leaving it out is the
    /// caller's concern. `min` is taken as at least one.
    pub fn sharing(
        &self,
        terms: &[String],
        min: usize,
        facets: &BTreeMap<String, Vec<String>>,
        visit: &mut dyn FnMut(usize, CaseHash) -> bool,
    ) -> Result<(), SearchError> {
        let err = |source| SearchError::Index { dir: self.dir.clone(), source };
        let f = self.fields;
        if terms.is_empty() || min > terms.len() {
            return Ok(());
        }
        // Each term held scores exactly 1 (small integers are exact in f32), so a document's
        // score is how many of the terms it holds; the filters score 0.
        let text: Vec<Box<dyn Query>> = terms
            .iter()
            .map(|t| {
                let term = Term::from_field_text(f.text, t);
                let tq = TermQuery::new(term, IndexRecordOption::Basic);
                Box::new(ConstScoreQuery::new(Box::new(tq), 1.0)) as Box<dyn Query>
            })
            .collect();
        let mut must: Vec<(Occur, Box<dyn Query>)> = vec![(
            Occur::Must,
            Box::new(BooleanQuery::union_with_minimum_required_clauses(text, min.max(1))),
        )];
        for (facet, values) in facets {
            let Some(i) = FILTER_FACETS.iter().position(|x| x == facet) else { continue };
            if values.is_empty() {
                continue;
            }
            let any: Vec<Box<dyn Query>> = values
                .iter()
                .map(|v| {
                    let term = Term::from_field_text(f.filters[i], &v.to_lowercase());
                    Box::new(TermQuery::new(term, IndexRecordOption::Basic)) as Box<dyn Query>
                })
                .collect();
            let any = ConstScoreQuery::new(Box::new(BooleanQuery::union(any)), 0.0);
            must.push((Occur::Must, Box::new(any)));
        }
        let query = BooleanQuery::new(must);
        let reader = match &self.reader {
            Some(reader) => reader.clone(),
            None => open_reader(&self.index).map_err(err)?,
        };
        let searcher = reader.searcher();
        let mut found = searcher.search(&query, &AllScored).map_err(err)?;
        // Most terms first; of equals, in document order (the document store is read in
        // blocks).
        found.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        for (score, addr) in found {
            let key = stored_key(&searcher, addr, f.key).map_err(err)?;
            if !visit(score.round() as usize, key) {
                break;
            }
        }
        Ok(())
    }
}

/// A collector of every matching document with its score, unordered.
struct AllScored;

/// [`AllScored`] over one segment.
struct AllScoredSegment {
    segment: u32,
    docs: Vec<(f32, tantivy::DocAddress)>,
}

impl tantivy::collector::Collector for AllScored {
    type Fruit = Vec<(f32, tantivy::DocAddress)>;
    type Child = AllScoredSegment;

    fn for_segment(
        &self,
        segment: tantivy::SegmentOrdinal,
        _reader: &tantivy::SegmentReader,
    ) -> tantivy::Result<AllScoredSegment> {
        Ok(AllScoredSegment { segment, docs: Vec::new() })
    }

    fn requires_scoring(&self) -> bool {
        true
    }

    fn merge_fruits(
        &self,
        fruits: Vec<Vec<(f32, tantivy::DocAddress)>>,
    ) -> tantivy::Result<Vec<(f32, tantivy::DocAddress)>> {
        Ok(fruits.into_iter().flatten().collect())
    }
}

impl tantivy::collector::SegmentCollector for AllScoredSegment {
    type Fruit = Vec<(f32, tantivy::DocAddress)>;

    fn collect(&mut self, doc: tantivy::DocId, score: tantivy::Score) {
        self.docs.push((score, tantivy::DocAddress::new(self.segment, doc)));
    }

    fn harvest(self) -> Vec<(f32, tantivy::DocAddress)> {
        self.docs
    }
}

/// The record key a document stores (the only stored field): a document without one is damage.
fn stored_key(
    searcher: &tantivy::Searcher,
    addr: tantivy::DocAddress,
    key_field: tantivy::schema::Field,
) -> tantivy::Result<CaseHash> {
    let d: TantivyDocument = searcher.doc(addr)?;
    d.get_first(key_field)
        .and_then(|v| v.as_bytes())
        .and_then(|b| <[u8; 32]>::try_from(b).ok())
        .map(CaseHash)
        .ok_or_else(|| tantivy::TantivyError::InternalError("a document without its key".into()))
}

/// The least string above every string that starts with `prefix` (its last character that can
/// be, incremented, what follows it dropped), `None` when there is none. UTF-8 bytes sort as
/// code points do, so `[prefix, successor)` is exactly the ids starting with `prefix`.
fn prefix_successor(prefix: &str) -> Option<String> {
    let mut chars: Vec<char> = prefix.chars().collect();
    while let Some(c) = chars.pop() {
        let next = match c {
            '\u{D7FF}' => Some('\u{E000}'),
            c => char::from_u32(u32::from(c) + 1),
        };
        if let Some(n) = next {
            chars.push(n);
            return Some(chars.into_iter().collect());
        }
    }
    None
}

/// A reader over the index's last commit, opening every segment's files.
fn open_reader(index: &Index) -> tantivy::Result<IndexReader> {
    index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into()
}

/// The first trimmed, non-empty body line (not a `---` line) that holds a query token, else the
/// first such line; cut to 160 characters.
pub fn snippet(body: &str, tokens: &[String]) -> String {
    let lines: Vec<&str> =
        body.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with("---")).collect();
    let hit = lines.iter().find(|l| {
        let lower = l.to_lowercase();
        tokens.iter().any(|t| lower.contains(t.as_str()))
    });
    hit.or(lines.first()).map(|l| l.chars().take(160).collect()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prefix_successor_bounds_exactly_the_strings_with_the_prefix() {
        assert_eq!(prefix_successor("PL-1."), Some("PL-1/".to_string()));
        assert_eq!(prefix_successor("a\u{D7FF}"), Some("a\u{E000}".to_string()));
        assert_eq!(prefix_successor("a\u{10FFFF}"), Some("b".to_string()));
        assert_eq!(prefix_successor("\u{10FFFF}"), None);
        let upper = prefix_successor("TRAP-").expect("bounded");
        for (id, inside) in
            [("TRAP-", true), ("TRAP-x\u{10FFFF}", true), ("TRAP.", false), ("TRAO-z", false)]
        {
            let within = id >= "TRAP-" && id < upper.as_str();
            assert_eq!(within, inside, "{id}");
            assert_eq!(id.starts_with("TRAP-"), inside, "{id}");
        }
    }

    #[test]
    fn snippets_prefer_lines_with_query_tokens() {
        let body = "### title\n\n- first line\n- 精度 golden line\n";
        assert_eq!(snippet(body, &["golden".into()]), "- 精度 golden line");
        assert_eq!(snippet(body, &["nothing".into()]), "### title");
    }

    #[test]
    fn query_tokens_split_cjk_into_bigrams_and_keep_compounds() {
        let t = SearchIndex::query_tokens("fp16 golden opmath 精度对齐 copy-floor");
        assert_eq!(
            t,
            ["fp16", "golden", "opmath", "精度", "度对", "对齐", "copy", "copy-floor", "floor"]
        );
    }

    #[test]
    fn the_merge_policy_merges_small_segments_and_leaves_bulk_ones() {
        use tantivy::index::SegmentId;
        let index = Index::create_in_ram(schema().0);
        let metas = |n: usize, docs: u32| -> Vec<SegmentMeta> {
            (0..n).map(|_| index.new_segment_meta(SegmentId::generate_random(), docs)).collect()
        };
        let policy = BulkSegmentsKept::new();
        // Eight segments of a bulk build: left as they are.
        let bulk = metas(8, 40_000);
        assert!(policy.compute_merge_candidates(&bulk).is_empty());
        // Eight small segments of later writes: merged, with each other only.
        let small = metas(8, 3);
        let both: Vec<_> = bulk.iter().chain(&small).cloned().collect();
        let candidates = policy.compute_merge_candidates(&both);
        assert_eq!(candidates.len(), 1);
        let mut merged = candidates[0].0.clone();
        merged.sort();
        let mut expected: Vec<SegmentId> = small.iter().map(|m| m.id()).collect();
        expected.sort();
        assert_eq!(merged, expected);
        // Up to the bound, a segment still takes part.
        let at_bound = metas(8, MERGED_SEGMENT_MAX_DOCS as u32);
        assert_eq!(policy.compute_merge_candidates(&at_bound).len(), 1);
        // A bulk segment more than half deleted is rewritten alone; one half deleted is not.
        let mut worn = metas(2, 40_000);
        worn[0] = worn[0].clone().with_delete_meta(20_001, 1);
        worn[1] = worn[1].clone().with_delete_meta(20_000, 1);
        let candidates = policy.compute_merge_candidates(&worn);
        assert_eq!(candidates.len(), 1);
        assert_eq!(candidates[0].0, vec![worn[0].id()]);
    }
}
