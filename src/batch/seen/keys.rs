//! The seen-set's bucket files: sorted 128-bit fingerprints, delta-coded,
//! in the compressed, checksummed blocks of [`crate::batch::runs`] — the
//! sorted buckets DRUM merges a batch against (Lee et al., "IRLbot",
//! WWW 2008, §5.1).
//!
//! A file is one run. The first fingerprint of each block is written
//! whole (16 bytes, little-endian), each next one as its difference to the
//! one before (a LEB128 varint of up to 19 bytes): a block decodes alone,
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

fn put_u128(b: &mut Vec<u8>, mut v: u128) {
    while v >= 0x80 {
        b.push(v as u8 | 0x80);
        v >>= 7;
    }
    b.push(v as u8);
}

fn get_u128(b: &mut &[u8]) -> Option<u128> {
    let mut v = 0u128;
    for shift in (0..128).step_by(7) {
        let (&byte, rest) = b.split_first()?;
        *b = rest;
        let part = u128::from(byte & 0x7f);
        if shift == 126 && part > 3 {
            return None;
        }
        v |= part << shift;
        if byte < 0x80 {
            return Some(v);
        }
    }
    None
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
            put_u128(b, fp - self.prev);
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

/// Reads one bucket file, checking it against what the manifest says of
/// it (its key count and size) as well as its own checksums.
pub(super) struct KeyReader {
    run: RunReader<BufReader<File>>,
    path: std::path::PathBuf,
    /// Position in the current block, and its records left.
    at: usize,
    left: u32,
    prev: Option<u128>,
    read: u64,
    want: u64,
}

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
        Ok(KeyReader {
            run: RunReader::new(BufReader::with_capacity(1 << 20, f)),
            path: path.to_path_buf(),
            at: 0,
            left: 0,
            prev: None,
            read: 0,
            want: keys,
        })
    }

    /// The next fingerprint; `None` at the end of the file, once its
    /// count has been checked.
    pub(super) fn next_key(&mut self) -> io::Result<Option<u128>> {
        let fresh = self.left == 0;
        if fresh {
            match self.run.next_block() {
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
        let block = self.run.block();
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
            let d = get_u128(&mut rest)
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
    fn varints_round_trip_to_the_widest() {
        for v in [
            0,
            1,
            127,
            128,
            u128::from(u64::MAX),
            u128::MAX - 1,
            u128::MAX,
        ] {
            let mut b = Vec::new();
            put_u128(&mut b, v);
            let mut s = &b[..];
            assert_eq!(get_u128(&mut s), Some(v));
            assert!(s.is_empty());
        }
        // 19 bytes whose last one overflows 128 bits.
        let mut b = vec![0xff; 18];
        b.push(0x04);
        assert_eq!(get_u128(&mut &b[..]), None);
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
