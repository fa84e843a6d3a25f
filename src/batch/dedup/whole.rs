//! The table of a run whose whole input is one batch: it indexes the
//! batch's own keys (the [`Entry`]s its chunks made) instead of copying
//! each new row into an arena record. The keys are 3987bis §5.3's, as in
//! the parent module; what changes is only where a row's bytes are.
//! On one worker, or on two for a batch of a few MB
//! ([`IN_ORDER_WORKERS`]), the chunks leave their entries in input order
//! and one table indexes them, so rows come in output order already
//! ([`Whole::rows_in_order`]); otherwise each partition has its table, as
//! in the arena table, and a tape says in which order to write them.
//!
//! The arena ([`Arena`]) exists so that a batch can be dropped once it is
//! merged: its buffers serve the next batch. When the reader has no next
//! batch, that copy buys nothing, and for a small input it is most of the
//! cost: the records' 32-byte headers and copied keys make most of the
//! run's page faults when nearly every line is distinct (BENCHMARKS.md,
//! decision log: "The whole-input index"). Here a row is 32 bytes in a
//! partition's vector (where its key and example are, its line, its
//! count), and the batch and its chunks stay until the output is written.
//!
//! [`run`] takes this way only where it gives what the arena table gives,
//! byte for byte, summary included ([`Table::takes_whole`]): the output is
//! in first-occurrence order, the batch is the first and the last
//! ([`Upcoming::ended`]), and the arena table would not have spilled it
//! either. A test runs both ways on the same inputs.
//!
//! [`Entry`]: super::keying::Entry
//! [`IN_ORDER_WORKERS`]: super::config::IN_ORDER_WORKERS
//! [`Arena`]: super::arena::Arena
//! [`run`]: super::run::run
//! [`Table::takes_whole`]: super::table::Table::takes_whole
//! [`Upcoming::ended`]: crate::batch::source::Upcoming::ended

use std::sync::atomic::Ordering::Relaxed;

use rayon::prelude::*;

use super::columns::Field;
use super::keying::{Chunk, Span, PARTS};
use super::output::{
    format_row, piece_rows, shown, tape_of, write_by_origin, write_pieces, Added, Written,
};
use crate::batch::slots::{prefetch, prefetch_bytes, Slots};
use crate::batch::source::Batch;
use crate::batch::RunError;

/// Entries indexed before [`Whole::rows_in_order`] sizes its table for the
/// rest of the batch.
const SAMPLE: usize = 4096;

/// The input's only batch and its keyed chunks, not merged yet.
pub(super) struct Whole {
    batch: Batch,
    chunks: Vec<Chunk>,
}

/// A distinct key: what the output needs of the first entry that had it
/// (copied here: neither a probe nor the output reads the entry), and how
/// many entries did.
#[derive(Clone, Copy)]
struct Row {
    key: Span,
    example: Span,
    /// The entry's line in its input.
    line: u64,
    /// Its chunk (an index into [`Whole::chunks`]), whose spans these are.
    chunk: u32,
    /// At most the batch's entries, fewer than `u32::MAX`
    /// ([`Table::takes_whole`](super::table::Table::takes_whole)).
    count: u32,
}

impl Row {
    /// The row of the first entry with its key, in chunk `c` (the
    /// `ci`-th): its spans, its line in the input, a count of one.
    #[inline]
    fn first(ci: usize, c: &Chunk, (key, example, line): (Span, Span, u32)) -> Row {
        Row {
            key,
            example,
            line: c.first_line + u64::from(line),
            chunk: ci as u32,
            count: 1,
        }
    }
}

/// One partition (or, keyed in input order, the whole batch): the index of its
/// rows, and the rows in the order they were added (the order of first
/// occurrence).
#[derive(Default)]
struct Index {
    slots: Slots,
    rows: Vec<Row>,
}

impl Index {
    /// One more occurrence of `key` (hashed to `hash`): counted in the row
    /// that has it, or added as `row()`; whether it was.
    #[inline]
    fn add(
        &mut self,
        views: &[View],
        (hash, key): (u64, &[u8]),
        row: impl FnOnce() -> Row,
    ) -> bool {
        let rows = &self.rows;
        let found = self.slots.find(hash, |at| {
            let r = &rows[at as usize];
            let (d, a) = views[r.chunk as usize];
            r.key.get(d, a) == key
        });
        match found {
            Ok((_, at)) => {
                self.rows[at as usize].count += 1;
                false
            }
            Err(vacant) => {
                let at = self.rows.len() as u32;
                self.rows.push(row());
                self.slots.fill(vacant, hash, at);
                true
            }
        }
    }
}

/// A chunk's bytes and its arena, which its spans point into.
type View<'a> = (&'a [u8], &'a [u8]);

/// A partition's rows as [`write_by_origin`] reads them.
struct Rows<'a> {
    rows: &'a [Row],
    views: &'a [View<'a>],
}

impl Rows<'_> {
    fn get(&self, r: &Row, s: Span) -> &[u8] {
        let (data, arena) = self.views[r.chunk as usize];
        s.get(data, arena)
    }
}

impl Added for Rows<'_> {
    fn added(&self) -> usize {
        self.rows.len()
    }

    #[inline]
    fn prefetch_head(&self, i: usize) {
        prefetch(&self.rows[i]);
    }

    /// A row names its key and example in the batch's bytes.
    const REST: bool = true;

    #[inline]
    fn prefetch_rest(&self, i: usize) {
        let r = &self.rows[i];
        let key = self.get(r, r.key);
        prefetch_bytes(key);
        let example = self.get(r, r.example);
        if example.as_ptr() != key.as_ptr() {
            prefetch_bytes(example);
        }
    }
}

