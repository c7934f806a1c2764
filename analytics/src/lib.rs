//! evokb analytics: the figures that tell whether injected knowledge stops
//! the same errors coming back (同类错误复发率).
//!
//! - [`model`]: stored record types (bincode-2-safe serde).
//! - [`parse`]: JSONL parsing with line diagnostics and case keys.
//! - [`figures`]: transitions and recurrence over the error registry.
//! - [`timeline`]: `timeline-summary` and the stats metrics over timelines.
//! - [`chart`]: SVG charts.
//! - [`stored`]: the store collections that hold the data, and their loader.
//! - [`util`]: rounding, timestamps, round-name order.

pub mod chart;
pub mod figures;
pub mod model;
pub mod parse;
pub mod stored;
pub mod timeline;
pub mod util;
