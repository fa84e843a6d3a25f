//! Lines: a batch cut into chunks at line ends for the workers, the lines
//! of a chunk found (64 bytes at a time on x86-64), and each line's number
//! in its input.
//!
//! A chunk boundary is placed at the next newline after its nominal size,
//! so no byte is scanned twice; a worker numbers the lines of its chunk
//! from the chunk's start, and [`LineNumbers`] makes them the input's
//! once the chunks' line counts are known.

use std::ops::Range;

use super::source::Batch;

/// Cut `data` into ranges of about `chunk_size` bytes, each ending just after
/// a `'\n'` (or at the end of `data`). Every byte is in exactly one range and
/// the data is scanned only around the nominal boundaries.
pub fn split_chunks(data: &[u8], chunk_size: usize) -> Vec<Range<usize>> {
    let chunk_size = chunk_size.max(1);
    let mut out = Vec::with_capacity(data.len() / chunk_size + 1);
    let mut start = 0;
    while start < data.len() {
        let nominal = start.saturating_add(chunk_size);
        let end = if nominal >= data.len() {
            data.len()
        } else {
            // The byte just before the nominal boundary may itself be the
            // line end; otherwise the chunk extends to the next one.
            match memchr::memchr(b'\n', &data[nominal - 1..]) {
                Some(i) => nominal + i,
                None => data.len(),
            }
        };
        out.push(start..end);
        start = end;
    }
    out
}

/// Calls `f(line, offset)` for each line of `chunk` (without its `'\n'`;
/// a last line without `'\n'` counts) and returns the number of lines.
#[inline]
pub fn for_each_line<'a>(chunk: &'a [u8], mut f: impl FnMut(&'a [u8], usize)) -> u64 {
    let mut pos = 0;
    let mut n = 0;
    newlines(chunk, |nl| {
        f(&chunk[pos..nl], pos);
        pos = nl + 1;
        n += 1;
    });
    if pos < chunk.len() {
        f(&chunk[pos..], pos);
        n += 1;
    }
    n
}

/// Calls `f` with the offset of every `'\n'` of `bytes`, in order
/// (a vector kernel where there is one: `simd::bytes`).
#[inline]
fn newlines(bytes: &[u8], f: impl FnMut(usize)) {
    crate::simd::bytes::for_each_newline(bytes, f);
}

/// The 0-based number of the first line of each batch of lines, in the
/// order [`for_each_batch`](super::source::for_each_batch) hands them out: the input's skipped lines and
/// the lines of its earlier batches, which the consumer counted (its
/// chunks' [`for_each_line`]) and gives back with [`LineNumbers::chunks`].
#[derive(Default)]
pub struct LineNumbers {
    file: Option<usize>,
    next: u64,
}

impl LineNumbers {
    /// The number of `batch`'s first line in its input.
    fn first(&mut self, batch: &Batch) -> u64 {
        if self.file != Some(batch.file) {
            (self.file, self.next) = (Some(batch.file), 0);
        }
        self.next += batch.skipped_lines;
        self.next
    }

    /// The 0-based number of the first line of each of `batch`'s chunks,
    /// given the lines each held, in order ([`for_each_line`]'s counts);
    /// the batch is then numbered. A chunk's lines were numbered from its
    /// own start while it was worked on: adding its first line's number
    /// makes them the input's.
    pub fn chunks(&mut self, batch: &Batch, lines: impl IntoIterator<Item = u64>) -> Vec<u64> {
        let mut next = self.first(batch);
        let firsts = lines
            .into_iter()
            .map(|n| {
                let f = next;
                next += n;
                f
            })
            .collect();
        self.next = next;
        firsts
    }
}

