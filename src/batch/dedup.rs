//! The dedup engine: one table of distinct keys, partitioned by hash,
//! within a memory budget, spilling to disk when it would not fit.
//!
//! 1. Batches of lines, CDX/CDXJ lines or CSV/TSV records arrive from
//!    [`super::source`] in input order. Each batch is cut into chunks;
//!    workers (rayon) compute every key (3987bis §5.3, through the caller's
//!    [`KeyFn`]) and its hash (foldhash, computed once, here, and compared
//!    before any key bytes), and group the chunk's keys by partition (bits
//!    of the hash). There is no chunk-local table: measured, it cost more
//!    than the repeats it saved the merge (BENCHMARKS.md §10).
//! 2. The partitions are merged in parallel, each by one task that walks the
//!    batch's chunks *in order*: the first row inserted for a key is its
//!    first occurrence, without locks and whatever the scheduling. A row is
//!    a record in the partition's arena — its count, origin (input, line,
//!    item of a `--split-spaces` line), key and example side by side — so
//!    the batch can be dropped; the table's slot holds 32 bits of its hash
//!    and where the record is, so a probe reads the slot, then one place.
//! 3. When the partitions would hold more than [`Config::memory`] bytes,
//!    each partition's rows are appended to its own files in a temporary
//!    directory and the tables start empty again.
//! 4. At the end, without a spill, the rows are written in first-occurrence
//!    order as the merge recorded it (a tape naming each new row's
//!    partition: no sort), or sorted by key or SURT. After a spill, each of
//!    the 256 spill files (a partition split by two more hash bits) is read
//!    back and deduplicated alone (1/256 of the distinct keys must fit in
//!    memory, per worker), sorted and written as a sorted run; the runs are
//!    then merged (a k-way merge) into the output. Both ways order rows by
//!    the same total order, so the output is byte-identical for every
//!    budget, thread count, chunk size and input kind.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::fs::File;
use std::hash::{BuildHasher, Hasher};
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

use rayon::prelude::*;

use super::line::{line_key, reject_input, strip_cr, ChunkLines, Text};
use super::sink::{csv_field, csv_u64, write_behind};
use super::slots::{prefetch_bytes, Slots};
use super::sort::sort_by_fields;
use super::source::{
    chunk_size, for_each_batch, for_each_line, split_chunks, Batch, Format, Item, Layout,
    LineNumbers, Opened,
};
use super::{cleanup, Error, KeyFn, Observer, Reject, Stats};
use crate::cdx::CdxLayout;
use crate::decode::Charset;

mod whole;
use whole::Whole;

const PART_BITS: u32 = 6;
/// Number of hash partitions.
pub const PARTS: usize = 1 << PART_BITS;

/// The most workers on which a batch that may be the input's only one is
/// keyed in input order and indexed in one table by one worker
/// ([`whole`]), not grouped by partition and merged by partitions in
/// parallel; on more than one, only a batch of up to [`IN_ORDER_BYTES`].
/// On two workers the one table's serial index costs less than the
/// grouping, the partitions' sync and the gathering of rows from 64 of
/// them, up to a few MB: `dedup -j2` wall 0.82–0.92 on the real samples
/// (0.8–2.5 MB), 0.93 / 0.975 / 1.013 / 1.06 on 2.0 / 4.1 / 6.2 / 8.3 MB of
/// the generated corpus (BENCHMARKS.md §37). The index is about a tenth
/// of the work, so on many workers it would be what they wait for; more
/// than two were not measured (this machine has two cores).
const IN_ORDER_WORKERS: usize = 2;

/// See [`IN_ORDER_WORKERS`].
const IN_ORDER_BYTES: usize = 4 << 20;

impl Tuning {
    /// Whether a batch of `bytes` that may be kept is keyed in input order
    /// on `workers` ([`IN_ORDER_WORKERS`], [`Tuning::in_order_bytes`]).
    fn in_order(&self, workers: usize, bytes: usize) -> bool {
        workers == 1 || (workers <= IN_ORDER_WORKERS && bytes <= self.in_order_bytes)
    }
}

/// Spill files per partition (by two more bits of the hash), so that the
/// end of a spilled run holds 1/256 of the distinct keys at a time while
/// the k-way merge stays within the usual limit of open files.
const SPLIT: usize = 4;
/// Spill files in all.
const SPILL_FILES: usize = PARTS * SPLIT;

#[inline]
fn split_of(hash: u64) -> usize {
    ((hash >> (40 + PART_BITS)) as usize) & (SPLIT - 1)
}

#[inline]
fn part_of(hash: u64) -> usize {
    // Middle bits: a partition's slot table (`Slots`) uses the low 32 for
    // its home slot and tag; taking those would make its keys collide.
    ((hash >> 40) as usize) & (PARTS - 1)
}

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
    /// ([`whole`]) rather than through the arena table.
    pub take_whole: bool,
    /// Take the reader to have ended after every batch, without asking it,
    /// so that a batch kept as the last is merged when another comes.
    pub assume_ended: bool,
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            in_order_bytes: IN_ORDER_BYTES,
            max_blocks: MAX_BLOCKS,
            take_whole: true,
            assume_ended: false,
        }
    }
}

impl Config {
    /// Run `f` on the workers.
    fn on_pool<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
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
            // 16 MB was 3–5 % slower on one worker and 7 % on two, in
            // process (BENCHMARKS.md §28).
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
    /// Bytes written to spill files (partition runs and sorted runs).
    pub spilled_bytes: u64,
    /// Spill files (partitions split by two more hash bits, at most 256)
    /// that had rows on disk.
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
    /// Batches kept to be written from the batch itself ([`whole`]).
    pub kept: usize,
    /// Batches keyed with their entries left in input order (up to
    /// [`IN_ORDER_WORKERS`], a batch that may be kept).
    pub in_order: usize,
    /// Writer threads the output started ([`write_pieces`]).
    pub writers: usize,
}

/// A column of the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// The key (in the form asked for; SURT with [`Config::show_surt`]).
    Canonical,
    /// How many units share the key.
    Count,
    /// The input the key was first seen in, as named (`-` for stdin).
    FirstFile,
    /// The 1-based physical line of that first occurrence.
    FirstLine,
    /// That line (or record, or CSV field) as written, without its line
    /// terminator.
    Example,
}

impl Field {
    /// Every column, in the default order.
    pub const ALL: [Field; 5] = [
        Field::Canonical,
        Field::Count,
        Field::FirstFile,
        Field::FirstLine,
        Field::Example,
    ];

    /// The column's name in the header.
    pub fn name(self) -> &'static str {
        match self {
            Field::Canonical => "canonical",
            Field::Count => "count",
            Field::FirstFile => "first_file",
            Field::FirstLine => "first_line",
            Field::Example => "example",
        }
    }
}

/// The columns of the output, in order: at least one, none twice.
///
/// Without [`Field::Example`] the table keeps no example, only keys: less
/// memory per distinct key (fewer spills) and fewer bytes copied. The rows
/// and their order do not depend on the columns.
///
/// ```
/// use irinorm::batch::dedup::{Columns, Field};
/// let c = Columns::parse("count,canonical").unwrap();
/// assert_eq!(c.fields(), [Field::Count, Field::Canonical]);
/// assert_eq!(c.header(), b"count,canonical\n");
/// assert!(Columns::parse("canonical,canonical").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Columns(Vec<Field>);

impl Default for Columns {
    /// `canonical,count,first_file,first_line,example`.
    fn default() -> Self {
        Columns(Field::ALL.to_vec())
    }
}

impl Columns {
    /// These columns in this order (an error if empty or one repeats).
    pub fn new(fields: &[Field]) -> Result<Columns, Error> {
        if fields.is_empty() {
            return Err(Error::msg("no output column given"));
        }
        for (i, f) in fields.iter().enumerate() {
            if fields[..i].contains(f) {
                return Err(Error::msg(format!(
                    "output column {} given twice",
                    f.name()
                )));
            }
        }
        Ok(Columns(fields.to_vec()))
    }

    /// A comma-separated list of column names.
    pub fn parse(list: &str) -> Result<Columns, Error> {
        let fields = list
            .split(',')
            .map(|name| {
                let name = name.trim();
                Field::ALL
                    .into_iter()
                    .find(|f| f.name() == name)
                    .ok_or_else(|| {
                        let known: Vec<&str> = Field::ALL.iter().map(|f| f.name()).collect();
                        Error::msg(format!(
                            "no output column {name:?} (the columns: {})",
                            known.join(",")
                        ))
                    })
            })
            .collect::<Result<Vec<Field>, Error>>()?;
        Columns::new(&fields)
    }

    /// The columns, in order.
    pub fn fields(&self) -> &[Field] {
        &self.0
    }

    /// Whether the rows need the first occurrence's line as written.
    pub fn has_example(&self) -> bool {
        self.0.contains(&Field::Example)
    }

    /// The CSV header line.
    pub fn header(&self) -> Vec<u8> {
        let names: Vec<&str> = self.0.iter().map(|f| f.name()).collect();
        format!("{}\n", names.join(",")).into_bytes()
    }
}

/// Deduplicate `inputs` by `key` (on [`Config::pool`]); writes
/// the CSV (header and rows) through `out` in blocks.
///
/// ```
/// use irinorm::batch::{dedup, key_fn, prep::Prep, source, Format, Quiet};
/// use irinorm::{Normalizer, Options};
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("urls.txt");
/// std::fs::write(&path, "HTTP://a.example:80/\nhttp://a.example/\n").unwrap();
/// let n = Normalizer::new(Options::default());
/// let key = key_fn(Prep::default(), |s: &str| n.key(s));
/// let inputs = source::open_all(&[source::Input::Path(path.clone())]).unwrap();
/// let mut csv = Vec::new();
/// let cfg = dedup::Config::default();
/// let s = dedup::run(inputs, &Format::Lines, &key, &cfg, &mut Quiet, &mut |b: &[u8]| {
///     csv.extend_from_slice(b);
///     Ok(())
/// })
/// .unwrap();
/// assert_eq!((s.unique, s.stats.lines), (1, 2));
/// let csv = String::from_utf8(csv).unwrap();
/// let row = format!("http://a.example/,2,{},1,HTTP://a.example:80/\n", path.display());
/// assert_eq!(csv, format!("canonical,count,first_file,first_line,example\n{row}"));
/// ```
pub fn run(
    inputs: Vec<Opened>,
    format: &Format,
    key: &KeyFn<'_>,
    cfg: &Config,
    obs: &mut (dyn Observer + Send),
    out: &mut (dyn FnMut(&[u8]) -> Result<(), Error> + Send),
) -> Result<Summary, Error> {
    // The run's own loop is on a worker too (as the CLI had it): each step
    // it hands the workers (keying a batch, merging it, writing the rows)
    // then starts on the thread that asks for it, where handing it over
    // and waiting for it woke two threads. On one worker that was 8 % of a
    // run over `cc_bases` and 1–2 % over the larger samples, in process
    // (BENCHMARKS.md §39). Without a pool of its own the run stays on the
    // caller's thread: a loop that blocks on its reader is not put on the
    // global pool, which the caller shares.
    match &cfg.pool {
        Some(pool) => pool.install(move || run_here(inputs, format, key, cfg, obs, out)),
        None => run_here(inputs, format, key, cfg, obs, out),
    }
}

