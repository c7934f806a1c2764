//! Tallies: counters that accumulate between two renders.
//!
//! A tally is a count and the label of its latest increment, kept under a string key in the
//! `tallies` table. The layer above uses them for what happened since a rendered table was
//! last brought up to date (searches that returned an entry since the hit table was last
//! written), so that a number a person wrote stays the baseline and later events add to it.
//! Writers bump a tally in the transaction that records the event; the renderer folds the
//! tallies into the table and clears them in the transaction that commits the table.
//!
//! Tallies are part of the store's content: two stores with equal records but different
//! pending tallies render different bytes, so the digest covers them.

use redb::{ReadableTable, TableDefinition};
use serde::{Deserialize, Serialize};

use crate::codec;
use crate::db::{ReadTxn, WriteTxn};
use crate::error::StoreError;

pub(crate) const TALLIES: TableDefinition<&str, &[u8]> = TableDefinition::new("tallies");

/// A pending count and the label of its most recent increment that had one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    /// Increments since the tally was last cleared.
    pub count: u64,
    /// The label of the latest increment that carried one (for hits: the task id).
    pub last_label: Option<String>,
}

fn decode(key: &str, bytes: &[u8]) -> Result<Tally, StoreError> {
    codec::decode(bytes).map_err(|detail| StoreError::Corrupted {
        table: "tallies",
        key: key.to_string(),
        detail,
    })
}

/// Every row of a name-keyed table of encoded values, decoded, in name order; a table that does
/// not exist yet has no rows. Shared by the tables of counters (`tallies`, `event_counters`).
pub(crate) fn decode_rows<T, V>(
    table: Result<T, redb::TableError>,
    decode: fn(&str, &[u8]) -> Result<V, StoreError>,
) -> Result<Vec<(String, V)>, StoreError>
where
    T: ReadableTable<&'static str, &'static [u8]>,
{
    let table = match table {
        Ok(t) => t,
        Err(redb::TableError::TableDoesNotExist(_)) => return Ok(Vec::new()),
        Err(err) => return Err(err.into()),
    };
    let mut out = Vec::new();
    for row in table.iter()? {
        let (k, v) = row?;
        out.push((k.value().to_string(), decode(k.value(), v.value())?));
    }
    Ok(out)
}

macro_rules! tally_reads {
    ($t:ty) => {
        impl $t {
            /// Every pending tally, in key order (empty when the table does not exist yet).
            pub fn tallies(&self) -> Result<Vec<(String, Tally)>, StoreError> {
                decode_rows(self.txn.open_table(TALLIES), decode)
            }
        }
    };
}

tally_reads!(ReadTxn);
tally_reads!(WriteTxn);

impl WriteTxn {
    /// Adds one to the tally under `key`, remembering `label` as its latest when given.
    pub fn bump_tally(&mut self, key: &str, label: Option<&str>) -> Result<(), StoreError> {
        let mut table = self.txn.open_table(TALLIES)?;
        let mut tally = match table.get(key)? {
            Some(v) => decode(key, v.value())?,
            None => Tally::default(),
        };
        tally.count = tally.count.saturating_add(1);
        if let Some(l) = label {
            tally.last_label = Some(l.to_string());
        }
        table.insert(key, codec::encode(&tally).as_slice())?;
        Ok(())
    }

    /// Removes every pending tally.
    pub fn clear_tallies(&mut self) -> Result<(), StoreError> {
        let mut table = self.txn.open_table(TALLIES)?;
        table.retain(|_, _| false)?;
        Ok(())
    }
}

/// Feeds the pending tallies into a digest; nothing when there are none, so a store that never
/// had one keeps the digest it always had.
pub(crate) fn digest(
    hasher: &mut blake3::Hasher,
    tallies: &[(String, Tally)],
) -> Result<(), StoreError> {
    for (key, t) in tallies {
        hasher.update(b"T");
        hasher.update(&(key.len() as u64).to_be_bytes());
        hasher.update(key.as_bytes());
        hasher.update(&t.count.to_be_bytes());
        let label = t.last_label.as_deref().unwrap_or("");
        hasher.update(&[u8::from(t.last_label.is_some())]);
        hasher.update(&(label.len() as u64).to_be_bytes());
        hasher.update(label.as_bytes());
    }
    Ok(())
}
