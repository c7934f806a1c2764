//! File layouts stored in chunks, so a one-item change rewrites one chunk and not the file.
//!
//! A layout's items are kept in [`FILE_CHUNKS`] under `(path, chunk number)`, each value the
//! codec's encoding of a `Vec<LayoutItem>` of at most [`CHUNK_MAX`] items; the `files` table
//! then holds [`CHUNKED`] for the path (an older store's full encoded layout is still read
//! there). `INDEX.md` at 100k entries is one layout of ~100k items: stored whole, a change of
//! one row decoded and re-encoded ~4 MB, and an added row wrote all of it back.
//!
//! Chunk numbers are spaced [`CHUNK_STEP`] apart when a whole layout is written, so a chunk
//! that outgrows [`CHUNK_MAX`] splits into numbers between its own and the next one's without
//! renumbering its neighbours. Only the order of the numbers means anything: the digest and
//! every reader see the concatenated items, whatever the chunking.
//!
//! [`walk`] reads a chunk's encoded bytes as borrowed items without decoding them, so locating
//! a record in a 100k-item layout, or scanning it for headings, allocates no string.

use redb::{ReadableTable, TableDefinition};

use crate::record::{CaseHash, LayoutItem};
use crate::StoreError;

/// The items of chunked file layouts: `(path, chunk number)` → codec-encoded `Vec<LayoutItem>`.
pub(crate) const FILE_CHUNKS: TableDefinition<(&str, u64), &[u8]> =
    TableDefinition::new("file_chunks");

/// Which chunk holds each record of a layout that spans more than one chunk: case hash →
/// chunk number (a record is in one file, so the path is left out of the key: with it, the
/// table took 15 MB at 100k entries). A hint, checked against the chunk it names in the file
/// asked about: an entry left behind (a record moved by a split, or to another file) is only a
/// miss, after which the chunks are walked. [`WriteTxn::put_file`](crate::WriteTxn::put_file)
/// removes the old layout's entries and writes the new one's, so a one-record edit of INDEX.md
/// reads one chunk instead of all ~1,000.
pub(crate) const FILE_ITEM_AT: TableDefinition<[u8; 32], u64> =
    TableDefinition::new("file_item_at");

/// The `files` value of a layout whose items are in [`FILE_CHUNKS`]. A codec value is never
/// empty (it starts with its format byte), so this cannot be taken for an older full layout.
pub(crate) const CHUNKED: &[u8] = &[];

/// Items per chunk when a whole layout is written: a one-item change re-encodes this many.
/// 96 INDEX.md rows encode to ~3.5 KB, one 4 KB redb page: at 256 (~8.5 KB) each chunk took
/// a 16 KB page and the table was a third slack.
pub(crate) const CHUNK_ITEMS: usize = 96;
/// A chunk grown past this many items by insertions is split.
pub(crate) const CHUNK_MAX: usize = 2 * CHUNK_ITEMS;
/// The spacing of chunk numbers in a freshly written layout: room for 2^32 splits in between.
pub(crate) const CHUNK_STEP: u64 = 1 << 32;

/// Where an item of a stored layout is: the number of its chunk and its index in the chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ItemPos {
    /// The chunk's number (its order among the file's chunks).
    pub chunk: u64,
    /// The item's index within the chunk.
    pub index: usize,
}

pub(crate) fn decode_chunk(path: &str, bytes: &[u8]) -> Result<Vec<LayoutItem>, StoreError> {
    crate::codec::decode(bytes).map_err(|detail| StoreError::Corrupted {
        table: "file_chunks",
        key: path.to_string(),
        detail,
    })
}

