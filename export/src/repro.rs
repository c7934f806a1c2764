//! Repro scripts are canonical: the store keeps each script's bytes, keyed by its path, beside
//! the `repro` record that holds its blake3, size and line count.
//!
//! Import stores the bytes of every script that is new or changed (and of every script when
//! the store holds fewer contents than scripts, as a store written before contents were kept
//! does), and drops those of scripts that are gone. `render --out DIR` writes them, so a
//! knowledge base rendered elsewhere is whole and imports to the same digest. An in-place
//! render never writes a script: the disk is where scripts are edited, and an unchanged one is
//! never rewritten. Contents are bytes, not text, so a script that is not UTF-8 comes back
//! byte for byte.

use std::collections::HashSet;
use std::path::Path;

use evokb_store::{Collection, Kind, Record, WriteTxn};
use serde::{Deserialize, Serialize};

use crate::error::{ImportError, RenderError};
use crate::fsread::read_managed;

/// The collection of repro script contents, keyed by the script's repository path.
pub const REPRO_CONTENT: Collection = Collection::new("coll.repro_content");

/// One script's content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReproContent {
    /// blake3 of `bytes`, hex, as in the script's `repro` record.
    pub blake3: String,
    /// The script, byte for byte.
    pub bytes: Vec<u8>,
}

/// Stores the contents of the scripts in `repros` (the records import read from disk) that
/// are new or changed, and removes the contents of scripts no longer on disk. Runs before the
/// records themselves are synced, so a changed script is told by its stored record.
pub fn sync_contents(
    txn: &mut WriteTxn,
    root: &Path,
    repros: &[Record],
) -> Result<(), ImportError> {
    let n_stored = txn.item_count(REPRO_CONTENT)?;
    let refill = n_stored != repros.len() as u64;
    let current: HashSet<&str> = repros.iter().map(|r| r.id.as_str()).collect();
    for (key, _) in txn.items::<ReproContent>(REPRO_CONTENT)? {
        let path = String::from_utf8_lossy(&key).into_owned();
        if !current.contains(path.as_str()) {
            txn.remove_items_with_prefix(REPRO_CONTENT, &key)?;
        }
    }
    for rec in repros {
        let changed = txn.record(&rec.case_hash())?.as_ref() != Some(rec);
        if !(refill || changed) {
            continue;
        }
        let bytes = read_managed(root, &rec.id).map_err(|reason| ImportError::Io {
            path: root.join(&rec.id),
            source: std::io::Error::other(reason),
        })?;
        let blake3 = blake3::hash(&bytes).to_hex().to_string();
        // The record was made from an earlier read; if the script changed in between, the
        // record is remade from these bytes so the two always agree.
        if rec.field("blake3") != Some(blake3.as_str()) {
            txn.put_record(&crate::sync::repro_record(&rec.id, &bytes))?;
        }
        txn.put_item(REPRO_CONTENT, rec.id.as_bytes(), &ReproContent { blake3, bytes })?;
    }
    Ok(())
}

/// The stored scripts `render --out` writes, as (repository path, bytes), in path order: only
/// scripts the store has a `repro` record for.
pub fn contents_to_write(txn: &WriteTxn) -> Result<Vec<(String, Vec<u8>)>, RenderError> {
    let mut out = Vec::new();
    for (key, c) in txn.items::<ReproContent>(REPRO_CONTENT)? {
        let path = String::from_utf8_lossy(&key).into_owned();
        if txn.record_by_id(Kind::Repro, &path)?.is_none() {
            continue;
        }
        out.push((path, c.bytes));
    }
    Ok(out)
}