/// `batch`'s lines cut into chunks of about `chunk_size` bytes at line
/// ends, each with the 0-based number of its first line in the input
/// (`lines` numbers the batch; the chunks' lines counted in parallel on
/// the current rayon pool, before any is worked on). Only for a consumer
/// that needs a line's number while it works on the line (`normalize
/// --format csv` writes it): the others number their lines from each
/// chunk's start and learn the chunks' first lines afterwards
/// ([`LineNumbers::chunks`]), without this second pass over the bytes.
pub fn line_chunks(
    batch: &Batch,
    chunk_size: usize,
    lines: &mut LineNumbers,
) -> Vec<(Range<usize>, u64)> {
    use rayon::prelude::*;
    let ranges = split_chunks(&batch.data, chunk_size);
    let counts: Vec<u64> = ranges
        .par_iter()
        .map(|r| count_lines(&batch.data[r.clone()]))
        .collect();
    let firsts = lines.chunks(batch, counts);
    ranges.into_iter().zip(firsts).collect()
}

/// The chunk size for a batch of `len` bytes: at most `max`, but small
/// enough that every worker of the current pool gets several chunks (a
/// small input, or a slow pipe, gives batches of a few MB or less, which
/// would otherwise be keyed by one worker while the others wait), and at
/// least 16 KiB.
pub fn chunk_size(max: usize, len: usize) -> usize {
    let threads = rayon::current_num_threads().max(1);
    max.min(len / (threads * 4)).max(16 << 10)
}

/// Number of lines in a chunk (same rule as [`for_each_line`]).
pub fn count_lines(chunk: &[u8]) -> u64 {
    let nl = memchr::memchr_iter(b'\n', chunk).count() as u64;
    nl + u64::from(chunk.last().is_some_and(|&b| b != b'\n'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_everything_at_line_ends() {
        let data = b"aa\nbbbb\nc\n\ndddddd\ne";
        for size in 1..25 {
            let chunks = split_chunks(data, size);
            let mut pos = 0;
            for c in &chunks {
                assert_eq!(c.start, pos);
                assert!(c.end == data.len() || data[c.end - 1] == b'\n');
                assert!(c.end > c.start);
                pos = c.end;
            }
            assert_eq!(pos, data.len());
        }
        assert!(split_chunks(b"", 4).is_empty());
    }

    #[test]
    fn lines_counted() {
        assert_eq!(count_lines(b""), 0);
        assert_eq!(count_lines(b"\n"), 1);
        assert_eq!(count_lines(b"a\nb"), 2);
        assert_eq!(count_lines(b"a\nb\n"), 2);
        let mut seen = Vec::new();
        let n = for_each_line(b"a\n\nbc", |l, off| seen.push((l.to_vec(), off)));
        assert_eq!(n, 3);
        assert_eq!(
            seen,
            vec![(b"a".to_vec(), 0), (b"".to_vec(), 2), (b"bc".to_vec(), 3)]
        );
    }

    /// The lines of the 64-byte masks are the lines `memchr` finds:
    /// newlines at every offset of a block, across block ends, in the
    /// tail after the last whole block, next to bytes of every value.
    #[test]
    fn newline_masks_find_every_line() {
        let mut data = Vec::new();
        // Newlines 1 to 70 bytes apart: every offset in a block is hit.
        for gap in 1..=70u8 {
            data.extend((0..gap).map(|i| gap.wrapping_mul(31).wrapping_add(i) | 0x80));
            data.push(b'\n');
        }
        data.extend(0..=255u8);
        for len in 0..data.len() {
            let bytes = &data[..len];
            let mut got = Vec::new();
            newlines(bytes, |i| got.push(i));
            let want: Vec<usize> = memchr::memchr_iter(b'\n', bytes).collect();
            assert_eq!(got, want, "{len} bytes");
            let mut lines = Vec::new();
            let n = for_each_line(bytes, |l, off| lines.push((l, off)));
            let want: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
            let want = match want.split_last() {
                Some((&[], rest)) => rest,
                _ => &want[..],
            };
            assert_eq!(n as usize, want.len(), "{len} bytes");
            assert!(lines.iter().map(|l| l.0).eq(want.iter().copied()));
            assert!(lines
                .iter()
                .all(|&(l, off)| &bytes[off..off + l.len()] == l));
        }
    }
}
