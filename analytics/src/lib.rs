//! evokb analytics: the figures that tell whether injected knowledge stops
//! the same errors coming back (同类错误复发率).
//!
//! - [`model`]: stored record types (bincode-2-safe serde).
//! - [`parse`]: JSONL parsing with line diagnostics and case keys.
//! - [`figures`]: transitions and recurrence over the error registry.
//! - [`breakdown`]: the cases behind the transitions, and figures by subset or pattern.
//! - [`report`]: the round report (markdown or JSON).
//! - [`export`]: Parquet and CSV tables for other engines.
//! - [`statectl`]: statectl's `timeline-summary` JSON, byte for byte.
//! - [`timeline`]: `timeline-summary` and the stats metrics over timelines.
//! - [`chart`]: SVG charts.
//! - [`table`]: the registry in columns, as every figure reads it.
//! - [`stored`]: the store collections that hold the data, and their loader.
//! - [`util`]: rounding, timestamps, round-name order.

pub mod breakdown;
pub mod chart;
pub mod export;
pub mod figures;
pub mod model;
pub mod parse;
pub mod report;
pub mod statectl;
pub mod stored;
pub mod table;
pub mod timeline;
pub mod util;