/// [`run`] with its loop on this thread.
fn run_here(
    inputs: Vec<Opened>,
    format: &Format,
    key: &KeyFn<'_>,
    cfg: &Config,
    obs: &mut (dyn Observer + Send),
    out: &mut (dyn FnMut(&[u8]) -> Result<(), Error> + Send),
) -> Result<Summary, Error> {
    let names: Vec<String> = inputs.iter().map(|o| o.name.clone()).collect();
    let mut table = Table::new(cfg);
    let spares = Spares::default();
    let mut stats = Stats::default();
    let mut layout: Option<Layout> = None;
    let mut cdx: Option<CdxLayout> = None;
    let mut lines = LineNumbers::default();
    let mut diagnostics = Diagnostics::default();
    let workers = cfg
        .pool
        .as_ref()
        .map_or_else(rayon::current_num_threads, |p| p.current_num_threads());
    for_each_batch(
        inputs,
        format,
        cfg.charset,
        cfg.max_line_bytes,
        cfg.batch_bytes,
        |item, upcoming| {
            let batch = match item {
                Item::Start {
                    layout: l, cdx: c, ..
                } => {
                    layout = l;
                    cdx = c.map(|c| c.layout);
                    return Ok(());
                }
                Item::Batch(b) => b,
            };
            if let Some(kept) = table.whole.take() {
                // A batch came after the one kept as the input's only one
                // (only [`Tuning::assume_ended`] says that the reader has
                // ended without asking it): the kept one is merged first,
                // as any other.
                let (kept, mut chunks) = kept.into_parts();
                table.add(cfg, &kept, &mut chunks)?;
                spares.keep(chunks);
            }
            // On one worker, or two and a batch of a few MB, a batch that
            // may be kept leaves its entries in input order: `whole` then
            // indexes them in one table, in that order, and needs no
            // grouping by partition.
            let grouped = !(table.may_keep() && cfg.tuning.in_order(workers, batch.data.len()));
            diagnostics.in_order += usize::from(!grouped);
            let mut chunks = cfg.on_pool(|| {
                key_batch(
                    &batch,
                    (layout.as_ref(), cdx.as_ref()),
                    key,
                    cfg,
                    &table.hasher,
                    &spares,
                    grouped,
                )
            });
            if layout.is_none() {
                // Each chunk numbered its lines from its own start; now
                // that all have counted theirs, each learns its first.
                let firsts = lines.chunks(&batch, chunks.iter().map(|c| c.stats.lines));
                for (c, first) in chunks.iter_mut().zip(firsts) {
                    c.first_line = first;
                    for r in &mut c.rejects {
                        r.line += first;
                    }
                }
            }
            // The input's only batch is indexed where it is, at the end
            // (`whole`); asked last, when the reader had the most time to
            // find that it has ended (if the batch did not say so itself).
            let whole = table.takes_whole(&chunks) && (cfg.tuning.assume_ended || upcoming.ended());
            if !whole {
                table.add(cfg, &batch, &mut chunks)?;
            }
            for c in &chunks {
                stats.add(&c.stats);
                for r in &c.rejects {
                    obs.reject(r)?;
                }
            }
            if layout.is_some() {
                // Records: the chunks count records, the batch its bytes.
                stats.bytes += batch.bytes;
            }
            obs.progress(batch.bytes);
            if whole {
                diagnostics.kept += 1;
                table.whole = Some(Whole::new(batch, chunks));
            } else {
                spares.keep(chunks);
            }
            Ok(())
        },
    )?;
    // The output's buffers take this memory instead of fresh pages.
    drop(spares);
    let mut summary = cfg.on_pool(|| table.finish(&names, out))?;
    summary.stats = stats;
    summary.diagnostics.kept = diagnostics.kept;
    summary.diagnostics.in_order = diagnostics.in_order;
    Ok(summary)
}

/// Group by partition the entries of `chunks` that are still in input
/// order ([`Chunk::group`]), on the workers.
fn group(cfg: &Config, chunks: &mut [Chunk]) {
    cfg.on_pool(|| chunks.par_iter_mut().for_each(|c| c.group(cfg.order)));
}

/// Where a key or example is: in the batch's bytes (offset from the
/// chunk's start) or in the chunk's arena.
#[derive(Clone, Copy, Default)]
struct Span {
    off: u32,
    len: u32,
}

const ARENA: u32 = 1 << 31;

impl Span {
    #[inline]
    fn get<'a>(&self, chunk: &'a [u8], arena: &'a [u8]) -> &'a [u8] {
        let len = (self.len & !ARENA) as usize;
        let off = self.off as usize;
        if self.len & ARENA != 0 {
            &arena[off..off + len]
        } else {
            &chunk[off..off + len]
        }
    }
}

/// A key of a chunk (one per accepted line, or per item of a line), as
/// the chunk's lines are keyed.
#[derive(Clone, Copy)]
struct Entry {
    hash: u64,
    key: Span,
    example: Span,
    /// 1-based line, counted from its chunk's [`Chunk::first_line`].
    line: u32,
    item: u32,
}

/// An [`Entry`] grouped with its partition's ([`ChunkBufs::by_part`]), as
/// the merge reads it. The partition is where it is, so of the hash only
/// the 32 bits that a slot table uses ([`Slots`]) are kept: 32 bytes, not
/// 40 (each entry is written, then read by the merge, past the caches).
#[derive(Clone, Copy, Default)]
struct Keyed {
    key: Span,
    example: Span,
    /// The low 32 bits of the key's hash.
    tag: u32,
    line: u32,
    item: u32,
    /// Its place among the chunk's entries in input order (the index of
    /// its `fresh` flag).
    seq: u32,
}

impl Keyed {
    /// The hash, as far as a slot table reads it.
    #[inline]
    fn hash(&self) -> u64 {
        u64::from(self.tag)
    }
}

/// The keys of one chunk of a batch.
struct Chunk {
    file: u32,
    /// The chunk's bytes in the batch (lines; empty for records).
    range: std::ops::Range<usize>,
    /// The 0-based number of the chunk's first line in its input (the
    /// lines before it), to which its entries' 1-based lines are added.
    /// For lines, set once the batch's chunks are keyed and have counted
    /// their lines ([`LineNumbers::chunks`]); for records, the line before
    /// the chunk's first record (records know their lines).
    first_line: u64,
    bufs: ChunkBufs,
    /// Where each partition's entries start in `bufs.by_part`.
    part_start: Vec<u32>,
    /// Per partition: at most the bytes its new records would take
    /// ([`Table::room_for`]).
    part_bytes: Vec<u64>,
    stats: Stats,
    rejects: Vec<Reject>,
}

/// The buffers of a chunk, kept once its batch is merged for a chunk of a
/// later batch: the keys of a batch are then written into memory already
/// touched — no fresh pages, no regrowth (BENCHMARKS.md §18).
#[derive(Default)]
struct ChunkBufs {
    /// The entries in input order, as the lines are keyed; empty once
    /// they are grouped ([`Chunk::group`]). Grouped as the chunk is made,
    /// the buffer serves the worker's next chunk at once
    /// ([`Spares::keep_entries`]); a batch that may be kept, on up to
    /// [`IN_ORDER_WORKERS`], keeps them here, and [`whole`] reads them.
    entries: Vec<Entry>,
    arena: Vec<u8>,
    /// The same entries grouped by partition: partition `p` is
    /// `by_part[part_start[p]..part_start[p + 1]]` ([`Chunk::part_start`]).
    /// The merge of a partition reads its entries in a row, not gathered
    /// from all over the chunk.
    by_part: Vec<Keyed>,
    /// Per entry: 1 + the partition where it made a new row, else 0
    /// (written and read by [`Table::merge`], for [`Table::tape`]; empty
    /// when the output is not in first-occurrence order).
    fresh: Vec<AtomicU8>,
}

/// Buffers of merged chunks: as many as a batch has had chunks, each as
/// large as the most it held; dropped before the output is written.
///
/// A chunk's entries in input order are dead once they are grouped by
/// partition ([`ChunkBuilder::finish`]): that buffer goes back at once
/// (`entries`) and takes the keys of the worker's next chunk, of the
/// same batch. A batch's chunks then write as many such buffers as there
/// are workers, not one each: less fresh memory faulted in, which is most
/// of the first batch's cost for a small input.
#[derive(Default)]
struct Spares {
    bufs: std::sync::Mutex<Vec<ChunkBufs>>,
    entries: std::sync::Mutex<Vec<Vec<Entry>>>,
}

/// The pool behind `m`, also if a worker panicked holding it (a pool of
/// emptied buffers has nothing half-done to distrust).
fn pool<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Spares {
    /// Emptied buffers, of an earlier chunk if there is one. (A merged
    /// chunk's `entries` went back already: the worker's last one is
    /// taken.)
    fn take(&self) -> ChunkBufs {
        let mut b = pool(&self.bufs).pop().unwrap_or_default();
        if b.entries.capacity() == 0 {
            // (A chunk grouped after its keying kept its buffer.)
            b.entries = pool(&self.entries).pop().unwrap_or_default();
        }
        b.entries.clear();
        b.arena.clear();
        b.by_part.clear();
        b.fresh.clear();
        b
    }

    fn keep(&self, chunks: Vec<Chunk>) {
        pool(&self.bufs).extend(chunks.into_iter().map(|c| c.bufs));
    }

    /// The input-order entries of a chunk already grouped by partition.
    fn keep_entries(&self, entries: Vec<Entry>) {
        pool(&self.entries).push(entries);
    }
}

/// Builds one chunk's entries, in emptied buffers ([`Spares::take`]).
struct ChunkBuilder<'a> {
    data: &'a [u8],
    bufs: ChunkBufs,
    hasher: &'a foldhash::fast::FixedState,
    /// The output has an `example` column ([`Columns::has_example`]):
    /// otherwise every example is empty, and the table keeps none.
    examples: bool,
}

impl<'a> ChunkBuilder<'a> {
    /// `bytes` into the arena (`None` if the arena would overflow).
    fn stash(&mut self, bytes: &[u8]) -> Option<Span> {
        let off = u32::try_from(self.bufs.arena.len()).ok()?;
        let len = u32::try_from(bytes.len()).ok()?;
        if len >= ARENA || off.checked_add(len)? >= ARENA {
            return None;
        }
        self.bufs.arena.extend_from_slice(bytes);
        Some(Span {
            off,
            len: len | ARENA,
        })
    }

    /// A span for `s`: borrowed if it lies in the chunk's bytes.
    fn span(&mut self, s: &[u8]) -> Option<Span> {
        let (base, addr) = (self.data.as_ptr() as usize, s.as_ptr() as usize);
        if addr >= base && addr + s.len() <= base + self.data.len() && s.len() < ARENA as usize {
            return Some(Span {
                off: (addr - base) as u32,
                len: s.len() as u32,
            });
        }
        self.stash(s)
    }

    /// One occurrence of `key` with `example` at `line`, `item`. False if a
    /// length or the line would overflow (the line is rejected).
    #[inline]
    fn insert(
        &mut self,
        key: &[u8],
        example: &mut Option<Span>,
        ex: &[u8],
        line: u64,
        item: u32,
    ) -> bool {
        let Ok(line) = u32::try_from(line) else {
            return false;
        };
        let hash = key_hash(self.hasher, key);
        let Some(k) = self.span(key) else {
            return false;
        };
        let ex = match *example {
            Some(s) => s,
            None => match self.span(ex) {
                Some(s) => {
                    *example = Some(s);
                    s
                }
                None => return false,
            },
        };
        self.bufs.entries.push(Entry {
            hash,
            key: k,
            example: ex,
            line,
            item,
        });
        true
    }

    /// The key(s) of one accepted unit.
    fn add(&mut self, k: &str, split: bool, ex: &[u8], line: u64) -> bool {
        let data = self.data;
        let ex = if self.examples { ex } else { &data[..0] };
        let mut example = None;
        if split && k.contains(' ') {
            for (item, p) in k.split(' ').filter(|p| !p.is_empty()).enumerate() {
                if !self.insert(p.as_bytes(), &mut example, ex, line, item as u32) {
                    return false;
                }
            }
            true
        } else {
            self.insert(k.as_bytes(), &mut example, ex, line, 0)
        }
    }

    /// The chunk; `first_line` as in [`Chunk::first_line`] (0 for lines:
    /// set once the batch is keyed). Its entries are grouped by partition
    /// if `group`, else left in input order ([`Chunk::group`] does it
    /// later, if the batch is merged after all).
    fn finish(
        self,
        spares: &Spares,
        (order, group): (Order, bool),
        file: u32,
        (range, first_line): (std::ops::Range<usize>, u64),
        stats: Stats,
        rejects: Vec<Reject>,
    ) -> Chunk {
        // Where each partition's entries will start, and their bytes.
        let mut part_start = vec![0u32; PARTS + 1];
        let mut part_bytes = vec![0u64; PARTS];
        for e in &self.bufs.entries {
            let p = part_of(e.hash);
            part_start[p + 1] += 1;
            part_bytes[p] += record_bound(e);
        }
        for p in 0..PARTS {
            part_start[p + 1] += part_start[p];
        }
        let mut chunk = Chunk {
            file,
            range,
            first_line,
            bufs: self.bufs,
            part_start,
            part_bytes,
            stats,
            rejects,
        };
        if group {
            chunk.group(order);
            // The worker's next chunk takes the emptied buffer.
            spares.keep_entries(std::mem::take(&mut chunk.bufs.entries));
        }
        chunk
    }
}

