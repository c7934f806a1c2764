//! # evokb-evolve
//!
//! The evolution domain of an evokb knowledge base, on the store: the five deltas
//! ([`deltas`]), the review queue's lifecycle ([`queue`]), the rules that judge content
//! (lint, budgets and staleness, [`rules`]), hit accounting ([`hits`]), the `stats.md` rows
//! render derives ([`derived`], [`metrics`]) and rendering with them ([`render`]), and the
//! quarantine of imported records with security findings ([`quarantine`]), and the dedupe
//! ranking of a candidate against what the knowledge base already holds ([`similar`]).
//!
//! It uses `evokb-store` for records and `evokb-export` for everything that touches markdown;
//! neither of them uses this crate. It writes no markdown by hand: rows and items are built
//! through `evokb-export`'s builders and checked by its parsers.
#![warn(missing_docs)]

pub mod changelog;
pub mod deltas;
pub mod derived;
pub mod error;
pub mod hits;
pub mod metrics;
pub mod quarantine;
pub mod queue;
pub mod render;
pub mod rules;
pub mod similar;
pub mod verdicts;
