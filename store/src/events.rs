//! Event counters: per-name counts over the store's search events, kept so that a report of
//! every name's count reads one small row per name instead of decoding every event.
//!
//! The counters are *derived* from the event records and say which state of them they
//! describe. Every write transaction that puts or deletes a search event raises the store's
//! *events generation* at commit (`WriteTxn::commit`); the counters carry the generation they
//! were last made current at. A writer that keeps them in step (recording a hit appends one
//! event and updates the counters of the names it returned) calls
//! [`WriteTxn::mark_event_counters_current`] in the same transaction; any other change to the
//! events (an import of a hand-edited log, a merge, a repair) leaves them behind, and a reader
//! that finds them behind ([`ReadTxn::event_counters_current`]) counts from the events instead
//! and may store the result ([`WriteTxn::replace_event_counters`]). Being derived, they are
//! not part of the digest.
//!
//! What a counter holds is generic: a count, the latest event by `(time, record key)`, and the
//! latest event that carried a label, with its label. "Latest by (time, key)" is what a walk of
//! the events in key order gets by letting a later event win ties, so an incremental update
//! and a recount agree.

use redb::{ReadableTable, TableDefinition};
use serde::{Deserialize, Serialize};

use crate::codec;
use crate::db::{ReadTxn, WriteTxn};
use crate::error::StoreError;

/// Counter rows: name → codec-encoded [`EventCounter`].
const COUNTERS: TableDefinition<&str, &[u8]> = TableDefinition::new("event_counters");
/// The events generation ([`EVENTS_KEY`]) and the one the counters describe ([`CURRENT_KEY`]).
const COUNTERS_STATE: TableDefinition<&str, u64> = TableDefinition::new("event_counters.state");
const CURRENT_KEY: &str = "counters";
const EVENTS_KEY: &str = "events";

/// Raises the events generation: called by the commit of a transaction that put or deleted a
/// search event.
pub(crate) fn raise_events_generation(txn: &redb::WriteTransaction) -> Result<(), StoreError> {
    let mut table = txn.open_table(COUNTERS_STATE)?;
    let gen = table.get(EVENTS_KEY)?.map_or(0, |v| v.value());
    table.insert(EVENTS_KEY, gen + 1)?;
    Ok(())
}

/// One name's count over the events, and its latest events.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventCounter {
    /// How many times events named it.
    pub count: u64,
    /// The time and record key of the latest event naming it.
    pub latest: (String, [u8; 32]),
    /// The time, record key and label of the latest event naming it that carried a label.
    pub labelled: Option<(String, [u8; 32], String)>,
}

impl EventCounter {
    /// Counts one more event at `(ts, key)`, with its label if it carried one. An event at or
    /// after the latest, by `(time, key)`, becomes the latest.
    pub fn count_event(&mut self, ts: &str, key: &[u8; 32], label: Option<&str>) {
        self.take_latest(ts, key);
        if let Some(label) = label {
            self.take_labelled(ts, key, label);
        }
        self.count = self.count.saturating_add(1);
    }

    /// Adds the events `other` counted (events this one did not count): the counts add up and
    /// the later of each pair of latest events stands, so merging the counters of two sets of
    /// events gives what counting their union gives.
    pub fn merge(&mut self, other: &EventCounter) {
        if other.count == 0 {
            return;
        }
        self.take_latest(&other.latest.0, &other.latest.1);
        if let Some((ts, key, label)) = &other.labelled {
            self.take_labelled(ts, key, label);
        }
        self.count = self.count.saturating_add(other.count);
    }

    /// Makes `(ts, key)` the latest event when nothing was counted yet or it is at or after
    /// the latest (called before the count grows).
    fn take_latest(&mut self, ts: &str, key: &[u8; 32]) {
        if self.count == 0 || (ts, key) >= (self.latest.0.as_str(), &self.latest.1) {
            self.latest = (ts.to_string(), *key);
        }
    }

    /// Makes `(ts, key, label)` the latest labelled event when it is at or after the one kept.
    fn take_labelled(&mut self, ts: &str, key: &[u8; 32], label: &str) {
        let newer = match &self.labelled {
            Some((t, k, _)) => (ts, key) >= (t.as_str(), k),
            None => true,
        };
        if newer {
            self.labelled = Some((ts.to_string(), *key, label.to_string()));
        }
    }
}

fn decode(name: &str, bytes: &[u8]) -> Result<EventCounter, StoreError> {
    codec::decode(bytes).map_err(|detail| StoreError::Corrupted {
        table: "event_counters",
        key: name.to_string(),
        detail,
    })
}

