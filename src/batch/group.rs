//! Records grouped by origin within a memory budget, for the digest
//! learner on unsorted captures ([`learn::group`](crate::learn::group)):
//! an external merge sort on the engine's runs ([`crate::batch::runs`],
//! compressed, checksummed blocks).
//!
//! Records are held in memory until they pass the budget; then they are
//! sorted by (origin, key) and written as one run to an unlinked temporary
//! file (gone when the process ends, however it ends). Draining merges the
//! runs — in several passes when there are more than the budget can hold
//! a block of at once — or, when nothing was spilled, sorts the records in
//! memory.

use std::cmp::Ordering;
use std::collections::binary_heap::{BinaryHeap, PeekMut};
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Seek};
use std::path::PathBuf;

use super::runs::{get_bytes, put_bytes, Codec, RunReader, RunWriter};
use crate::learn::group::{Each, Grouping};

/// A record's (origin, key, payload).
type Record<'a> = (&'a [u8], &'a [u8], &'a [u8]);

/// What [`merge`] calls with each record.
type EachRecord<'a> = dyn FnMut(&[u8], &[u8], &[u8]) -> io::Result<()> + 'a;

/// The codec of the runs (as the dedup spill's).
const CODEC: Codec = Codec::Zstd(1);

/// Memory a run being merged takes: its reader's compressed and raw block
/// and its read buffer.
const MERGE_COST: usize = 3 * super::runs::BLOCK_RAW + READ_BUF;

const READ_BUF: usize = 64 << 10;

/// Memory a held record takes besides its bytes.
const PER_RECORD: usize = std::mem::size_of::<Held>();

/// A held record: where it starts in the arena and its three lengths.
#[derive(Clone, Copy)]
struct Held {
    at: usize,
    origin: u32,
    key: u32,
    payload: u32,
}

/// Records grouped by origin, spilled to sorted runs past `memory` bytes.
pub struct SpillGroups {
    memory: usize,
    temp_dir: Option<PathBuf>,
    arena: Vec<u8>,
    held: Vec<Held>,
    runs: Vec<File>,
    /// Runs written and their bytes on disk (merges included).
    pub runs_written: usize,
    pub bytes_written: u64,
}

impl SpillGroups {
    /// Hold up to `memory` bytes of records; runs go to `temp_dir` (default:
    /// the system's temporary directory).
    pub fn new(memory: usize, temp_dir: Option<PathBuf>) -> SpillGroups {
        SpillGroups {
            memory,
            temp_dir,
            arena: Vec::new(),
            held: Vec::new(),
            runs: Vec::new(),
            runs_written: 0,
            bytes_written: 0,
        }
    }

    fn sort_held(&mut self) {
        let arena = &self.arena;
        self.held.sort_unstable_by(|a, b| {
            let (x, y) = (parts(arena, a), parts(arena, b));
            (x.0, x.1).cmp(&(y.0, y.1))
        });
    }

    fn temp_file(&self) -> io::Result<File> {
        super::cleanup::unnamed_temp_file(self.temp_dir.as_deref())
    }

    /// Write records as one run to a new temporary file, rewound.
    fn write_run(
        &mut self,
        fill: impl FnOnce(&mut RunWriter<BufWriter<File>>) -> io::Result<()>,
    ) -> io::Result<()> {
        if super::cleanup::stopping() {
            return Err(io::Error::new(io::ErrorKind::Interrupted, "interrupted"));
        }
        let f = self.temp_file()?;
        let mut w = RunWriter::new(BufWriter::with_capacity(READ_BUF, f), CODEC)?;
        fill(&mut w)?;
        let (out, t) = w.finish()?;
        let mut f = out.into_inner().map_err(|e| e.into_error())?;
        f.rewind()?;
        self.runs.push(f);
        self.runs_written += 1;
        self.bytes_written += t.written;
        Ok(())
    }

    /// The held records, sorted, to a run.
    fn spill(&mut self) -> io::Result<()> {
        if self.held.is_empty() {
            return Ok(());
        }
        self.sort_held();
        let (mut arena, mut held) = (
            std::mem::take(&mut self.arena),
            std::mem::take(&mut self.held),
        );
        self.write_run(|w| {
            for h in &held {
                let (o, k, p) = parts(&arena, h);
                put_record(w.record(), o, k, p);
                w.end_record()?;
            }
            Ok(())
        })?;
        arena.clear();
        held.clear();
        (self.arena, self.held) = (arena, held);
        Ok(())
    }

    /// How many runs one merge reads at once.
    fn fan_in(&self) -> usize {
        (self.memory / MERGE_COST).clamp(2, 1024)
    }
}

/// A held record's origin, key and payload.
fn parts<'a>(arena: &'a [u8], h: &Held) -> Record<'a> {
    let o = h.at + h.origin as usize;
    let k = o + h.key as usize;
    let p = k + h.payload as usize;
    (&arena[h.at..o], &arena[o..k], &arena[k..p])
}

fn put_record(b: &mut Vec<u8>, origin: &[u8], key: &[u8], payload: &[u8]) {
    put_bytes(b, origin);
    put_bytes(b, key);
    put_bytes(b, payload);
}

impl Grouping for SpillGroups {
    fn push(&mut self, origin: &[u8], key: &[u8], payload: &[u8]) -> io::Result<()> {
        let len =
            |s: &[u8]| u32::try_from(s.len()).map_err(|_| io::Error::other("record too large"));
        let h = Held {
            at: self.arena.len(),
            origin: len(origin)?,
            key: len(key)?,
            payload: len(payload)?,
        };
        let size = origin.len() + key.len() + payload.len() + PER_RECORD;
        if !self.held.is_empty()
            && self.arena.len() + self.held.len() * PER_RECORD + size > self.memory
        {
            self.spill()?;
            return self.push(origin, key, payload);
        }
        self.arena.extend_from_slice(origin);
        self.arena.extend_from_slice(key);
        self.arena.extend_from_slice(payload);
        self.held.push(h);
        Ok(())
    }

