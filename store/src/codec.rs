//! The value codec: how records and layouts become bytes in redb, and back.
//!
//! Every value starts with a one-byte format version, followed by a bincode 2 encoding (serde,
//! standard configuration) of the value. bincode is pinned to 2.0.1 because 3.0.0 is an empty
//! tombstone release. The version byte lets a future evokb read old stores and refuse newer ones
//! with a clear message instead of decoding garbage.
//!
//! Records (the bulk of a store) may instead be *packed*: format [`PACKED_FORMAT`], the length
//! of the bincode bytes (u32, little-endian), then a zstd frame of those bytes compressed with
//! the store's record dictionary ([`RecordDict`]). A record is a few hundred bytes of
//! front-matter and prose that repeats across a knowledge base (keys, toolchains, devices,
//! phrases), which a plain per-value compressor cannot see (measured on the 100k synthetic
//! corpus: zstd alone 1.25×, lz4 1.11×; zstd level 3 with a 64 KiB dictionary trained from
//! 4 000 records 5.4×, lz4 with a raw dictionary 3.7× and far slower to compress). The
//! dictionary is trained once, from the records of the first large import, stored in the meta
//! table and never replaced, so every packed value stays decodable.

use std::sync::Mutex;

use serde::de::DeserializeOwned;
use serde::Serialize;

/// The value format written by this build.
pub const VALUE_FORMAT: u8 = 1;

/// Encodes a value with its version prefix.
pub fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    let mut out = vec![VALUE_FORMAT];
    // Encoding plain owned data into a Vec cannot fail: bincode only errors on writer I/O or on
    // types serde cannot describe, and all stored types are plain structs and enums.
    match bincode::serde::encode_to_vec(value, bincode::config::standard()) {
        Ok(bytes) => out.extend_from_slice(&bytes),
        Err(err) => unreachable!("encoding a stored value failed: {err}"),
    }
    out
}

/// The value format of a packed record (see the module documentation).
pub const PACKED_FORMAT: u8 = 2;

/// The zstd level records are packed at: level 9 packs 10% smaller but compresses 7× slower.
const PACK_LEVEL: i32 = 3;

/// How large a trained dictionary may be.
const DICT_BYTES: usize = 64 << 10;

/// The zstd level the first few records a process packs are packed at: loading the dictionary
/// per value at this level costs about 65 µs, and at [`PACK_LEVEL`] 190 µs, for values of the
/// same size (measured on a search event and the 100k synthetic corpus's dictionary).
const FEW_PACK_LEVEL: i32 = 1;

/// How many records a process packs one at a time, loading the dictionary for each, before it
/// builds the dictionary's compression tables once. Building them costs about 330 µs and 1 MB
/// of zeroed tables (a third of the CPU of recording a search hit, which packs one record);
/// after that each value costs a few microseconds, so a bulk import builds them early.
const FEW_RECORDS: u32 = 8;

/// The dictionary records are packed with, and the zstd contexts that use it (kept so that a
/// value's compression or decompression does not pay for loading the dictionary again).
pub struct RecordDict {
    bytes: Vec<u8>,
    pack: Mutex<Packer>,
    unpack: Mutex<zstd::bulk::Decompressor<'static>>,
}

/// Packs records with a [`RecordDict`]: one at a time while a process has packed only a few
/// ([`FEW_RECORDS`]), then with compression tables built from the dictionary once.
struct Packer {
    packed: u32,
    context: zstd::zstd_safe::CCtx<'static>,
    tables: Option<zstd::bulk::Compressor<'static>>,
}

impl Packer {
    fn compress(&mut self, dict: &[u8], payload: &[u8]) -> std::io::Result<Vec<u8>> {
        self.packed = self.packed.saturating_add(1);
        if self.tables.is_none() && self.packed > FEW_RECORDS {
            self.tables = Some(zstd::bulk::Compressor::with_dictionary(PACK_LEVEL, dict)?);
        }
        if let Some(tables) = &mut self.tables {
            return tables.compress(payload);
        }
        let mut out = Vec::with_capacity(zstd::zstd_safe::compress_bound(payload.len()));
        self.context
            .compress_using_dict(&mut out, payload, dict, FEW_PACK_LEVEL)
            .map_err(|code| std::io::Error::other(zstd::zstd_safe::get_error_name(code)))?;
        Ok(out)
    }
}

impl std::fmt::Debug for RecordDict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RecordDict({} bytes)", self.bytes.len())
    }
}

