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

    /// Colour in output (`render --check` diffs): auto uses it on a terminal unless NO_COLOR
    /// is set
    #[arg(long, global = true, value_enum, default_value_t = ColorArg::Auto, value_name = "WHEN")]
    pub color: ColorArg,

    /// Pretty-print JSON output (the default on a terminal; compact JSON otherwise)
    #[arg(long, global = true)]
    pub pretty: bool,

    /// Draw no progress bar on stderr (bars are drawn only on a terminal, after about a
    /// second, and never with --json or under CI); errors and notes are still printed
    #[arg(short, long, global = true)]
    pub quiet: bool,

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
        /// Refuse (exit 3, nothing written) when a structural problem turns would-be records into prose
        #[arg(long)]
        strict: bool,
        /// Read and check every managed file against the store, write nothing (for hooks)
        #[arg(long, conflicts_with = "prefer")]
        check: bool,
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
        /// With --check: print {ok, files: [{path, missing, diff}]}
        #[arg(long, requires = "check")]
        json: bool,
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
    /// Add entries (topic-file format) to a topic file and its INDEX table, under the add rules
    Add {
        /// The topic file, relative to the root, or just its name (`attention.md`)
        #[arg(long, value_name = "PATH")]
        file: String,
        /// Read the entries from this file instead of standard input
        source: Option<PathBuf>,
        #[command(flatten)]
        actor: ActorArgs,
        /// File a data entry that lacks its evidence triad as a Tier 1 queue item instead
        #[arg(long)]
        enqueue: bool,
    },
    /// Add a negative entry (a dead end, its reason and evidence); held to add's rules
    Negate {
        /// The topic file
        #[arg(long, value_name = "PATH")]
        file: String,
        /// Read the entry from this file instead of standard input
        source: Option<PathBuf>,
        #[command(flatten)]
        actor: ActorArgs,
    },
    /// Update fields of an entry in place, keeping its id
    Update {
        /// The entry
        id: String,
        /// FIELD=VALUE (can be repeated; `body=` sets the body)
        #[arg(long = "set", value_name = "FIELD=VALUE", required = true)]
        sets: Vec<String>,
        #[command(flatten)]
        actor: ActorArgs,
    },
    /// Merge entries into one, keeping every fact; the sources stay as deprecated pointers
    Consolidate {
        /// The entries merged away
        #[arg(required = true)]
        ids: Vec<String>,
        /// The surviving entry
        #[arg(long)]
        into: String,
        #[command(flatten)]
        actor: ActorArgs,
    },
    /// Mark an entry as superseded (head marker and status flip); nothing is deleted
    Deprecate {
        /// The entry
        id: String,
        /// The entry that replaces it
        #[arg(
            long,
            value_name = "NEW",
            required_unless_present = "reason",
            conflicts_with = "reason"
        )]
        by_entry: Option<String>,
        /// Why it no longer holds
        #[arg(long, value_name = "TEXT")]
        reason: Option<String>,
        #[command(flatten)]
        actor: ActorArgs,
    },
    /// Lift the quarantine of an imported record after a person reviewed its KB-SEC (or
    /// KB-QUEUE-STATE) findings; the decision is kept in the store and logged in the stats.md
    /// change log
    Clear {
        /// The quarantined record's id
        id: String,
        /// Why the findings are not an attack
        #[arg(long, value_name = "TEXT")]
        reason: String,
        #[command(flatten)]
        actor: ActorArgs,
    },
    /// The review queue
    #[command(subcommand)]
    Queue(QueueCmd),
    /// Print the Evolution Result block for one task's mutations (`--task T`), or a round report
    #[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
    Report {
        /// The task
        #[arg(long, required = true)]
        task: Option<String>,
        /// Print the block as JSON: {mode, task, verdict, merged_tier0, …, stats_updated, changes}
        #[arg(long)]
        json: bool,
        #[command(subcommand)]
        cmd: Option<ReportCmd>,
    },
    /// Write every analytics collection and the entries as tables for other engines
    Export {
        /// The file format
        #[arg(long, value_enum)]
        format: ExportFormatArg,
        /// The folder to write `cases`, `rounds`, `timeline_events`, `search_events` and
        /// `entries` into (created if missing)
        dir: PathBuf,
        /// Print {"tables": [{table, path, rows}]}
        #[arg(long)]
        json: bool,
    },
    /// Commit exactly the managed files evokb changed, as one evolution snapshot (never pushes)
    Snapshot {
        /// The task the evolution came from
        #[arg(long, required_unless_present = "apply")]
        task: Option<String>,
        /// One-line summary for the commit message
        #[arg(short = 'm', long = "message", required_unless_present = "apply")]
        summary: Option<String>,
        /// The queue items an approved apply merged (the message becomes `evolution: apply …`)
        #[arg(long, value_name = "IDS", num_args = 1.., conflicts_with_all = ["task", "summary"])]
        apply: Vec<String>,
    },
    /// Install git hooks
    #[command(subcommand)]
    Hooks(HooksCmd),
    /// Serve the knowledge base to agents over MCP (JSON-RPC on stdin and stdout)
    Mcp,
    /// Check what a clone needs: merge driver, hook, attributes, ignored store, store in sync
    Doctor {
        /// Print {"ok", "checks": [{name, ok, skipped, problem, fix}]}
        #[arg(long)]
        json: bool,
    },
    /// Merge base, ours and theirs of a managed file record by record (git merge driver)
    MergeDriver {
        /// The common ancestor's version (%O)
        base: PathBuf,
        /// Our version (%A), overwritten with the result
        ours: PathBuf,
        /// Their version (%B)
        theirs: PathBuf,
        /// The file's path in the repository (%P)
        path: String,
    },
    /// Check entries, queue items, repros and files against the rules (exit 1 on any error)
    Lint {
        /// Print {findings: [{code, severity, file, line, id, message}]}
        #[arg(long)]
        json: bool,
        /// Print only error-severity findings
        #[arg(long)]
        errors_only: bool,
        /// Lint only these files (and the repro scripts their entries name), parsed from disk
        /// without the store; INDEX coverage and orphan scripts are not checked
        #[arg(long, value_name = "PATH", num_args = 1..)]
        files: Vec<PathBuf>,
        /// Check every record's text again instead of using the verdicts the store remembers
        /// from earlier lints (the findings are the same either way)
        #[arg(long)]
        fresh: bool,
    },
    /// Check every managed file against its byte budget and list consolidation candidates
    Budget {
        /// Print {"files": [{path, bytes, budget_bytes, lines, over, candidates}]}
        #[arg(long)]
        json: bool,
    },
    /// List entries whose toolchain stamp differs from STAMP (not from the repository's HEAD)
    Stale {
        /// The current toolchain, e.g. "tilelang 0.1.2+4515de8 + CANN 8.5.0" (default:
        /// [toolchain] stamp in evokb.toml, else EVOKB_TOOLCHAIN_STAMP)
        #[arg(long)]
        stamp: Option<String>,
        /// Also list entries whose stamp shares nothing comparable with STAMP
        #[arg(long)]
        include_unknown: bool,
        /// Print as JSON
        #[arg(long)]
        json: bool,
    },
    /// Find entries by facets, from the facet index (repeat a flag to OR, combine flags to AND)
    Query {
        #[command(flatten)]
        facets: FacetArgs,
        #[command(flatten)]
        page: PageArgs,
        /// Print only the number of matching entries
        #[arg(long, conflicts_with_all = ["limit", "offset"])]
        count: bool,
        /// Print a JSON array of {id, kind, title, file, line, family, apis, dtype, device, status}
        #[arg(long)]
        json: bool,
    },
    /// Search entries, bottleneck patterns, gaps and queue items; records a hit when results come back
    Search {
        /// The query words (Chinese, English or mixed)
        #[arg(required_unless_present = "index", value_name = "QUERY")]
        query: Vec<String>,
        /// List every searchable record (id, source, title, path) instead of searching; records
        /// no hit
        #[arg(long, conflicts_with_all = ["query", "top", "task"])]
        index: bool,
        #[command(flatten)]
        facets: FacetArgs,
        /// How many results (1 to 1000)
        #[arg(long, visible_alias = "limit", value_name = "N", default_value_t = 8, value_parser = crate::args::top)]
        top: usize,
        /// Skip the K best results first (offset plus top at most 1000)
        #[arg(long, value_name = "K", default_value_t = 0, value_parser = crate::args::offset)]
        offset: usize,
        /// The task searching, recorded with the hit
        #[arg(long, value_name = "TASK_ID")]
        task: Option<String>,
        /// Print {query, total, results: [{id, source, title, path, facets, score, snippet}]}, with offset when --offset is given
        #[arg(long)]
        json: bool,
    },
    /// Rank the entries and pending or rejected queue items closest to a candidate, with the delta the rules call for
    Similar {
        /// The candidate text (a title or a whole entry)
        #[arg(value_name = "TEXT", required_unless_present = "file", conflicts_with = "file")]
        text: Vec<String>,
        /// Read the candidate from FILE (one front-matter entry, or plain text)
        #[arg(long, value_name = "FILE")]
        file: Option<PathBuf>,
        /// How many matches (1 to 1000)
        #[arg(long, default_value_t = 5, value_parser = crate::args::top)]
        top: usize,
        /// Print {candidate, delta, threshold, matches: [{id, kind, title, status, similarity, same_topic, delta}]}
        #[arg(long)]
        json: bool,
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
    /// Load the model-iteration error registry (`results/error_registry.jsonl`)
    #[command(subcommand)]
    Errors(ImportOnly),
    /// Load the model-iteration log (`results/iteration_log.jsonl`)
    #[command(subcommand)]
    Rounds(ImportOnly),
    /// Load task timelines and summarise one
    #[command(subcommand)]
    Timeline(TimelineCmd),
    /// Compute figures: transitions, recurrence, metrics
    #[command(subcommand)]
    Stats(StatsCmd),
    /// Draw figures as SVG
    #[command(subcommand)]
    Chart(ChartCmd),
    /// Rebuild the store: the derived indexes of a sound store, or, when the database is
    /// damaged, a new store imported from the markdown (the damaged one is moved aside)
    Rebuild,
    /// Print a shell completion script (e.g. `evokb completions bash > ~/.local/share/bash-completion/completions/evokb`)
    Completions {
        /// The shell
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Check the store's integrity and print counts per kind and a content digest
    Verify {
        /// Print the result as JSON
        #[arg(long)]
        json: bool,
    },
}

/// When output is coloured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorArg {
    /// On a terminal, unless NO_COLOR is set
    Auto,
    /// Always, even in a pipe
    Always,
    /// Never
    Never,
}

