//! The parallel dedup engine behind `irinorm dedup`.
//!
//! 1. Every input (one byte slice each, usually a memory map) is cut into
//!    chunks of about `chunk_size` bytes at line ends.
//! 2. Workers (rayon, over the chunk list) compute the key of every line and
//!    its hash (foldhash), and dedup within the chunk: a local table
//!    key → (first line, count). A key borrowed from the line (the core's
//!    fast path) is stored as an offset into the input, never copied; only
//!    rewritten keys go into the chunk's arena. Each chunk then groups its
//!    entries by shard (bits of the hash).
//! 3. The shards are merged in parallel, each by one task that walks the
//!    chunks *in order*, so the first entry inserted for a key is its first
//!    occurrence — no locks, and the result does not depend on scheduling.
//! 4. Rows are sorted by (chunk, line) = order of first occurrence (or by
//!    key) and formatted in parallel blocks, written in order.
//!
//! Line numbers: each chunk counts its lines; a prefix sum per file gives
//! the first line number of every chunk. The output is therefore
//! byte-identical for every thread count and chunk size.

use std::borrow::Cow;
use std::ops::Range;

use hashbrown::HashTable;
use indicatif::ProgressBar;
use rayon::prelude::*;

use crate::cli::CliError;
use crate::input::{for_each_line, split_chunks};
use crate::output::{csv_field, csv_u64, OutputFile};
use crate::pipeline::{process_line_in, reject_input, strip_cr, Outcome, RejectReason, Stats};

const SHARD_BITS: u32 = 6;
const SHARDS: usize = 1 << SHARD_BITS;

#[inline]
fn shard_of(hash: u64) -> usize {
    // Middle bits: hashbrown uses the low bits for the bucket and the top 7
    // for its tag; taking either would make tables within a shard collide.
    ((hash >> 40) as usize) & (SHARDS - 1)
}

/// One input: its name (as given) and its bytes (without BOM).
#[derive(Clone, Copy)]
pub struct Source<'a> {
    pub name: &'a str,
    pub data: &'a [u8],
    /// The charset of the lines (`None`: UTF-8), see `--encoding`.
    pub charset: Option<crate::decode::Charset>,
}

/// Tunables of a dedup run.
#[derive(Debug, Clone)]
pub struct Config {
    pub chunk_size: usize,
    pub max_line_bytes: usize,
    /// How many rejected lines to keep (with their reasons); the rest is
    /// only counted.
    pub keep_rejects: usize,
    /// `--split-spaces`: a key holding spaces is several keys (the items of
    /// the line), each counted as an occurrence on that line.
    pub split_spaces: bool,
}

struct ChunkMeta {
    file: u32,
    range: Range<usize>,
    /// 0-based number of the chunk's first line within its file.
    first_line: u64,
}

/// A key first seen in a chunk (32 bytes: there is one per key per chunk).
#[derive(Clone, Copy)]
struct Entry {
    hash: u64,
    /// Offset in the arena, or (borrowed keys) from the chunk start.
    key_off: u32,
    /// Length of the key; [`ARENA`] set when it is in the arena.
    key_len: u32,
    /// Offset of the line (the `example`) from the chunk start.
    line_off: u32,
    line_len: u32,
    /// 0-based line within the chunk.
    line: u32,
    count: u32,
}

const ARENA: u32 = 1 << 31;

impl Entry {
    #[inline]
    fn key_range(&self) -> Range<usize> {
        let start = self.key_off as usize;
        start..start + (self.key_len & !ARENA) as usize
    }
}

struct RejectRec {
    line: u32,
    range: Range<usize>,
    reason: RejectReason,
}

struct ChunkResult {
    /// Offset of the chunk in its file's data.
    base: usize,
    arena: Vec<u8>,
    entries: Vec<Entry>,
    /// Entry indices grouped by shard; shard `s` is
    /// `by_shard[shard_start[s]..shard_start[s + 1]]`.
    by_shard: Vec<u32>,
    shard_start: Vec<u32>,
    stats: Stats,
    rejects: Vec<RejectRec>,
}

