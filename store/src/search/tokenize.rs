//! tantivy tokenizers for mixed Chinese / English / code text.
//!
//! Both tokenizers treat non-CJK text the same way:
//!
//! * a *word run* is a maximal run of alphanumeric non-CJK characters plus `_` and `-`
//!   (so `.`, whitespace, punctuation, emoji and combining marks split);
//! * leading and trailing `_`/`-` are trimmed; what is left is emitted lowercased when it has
//!   at least two characters (`PL-1.9-x` → `pl-1`, `9-x`);
//! * optionally ([`split_compounds`](CjkBigramTokenizer::split_compounds)) the parts of a
//!   `-`/`_` compound are emitted too, at the same position (`copy-floor` → `copy-floor`,
//!   `copy`, `floor`), parts shorter than two characters dropped.
//!
//! CJK ideograph runs (U+3400–U+4DBF, U+4E00–U+9FFF, U+F900–U+FAFF, U+20000–U+3134F) are
//! handled by [`CjkBigramTokenizer`] as overlapping bigrams (a run of one character gives a
//! unigram). A dictionary segmenter (jieba) was measured against it on the real sample and
//! ranked no better while costing ~100 ms of dictionary loading per process; see the README.
//!
//! Offsets are byte offsets into the original text (`&text[from..to]` is the source of the
//! token); the token text is lowercased. Positions never decrease along the stream, which
//! tantivy's position recorder requires per term. Tokenization is a pure function of the
//! input: deterministic and panic-free for any `&str`.
//!
//! Register with tantivy:
//!
//! ```
//! use evokb_store::search::tokenize::{CjkBigramTokenizer, TOKENIZER_NAME};
//! use tantivy::schema::{IndexRecordOption, Schema, TextFieldIndexing, TextOptions};
//! let idx = TextFieldIndexing::default()
//!     .set_tokenizer(TOKENIZER_NAME)
//!     .set_index_option(IndexRecordOption::WithFreqsAndPositions);
//! let mut sb = Schema::builder();
//! sb.add_text_field("body", TextOptions::default().set_indexing_options(idx));
//! let index = tantivy::Index::create_in_ram(sb.build());
//! index.tokenizers().register(TOKENIZER_NAME, CjkBigramTokenizer::default());
//! ```

use tantivy::tokenizer::{Token, TokenStream, Tokenizer};

/// The name evokb registers its text tokenizer under.
pub const TOKENIZER_NAME: &str = "evokb_text";

/// Whether `c` is a CJK unified ideograph (basic block, extension A, compatibility, B–H).
pub fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{3400}'..='\u{4dbf}'
        | '\u{4e00}'..='\u{9fff}'
        | '\u{f900}'..='\u{faff}'
        | '\u{20000}'..='\u{3134f}')
}

fn is_word_char(c: char) -> bool {
    c == '_' || c == '-' || (c.is_alphanumeric() && !is_cjk(c))
}

/// A token before positions are assigned.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Raw {
    from: usize,
    to: usize,
    text: String,
    /// Primary tokens advance the position; secondary ones (compound parts, extra bigrams,
    /// search-mode sub-words) share it.
    primary: bool,
}

/// A span of the input classified for tokenization.
enum Span {
    Word(usize, usize),
    Cjk(usize, usize),
}

/// Splits `text` into word runs and CJK runs (byte ranges), in order.
fn spans(text: &str) -> Vec<Span> {
    #[derive(PartialEq, Clone, Copy)]
    enum K {
        Word,
        Cjk,
        Other,
    }
    let kind = |c: char| {
        if is_cjk(c) {
            K::Cjk
        } else if is_word_char(c) {
            K::Word
        } else {
            K::Other
        }
    };
    let mut out = Vec::new();
    let mut cur = K::Other;
    let mut start = 0usize;
    let close = |k: K, s: usize, e: usize, out: &mut Vec<Span>| match k {
        K::Word => out.push(Span::Word(s, e)),
        K::Cjk => out.push(Span::Cjk(s, e)),
        K::Other => {}
    };
    for (i, c) in text.char_indices() {
        let k = kind(c);
        if k != cur {
            close(cur, start, i, &mut out);
            cur = k;
            start = i;
        }
    }
    close(cur, start, text.len(), &mut out);
    out
}

/// Emits the tokens of one word run `text[s..e]`.
fn word_tokens(text: &str, s: usize, e: usize, split_compounds: bool, out: &mut Vec<Raw>) {
    let run = &text[s..e];
    let trimmed_start = run.trim_start_matches(['-', '_']);
    let s2 = s + (run.len() - trimmed_start.len());
    let core = trimmed_start.trim_end_matches(['-', '_']);
    let e2 = s2 + core.len();
    if core.chars().count() < 2 {
        return;
    }
    out.push(Raw { from: s2, to: e2, text: core.to_lowercase(), primary: true });
    if !split_compounds || !core.contains(['-', '_']) {
        return;
    }
    let mut off = s2;
    for part in core.split(['-', '_']) {
        if part.chars().count() >= 2 {
            out.push(Raw {
                from: off,
                to: off + part.len(),
                text: part.to_lowercase(),
                primary: false,
            });
        }
        off += part.len() + 1;
    }
}