impl ColorArg {
    /// The anstream choice this flag stands for.
    pub fn choice(self) -> anstream::ColorChoice {
        match self {
            ColorArg::Auto => anstream::ColorChoice::Auto,
            ColorArg::Always => anstream::ColorChoice::Always,
            ColorArg::Never => anstream::ColorChoice::Never,
        }
    }
}

/// Which side wins an import conflict.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum PreferArg {
    /// The markdown file
    File,
    /// The store
    Store,
}

pub fn parse_kind(s: &str) -> Result<evokb_store::Kind, String> {
    evokb_store::Kind::from_tag(s).ok_or_else(|| {
        let tags: Vec<&str> = evokb_store::Kind::ALL.iter().map(|k| k.tag()).collect();
        format!("unknown kind '{s}' (kinds: {})", tags.join(", "))
    })
}

/// A subcommand that only imports files.
#[derive(Debug, Subcommand)]
pub enum ImportOnly {
    /// Import these JSONL files; re-importing the same lines adds nothing
    Import {
        /// The files
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}

/// `evokb timeline …`
#[derive(Debug, Subcommand)]
pub enum TimelineCmd {
    /// Import `.task_timeline.jsonl` files: DIR is a task folder or a folder of task folders
    Import {
        /// The folders
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
    },
    /// Print the timeline-summary figures of one task (statectl's timeline-summary)
    Summary {
        /// The task id (the timeline's folder name), from the store
        #[arg(long, required_unless_present = "dir", conflicts_with = "dir")]
        task: Option<String>,
        /// A task folder: read its `.task_timeline.jsonl` directly, as `statectl --dir` does
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
        /// Print statectl's JSON, byte for byte
        #[arg(long)]
        json: bool,
    },
}

/// Output format flags shared by the figures.
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct FormatArgs {
    /// Print as JSON
    #[arg(long)]
    pub json: bool,
    /// Print as CSV
    #[arg(long, conflicts_with = "json")]
    pub csv: bool,
}

/// How a figure is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// An aligned text table.
    Table,
    /// JSON.
    Json,
    /// CSV with a header row.
    Csv,
}

