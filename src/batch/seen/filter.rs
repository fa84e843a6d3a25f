//! `dedup --seen`: the batch's distinct keys, less those the seen-set
//! holds — DRUM's check step (Lee et al., "IRLbot", WWW 2008, §5.1): the
//! batch is deduplicated by the engine, its keys' fingerprints sorted, and
//! merged against the store's sorted buckets in one sequential pass each.
//!
//! 1. The engine runs as `dedup` would, its rows (with the canonical key
//!    first, unquoted to be fingerprinted) written to a temporary file
//!    registered with [`cleanup`], so a signal removes it.
//! 2. The rows' (fingerprint, row number) pairs are gathered in segments
//!    that fit [`Config::memory`] (the engine's tables are gone by then),
//!    each sorted and merged against every bucket file (in parallel,
//!    one file per worker); a row is new if no file holds its fingerprint.
//!    Each segment's new fingerprints are a new bucket file.
//! 3. The new rows are written in the engine's order, in the columns asked
//!    for. The caller writes its output whole, then [`Pending::commit`]s
//!    the new bucket files: a crash between the two re-sends the batch's
//!    new keys next time, and never drops one unsent.

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Seek, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;
use siphasher::sip128::SipHasher13;

use super::keys;
use super::store::{Access, Bucket, SeenInfo, Store};
use crate::batch::dedup::{Columns, Config, Field, Summary};
use crate::batch::source::{Format, Opened};
use crate::batch::{cleanup, KeyFn, Observer, RunError};

/// Where the seen-set is and what the run does with it.
#[derive(Debug, Clone)]
pub struct SeenConfig {
    /// The seen-set's directory.
    pub dir: PathBuf,
    /// The key options, as text: a run is refused if they differ from the
    /// seen-set's (`irinorm` writes level, form, rules, …).
    pub key_options: String,
    /// Add the batch's new keys ([`Pending::commit`]); `false` only checks.
    pub update: bool,
}

/// What a `dedup --seen` run did.
#[derive(Debug, Clone)]
pub struct SeenSummary {
    /// The engine's run (its `unique`: the batch's distinct keys).
    pub dedup: Summary,
    /// Rows written: keys the seen-set did not hold.
    pub new: u64,
    /// Keys of the batch it held.
    pub seen: u64,
}

/// The new keys of a run, written and synced, to be committed once the
/// output is complete. Dropped without [`Pending::commit`], it leaves the
/// seen-set as it was (the next writer deletes the files).
pub struct Pending {
    store: Store,
    buckets: Vec<Bucket>,
}

impl Pending {
    /// Add the new keys to the seen-set (no-op for a check): what it then
    /// holds.
    pub fn commit(mut self) -> Result<SeenInfo, RunError> {
        if !self.buckets.is_empty() {
            self.store.add(std::mem::take(&mut self.buckets))?;
        }
        Ok(self.store.info())
    }
}

/// The 128-bit fingerprint of `key` under the seen-set's secret.
#[inline]
pub(super) fn fingerprint(h: &SipHasher13, key: &[u8]) -> u128 {
    h.hash(key).as_u128()
}

fn tmp_err(e: &io::Error) -> RunError {
    RunError::io(
        "cannot use a temporary file for the seen-set's check".into(),
        e,
    )
}

/// Bytes of one (fingerprint, row) pair in a segment.
const PAIR: usize = std::mem::size_of::<(u128, u64)>();

/// The fewest pairs in a segment, whatever the budget: each segment reads
/// the whole store once.
const MIN_SEGMENT: usize = 4096;

