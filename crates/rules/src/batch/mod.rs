//! Batch files and templates: `reel submit --from FILE` takes a file's text within bounds
//! (`stream`), reads rows from it (`read`), expands their templates (`template`) and lists into
//! tasks (`expand`), and keys each task by its content (`key`) so that a file run again sends
//! only what it has not sent; `plan` holds a file's whole expansion, shared by the command line
//! and the dashboard's form. All of it is pure but `stream::file`, which opens the file; which
//! rows were sent is the engine's to say (it decides as it journals).

pub mod expand;
pub mod key;
pub mod plan;
pub mod read;
pub mod stream;
pub mod template;

use std::fmt;

/// A problem with one row, named by where it is and the field it is in:
/// `prompts.csv:14: seconds: …`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowError {
    /// `FILE:LINE`, or `command line` for the flags alone.
    pub at: String,
    pub field: String,
    pub message: String,
}

impl fmt::Display for RowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}: {}", self.at, self.field, self.message)
    }
}

impl std::error::Error for RowError {}
