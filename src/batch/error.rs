//! The two kinds of failure: a failure of the whole run ([`RunError`]: I/O
//! with its path, a bad column name, …), printed once, and a bad line or
//! record, which is data ([`RejectReason`], [`Reject`]): a reason in the
//! rejects output, counted in the summary.

use std::fmt;
use std::io;

/// A failure of the whole run (I/O with its path, a bad column name, …),
/// as opposed to a bad line, which is data ([`RejectReason`]).
#[derive(Debug)]
pub struct RunError {
    msg: String,
    broken_pipe: bool,
}

impl RunError {
    /// An error with this message.
    pub fn msg(msg: impl Into<String>) -> Self {
        RunError {
            msg: msg.into(),
            broken_pipe: false,
        }
    }

    /// An I/O error in `context` ("cannot read x.txt"); the OS's
    /// "(os error N)" suffix is dropped.
    pub fn io(context: String, e: &io::Error) -> Self {
        let text = e.to_string();
        let text = match text.find(" (os error") {
            Some(i) => &text[..i],
            None => &text,
        };
        RunError {
            msg: format!("{context}: {text}"),
            broken_pipe: e.kind() == io::ErrorKind::BrokenPipe,
        }
    }

    /// The output was closed by its reader (`| head`): not a failure.
    pub fn is_broken_pipe(&self) -> bool {
        self.broken_pipe
    }
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.msg)
    }
}

impl std::error::Error for RunError {}

/// Why a line was not accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RejectReason {
    /// Longer than `--max-line-bytes`.
    TooLong { max: usize },
    /// Not UTF-8; the offset of the first bad byte.
    InvalidUtf8 { at: usize },
    /// The key function failed.
    Key(crate::Error),
    /// Invalid in the `--encoding` charset.
    Decode(crate::decode::DecodeError),
    /// Any other reason (CSV input: missing column, invalid base).
    Other(String),
}

impl fmt::Display for RejectReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RejectReason::TooLong { max } => write!(f, "line longer than {max} bytes"),
            RejectReason::InvalidUtf8 { at } => write!(f, "invalid UTF-8 at byte {at}"),
            RejectReason::Key(e) => write!(f, "{e}"),
            RejectReason::Decode(e) => write!(f, "{e}"),
            RejectReason::Other(e) => f.write_str(e),
        }
    }
}

/// A rejected line or record, handed to the caller in input order.
#[derive(Debug, Clone)]
pub struct Reject {
    /// Index of the input in the list given to the engine.
    pub file: usize,
    /// 1-based physical line.
    pub line: u64,
    /// The input as written (lossy UTF-8; an over-long one cut, see
    /// `reject_input`).
    pub input: String,
    pub reason: RejectReason,
}