/// Run the dedup engine on `inputs`, write to `out` only the rows whose
/// key the seen-set in `seen.dir` does not hold, and return the new keys
/// for the caller to commit once its output is complete.
pub fn run(
    inputs: Vec<Opened>,
    format: &Format,
    key: &KeyFn<'_>,
    cfg: &Config,
    seen: &SeenConfig,
    obs: &mut (dyn Observer + Send),
    out: &mut (dyn FnMut(&[u8]) -> Result<(), RunError> + Send),
) -> Result<(SeenSummary, Pending), RunError> {
    let access = if seen.update {
        Access::Write
    } else {
        Access::Read
    };
    let mut store = Store::open(&seen.dir, Some(&seen.key_options), access)?;
    let user = cfg.columns.fields().to_vec();
    let mut fields = vec![Field::Canonical];
    fields.extend(user.iter().filter(|&&f| f != Field::Canonical));
    let mut ecfg = cfg.clone();
    ecfg.columns = Columns::new(&fields)?;
    ecfg.show_surt = false;

    let dir = cfg.temp_dir.clone().unwrap_or_else(std::env::temp_dir);
    let tmp = tempfile::Builder::new()
        .prefix(".irinorm-seen-")
        .tempfile_in(&dir)
        .map_err(|e| tmp_err(&e))?;
    let (file, tmp) = tmp.into_parts();
    cleanup::register(&tmp);
    let mut w = BufWriter::with_capacity(1 << 20, file);
    let summary = crate::batch::run_dedup(inputs, format, key, &ecfg, obs, &mut |b: &[u8]| {
        w.write_all(b).map_err(|e| tmp_err(&e))
    })?;
    let mut file = w.into_inner().map_err(|e| tmp_err(e.error()))?;

    let rows = summary.unique;
    let mut new_rows = vec![0u64; usize::try_from(rows.div_ceil(64)).unwrap_or(usize::MAX)];
    let room = cfg.memory.saturating_sub(new_rows.len() * 8) / PAIR;
    let segment = room.max(MIN_SEGMENT);
    let (k0, k1) = store.secret();
    let hasher = SipHasher13::new_with_keys(k0, k1);
    let mut buckets = Vec::new();
    let mut new = 0u64;

    file.rewind().map_err(|e| tmp_err(&e))?;
    let mut reader = Rows::new(&file);
    reader.next_row().map_err(|e| tmp_err(&e))?; // the header
    let mut pairs: Vec<(u128, u64)> = Vec::with_capacity(segment.min(rows as usize));
    let mut row = 0u64;
    loop {
        let more = reader.next_row().map_err(|e| tmp_err(&e))?;
        if let Some(r) = more {
            let (key, _) = first_field(r);
            pairs.push((fingerprint(&hasher, &key), row));
            row += 1;
        }
        if pairs.len() == segment || (more.is_none() && !pairs.is_empty()) {
            new += check_segment(
                &mut store,
                &mut pairs,
                &mut new_rows,
                seen.update,
                &mut buckets,
            )?;
            pairs.clear();
        }
        if more.is_none() {
            break;
        }
    }
    drop(pairs);
    if row != rows {
        return Err(RunError::msg(format!(
            "the seen-set's check read {row} rows of the engine's {rows}"
        )));
    }

    file.rewind().map_err(|e| tmp_err(&e))?;
    let mut reader = Rows::new(&file);
    reader.next_row().map_err(|e| tmp_err(&e))?;
    let shape = Shape {
        user,
        others: fields[1..].to_vec(),
        surt: cfg.show_surt,
    };
    let mut buf = cfg.columns.header();
    let mut row = 0u64;
    while let Some(r) = reader.next_row().map_err(|e| tmp_err(&e))? {
        if new_rows[(row / 64) as usize] & (1 << (row % 64)) != 0 {
            shape.write(r, &mut buf);
            if buf.len() >= 1 << 20 {
                out(&buf)?;
                buf.clear();
            }
        }
        row += 1;
    }
    out(&buf)?;
    drop(reader);
    drop(file);
    let _ = std::fs::remove_file(&tmp);
    cleanup::forget(&tmp);
    Ok((
        SeenSummary {
            dedup: summary,
            new,
            seen: rows - new,
        },
        Pending { store, buckets },
    ))
}

/// Sort one segment of (fingerprint, row) pairs, mark its rows the store
/// does not hold in `new_rows`, and (updating) write their fingerprints to
/// a new bucket file: the number of new rows.
fn check_segment(
    store: &mut Store,
    pairs: &mut [(u128, u64)],
    new_rows: &mut [u64],
    update: bool,
    buckets: &mut Vec<Bucket>,
) -> Result<u64, RunError> {
    pairs.par_sort_unstable_by_key(|p| p.0);
    let fps: Vec<u128> = pairs.iter().map(|p| p.0).collect();
    let seen: Vec<AtomicU64> = (0..fps.len().div_ceil(64))
        .map(|_| AtomicU64::new(0))
        .collect();
    let dir = store.dir().to_path_buf();
    store.readers()?.into_par_iter().try_for_each(|mut r| {
        keys::mark_seen(&mut r, &fps, &seen)
            .map_err(|e| RunError::io(format!("seen-set {}", dir.display()), &e))
    })?;
    let is_seen = |i: usize| seen[i / 64].load(Ordering::Relaxed) & (1 << (i % 64)) != 0;
    // Two keys of one fingerprint (odds in the module docs): the second is
    // taken as seen, so the store's keys stay distinct.
    let fresh = |i: usize| !is_seen(i) && (i == 0 || fps[i - 1] != fps[i]);
    let mut new = 0;
    for (i, &(_, row)) in pairs.iter().enumerate() {
        if fresh(i) {
            new_rows[(row / 64) as usize] |= 1 << (row % 64);
            new += 1;
        }
    }
    if update && new > 0 {
        let (name, path) = store.new_bucket();
        let (n, bytes) =
            keys::write_all((0..fps.len()).filter(|&i| fresh(i)).map(|i| fps[i]), &path).map_err(
                |e| RunError::io(format!("seen-set: cannot write {}", path.display()), &e),
            )?;
        buckets.push(Bucket {
            name,
            keys: n,
            bytes,
        });
    }
    Ok(new)
}

