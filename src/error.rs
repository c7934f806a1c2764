//! Command errors: what went wrong, the details (one per file or record), hints, and the kind
//! of failure that picks the exit code (documented in the README).

use std::fmt;

use evokb_export::{ImportError, MutateError, RenderError};
use evokb_store::{OpenError, StoreError};

/// What kind of failure ended a command; each has its own exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// A check found differences or problems (`render --check`, `verify`): exit 1.
    CheckFailed,
    /// The command line or an argument is wrong (unknown id, field or value): exit 2.
    Usage,
    /// An input file is malformed: exit 3.
    InvalidInput,
    /// The files and the store disagree and evokb will not choose: exit 4.
    Conflict,
    /// The store or the file system failed, or the store is missing or busy: exit 5.
    Store,
}

impl ErrorKind {
    /// The process exit code.
    pub fn exit_code(self) -> u8 {
        match self {
            ErrorKind::CheckFailed => 1,
            ErrorKind::Usage => 2,
            ErrorKind::InvalidInput => 3,
            ErrorKind::Conflict => 4,
            ErrorKind::Store => 5,
        }
    }
}

/// An error reported to the user.
#[derive(Debug)]
pub struct CommandError {
    /// Picks the exit code.
    pub kind: ErrorKind,
    /// One sentence.
    pub message: String,
    /// One line per file, record or diagnostic.
    pub details: Vec<String>,
    /// What to do about it.
    pub hints: Vec<String>,
    broken_pipe: bool,
}

impl CommandError {
    /// A new error of `kind`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> CommandError {
        CommandError {
            kind,
            message: message.into(),
            details: Vec::new(),
            hints: Vec::new(),
            broken_pipe: false,
        }
    }

    /// Adds a hint.
    pub fn hint(mut self, hint: impl Into<String>) -> CommandError {
        self.hints.push(hint.into());
        self
    }

    /// Adds the hints for a damaged store: what rebuilds it from the markdown.
    pub fn damage_hints(self) -> CommandError {
        self.hint(
            "'evokb rebuild' moves the damaged store aside and re-imports it from the markdown \
             (by hand: rm -rf .evokb && evokb init && evokb import)",
        )
        .hint(
            "data kept only in the store (errors, rounds and timeline imports) must be imported \
             again afterwards; the markdown files are the source of everything else",
        )
    }

    /// A store error, with the rebuild hints when the error means the store is damaged.
    fn store(message: String, damaged: bool) -> CommandError {
        let e = CommandError::new(ErrorKind::Store, message);
        if damaged {
            e.damage_hints()
        } else {
            e
        }
    }

    /// The message, one indented line per detail and one `hint:` line per hint, as the CLI
    /// prints them after `evokb: `.
    pub fn full_text(&self) -> String {
        let mut out = self.message.clone();
        for detail in &self.details {
            out.push_str("\n  ");
            out.push_str(detail);
        }
        for hint in &self.hints {
            out.push_str("\nhint: ");
            out.push_str(hint);
        }
        out
    }

    /// Whether this is a closed stdout (a pipe to `head`), which is not a failure.
    pub fn is_broken_pipe(&self) -> bool {
        self.broken_pipe
    }
}

impl fmt::Display for CommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<std::io::Error> for CommandError {
    fn from(err: std::io::Error) -> Self {
        let mut e = CommandError::new(ErrorKind::Store, format!("i/o error: {err}"));
        e.broken_pipe = err.kind() == std::io::ErrorKind::BrokenPipe;
        e
    }
}

impl From<OpenError> for CommandError {
    fn from(err: OpenError) -> Self {
        let missing = matches!(err, OpenError::NotFound { .. });
        let e = CommandError::store(err.to_string(), err.is_damage());
        if missing {
            e.hint("run 'evokb init' at the knowledge-base root, then 'evokb import'")
        } else {
            e
        }
    }
}

impl From<StoreError> for CommandError {
    fn from(err: StoreError) -> Self {
        CommandError::store(err.to_string(), err.is_damage())
    }
}

