//! The one integration-test binary of evokb (one binary links once; many would each link the
//! whole dependency tree). Each module covers one area; library-level tests are preferred and
//! only a few tests drive the `evokb` process end to end.

mod support;

mod analytics;
mod changelog;
mod chunks;
mod concurrency;
mod corrupt;
mod cost;
mod coverage;
mod crash;
mod doctor;
mod evolution;
mod fuzz_regressions;
mod gitmerge;
mod hits_render;
mod hostile;
mod inventory;
mod layouts;
mod lint_files;
mod lint_verdicts;
mod malformed;
mod manyclones;
mod mcp;
mod model;
mod output;
mod overlap;
mod progress;
mod props;
mod quarantine;
mod query;
mod relevance;
mod repros;
mod roundtrip;
mod rules;
mod schemas;
mod similar;
mod snapshots;
mod stale;
mod sync;
mod tidy;