impl Chunk {
    /// Its entries, grouped or not.
    fn entries(&self) -> usize {
        self.bufs.entries.len().max(self.bufs.by_part.len())
    }

    /// Group the entries by partition (a counting sort by
    /// [`Chunk::part_start`]) into `by_part`, if they are still in input
    /// order; the input-order buffer is left empty.
    fn group(&mut self, order: Order) {
        let ChunkBufs {
            entries,
            by_part,
            fresh,
            ..
        } = &mut self.bufs;
        if entries.is_empty() {
            return;
        }
        let mut fill = self.part_start.clone();
        by_part.resize(entries.len(), Keyed::default());
        for (i, e) in entries.iter().enumerate() {
            let p = part_of(e.hash);
            by_part[fill[p] as usize] = Keyed {
                key: e.key,
                example: e.example,
                tag: e.hash as u32,
                line: e.line,
                item: e.item,
                seq: i as u32,
            };
            fill[p] += 1;
        }
        if order == Order::First {
            fresh.resize_with(entries.len(), || AtomicU8::new(0));
        }
        entries.clear();
    }
}

/// At most the bytes of the record an entry makes if its key is new.
#[inline]
fn record_bound(e: &Entry) -> u64 {
    let lens = (e.key.len & !ARENA) as u64 + (e.example.len & !ARENA) as u64;
    (HEAD + 7) as u64 + lens
}

/// Key every unit of `batch` in parallel, each chunk's lines numbered from
/// its own start ([`Chunk::first_line`]); chunks come back in input order,
/// their entries grouped by partition if `group` ([`ChunkBuilder::finish`]).
fn key_batch(
    batch: &Batch,
    (layout, cdx): (Option<&Layout>, Option<&CdxLayout>),
    key: &KeyFn<'_>,
    cfg: &Config,
    hasher: &foldhash::fast::FixedState,
    spares: &Spares,
    group: bool,
) -> Vec<Chunk> {
    let file = batch.file as u32;
    if let Some(layout) = layout {
        let per = 1024;
        let pieces: Vec<&[super::source::Rec]> = batch.records.chunks(per).collect();
        return pieces
            .par_iter()
            .map(|recs| {
                let mut b = ChunkBuilder {
                    data: &[],
                    bufs: spares.take(),
                    hasher,
                    examples: cfg.columns.has_example(),
                };
                let mut stats = Stats::default();
                let mut rejects = Vec::new();
                // Lines counted from the chunk's first record's, as a
                // chunk of lines counts them (an entry holds 32 bits).
                let first = recs.first().map_or(0, |r| r.line.saturating_sub(1));
                for r in *recs {
                    stats.lines += 1;
                    match super::line::record_key(r, layout, cfg.max_line_bytes, batch.charset, key)
                    {
                        super::line::RecordKey::Blank => stats.blank += 1,
                        super::line::RecordKey::Key { key: k, example } => {
                            let line = r.line - first;
                            if b.add(&k, cfg.split_spaces, example.as_bytes(), line) {
                                stats.accepted += 1;
                            } else {
                                stats.rejected += 1;
                            }
                        }
                        super::line::RecordKey::Reject(reason) => {
                            stats.rejected += 1;
                            rejects.push(Reject {
                                file: batch.file,
                                line: r.line,
                                input: super::line::record_reject_text(
                                    r,
                                    layout,
                                    cfg.max_line_bytes,
                                ),
                                reason,
                            });
                        }
                    }
                }
                b.finish(
                    spares,
                    (cfg.order, group),
                    file,
                    (0..0, first),
                    stats,
                    rejects,
                )
            })
            .collect();
    }
    let data = &batch.data;
    split_chunks(data, chunk_size(cfg.chunk_size, data.len()))
        .into_par_iter()
        .map(|range| {
            let bytes = &data[range.clone()];
            let mut b = ChunkBuilder {
                data: bytes,
                bufs: spares.take(),
                hasher,
                examples: cfg.columns.has_example(),
            };
            // About one entry per line: no regrowth (and copy) of the
            // entries for lines of 40 bytes and more.
            b.bufs.entries.reserve(bytes.len() / 40 + 16);
            let mut stats = Stats {
                bytes: bytes.len() as u64,
                ..Stats::default()
            };
            let mut rejects = Vec::new();
            let mut line_no = 0;
            let lines = ChunkLines::new(bytes, cfg.max_line_bytes, batch.charset);
            stats.lines = for_each_line(bytes, |line, pos| {
                line_no += 1;
                let reason = match lines.text(line, pos) {
                    Text::Blank => {
                        stats.blank += 1;
                        return;
                    }
                    Text::Reject(r) => r,
                    Text::Text(t) => match line_key(&t, cdx, key) {
                        Ok(k) => {
                            let ex: &[u8] = match &t {
                                std::borrow::Cow::Borrowed(_) => strip_cr(line),
                                std::borrow::Cow::Owned(s) => s.as_bytes(),
                            };
                            if b.add(&k, cfg.split_spaces, ex, line_no) {
                                stats.accepted += 1;
                            } else {
                                stats.rejected += 1;
                            }
                            // Copied into the chunk: its buffer takes this
                            // worker's next rewritten key (no malloc/free).
                            if let std::borrow::Cow::Owned(k) = k {
                                crate::ladder::syntax::recycle(k);
                            }
                            return;
                        }
                        Err(r) => r,
                    },
                };
                stats.rejected += 1;
                rejects.push(Reject {
                    file: batch.file,
                    line: line_no,
                    input: reject_input(line, cfg.max_line_bytes).into_owned(),
                    reason,
                });
            });
            b.finish(spares, (cfg.order, group), file, (range, 0), stats, rejects)
        })
        .collect()
}

/// A key's hash, from its bytes alone (`hash_one` of a slice would hash its
/// length first: one more round for nothing, every key being whole).
#[inline]
fn key_hash(hasher: &foldhash::fast::FixedState, key: &[u8]) -> u64 {
    let mut h = hasher.build_hasher();
    h.write(key);
    h.finish()
}

/// A distinct key in a partition, as its record in the partition's arena
/// holds it ([`Arena::push`]). The record is the row: the table's slot
/// names it, so a probe reads one place (the header it updates is next to
/// the key it compares), and the output reads the example next to both.
/// The hash is not kept: the slot has 32 bits of it, and a spill computes
/// it again.
#[derive(Clone, Copy)]
struct Row {
    /// Where the record is ([`Arena::push`]).
    at: u32,
    key_len: u32,
    ex_len: u32,
    file: u32,
    item: u32,
    /// 1-based line.
    line: u64,
    /// Occurrences; 0 for a record replaced by one with an earlier origin.
    count: u64,
}

/// `Row::ex_len` of a row whose example is its key (stored once). Keys and
/// examples are shorter than 2³¹ bytes ([`ARENA`]), so the bit is free.
const SAME: u32 = 1 << 31;

/// A record's header: count (8 bytes), line (8), file, item, key length,
/// example length (4 each, at the offsets below), native-endian; then the
/// key, then the example unless it is the key, then padding to 8 bytes.
const HEAD: usize = 32;
const COUNT_AT: usize = 0;
const LINE_AT: usize = 8;
const FILE_AT: usize = 16;
const ITEM_AT: usize = 20;
const KEY_LEN_AT: usize = 24;
const EX_LEN_AT: usize = 28;

impl Row {
    fn origin(&self) -> (u32, u64, u32) {
        (self.file, self.line, self.item)
    }
}

#[inline]
fn u64_at(b: &[u8], i: usize) -> u64 {
    let mut w = [0; 8];
    w.copy_from_slice(&b[i..i + 8]);
    u64::from_ne_bytes(w)
}

#[inline]
fn u32_at(b: &[u8], i: usize) -> u32 {
    let mut w = [0; 4];
    w.copy_from_slice(&b[i..i + 4]);
    u32::from_ne_bytes(w)
}

/// Whether a record stores its example apart from its key, and its bytes.
#[inline]
fn record_len(key: &[u8], example: &[u8]) -> (bool, usize) {
    // A key borrowed from its line is the example itself: no compare.
    let same = (key.as_ptr() == example.as_ptr() && key.len() == example.len()) || key == example;
    let body = key.len() + if same { 0 } else { example.len() };
    (same, (HEAD + body + 7) & !7)
}

/// The block index and byte offset of the record at `at` ([`Arena::push`]).
#[inline]
fn place(at: u32) -> (usize, usize) {
    (
        (at >> OFF_BITS) as usize,
        ((at & ((1 << OFF_BITS) - 1)) as usize) << 3,
    )
}

/// Records in blocks that never move: growing the arena copies nothing.
#[derive(Default)]
struct Arena {
    blocks: Vec<Vec<u8>>,
    bytes: usize,
}

/// Size of an arena block (a larger record gets a block of its own).
const BLOCK: usize = 1 << 20;
/// Bits of a record's place for its offset in a block, in 8-byte units
/// (records are 8-byte aligned, and start in the first [`BLOCK`] bytes).
const OFF_BITS: u32 = 17;
/// Blocks a partition's arena may hold: a record's place is a `u32`, and
/// the table's slot keeps it + 1. [`Table::room_for`] spills before a
/// batch could pass this (32 GiB in one partition).
const MAX_BLOCKS: usize = (1 << (32 - OFF_BITS)) - 1;

impl Arena {
    /// Append the record of a new row: its header, key and example (the
    /// example once more only when it differs from the key: most lines of
    /// a crawl are already canonical); where it is (block << [`OFF_BITS`]
    /// | offset / 8). The caller keeps the arena under [`MAX_BLOCKS`].
    #[inline]
    fn push(&mut self, key: &[u8], example: &[u8], origin: (u32, u64, u32), count: u64) -> u32 {
        let (same, n) = record_len(key, example);
        if !self.has_room(n) {
            self.blocks.push(Vec::with_capacity(BLOCK.max(n)));
            self.bytes += BLOCK.max(n);
        }
        let i = self.blocks.len() - 1;
        let last = &mut self.blocks[i];
        let off = last.len();
        let ex_len = if same { SAME } else { example.len() as u32 };
        let mut head = [0; HEAD];
        head[COUNT_AT..COUNT_AT + 8].copy_from_slice(&count.to_ne_bytes());
        head[LINE_AT..LINE_AT + 8].copy_from_slice(&origin.1.to_ne_bytes());
        for (at, w) in [
            (FILE_AT, origin.0),
            (ITEM_AT, origin.2),
            (KEY_LEN_AT, key.len() as u32),
            (EX_LEN_AT, ex_len),
        ] {
            head[at..at + 4].copy_from_slice(&w.to_ne_bytes());
        }
        last.extend_from_slice(&head);
        last.extend_from_slice(key);
        if !same {
            last.extend_from_slice(example);
        }
        last.resize(off + n, 0);
        debug_assert!(i < MAX_BLOCKS && off < BLOCK && off.is_multiple_of(8));
        ((i as u32) << OFF_BITS) | (off >> 3) as u32
    }

    /// Whether the last block has room for `n` more bytes.
    #[inline]
    fn has_room(&self, n: usize) -> bool {
        self.blocks
            .last()
            .is_some_and(|l| l.capacity() - l.len() >= n)
    }

    /// Whether the record of `key` and `example` would start a new block.
    fn opens_block(&self, key: &[u8], example: &[u8]) -> bool {
        !self.has_room(record_len(key, example).1)
    }

    /// The block and offset of the record at `at`.
    #[inline]
    fn block(&self, at: u32) -> (&[u8], usize) {
        let (i, off) = place(at);
        (&self.blocks[i], off)
    }

