//! The batch engine: huge inputs of IRI references → keys → deduplicated
//! rows or an order-preserving map. Used by the `irinorm` binary and usable
//! from any Rust program; it knows no command-line flag.
//!
//! The pipeline, one module per step:
//!
//! ```text
//! source   files, stdin, gzip/zstd, UTF-16 → batches of complete lines or
//!          CSV/TSV records (a reader thread per input, overlapping the keying)
//! scan     a batch's lines: chunks at line ends for the workers, and
//!          each line's number in its input
//! line     per line/field: CR, blank, length, charset/UTF-8 → text or a reason
//! prep     --split-spaces, --mode (3987bis §7), --query-encoding (§3.5)
//!          then the key function (the ladder, §5.3; `keyfn`)
//! dedup    hash partitions, one table each, a memory budget, spill to disk,
//!          rows in first-occurrence (or key) order
//! seen     dedup against a persistent seen-set (the URL-seen test)
//! map      normalize/convert: one output per input, in order
//! sink     the atomic output file and the CSV field writer
//! ```
//!
//! Beside them: `error` (a failure of the run, a rejected line), `observe`
//! (what the engine tells its caller while it runs), `cleanup` (temporary
//! files removed on exit or a signal).
//!
//! Nothing grows with the input except the table of distinct keys, which
//! the dedup engine keeps within [`DedupConfig::memory`] by spilling partitions to
//! a temporary directory. Every strategy — thread count, chunk size, budget,
//! input kind — gives byte-identical output (see `tests/engine.rs`).

mod cleanup;
mod dedup;
mod error;
mod group;
mod keyfn;
mod line;
pub mod links;
mod map;
mod observe;
mod prep;
mod runs;
mod scan;
mod seen;
mod sink;
mod slots;
mod sort;
mod source;

pub use error::{Reject, RejectReason, RunError};
pub use keyfn::{key_fn, ladder_key_fn, ladder_own_href_key_fn, KeyFn, OwnHrefKeyFn};
pub use line::{Outcome, Stats};
pub use observe::{Observer, Quiet};
pub use prep::RefKey;
pub use source::{Format, Input, RecordFormat};

// The curated surface: what a user of the engine names, flat
// (`irinorm::batch::X`); the submodules above are its private rooms.
pub use self::cleanup::{remove_all as remove_temp_files, stopping, unnamed_temp_file};
// Knobs and counters for the engine's own tests, not an interface.
// Captures grouped by origin within a budget, for the digest learner.
pub use self::dedup::{
    check_temp_dir, default_memory, run as run_dedup, Columns, Config as DedupConfig, Field, Order,
    Summary,
};
#[doc(hidden)]
pub use self::dedup::{Diagnostics, Tuning};
pub use self::group::SpillGroups;
pub use self::line::process_line;
pub use self::map::{run as run_map, Config as MapConfig, MapOutput};
pub use self::prep::{collect_repairs, Prep, PrepConfig};
// The URL-seen test: dedup against a persistent seen-set (`seen`).
pub use self::seen::{
    compact as seen_compact, info as seen_info, run as run_dedup_seen, verify as seen_verify,
    Bucket as SeenBucket, Pending as SeenPending, SeenConfig, SeenInfo, SeenSummary,
};
pub use self::sink::{csv_field, csv_u64, OutputFile};
pub use self::source::{open_all, open_all_mapped, open_stream, Column, Opened};
// What the fuzz targets check beyond the public API (`irinorm::fuzzing`).
#[cfg(fuzzing)]
pub use self::line::{record_key, RecordKey};
#[cfg(fuzzing)]
pub use self::source::{Layout, Rec};