impl Whole {
    pub(super) fn new(batch: Batch, chunks: Vec<Chunk>) -> Self {
        Whole { batch, chunks }
    }

    pub(super) fn into_parts(self) -> (Batch, Vec<Chunk>) {
        (self.batch, self.chunks)
    }

    /// Merge the chunks (partitions in parallel, chunks in order, as
    /// [`Table::merge`](super::table::Table::merge) does), then write the rows in order of
    /// first occurrence; the rows written. Chunks that left their
    /// entries in input order ([`IN_ORDER_WORKERS`](super::config::IN_ORDER_WORKERS)) go into one
    /// table, in order ([`Whole::rows_in_order`]).
    pub(super) fn write(
        self,
        columns: &[Field],
        show_surt: bool,
        names: &[Vec<u8>],
        out: &mut (dyn FnMut(&[u8]) -> Result<(), RunError> + Send),
    ) -> Result<Written, RunError> {
        let Whole { batch, chunks } = &self;
        let views: Vec<View> = chunks
            .iter()
            .map(|c| (&batch.data[c.range.clone()], &c.bufs.arena[..]))
            .collect();
        let format = |t: &mut Vec<u8>, r: &Row| {
            let (data, arena) = views[r.chunk as usize];
            let key = r.key.get(data, arena);
            format_row(
                t,
                columns,
                &shown(show_surt, key, None),
                u64::from(r.count),
                &names[chunks[r.chunk as usize].file as usize],
                r.line,
                r.example.get(data, arena),
            );
        };
        if chunks.iter().any(|c| !c.bufs.entries.is_empty()) {
            let rows = self.rows_in_order(&views);
            let pieces: Vec<&[Row]> = rows.chunks(piece_rows(rows.len())).collect();
            let writers = write_pieces(&pieces, out, |rows, t| {
                for r in *rows {
                    format(t, r);
                }
            })?;
            return Ok(Written {
                rows: rows.len() as u64,
                writers,
            });
        }
        let mut index: Vec<Index> = (0..PARTS).map(|_| Index::default()).collect();
        index.par_iter_mut().enumerate().for_each(|(p, ix)| {
            // At most a row per entry: room made once, not grown by copies.
            let entries = chunks.iter().map(|c| c.part_start[p + 1] - c.part_start[p]);
            ix.rows.reserve_exact(entries.map(|n| n as usize).sum());
            for (ci, c) in chunks.iter().enumerate() {
                let (data, arena) = views[ci];
                let start = c.part_start[p] as usize;
                let es = &c.bufs.by_part[start..c.part_start[p + 1] as usize];
                for (n, e) in es.iter().enumerate() {
                    // The home slot is asked for ahead, as in the arena
                    // table's merge, but not the row a probe will compare
                    // (nor the probe's key): at one batch's size those
                    // asks cost more than they saved.
                    if let Some(f) = es.get(n + 8) {
                        ix.slots.prefetch(f.hash());
                    }
                    let row = || Row::first(ci, c, (e.key, e.example, e.line));
                    if ix.add(&views, (e.hash(), e.key.get(data, arena)), row) {
                        c.bufs.fresh[e.seq as usize].store(p as u8 + 1, Relaxed);
                    }
                }
            }
        });
        let mut tape = Vec::new();
        tape_of(chunks, &mut tape);
        for ix in &mut index {
            // The output needs the rows alone.
            ix.slots = Slots::default();
        }
        let parts: Vec<Rows> = index
            .iter()
            .map(|ix| Rows {
                rows: &ix.rows,
                views: &views,
            })
            .collect();
        let by_part = |t: &mut Vec<u8>, p: &Rows, i: usize| format(t, &p.rows[i]);
        write_by_origin(&parts, &tape, piece_rows(tape.len()), by_part, out)
    }

    /// The rows of chunks whose entries are in input order, indexed in one
    /// table as they come: the rows are then in order of first occurrence,
    /// and written in that order, each key and example read where the
    /// previous row's were (no partitions, no tape). On one worker the
    /// partitions buy no parallelism, and a run saves their grouping, their
    /// tape and the output's gathering from 64 of them. On two, this serial
    /// index (a tenth of the work) costs less than what the partitions cost
    /// to buy theirs, up to a batch of a few MB (BENCHMARKS.md, decision
    /// log: "one batch, one table"); the output is formatted in parallel
    /// either way.
    fn rows_in_order(&self, views: &[View]) -> Vec<Row> {
        let mut ix = Index::default();
        let entries: usize = self.chunks.iter().map(|c| c.bufs.entries.len()).sum();
        ix.rows.reserve_exact(entries);
        let mut seen = 0;
        for (ci, c) in self.chunks.iter().enumerate() {
            let (data, arena) = views[ci];
            let es = &c.bufs.entries;
            for (n, e) in es.iter().enumerate() {
                seen += 1;
                if seen == SAMPLE {
                    // The share of new keys so far, projected over the
                    // batch: the table grows once to that size instead of
                    // doubling its way there.
                    ix.slots.reserve(ix.rows.len() * entries / SAMPLE);
                }
                if let Some(f) = es.get(n + 8) {
                    ix.slots.prefetch(f.hash);
                }
                let row = || Row::first(ci, c, (e.key, e.example, e.line));
                ix.add(views, (e.hash, e.key.get(data, arena)), row);
            }
        }
        ix.rows
    }
}
