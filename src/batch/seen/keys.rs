//! The seen-set's bucket files: sorted 128-bit fingerprints, delta-coded,
//! in the compressed, checksummed blocks of [`crate::batch::runs`] — the
//! sorted buckets DRUM merges a batch against (Lee et al., "IRLbot",
//! WWW 2008, §5.1).
//!
//! A file is one run. The first fingerprint of each block is written
//! whole (16 bytes, little-endian), each next one as its difference to the
//! one before (its length in bytes, then its bytes; 15 bytes at 10⁷ random
//! keys, which zstd brings to 14): a block decodes alone,
//! and the fingerprints must rise strictly, so bytes that pass the
//! checksums but are not what was written are still reported.

use std::fs::File;
use std::io::{self, BufReader, BufWriter};
use std::path::Path;

use crate::batch::runs::{Codec, RunReader, RunWriter};

/// The codec of the bucket files: deltas of random fingerprints carry
/// little redundancy except their varints' continuation bits, which zstd's
/// entropy coding removes (LZ4 would store them).
pub(super) const CODEC: Codec = Codec::Zstd(1);

fn corrupt(path: &Path, what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("corrupt seen-set file {}: {what}", path.display()),
    )
}

/// Append `d` as its length in bytes (1 to 16) and those bytes,
/// little-endian: decoded with one load and a mask, no loop per byte.
fn put_delta(b: &mut Vec<u8>, d: u128) {
    let n = (16 - d.leading_zeros() / 8).max(1) as usize;
    b.push(n as u8);
    b.extend_from_slice(&d.to_le_bytes()[..n]);
}

/// Read what [`put_delta`] wrote.
#[inline]
fn get_delta(b: &mut &[u8]) -> Option<u128> {
    let (&n, rest) = b.split_first()?;
    let n = usize::from(n);
    if !(1..=16).contains(&n) || rest.len() < n {
        return None;
    }
    let v = match rest.first_chunk::<16>() {
        Some(w) if n < 16 => u128::from_le_bytes(*w) & ((1u128 << (8 * n)) - 1),
        _ => {
            let mut w = [0u8; 16];
            w[..n].copy_from_slice(&rest[..n]);
            u128::from_le_bytes(w)
        }
    };
    *b = &rest[n..];
    Some(v)
}

/// Writes one bucket file of strictly rising fingerprints.
pub(super) struct KeyWriter {
    run: RunWriter<BufWriter<File>>,
    prev: u128,
}

impl KeyWriter {
    pub(super) fn create(path: &Path) -> io::Result<KeyWriter> {
        let f = File::options().write(true).create_new(true).open(path)?;
        Ok(KeyWriter {
            run: RunWriter::new(BufWriter::with_capacity(1 << 20, f), CODEC)?,
            prev: 0,
        })
    }

    /// Append `fp`, greater than the last one appended.
    pub(super) fn push(&mut self, fp: u128) -> io::Result<()> {
        let start = self.run.at_block_start();
        let b = self.run.record();
        if start {
            b.extend_from_slice(&fp.to_le_bytes());
        } else {
            debug_assert!(fp > self.prev);
            put_delta(b, fp - self.prev);
        }
        self.prev = fp;
        self.run.end_record()
    }

    /// End the run and sync the file to disk: (keys, bytes).
    pub(super) fn finish(self) -> io::Result<(u64, u64)> {
        let (out, totals) = self.run.finish()?;
        let f = out.into_inner().map_err(|e| e.into_error())?;
        f.sync_all()?;
        Ok((totals.records, totals.written))
    }
}

/// A block of a bucket file as its reader thread hands it over: its raw
/// bytes and record count; `None` at the end of the run.
type Block = io::Result<Option<(Vec<u8>, u32)>>;

/// Reads one bucket file, checking it against what the manifest says of
/// it (its key count and size) as well as its own checksums. A thread
/// reads and decompresses the blocks ahead, so a merge decodes keys while
/// the next block is read.
pub(super) struct KeyReader {
    blocks: std::sync::mpsc::Receiver<Block>,
    block: Vec<u8>,
    path: std::path::PathBuf,
    /// Position in the current block, and its records left.
    at: usize,
    left: u32,
    prev: Option<u128>,
    read: u64,
    want: u64,
    ended: bool,
}

/// Blocks read ahead per file.
const AHEAD: usize = 2;

impl KeyReader {
    pub(super) fn open(path: &Path, keys: u64, bytes: u64) -> io::Result<KeyReader> {
        let f = File::open(path)?;
        let len = f.metadata()?.len();
        if len != bytes {
            return Err(corrupt(
                path,
                &format!("{len} bytes where the manifest says {bytes}"),
            ));
        }
        let (tx, rx) = std::sync::mpsc::sync_channel::<Block>(AHEAD);
        std::thread::Builder::new()
            .name("irinorm-seen".into())
            .spawn(move || {
                let mut run = RunReader::new(BufReader::with_capacity(1 << 20, f));
                loop {
                    let b = run
                        .next_block()
                        .map(|n| n.map(|n| (run.block().to_vec(), n)));
                    let last = !matches!(b, Ok(Some(_)));
                    // A reader dropped early ends the thread.
                    if tx.send(b).is_err() || last {
                        return;
                    }
                }
            })?;
        Ok(KeyReader {
            blocks: rx,
            block: Vec::new(),
            path: path.to_path_buf(),
            at: 0,
            left: 0,
            prev: None,
            read: 0,
            want: keys,
            ended: false,
        })
    }