impl RecordDict {
    /// Loads a dictionary as [`RecordDict::bytes`] returned it.
    pub fn load(bytes: &[u8]) -> Result<RecordDict, String> {
        let err = |e: std::io::Error| format!("the record dictionary does not load: {e}");
        Ok(RecordDict {
            bytes: bytes.to_vec(),
            pack: Mutex::new(Packer {
                packed: 0,
                context: zstd::zstd_safe::CCtx::try_create()
                    .ok_or_else(|| err(std::io::Error::other("zstd allocates no context")))?,
                tables: None,
            }),
            unpack: Mutex::new(zstd::bulk::Decompressor::with_dictionary(bytes).map_err(err)?),
        })
    }

    /// Trains a dictionary from sample values (bincode of records, as [`encode_plain`] gives
    /// them). `None` when zstd finds too little in the samples to train on.
    pub fn train(samples: &[Vec<u8>]) -> Option<RecordDict> {
        let bytes = zstd::dict::from_samples(samples, DICT_BYTES).ok()?;
        RecordDict::load(&bytes).ok()
    }

    /// The dictionary as stored.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// A decompressor of the caller's own for this dictionary, for a thread that decodes many
    /// records beside others ([`decode_record_with`]): the dictionary's shared one is behind a
    /// lock, which threads decoding side by side would take in turns.
    pub fn unpacker(&self) -> Result<Unpacker, String> {
        zstd::bulk::Decompressor::with_dictionary(&self.bytes)
            .map(Unpacker)
            .map_err(|e| format!("the record dictionary does not load: {e}"))
    }
}