    /// The row of the record at `at`.
    #[inline]
    fn row(&self, at: u32) -> Row {
        let (b, o) = self.block(at);
        Row {
            at,
            count: u64_at(b, o + COUNT_AT),
            line: u64_at(b, o + LINE_AT),
            file: u32_at(b, o + FILE_AT),
            item: u32_at(b, o + ITEM_AT),
            key_len: u32_at(b, o + KEY_LEN_AT),
            ex_len: u32_at(b, o + EX_LEN_AT),
        }
    }

    /// `len` bytes of the record at `at`, from `from` bytes past its
    /// header.
    #[inline]
    fn body(&self, at: u32, from: usize, len: usize) -> &[u8] {
        let (b, o) = self.block(at);
        &b[o + HEAD + from..o + HEAD + from + len]
    }

    /// The key of the record at `at` (without decoding the rest).
    #[inline]
    fn key_at(&self, at: u32) -> &[u8] {
        let (b, o) = self.block(at);
        let len = u32_at(b, o + KEY_LEN_AT) as usize;
        &b[o + HEAD..o + HEAD + len]
    }

    #[inline]
    fn set_count(&mut self, at: u32, count: u64) {
        let (i, off) = place(at);
        let c = off + COUNT_AT;
        self.blocks[i][c..c + 8].copy_from_slice(&count.to_ne_bytes());
    }

    /// The record's bytes from its header to the end of its key (what a
    /// probe reads), if its key is `key_len` bytes long.
    #[inline]
    fn probed(&self, at: u32, key_len: usize) -> &[u8] {
        let (b, o) = self.block(at);
        &b[o..(o + HEAD + key_len).min(b.len())]
    }
}

/// One partition's table.
#[derive(Default)]
struct Part {
    table: Slots,
    /// Where each record is, in the order the rows were added.
    recs: Vec<u32>,
    arena: Arena,
}

impl Part {
    #[inline]
    fn key(&self, r: &Row) -> &[u8] {
        self.arena.body(r.at, 0, r.key_len as usize)
    }

    #[inline]
    fn example(&self, r: &Row) -> &[u8] {
        if r.ex_len == SAME {
            return self.key(r);
        }
        self.arena.body(r.at, r.key_len as usize, r.ex_len as usize)
    }

    /// The `i`-th row added.
    #[inline]
    fn row(&self, i: usize) -> Row {
        self.arena.row(self.recs[i])
    }

    /// The rows, in the order they were added (without the replaced ones).
    fn rows(&self) -> impl Iterator<Item = Row> + '_ {
        self.recs
            .iter()
            .map(|&at| self.arena.row(at))
            .filter(|r| r.count > 0)
    }

    /// Bytes this partition holds (capacities: what the process touches).
    fn bytes(&self) -> usize {
        self.arena.bytes + self.recs.capacity() * 4 + self.table.bytes()
    }

    /// Count `count` occurrences of `key`, first seen at `origin` with
    /// `example`; an earlier origin replaces the row's first occurrence.
    /// True if the key is new (a row was appended).
    #[inline]
    fn add(
        &mut self,
        hash: u64,
        key: &[u8],
        example: &[u8],
        origin: (u32, u64, u32),
        count: u64,
    ) -> bool {
        let arena = &self.arena;
        match self.table.find(hash, |at| arena.key_at(at) == key) {
            Ok((slot, at)) => {
                let r = self.arena.row(at);
                if origin < r.origin() {
                    // Only after a spill can a later-read row be earlier:
                    // a record with that origin and example replaces it.
                    let new = self.arena.push(key, example, origin, r.count + count);
                    self.arena.set_count(at, 0);
                    self.table.set(slot, new);
                    self.recs.push(new);
                } else {
                    self.arena.set_count(at, r.count + count);
                }
                false
            }
            Err(vacant) => {
                let at = self.arena.push(key, example, origin, count);
                self.recs.push(at);
                self.table.fill(vacant, hash, at);
                true
            }
        }
    }

    /// Ask for the record at `at`: its first [`RECORD_LINES`] cache lines
    /// (its header and, in most records, its key and example), all at once.
    /// Asking for the header first and, once it had come, for the bytes it
    /// measures took a second walk ahead and a load that waited
    /// (BENCHMARKS.md §38).
    #[inline]
    fn prefetch_record(&self, at: u32) {
        let (b, o) = self.arena.block(at);
        prefetch_bytes(&b[o..(o + RECORD_LINES * 64).min(b.len())]);
    }

    /// Ask for the record that a later [`Part::add`] of `hash` and a key of
    /// `key_len` bytes will most likely compare (after [`Slots::prefetch`]
    /// of its slot).
    #[inline]
    fn prefetch_row(&self, hash: u64, key_len: usize) {
        if let Some(at) = self.table.peek(hash) {
            prefetch_bytes(self.arena.probed(at, key_len));
        }
    }
}

/// The partitions, and their spill files once the budget is exceeded.
struct Table {
    parts: Vec<Part>,
    /// The keys' hash function: the chunks hash their keys with it, and a
    /// spill computes the rows' hashes again.
    hasher: foldhash::fast::FixedState,
    /// The partition of each row in first-occurrence order, while every
    /// row is in memory and the output is in that order: the rows of a
    /// partition are appended in that order, so this is the output order
    /// ([`write_by_origin`]) without comparing origins.
    tape: Option<Vec<u8>>,
    memory: usize,
    /// Blocks a partition's arena may reach ([`Tuning::max_blocks`]).
    max_blocks: usize,
    temp_dir: Option<PathBuf>,
    spill: Option<SpillDir>,
    spills: u64,
    order: Order,
    show_surt: bool,
    columns: Columns,
    /// The input's only batch, not merged: its rows are indexed where they
    /// are when the output is written ([`whole`]).
    whole: Option<Whole>,
    /// Whether [`Table::takes_whole`] may say yes ([`Tuning::take_whole`]).
    may_take_whole: bool,
}

/// The temporary directory of one run: removed when dropped, and on a
/// signal through [`cleanup`].
struct SpillDir {
    dir: tempfile::TempDir,
    /// Bytes written so far.
    bytes: u64,
    /// Partitions with a spill file.
    parts: Vec<bool>,
}

impl Drop for SpillDir {
    fn drop(&mut self) {
        cleanup::forget(self.dir.path());
    }
}

impl SpillDir {
    fn part_path(&self, p: usize) -> PathBuf {
        self.dir.path().join(format!("part-{p:03}"))
    }

    fn sorted_path(&self, p: usize) -> PathBuf {
        self.dir.path().join(format!("sorted-{p:03}"))
    }

    fn err(&self, e: &io::Error) -> Error {
        Error::io(
            format!(
                "cannot write to the temporary directory {}",
                self.dir.path().display()
            ),
            e,
        )
    }
}

impl Table {
    fn new(cfg: &Config) -> Self {
        Table {
            hasher: foldhash::fast::FixedState::with_seed(0x1f2e_3d4c_5b6a_7988),
            parts: (0..PARTS).map(|_| Part::default()).collect(),
            tape: (cfg.order == Order::First).then(Vec::new),
            memory: cfg.memory,
            max_blocks: cfg.tuning.max_blocks,
            temp_dir: cfg.temp_dir.clone(),
            spill: None,
            spills: 0,
            order: cfg.order,
            show_surt: cfg.show_surt,
            columns: cfg.columns.clone(),
            whole: None,
            may_take_whole: cfg.tuning.take_whole,
        }
    }

    /// Whether `chunks`, a batch keyed before any other, can be kept for
    /// [`whole`] if it is the input's last batch: it gives what merging it
    /// here gives, byte for byte. The output is in first-occurrence order
    /// (`whole` does not sort), and the arena table would neither refuse
    /// the batch ([`Table::room_for`]) nor spill it: after the merge it
    /// would hold at most, per partition, `2n / BLOCK + 1` blocks for `n`
    /// bytes of new records, 8 KiB of first slots, and per row at most 8
    /// bytes of `recs` and 2 of tape (both doubling) and 43 of slots (at
    /// most 3/4 full, doubling): under 64 ([`Table::bytes`]). A tight
    /// `--memory` thus still spills (tests rely on that). The batch has
    /// fewer than `u32::MAX` entries: `whole` counts them, and numbers its
    /// rows, in `u32`s.
    fn takes_whole(&self, chunks: &[Chunk]) -> bool {
        if !self.may_keep() || !self.room_for(chunks) {
            return false;
        }
        let rows: u64 = chunks.iter().map(|c| c.entries() as u64).sum();
        if rows >= u64::from(u32::MAX) {
            return false;
        }
        let arena: u64 = (0..PARTS)
            .map(|p| {
                let bytes: u64 = chunks.iter().map(|c| c.part_bytes[p]).sum();
                (2 * bytes / BLOCK as u64 + 1) * BLOCK as u64
            })
            .sum();
        arena + 64 * rows + PARTS as u64 * (16 << 10) <= self.memory as u64
    }

    /// Whether a batch keyed now could be kept for [`whole`]: the output
    /// is in first-occurrence order, nothing was merged or spilled yet
    /// (the rest is [`Table::takes_whole`]'s).
    fn may_keep(&self) -> bool {
        self.may_take_whole
            && self.order == Order::First
            && self.spill.is_none()
            && self.parts.iter().all(|p| p.recs.is_empty())
    }

    /// A batch into the table ([`Table::merge`] on the workers; its
    /// entries grouped by partition first if they are still in input
    /// order, [`Chunk::group`]): spilled first if it does not fit, spilled
    /// after if the table passes its budget.
    fn add(&mut self, cfg: &Config, batch: &Batch, chunks: &mut [Chunk]) -> Result<(), Error> {
        // The merge reads each partition's entries in a row.
        group(cfg, chunks);
        if !self.room_for(chunks) {
            cfg.on_pool(|| self.spill())?;
            if !self.room_for(chunks) {
                return Err(Error::msg(format!(
                    "a batch of {} bytes holds more keys than one partition can \
                     index (a smaller batch would fit)",
                    batch.bytes
                )));
            }
        }
        cfg.on_pool(|| self.merge(batch, chunks));
        if self.bytes() > self.memory {
            cfg.on_pool(|| self.spill())?;
        }
        Ok(())
    }

    /// Merge a batch's chunks, partitions in parallel, chunks in order.
    fn merge(&mut self, batch: &Batch, chunks: &[Chunk]) {
        let taped = self.tape.is_some();
        self.parts.par_iter_mut().enumerate().for_each(|(p, part)| {
            for c in chunks {
                let data = &batch.data[c.range.clone()];
                let ChunkBufs {
                    arena,
                    by_part,
                    fresh,
                    ..
                } = &c.bufs;
                let es = &by_part[c.part_start[p] as usize..c.part_start[p + 1] as usize];
                for (n, e) in es.iter().enumerate() {
                    // A partition's keys are scattered over the batch, and
                    // the rows they meet over the partition: ask for each
                    // ahead, in the order the probe needs them (key,
                    // example and home slot 8 entries ahead → the record
                    // the slot names 4 ahead), so that a key waits for
                    // memory once (BENCHMARKS.md §12, §15, §24).
                    if let Some(f) = es.get(n + 8) {
                        let k = f.key.get(data, arena);
                        prefetch_bytes(k);
                        let x = f.example.get(data, arena);
                        if x.as_ptr() != k.as_ptr() {
                            prefetch_bytes(x);
                        }
                        part.table.prefetch(f.hash());
                    }
                    if let Some(f) = es.get(n + 4) {
                        part.prefetch_row(f.hash(), (f.key.len & !ARENA) as usize);
                    }
                    let new = part.add(
                        e.hash(),
                        e.key.get(data, arena),
                        e.example.get(data, arena),
                        (c.file, c.first_line + u64::from(e.line), e.item),
                        1,
                    );
                    if new && taped {
                        fresh[e.seq as usize].store(p as u8 + 1, Relaxed);
                    }
                }
            }
        });
        if let Some(tape) = &mut self.tape {
            tape_of(chunks, tape);
        }
    }

