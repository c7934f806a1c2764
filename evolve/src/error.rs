//! Error types of the evolution operations, one per operation family, each variant with the
//! context a caller needs to act on it. Messages are sentences and name no CLI flag: the
//! binary adds the hints that do.

use evokb_export::MutateError;
use evokb_store::StoreError;

/// Why a delta (add, negate, update, deprecate, consolidate) was refused; nothing was written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DeltaError {
    /// The text holds no front-matter entry.
    #[error("expected at least one '---' front-matter entry")]
    NoEntries,
    /// An entry has lint errors (injected instructions, hidden text, bad front-matter, …).
    #[error("'{id}' has lint errors: {}", errors.join("; "))]
    LintErrors {
        /// The entry.
        id: String,
        /// One line per error.
        errors: Vec<String>,
    },
    /// An entry covers the same topic as an existing one.
    #[error("'{id}' covers the same topic as '{existing}' (same kind and family, similarity {similarity:.2}); update '{existing}' instead")]
    SameTopic {
        /// The new entry.
        id: String,
        /// The existing entry on that topic.
        existing: String,
        /// Their similarity.
        similarity: f64,
    },
    /// A data or negative entry lacks part of its evidence triad.
    #[error("'{id}' is a data entry and lacks {}; add them, or file it as a Tier 1 queue item", missing.join(", "))]
    MissingEvidence {
        /// The entry.
        id: String,
        /// What is missing (`origin_task`, a toolchain stamp, a repro script).
        missing: Vec<String>,
    },
    /// A deprecation names neither the entry that replaces it nor a reason.
    #[error("a deprecation names the entry that replaces it, or a reason")]
    DeprecateWithoutCause,
    /// A rule of the merge policy forbids the change.
    #[error("{reason}")]
    Refused {
        /// Which rule, and what to do instead.
        reason: String,
    },
    /// Filing the entry as a queue item failed.
    #[error(transparent)]
    Enqueue(Box<QueueError>),
    /// The markdown side refused the change, or the store failed.
    #[error(transparent)]
    Markdown(#[from] MutateError),
}

impl From<StoreError> for DeltaError {
    fn from(e: StoreError) -> DeltaError {
        DeltaError::Markdown(e.into())
    }
}

impl From<evokb_export::layout::LayoutError> for DeltaError {
    fn from(e: evokb_export::layout::LayoutError) -> DeltaError {
        DeltaError::Markdown(e.into())
    }
}

/// Why a queue operation was refused; nothing was written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum QueueError {
    /// The item is in a status the operation does not take.
    #[error("{vp} is {status}; {allowed}")]
    WrongStatus {
        /// The item.
        vp: String,
        /// Its status.
        status: String,
        /// Which statuses the operation takes, as a sentence.
        allowed: String,
    },
    /// A date is not a real `YYYY-MM-DD` calendar date.
    #[error("'{value}' is not a YYYY-MM-DD calendar date")]
    BadDate {
        /// The value given.
        value: String,
    },
    /// A rule of the queue lifecycle forbids the operation.
    #[error("{reason}")]
    Refused {
        /// Which rule, and what to do instead.
        reason: String,
    },
    /// A pending item of the same type is on the same topic: it should be confirmed instead.
    #[error("the proposal is on the topic of pending item {vp} (title similarity {similarity}); confirm it instead of filing a second one")]
    SameTopicPending {
        /// The pending item.
        vp: String,
        /// Their title similarity.
        similarity: f64,
    },
    /// A rejected item of the same type is on the same topic.
    #[error("the proposal is on the topic of {vp}, which was rejected (title similarity {similarity}): '{reason}'")]
    SameTopicRejected {
        /// The rejected item.
        vp: String,
        /// Their title similarity.
        similarity: f64,
        /// Its rejection reason (`decided_note`).
        reason: String,
    },
    /// Performing the item's delta failed.
    #[error(transparent)]
    Delta(#[from] DeltaError),
    /// The markdown side refused the change, or the store failed.
    #[error(transparent)]
    Markdown(#[from] MutateError),
}

impl From<StoreError> for QueueError {
    fn from(e: StoreError) -> QueueError {
        QueueError::Markdown(e.into())
    }
}

impl From<evokb_export::layout::LayoutError> for QueueError {
    fn from(e: evokb_export::layout::LayoutError) -> QueueError {
        QueueError::Markdown(e.into())
    }
}

impl From<evokb_export::RenderError> for QueueError {
    fn from(e: evokb_export::RenderError) -> QueueError {
        QueueError::Markdown(e.into())
    }
}

impl From<QueueError> for DeltaError {
    fn from(e: QueueError) -> DeltaError {
        DeltaError::Enqueue(Box::new(e))
    }
}