impl ChunkResult {
    #[inline]
    fn key<'a>(&'a self, e: &Entry, data: &'a [u8]) -> &'a [u8] {
        let r = e.key_range();
        if e.key_len & ARENA != 0 {
            &self.arena[r]
        } else {
            &data[self.base..][r]
        }
    }

    /// The line of an entry, as written (without line terminator).
    fn line<'a>(&self, e: &Entry, data: &'a [u8]) -> &'a [u8] {
        let start = self.base + e.line_off as usize;
        &data[start..start + e.line_len as usize]
    }
}

/// Where a line is within its chunk.
struct LineAt {
    off: u32,
    len: u32,
    line: u32,
}

/// The per-chunk table of keys.
struct ChunkTable {
    table: HashTable<u32>,
    entries: Vec<Entry>,
    arena: Vec<u8>,
}

impl ChunkTable {
    /// Count one occurrence of key `kb` (at `in_chunk`, its offset from the
    /// chunk start, when it is borrowed from the chunk; else copied into the
    /// arena). False if a length or offset would overflow.
    #[inline]
    fn insert(
        &mut self,
        chunk: &[u8],
        kb: &[u8],
        in_chunk: Option<u32>,
        at: &LineAt,
        hasher: &foldhash::fast::RandomState,
    ) -> bool {
        use std::hash::BuildHasher;
        let (Ok(key_len), Ok(arena_off)) =
            (u32::try_from(kb.len()), u32::try_from(self.arena.len()))
        else {
            return false;
        };
        if key_len >= ARENA || arena_off.checked_add(key_len).is_none() {
            return false;
        }
        let hash = hasher.hash_one(kb);
        let (entries, arena) = (&mut self.entries, &mut self.arena);
        let found = self.table.find(hash, |&i| {
            let e = &entries[i as usize];
            e.hash == hash && {
                let r = e.key_range();
                let stored = if e.key_len & ARENA != 0 {
                    &arena[r]
                } else {
                    &chunk[r]
                };
                stored == kb
            }
        });
        if let Some(&i) = found {
            entries[i as usize].count += 1;
            return true;
        }
        let (key_off, key_len) = match in_chunk {
            Some(off) => (off, key_len),
            None => {
                arena.extend_from_slice(kb);
                (arena_off, key_len | ARENA)
            }
        };
        let idx = entries.len() as u32;
        entries.push(Entry {
            hash,
            key_off,
            key_len,
            line_off: at.off,
            line_len: at.len,
            line: at.line,
            count: 1,
        });
        self.table
            .insert_unique(hash, idx, |&i| entries[i as usize].hash);
        true
    }
}

/// A merged key: where its first entry is, and the total count.
#[derive(Clone, Copy)]
struct Row {
    /// (chunk, entry within chunk): the order of first occurrence (a
    /// chunk's entries are in first-occurrence order, also for several
    /// keys on one line with `--split-spaces`).
    order: u64,
    chunk: u32,
    idx: u32,
    count: u64,
}

/// The result of a dedup run.
pub struct Dedup<'a> {
    sources: &'a [Source<'a>],
    chunks: Vec<ChunkMeta>,
    results: Vec<ChunkResult>,
    rows: Vec<Row>,
    /// The canonical column as written, when it is not the key itself
    /// (`--form surt`: rows are grouped by the URI-form key, shown as SURT).
    shown: Option<Vec<Box<[u8]>>>,
    stats: Stats,
    max_line: usize,
}

/// Maps a key to another text (for display or ordering).
pub type KeyMap<'f> = &'f (dyn Fn(&[u8]) -> Vec<u8> + Sync);

/// A rejected line, for the rejects CSV or the preview.
pub struct Reject<'a> {
    pub file: &'a str,
    pub line: u64,
    pub input: Cow<'a, str>,
    pub reason: &'a RejectReason,
}

