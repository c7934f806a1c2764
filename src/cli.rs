//! The command-line interface: flags and subcommands, as clap derives them.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

/// A canonical record store for self-improving coding agents' knowledge bases.
#[derive(Debug, Parser)]
#[command(name = "evokb", version, about, max_term_width = 100)]
pub struct Cli {
    /// Use the knowledge base at DIR instead of searching upwards for `.evokb/`
    #[arg(long, global = true, value_name = "DIR")]
    pub root: Option<PathBuf>,

    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create an empty store in `.evokb/` at the knowledge-base root
    Init,
    /// Ingest every managed file into the store, all or nothing
    Import {
        /// Print the result as JSON
        #[arg(long)]
        json: bool,
        /// Settle records changed on both sides by taking this side
        #[arg(long, value_enum)]
        prefer: Option<PreferArg>,
    },
    /// Regenerate every managed file from the store
    Render {
        /// Write the files under DIR instead of in place
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Write nothing; list files that differ with a short diff, exit 1 if any
        #[arg(long, conflicts_with = "out")]
        check: bool,
        /// Overwrite files edited since the last import (their edits are lost)
        #[arg(long, conflicts_with_all = ["out", "check"])]
        force: bool,
    },
    /// Print one record with all its fields
    Get {
        /// The record's id
        id: String,
        /// The record's kind, when several kinds share the id (an entry and its INDEX row)
        #[arg(long, value_parser = parse_kind)]
        kind: Option<evokb_store::Kind>,
        /// Print the record as JSON
        #[arg(long)]
        json: bool,
    },
    /// Change one field of one record
    Set {
        /// The record's id
        id: String,
        /// The field to change (`body` for the body)
        field: String,
        /// The new value
        value: String,
        /// The record's kind, when several kinds share the id
        #[arg(long, value_parser = parse_kind)]
        kind: Option<evokb_store::Kind>,
    },
    /// Add entries (topic-file format) to the end of a topic file and its INDEX table
    Add {
        /// The topic file, relative to the root, or just its name (`attention.md`)
        #[arg(long, value_name = "PATH")]
        file: String,
        /// Read the entries from this file instead of standard input
        source: Option<PathBuf>,
    },
    /// List records, optionally of one kind
    List {
        /// Only records of this kind
        #[arg(long, value_parser = parse_kind)]
        kind: Option<evokb_store::Kind>,
        /// Print as JSON
        #[arg(long)]
        json: bool,
    },
    /// Write a synthetic knowledge base in the real format (for benchmarks)
    #[command(hide = true)]
    GenCorpus {
        /// How many entries
        #[arg(long, default_value_t = 10_000)]
        entries: usize,
        /// The random seed
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Where to write it
        dir: PathBuf,
    },
    /// Check the store's integrity and print counts per kind and a content digest
    Verify {
        /// Print the result as JSON
        #[arg(long)]
        json: bool,
    },
}

/// Which side wins an import conflict.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum PreferArg {
    /// The markdown file
    File,
    /// The store
    Store,
}

fn parse_kind(s: &str) -> Result<evokb_store::Kind, String> {
    evokb_store::Kind::from_tag(s).ok_or_else(|| {
        let tags: Vec<&str> = evokb_store::Kind::ALL.iter().map(|k| k.tag()).collect();
        format!("unknown kind '{s}' (kinds: {})", tags.join(", "))
    })
}