    /// Whether every partition's arena stays within `max_blocks` when
    /// `chunks` are merged, even if every key is new. A block is opened
    /// only for a record that did not fit in the one before, so each two
    /// blocks in a row hold more than [`BLOCK`] bytes: `n` bytes of new
    /// records open at most `2n / BLOCK + 1` blocks.
    fn room_for(&self, chunks: &[Chunk]) -> bool {
        self.parts.iter().enumerate().all(|(p, part)| {
            let bytes: u64 = chunks.iter().map(|c| c.part_bytes[p]).sum();
            let opened = 2 * bytes / BLOCK as u64 + 1;
            part.arena.blocks.len() as u64 + opened <= self.max_blocks as u64
        })
    }

    fn bytes(&self) -> usize {
        self.parts.iter().map(Part::bytes).sum::<usize>()
            + self.tape.as_ref().map_or(0, Vec::capacity)
    }

    /// Append every partition's rows to its file and free the tables.
    fn spill(&mut self) -> Result<(), Error> {
        if self.spill.is_none() {
            let base = self.temp_dir.clone().unwrap_or_else(std::env::temp_dir);
            let dir = tempfile::Builder::new()
                .prefix(".irinorm-spill-")
                .tempdir_in(&base)
                .map_err(|e| {
                    Error::io(
                        format!("cannot create a temporary directory in {}", base.display()),
                        &e,
                    )
                })?;
            cleanup::register(dir.path());
            self.spill = Some(SpillDir {
                dir,
                bytes: 0,
                parts: vec![false; SPILL_FILES],
            });
        }
        let Some(spill) = self.spill.as_mut() else {
            return Ok(());
        };
        // Rows leave memory: the sorted runs give the order from now on.
        self.tape = None;
        let spill_ref = &*spill;
        let hasher = &self.hasher;
        let written: Vec<Result<[u64; SPLIT], Error>> = self
            .parts
            .par_iter_mut()
            .enumerate()
            .map(|(p, part)| {
                let part = std::mem::take(part);
                let mut n = [0u64; SPLIT];
                if part.recs.is_empty() {
                    return Ok(n);
                }
                let mut writers = Vec::with_capacity(SPLIT);
                if cleanup::stopping() {
                    return Err(Error::msg("interrupted"));
                }
                for sub in 0..SPLIT {
                    let f = std::fs::OpenOptions::new()
                        .create(true)
                        .append(true)
                        .open(spill_ref.part_path(p * SPLIT + sub))
                        .map_err(|e| spill_ref.err(&e))?;
                    writers.push(BufWriter::with_capacity(1 << 16, f));
                }
                for r in part.rows() {
                    let key = part.key(&r);
                    let hash = key_hash(hasher, key);
                    let sub = split_of(hash);
                    n[sub] += write_spilled(&mut writers[sub], hash, &r, key, part.example(&r))
                        .map_err(|e| spill_ref.err(&e))?;
                }
                for w in &mut writers {
                    w.flush().map_err(|e| spill_ref.err(&e))?;
                }
                Ok(n)
            })
            .collect();
        for (p, w) in written.into_iter().enumerate() {
            for (sub, n) in w?.into_iter().enumerate() {
                if n > 0 {
                    spill.parts[p * SPLIT + sub] = true;
                    spill.bytes += n;
                }
            }
        }
        self.spills += 1;
        Ok(())
    }

    /// Write the rows in order; the summary (without the line stats).
    fn finish(
        mut self,
        names: &[String],
        out: &mut (dyn FnMut(&[u8]) -> Result<(), Error> + Send),
    ) -> Result<Summary, Error> {
        out(&self.columns.header())?;
        // The `first_file` fields, quoted once rather than once per row.
        let names: Vec<Vec<u8>> = names
            .iter()
            .map(|n| {
                let mut f = Vec::new();
                csv_field(&mut f, n.as_bytes());
                f
            })
            .collect();
        let names = &names[..];
        if self.spill.is_none() {
            let written = match self.whole.take() {
                Some(whole) => whole.write(self.columns.fields(), self.show_surt, names, out)?,
                None => self.write_in_memory(names, out)?,
            };
            return Ok(Summary {
                unique: written.rows,
                diagnostics: Diagnostics {
                    writers: written.writers,
                    ..Diagnostics::default()
                },
                ..Summary::default()
            });
        }
        self.spill()?;
        let spill = self.spill.take().expect("spilled");
        let (order, show_surt, spills) = (self.order, self.show_surt, self.spills);
        let columns = std::mem::take(&mut self.columns);
        let max_blocks = self.max_blocks;
        drop(self);
        // Each partition alone: read back, dedup, sort, write a sorted run.
        let sorted: Vec<Result<u64, Error>> = (0..SPILL_FILES)
            .into_par_iter()
            .map(|p| {
                if !spill.parts[p] {
                    return Ok(0);
                }
                let path = spill.part_path(p);
                let part = read_back(&path, max_blocks).map_err(|e| match e {
                    ReadBack::Io(e) => spill.err(&e),
                    ReadBack::Full => Error::msg(format!(
                        "{}: more distinct keys than one partition can hold",
                        path.display()
                    )),
                })?;
                std::fs::remove_file(&path).map_err(|e| spill.err(&e))?;
                let rows = sort_rows(&part, order);
                let f = File::create(spill.sorted_path(p)).map_err(|e| spill.err(&e))?;
                let mut w = BufWriter::with_capacity(1 << 16, f);
                let mut n = 0;
                for (r, surt) in rows {
                    let k = part.key(&r);
                    let (a, b) = sort_key(order, &r, k, surt);
                    // In SURT order, `a` is the SURT.
                    let shown = shown(show_surt, k, (order == Order::Surt).then_some(&a[..]));
                    n += write_sorted(&mut w, &a, &b, &shown, &r, part.example(&r))
                        .map_err(|e| spill.err(&e))?;
                }
                w.flush().map_err(|e| spill.err(&e))?;
                Ok(n)
            })
            .collect();
        let mut sorted_bytes = 0;
        for s in sorted {
            sorted_bytes += s?;
        }
        // k-way merge of the sorted runs.
        let mut runs = Vec::new();
        for p in 0..SPILL_FILES {
            if spill.parts[p] {
                let f = File::open(spill.sorted_path(p)).map_err(|e| spill.err(&e))?;
                runs.push(BufReader::with_capacity(1 << 16, f));
            }
        }
        let mut heap = BinaryHeap::new();
        for (i, r) in runs.iter_mut().enumerate() {
            if let Some(rec) = read_sorted(r).map_err(|e| spill.err(&e))? {
                heap.push(Head { rec, run: i });
            }
        }
        let mut text = Vec::with_capacity(1 << 20);
        let mut unique = 0u64;
        while let Some(Head { rec, run }) = heap.pop() {
            unique += 1;
            format_row(
                &mut text,
                columns.fields(),
                &rec.shown,
                rec.count,
                &names[rec.file as usize],
                rec.line,
                &rec.example,
            );
            if text.len() >= 1 << 20 {
                out(&text)?;
                text.clear();
            }
            if let Some(next) = read_sorted(&mut runs[run]).map_err(|e| spill.err(&e))? {
                heap.push(Head { rec: next, run });
            }
        }
        out(&text)?;
        Ok(Summary {
            unique,
            spills,
            spilled_bytes: spill.bytes + sorted_bytes,
            spilled_partitions: spill.parts.iter().filter(|&&p| p).count(),
            ..Summary::default()
        })
    }

    /// Without a spill: rows in output order, formatted in parallel blocks,
    /// written in order.
    fn write_in_memory(
        &self,
        names: &[Vec<u8>],
        out: &mut (dyn FnMut(&[u8]) -> Result<(), Error> + Send),
    ) -> Result<Written, Error> {
        // `surt`: the key's SURT, where the sort computed it.
        let format = |t: &mut Vec<u8>, p: &Part, r: &Row, surt: Option<&[u8]>| {
            let shown = shown(self.show_surt, p.key(r), surt);
            let file = &names[r.file as usize];
            let columns = self.columns.fields();
            format_row(t, columns, &shown, r.count, file, r.line, p.example(r));
        };
        if let Some(tape) = &self.tape {
            let format = |t: &mut Vec<u8>, p: &Part, i: usize| format(t, p, &p.row(i), None);
            return write_by_origin(&self.parts, tape, piece_rows(tape.len()), format, out);
        }
        let mut all: Vec<Sorted> = self
            .parts
            .iter()
            .flat_map(|p| p.recs.iter().map(move |&at| (p, at, None)))
            .collect();
        let surts: Vec<(Vec<u8>, Vec<usize>)>;
        if self.order == Order::Key {
            all = sort_by_fields(all, 1, |(p, at, _), _| p.arena.key_at(*at));
        } else {
            // The SURTs in one buffer per block of rows, not one `Vec`
            // each: freeing 10^6 small strings in sorted order cost more
            // than computing them (BENCHMARKS.md §17).
            const SURTS: usize = 1 << 14;
            surts = all
                .par_chunks(SURTS)
                .map(|rows| {
                    let (mut buf, mut ends) = (Vec::new(), Vec::with_capacity(rows.len()));
                    for &(p, at, _) in rows {
                        buf.extend_from_slice(&crate::surt::surt_of_key(p.arena.key_at(at)));
                        ends.push(buf.len());
                    }
                    (buf, ends)
                })
                .collect();
            let keyed: Vec<Sorted> = surts
                .iter()
                .zip(all.chunks(SURTS))
                .flat_map(|((buf, ends), rows)| {
                    let starts = std::iter::once(0).chain(ends.iter().copied());
                    starts
                        .zip(ends)
                        .zip(rows)
                        .map(|((start, &end), &(p, at, _))| (p, at, Some(&buf[start..end])))
                })
                .collect();
            all = sort_by_fields(keyed, 2, |(p, at, surt), f| match f {
                0 => surt.unwrap_or_default(),
                _ => p.arena.key_at(*at),
            });
        }
        let pieces: Vec<&[Sorted]> = all.chunks(piece_rows(all.len())).collect();
        let writers = write_pieces(&pieces, out, |rows, text| {
            text.reserve(rows.len() * 128);
            for (i, &(p, at, surt)) in rows.iter().enumerate() {
                // Sorted, the records are all over memory: ask ahead, as
                // `write_by_origin` does.
                if let Some(&(p, at, _)) = rows.get(i + AHEAD_ROW) {
                    p.prefetch_record(at);
                }
                format(text, p, &p.arena.row(at), surt);
            }
        })?;
        Ok(Written {
            rows: all.len() as u64,
            writers,
        })
    }
}

/// Append to `tape` the partition of each new row of `chunks`, in input
/// order: what a merge stored in their `fresh` flags (the merge has
/// joined, so its stores are visible here).
fn tape_of(chunks: &[Chunk], tape: &mut Vec<u8>) {
    for c in chunks {
        tape.extend(
            c.bufs
                .fresh
                .iter()
                .filter_map(|f| f.load(Relaxed).checked_sub(1)),
        );
    }
}

/// Rows per piece of [`write_by_origin`] (about 400 KB of CSV): small
/// enough that the pieces' buffers are reused from the second group on
/// instead of fresh memory faulted in page by page (measured against 8 K
/// and 32 K rows, BENCHMARKS.md §17).
const PIECE: usize = 1 << 12;

/// Rows per piece for an output of `rows` rows: [`PIECE`], but at least 64
/// pieces down to 256 rows each. The buffers of the first groups are fresh
/// memory; with only a few groups, every piece was, and a 5 MB output of
/// 48 k rows had all its 5 MB faulted in (BENCHMARKS.md §29).
fn piece_rows(rows: usize) -> usize {
    (rows / 64).clamp(256, PIECE)
}

/// How far ahead [`write_by_origin`] asks for a row's record, and for the
/// rest of a row whose head names it ([`Added::REST`]).
const AHEAD_ROW: usize = 32;
const AHEAD_KEY: usize = 16;

/// Cache lines of a record [`Part::prefetch_record`] asks for: its
/// 32-byte header with a key and an example of 80 bytes each starts
/// anywhere in a line and ends in the fourth.
const RECORD_LINES: usize = 4;

/// A second walk of a piece of the tape, `dist` rows ahead of the row
/// being written.
struct Ahead {
    next: Vec<usize>,
    j: usize,
    dist: usize,
}