impl FormatArgs {
    /// The chosen format.
    pub fn format(self) -> Format {
        if self.json {
            Format::Json
        } else if self.csv {
            Format::Csv
        } else {
            Format::Table
        }
    }
}

/// `evokb stats …`
#[derive(Debug, Subcommand)]
pub enum StatsCmd {
    /// Fail/pass transitions between consecutive rounds
    Transitions {
        /// The first round of the range
        #[arg(long)]
        from: Option<String>,
        /// The last round of the range
        #[arg(long)]
        to: Option<String>,
        /// List the cases of each transition instead of counting them
        #[arg(long, conflicts_with = "by")]
        cases: bool,
        /// With --cases: only this class
        #[arg(long, value_enum, requires = "cases")]
        class: Option<ClassArg>,
        /// The figures per subset or per root-cause pattern
        #[arg(long, value_enum)]
        by: Option<ByField>,
        #[command(flatten)]
        out: FormatArgs,
    },
    /// The recurrence rate of failing cases, overall, after a fix, or after injection
    Recurrence {
        /// Count recurrences after a fix, or after the knowledge was injected
        #[arg(long, value_enum)]
        after: Option<AfterArg>,
        /// With --after injection: a JSON mapping of entries to error patterns or verdicts
        #[arg(long, value_name = "FILE", requires = "after")]
        map: Option<PathBuf>,
        /// The figure per subset or per root-cause pattern (not with --map)
        #[arg(long, value_enum, conflicts_with = "map")]
        by: Option<ByField>,
        #[command(flatten)]
        out: FormatArgs,
    },
    /// Hits per entry from the search events, and the entries with none
    Hits {
        /// Only events at or after DATE (`2026-09-10` or a full UTC timestamp)
        #[arg(long, value_name = "DATE", value_parser = crate::args::since)]
        since: Option<String>,
        /// Print {"entries": [{id, hits, last_hit_ts, last_hit_task}], "zero_hit": [ids]}
        #[arg(long)]
        json: bool,
    },
    /// North-star metrics from the task timelines
    Metrics {
        #[command(flatten)]
        out: FormatArgs,
    },
}