/// A decompressor for one [`RecordDict`], owned by one thread (see [`RecordDict::unpacker`]).
pub struct Unpacker(zstd::bulk::Decompressor<'static>);

/// The bincode bytes of a value, without a format byte: what a record dictionary is trained on.
pub fn encode_plain<T: Serialize>(value: &T) -> Vec<u8> {
    let mut out = encode(value);
    out.remove(0);
    out
}

/// Encodes a record: packed with `dict` when there is one (and packing makes it smaller), else
/// as [`encode`] does.
pub fn encode_record<T: Serialize>(value: &T, dict: Option<&RecordDict>) -> Vec<u8> {
    let plain = encode(value);
    let Some(dict) = dict else { return plain };
    let payload = &plain[1..];
    let packed = {
        let mut pack = dict.pack.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        pack.compress(&dict.bytes, payload)
    };
    match (packed, u32::try_from(payload.len())) {
        (Ok(frame), Ok(len)) if frame.len() + 5 < plain.len() => {
            let mut out = Vec::with_capacity(frame.len() + 5);
            out.push(PACKED_FORMAT);
            out.extend_from_slice(&len.to_le_bytes());
            out.extend_from_slice(&frame);
            out
        }
        _ => plain,
    }
}

/// Whether a stored value is packed (needs the record dictionary to decode).
pub fn is_packed(bytes: &[u8]) -> bool {
    bytes.first() == Some(&PACKED_FORMAT)
}

/// Decodes a record written by [`encode_record`]; `dict` is the store's record dictionary,
/// asked for only when the value is packed.
pub fn decode_record<T: DeserializeOwned>(
    bytes: &[u8],
    dict: impl FnOnce() -> Result<std::sync::Arc<RecordDict>, String>,
) -> Result<T, String> {
    if !is_packed(bytes) {
        return decode(bytes);
    }
    let len = packed_len(bytes)?;
    let dict = dict()?;
    let plain = {
        let mut unpack = dict.unpack.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        unpack.decompress(&bytes[5..], len)
    }
    .map_err(|e| format!("a packed value does not unpack: {e}"))?;
    decode_unpacked(&plain, len)
}

/// [`decode_record`] with a decompressor of the caller's own in `unpacker`, made from `dict`
/// when the first packed value needs it.
pub fn decode_record_with<T: DeserializeOwned>(
    bytes: &[u8],
    unpacker: &mut Option<Unpacker>,
    dict: impl FnOnce() -> Result<std::sync::Arc<RecordDict>, String>,
) -> Result<T, String> {
    if !is_packed(bytes) {
        return decode(bytes);
    }
    let len = packed_len(bytes)?;
    let unpack = match unpacker {
        Some(u) => u,
        None => unpacker.insert(dict()?.unpacker()?),
    };
    let plain = unpack
        .0
        .decompress(&bytes[5..], len)
        .map_err(|e| format!("a packed value does not unpack: {e}"))?;
    decode_unpacked(&plain, len)
}

/// The unpacked length a packed value states.
fn packed_len(bytes: &[u8]) -> Result<usize, String> {
    let head: [u8; 4] = bytes
        .get(1..5)
        .and_then(|b| b.try_into().ok())
        .ok_or("a packed value shorter than its length prefix")?;
    Ok(u32::from_le_bytes(head) as usize)
}

fn decode_unpacked<T: DeserializeOwned>(plain: &[u8], len: usize) -> Result<T, String> {
    if plain.len() != len {
        return Err(format!("a packed value unpacks to {} bytes, not {len}", plain.len()));
    }
    let (value, used) = bincode::serde::decode_from_slice(plain, bincode::config::standard())
        .map_err(|err| format!("undecodable value: {err}"))?;
    if used != plain.len() {
        return Err(format!("{} trailing bytes after the value", plain.len() - used));
    }
    Ok(value)
}

/// Decodes a value written by [`encode`]. Errors are sentences for a `Corrupted` report.
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    let (&version, payload) = bytes.split_first().ok_or("empty value")?;
    if version != VALUE_FORMAT {
        return Err(format!("value format {version} is not the supported format {VALUE_FORMAT}"));
    }
    let (value, used) = bincode::serde::decode_from_slice(payload, bincode::config::standard())
        .map_err(|err| format!("undecodable value: {err}"))?;
    if used != payload.len() {
        return Err(format!("{} trailing bytes after the value", payload.len() - used));
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{Kind, Record, Segment};

    #[test]
    fn round_trips_a_record() {
        let rec = Record {
            kind: Kind::Entry,
            id: "PL-1.6-copy-floor".into(),
            file: "a/b.md".into(),
            segments: vec![
                Segment::Lit("---\nid: ".into()),
                Segment::Field { key: "id".into(), value: "PL-1.6-copy-floor".into() },
                Segment::Body("正文\r\n".into()),
            ],
        };
        let bytes = encode(&rec);
        assert_eq!(bytes[0], VALUE_FORMAT);
        assert_eq!(decode::<Record>(&bytes), Ok(rec));
    }

    #[test]
    fn packs_records_with_a_trained_dictionary_and_unpacks_them() -> Result<(), String> {
        let rec = |i: usize| Record {
            kind: Kind::Entry,
            id: format!("PL-{i}"),
            file: "a/b.md".into(),
            segments: vec![
                Segment::Field {
                    key: "toolchain".into(),
                    value: "tilelang 0.1.2 / CANN 8.5.0".into(),
                },
                Segment::Body(
                    format!("### case {i}\n- measured {}µs on the vector unit\n", i * 7).into(),
                ),
            ],
        };
        let samples: Vec<Vec<u8>> = (0..2000).map(|i| encode_plain(&rec(i))).collect();
        let dict = std::sync::Arc::new(RecordDict::train(&samples).ok_or("training failed")?);
        let reloaded = std::sync::Arc::new(RecordDict::load(dict.bytes())?);
        let value = encode_record(&rec(5000), Some(&dict));
        assert!(is_packed(&value));
        assert!(value.len() < encode(&rec(5000)).len());
        assert_eq!(decode_record::<Record>(&value, || Ok(reloaded.clone()))?, rec(5000));
        // The first few values are packed one at a time, the rest with the built tables: both
        // kinds unpack, with the dictionary reloaded as another process would.
        for i in 0..FEW_RECORDS as usize * 3 {
            let value = encode_record(&rec(6000 + i), Some(&dict));
            assert!(is_packed(&value), "value {i} is not packed");
            assert_eq!(decode_record::<Record>(&value, || Ok(reloaded.clone()))?, rec(6000 + i));
        }
        assert!(dict.pack.lock().map_err(|e| e.to_string())?.tables.is_some());
        // A plain value decodes without the dictionary being asked for.
        let plain = encode_record(&rec(1), None);
        assert_eq!(decode_record::<Record>(&plain, || Err("not asked".into()))?, rec(1));
        // A cut packed value is an error, not a panic or garbage.
        assert!(decode_record::<Record>(&value[..value.len() - 3], || Ok(dict.clone())).is_err());
        assert!(decode_record::<Record>(&value[..3], || Ok(dict.clone())).is_err());
        Ok(())
    }

    #[test]
    fn rejects_unknown_versions_and_garbage() {
        assert!(decode::<Record>(&[]).unwrap_err().contains("empty"));
        assert!(decode::<Record>(&[9, 0]).unwrap_err().contains("format 9"));
        assert!(decode::<Record>(&[VALUE_FORMAT, 0xff, 0xff]).is_err());
    }
}
