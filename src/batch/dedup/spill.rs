//! The spill: partitions appended to files in a temporary directory when
//! the table passes its budget, their record format, and the end of such a
//! run — each file read back, deduplicated and sorted alone, then a k-way
//! merge of the sorted runs.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::arena::Row;
use super::columns::Columns;
use super::config::{Order, Summary};
use super::keying::{key_hash, PARTS, PART_BITS};
use super::output::{format_row, shown};
use super::part::Part;
use crate::batch::sort::sort_by_fields;
use crate::batch::{cleanup, RunError};

/// Spill files per partition (by two more bits of the hash), so that the
/// end of a spilled run holds 1/256 of the distinct keys at a time while
/// the k-way merge stays within the usual limit of open files.
pub(super) const SPLIT: usize = 4;
/// Spill files in all.
pub(super) const SPILL_FILES: usize = PARTS * SPLIT;

#[inline]
pub(super) fn split_of(hash: u64) -> usize {
    ((hash >> (40 + PART_BITS)) as usize) & (SPLIT - 1)
}

/// The temporary directory of one run: removed when dropped, and on a
/// signal through [`cleanup`].
pub(super) struct SpillDir {
    pub(super) dir: tempfile::TempDir,
    /// Bytes written so far.
    pub(super) bytes: u64,
    /// Partitions with a spill file.
    pub(super) parts: Vec<bool>,
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

    fn err(&self, e: &io::Error) -> RunError {
        RunError::io(
            format!(
                "cannot write to the temporary directory {}",
                self.dir.path().display()
            ),
            e,
        )
    }

    /// A new directory in `temp_dir` (default: the system temp
    /// directory), removed on a signal too ([`cleanup::register`]).
    pub(super) fn create(temp_dir: Option<PathBuf>) -> Result<SpillDir, RunError> {
        let base = temp_dir.unwrap_or_else(std::env::temp_dir);
        let dir = tempfile::Builder::new()
            .prefix(".irinorm-spill-")
            .tempdir_in(&base)
            .map_err(|e| {
                RunError::io(
                    format!("cannot create a temporary directory in {}", base.display()),
                    &e,
                )
            })?;
        cleanup::register(dir.path());
        Ok(SpillDir {
            dir,
            bytes: 0,
            parts: vec![false; SPILL_FILES],
        })
    }