/// `evokb report …`
#[derive(Debug, Subcommand)]
pub enum ReportCmd {
    /// One round of the model-iteration loop against the round before it
    Round {
        /// The round, e.g. R2
        round: String,
        /// Print markdown (the default)
        #[arg(long, conflicts_with = "json")]
        md: bool,
        /// Print JSON
        #[arg(long)]
        json: bool,
    },
}

/// A transition class.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ClassArg {
    /// fail → fail
    Persistent,
    /// pass → fail
    #[value(name = "new_fail")]
    NewFail,
    /// fail → pass
    #[value(name = "new_fix")]
    NewFix,
}

/// What a breakdown groups by.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ByField {
    /// The case's `subset`
    Subset,
    /// The case's root-cause `pattern`
    Pattern,
}

/// The export file format.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ExportFormatArg {
    /// Apache Parquet (snappy)
    Parquet,
    /// CSV with a header row
    Csv,
}

/// What a recurrence is counted after.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum AfterArg {
    /// The first round a case passed after failing
    Fix,
    /// The first round whose intervention targeted the case's pattern
    Injection,
}

/// `evokb chart …`
#[derive(Debug, Subcommand)]
pub enum ChartCmd {
    /// Fails per round split into persistent, new_fail and new_fix, injections marked
    Recurrence {
        /// Where to write the SVG
        #[arg(long, value_name = "FILE")]
        svg: PathBuf,
    },
    /// Hits per entry over time, from the search events
    Hits {
        /// Where to write the SVG
        #[arg(long, value_name = "FILE")]
        svg: PathBuf,
    },
}

