//! What the engine tells its caller while it runs: progress and rejected
//! lines, in input order ([`Observer`]).

use super::error::{Reject, RunError};

/// What the engine tells its caller while it runs.
pub trait Observer {
    /// `bytes` more input bytes have been processed.
    fn progress(&mut self, _bytes: u64) {}
    /// A line or record was rejected (called in input order).
    fn reject(&mut self, _r: &Reject) -> Result<(), RunError> {
        Ok(())
    }
}

/// An observer that ignores everything.
pub struct Quiet;

impl Observer for Quiet {}
