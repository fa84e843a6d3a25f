//! The settings of a dedup run ([`Config`], with its [`Tuning`] for tests)
//! and what a run reports ([`Summary`]).

use std::path::PathBuf;

use super::arena::MAX_BLOCKS;
use super::columns::Columns;
use crate::batch::Stats;
use crate::decode::Charset;

/// Row order of the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Order {
    /// First occurrence (input, line, item).
    #[default]
    First,
    /// The key, bytewise.
    Key,
    /// The SURT of the key, then the key.
    Surt,
}

/// Tunables of a dedup run.
#[derive(Debug, Clone)]
pub struct Config {
    /// Bytes per work unit of lines; chunks are cut at line ends.
    pub chunk_size: usize,
    /// Longer lines (or fields) are rejected.
    pub max_line_bytes: usize,
    /// A key holding spaces is several keys (the items of the line), each
    /// counted as an occurrence on that line.
    pub split_spaces: bool,
    /// Bytes the tables of distinct keys may hold before they spill.
    pub memory: usize,
    /// Where spills go (default: the system temp directory).
    pub temp_dir: Option<PathBuf>,
    pub order: Order,
    /// Write the canonical column as SURT (rows stay grouped by key, so a
    /// display form without the scheme never merges rows).
    pub show_surt: bool,
    /// The charset of the lines (`None`: UTF-8), see `--encoding`.
    pub charset: Option<Charset>,
    /// Target size of a batch of lines read ahead.
    pub batch_bytes: usize,
    /// The output columns.
    pub columns: Columns,
    /// The workers (`None`: the current rayon pool). The calling thread
    /// waits for the reader between batches and is not one of them, so no
    /// worker is blocked on input.
    pub pool: Option<std::sync::Arc<rayon::ThreadPool>>,
    /// Knobs that tests turn to reach every path; the default is what a
    /// run uses.
    #[doc(hidden)]
    pub tuning: Tuning,
}

/// The engine's inner limits and choices, for tests: each path they pick
/// gives the same output, so a test turns them to run every path on small
/// inputs. [`Tuning::default`] is what every run uses.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tuning {
    /// The largest batch that, on up to [`IN_ORDER_WORKERS`] workers, is
    /// keyed in input order when it may be the input's only one.
    pub in_order_bytes: usize,
    /// Blocks a partition's arena may reach before the table spills
    /// ([`MAX_BLOCKS`]).
    pub max_blocks: usize,
    /// Whether an input of one batch may be written from the batch itself
    /// ([`whole`](super::whole)) rather than through the arena table.
    pub take_whole: bool,
    /// Take the reader to have ended after every batch, without asking it,
    /// so that a batch kept as the last is merged when another comes.
    pub assume_ended: bool,
    /// Free bytes to assume in the temporary directory instead of asking
    /// the file system (`None`: ask), to reach the check before a spill.
    pub assume_free: Option<u64>,
    /// The least share of the budget a partition's keys are counted in at
    /// the end of a spilled run ([`MIN_SHARE`]).
    pub min_share: usize,
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            in_order_bytes: IN_ORDER_BYTES,
            max_blocks: MAX_BLOCKS,
            take_whole: true,
            assume_ended: false,
            assume_free: None,
            min_share: MIN_SHARE,
        }
    }
}

/// The most workers on which a batch that may be the input's only one is
/// keyed in input order and indexed in one table by one worker
/// ([`whole`](super::whole)), not grouped by partition and merged by
/// partitions in parallel; on more than one, only a batch of up to
/// [`IN_ORDER_BYTES`]. On two workers the one table's serial index costs
/// less than the grouping, the partitions' sync and the gathering of rows
/// from 64 of them, up to a batch of a few MB, past which the partitions
/// win (BENCHMARKS.md, decision log: "In-order keying of small batches"). The index
/// is about a tenth of the work, so on many workers it would be what they
/// wait for; the limit of two workers is where it was shown to pay.
pub(super) const IN_ORDER_WORKERS: usize = 2;

/// See [`IN_ORDER_WORKERS`].
pub(super) const IN_ORDER_BYTES: usize = 4 << 20;

/// The least share of the budget a partition is counted in, so that a
/// tiny budget does not split partitions into thousands of files.
pub(super) const MIN_SHARE: usize = 256 << 10;

impl Tuning {
    /// Whether a batch of `bytes` that may be kept is keyed in input order
    /// on `workers` ([`IN_ORDER_WORKERS`], [`Tuning::in_order_bytes`]).
    pub(super) fn in_order(&self, workers: usize, bytes: usize) -> bool {
        workers == 1 || (workers <= IN_ORDER_WORKERS && bytes <= self.in_order_bytes)
    }
}

impl Config {
    /// Run `f` on the workers.
    pub(super) fn on_pool<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        match &self.pool {
            Some(p) => p.install(f),
            None => f(),
        }
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            chunk_size: 2 << 20,
            max_line_bytes: 65536,
            split_spaces: false,
            memory: default_memory(),
            temp_dir: None,
            order: Order::First,
            show_surt: false,
            charset: None,
            // Larger batches were slower on one and on two workers
            // (BENCHMARKS.md, decision log: "Reader thread and full batches").
            batch_bytes: 8 << 20,
            columns: Columns::default(),
            pool: None,
            tuning: Tuning::default(),
        }
    }
}

/// Half of the physical memory (from `/proc/meminfo`; 4 GiB where that
/// cannot be read).
pub fn default_memory() -> usize {
    let total = std::fs::read_to_string("/proc/meminfo").ok().and_then(|m| {
        let line = m.lines().find(|l| l.starts_with("MemTotal:"))?;
        let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kb.saturating_mul(1024))
    });
    usize::try_from(total.map_or(4 << 30, |t| t / 2)).unwrap_or(usize::MAX)
}

/// What a run did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    pub stats: Stats,
    /// Distinct keys = rows written.
    pub unique: u64,
    /// Times the tables were spilled (0: all in memory).
    pub spills: u64,
    /// Bytes written to the temporary directory (compressed runs: rows,
    /// and the small lists and merges of the end of the run).
    pub spilled_bytes: u64,
    /// The same before compression.
    pub spilled_raw_bytes: u64,
    /// Times a spilled key was written at most: 1, or more when a
    /// partition was split again at read-back or sorted runs were merged
    /// in several passes (0 without a spill).
    pub spill_passes: u32,
    /// Spill files with rows: partition files in first-occurrence order,
    /// sorted runs in key or SURT order.
    pub spilled_partitions: usize,
    /// Which ways the run took, for tests.
    #[doc(hidden)]
    pub diagnostics: Diagnostics,
}

/// Which of its equivalent ways a run took ([`Summary::diagnostics`]):
/// tests read them to know that a path they aim at was run.
#[doc(hidden)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Diagnostics {
    /// Batches kept to be written from the batch itself ([`whole`](super::whole)).
    pub kept: usize,
    /// Batches keyed with their entries left in input order (up to
    /// [`IN_ORDER_WORKERS`], a batch that may be kept).
    pub in_order: usize,
    /// Writer threads the output started ([`write_pieces`]).
    pub writers: usize,
}