/// Facet filters shared by `query` and `search`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct FacetArgs {
    /// Entries of this operator family (`[attention, expert]` lists)
    #[arg(long, value_name = "F")]
    pub family: Vec<String>,
    /// Entries naming this API
    #[arg(long, value_name = "A")]
    pub api: Vec<String>,
    /// Entries for this dtype
    #[arg(long, value_name = "D")]
    pub dtype: Vec<String>,
    /// Entries for this device
    #[arg(long, value_name = "X")]
    pub device: Vec<String>,
    /// Entries of this front-matter kind (pattern, trap, case, constant)
    #[arg(long, value_name = "K")]
    pub kind: Vec<String>,
    /// Entries with this status (verified, stale, overturned)
    #[arg(long, value_name = "S")]
    pub status: Vec<String>,
    /// Entries whose id starts with P
    #[arg(long, value_name = "P")]
    pub id_prefix: Vec<String>,
}

impl FacetArgs {
    /// The store filter these flags describe.
    pub fn filter(&self) -> evokb_store::Filter {
        let mut facets = std::collections::BTreeMap::new();
        for (name, values) in [
            ("family", &self.family),
            ("apis", &self.api),
            ("dtype", &self.dtype),
            ("device", &self.device),
            ("kind", &self.kind),
            ("status", &self.status),
        ] {
            if !values.is_empty() {
                facets.insert(name.to_string(), values.clone());
            }
        }
        evokb_store::Filter { facets, id_prefixes: self.id_prefix.clone() }
    }
}

/// Paging flags for `query`: a window of the sorted rows.
#[derive(Debug, Clone, Copy, Default, clap::Args)]
pub struct PageArgs {
    /// Print at most N entries
    #[arg(long, value_name = "N", value_parser = crate::args::limit)]
    pub limit: Option<usize>,
    /// Skip the first K entries
    #[arg(long, value_name = "K", default_value_t = 0, value_parser = crate::args::offset)]
    pub offset: usize,
}

impl PageArgs {
    /// The window of `len` sorted rows an agent asked for: `--offset` rows skipped, at most
    /// `--limit` kept.
    pub fn window(&self, len: usize) -> std::ops::Range<usize> {
        let start = self.offset.min(len);
        start..start.saturating_add(self.limit.unwrap_or(usize::MAX)).min(len)
    }
}

/// `evokb hooks …`
#[derive(Debug, Subcommand)]
pub enum HooksCmd {
    /// Register the merge driver and write the pre-commit hook, with this binary's absolute path
    Install,
}

/// Who acts, for which task: every mutation records both.
#[derive(Debug, Clone, clap::Args)]
pub struct ActorArgs {
    /// The task the change comes from
    #[arg(long, value_name = "TASK_ID", default_value = "manual")]
    pub task: String,
    /// Who decided: evolver or human
    #[arg(long, value_enum, default_value = "human")]
    pub by: ByArg,
}