impl<'a> Dedup<'a> {
    /// Dedup `sources` with `key`; runs on the current rayon pool.
    ///
    /// ```
    /// use irinorm::dedup::{Config, Dedup, Source};
    /// use irinorm::{Normalizer, Options};
    /// let n = Normalizer::new(Options::default());
    /// let data = b"HTTP://a.example:80/\nhttp://a.example/\n";
    /// let sources = [Source { name: "-", data, charset: None }];
    /// let cfg = Config {
    ///     chunk_size: 2 << 20,
    ///     max_line_bytes: 65536,
    ///     keep_rejects: 5,
    ///     split_spaces: false,
    /// };
    /// let d = Dedup::run(&sources, &|s: &str| n.key(s), &cfg, None);
    /// assert_eq!((d.unique(), d.stats().lines), (1, 2));
    /// ```
    pub fn run<K>(
        sources: &'a [Source<'a>],
        key: &K,
        cfg: &Config,
        progress: Option<&ProgressBar>,
    ) -> Self
    where
        K: for<'k> Fn(&'k str) -> crate::Result<Cow<'k, str>> + Sync,
    {
        let hasher = foldhash::fast::RandomState::default();
        let mut chunks = Vec::new();
        for (file, src) in sources.iter().enumerate() {
            for range in split_chunks(src.data, cfg.chunk_size) {
                chunks.push(ChunkMeta {
                    file: file as u32,
                    range,
                    first_line: 0,
                });
            }
        }
        let results: Vec<ChunkResult> = chunks
            .par_iter()
            .map_init(Scratch::default, |scratch, m| {
                let r = process_chunk(
                    &sources[m.file as usize],
                    m.range.clone(),
                    cfg,
                    key,
                    &hasher,
                    scratch,
                );
                if let Some(pb) = progress {
                    pb.inc(m.range.len() as u64);
                }
                r
            })
            .collect();
        let mut stats = Stats::default();
        let mut prev_file = u32::MAX;
        let mut line = 0u64;
        for (m, r) in chunks.iter_mut().zip(&results) {
            if m.file != prev_file {
                prev_file = m.file;
                line = 0;
            }
            m.first_line = line;
            line += r.stats.lines;
            stats.add(&r.stats);
        }
        let mut d = Dedup {
            sources,
            chunks,
            results,
            shown: None,
            rows: Vec::new(),
            stats,
            max_line: cfg.max_line_bytes,
        };
        let mut rows = d.merge();
        rows.par_sort_by_key(|r| r.order);
        d.rows = rows;
        d
    }

    fn data(&self, chunk: u32) -> &'a [u8] {
        self.sources[self.chunks[chunk as usize].file as usize].data
    }

    fn entry(&self, r: &Row) -> &Entry {
        &self.results[r.chunk as usize].entries[r.idx as usize]
    }

    fn row_key(&self, r: &Row) -> &[u8] {
        self.results[r.chunk as usize].key(self.entry(r), self.data(r.chunk))
    }

    /// Merge the chunk tables, shard by shard in parallel, chunks in order.
    ///
    /// Each shard's rows come out in order of first occurrence (chunks in
    /// order, a chunk's entries in line order), so the concatenation is 64
    /// sorted runs, which the stable sort in [`Dedup::run`] merges cheaply.
    fn merge(&self) -> Vec<Row> {
        let shards: Vec<Vec<Row>> = (0..SHARDS)
            .into_par_iter()
            .map(|s| {
                // Rows with their key bytes at hand, and a table holding the
                // hash next to the row index: probing touches neither the
                // chunk entries nor other chunks' memory until hashes match.
                let mut rows: Vec<(Row, &[u8])> = Vec::new();
                let mut table: HashTable<(u64, u32)> = HashTable::new();
                for (c, res) in self.results.iter().enumerate() {
                    let data = self.data(c as u32);
                    let ids =
                        &res.by_shard[res.shard_start[s] as usize..res.shard_start[s + 1] as usize];
                    for &i in ids {
                        let e = &res.entries[i as usize];
                        let k = res.key(e, data);
                        let found =
                            table.find(e.hash, |&(h, r)| h == e.hash && rows[r as usize].1 == k);
                        match found {
                            Some(&(_, r)) => rows[r as usize].0.count += u64::from(e.count),
                            None => {
                                let n = rows.len() as u32;
                                rows.push((
                                    Row {
                                        // Entries are appended in order of first
                                        // occurrence within the chunk (lines, then
                                        // the items of a --split-spaces line), so the
                                        // entry index is a total order: no ties.
                                        order: (c as u64) << 32 | u64::from(i),
                                        chunk: c as u32,
                                        idx: i,
                                        count: u64::from(e.count),
                                    },
                                    k,
                                ));
                                table.insert_unique(e.hash, (e.hash, n), |&(h, _)| h);
                            }
                        }
                    }
                }
                drop(table);
                rows.into_iter().map(|(r, _)| r).collect::<Vec<Row>>()
            })
            .collect();
        let mut rows = Vec::with_capacity(shards.iter().map(Vec::len).sum());
        for s in shards {
            rows.extend(s);
        }
        rows
    }

    /// Order rows by key (bytewise) instead of first occurrence.
    pub fn sort_canonical(&mut self) {
        let mut rows = std::mem::take(&mut self.rows);
        rows.par_sort_unstable_by(|a, b| self.row_key(a).cmp(self.row_key(b)));
        self.rows = rows;
    }

    /// Write the canonical column through `f`; grouping is unchanged (so a
    /// display form that is not one-to-one, like SURT without the scheme,
    /// never merges rows).
    pub fn render(&mut self, f: KeyMap<'_>) {
        let shown = self
            .rows
            .par_iter()
            .map(|r| f(self.row_key(r)).into_boxed_slice())
            .collect();
        self.shown = Some(shown);
    }

    /// Order rows by `f(key)`, then by key (a total, thread-independent
    /// order).
    pub fn sort_by_map(&mut self, f: KeyMap<'_>) {
        let mut order: Vec<(Vec<u8>, usize)> = self
            .rows
            .par_iter()
            .enumerate()
            .map(|(i, r)| (f(self.row_key(r)), i))
            .collect();
        order.par_sort_unstable_by(|a, b| {
            a.0.cmp(&b.0).then_with(|| {
                self.row_key(&self.rows[a.1])
                    .cmp(self.row_key(&self.rows[b.1]))
            })
        });
        self.rows = order.iter().map(|&(_, i)| self.rows[i]).collect();
        if let Some(shown) = self.shown.take() {
            let mut shown: Vec<Option<Box<[u8]>>> = shown.into_iter().map(Some).collect();
            self.shown = Some(
                order
                    .iter()
                    .map(|&(_, i)| shown[i].take().unwrap_or_default())
                    .collect(),
            );
        }
    }

    pub fn stats(&self) -> Stats {
        self.stats
    }

    pub fn unique(&self) -> usize {
        self.rows.len()
    }

    /// The CSV: header, then one row per key.
    pub fn write_csv(&self, out: &mut OutputFile) -> Result<(), CliError> {
        out.write(b"canonical,count,first_file,first_line,example\n")?;
        const BLOCK: usize = 1 << 14;
        let n = self.rows.len();
        for start in (0..n).step_by(BLOCK * 16) {
            let end = (start + BLOCK * 16).min(n);
            let blocks: Vec<usize> = (start..end).step_by(BLOCK).collect();
            let texts: Vec<Vec<u8>> = blocks
                .par_iter()
                .map(|&b| {
                    let mut t = Vec::with_capacity(BLOCK * 128);
                    for i in b..(b + BLOCK).min(end) {
                        self.format_row(&mut t, i);
                    }
                    t
                })
                .collect();
            for t in texts {
                out.write(&t)?;
            }
        }
        Ok(())
    }

    fn format_row(&self, t: &mut Vec<u8>, i: usize) {
        let r = &self.rows[i];
        let e = self.entry(r);
        let meta = &self.chunks[r.chunk as usize];
        let data = self.data(r.chunk);
        match &self.shown {
            Some(shown) => csv_field(t, &shown[i]),
            None => csv_field(t, self.row_key(r)),
        }
        t.push(b',');
        csv_u64(t, r.count);
        t.push(b',');
        csv_field(t, self.sources[meta.file as usize].name.as_bytes());
        t.push(b',');
        csv_u64(t, meta.first_line + u64::from(e.line) + 1);
        t.push(b',');
        csv_field(t, self.results[r.chunk as usize].line(e, data));
        t.push(b'\n');
    }

    /// The kept rejected lines, in input order.
    pub fn rejects(&self) -> impl Iterator<Item = Reject<'_>> + '_ {
        self.chunks
            .iter()
            .zip(&self.results)
            .flat_map(move |(m, r)| {
                let src = &self.sources[m.file as usize];
                r.rejects.iter().map(move |rej| Reject {
                    file: src.name,
                    line: m.first_line + u64::from(rej.line) + 1,
                    input: reject_input(&src.data[rej.range.clone()], self.max_line),
                    reason: &rej.reason,
                })
            })
    }
}

