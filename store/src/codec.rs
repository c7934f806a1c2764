//! The value codec: how records and layouts become bytes in redb, and back.
//!
//! Every value starts with a one-byte format version, followed by a bincode 2 encoding (serde,
//! standard configuration) of the value. bincode is pinned to 2.0.1 because 3.0.0 is an empty
//! tombstone release. The version byte lets a future evokb read old stores and refuse newer ones
//! with a clear message instead of decoding garbage.

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
    fn rejects_unknown_versions_and_garbage() {
        assert!(decode::<Record>(&[]).unwrap_err().contains("empty"));
        assert!(decode::<Record>(&[9, 0]).unwrap_err().contains("format 9"));
        assert!(decode::<Record>(&[VALUE_FORMAT, 0xff, 0xff]).is_err());
    }
}
