//! The table of distinct keys: the partitions, the parallel merge of a
//! batch into them, the memory budget that makes them spill, and the end
//! of a run that writes their rows.

use std::path::PathBuf;
use std::sync::atomic::Ordering::Relaxed;

use rayon::prelude::*;

use super::arena::{Row, BLOCK};
use super::columns::Columns;
use super::config::{Config, Diagnostics, Order, Summary};
use super::keying::{group, Chunk, ChunkBufs, ARENA, PARTS};
use super::output::{
    format_row, piece_rows, shown, tape_of, write_by_origin, write_pieces, Written, AHEAD_ROW,
};
use super::part::Part;
use super::readback::Ending;
use super::spill::{sorted_runs, SpillDir};
use super::whole::Whole;
use crate::batch::sink::csv_field;
use crate::batch::slots::prefetch_bytes;
use crate::batch::sort::sort_by_fields;
use crate::batch::source::Batch;
use crate::batch::RunError;

/// The partitions, and their spill files once the budget is exceeded.
pub(super) struct Table {
    pub(super) parts: Vec<Part>,
    /// The keys' hash function: the chunks hash their keys with it, and a
    /// spill computes the rows' hashes again.
    pub(super) hasher: foldhash::fast::FixedState,
    /// The partition of each row in first-occurrence order, while every
    /// row is in memory and the output is in that order: the rows of a
    /// partition are appended in that order, so this is the output order
    /// ([`write_by_origin`]) without comparing origins.
    pub(super) tape: Option<Vec<u8>>,
    pub(super) memory: usize,
    /// Blocks a partition's arena may reach ([`Tuning::max_blocks`](super::Tuning::max_blocks)).
    pub(super) max_blocks: usize,
    pub(super) temp_dir: Option<PathBuf>,
    pub(super) spill: Option<SpillDir>,
    pub(super) spills: u64,
    /// Free bytes to assume in the temporary directory (tests).
    pub(super) assume_free: Option<u64>,
    /// See [`Tuning::min_share`](super::Tuning::min_share).
    pub(super) min_share: usize,
    pub(super) order: Order,
    pub(super) show_surt: bool,
    pub(super) columns: Columns,
    /// The input's only batch, not merged: its rows are indexed where they
    /// are when the output is written ([`whole`](super::whole)).
    pub(super) whole: Option<Whole>,
    /// Whether [`Table::takes_whole`] may say yes
    /// ([`Tuning::take_whole`](super::Tuning::take_whole)).
    pub(super) may_take_whole: bool,
}

impl Table {
    pub(super) fn new(cfg: &Config) -> Self {
        Table {
            hasher: foldhash::fast::FixedState::with_seed(0x1f2e_3d4c_5b6a_7988),
            parts: (0..PARTS).map(|_| Part::default()).collect(),
            tape: (cfg.order == Order::First).then(Vec::new),
            memory: cfg.memory,
            max_blocks: cfg.tuning.max_blocks,
            temp_dir: cfg.temp_dir.clone(),
            spill: None,
            spills: 0,
            assume_free: cfg.tuning.assume_free,
            min_share: cfg.tuning.min_share,
            order: cfg.order,
            show_surt: cfg.show_surt,
            columns: cfg.columns.clone(),
            whole: None,
            may_take_whole: cfg.tuning.take_whole,
        }
    }

