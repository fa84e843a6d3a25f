//! The dedup engine: one table of distinct keys, partitioned by hash,
//! within a memory budget, spilling to disk when it would not fit.
//!
//! 1. Batches of lines, CDX/CDXJ lines or CSV/TSV records arrive from
//!    [`super::source`] in input order. Each batch is cut into chunks;
//!    workers (rayon) compute every key (3987bis §5.3, through the caller's
//!    [`KeyFn`]) and its hash (foldhash, computed once, here, and compared
//!    before any key bytes), and group the chunk's keys by partition (bits
//!    of the hash). There is no chunk-local table: it cost more than the
//!    repeats it saved the merge (BENCHMARKS.md, decision log: "Hashing once").
//! 2. The partitions are merged in parallel, each by one task that walks the
//!    batch's chunks *in order*: the first row inserted for a key is its
//!    first occurrence, without locks and whatever the scheduling. A row is
//!    a record in the partition's arena — its count, origin (input, line,
//!    item of a `--split-spaces` line), key and example side by side — so
//!    the batch can be dropped; the table's slot holds 32 bits of its hash
//!    and where the record is, so a probe reads the slot, then one place.
//! 3. When the partitions would hold more than [`Config::memory`] bytes,
//!    their rows are written once, compressed, to runs in a temporary
//!    directory ([`crate::batch::runs`]; [`spill`]) and the tables start
//!    empty again.
//! 4. At the end, without a spill, the rows are written in first-occurrence
//!    order as the merge recorded it (a tape naming each new row's
//!    partition: no sort), or sorted by key or SURT. After a spill
//!    ([`readback`]), in first-occurrence order each partition's file is
//!    read for its keys and counted within a worker's share of the budget
//!    (split again by more hash bits if it outgrows it), then the
//!    partitions' files are merged by origin; in key or SURT order the
//!    sorted runs are merged, each key's rows added up. Both ways order
//!    rows by the same total order, so the output is byte-identical for
//!    every budget, thread count, chunk size and input kind.
//!
//! One file per job, dependencies running down the list:
//!
//! ```text
//! run      the loop: batches keyed, merged or kept whole, rows written
//! table    the partitions, the merge, the budget, the end of a run
//! whole    an input of one batch, indexed where it is
//! readback the end of a spilled run: counting, splitting, merging
//! spill    rows written to runs, the free-space check
//! output   rows formatted in parallel pieces, written in order
//! keying   chunks of a batch → entries (hash, key, example, origin)
//! part     one partition's table of records
//! config   Config, Tuning, Summary
//! columns  the output's columns and header
//! arena    the records, in blocks that never move
//! ```
//!
//! [`KeyFn`]: crate::batch::KeyFn

mod arena;
mod columns;
mod config;
mod keying;
mod output;
mod part;
mod readback;
mod run;
mod spill;
mod table;
#[cfg(test)]
mod tests;
mod whole;

pub use columns::{Columns, Field};
pub use config::{default_memory, Config, Diagnostics, Order, Summary, Tuning};
pub use run::run;
pub use spill::check_temp_dir;
