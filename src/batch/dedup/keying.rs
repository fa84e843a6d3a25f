//! Keying a batch: each chunk's lines (or records) become entries — a
//! key's hash (foldhash), where its key and example are, its origin — and
//! are grouped by partition for the merge.
//!
//! The keys are 3987bis §5.3's, computed by the caller's [`KeyFn`].

use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::AtomicU8;

use rayon::prelude::*;

use super::arena::HEAD;
use super::config::{Config, Order};
use crate::batch::line::{line_key, reject_input, strip_cr, ChunkLines, LineText};
use crate::batch::source::{chunk_size, for_each_line, split_chunks, Batch, Layout};
use crate::batch::{KeyFn, Reject, Stats};
use crate::cdx::CdxLayout;

pub(super) const PART_BITS: u32 = 6;
/// Number of hash partitions.
pub const PARTS: usize = 1 << PART_BITS;

#[inline]
pub(super) fn part_of(hash: u64) -> usize {
    // Middle bits: a partition's slot table (`Slots`) uses the low 32 for
    // its home slot and tag; taking those would make its keys collide.
    ((hash >> 40) as usize) & (PARTS - 1)
}

/// Group by partition the entries of `chunks` that are still in input
/// order ([`Chunk::group`]), on the workers.
pub(super) fn group(cfg: &Config, chunks: &mut [Chunk]) {
    cfg.on_pool(|| chunks.par_iter_mut().for_each(|c| c.group(cfg.order)));
}

/// Where a key or example is: in the batch's bytes (offset from the
/// chunk's start) or in the chunk's arena.
#[derive(Clone, Copy, Default)]
pub(super) struct Span {
    pub(super) off: u32,
    pub(super) len: u32,
}

pub(super) const ARENA: u32 = 1 << 31;

