//! Parsers: one module per file format, each turning a file's text into a layout of prose and
//! records whose concatenation is the file, byte for byte.
//!
//! The parsers are line-based and keep every byte; they never reformat. They report problems as
//! [`Diagnostic`]s with the file and line instead of stopping at the first one.

mod builder;
pub mod frontmatter;
pub mod headed;
pub mod index;
pub mod jsonl;
pub mod keyline;
pub mod queue;
pub mod stats;
pub mod structure;
pub mod table;

pub use builder::{normalize, FileBuilder, ParsedFile, ParsedRecord, SegBuilder};

use crate::diag::Diagnostic;
use crate::layout::FileRole;
use crate::text::BOM;

/// Parses the text of a managed file. Returns the parsed file (absent when an error makes the
/// result meaningless) and every diagnostic found.
pub fn parse_file(role: FileRole, path: &str, text: &str) -> (ParsedFile, Vec<Diagnostic>) {
    let mut builder = FileBuilder::new(path);
    let body = match text.strip_prefix(BOM) {
        Some(rest) => {
            builder.prose(BOM);
            rest
        }
        None => text,
    };
    let mut diags = Vec::new();
    match role {
        FileRole::Topic => frontmatter::parse(&mut builder, body, &mut diags),
        FileRole::Index => index::parse(&mut builder, body, &mut diags),
        FileRole::Bottleneck => headed::parse_bottlenecks(&mut builder, body, &mut diags),
        FileRole::Gaps => headed::parse_gaps(&mut builder, body, &mut diags),
        FileRole::Queue => queue::parse(&mut builder, body, &mut diags),
        FileRole::Stats => stats::parse(&mut builder, body, &mut diags),
        FileRole::SearchLog => jsonl::parse(&mut builder, body, &mut diags),
    }
    let parsed = builder.finish();
    debug_assert_eq!(parsed.text_len(), text.len());
    (parsed, diags)
}
