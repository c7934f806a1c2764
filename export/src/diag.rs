//! Diagnostics: problems found in input files, each with the file, the line and what was
//! expected. The importer collects them all instead of stopping at the first.

use std::fmt;

/// How bad a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; the import goes on.
    Warning,
    /// The file cannot be imported as it is; nothing is written.
    Error,
}

/// A problem at a place in an input file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Diagnostic {
    /// How bad it is.
    pub severity: Severity,
    /// The file, relative to the knowledge-base root.
    pub file: String,
    /// The 1-based line (0 when the problem concerns the whole file).
    pub line: usize,
    /// What is wrong and what was expected, as a sentence without a trailing period.
    pub message: String,
}

impl Diagnostic {
    /// An error at `file:line`.
    pub fn error(file: &str, line: usize, message: impl Into<String>) -> Diagnostic {
        Diagnostic { severity: Severity::Error, file: file.into(), line, message: message.into() }
    }

    /// A warning at `file:line`.
    pub fn warning(file: &str, line: usize, message: impl Into<String>) -> Diagnostic {
        Diagnostic { severity: Severity::Warning, file: file.into(), line, message: message.into() }
    }

    /// Whether this diagnostic blocks an import.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = match self.severity {
            Severity::Warning => "warning",
            Severity::Error => "error",
        };
        if self.line > 0 {
            write!(f, "{}:{}: {sev}: {}", self.file, self.line, self.message)
        } else {
            write!(f, "{}: {sev}: {}", self.file, self.message)
        }
    }
}