    fn next_block(&mut self) -> io::Result<Option<u32>> {
        if self.ended {
            return Ok(None);
        }
        let b = self
            .blocks
            .recv()
            .map_err(|_| io::Error::other("the reader thread stopped"))?;
        match b? {
            Some((block, n)) => {
                self.block = block;
                Ok(Some(n))
            }
            None => {
                self.ended = true;
                Ok(None)
            }
        }
    }

    /// The next fingerprint; `None` at the end of the file, once its
    /// count has been checked.
    pub(super) fn next_key(&mut self) -> io::Result<Option<u128>> {
        let fresh = self.left == 0;
        if fresh {
            match self.next_block() {
                Err(e) => return Err(corrupt(&self.path, &e.to_string())),
                Ok(None) if self.read == self.want => return Ok(None),
                Ok(None) => {
                    return Err(corrupt(
                        &self.path,
                        &format!("{} keys where the manifest says {}", self.read, self.want),
                    ))
                }
                Ok(Some(0)) => return Err(corrupt(&self.path, "empty block")),
                Ok(Some(n)) => {
                    self.left = n;
                    self.at = 0;
                }
            }
        }
        let block = &self.block;
        let mut rest = &block[self.at..];
        let fp = if fresh {
            let (head, tail) = rest
                .split_first_chunk::<16>()
                .ok_or_else(|| corrupt(&self.path, "short block"))?;
            rest = tail;
            let fp = u128::from_le_bytes(*head);
            if self.prev.is_some_and(|p| fp <= p) {
                return Err(corrupt(&self.path, "keys out of order"));
            }
            fp
        } else {
            let d = get_delta(&mut rest)
                .filter(|&d| d > 0)
                .ok_or_else(|| corrupt(&self.path, "bad key delta"))?;
            self.prev
                .and_then(|p| p.checked_add(d))
                .ok_or_else(|| corrupt(&self.path, "key delta overflows"))?
        };
        self.at = block.len() - rest.len();
        self.left -= 1;
        if self.left == 0 && !rest.is_empty() {
            return Err(corrupt(&self.path, "bytes after the block's last key"));
        }
        self.prev = Some(fp);
        self.read += 1;
        Ok(Some(fp))
    }
}

/// Mark in `seen` (a bitset over `batch`'s indices) every fingerprint of
/// the sorted `batch` that the file holds: one sequential pass over both.
/// The file is read to its end, so a damaged tail is reported too.
pub(super) fn mark_seen(
    reader: &mut KeyReader,
    batch: &[u128],
    seen: &[std::sync::atomic::AtomicU64],
) -> io::Result<()> {
    use std::sync::atomic::Ordering;
    let mut i = 0;
    while let Some(k) = reader.next_key()? {
        while i < batch.len() && batch[i] < k {
            i += 1;
        }
        if i < batch.len() && batch[i] == k {
            seen[i / 64].fetch_or(1 << (i % 64), Ordering::Relaxed);
        }
    }
    Ok(())
}

/// Merge the files `readers` into the new file `out` (a key in several is
/// written once): (keys, bytes).
pub(super) fn merge(readers: Vec<KeyReader>, out: &Path) -> io::Result<(u64, u64)> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let mut w = KeyWriter::create(out)?;
    let mut readers = readers;
    let mut heap = BinaryHeap::new();
    for (i, r) in readers.iter_mut().enumerate() {
        if let Some(k) = r.next_key()? {
            heap.push(Reverse((k, i)));
        }
    }
    let mut last = None;
    while let Some(Reverse((k, i))) = heap.pop() {
        if last != Some(k) {
            w.push(k)?;
            last = Some(k);
        }
        if let Some(n) = readers[i].next_key()? {
            heap.push(Reverse((n, i)));
        }
    }
    w.finish()
}

/// Write the sorted, distinct `keys` to the new file `out`: (keys, bytes).
pub(super) fn write_all(keys: impl Iterator<Item = u128>, out: &Path) -> io::Result<(u64, u64)> {
    let mut w = KeyWriter::create(out)?;
    for k in keys {
        w.push(k)?;
    }
    w.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deltas_round_trip_to_the_widest() {
        for v in [1, 255, 256, u128::from(u64::MAX), u128::MAX >> 8, u128::MAX] {
            let mut b = Vec::new();
            put_delta(&mut b, v);
            b.extend_from_slice(&[0xee; 20]);
            let mut s = &b[..];
            assert_eq!(get_delta(&mut s), Some(v));
            assert_eq!(s, &[0xee; 20]);
            let mut s = &b[..b.len() - 20];
            assert_eq!(get_delta(&mut s), Some(v));
        }
        assert_eq!(get_delta(&mut &[17u8; 20][..]), None);
        assert_eq!(get_delta(&mut &[0u8; 20][..]), None);
        assert_eq!(get_delta(&mut &[3u8, 1, 2][..]), None);
    }

    #[test]
    fn files_round_trip_across_blocks() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a");
        let mut keys: Vec<u128> = (0..40_000u128)
            .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835))
            .collect();
        keys.sort_unstable();
        keys.dedup();
        let (n, bytes) = write_all(keys.iter().copied(), &p).unwrap();
        assert_eq!(n, keys.len() as u64);
        let mut r = KeyReader::open(&p, n, bytes).unwrap();
        let mut got = Vec::new();
        while let Some(k) = r.next_key().unwrap() {
            got.push(k);
        }
        assert_eq!(got, keys);
        // The count is checked against the manifest's.
        let mut r = KeyReader::open(&p, n + 1, bytes).unwrap();
        let err = loop {
            match r.next_key() {
                Ok(Some(_)) => {}
                Ok(None) => panic!("a wrong count was accepted"),
                Err(e) => break e,
            }
        };
        assert!(err.to_string().contains("manifest says"), "{err}");
    }
}