/// The rows of the engine's CSV output, one at a time (a quoted field may
/// hold a line feed).
struct Rows<'a> {
    r: BufReader<&'a File>,
    row: Vec<u8>,
}

impl<'a> Rows<'a> {
    fn new(f: &'a File) -> Self {
        Rows {
            r: BufReader::with_capacity(1 << 20, f),
            row: Vec::new(),
        }
    }

    /// The next row without its line feed.
    fn next_row(&mut self) -> io::Result<Option<&[u8]>> {
        self.row.clear();
        loop {
            let start = self.row.len();
            if self.r.read_until(b'\n', &mut self.row)? == 0 {
                if start == 0 {
                    return Ok(None);
                }
                return Err(io::Error::other("the engine's output ends inside a row"));
            }
            let quotes: usize = memchr::memchr_iter(b'"', &self.row).count();
            if quotes.is_multiple_of(2) {
                self.row.pop();
                return Ok(Some(&self.row));
            }
        }
    }
}

/// A row's first field, unquoted, and the rest of the row after its comma
/// (`None` if it has one field).
fn first_field(row: &[u8]) -> (std::borrow::Cow<'_, [u8]>, Option<&[u8]>) {
    use std::borrow::Cow;
    if row.first() != Some(&b'"') {
        return match memchr::memchr(b',', row) {
            Some(i) => (Cow::Borrowed(&row[..i]), Some(&row[i + 1..])),
            None => (Cow::Borrowed(row), None),
        };
    }
    let mut key = Vec::new();
    let mut i = 1;
    while i < row.len() {
        if row[i] == b'"' {
            if row.get(i + 1) == Some(&b'"') {
                key.push(b'"');
                i += 2;
                continue;
            }
            i += 1;
            break;
        }
        key.push(row[i]);
        i += 1;
    }
    let rest = (i < row.len()).then(|| &row[i + 1..]);
    (Cow::Owned(key), rest)
}

/// The CSV fields of `s`, as written (quotes kept).
fn raw_fields(s: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let (mut start, mut quoted) = (0, false);
    for (i, &b) in s.iter().enumerate() {
        match b {
            b'"' => quoted = !quoted,
            b',' if !quoted => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

/// How a row of the engine's (canonical first, key form) becomes a row of
/// the columns asked for.
struct Shape {
    user: Vec<Field>,
    /// The engine's columns after the canonical one.
    others: Vec<Field>,
    /// Show the canonical column as SURT.
    surt: bool,
}

impl Shape {
    fn write(&self, row: &[u8], buf: &mut Vec<u8>) {
        if !self.surt && self.user.first() == Some(&Field::Canonical) {
            // The engine's columns are the user's.
            buf.extend_from_slice(row);
            buf.push(b'\n');
            return;
        }
        let (key, rest) = first_field(row);
        let raw = rest.map(raw_fields).unwrap_or_default();
        for (n, f) in self.user.iter().enumerate() {
            if n > 0 {
                buf.push(b',');
            }
            if *f == Field::Canonical {
                let shown = if self.surt {
                    std::borrow::Cow::Owned(crate::surt::surt_of_key(&key))
                } else {
                    key.clone()
                };
                crate::batch::csv_field(buf, &shown);
            } else if let Some(i) = self.others.iter().position(|o| o == f) {
                buf.extend_from_slice(raw.get(i).copied().unwrap_or_default());
            }
        }
        buf.push(b'\n');
    }
}