impl Ahead {
    fn new(start: &[usize], dist: usize) -> Self {
        Ahead {
            next: start.to_vec(),
            j: 0,
            dist,
        }
    }

    /// `f` on each row not yet visited up to `dist` rows after row `i`.
    #[inline]
    fn upto<P: Added>(&mut self, i: usize, tape: &[u8], parts: &[P], f: impl Fn(&P, usize)) {
        while self.j < tape.len() && self.j <= i + self.dist {
            let q = tape[self.j] as usize;
            if self.next[q] < parts[q].added() {
                f(&parts[q], self.next[q]);
            }
            self.next[q] += 1;
            self.j += 1;
        }
    }
}

/// A partition's rows in the order they were added, as
/// [`write_by_origin`] reads them.
trait Added: Sync {
    /// How many.
    fn added(&self) -> usize;
    /// Ask for the `i`-th row ahead of its use ([`AHEAD_ROW`] rows).
    fn prefetch_head(&self, i: usize);
    /// Whether a row's head names bytes elsewhere, asked for by
    /// [`Added::prefetch_rest`] [`AHEAD_KEY`] rows ahead (once the head,
    /// asked for earlier, has come).
    const REST: bool;
    /// Ask for the rest of the `i`-th row, if [`Added::REST`].
    fn prefetch_rest(&self, _i: usize) {}
}

impl Added for Part {
    fn added(&self) -> usize {
        self.recs.len()
    }

    #[inline]
    fn prefetch_head(&self, i: usize) {
        self.prefetch_record(self.recs[i]);
    }

    /// A record holds its key and example: [`Part::prefetch_record`] asks
    /// for all of it at once.
    const REST: bool = false;
}

/// What an output wrote: its rows, and the writer threads it started
/// ([`write_pieces`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Written {
    rows: u64,
    writers: usize,
}

/// Every row in order of first occurrence, formatted by `format` and
/// written through `out`. Without a spill each partition's rows already
/// are in that order (batches and their chunks are merged in input order),
/// and `tape` names the partition of each row in that order
/// ([`Table::tape`]): no sort and no compare of origins. The tape is cut
/// into pieces of `piece` rows, formatted in parallel (each from its own
/// starting row in every partition) and written in order.
fn write_by_origin<P: Added>(
    parts: &[P],
    tape: &[u8],
    piece: usize,
    format: impl Fn(&mut Vec<u8>, &P, usize) + Sync,
    out: &mut (dyn FnMut(&[u8]) -> Result<(), Error> + Send),
) -> Result<Written, Error> {
    debug_assert_eq!(tape.len(), parts.iter().map(P::added).sum::<usize>());
    let pieces: Vec<&[u8]> = tape.chunks(piece.max(1)).collect();
    // starts[j][p]: rows of partition p before piece j.
    let mut starts = Vec::with_capacity(pieces.len());
    let mut next = vec![0usize; parts.len()];
    for t in &pieces {
        starts.push(next.clone());
        for &p in *t {
            next[p as usize] += 1;
        }
    }
    let pieces: Vec<(&[u8], Vec<usize>)> = pieces.into_iter().zip(starts).collect();
    let writers = write_pieces(&pieces, out, |(t, start), text| {
        text.reserve(t.len() * 128);
        let mut next = start.clone();
        // The rows come from every partition in turn, too many streams for
        // the hardware to see: ask for each row `AHEAD_ROW` rows ahead, and
        // for the rest of it (where its head says) `AHEAD_KEY` ahead
        // (BENCHMARKS.md §17, §38).
        let mut rows = Ahead::new(start, AHEAD_ROW);
        let mut rest = P::REST.then(|| Ahead::new(start, AHEAD_KEY));
        for (i, &p) in t.iter().enumerate() {
            rows.upto(i, t, parts, P::prefetch_head);
            if let Some(rest) = &mut rest {
                rest.upto(i, t, parts, P::prefetch_rest);
            }
            format(text, &parts[p as usize], next[p as usize]);
            next[p as usize] += 1;
        }
    })?;
    Ok(Written {
        rows: tape.len() as u64,
        writers,
    })
}

/// Format `pieces` in parallel, a few per worker at a time, and write them
/// in order from a thread of their own: a `write` copies into the page
/// cache, which takes pages of fresh memory, and on a worker that time was
/// taken from formatting (40 ms of `write` calls for a 123 MB output,
/// BENCHMARKS.md §25).
/// The writer's groups come back as buffers for later groups: fresh ones
/// would be new memory, faulted in page by page.
/// An output of one group (4 pieces a worker: with [`piece_rows`], 1,024
/// rows a worker or fewer on up to 16 workers) has nothing for a writer to
/// overlap, which would start, wait for the group and write it: it is
/// written here instead (BENCHMARKS.md §36).
/// The writer threads it started: 0 or 1.
fn write_pieces<P: Sync>(
    pieces: &[P],
    out: &mut (dyn FnMut(&[u8]) -> Result<(), Error> + Send),
    fill: impl Fn(&P, &mut Vec<u8>) + Sync,
) -> Result<usize, Error> {
    let format = |group: &[P], mut bufs: Vec<Vec<u8>>| -> Vec<Vec<u8>> {
        bufs.resize_with(group.len(), Vec::new);
        group
            .par_iter()
            .zip(bufs)
            .map(|(piece, mut text)| {
                text.clear();
                fill(piece, &mut text);
                text
            })
            .collect()
    };
    let group = 4 * rayon::current_num_threads().max(1);
    if pieces.len() <= group {
        format(pieces, Vec::new()).iter().try_for_each(|t| out(t))?;
        return Ok(0);
    }
    let (give_back, spares) = std::sync::mpsc::channel::<Vec<Vec<u8>>>();
    // One group queued while one is written and one formatted.
    let write = |texts: &Vec<Vec<u8>>| texts.iter().try_for_each(|t| out(t));
    // The formatting may be done: then the buffers go.
    let done = move |texts| drop(give_back.send(texts));
    write_behind(1, write, done, |send| {
        for g in pieces.chunks(group) {
            send(format(g, spares.try_recv().unwrap_or_default()))?;
        }
        Ok(())
    })?;
    Ok(1)
}

/// A row of the sorted output, with its key's SURT where the sort computed
/// it.
type Sorted<'a> = (&'a Part, u32, Option<&'a [u8]>);

/// The canonical column: the key, or its SURT (`known`, if computed already).
fn shown<'a>(surt: bool, key: &'a [u8], known: Option<&'a [u8]>) -> std::borrow::Cow<'a, [u8]> {
    use std::borrow::Cow;
    match (surt, known) {
        (false, _) => Cow::Borrowed(key),
        (true, Some(s)) => Cow::Borrowed(s),
        (true, None) => Cow::Owned(crate::surt::surt_of_key(key)),
    }
}

/// A partition's rows in output order, in SURT order with their SURTs
/// (computed once, for the sort and then the sorted run).
fn sort_rows(part: &Part, order: Order) -> Vec<(Row, Option<Vec<u8>>)> {
    let mut rows: Vec<Row> = part.rows().collect();
    match order {
        Order::First => rows.sort_unstable_by_key(|r| r.origin()),
        Order::Key => {
            // The field borrows from the item: the part goes with each row.
            let with: Vec<(&Part, Row)> = rows.into_iter().map(|r| (part, r)).collect();
            let sorted = sort_by_fields(with, 1, |(p, r), _| p.key(r));
            rows = sorted.into_iter().map(|(_, r)| r).collect();
        }
        Order::Surt => {
            let keyed: Vec<(Vec<u8>, &Part, Row)> = rows
                .into_iter()
                .map(|r| (crate::surt::surt_of_key(part.key(&r)), part, r))
                .collect();
            return sort_by_fields(keyed, 2, |(surt, p, r), f| match f {
                0 => surt,
                _ => p.key(r),
            })
            .into_iter()
            .map(|(surt, _, r)| (r, Some(surt)))
            .collect();
        }
    }
    rows.into_iter().map(|r| (r, None)).collect()
}

/// The order of a row as two byte strings compared in turn: the same total
/// order as [`Table::write_in_memory`] (an origin as 16 big-endian bytes
/// compares as the tuple does). `surt`: the key's SURT, if already known.
fn sort_key(order: Order, r: &Row, key: &[u8], surt: Option<Vec<u8>>) -> (Vec<u8>, Vec<u8>) {
    match order {
        Order::First => {
            let mut a = Vec::with_capacity(16);
            a.extend_from_slice(&r.file.to_be_bytes());
            a.extend_from_slice(&r.line.to_be_bytes());
            a.extend_from_slice(&r.item.to_be_bytes());
            (a, Vec::new())
        }
        Order::Key => (key.to_vec(), Vec::new()),
        Order::Surt => (
            surt.unwrap_or_else(|| crate::surt::surt_of_key(key)),
            key.to_vec(),
        ),
    }
}

/// One output row of `columns`; `file` is already a CSV field.
fn format_row(
    t: &mut Vec<u8>,
    columns: &[Field],
    shown: &[u8],
    count: u64,
    file: &[u8],
    line: u64,
    example: &[u8],
) {
    // Where the canonical field was written, when the example is the same
    // bytes (the input line was canonical already, and its key borrows
    // it): the example is then copied from there, not scanned for quoting
    // again.
    let mut same = None;
    for (i, c) in columns.iter().enumerate() {
        if i > 0 {
            t.push(b',');
        }
        match c {
            Field::Canonical => {
                let start = t.len();
                csv_field(t, shown);
                if std::ptr::eq(shown, example) {
                    same = Some(start..t.len());
                }
            }
            Field::Count => csv_u64(t, count),
            Field::FirstFile => t.extend_from_slice(file),
            Field::FirstLine => csv_u64(t, line),
            Field::Example => match same.clone() {
                Some(field) => t.extend_from_within(field),
                None => csv_field(t, example),
            },
        }
    }
    t.push(b'\n');
}

// --- Spill file records (native to this run; little-endian) ---

fn put_bytes(w: &mut impl Write, b: &[u8]) -> io::Result<()> {
    w.write_all(&(b.len() as u64).to_le_bytes())?;
    w.write_all(b)
}

fn get_u64(r: &mut impl Read) -> io::Result<Option<u64>> {
    let mut b = [0u8; 8];
    match r.read_exact(&mut b) {
        Ok(()) => Ok(Some(u64::from_le_bytes(b))),
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(None),
        Err(e) => Err(e),
    }
}

fn need_u64(r: &mut impl Read) -> io::Result<u64> {
    get_u64(r)?.ok_or_else(|| io::Error::new(io::ErrorKind::UnexpectedEof, "truncated spill file"))
}

fn get_bytes(r: &mut impl Read, into: &mut Vec<u8>) -> io::Result<()> {
    let n = need_u64(r)? as usize;
    into.clear();
    into.resize(n, 0);
    r.read_exact(into)
}

/// A row of a partition run: hash, count, origin, key, example.
fn write_spilled(
    w: &mut impl Write,
    hash: u64,
    r: &Row,
    key: &[u8],
    example: &[u8],
) -> io::Result<u64> {
    for v in [hash, r.count, u64::from(r.file), r.line, u64::from(r.item)] {
        w.write_all(&v.to_le_bytes())?;
    }
    put_bytes(w, key)?;
    put_bytes(w, example)?;
    Ok(40 + 16 + (key.len() + example.len()) as u64)
}

/// Why a spill file could not be read back.
enum ReadBack {
    Io(io::Error),
    /// Its records would pass the partition's `max_blocks` (32 GiB in one
    /// of 256 spill files: terabytes of distinct keys).
    Full,
}

/// A spill file's rows in one partition, deduplicated (rows spilled
/// several times add up).
fn read_back(path: &Path, max_blocks: usize) -> Result<Part, ReadBack> {
    let f = File::open(path).map_err(ReadBack::Io)?;
    let mut r = BufReader::with_capacity(1 << 16, f);
    let (mut part, mut key, mut ex) = (Part::default(), Vec::new(), Vec::new());
    while let Some(row) = read_spilled(&mut r, &mut key, &mut ex).map_err(ReadBack::Io)? {
        // A row opens at most one block.
        if part.arena.blocks.len() >= max_blocks && part.arena.opens_block(&key, &ex) {
            return Err(ReadBack::Full);
        }
        part.add(row.hash, &key, &ex, row.origin, row.count);
    }
    Ok(part)
}