/// Per-worker buffers reused from chunk to chunk (no big allocation, and
/// no fresh page faults, per chunk).
#[derive(Default)]
struct Scratch {
    table: HashTable<u32>,
    entries: Vec<Entry>,
}

fn process_chunk<K>(
    src: &Source<'_>,
    range: Range<usize>,
    cfg: &Config,
    key: &K,
    hasher: &foldhash::fast::RandomState,
    scratch: &mut Scratch,
) -> ChunkResult
where
    K: for<'k> Fn(&'k str) -> crate::Result<Cow<'k, str>> + Sync,
{
    let data = src.data;
    let base = range.start;
    let bytes = &data[range];
    let chunk_addr = bytes.as_ptr() as usize;
    // The table and entry buffer come from the worker's scratch and go
    // back to it: no big allocation (and no fresh page faults) per chunk.
    let mut t = ChunkTable {
        table: std::mem::take(&mut scratch.table),
        entries: std::mem::take(&mut scratch.entries),
        arena: Vec::new(),
    };
    t.table.clear();
    t.entries.clear();
    let mut rejects = Vec::new();
    let mut stats = Stats {
        bytes: bytes.len() as u64,
        ..Stats::default()
    };
    let mut line_no: u32 = 0;
    stats.lines = for_each_line(bytes, |line, off| {
        let this_line = line_no;
        line_no = line_no.wrapping_add(1);
        let reject = match process_line_in(line, cfg.max_line_bytes, src.charset, key) {
            Outcome::Blank => {
                stats.blank += 1;
                return;
            }
            Outcome::Reject(r) => r,
            Outcome::Key(k) => {
                let at = LineAt {
                    off: off as u32,
                    len: strip_cr(line).len() as u32,
                    line: this_line,
                };
                let ok = if cfg.split_spaces && k.contains(' ') {
                    k.split(' ')
                        .filter(|p| !p.is_empty())
                        .all(|p| t.insert(bytes, p.as_bytes(), None, &at, hasher))
                } else {
                    let kb = k.as_bytes();
                    let addr = kb.as_ptr() as usize;
                    let borrowed = matches!(k, Cow::Borrowed(_))
                        && addr >= chunk_addr
                        && addr + kb.len() <= chunk_addr + bytes.len();
                    let in_chunk = borrowed.then(|| (addr - chunk_addr) as u32);
                    t.insert(bytes, kb, in_chunk, &at, hasher)
                };
                // Chunks and lines are at most 256 MiB (see the CLI), so
                // lengths and offsets fit; rather than panic, a line that
                // would overflow them is counted as rejected.
                if ok {
                    stats.accepted += 1;
                } else {
                    stats.rejected += 1;
                }
                return;
            }
        };
        stats.rejected += 1;
        if rejects.len() < cfg.keep_rejects {
            rejects.push(RejectRec {
                line: this_line,
                range: base + off..base + off + line.len(),
                reason: reject,
            });
        }
    });
    let ChunkTable {
        table,
        entries: buffer,
        mut arena,
    } = t;
    // An exact-size copy; the scratch keeps its capacity for the next chunk.
    let entries = buffer.clone();
    scratch.table = table;
    scratch.entries = buffer;
    // Group entry indices by shard (counting sort).
    let mut shard_start = vec![0u32; SHARDS + 1];
    for e in &entries {
        shard_start[shard_of(e.hash) + 1] += 1;
    }
    for s in 0..SHARDS {
        shard_start[s + 1] += shard_start[s];
    }
    let mut fill = shard_start.clone();
    let mut by_shard = vec![0u32; entries.len()];
    for (i, e) in entries.iter().enumerate() {
        let s = shard_of(e.hash);
        by_shard[fill[s] as usize] = i as u32;
        fill[s] += 1;
    }
    arena.shrink_to_fit();
    ChunkResult {
        base,
        arena,
        entries,
        by_shard,
        shard_start,
        stats,
        rejects,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lowercase ASCII; borrowed when already lowercase; `!` is invalid.
    fn fake(s: &str) -> crate::Result<Cow<'_, str>> {
        if let Some(i) = s.find('!') {
            return Err(crate::Error::new(i, crate::ErrorKind::Other("bang".into())));
        }
        if s.bytes().any(|b| b.is_ascii_uppercase()) {
            Ok(Cow::Owned(s.to_ascii_lowercase()))
        } else {
            Ok(Cow::Borrowed(s))
        }
    }

    fn csv(
        sources: &[Source<'_>],
        chunk: usize,
        threads: usize,
        canonical: bool,
    ) -> (String, Stats) {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let cfg = Config {
            chunk_size: chunk,
            max_line_bytes: 20,
            keep_rejects: usize::MAX,
            split_spaces: false,
        };
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("o.csv");
        let mut out = OutputFile::create(Some(&p)).unwrap();
        let stats = pool.install(|| {
            let mut d = Dedup::run(sources, &fake, &cfg, None);
            if canonical {
                d.sort_canonical();
            }
            d.write_csv(&mut out).unwrap();
            for r in d.rejects() {
                out.write(format!("R {}:{} {} {}\n", r.file, r.line, r.input, r.reason).as_bytes())
                    .unwrap();
            }
            d.stats()
        });
        out.finish().unwrap();
        (std::fs::read_to_string(&p).unwrap(), stats)
    }

    #[test]
    fn first_occurrence_order_and_counts() {
        let a = b"b\nA\r\n\n a\nB!\nc\na\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\nb";
        let b = b"C\n\xff\nd";
        let sources = [
            Source {
                name: "a",
                data: a,
                charset: None,
            },
            Source {
                name: "b,2",
                data: b,
                charset: None,
            },
        ];
        let (text, stats) = csv(&sources, 1 << 20, 1, false);
        let expected = "canonical,count,first_file,first_line,example\n\
            b,2,a,1,b\na,2,a,2,A\n a,1,a,4, a\nc,2,a,6,c\nd,1,\"b,2\",3,d\n\
            R a:5 B! bang at byte 1\n\
            R a:8 xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx... line longer than 20 bytes\n\
            R b,2:2 \u{fffd} invalid UTF-8 at byte 0\n";
        assert_eq!(text, expected);
        assert_eq!(stats.lines, 12);
        assert_eq!(stats.blank, 1);
        assert_eq!(stats.rejected, 3);
        assert_eq!(stats.accepted + stats.rejected + stats.blank, stats.lines);
        for chunk in [1, 2, 3, 5, 8, 64] {
            for threads in [1, 2, 3] {
                assert_eq!(
                    csv(&sources, chunk, threads, false).0,
                    text,
                    "chunk {chunk}"
                );
            }
        }
        let (sorted, _) = csv(&sources, 3, 2, true);
        assert!(sorted.starts_with(
            "canonical,count,first_file,first_line,example\n a,1,a,4, a\na,2,a,2,A\nb,2,a,1,b\nc,"
        ));
    }
}
