//! The spill: the table's rows written once, compressed, to runs
//! ([`crate::batch::runs`]) in a temporary directory when it passes its
//! budget, and the free space that takes.
//!
//! In first-occurrence order each partition appends its rows to its own
//! file as they were added (in input order); the end of the run
//! ([`readback`](super::readback)) counts each key over the partition's
//! runs and merges the partitions by origin. Sorted by key or SURT, a spill
//! is the whole table sorted, in a few runs written in parallel; the end
//! merges the runs, adding up a key's rows. Either way a spilled row is
//! written once.

use std::fs::File;
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::arena::Row;
use super::config::Order;
use super::part::Part;
use crate::batch::runs::{put_bytes, put_varint, Codec, RunWriter, Totals};
use crate::batch::{cleanup, RunError};

/// The codec of spill runs (BENCHMARKS.md, decision log: "Spill codec").
pub(super) const CODEC: Codec = Codec::Zstd(1);

/// Bytes a spill file's writer gathers before a `write`: large sequential
/// writes.
pub(super) const WRITE_BUF: usize = 1 << 20;

/// The temporary directory of one run: removed when dropped, and on a
/// signal through [`cleanup`].
pub(super) struct SpillDir {
    pub(super) dir: tempfile::TempDir,
    /// Rows in each partition's file (first-occurrence order).
    pub(super) rows: Vec<u64>,
    /// Sorted runs (by key or SURT), in the order they were written.
    pub(super) runs: Vec<PathBuf>,
    /// Runs and bytes written so far.
    pub(super) totals: Totals,
    /// Times the spilled keys were written: 1, or more after a partition
    /// was split again at read-back or runs were merged in several passes.
    pub(super) passes: u32,
    /// Free bytes to assume in the directory ([`Tuning::assume_free`](super::Tuning::assume_free)).
    pub(super) assume_free: Option<u64>,
}

impl Drop for SpillDir {
    fn drop(&mut self) {
        cleanup::forget(self.dir.path());
    }
}

/// A row as a spill run holds it: the key (after its SURT, in SURT order),
/// the example (0: the key; else its length + 1, then its bytes), count,
/// input, line and item. In a partition's file the line is the difference
/// to the row before in the block when the input is the same.
pub(super) fn put_row(
    b: &mut Vec<u8>,
    surt: Option<&[u8]>,
    key: &[u8],
    example: Option<&[u8]>,
    count: u64,
    (file, line, item): (u32, u64, u32),
    prev: &mut (u32, u64),
) {
    if let Some(s) = surt {
        put_bytes(b, s);
    }
    put_bytes(b, key);
    match example {
        None => put_varint(b, 0),
        Some(x) => {
            put_varint(b, x.len() as u64 + 1);
            b.extend_from_slice(x);
        }
    }
    put_varint(b, count);
    put_varint(b, u64::from(file));
    let delta = if file == prev.0 {
        line.wrapping_sub(prev.1)
    } else {
        line
    };
    put_varint(b, delta);
    put_varint(b, u64::from(item));
    *prev = (file, line);
}

impl SpillDir {
    pub(super) fn part_path(&self, p: usize) -> PathBuf {
        self.dir.path().join(format!("part-{p:03}"))
    }