    /// Whether `chunks`, a batch keyed before any other, can be kept for
    /// [`whole`](super::whole) if it is the input's last batch: it gives what merging it
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
    pub(super) fn takes_whole(&self, chunks: &[Chunk]) -> bool {
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

    /// Whether a batch keyed now could be kept for [`whole`](super::whole): the output
    /// is in first-occurrence order, nothing was merged or spilled yet
    /// (the rest is [`Table::takes_whole`]'s).
    pub(super) fn may_keep(&self) -> bool {
        self.may_take_whole
            && self.order == Order::First
            && self.spill.is_none()
            && self.parts.iter().all(|p| p.recs.is_empty())
    }

    /// A batch into the table ([`Table::merge`] on the workers; its
    /// entries grouped by partition first if they are still in input
    /// order, [`Chunk::group`]): spilled first if it does not fit, spilled
    /// after if the table passes its budget.
    pub(super) fn add(
        &mut self,
        cfg: &Config,
        batch: &Batch,
        chunks: &mut [Chunk],
    ) -> Result<(), RunError> {
        // The merge reads each partition's entries in a row.
        group(cfg, chunks);
        if !self.room_for(chunks) {
            cfg.on_pool(|| self.spill())?;
            if !self.room_for(chunks) {
                return Err(RunError::msg(format!(
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
                    // memory once (BENCHMARKS.md, decision log: "Table and partitions").
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

    /// Bytes the table holds, and in key or SURT order what sorting it
    /// takes too ([`SORT_ROW`] a row), so that a spill stays within the
    /// budget.
    fn bytes(&self) -> usize {
        let sorting = if sorted_runs(self.order) {
            self.parts.iter().map(|p| p.recs.len()).sum::<usize>() * SORT_ROW
        } else {
            0
        };
        self.parts.iter().map(Part::bytes).sum::<usize>()
            + self.tape.as_ref().map_or(0, Vec::capacity)
            + sorting
    }

    /// Append every partition's rows to its spill files and free the
    /// tables.
    fn spill(&mut self) -> Result<(), RunError> {
        if self.spill.is_none() {
            self.spill = Some(SpillDir::create(self.temp_dir.clone(), self.assume_free)?);
        }
        let need = self.bytes() as u64;
        let Some(spill) = self.spill.as_mut() else {
            return Ok(());
        };
        spill.check_free(need)?;
        // Rows leave memory: the runs give the order from now on.
        self.tape = None;
        if sorted_runs(self.order) {
            let workers = rayon::current_num_threads();
            let (parts, order) = (&self.parts, self.order);
            sorted_rows(parts, order, |rows| spill.append_sorted(rows, workers))?;
            for p in &mut self.parts {
                *p = Part::default();
            }
        } else {
            spill.append(&mut self.parts)?;
        }
        self.spills += 1;
        Ok(())
    }

    /// Write the rows in order; the summary (without the line stats).
    pub(super) fn finish(
        mut self,
        names: &[String],
        out: &mut (dyn FnMut(&[u8]) -> Result<(), RunError> + Send),
    ) -> Result<Summary, RunError> {
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
        let spills = self.spills;
        let columns = std::mem::take(&mut self.columns);
        let hasher = self.hasher.clone();
        let end = Ending {
            order: self.order,
            show_surt: self.show_surt,
            columns: &columns,
            names,
            share: (self.memory / rayon::current_num_threads().max(1)).max(self.min_share),
            max_blocks: self.max_blocks,
            hasher: &hasher,
        };
        drop(self);
        let summary = spill.write_merged(&end, out)?;
        Ok(Summary { spills, ..summary })
    }

    /// Without a spill: rows in output order, formatted in parallel blocks,
    /// written in order.
    fn write_in_memory(
        &self,
        names: &[Vec<u8>],
        out: &mut (dyn FnMut(&[u8]) -> Result<(), RunError> + Send),
    ) -> Result<Written, RunError> {
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
        sorted_rows(&self.parts, self.order, |all| {
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
        })
    }
}

/// Bytes a row takes while the table is sorted (its place, SURT and
/// digits; [`Table::bytes`]).
const SORT_ROW: usize = 64;

/// `f` of every row of `parts` sorted by key, or by SURT then key (each
/// with its SURT).
fn sorted_rows<R>(parts: &[Part], order: Order, f: impl FnOnce(&[Sorted<'_>]) -> R) -> R {
    let mut all: Vec<Sorted> = parts
        .iter()
        .flat_map(|p| p.recs.iter().map(move |&at| (p, at, None)))
        .collect();
    let surts: Vec<(Vec<u8>, Vec<usize>)>;
    if order == Order::Key {
        all = sort_by_fields(all, 1, |(p, at, _), _| p.arena.key_at(*at));
    } else {
        // The SURTs in one buffer per block of rows, not one `Vec`
        // each: freeing 10^6 small strings in sorted order cost more
        // than computing them.
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
    f(&all)
}

/// A row of the sorted output, with its key's SURT where the sort computed
/// it.
type Sorted<'a> = (&'a Part, u32, Option<&'a [u8]>);