    fn drain(&mut self, each: &mut Each<'_>) -> io::Result<()> {
        if self.runs.is_empty() {
            self.sort_held();
            for h in &self.held {
                let (o, _, p) = parts(&self.arena, h);
                each(o, p)?;
            }
            self.held.clear();
            self.arena = Vec::new();
            return Ok(());
        }
        self.spill()?;
        (self.arena, self.held) = (Vec::new(), Vec::new());
        let fan_in = self.fan_in();
        while self.runs.len() > fan_in {
            // The merged run goes last: records of equal keys are equal,
            // so the order of the runs does not matter.
            let first: Vec<File> = self.runs.drain(..fan_in).collect();
            self.write_run(|w| {
                merge(first, &mut |o, k, p| {
                    put_record(w.record(), o, k, p);
                    w.end_record()
                })
            })?;
        }
        let runs = std::mem::take(&mut self.runs);
        merge(runs, &mut |o, _, p| each(o, p))
    }

    fn spilled(&self) -> (usize, u64) {
        (self.runs_written, self.bytes_written)
    }
}

/// One run being merged: its reader and where its next record starts.
struct Cursor {
    reader: RunReader<BufReader<File>>,
    pos: usize,
    left: u32,
}

impl Cursor {
    /// The next record (origin, key, payload), reading a block if needed;
    /// `None` at the end of the run.
    fn next(&mut self) -> io::Result<Option<Record<'_>>> {
        while self.left == 0 {
            match self.reader.next_block()? {
                None => return Ok(None),
                Some(n) => (self.left, self.pos) = (n, 0),
            }
        }
        self.left -= 1;
        let block = self.reader.block();
        let mut rest = &block[self.pos..];
        let o = get_bytes(&mut rest)?;
        let k = get_bytes(&mut rest)?;
        let p = get_bytes(&mut rest)?;
        self.pos = block.len() - rest.len();
        Ok(Some((o, k, p)))
    }
}

/// A cursor's current record in the merge heap: ordered by (origin, key),
/// smallest first.
struct Head {
    origin: Vec<u8>,
    key: Vec<u8>,
    payload: Vec<u8>,
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
        (&o.origin, &o.key, o.run).cmp(&(&self.origin, &self.key, self.run))
    }
}

impl Head {
    fn set(&mut self, (o, k, p): Record<'_>) {
        for (v, s) in [
            (&mut self.origin, o),
            (&mut self.key, k),
            (&mut self.payload, p),
        ] {
            v.clear();
            v.extend_from_slice(s);
        }
    }
}

/// The records of sorted `runs`, merged in (origin, key) order, to `each`.
fn merge(runs: Vec<File>, each: &mut EachRecord<'_>) -> io::Result<()> {
    let mut cursors: Vec<Cursor> = runs
        .into_iter()
        .map(|f| Cursor {
            reader: RunReader::new(BufReader::with_capacity(READ_BUF, f)),
            pos: 0,
            left: 0,
        })
        .collect();
    let mut heap = BinaryHeap::with_capacity(cursors.len());
    for (run, c) in cursors.iter_mut().enumerate() {
        if let Some(r) = c.next()? {
            let mut h = Head {
                origin: Vec::new(),
                key: Vec::new(),
                payload: Vec::new(),
                run,
            };
            h.set(r);
            heap.push(h);
        }
    }
    while let Some(mut top) = heap.peek_mut() {
        each(&top.origin, &top.key, &top.payload)?;
        match cursors[top.run].next()? {
            Some(r) => top.set(r),
            None => {
                PeekMut::pop(top);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records(n: u32) -> Vec<(Vec<u8>, Vec<u8>, Vec<u8>)> {
        let mut seed = 7u64;
        (0..n)
            .map(|i| {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                let o = format!("http://h{}.example", (seed >> 33) % 13).into_bytes();
                let k = format!("line {} {i}", (seed >> 40) % 97).into_bytes();
                (o, k, i.to_le_bytes().to_vec())
            })
            .collect()
    }

    fn drained(
        g: &mut SpillGroups,
        recs: &[(Vec<u8>, Vec<u8>, Vec<u8>)],
    ) -> Vec<(Vec<u8>, Vec<u8>)> {
        for (o, k, p) in recs {
            g.push(o, k, p).unwrap();
        }
        let mut out = Vec::new();
        g.drain(&mut |o, p| {
            out.push((o.to_vec(), p.to_vec()));
            Ok(())
        })
        .unwrap();
        out
    }

    #[test]
    fn any_budget_gives_the_sorted_records() {
        let recs = records(5_000);
        let mut want = recs.clone();
        want.sort();
        let want: Vec<_> = want.into_iter().map(|(o, _, p)| (o, p)).collect();
        let dir = tempfile::tempdir().unwrap();
        // Everything in memory; a run per 40 records, merged in passes of
        // two; runs merged at once.
        for (memory, passes) in [(1 << 30, false), (2_000, true), (200_000, false)] {
            let mut g = SpillGroups::new(memory, Some(dir.path().to_path_buf()));
            assert_eq!(drained(&mut g, &recs), want, "memory {memory}");
            assert_eq!(g.runs_written > 0, memory < 1 << 30);
            if passes {
                assert!(g.runs_written > 125, "{} runs", g.runs_written);
            }
            // Nothing left behind: the runs were never linked.
            assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        }
    }
}