/// Who acts.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ByArg {
    /// The evolver agent
    Evolver,
    /// A person
    Human,
}

impl ByArg {
    /// The word written to the files.
    pub fn word(self) -> &'static str {
        match self {
            ByArg::Evolver => "evolver",
            ByArg::Human => "human",
        }
    }
}

/// `evokb queue …`
#[derive(Debug, Subcommand)]
pub enum QueueCmd {
    /// Add a pending item (Tier 1 for D/P/C at 1/2, Tier 2 for R)
    Add {
        /// D, P, R or C
        #[arg(long = "type", value_name = "TYPE")]
        kind: String,
        /// One sentence with keywords
        #[arg(long)]
        title: String,
        /// Provenance (can be repeated)
        #[arg(long)]
        evidence: Vec<String>,
        /// A knowledge-domain script, repro-missing or none
        #[arg(long, default_value = "repro-missing")]
        repro: String,
        /// The toolchain stamp
        #[arg(long, default_value = "")]
        toolchain: String,
        /// The target file (repository path)
        #[arg(long)]
        target_doc: String,
        /// A file holding the delta text
        #[arg(long, value_name = "FILE")]
        delta_file: PathBuf,
        /// File it although its title matches a pending or rejected item of its type (recorded
        /// in the change log)
        #[arg(long)]
        new_topic: bool,
        #[command(flatten)]
        actor: ActorArgs,
    },
    /// Add a confirmation from a task; only distinct tasks of distinct lineages count
    Confirm {
        /// The item
        vp: String,
        /// The op lineage (default: the task id without its run stamp)
        #[arg(long)]
        lineage: Option<String>,
        /// The evidence this task brings
        #[arg(long)]
        evidence: Option<String>,
        /// Reproduced elsewhere with the full triad: count as 2/2 (Tier 1 only)
        #[arg(long)]
        fast_track: bool,
        #[command(flatten)]
        actor: ActorArgs,
    },
    /// Print one item's fields
    Show {
        /// The item
        vp: String,
        /// Print as JSON
        #[arg(long)]
        json: bool,
    },
    /// Perform a verified Tier 1 item's delta and mark it merged
    Merge {
        /// The item
        vp: String,
        /// The delta is prose that was applied by hand; record the merge
        #[arg(long)]
        applied: bool,
        #[command(flatten)]
        actor: ActorArgs,
    },
    /// Record a person's approval of a Tier 2 item
    Approve {
        /// The item
        vp: String,
        /// The approval context
        #[arg(long)]
        note: String,
        #[command(flatten)]
        actor: ActorArgs,
    },
    /// Apply approved Tier 2 items: unique anchor, old → new, validated on a copy first
    Apply {
        /// The items
        #[arg(required = true)]
        vps: Vec<String>,
        /// A shell command run on the changed temporary copy ($EVOKB_APPLY_FILE) first
        #[arg(long, value_name = "CMD")]
        validate: Option<String>,
        #[command(flatten)]
        actor: ActorArgs,
    },
    /// Reject an item, with the reason
    Reject {
        /// The item
        vp: String,
        /// Why
        #[arg(long)]
        reason: String,
        #[command(flatten)]
        actor: ActorArgs,
    },
    /// Mark items pending more than 90 days as expired
    Expire {
        /// Today's date (YYYY-MM-DD); default: the current UTC date
        #[arg(long, value_name = "DATE", value_parser = crate::args::date)]
        today: Option<String>,
        #[command(flatten)]
        actor: ActorArgs,
    },
    /// List items pending more than 75 days (15 days before they expire)
    Due {
        /// Today's date (YYYY-MM-DD); default: the current UTC date
        #[arg(long, value_name = "DATE", value_parser = crate::args::date)]
        today: Option<String>,
        /// Print as JSON
        #[arg(long)]
        json: bool,
    },
}
