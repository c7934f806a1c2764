//! Command dispatch: one function per subcommand, each returning the exit code or an error.

mod analytics;
mod completions;
pub mod doctor;
mod evolve;
mod gitops;
mod mcp;
mod policy;
mod rebuild;
mod records;
mod search;
mod sync;

use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::OnceLock;

use crate::cli::{ChartCmd, Cli, Command, HooksCmd, ImportOnly, ReportCmd, StatsCmd, TimelineCmd};
use crate::error::CmdResult;

/// Runs the parsed command line.
pub fn run(cli: &Cli) -> CmdResult {
    let _ = PRETTY.set(cli.pretty || std::io::stdout().is_terminal());
    let _ = QUIET.set(cli.quiet);
    cli.color.choice().write_global();
    let root = cli.root.as_deref();
    match &cli.command {
        Command::Init => sync::init(root),
        Command::Import { json, prefer, strict, check } => {
            sync::import(root, *json, *prefer, *strict, *check)
        }
        Command::Render { out, check, force, json } => {
            sync::render(root, out.as_deref(), *check, *force, *json)
        }
        Command::Verify { json } => sync::verify(root, *json),
        Command::Rebuild => rebuild::rebuild(root),
        Command::Get { id, kind, json } => records::get(root, id, *kind, *json),
        Command::Set { id, field, value, kind } => records::set(root, id, *kind, field, value),
        Command::Add { file, source, actor, enqueue } => {
            evolve::add(root, file, source.as_deref(), actor, *enqueue, false)
        }
        Command::Negate { file, source, actor } => {
            evolve::add(root, file, source.as_deref(), actor, false, true)
        }
        Command::Update { id, sets, actor } => evolve::update(root, id, sets, actor),
        Command::Consolidate { ids, into, actor } => evolve::consolidate(root, ids, into, actor),
        Command::Deprecate { id, by_entry, reason, actor } => {
            evolve::deprecate(root, id, by_entry.as_deref(), reason.as_deref(), actor)
        }
        Command::Clear { id, reason, actor } => evolve::clear(root, id, reason, actor),
        Command::Queue(cmd) => evolve::queue(root, cmd),
        Command::Report { cmd: Some(ReportCmd::Round { round, md: _, json }), .. } => {
            analytics::round_report(root, round, *json)
        }
        Command::Report { task, json, cmd: None } => {
            evolve::report(root, task.as_deref().unwrap_or(""), *json)
        }
        Command::Export { format, dir, json } => analytics::export(root, *format, dir, *json),
        Command::List { kind, json } => records::list(root, *kind, *json),
        Command::Similar { text, file, top, json } => {
            evolve::similar(root, text, file.as_deref(), *top, *json)
        }
        Command::Lint { json, errors_only, files, fresh } => {
            policy::lint(root, files, *json, *errors_only, *fresh)
        }
        Command::Budget { json } => policy::budget(root, *json),
        Command::Stale { stamp, include_unknown, json } => {
            policy::stale(root, stamp.as_deref(), *include_unknown, *json)
        }
        Command::Query { facets, page, count, json } => {
            records::query(root, &facets.filter(), *page, *count, *json)
        }
        Command::Search { index: true, json, .. } => search::inventory(root, *json),
        Command::Search { query, facets, top, offset, task, json, index: false } => {
            search::search(root, &query.join(" "), facets, (*top, *offset), task.as_deref(), *json)
        }
        Command::Stats(StatsCmd::Hits { since, json }) => {
            search::hits(root, since.as_deref(), *json)
        }
        Command::Errors(ImportOnly::Import { files }) => analytics::import_errors(root, files),
        Command::Rounds(ImportOnly::Import { files }) => analytics::import_rounds(root, files),
        Command::Timeline(TimelineCmd::Import { dirs }) => analytics::import_timelines(root, dirs),
        Command::Timeline(TimelineCmd::Summary { task, dir, json }) => {
            analytics::timeline_summary(root, task.as_deref(), dir.as_deref(), *json)
        }
        Command::Stats(StatsCmd::Transitions { from, to, cases, class, by, out }) => {
            analytics::transitions(
                root,
                from.as_deref(),
                to.as_deref(),
                (*cases).then_some(*class),
                *by,
                out.format(),
            )
        }
        Command::Stats(StatsCmd::Recurrence { after, map, by, out }) => {
            analytics::recurrence(root, *after, map.as_deref(), *by, out.format())
        }
        Command::Stats(StatsCmd::Metrics { out }) => analytics::metrics(root, out.format()),
        Command::Chart(ChartCmd::Recurrence { svg }) => analytics::chart_recurrence(root, svg),
        Command::Chart(ChartCmd::Hits { svg }) => analytics::chart_hits(root, svg),
        Command::Snapshot { task, summary, apply } => {
            gitops::snapshot(root, task.as_deref(), summary.as_deref(), apply)
        }
        Command::Hooks(HooksCmd::Install) => gitops::hooks_install(root),
        Command::Mcp => mcp::serve(root),
        Command::Doctor { json } => doctor::doctor(root, *json),
        Command::Completions { shell } => completions::print(*shell),
        Command::MergeDriver { base, ours, theirs, path } => {
            gitops::merge_driver(base, ours, theirs, path)
        }
    }
}