    /// Append every partition's rows to its spill files (split by two
    /// more bits of the hash, computed again by `hasher`), in parallel;
    /// the partitions are left empty.
    pub(super) fn append(
        &mut self,
        parts: &mut [Part],
        hasher: &foldhash::fast::FixedState,
    ) -> Result<(), RunError> {
        let spill_ref = &*self;
        let written: Vec<Result<[u64; SPLIT], RunError>> = parts
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
                    return Err(RunError::msg("interrupted"));
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
                    self.parts[p * SPLIT + sub] = true;
                    self.bytes += n;
                }
            }
        }
        Ok(())
    }

    /// The end of a run that spilled, all rows being on disk: each spill
    /// file read back alone ([`read_back`]: 1/256 of the distinct keys
    /// in memory at a time, per worker), deduplicated, sorted and written
    /// as a sorted run; the runs merged (a k-way merge) into `out` as CSV
    /// rows of `columns` (`names`: the `first_file` fields). The summary
    /// of the output and the spill, without the count of spills.
    pub(super) fn write_merged(
        self,
        (order, show_surt): (Order, bool),
        columns: &Columns,
        max_blocks: usize,
        names: &[Vec<u8>],
        out: &mut (dyn FnMut(&[u8]) -> Result<(), RunError> + Send),
    ) -> Result<Summary, RunError> {
        // Each partition alone: read back, dedup, sort, write a sorted run.
        let sorted: Vec<Result<u64, RunError>> = (0..SPILL_FILES)
            .into_par_iter()
            .map(|p| {
                if !self.parts[p] {
                    return Ok(0);
                }
                let path = self.part_path(p);
                let part = read_back(&path, max_blocks).map_err(|e| match e {
                    ReadBack::Io(e) => self.err(&e),
                    ReadBack::Full => RunError::msg(format!(
                        "{}: more distinct keys than one partition can hold",
                        path.display()
                    )),
                })?;
                std::fs::remove_file(&path).map_err(|e| self.err(&e))?;
                let rows = sort_rows(&part, order);
                let f = File::create(self.sorted_path(p)).map_err(|e| self.err(&e))?;
                let mut w = BufWriter::with_capacity(1 << 16, f);
                let mut n = 0;
                for (r, surt) in rows {
                    let k = part.key(&r);
                    let (a, b) = sort_key(order, &r, k, surt);
                    // In SURT order, `a` is the SURT.
                    let shown = shown(show_surt, k, (order == Order::Surt).then_some(&a[..]));
                    n += write_sorted(&mut w, &a, &b, &shown, &r, part.example(&r))
                        .map_err(|e| self.err(&e))?;
                }
                w.flush().map_err(|e| self.err(&e))?;
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
            if self.parts[p] {
                let f = File::open(self.sorted_path(p)).map_err(|e| self.err(&e))?;
                runs.push(BufReader::with_capacity(1 << 16, f));
            }
        }
        let mut heap = BinaryHeap::new();
        for (i, r) in runs.iter_mut().enumerate() {
            if let Some(rec) = read_sorted(r).map_err(|e| self.err(&e))? {
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
            if let Some(next) = read_sorted(&mut runs[run]).map_err(|e| self.err(&e))? {
                heap.push(Head { rec: next, run });
            }
        }
        out(&text)?;
        Ok(Summary {
            unique,
            spilled_bytes: self.bytes + sorted_bytes,
            spilled_partitions: self.parts.iter().filter(|&&p| p).count(),
            ..Summary::default()
        })
    }
}

/// A partition's rows in output order, in SURT order with their SURTs
/// (computed once, for the sort and then the sorted run).
pub(super) fn sort_rows(part: &Part, order: Order) -> Vec<(Row, Option<Vec<u8>>)> {
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
///
/// [`Table::write_in_memory`]: super::table::Table::write_in_memory
pub(super) fn sort_key(
    order: Order,
    r: &Row,
    key: &[u8],
    surt: Option<Vec<u8>>,
) -> (Vec<u8>, Vec<u8>) {
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

// --- Spill file records (native to this run; little-endian) ---

pub(super) fn put_bytes(w: &mut impl Write, b: &[u8]) -> io::Result<()> {
    w.write_all(&(b.len() as u64).to_le_bytes())?;
    w.write_all(b)
}

pub(super) fn get_u64(r: &mut impl Read) -> io::Result<Option<u64>> {
    let mut b = [0u8; 8];
    match r.read_exact(&mut b) {
        Ok(()) => Ok(Some(u64::from_le_bytes(b))),
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(None),
        Err(e) => Err(e),
    }
}

pub(super) fn need_u64(r: &mut impl Read) -> io::Result<u64> {
    get_u64(r)?.ok_or_else(|| io::Error::new(io::ErrorKind::UnexpectedEof, "truncated spill file"))
}

pub(super) fn get_bytes(r: &mut impl Read, into: &mut Vec<u8>) -> io::Result<()> {
    let n = need_u64(r)? as usize;
    into.clear();
    into.resize(n, 0);
    r.read_exact(into)
}

/// A row of a partition run: hash, count, origin, key, example.
pub(super) fn write_spilled(
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
pub(super) enum ReadBack {
    Io(io::Error),
    /// Its records would pass the partition's `max_blocks` (32 GiB in one
    /// of 256 spill files: terabytes of distinct keys).
    Full,
}

/// A spill file's rows in one partition, deduplicated (rows spilled
/// several times add up).
pub(super) fn read_back(path: &Path, max_blocks: usize) -> Result<Part, ReadBack> {
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
pub(super) struct Spilled {
    pub(super) hash: u64,
    pub(super) origin: (u32, u64, u32),
    pub(super) count: u64,
}

pub(super) fn read_spilled(
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
pub(super) struct SortedRec {
    pub(super) a: Vec<u8>,
    pub(super) b: Vec<u8>,
    pub(super) shown: Vec<u8>,
    pub(super) count: u64,
    pub(super) file: u32,
    pub(super) line: u64,
    pub(super) example: Vec<u8>,
}

pub(super) fn write_sorted(
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

pub(super) fn read_sorted(r: &mut impl Read) -> io::Result<Option<SortedRec>> {
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
pub(super) struct Head {
    pub(super) rec: SortedRec,
    pub(super) run: usize,
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
pub fn check_temp_dir(dir: &Path) -> Result<(), RunError> {
    tempfile::Builder::new()
        .prefix(".irinorm-probe-")
        .tempfile_in(dir)
        .map(drop)
        .map_err(|e| {
            RunError::io(
                format!("cannot write to the temporary directory {}", dir.display()),
                &e,
            )
        })
}