/// A spilled row as read back (its key and example go to the caller's
/// buffers).
struct Spilled {
    hash: u64,
    origin: (u32, u64, u32),
    count: u64,
}

fn read_spilled(
    r: &mut impl Read,
    key: &mut Vec<u8>,
    ex: &mut Vec<u8>,
) -> io::Result<Option<Spilled>> {
    let Some(hash) = get_u64(r)? else {
        return Ok(None);
    };
    let count = need_u64(r)?;
    let file = need_u64(r)? as u32;
    let line = need_u64(r)?;
    let item = need_u64(r)? as u32;
    get_bytes(r, key)?;
    get_bytes(r, ex)?;
    Ok(Some(Spilled {
        hash,
        origin: (file, line, item),
        count,
    }))
}

/// A row of a sorted run.
struct SortedRec {
    a: Vec<u8>,
    b: Vec<u8>,
    shown: Vec<u8>,
    count: u64,
    file: u32,
    line: u64,
    example: Vec<u8>,
}

fn write_sorted(
    w: &mut impl Write,
    a: &[u8],
    b: &[u8],
    shown: &[u8],
    r: &Row,
    example: &[u8],
) -> io::Result<u64> {
    put_bytes(w, a)?;
    put_bytes(w, b)?;
    put_bytes(w, shown)?;
    for v in [r.count, u64::from(r.file), r.line] {
        w.write_all(&v.to_le_bytes())?;
    }
    put_bytes(w, example)?;
    Ok(24 + 32 + (a.len() + b.len() + shown.len() + example.len()) as u64)
}

fn read_sorted(r: &mut impl Read) -> io::Result<Option<SortedRec>> {
    let Some(n) = get_u64(r)? else {
        return Ok(None);
    };
    let mut a = vec![0; n as usize];
    r.read_exact(&mut a)?;
    let (mut b, mut shown, mut example) = (Vec::new(), Vec::new(), Vec::new());
    get_bytes(r, &mut b)?;
    get_bytes(r, &mut shown)?;
    let count = need_u64(r)?;
    let file = need_u64(r)? as u32;
    let line = need_u64(r)?;
    get_bytes(r, &mut example)?;
    Ok(Some(SortedRec {
        a,
        b,
        shown,
        count,
        file,
        line,
        example,
    }))
}

/// A run's current row in the merge heap (a min-heap by (a, b)).
struct Head {
    rec: SortedRec,
    run: usize,
}