    pub(super) fn err(&self, e: &io::Error) -> RunError {
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
    pub(super) fn create(
        temp_dir: Option<PathBuf>,
        assume_free: Option<u64>,
    ) -> Result<SpillDir, RunError> {
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
            rows: vec![0; super::keying::PARTS],
            runs: Vec::new(),
            totals: Totals::default(),
            passes: 1,
            assume_free,
        })
    }

    /// Fail early, with the figures, if the directory has less free space
    /// than `need` bytes (what a spill of the table may write: its raw
    /// size, an upper bound of the compressed one).
    pub(super) fn check_free(&self, need: u64) -> Result<(), RunError> {
        let free = self.assume_free.or_else(|| free_bytes(self.dir.path()));
        match free {
            Some(free) if free < need => Err(RunError::msg(format!(
                "not enough free space in the temporary directory {}: a spill needs up to \
                 {:.1} MB, {:.1} MB free (see --temp-dir and --memory)",
                self.dir
                    .path()
                    .parent()
                    .unwrap_or(self.dir.path())
                    .display(),
                need as f64 / 1e6,
                free as f64 / 1e6
            ))),
            _ => Ok(()),
        }
    }

    fn add(&mut self, t: Totals) {
        self.totals.records += t.records;
        self.totals.raw += t.raw;
        self.totals.written += t.written;
    }

    /// First-occurrence order: every partition's rows appended to its file
    /// as one run, in the order they were added, in parallel; the
    /// partitions are left empty.
    pub(super) fn append(&mut self, parts: &mut [Part]) -> Result<(), RunError> {
        let this = &*self;
        let written: Vec<Result<Totals, RunError>> = parts
            .par_iter_mut()
            .enumerate()
            .map(|(p, part)| {
                let part = std::mem::take(part);
                if part.recs.is_empty() {
                    return Ok(Totals::default());
                }
                if cleanup::stopping() {
                    return Err(RunError::msg("interrupted"));
                }
                let f = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(this.part_path(p))
                    .map_err(|e| this.err(&e))?;
                write_rows(f, part.rows().map(|r| (&part, r, None))).map_err(|e| this.err(&e))
            })
            .collect();
        for (p, t) in written.into_iter().enumerate() {
            let t = t?;
            self.rows[p] += t.records;
            self.add(t);
        }
        Ok(())
    }

    /// Key or SURT order: `rows`, the table sorted, written as `pieces`
    /// runs (in parallel, each sorted).
    pub(super) fn append_sorted(
        &mut self,
        rows: &[(&Part, u32, Option<&[u8]>)],
        pieces: usize,
    ) -> Result<(), RunError> {
        let per = rows.len().div_ceil(pieces.max(1)).max(1);
        let first = self.runs.len();
        let paths: Vec<PathBuf> = (0..rows.len().div_ceil(per))
            .map(|i| self.dir.path().join(format!("run-{:05}", first + i)))
            .collect();
        let this = &*self;
        let written: Vec<Result<Totals, RunError>> = rows
            .par_chunks(per)
            .zip(&paths)
            .map(|(rows, path)| {
                if cleanup::stopping() {
                    return Err(RunError::msg("interrupted"));
                }
                let f = File::create(path).map_err(|e| this.err(&e))?;
                let it = rows.iter().map(|&(p, at, s)| (p, p.arena.row(at), Some(s)));
                write_rows(f, it).map_err(|e| this.err(&e))
            })
            .collect();
        for t in written {
            let t = t?;
            self.add(t);
        }
        self.runs.extend(paths);
        Ok(())
    }
}

/// Write `rows` (a partition's row, with its SURT in SURT order) as one
/// run to `f`.
fn write_rows<'a>(
    f: File,
    rows: impl Iterator<Item = (&'a Part, Row, Option<Option<&'a [u8]>>)>,
) -> io::Result<Totals> {
    let mut w = RunWriter::new(BufWriter::with_capacity(WRITE_BUF, f), CODEC)?;
    let mut prev = (0, 0);
    for (part, r, surt) in rows {
        if w.at_block_start() {
            prev = (0, 0);
        }
        let (key, ex) = (part.key(&r), part.example(&r));
        let ex = (!std::ptr::eq(key, ex)).then_some(ex);
        let origin = r.origin();
        put_row(
            w.record(),
            surt.flatten(),
            key,
            ex,
            r.count,
            origin,
            &mut prev,
        );
        w.end_record()?;
    }
    let (_, t) = w.finish()?;
    Ok(t)
}

/// Free bytes for an unprivileged writer in the file system of `dir`.
#[cfg(unix)]
fn free_bytes(dir: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    // SAFETY: `c` is a NUL-terminated path; `st` is written by statvfs.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
        return None;
    }
    Some((st.f_bavail as u64).saturating_mul(st.f_frsize as u64))
}

#[cfg(not(unix))]
fn free_bytes(_dir: &Path) -> Option<u64> {
    None
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

/// Whether spilled runs are sorted (one per spill, or a few) rather than
/// appended to partition files.
pub(super) fn sorted_runs(order: Order) -> bool {
    order != Order::First
}