impl Span {
    #[inline]
    pub(super) fn get<'a>(&self, chunk: &'a [u8], arena: &'a [u8]) -> &'a [u8] {
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
pub(super) struct Entry {
    pub(super) hash: u64,
    pub(super) key: Span,
    pub(super) example: Span,
    /// 1-based line, counted from its chunk's [`Chunk::first_line`].
    pub(super) line: u32,
    pub(super) item: u32,
}

/// An [`Entry`] grouped with its partition's ([`ChunkBufs::by_part`]), as
/// the merge reads it. The partition is where it is, so of the hash only
/// the 32 bits that a slot table uses ([`Slots`]) are kept: 32 bytes, not
/// 40 (each entry is written, then read by the merge, past the caches).
///
/// [`Slots`]: crate::batch::slots::Slots
#[derive(Clone, Copy, Default)]
pub(super) struct Keyed {
    pub(super) key: Span,
    pub(super) example: Span,
    /// The low 32 bits of the key's hash.
    pub(super) tag: u32,
    pub(super) line: u32,
    pub(super) item: u32,
    /// Its place among the chunk's entries in input order (the index of
    /// its `fresh` flag).
    pub(super) seq: u32,
}

impl Keyed {
    /// The hash, as far as a slot table reads it.
    #[inline]
    pub(super) fn hash(&self) -> u64 {
        u64::from(self.tag)
    }
}

/// The keys of one chunk of a batch.
pub(super) struct Chunk {
    pub(super) file: u32,
    /// The chunk's bytes in the batch (lines; empty for records).
    pub(super) range: std::ops::Range<usize>,
    /// The 0-based number of the chunk's first line in its input (the
    /// lines before it), to which its entries' 1-based lines are added.
    /// For lines, set once the batch's chunks are keyed and have counted
    /// their lines ([`LineNumbers::chunks`]); for records, the line before
    /// the chunk's first record (records know their lines).
    ///
    /// [`LineNumbers::chunks`]: crate::batch::source::LineNumbers::chunks
    pub(super) first_line: u64,
    pub(super) bufs: ChunkBufs,
    /// Where each partition's entries start in `bufs.by_part`.
    pub(super) part_start: Vec<u32>,
    /// Per partition: at most the bytes its new records would take
    /// ([`Table::room_for`]).
    ///
    /// [`Table::room_for`]: super::table::Table::room_for
    pub(super) part_bytes: Vec<u64>,
    pub(super) stats: Stats,
    pub(super) rejects: Vec<Reject>,
}

/// The buffers of a chunk, kept once its batch is merged for a chunk of a
/// later batch: the keys of a batch are then written into memory already
/// touched — no fresh pages, no regrowth.
#[derive(Default)]
pub(super) struct ChunkBufs {
    /// The entries in input order, as the lines are keyed; empty once
    /// they are grouped ([`Chunk::group`]). Grouped as the chunk is made,
    /// the buffer serves the worker's next chunk at once
    /// ([`Spares::keep_entries`]); a batch that may be kept, on up to
    /// [`IN_ORDER_WORKERS`], keeps them here, and [`whole`] reads them.
    ///
    /// [`IN_ORDER_WORKERS`]: super::config::IN_ORDER_WORKERS
    /// [`whole`]: super::whole
    pub(super) entries: Vec<Entry>,
    pub(super) arena: Vec<u8>,
    /// The same entries grouped by partition: partition `p` is
    /// `by_part[part_start[p]..part_start[p + 1]]` ([`Chunk::part_start`]).
    /// The merge of a partition reads its entries in a row, not gathered
    /// from all over the chunk.
    pub(super) by_part: Vec<Keyed>,
    /// Per entry: 1 + the partition where it made a new row, else 0
    /// (written and read by [`Table::merge`], for [`Table::tape`]; empty
    /// when the output is not in first-occurrence order).
    ///
    /// [`Table::merge`]: super::table::Table::merge
    /// [`Table::tape`]: super::table::Table::tape
    pub(super) fresh: Vec<AtomicU8>,
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
pub(super) struct Spares {
    pub(super) bufs: std::sync::Mutex<Vec<ChunkBufs>>,
    pub(super) entries: std::sync::Mutex<Vec<Vec<Entry>>>,
}

/// The pool behind `m`, also if a worker panicked holding it (a pool of
/// emptied buffers has nothing half-done to distrust).
pub(super) fn pool<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
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

    pub(super) fn keep(&self, chunks: Vec<Chunk>) {
        pool(&self.bufs).extend(chunks.into_iter().map(|c| c.bufs));
    }

    /// The input-order entries of a chunk already grouped by partition.
    fn keep_entries(&self, entries: Vec<Entry>) {
        pool(&self.entries).push(entries);
    }
}

/// Builds one chunk's entries, in emptied buffers ([`Spares::take`]).
pub(super) struct ChunkBuilder<'a> {
    pub(super) data: &'a [u8],
    pub(super) bufs: ChunkBufs,
    pub(super) hasher: &'a foldhash::fast::FixedState,
    /// The output has an `example` column ([`Columns::has_example`](super::Columns::has_example)):
    /// otherwise every example is empty, and the table keeps none.
    pub(super) examples: bool,
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
        let b = k.as_bytes();
        if split && memchr::memchr(b' ', b).is_some() {
            // The non-empty items between spaces, numbered in order.
            let (mut start, mut item) = (0, 0);
            for end in memchr::memchr_iter(b' ', b).chain([b.len()]) {
                let p = &b[start..end];
                start = end + 1;
                if p.is_empty() {
                    continue;
                }
                if !self.insert(p, &mut example, ex, line, item) {
                    return false;
                }
                item += 1;
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
    pub(super) fn entries(&self) -> usize {
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
pub(super) fn record_bound(e: &Entry) -> u64 {
    let lens = (e.key.len & !ARENA) as u64 + (e.example.len & !ARENA) as u64;
    (HEAD + 7) as u64 + lens
}

/// Key every unit of `batch` in parallel, each chunk's lines numbered from
/// its own start ([`Chunk::first_line`]); chunks come back in input order,
/// their entries grouped by partition if `group` ([`ChunkBuilder::finish`]).
pub(super) fn key_batch(
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
        let pieces: Vec<&[crate::batch::source::Rec]> = batch.records.chunks(per).collect();
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
                    match crate::batch::line::record_key(
                        r,
                        layout,
                        cfg.max_line_bytes,
                        batch.charset,
                        key,
                        b.examples,
                    ) {
                        crate::batch::line::RecordKey::Blank => stats.blank += 1,
                        crate::batch::line::RecordKey::Key { key: k, example } => {
                            let line = r.line - first;
                            if b.add(&k, cfg.split_spaces, example.as_bytes(), line) {
                                stats.accepted += 1;
                            } else {
                                stats.rejected += 1;
                            }
                        }
                        crate::batch::line::RecordKey::Reject(reason) => {
                            stats.rejected += 1;
                            rejects.push(Reject {
                                file: batch.file,
                                line: r.line,
                                input: crate::batch::line::record_reject_text(
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
                    LineText::Blank => {
                        stats.blank += 1;
                        return;
                    }
                    LineText::Reject(r) => r,
                    LineText::Text(t) => match line_key(&t, cdx, key) {
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
pub(super) fn key_hash(hasher: &foldhash::fast::FixedState, key: &[u8]) -> u64 {
    let mut h = hasher.build_hasher();
    h.write(key);
    h.finish()
}