/// Char boundaries (byte offsets) of `text[s..e]`, including `e`.
fn char_bounds(text: &str, s: usize, e: usize) -> Vec<usize> {
    let mut b: Vec<usize> = text[s..e].char_indices().map(|(i, _)| s + i).collect();
    b.push(e);
    b
}

/// Overlapping bigrams of one CJK run; a one-character run yields a unigram.
fn bigram_tokens(text: &str, s: usize, e: usize, primary: bool, out: &mut Vec<Raw>) {
    let b = char_bounds(text, s, e);
    let n = b.len() - 1;
    if n == 1 {
        out.push(Raw { from: s, to: e, text: text[s..e].to_lowercase(), primary });
        return;
    }
    for i in 0..n.saturating_sub(1) {
        out.push(Raw {
            from: b[i],
            to: b[i + 2],
            text: text[b[i]..b[i + 2]].to_lowercase(),
            primary,
        });
    }
}

/// Sorts by offset, drops exact duplicates and assigns non-decreasing positions.
fn finish(mut raw: Vec<Raw>) -> Vec<Token> {
    // Primary before secondary for the same span, so the duplicate dropped is the secondary.
    raw.sort_by(|a, b| {
        (a.from, a.to, &a.text, !a.primary).cmp(&(b.from, b.to, &b.text, !b.primary))
    });
    raw.dedup_by(|b, a| a.from == b.from && a.to == b.to && a.text == b.text);
    let mut out = Vec::with_capacity(raw.len());
    let mut pos = 0usize;
    let mut seen_primary = false;
    for r in raw {
        if r.primary {
            if seen_primary {
                pos += 1;
            }
            seen_primary = true;
        }
        out.push(Token {
            offset_from: r.from,
            offset_to: r.to,
            position: pos,
            text: r.text,
            position_length: 1,
        });
    }
    out
}

/// A token stream over a precomputed token vector.
#[derive(Debug, Clone)]
pub struct KbTokenStream {
    tokens: Vec<Token>,
    cursor: usize,
    empty: Token,
}

impl KbTokenStream {
    fn new(tokens: Vec<Token>) -> Self {
        KbTokenStream { tokens, cursor: 0, empty: Token::default() }
    }
}

impl TokenStream for KbTokenStream {
    fn advance(&mut self) -> bool {
        if self.cursor < self.tokens.len() {
            self.cursor += 1;
            true
        } else {
            false
        }
    }

    fn token(&self) -> &Token {
        match self.cursor.checked_sub(1) {
            Some(i) => self.tokens.get(i).unwrap_or(&self.empty),
            None => &self.empty,
        }
    }

    fn token_mut(&mut self) -> &mut Token {
        match self.cursor.checked_sub(1) {
            Some(i) if i < self.tokens.len() => &mut self.tokens[i],
            _ => &mut self.empty,
        }
    }
}

/// CJK bigram tokenizer (latin words whole, CJK as overlapping bigrams).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CjkBigramTokenizer {
    /// Also emit the parts of `-`/`_` compounds.
    pub split_compounds: bool,
    /// Pair CJK characters across non-CJK gaps like the old tool (`精 x 度` → `精度`) instead
    /// of only within a run.
    pub cross_gaps: bool,
}

impl Default for CjkBigramTokenizer {
    /// The configuration chosen by the evaluation: compounds split, bigrams within runs.
    fn default() -> Self {
        CjkBigramTokenizer { split_compounds: true, cross_gaps: false }
    }
}

impl CjkBigramTokenizer {
    /// All tokens of `text`.
    pub fn tokens(&self, text: &str) -> Vec<Token> {
        let mut raw = Vec::new();
        let mut cjk_chars: Vec<(usize, usize)> = Vec::new();
        for sp in spans(text) {
            match sp {
                Span::Word(s, e) => word_tokens(text, s, e, self.split_compounds, &mut raw),
                Span::Cjk(s, e) if self.cross_gaps => {
                    let b = char_bounds(text, s, e);
                    cjk_chars.extend(b.windows(2).map(|w| (w[0], w[1])));
                }
                Span::Cjk(s, e) => bigram_tokens(text, s, e, true, &mut raw),
            }
        }
        if self.cross_gaps {
            if let [(s, e)] = cjk_chars[..] {
                raw.push(Raw { from: s, to: e, text: text[s..e].to_lowercase(), primary: true });
            }
            for w in cjk_chars.windows(2) {
                let ((s1, e1), (s2, e2)) = (w[0], w[1]);
                let mut t = text[s1..e1].to_lowercase();
                t.push_str(&text[s2..e2].to_lowercase());
                raw.push(Raw { from: s1, to: e2, text: t, primary: true });
            }
        }
        finish(raw)
    }
}

impl Tokenizer for CjkBigramTokenizer {
    type TokenStream<'a> = KbTokenStream;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> KbTokenStream {
        KbTokenStream::new(self.tokens(text))
    }
}