macro_rules! counter_reads {
    ($t:ty) => {
        impl $t {
            /// How many committed transactions changed the search events (0 before the
            /// first, or in a store older than the counters).
            pub fn events_generation(&self) -> Result<u64, StoreError> {
                let table = match self.txn.open_table(COUNTERS_STATE) {
                    Ok(t) => t,
                    Err(redb::TableError::TableDoesNotExist(_)) => return Ok(0),
                    Err(err) => return Err(err.into()),
                };
                let gen = table.get(EVENTS_KEY)?.map_or(0, |v| v.value());
                Ok(gen)
            }

            /// Whether the event counters describe the search events as they are: made current
            /// at the events generation the store is at.
            pub fn event_counters_current(&self) -> Result<bool, StoreError> {
                let table = match self.txn.open_table(COUNTERS_STATE) {
                    Ok(t) => t,
                    Err(redb::TableError::TableDoesNotExist(_)) => return Ok(false),
                    Err(err) => return Err(err.into()),
                };
                let at = table.get(CURRENT_KEY)?.map(|v| v.value());
                let events = table.get(EVENTS_KEY)?.map_or(0, |v| v.value());
                Ok(at == Some(events))
            }

            /// Every event counter, in name order (empty when there are none). Whether they
            /// are current is [`Self::event_counters_current`]'s answer.
            pub fn event_counters(&self) -> Result<Vec<(String, EventCounter)>, StoreError> {
                crate::tally::decode_rows(self.txn.open_table(COUNTERS), decode)
            }
        }
    };
}

counter_reads!(ReadTxn);
counter_reads!(WriteTxn);

impl WriteTxn {
    /// Counts one event at `(ts, key)` for each of `names` (a name given twice counts twice),
    /// with `label` when the event carried one. The caller makes the counters current after
    /// counting every event it wrote.
    pub fn count_event(
        &mut self,
        names: &[&str],
        ts: &str,
        key: &[u8; 32],
        label: Option<&str>,
    ) -> Result<(), StoreError> {
        let mut table = self.txn.open_table(COUNTERS)?;
        for name in names {
            let mut c = match table.get(*name)? {
                Some(v) => decode(name, v.value())?,
                None => EventCounter::default(),
            };
            c.count_event(ts, key, label);
            table.insert(*name, codec::encode(&c).as_slice())?;
        }
        Ok(())
    }

    /// Merges `counted` (each name's counter over events the stored counters do not count yet)
    /// into the stored counters, one read and one write per name (see [`EventCounter::merge`]).
    /// The caller makes the counters current once they count every event.
    pub fn merge_event_counters(
        &mut self,
        counted: impl IntoIterator<Item = (String, EventCounter)>,
    ) -> Result<(), StoreError> {
        let mut table = self.txn.open_table(COUNTERS)?;
        for (name, fresh) in counted {
            let mut c = match table.get(name.as_str())? {
                Some(v) => decode(&name, v.value())?,
                None => EventCounter::default(),
            };
            c.merge(&fresh);
            table.insert(name.as_str(), codec::encode(&c).as_slice())?;
        }
        Ok(())
    }

    /// Replaces every counter with `counters` and makes them current.
    pub fn replace_event_counters(
        &mut self,
        counters: impl IntoIterator<Item = (String, EventCounter)>,
    ) -> Result<(), StoreError> {
        self.txn.delete_table(COUNTERS)?;
        {
            let mut table = self.txn.open_table(COUNTERS)?;
            for (name, c) in counters {
                table.insert(name.as_str(), codec::encode(&c).as_slice())?;
            }
        }
        self.mark_event_counters_current()
    }

    /// Records that the counters describe the events as this transaction leaves them: the
    /// events generation its commit will be at.
    pub fn mark_event_counters_current(&mut self) -> Result<(), StoreError> {
        let gen = self.events_generation()? + u64::from(self.events_changed());
        self.txn.open_table(COUNTERS_STATE)?.insert(CURRENT_KEY, gen)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_latest_event_is_the_greatest_time_then_key_whatever_the_order_counted() {
        let events: [(&str, [u8; 32], Option<&str>); 4] = [
            ("2026-01-02", [1; 32], Some("a")),
            ("2026-01-03", [0; 32], None),
            ("2026-01-03", [2; 32], None),
            ("2026-01-01", [9; 32], Some("b")),
        ];
        let mut forward = EventCounter::default();
        for (ts, key, label) in &events {
            forward.count_event(ts, key, *label);
        }
        let mut backward = EventCounter::default();
        for (ts, key, label) in events.iter().rev() {
            backward.count_event(ts, key, *label);
        }
        assert_eq!(forward, backward);
        assert_eq!(forward.count, 4);
        assert_eq!(forward.latest, ("2026-01-03".to_string(), [2; 32]));
        assert_eq!(forward.labelled, Some(("2026-01-02".to_string(), [1; 32], "a".to_string())));
    }

    #[test]
    fn merging_the_counters_of_two_halves_gives_the_counter_of_all() {
        let events: [(&str, [u8; 32], Option<&str>); 5] = [
            ("2026-01-02", [1; 32], Some("a")),
            ("2026-01-03", [0; 32], None),
            ("2026-01-03", [2; 32], None),
            ("2026-01-01", [9; 32], Some("b")),
            ("2026-01-02", [3; 32], Some("c")),
        ];
        let mut all = EventCounter::default();
        for (ts, key, label) in &events {
            all.count_event(ts, key, *label);
        }
        for split in 0..=events.len() {
            let (a, b) = events.split_at(split);
            let mut left = EventCounter::default();
            for (ts, key, label) in a {
                left.count_event(ts, key, *label);
            }
            let mut right = EventCounter::default();
            for (ts, key, label) in b {
                right.count_event(ts, key, *label);
            }
            let mut merged = left.clone();
            merged.merge(&right);
            assert_eq!(merged, all, "split at {split}");
            right.merge(&left);
            assert_eq!(right, all, "split at {split}, merged the other way");
        }
    }
}