/// Every item of the chunked layout at `path`, in order.
pub(crate) fn read_items(
    table: &impl ReadableTable<(&'static str, u64), &'static [u8]>,
    path: &str,
) -> Result<Vec<LayoutItem>, StoreError> {
    let mut items = Vec::new();
    for row in table.range((path, 0)..=(path, u64::MAX))? {
        let (_, v) = row?;
        items.extend(decode_chunk(path, v.value())?);
    }
    Ok(items)
}

/// The first chunk of `path` after (`forward`) or before chunk number `from`, with its number.
pub(crate) fn neighbour(
    table: &impl ReadableTable<(&'static str, u64), &'static [u8]>,
    path: &str,
    from: u64,
    forward: bool,
) -> Result<Option<(u64, Vec<LayoutItem>)>, StoreError> {
    let Some(number) = neighbour_number(table, path, from, forward)? else { return Ok(None) };
    match table.get((path, number))? {
        Some(v) => Ok(Some((number, decode_chunk(path, v.value())?))),
        None => Ok(None),
    }
}

/// The number of the first chunk of `path` after (`forward`) or before chunk number `from`;
/// nothing is decoded.
fn neighbour_number(
    table: &impl ReadableTable<(&'static str, u64), &'static [u8]>,
    path: &str,
    from: u64,
    forward: bool,
) -> Result<Option<u64>, StoreError> {
    let row = if forward {
        match from.checked_add(1) {
            Some(next) => table.range((path, next)..=(path, u64::MAX))?.next().transpose()?,
            None => None,
        }
    } else {
        match from.checked_sub(1) {
            Some(prev) => table.range((path, 0)..=(path, prev))?.next_back().transpose()?,
            None => None,
        }
    };
    Ok(row.map(|(k, _)| k.value().1))
}

/// The index of `key` in a chunk's bytes: walked by [`record_index`], decoded only when the
/// walk cannot read them.
fn index_in(path: &str, bytes: &[u8], key: &CaseHash) -> Result<Option<usize>, StoreError> {
    match record_index(bytes, key) {
        Some(index) => Ok(index),
        None => {
            let items = decode_chunk(path, bytes)?;
            Ok(items.iter().position(|i| *i == LayoutItem::Record(*key)))
        }
    }
}

/// Where the record `key` is in the chunked layout at `path`: the chunk [`FILE_ITEM_AT`]
/// names when it does hold the record, else the first chunk that does, found by walking each
/// chunk's bytes.
pub(crate) fn locate(
    table: &impl ReadableTable<(&'static str, u64), &'static [u8]>,
    at: Option<&impl ReadableTable<[u8; 32], u64>>,
    path: &str,
    key: &CaseHash,
) -> Result<Option<ItemPos>, StoreError> {
    if let Some(hint) = at.map(|t| t.get(key.0)).transpose()?.flatten() {
        let chunk = hint.value();
        if let Some(v) = table.get((path, chunk))? {
            if let Some(index) = index_in(path, v.value(), key)? {
                return Ok(Some(ItemPos { chunk, index }));
            }
        }
    }
    for row in table.range((path, 0)..=(path, u64::MAX))? {
        let (k, v) = row?;
        if let Some(index) = index_in(path, v.value(), key)? {
            return Ok(Some(ItemPos { chunk: k.value().1, index }));
        }
    }
    Ok(None)
}

/// Records in [`FILE_ITEM_AT`] that chunk `number` of `path` holds the records among `items`.
pub(crate) fn note_items(
    at: &mut redb::Table<[u8; 32], u64>,
    number: u64,
    items: &[LayoutItem],
) -> Result<(), StoreError> {
    for item in items {
        if let LayoutItem::Record(k) = item {
            at.insert(k.0, number)?;
        }
    }
    Ok(())
}

/// Writes `items` as the whole chunked layout of `path` (whose old chunks and item places
/// must be gone), with the chunk of each record in [`FILE_ITEM_AT`] when there is more than
/// one chunk (inserted in key order, which fills redb's leaves).
pub(crate) fn write_items(
    table: &mut redb::Table<(&'static str, u64), &'static [u8]>,
    at: &mut redb::Table<[u8; 32], u64>,
    path: &str,
    items: &[LayoutItem],
) -> Result<(), StoreError> {
    let mut places = Vec::new();
    let many = items.len() > CHUNK_ITEMS;
    for (n, chunk) in items.chunks(CHUNK_ITEMS).enumerate() {
        let number = n as u64 * CHUNK_STEP;
        table.insert((path, number), crate::codec::encode(&chunk).as_slice())?;
        if many {
            places.extend(chunk.iter().filter_map(|i| match i {
                LayoutItem::Record(k) => Some((k.0, number)),
                LayoutItem::Prose(_) => None,
            }));
        }
    }
    places.sort_unstable();
    for (k, number) in places {
        at.insert(k, number)?;
    }
    Ok(())
}

/// Removes every chunk of `path` and the places of its records (of a layout of more than one
/// chunk: a one-chunk layout has none).
pub(crate) fn clear(
    table: &mut redb::Table<(&'static str, u64), &'static [u8]>,
    at: &mut redb::Table<[u8; 32], u64>,
    path: &str,
) -> Result<(), StoreError> {
    let mut keys = Vec::new();
    let mut chunks = 0;
    for row in table.range((path, 0)..=(path, u64::MAX))? {
        let (_, v) = row?;
        chunks += 1;
        match walk(v.value()) {
            Some(items) => keys.extend(items.iter().filter_map(|i| match i {
                ItemRef::Record(k) => Some(k.0),
                ItemRef::Prose(_) => None,
            })),
            None => keys.extend(decode_chunk(path, v.value())?.iter().filter_map(|i| match i {
                LayoutItem::Record(k) => Some(k.0),
                LayoutItem::Prose(_) => None,
            })),
        }
    }
    if chunks > 1 {
        keys.sort_unstable();
        for k in keys {
            at.remove(k)?;
        }
    }
    table.retain_in((path, 0)..=(path, u64::MAX), |_, _| false)?;
    Ok(())
}

/// Replaces chunk `number` of `path` by `items`: removed when empty, split into chunks of
/// [`CHUNK_ITEMS`] numbered between it and the next chunk when longer than [`CHUNK_MAX`].
/// The places of the records written are kept in [`FILE_ITEM_AT`] when the file has any.
/// Returns `false`, writing nothing, when the numbers between are used up; the caller then
/// rewrites the whole layout.
pub(crate) fn replace_chunk(
    table: &mut redb::Table<(&'static str, u64), &'static [u8]>,
    at: &mut redb::Table<[u8; 32], u64>,
    path: &str,
    number: u64,
    items: &[LayoutItem],
) -> Result<bool, StoreError> {
    if items.is_empty() {
        table.remove((path, number))?;
        return Ok(true);
    }
    // A layout of one chunk keeps no places; one of several keeps them for every chunk.
    let next = neighbour_number(&*table, path, number, true)?;
    let places = next.is_some() || neighbour_number(&*table, path, number, false)?.is_some();
    let mut note = |number: u64, items: &[LayoutItem]| match places {
        true => note_items(at, number, items),
        false => Ok(()),
    };
    if items.len() <= CHUNK_MAX {
        table.insert((path, number), crate::codec::encode(&items).as_slice())?;
        note(number, items)?;
        return Ok(true);
    }
    let pieces: Vec<&[LayoutItem]> = items.chunks(CHUNK_ITEMS).collect();
    // The new numbers share the gap evenly; without a following chunk the gap runs to the
    // end of the number space (none is left after the last number: `step` is 0).
    let end = next.unwrap_or(u64::MAX);
    let step = (end - number) / pieces.len() as u64;
    if step == 0 {
        return Ok(false);
    }
    for (n, piece) in pieces.iter().enumerate() {
        let piece_at = number + n as u64 * step;
        table.insert((path, piece_at), crate::codec::encode(piece).as_slice())?;
        note(piece_at, piece)?;
    }
    Ok(true)
}

/// A layout item borrowed from a chunk's encoded bytes (see [`walk`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ItemRef<'a> {
    /// Prose text.
    Prose(&'a str),
    /// A record's key.
    Record(CaseHash),
}

impl ItemRef<'_> {
    /// The owned item.
    pub fn to_item(self) -> LayoutItem {
        match self {
            ItemRef::Prose(p) => LayoutItem::Prose(p.to_string()),
            ItemRef::Record(k) => LayoutItem::Record(k),
        }
    }
}

impl<'a> From<&'a LayoutItem> for ItemRef<'a> {
    fn from(item: &'a LayoutItem) -> Self {
        match item {
            LayoutItem::Prose(p) => ItemRef::Prose(p),
            LayoutItem::Record(k) => ItemRef::Record(*k),
        }
    }
}

/// The items of a chunk's encoded bytes, borrowed from them: no string is allocated, so
/// reading a 100k-item layout this way costs a walk over its bytes. `None` when the bytes are
/// not the encoding walked here (the caller then decodes them).
///
/// The encoding is [`crate::codec::encode`] of a `Vec<LayoutItem>`: the value-format byte,
/// then bincode's standard configuration — the item count as a varint, then per item its
/// variant index as a varint (0 `Prose`, 1 `Record`) followed by a varint length and the
/// string's bytes, or the key's 32 bytes. A varint below 251 is that byte; 251, 252 and 253
/// announce a little-endian u16, u32 and u64. `walks_what_the_codec_writes` pins this.
pub(crate) fn walk(bytes: &[u8]) -> Option<Vec<ItemRef<'_>>> {
    fn varint(b: &[u8], at: &mut usize) -> Option<u64> {
        let first = *b.get(*at)?;
        *at += 1;
        let width = match first {
            0..=250 => return Some(u64::from(first)),
            251 => 2,
            252 => 4,
            253 => 8,
            _ => return None,
        };
        let raw = b.get(*at..at.checked_add(width)?)?;
        *at += width;
        let mut buf = [0u8; 8];
        buf[..width].copy_from_slice(raw);
        Some(u64::from_le_bytes(buf))
    }
    if *bytes.first()? != crate::codec::VALUE_FORMAT {
        return None;
    }
    let mut at = 1;
    let count = usize::try_from(varint(bytes, &mut at)?).ok()?;
    // Every item takes at least two bytes: a count beyond that is not this encoding.
    let mut items = Vec::with_capacity(count.min(bytes.len() / 2));
    for _ in 0..count {
        match varint(bytes, &mut at)? {
            0 => {
                let len = usize::try_from(varint(bytes, &mut at)?).ok()?;
                let text = bytes.get(at..at.checked_add(len)?)?;
                items.push(ItemRef::Prose(std::str::from_utf8(text).ok()?));
                at += len;
            }
            1 => {
                let key: [u8; 32] = bytes.get(at..at.checked_add(32)?)?.try_into().ok()?;
                items.push(ItemRef::Record(CaseHash(key)));
                at += 32;
            }
            _ => return None,
        }
    }
    // A walk that does not end exactly at the end was not over this encoding.
    (at == bytes.len()).then_some(items)
}

/// The index of the item `LayoutItem::Record(key)` in a chunk's encoded bytes (`Some(None)`
/// when it holds no such item; `None` when [`walk`] cannot read the bytes).
pub(crate) fn record_index(bytes: &[u8], key: &CaseHash) -> Option<Option<usize>> {
    Some(walk(bytes)?.iter().position(|i| *i == ItemRef::Record(*key)))
}

/// Calls `f` with every item of the chunked layout at `path`, in order, borrowed from the
/// stored bytes where [`walk`] can read them.
pub(crate) fn scan(
    table: &impl ReadableTable<(&'static str, u64), &'static [u8]>,
    path: &str,
    f: &mut dyn FnMut(ItemPos, ItemRef<'_>),
) -> Result<(), StoreError> {
    for row in table.range((path, 0)..=(path, u64::MAX))? {
        let (k, v) = row?;
        let chunk = k.value().1;
        match walk(v.value()) {
            Some(items) => {
                for (index, item) in items.into_iter().enumerate() {
                    f(ItemPos { chunk, index }, item);
                }
            }
            None => {
                for (index, item) in decode_chunk(path, v.value())?.iter().enumerate() {
                    f(ItemPos { chunk, index }, item.into());
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Kind;

    #[test]
    fn walks_what_the_codec_writes() {
        let key = |n: usize| CaseHash::of(Kind::IndexRow, &format!("PL-{n}"));
        // Prose of every varint width the walk reads: short, over 250 bytes, over 65535.
        let mut items = Vec::new();
        for (n, len) in [0usize, 3, 250, 251, 300, 70_000].into_iter().enumerate() {
            items.push(LayoutItem::Prose("x".repeat(len)));
            items.push(LayoutItem::Record(key(n)));
        }
        let bytes = crate::codec::encode(&items);
        for n in 0..6 {
            assert_eq!(record_index(&bytes, &key(n)), Some(Some(2 * n + 1)), "record {n}");
        }
        assert_eq!(record_index(&bytes, &key(99)), Some(None));
        let walked: Vec<LayoutItem> =
            walk(&bytes).expect("walks").into_iter().map(ItemRef::to_item).collect();
        assert_eq!(walked, items);
        // Bytes that are not this encoding are not taken for it.
        assert_eq!(record_index(&bytes[..bytes.len() - 1], &key(0)), None);
        assert_eq!(record_index(&[9, 0], &key(0)), None);
        assert_eq!(walk(&[crate::codec::VALUE_FORMAT, 3, 0]), None);
    }
}