impl PartialEq for Head {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Head {}
impl PartialOrd for Head {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Head {
    fn cmp(&self, o: &Self) -> Ordering {
        (&o.rec.a, &o.rec.b, o.run).cmp(&(&self.rec.a, &self.rec.b, self.run))
    }
}

/// Whether `dir` exists and is a directory we could create files in (for a
/// clear error before a long run).
pub fn check_temp_dir(dir: &Path) -> Result<(), Error> {
    tempfile::Builder::new()
        .prefix(".irinorm-probe-")
        .tempfile_in(dir)
        .map(drop)
        .map_err(|e| {
            Error::io(
                format!("cannot write to the temporary directory {}", dir.display()),
                &e,
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Partitions whose rows are in origin order, and their tape, as a run
    /// leaves them: origins over three files and split items, spread over
    /// the partitions by a pseudo-random walk (some partitions stay empty).
    fn parts(rows: u64) -> (Vec<Part>, Vec<u8>) {
        let mut parts: Vec<Part> = (0..7).map(|_| Part::default()).collect();
        let mut tape = Vec::new();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for i in 0..rows {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let origin = ((i / 1000) as u32, 1 + i % 1000 / 2, (i % 2) as u32);
            let key = format!("http://h{i}.example/");
            let p = (x % 5) as usize; // partitions 5 and 6 stay empty
            assert!(parts[p].add(x, key.as_bytes(), b"ex", origin, 1 + i % 3));
            tape.push(p as u8);
        }
        (parts, tape)
    }

    /// The rows written, the text and the writer threads started.
    fn written(parts: &[Part], tape: &[u8], piece: usize) -> (u64, Vec<u8>, usize) {
        let mut text = Vec::new();
        let w = write_by_origin(
            parts,
            tape,
            piece,
            |t: &mut Vec<u8>, p: &Part, i: usize| {
                let r = &p.row(i);
                t.extend_from_slice(p.key(r));
                t.extend_from_slice(format!(",{},{},{}\n", r.file, r.line, r.item).as_bytes());
            },
            &mut |b: &[u8]| {
                text.extend_from_slice(b);
                Ok(())
            },
        )
        .unwrap();
        (w.rows, text, w.writers)
    }

    #[test]
    fn pieces_cut_from_the_tape_write_what_one_sort_writes() {
        for rows in [0, 1, 2, 5, 999, 2500] {
            let (parts, tape) = parts(rows);
            let mut all: Vec<(&Part, Row)> = parts
                .iter()
                .flat_map(|p| p.rows().map(move |r| (p, r)))
                .collect();
            all.sort_by_key(|(_, r)| r.origin());
            let mut want = Vec::new();
            for (p, r) in all {
                want.extend_from_slice(p.key(&r));
                want.extend_from_slice(format!(",{},{},{}\n", r.file, r.line, r.item).as_bytes());
            }
            for piece in [1, 2, 3, 7, 100, PIECE] {
                let (n, got, _) = written(&parts, &tape, piece);
                assert_eq!(n, rows, "{rows} rows, pieces of {piece}");
                assert!(got == want, "{rows} rows, pieces of {piece}");
            }
        }
    }

    /// An output of one group of pieces (4 a worker) is written without a
    /// writer thread, one of more groups through one; either way the rows
    /// are those of the one-piece cut, in order (around the group's size,
    /// on one and two workers).
    #[test]
    fn one_group_is_written_without_a_writer_thread() {
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let group = 4 * threads;
            for rows in [1, group - 1, group, group + 1, 3 * group + 2] {
                let (parts, tape) = parts(rows as u64);
                let want = written(&parts, &tape, rows).1;
                let (_, got, writers) = pool.install(|| written(&parts, &tape, 1));
                assert!(got == want, "{rows} rows on {threads} workers");
                let groups = rows.div_ceil(group);
                assert_eq!(writers, usize::from(groups > 1), "{rows} rows on {threads}");
            }
        }
    }

    /// A write that fails stops the output with its error, in every group
    /// (the first, one in the middle, the last): nothing is written after
    /// it, and the formatting does not wait for a writer that is gone.
    #[test]
    fn a_failed_write_stops_the_output_with_its_error() {
        let (parts, tape) = parts(2500);
        // Pieces of 10 rows: 250 pieces, in groups of 4 per worker; pieces
        // of 1,000 rows: 3, one group, written without a writer thread.
        for (piece, fail_at) in [(10, 1), (10, 2), (10, 9), (10, 120), (10, 250)]
            .into_iter()
            .chain([(1000, 1), (1000, 2), (1000, 3)])
        {
            let mut calls = 0;
            let r = write_by_origin(
                &parts,
                &tape,
                piece,
                |t: &mut Vec<u8>, p: &Part, i: usize| t.extend_from_slice(p.key(&p.row(i))),
                &mut |_: &[u8]| {
                    calls += 1;
                    if calls == fail_at {
                        let e = std::io::Error::other("disk full");
                        return Err(Error::io("cannot write the output".into(), &e));
                    }
                    Ok(())
                },
            );
            let e = r.unwrap_err();
            assert!(e.to_string().contains("disk full"), "{e}");
            assert_eq!(calls, fail_at);
        }
    }

    type Origin = (u32, u64, u32);
    /// Key → example, first origin, count.
    type Model = std::collections::BTreeMap<Vec<u8>, (Vec<u8>, Origin, u64)>;

    /// A partition's records against a map: every row's key, example,
    /// origin and count survive blocks filling up (records of every size,
    /// one larger than a block), repeats, and an earlier origin replacing a
    /// row's first occurrence (the replaced record is skipped).
    #[test]
    fn records_hold_what_was_added() {
        use std::collections::BTreeMap;
        let hasher = foldhash::fast::FixedState::with_seed(3);
        let mut part = Part::default();
        // key -> (example, origin, count), the first origin winning.
        let mut want: Model = BTreeMap::new();
        let mut add = |part: &mut Part, key: &[u8], ex: &[u8], origin: (u32, u64, u32), n: u64| {
            let new = part.add(key_hash(&hasher, key), key, ex, origin, n);
            assert_eq!(new, !want.contains_key(key));
            let e = want.entry(key.to_vec()).or_insert((ex.to_vec(), origin, 0));
            if origin < e.1 {
                (e.0, e.1) = (ex.to_vec(), origin);
            }
            e.2 += n;
        };
        for i in 0..40_000u64 {
            let key = format!(
                "http://h{}.example/{}",
                i % 9_000,
                "p".repeat((i % 97) as usize)
            );
            let ex = if i % 3 == 0 {
                key.to_uppercase()
            } else {
                key.clone()
            };
            add(
                &mut part,
                key.as_bytes(),
                ex.as_bytes(),
                (0, i + 10, 0),
                1 + i % 2,
            );
        }
        // Then a key larger than a block; earlier origins, as a spilled
        // run's read-back may bring them; and a later occurrence of a
        // replaced row, which counts on the row that replaced it.
        let (big, h7) = (vec![b'x'; BLOCK + 5], b"http://h7.example/ppppppp");
        let tail: [(&[u8], &[u8], Origin, u64); 5] = [
            (&big, b"big", (0, 50_000, 0), 1),
            (&big, &big, (0, 50_001, 0), 2),
            (h7, b"EARLY", (0, 1, 0), 5),
            (&big, &big, (0, 2, 1), 1),
            (h7, b"late", (0, 60_000, 0), 3),
        ];
        for (key, ex, origin, n) in tail {
            add(&mut part, key, ex, origin, n);
        }
        assert!(part.arena.blocks.len() > 2);
        let got: Model = part
            .rows()
            .map(|r| {
                (
                    part.key(&r).to_vec(),
                    (part.example(&r).to_vec(), r.origin(), r.count),
                )
            })
            .collect();
        assert_eq!(part.rows().count(), want.len());
        assert!(got == want);
        // Rows come in the order they were added (replaced ones at the end).
        let lines: Vec<u64> = part.rows().map(|r| r.line).collect();
        assert_eq!(&lines[lines.len() - 2..], [1, 2]);
        assert!(lines[..lines.len() - 2].windows(2).all(|w| w[0] < w[1]));
    }

    /// Dedup `text` (scheme rung) with the table's arena limited to
    /// `max_blocks` blocks per partition: its CSV and summary.
    fn limited(
        text: &'static [u8],
        order: Order,
        max_blocks: usize,
    ) -> Result<(Vec<u8>, Summary), Error> {
        let n = crate::Normalizer::new(crate::Options::default());
        let key = super::super::key_fn(super::super::prep::Prep::default(), |s: &str| n.key(s));
        let input =
            super::super::source::Opened::from_reader("-", Box::new(std::io::Cursor::new(text)));
        let cfg = Config {
            order,
            chunk_size: 64 << 10,
            batch_bytes: 256 << 10,
            tuning: Tuning {
                max_blocks,
                ..Tuning::default()
            },
            ..Config::default()
        };
        let mut csv = Vec::new();
        let s = run(
            vec![input],
            &Format::Lines,
            &key,
            &cfg,
            &mut super::super::Quiet,
            &mut |b: &[u8]| {
                csv.extend_from_slice(b);
                Ok(())
            },
        )?;
        Ok((csv, s))
    }

    /// A partition's arena reaching its block limit spills the table
    /// first (records are addressed by block and offset in 32 bits), and
    /// the output is what a run without the limit writes; a batch that
    /// could not fit even in empty partitions is an error, not a panic.
    #[test]
    fn the_block_limit_spills_and_changes_nothing() {
        let mut text = Vec::new();
        for i in 0..60_000u32 {
            // Long distinct keys, every third one repeated in a variant.
            let path = "segment/".repeat(20);
            text.extend_from_slice(
                format!("http://h{}.example/{path}{}\n", i % 997, i / 3).as_bytes(),
            );
            if i % 3 == 0 {
                text.extend_from_slice(
                    format!("HTTP://h{}.EXAMPLE:80/{path}{}\n", i % 997, i / 3).as_bytes(),
                );
            }
        }
        let text: &'static [u8] = text.leak();
        for order in [Order::First, Order::Key] {
            let (want, free) = limited(text, order, MAX_BLOCKS).unwrap();
            assert_eq!(free.spills, 0);
            // One block per partition: each batch after the first finds
            // blocks in use, and spills before it is merged.
            let (got, tight) = limited(text, order, 1).unwrap();
            assert!(tight.spills > 1, "{:?}", tight.spills);
            assert_eq!(tight.unique, free.unique);
            assert!(got == want);
        }
        let e = limited(text, Order::First, 0).unwrap_err();
        assert!(
            e.to_string().contains("more keys than one partition"),
            "{e}"
        );
    }

    /// Reading a spill file back stops with an error, not a wrong place,
    /// when its records would pass the partition's block limit; at the
    /// limit exactly it reads every row (a repeat adds up, it opens no
    /// block).
    #[test]
    fn reading_back_keeps_to_the_block_limit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("part");
        let hasher = foldhash::fast::FixedState::with_seed(5);
        let mut w = Vec::new();
        // Three keys of 600 KB: each record opens a block of its own.
        for (i, c) in [b'a', b'b', b'a', b'c'].into_iter().enumerate() {
            let key = vec![c; 600_000];
            let mut part = Part::default();
            part.add(0, &key, b"ex", (0, i as u64 + 1, 0), 1);
            let r = part.row(0);
            write_spilled(&mut w, key_hash(&hasher, &key), &r, &key, b"ex").unwrap();
        }
        std::fs::write(&path, &w).unwrap();
        assert!(matches!(read_back(&path, 2), Err(ReadBack::Full)));
        let part = read_back(&path, 3).ok().unwrap();
        let counts: Vec<(u8, u64)> = part.rows().map(|r| (part.key(&r)[0], r.count)).collect();
        assert_eq!(counts, [(b'a', 2), (b'b', 1), (b'c', 1)]);
        assert_eq!(part.arena.blocks.len(), 3);
    }

    /// Dedup the inputs `texts` as `format` with `cfg` (whose pool is the
    /// workers), through [`whole`] or not (`take`), the reader taken to
    /// have ended after every batch (`assume`): CSV, summary and batches
    /// kept (and of those, how many were keyed in input order).
    fn run_way(
        texts: &[&'static [u8]],
        format: &Format,
        cfg: &Config,
        (take, assume): (bool, bool),
    ) -> (Vec<u8>, Summary, (usize, usize)) {
        let n = crate::Normalizer::new(crate::Options::default());
        let key = super::super::key_fn(super::super::prep::Prep::default(), |s: &str| n.key(s));
        let inputs = texts
            .iter()
            .enumerate()
            .map(|(i, &t)| {
                super::super::source::Opened::from_reader(
                    format!("in{i}"),
                    Box::new(std::io::Cursor::new(t)),
                )
            })
            .collect();
        let cfg = Config {
            tuning: Tuning {
                take_whole: take,
                assume_ended: assume,
                ..cfg.tuning
            },
            ..cfg.clone()
        };
        let mut csv = Vec::new();
        let s = run(
            inputs,
            format,
            &key,
            &cfg,
            &mut super::super::Quiet,
            &mut |b: &[u8]| {
                csv.extend_from_slice(b);
                Ok(())
            },
        )
        .unwrap();
        (csv, s, (s.diagnostics.kept, s.diagnostics.in_order))
    }

    /// With a pool of its own, the run's loop is on one of its workers (the
    /// observer hears from it there), and the nested steps it hands the
    /// workers start where it is; without one, it is on the caller's
    /// thread. Either way the rows are the same.
    #[test]
    fn the_loop_runs_on_the_pool_it_is_given() {
        struct Where(Vec<Option<usize>>);
        impl super::super::Observer for Where {
            fn progress(&mut self, _bytes: u64) {
                self.0.push(rayon::current_thread_index());
            }
        }
        let n = crate::Normalizer::new(crate::Options::default());
        let key = super::super::key_fn(super::super::prep::Prep::default(), |s: &str| n.key(s));
        let text: &'static [u8] = b"http://a.example/\nHTTP://A.example:80/\nhttp://b.example/\n";
        let mut outputs = Vec::new();
        for threads in [None, Some(1), Some(2)] {
            let pool = threads.map(|n| {
                std::sync::Arc::new(
                    rayon::ThreadPoolBuilder::new()
                        .num_threads(n)
                        .build()
                        .unwrap(),
                )
            });
            let cfg = Config {
                pool,
                ..Config::default()
            };
            let inputs = vec![super::super::source::Opened::from_reader(
                "in",
                Box::new(std::io::Cursor::new(text)),
            )];
            let mut seen = Where(Vec::new());
            let mut csv = Vec::new();
            let s = run(
                inputs,
                &Format::Lines,
                &key,
                &cfg,
                &mut seen,
                &mut |b: &[u8]| {
                    csv.extend_from_slice(b);
                    Ok(())
                },
            )
            .unwrap();
            assert_eq!(s.unique, 2);
            assert!(!seen.0.is_empty());
            assert!(
                seen.0.iter().all(|&w| w.is_some() == threads.is_some()),
                "{threads:?}: {:?}",
                seen.0
            );
            outputs.push(csv);
        }
        assert!(outputs.windows(2).all(|w| w[0] == w[1]));
    }

    /// [`run_way`] without [`whole`] and with it (the reader taken to have
    /// ended): the same CSV and summary. The summary, the batches kept
    /// without `whole` (none may be), and those kept with it (and of
    /// those, keyed in input order).
    fn both_ways(
        texts: &[&'static [u8]],
        format: &Format,
        cfg: &Config,
    ) -> (Summary, usize, (usize, usize)) {
        let (want, want_s, (not_taken, _)) = run_way(texts, format, cfg, (false, false));
        let (got, got_s, kept) = run_way(texts, format, cfg, (true, true));
        assert!(got == want, "{}", String::from_utf8_lossy(&got));
        // The same summary, but for the ways taken.
        let ways = Diagnostics::default();
        assert_eq!(
            Summary {
                diagnostics: ways,
                ..got_s
            },
            Summary {
                diagnostics: ways,
                ..want_s
            }
        );
        (got_s, not_taken, kept)
    }

    /// An input of one batch written from the batch itself ([`whole`])
    /// gives what the arena table gives, byte for byte, summary included:
    /// repeats and variants, blank, rejected and CRLF lines, a BOM, split
    /// items, every column, SURTs, CSV records; on one worker and on the
    /// default pool (the entries in input order, one table, on up to two
    /// workers) and on three (grouped by partition). A
    /// batch kept as the last when more came is merged first (the way back
    /// in [`run`]), and a tight budget or a sorted output does not keep it.
    #[test]
    fn one_batch_written_whole_is_what_the_table_writes() {
        let mut lines = String::from("\u{feff}");
        for i in 0..3000u32 {
            let h = i % 37;
            lines += &match i % 9 {
                0 => format!("HTTP://H{h}.Example:80/a/./b/{}?q=%7e\r\n", i % 101),
                1 => format!("http://h{h}.example/a/b/{}?q=~\n", i % 101),
                2 => "\n".to_string(),
                3 => format!("not a uri {i}\n"),
                4 => format!("http://h{h}.example/x http://münchen.de/{}\n", i % 13),
                5 => format!("http://xn--mnchen-3ya.de/{}#frag\n", i % 13),
                6 => format!("https://h{h}.example/\"quoted\",{i}\n"),
                7 => format!("http://h{h}.example/%E2%82%AC{}\n", i % 7),
                _ => format!("http://[::1]:8080/{}\n", i % 50),
            };
        }
        let lines: &'static [u8] = lines.into_bytes().leak();
        let records: &'static [u8] = b"id,url\n1,http://a.example/\n2,HTTP://A.example:80/\n3,\n4,\"http://b.example/x,y\"\n";
        let records_format = Format::Records(super::super::source::RecordFormat {
            delimiter: b',',
            header: true,
            column: super::super::source::Column::Name("url".into()),
            base_column: None,
        });
        let pool = |n| {
            Some(std::sync::Arc::new(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .build()
                    .unwrap(),
            ))
        };
        let base = Config {
            chunk_size: 4 << 10,
            ..Config::default()
        };
        let cases: Vec<(Vec<&'static [u8]>, Format, Config)> = vec![
            (vec![lines], Format::Lines, base.clone()),
            (
                vec![lines],
                Format::Lines,
                Config {
                    pool: pool(3),
                    ..base.clone()
                },
            ),
            (
                vec![lines],
                Format::Lines,
                Config {
                    split_spaces: true,
                    ..base.clone()
                },
            ),
            (
                vec![lines],
                Format::Lines,
                Config {
                    show_surt: true,
                    ..base.clone()
                },
            ),
            (
                vec![lines],
                Format::Lines,
                Config {
                    columns: Columns::parse("count,canonical").unwrap(),
                    ..base.clone()
                },
            ),
            (vec![b"", lines], Format::Lines, base.clone()),
            (vec![records], records_format, base.clone()),
        ];
        let one = |cfg: &Config| Config {
            pool: pool(1),
            ..cfg.clone()
        };
        let cases = cases.iter().flat_map(|(t, f, c)| {
            [
                (t.clone(), f.clone(), c.clone()),
                (t.clone(), f.clone(), one(c)),
            ]
        });
        for (texts, format, cfg) in cases {
            let workers = cfg.on_pool(rayon::current_num_threads);
            let (s, not_taken, kept) = both_ways(&texts, &format, &cfg);
            assert_eq!((not_taken, s.spills), (0, 0));
            // Up to two workers key the kept batch in input order.
            assert_eq!(
                kept,
                (1, usize::from(cfg.tuning.in_order(workers, lines.len())))
            );
        }
        // Two inputs (so at least two batches), the first batch taken for
        // the last: kept, then merged when the next comes (later batches
        // are not kept: the table holds rows by then; keyed in input order,
        // the kept one is grouped by partition first).
        let small = Config {
            batch_bytes: 1,
            ..base.clone()
        };
        for cfg in [small.clone(), one(&small)] {
            let (_, _, kept) = both_ways(&[lines, lines], &Format::Lines, &cfg);
            let workers = cfg.on_pool(rayon::current_num_threads);
            assert_eq!(
                kept,
                (1, usize::from(cfg.tuning.in_order(workers, lines.len())))
            );
        }
        // On two workers, a batch of more than `Tuning::in_order_bytes` is grouped
        // by partition (and kept all the same); one of at most that is not.
        let two = Config {
            pool: pool(2),
            ..base.clone()
        };
        for (most, in_order) in [(lines.len() - 100, 0), (lines.len(), 1)] {
            let two = Config {
                tuning: Tuning {
                    in_order_bytes: most,
                    ..Tuning::default()
                },
                ..two.clone()
            };
            let (_, _, kept) = both_ways(&[lines], &Format::Lines, &two);
            assert_eq!(kept, (1, in_order));
        }
        // Not kept: a sorted output, or a budget the table would pass.
        for cfg in [
            Config {
                order: Order::Key,
                ..base.clone()
            },
            Config {
                memory: 8 << 20,
                ..base.clone()
            },
            // Keyed in input order, then grouped to be merged (and spilled).
            Config {
                memory: 8 << 20,
                ..one(&base)
            },
        ] {
            let (s, _, kept) = both_ways(&[lines], &Format::Lines, &cfg);
            assert_eq!(kept.0, 0);
            let workers = cfg.on_pool(rayon::current_num_threads);
            if cfg.tuning.in_order(workers, lines.len()) {
                assert_eq!(kept.1, usize::from(cfg.order == Order::First));
            }
            assert_eq!(s.spills > 0, cfg.order == Order::First);
        }
    }
}
