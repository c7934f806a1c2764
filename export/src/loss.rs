//! No silent record loss: structural problems in the files, with the records they cost.
//!
//! [`crate::parse::structure`] finds the slips that turn would-be records into prose (an
//! unclosed fence, a table without its delimiter row, a block that does not end, a stray BOM).
//! Here each problem becomes a warning at its `file:line` that also says how many records of
//! that file the store held at the last import and this reading of the file no longer has
//! (records that moved to another managed file do not count). `import --strict` turns these
//! warnings into errors, and `import --check` reports them without writing anything, which is
//! what the pre-commit hook runs.

use std::collections::HashSet;
use std::path::Path;

use evokb_store::{CaseHash, LayoutItem, Store};

use crate::diag::Diagnostic;
use crate::error::ImportError;
use crate::parse::structure;
use crate::render::RecordSource;
use crate::sync::{read_kb, ReadKb};

/// How many ids a warning names before it says "and N more".
const NAMED_IDS: usize = 5;

/// Reads every managed file under `root` (failing as `import` does on malformed files) and
/// returns one warning per structural problem, with the records it cost against `store`.
pub fn structural_warnings(root: &Path, store: &Store) -> Result<Vec<Diagnostic>, ImportError> {
    let kb = read_kb(root, &crate::layout::Layout::load(root)?)?;
    structural_warnings_of(&kb, &store.read()?)
}

/// The structural warnings of files already read, counted against the store view `txn`.
pub fn structural_warnings_of(
    kb: &ReadKb,
    txn: &dyn RecordSource,
) -> Result<Vec<Diagnostic>, ImportError> {
    let parsed: HashSet<CaseHash> = kb
        .files
        .iter()
        .flat_map(|f| f.parsed.records.iter().map(|r| r.record.case_hash()))
        .collect();
    let mut out = Vec::new();
    for f in &kb.files {
        let problems = structure::problems(f.file.role, &f.parsed.text());
        if problems.is_empty() {
            continue;
        }
        let path = f.file.path.as_str();
        let lost = match txn.layout(path)? {
            None => None,
            Some(layout) => {
                let mut ids = Vec::new();
                for item in &layout.items {
                    let LayoutItem::Record(key) = item else { continue };
                    if parsed.contains(key) {
                        continue;
                    }
                    if let Some(rec) = txn.get(key)? {
                        ids.push(rec.id);
                    }
                }
                Some(ids)
            }
        };
        let cost = match &lost {
            None => "the store holds no earlier import of this file to count lost records against"
                .to_string(),
            Some(ids) => {
                let named: Vec<String> =
                    ids.iter().take(NAMED_IDS).map(|id| format!("'{id}'")).collect();
                let more = ids.len().saturating_sub(NAMED_IDS);
                let more = if more > 0 { format!(" and {more} more") } else { String::new() };
                let which = if ids.is_empty() {
                    String::new()
                } else {
                    format!(" ({}{more})", named.join(", "))
                };
                format!(
                    "{} record(s) of this file held by the store at the last import are no longer records{which}",
                    ids.len()
                )
            }
        };
        for p in problems {
            out.push(Diagnostic::warning(path, p.line, format!("{}; {cost}", p.message)));
        }
    }
    Ok(out)
}

/// The same warnings as errors, for `--strict`.
pub fn as_errors(warnings: Vec<Diagnostic>) -> Vec<Diagnostic> {
    warnings.into_iter().map(|d| Diagnostic::error(&d.file, d.line, d.message)).collect()
}
