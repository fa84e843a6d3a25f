//! The batch engine: huge inputs of IRI references → keys → deduplicated
//! rows or an order-preserving map. Used by the `irinorm` binary and usable
//! from any Rust program; it knows no command-line flag.
//!
//! The pipeline, one module per step:
//!
//! ```text
//! source   files, stdin, gzip/zstd, UTF-16 → batches of complete lines or
//!          CSV/TSV records (a reader thread per input, overlapping the keying)
//! line     per line/field: CR, blank, length, charset/UTF-8 → text or a reason
//! prep     --split-spaces, --mode (3987bis §7), --query-encoding (§3.5)
//!          then the key function (the ladder, §5.3)
//! dedup    hash partitions, one table each, a memory budget, spill to disk,
//!          rows in first-occurrence (or key) order
//! map      normalize/convert: one output per input, in order
//! sink     the atomic output file and the CSV field writer
//! ```
//!
//! Nothing grows with the input except the table of distinct keys, which
//! [`dedup`] keeps within [`dedup::Config::memory`] by spilling partitions to
//! a temporary directory. Every strategy — thread count, chunk size, budget,
//! input kind — gives byte-identical output (see `tests/engine.rs`).

pub mod cleanup;
pub mod dedup;
pub mod line;
pub mod map;
pub mod prep;
pub mod sink;
mod slots;
mod sort;
pub mod source;

use std::fmt;
use std::io;

pub use line::{Outcome, RejectReason, Stats};
pub use source::{Format, Input, RecordFormat};

/// A failure of the whole run (I/O with its path, a bad column name, …),
/// as opposed to a bad line, which is data ([`RejectReason`]).
#[derive(Debug)]
pub struct Error {
    msg: String,
    broken_pipe: bool,
}

impl Error {
    /// An error with this message.
    pub fn msg(msg: impl Into<String>) -> Self {
        Error {
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
        Error {
            msg: format!("{context}: {text}"),
            broken_pipe: e.kind() == io::ErrorKind::BrokenPipe,
        }
    }

    /// The output was closed by its reader (`| head`): not a failure.
    pub fn is_broken_pipe(&self) -> bool {
        self.broken_pipe
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.msg)
    }
}

impl std::error::Error for Error {}

/// The key function of a run: a reference (and, for CSV/TSV records with a
/// base column, the row's base) → its key, or why it has none.
pub type KeyFn<'a> = dyn for<'k, 'b> Fn(&'k str, Option<&'b str>) -> Result<std::borrow::Cow<'k, str>, RejectReason>
    + Sync
    + 'a;

/// The key function of a run from a key of one reference (the ladder:
/// `|s| normalizer.key(s)`, or `to_uri`, …), prepared by `prep`
/// (`--mode`, `--split-spaces`, `--query-encoding`) and resolved against a
/// record's base where there is one ([`prep::Prep::key_with_base`]).
pub fn key_fn<'a, K>(
    prep: prep::Prep,
    key: K,
) -> impl for<'k, 'b> Fn(&'k str, Option<&'b str>) -> Result<std::borrow::Cow<'k, str>, RejectReason>
       + Sync
       + 'a
where
    K: for<'x> Fn(&'x str) -> crate::Result<std::borrow::Cow<'x, str>> + Sync + 'a,
{
    // Nothing to prepare (the usual run): the key function alone, without
    // the preparation's layers (measured: ~100 instructions a line,
    // BENCHMARKS.md §17).
    let plain = prep.is_noop();
    move |s, base| match base {
        None if plain => key(s).map_err(RejectReason::Key),
        _ => prep.key_with_base(s, base, &key),
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
    /// [`line::reject_input`]).
    pub input: String,
    pub reason: RejectReason,
}

/// What the engine tells its caller while it runs.
pub trait Observer {
    /// `bytes` more input bytes have been processed.
    fn progress(&mut self, _bytes: u64) {}
    /// A line or record was rejected (called in input order).
    fn reject(&mut self, _r: &Reject) -> Result<(), Error> {
        Ok(())
    }
}

/// An observer that ignores everything.
pub struct Quiet;

impl Observer for Quiet {}

// The curated surface: what a user of the engine names, flat
// (`irinorm::batch::X`); the submodules above are its private rooms.
pub use self::cleanup::{remove_all as remove_temp_files, stopping};
pub use self::dedup::{
    check_temp_dir, default_memory, run as run_dedup, Columns, Config as DedupConfig, Field, Order,
    Summary,
};
pub use self::line::process_line;
pub use self::map::{run as run_map, Config as MapConfig, MapOutput};
pub use self::prep::{collect_repairs, Prep, PrepConfig};
pub use self::sink::{csv_field, csv_u64, OutputFile};
pub use self::source::{open_all, open_all_mapped, open_stream, Column, Opened};
pub use self::Error as RunError;
// What the fuzz targets check beyond the public API (`irinorm::fuzzing`).
#[cfg(fuzzing)]
pub use self::line::{record_key, RecordKey};
#[cfg(fuzzing)]
pub use self::source::{Layout, Rec};