/// Writes `text` to stdout in one go; a closed pipe is reported as such so `main` can exit 0.
pub fn print(text: &str) -> CmdResult<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// Stdout for output the command buffers in large chunks itself (`query --json`): the chunks
/// go to the descriptor as they are, where std's `StdoutLock` is a `LineWriter` that searches
/// each chunk for its last newline, a twelfth of the instructions of a family query at 100k
/// entries. The descriptor is duplicated after std's own buffer is flushed, so no byte is
/// overtaken; where it cannot be (stdout closed, or not Unix), std's stdout is used, which
/// keeps its handling of a closed descriptor.
pub fn chunked_stdout() -> std::io::Result<Box<dyn std::io::Write>> {
    use std::io::Write;
    std::io::stdout().lock().flush()?;
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        if let Ok(fd) = std::io::stdout().as_fd().try_clone_to_owned() {
            widen_pipe(&fd);
            return Ok(Box::new(std::fs::File::from(fd)));
        }
    }
    Ok(Box::new(std::io::stdout().lock()))
}

/// When `fd` is a pipe with Linux's default 64 KiB buffer, asks for [`PIPE_BYTES`]: a family
/// query at 100k entries writes 6.5 MB, and through 64 KiB the writer and the reader took
/// turns a hundred times (with `cat` reading: 25.3 → 19.4 ms wall, medians of 21 runs). A
/// pipe already larger, a refusal (a per-user limit on pipe memory), or not a pipe leaves
/// things as they are; the reader sees the same bytes either way.
#[cfg(target_os = "linux")]
fn widen_pipe(fd: &std::os::fd::OwnedFd) {
    if rustix::pipe::fcntl_getpipe_size(fd).is_ok_and(|size| size < PIPE_BYTES) {
        let _ = rustix::pipe::fcntl_setpipe_size(fd, PIPE_BYTES);
    }
}

#[cfg(all(unix, not(target_os = "linux")))]
fn widen_pipe(_fd: &std::os::fd::OwnedFd) {}

/// The pipe buffer [`widen_pipe`] asks for: Linux's default limit for an unprivileged process
/// (`/proc/sys/fs/pipe-max-size`).
#[cfg(target_os = "linux")]
const PIPE_BYTES: usize = 1 << 20;

/// Writes `text`, which may hold ANSI styles, to stdout through anstream: the styles reach a
/// terminal, and are stripped in a pipe, under `NO_COLOR`, or with `--color never`
/// (`--color always` or `CLICOLOR_FORCE` keeps them).
pub fn print_styled(text: &str) -> CmdResult<()> {
    use std::io::Write;
    let mut out = anstream::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// Whether JSON is pretty-printed: `--pretty`, or stdout is a terminal (a person reads it).
/// Scripts and agents reading a pipe get one compact line, a third of the bytes.
static PRETTY: OnceLock<bool> = OnceLock::new();

/// Whether this process pretty-prints its JSON.
pub fn pretty() -> bool {
    PRETTY.get().copied().unwrap_or(false)
}

/// `--quiet`: no progress bar (see [`crate::progress`]).
static QUIET: OnceLock<bool> = OnceLock::new();

/// Whether `--quiet` was given.
pub fn quiet() -> bool {
    QUIET.get().copied().unwrap_or(false)
}

/// Serialises `value` as JSON (pretty or compact, see [`pretty`]) followed by a newline.
pub fn print_json<T: serde::Serialize + ?Sized>(value: &T) -> CmdResult<()> {
    use std::io::Write;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    if pretty() {
        serde_json::to_writer_pretty(&mut out, value)
    } else {
        serde_json::to_writer(&mut out, value)
    }
    .map_err(std::io::Error::from)?;
    out.write_all(b"\n")?;
    out.flush()?;
    Ok(())
}

/// Exit code 0.
pub fn ok() -> CmdResult {
    Ok(ExitCode::SUCCESS)
}