impl From<ImportError> for CommandError {
    fn from(err: ImportError) -> Self {
        let message = err.to_string();
        match err {
            ImportError::Invalid { diagnostics } => {
                let mut e = CommandError::new(ErrorKind::InvalidInput, message);
                e.details = diagnostics.iter().map(ToString::to_string).collect();
                e
            }
            ImportError::Structural { diagnostics } => {
                let mut e = CommandError::new(ErrorKind::InvalidInput, message);
                e.details = diagnostics.iter().map(ToString::to_string).collect();
                e.hint("--strict refuses files whose structure turns records into prose; fix the lines above, or import without --strict to take the files as they are")
            }
            ImportError::Conflicts { conflicts } => {
                let mut e = CommandError::new(ErrorKind::Conflict, message);
                e.details = conflicts.iter().map(ToString::to_string).collect();
                e.hint("'evokb import --prefer file' takes the files' versions, '--prefer store' keeps the store's")
            }
            ImportError::Io { .. } => CommandError::new(ErrorKind::Store, message),
            ImportError::Follow { .. } => CommandError::new(ErrorKind::Conflict, message),
            ImportError::IndexRow { .. } => CommandError::new(ErrorKind::InvalidInput, message),
            ImportError::Layout(_) => CommandError::new(ErrorKind::InvalidInput, message),
            ImportError::Store(err) => CommandError::store(message, err.is_damage()),
            _ => CommandError::new(ErrorKind::Store, message),
        }
    }
}

impl From<RenderError> for CommandError {
    fn from(err: RenderError) -> Self {
        let message = err.to_string();
        match err {
            RenderError::EditedOnDisk { .. } => CommandError::new(ErrorKind::Conflict, message)
                .hint("'evokb import' takes the edits into the store; 'evokb render --force' overwrites them"),
            RenderError::Derived(err) => (*err).into(),
            RenderError::Dangling { .. } => CommandError::new(ErrorKind::Store, message)
                .hint("'evokb verify' lists every integrity problem; 'evokb rebuild' re-imports the files"),
            RenderError::Store(err) => CommandError::store(message, err.is_damage()),
            RenderError::Layout(_) => CommandError::new(ErrorKind::InvalidInput, message),
            _ => CommandError::new(ErrorKind::Store, message),
        }
    }
}

impl From<evokb_export::layout::LayoutError> for CommandError {
    fn from(err: evokb_export::layout::LayoutError) -> Self {
        CommandError::new(ErrorKind::InvalidInput, err.to_string())
    }
}

impl From<evokb_evolve::error::DeltaError> for CommandError {
    fn from(err: evokb_evolve::error::DeltaError) -> Self {
        use evokb_evolve::error::DeltaError;
        let message = err.to_string();
        match err {
            DeltaError::Markdown(m) => m.into(),
            DeltaError::Enqueue(q) => (*q).into(),
            DeltaError::SameTopic { existing, .. } => CommandError::new(ErrorKind::Usage, message)
                .hint(format!(
                    "'evokb update {existing} --set FIELD=VALUE' changes the existing entry"
                )),
            DeltaError::MissingEvidence { .. } => CommandError::new(ErrorKind::Usage, message)
                .hint("'--enqueue' files it as a Tier 1 queue item marked repro-missing"),
            DeltaError::DeprecateWithoutCause => CommandError::new(ErrorKind::Usage, message)
                .hint("pass --by-entry NEW or --reason TEXT"),
            _ => CommandError::new(ErrorKind::Usage, message),
        }
    }
}

impl From<evokb_evolve::error::QueueError> for CommandError {
    fn from(err: evokb_evolve::error::QueueError) -> Self {
        use evokb_evolve::error::QueueError;
        let message = err.to_string();
        match err {
            QueueError::Markdown(m) => m.into(),
            QueueError::Delta(d) => d.into(),
            QueueError::SameTopicPending { vp, .. } => CommandError::new(ErrorKind::Usage, message)
                .hint(format!("'evokb queue confirm {vp} --task TASK_ID --evidence TEXT' adds this task's confirmation and evidence to it"))
                .hint("'--new-topic' files it anyway when the topic really differs (the change log records the override)"),
            QueueError::SameTopicRejected { .. } => CommandError::new(ErrorKind::Usage, message)
                .hint("'--new-topic' files it anyway when the new evidence answers the rejection (the change log records the override)"),
            _ => CommandError::new(ErrorKind::Usage, message),
        }
    }
}

impl From<MutateError> for CommandError {
    fn from(err: MutateError) -> Self {
        let message = err.to_string();
        match err {
            MutateError::Invalid { diagnostics } => {
                let mut e =
                    CommandError::new(ErrorKind::InvalidInput, "the entry text is malformed");
                e.details = diagnostics.iter().map(ToString::to_string).collect();
                e
            }
            MutateError::Store(err) => CommandError::store(message, err.is_damage()),
            MutateError::Render(err) => err.into(),
            _ => CommandError::new(ErrorKind::Usage, message),
        }
    }
}

/// The result type of commands.
pub type CmdResult<T = std::process::ExitCode> = Result<T, CommandError>;
