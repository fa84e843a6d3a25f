//! The end of a run that spilled: its runs read back and merged into the
//! output, within the memory budget, in the same total order as a run in
//! memory (so the output is byte-identical for every budget).
//!
//! **First-occurrence order.** A partition's file holds its rows spill by
//! spill, each spill's in input order, so the file is in input order and a
//! row's number in it (`g`) orders it as its origin does. Each partition is
//! read once for its keys alone and counted in a table ([`Part`]): the
//! first row of a key is its first occurrence, and the partition's *owner
//! list* — for each key, its first row's number and its total count, in
//! row order — is written small. A partition whose distinct keys outgrow
//! its share of the budget is split again, by four more bits of the hash,
//! into sixteen key files counted alone (recursively); their owner lists
//! are merged by row number. Then the partitions' files are merged by
//! origin, each row written if its owner list names it.
//!
//! **Key or SURT order.** The spills are sorted runs; while there are more
//! than [`FANIN`], groups of them are merged into one (another pass); the
//! last merge adds up each key's rows (count, the earliest origin and its
//! example) straight into the output.

use std::fs::File;
use std::io;
use std::ops::{ControlFlow, Range};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::columns::Columns;
use super::config::{Order, Summary};
use super::keying::{key_hash, PARTS, PART_BITS};
use super::output::{format_row, shown};
use super::part::Part;
use super::spill::{put_row, SpillDir, CODEC};
use crate::batch::runs::{
    get_bytes, get_slice, get_varint, put_bytes, put_varint, RunReader, RunWriter, Totals,
};
use crate::batch::RunError;

/// Runs merged at once: a reader holds two blocks of
/// [`BLOCK_RAW`](crate::batch::runs::BLOCK_RAW) bytes at most.
pub(super) const FANIN: usize = 64;

/// Key files a partition is split into when its keys outgrow its share.
const SPLIT_BITS: u32 = 4;
/// Splits deep enough to use the hash's bits above the partition's.
const MAX_DEPTH: u32 = (64 - 40 - PART_BITS) / SPLIT_BITS;

/// What the end of a spilled run needs from the table.
pub(super) struct Ending<'a> {
    pub(super) order: Order,
    pub(super) show_surt: bool,
    pub(super) columns: &'a Columns,
    pub(super) names: &'a [Vec<u8>],
    /// Bytes one worker may count a partition's keys in.
    pub(super) share: usize,
    pub(super) max_blocks: usize,
    pub(super) hasher: &'a foldhash::fast::FixedState,
}

type Out<'o> = &'o mut (dyn FnMut(&[u8]) -> Result<(), RunError> + Send);

impl SpillDir {
    /// Merge the runs into `out`; the summary of the output and the spill
    /// (without the count of spills).
    pub(super) fn write_merged(
        mut self,
        end: &Ending<'_>,
        out: Out<'_>,
    ) -> Result<Summary, RunError> {
        let files = if end.order == Order::First {
            self.rows.iter().filter(|&&r| r > 0).count()
        } else {
            self.runs.len()
        };
        let unique = if end.order == Order::First {
            self.merge_parts(end, out)?
        } else {
            self.merge_runs(end, out)?
        };
        Ok(Summary {
            unique,
            spilled_bytes: self.totals.written,
            spilled_raw_bytes: self.totals.raw,
            spill_passes: self.passes,
            spilled_partitions: files,
            ..Summary::default()
        })
    }

    fn merge_parts(&mut self, end: &Ending<'_>, out: Out<'_>) -> Result<u64, RunError> {
        let this = &*self;
        let counted: Vec<Result<(Totals, u32), RunError>> = (0..PARTS)
            .into_par_iter()
            .filter(|&p| this.rows[p] > 0)
            .map(|p| {
                let rows = Piece {
                    path: this.part_path(p),
                    kind: Kind::Rows,
                    depth: 0,
                    name: format!("{p:03}"),
                };
                this.count_keys(&rows, end)
            })
            .collect();
        for c in counted {
            let (t, depth) = c?;
            self.totals.raw += t.raw;
            self.totals.written += t.written;
            self.passes = self.passes.max(depth + 1);
        }
        let parts: Vec<usize> = (0..PARTS).filter(|&p| self.rows[p] > 0).collect();
        let paths: Vec<PathBuf> = parts.iter().map(|&p| self.part_path(p)).collect();
        let mut streams = Vec::new();
        for (rows, p) in self.blocks(&paths)?.into_iter().zip(&parts) {
            let owners = self.open(&self.owner_path(&format!("{p:03}")))?;
            let mut s = PartStream::new(rows, owners);
            s.advance().map_err(|e| self.read_err(&e))?;
            streams.push(s);
        }
        let less = |s: &[PartStream], a: usize, b: usize| s[a].origin < s[b].origin;
        let mut heap = Heap::new(&streams, |s| s.cur.is_some(), less);
        emitting(end, out, |emit| {
            while let Some(i) = heap.top() {
                let s = &streams[i];
                let cur = s.cur.as_ref().expect("in the heap");
                let block = s.rows.block();
                let key = &block[cur.key.clone()];
                let ex = cur.ex.clone().map_or(key, |r| &block[r]);
                emit.row(&shown(end.show_surt, key, None), cur.count, s.origin, ex)?;
                streams[i].advance().map_err(|e| self.read_err(&e))?;
                heap.next(&streams, |s| s.cur.is_some(), less);
            }
            Ok(())
        })
    }

    fn owner_path(&self, name: &str) -> PathBuf {
        self.dir.path().join(format!("own-{name}"))
    }

    fn open(&self, path: &Path) -> Result<RunReader<File>, RunError> {
        let f = File::open(path).map_err(|e| self.read_err(&e))?;
        Ok(RunReader::new(f))
    }

    fn read_err(&self, e: &io::Error) -> RunError {
        RunError::io(
            format!(
                "cannot read back the spill in the temporary directory {}",
                self.dir.path().display()
            ),
            e,
        )
    }

    /// The [`Blocks`] of each run of `paths`.
    fn blocks(&self, paths: &[PathBuf]) -> Result<Vec<Blocks>, RunError> {
        paths
            .iter()
            .map(|p| Ok(Blocks::new(self.open(p)?)))
            .collect()
    }

    /// Count the keys of `src` and write its owner list `own-{name}`;
    /// the bytes written and how deep it was split. A key file (not a
    /// partition's rows, still to be merged) is removed once read.
    fn count_keys(&self, src: &Piece, end: &Ending<'_>) -> Result<(Totals, u32), RunError> {
        let mut part = Part::default();
        let mut full = false;
        let loaded = for_each_key(&src.path, src.kind, |g, key, count| {
            let grows = part.arena.opens_block(key, key);
            if grows && part.arena.blocks.len() >= end.max_blocks {
                full = true;
                return ControlFlow::Break(());
            }
            if src.depth < MAX_DEPTH && counted_bytes(&part) > end.share {
                return ControlFlow::Break(());
            }
            part.add(key_hash(end.hasher, key), key, key, (0, g, 0), count);
            ControlFlow::Continue(())
        })
        .map_err(|e| self.read_err(&e))?;
        if loaded {
            let own = self.owner_path(&src.name);
            let f = File::create(&own).map_err(|e| self.err(&e))?;
            let mut w = RunWriter::new(f, CODEC).map_err(|e| self.err(&e))?;
            let mut prev = 0;
            // In the order added: a key's first row is its earliest.
            for r in part.rows() {
                if w.at_block_start() {
                    prev = 0;
                }
                put_varint(w.record(), r.line - prev);
                put_varint(w.record(), r.count);
                prev = r.line;
                w.end_record().map_err(|e| self.err(&e))?;
            }
            let (_, t) = w.finish().map_err(|e| self.err(&e))?;
            if src.kind == Kind::Keys {
                std::fs::remove_file(&src.path).map_err(|e| self.err(&e))?;
            }
            return Ok((t, src.depth));
        }
        if full && src.depth >= MAX_DEPTH {
            return Err(RunError::msg(format!(
                "{}: more distinct keys than one partition can hold",
                src.path.display()
            )));
        }
        drop(part);
        self.split(src, end)
    }

    /// Split `src` into key files by the next bits of the hash, count each,
    /// and merge their owner lists into `own-{name}`.
    fn split(&self, src: &Piece, end: &Ending<'_>) -> Result<(Totals, u32), RunError> {
        let shift = 40 + PART_BITS + SPLIT_BITS * src.depth;
        let subs: Vec<String> = (0..1 << SPLIT_BITS)
            .map(|i| format!("{}.{i:x}", src.name))
            .collect();
        // A key file is created when its first key comes.
        let mut writers: Vec<Option<(RunWriter<File>, u64)>> = subs.iter().map(|_| None).collect();
        let mut failed = None;
        let path = |s: &str| self.dir.path().join(format!("key-{s}"));
        for_each_key(&src.path, src.kind, |g, key, count| {
            let i = (key_hash(end.hasher, key) >> shift) as usize & ((1 << SPLIT_BITS) - 1);
            let w = match &mut writers[i] {
                Some(w) => w,
                slot => match File::create(path(&subs[i])).and_then(|f| RunWriter::new(f, CODEC)) {
                    Ok(w) => slot.insert((w, 0)),
                    Err(e) => {
                        failed = Some(e);
                        return ControlFlow::Break(());
                    }
                },
            };
            let (w, prev) = w;
            if w.at_block_start() {
                *prev = 0;
            }
            put_varint(w.record(), g - *prev);
            put_bytes(w.record(), key);
            put_varint(w.record(), count);
            *prev = g;
            match w.end_record() {
                Ok(()) => ControlFlow::Continue(()),
                Err(e) => {
                    failed = Some(e);
                    ControlFlow::Break(())
                }
            }
        })
        .map_err(|e| self.read_err(&e))?;
        if let Some(e) = failed {
            return Err(self.err(&e));
        }
        let mut total = Totals::default();
        let mut deepest = src.depth + 1;
        let mut records = Vec::new();
        for w in writers {
            let Some((w, _)) = w else {
                records.push(0);
                continue;
            };
            let (_, t) = w.finish().map_err(|e| self.err(&e))?;
            records.push(t.records);
            total.raw += t.raw;
            total.written += t.written;
        }
        if src.kind == Kind::Keys {
            std::fs::remove_file(&src.path).map_err(|e| self.err(&e))?;
        }
        let mut owners = Vec::new();
        for (s, n) in subs.iter().zip(records) {
            if n == 0 {
                continue;
            }
            let keys = path(s);
            let sub = Piece {
                path: keys,
                kind: Kind::Keys,
                depth: src.depth + 1,
                name: s.clone(),
            };
            let (t, d) = self.count_keys(&sub, end)?;
            total.raw += t.raw;
            total.written += t.written;
            deepest = deepest.max(d);
            owners.push(self.owner_path(s));
        }
        let t = self.merge_owners(&owners, &self.owner_path(&src.name))?;
        for o in &owners {
            std::fs::remove_file(o).map_err(|e| self.err(&e))?;
        }
        total.raw += t.raw;
        total.written += t.written;
        Ok((total, deepest))
    }

    /// Merge owner lists (each in row order) into one at `to`.
    fn merge_owners(&self, from: &[PathBuf], to: &Path) -> Result<Totals, RunError> {
        let mut streams = Vec::new();
        for p in from {
            let mut s = OwnerStream::new(self.open(p)?);
            s.advance().map_err(|e| self.read_err(&e))?;
            streams.push(s);
        }
        let less = |s: &[OwnerStream], a: usize, b: usize| s[a].next < s[b].next;
        let live = |s: &OwnerStream| s.next.is_some();
        let mut heap = Heap::new(&streams, live, less);
        let f = File::create(to).map_err(|e| self.err(&e))?;
        let mut w = RunWriter::new(f, CODEC).map_err(|e| self.err(&e))?;
        let mut prev = 0;
        while let Some(i) = heap.top() {
            let (g, count) = streams[i].next.expect("in the heap");
            if w.at_block_start() {
                prev = 0;
            }
            put_varint(w.record(), g - prev);
            put_varint(w.record(), count);
            prev = g;
            w.end_record().map_err(|e| self.err(&e))?;
            streams[i].advance().map_err(|e| self.read_err(&e))?;
            heap.next(&streams, live, less);
        }
        let (_, t) = w.finish().map_err(|e| self.err(&e))?;
        Ok(t)
    }

    /// Key or SURT order: merge passes until at most [`FANIN`] runs, then
    /// the last merge into `out`.
    fn merge_runs(&mut self, end: &Ending<'_>, out: Out<'_>) -> Result<u64, RunError> {
        let surt = end.order == Order::Surt;
        let mut n = self.runs.len();
        while self.runs.len() > FANIN {
            let runs = std::mem::take(&mut self.runs);
            let groups: Vec<&[PathBuf]> = runs.chunks(FANIN).collect();
            let this = &*self;
            let merged: Vec<Result<(PathBuf, Totals), RunError>> = groups
                .par_iter()
                .enumerate()
                .map(|(i, g)| {
                    let path = this.dir.path().join(format!("run-{:05}", n + i));
                    let f = File::create(&path).map_err(|e| this.err(&e))?;
                    let mut w = RunWriter::new(f, CODEC).map_err(|e| this.err(&e))?;
                    let (mut failed, mut prev) = (None, (0, 0));
                    this.merge_sorted(g, surt, |r| {
                        let ex = (!r.same).then_some(&r.example[..]);
                        let s = surt.then_some(&r.surt[..]);
                        if w.at_block_start() {
                            prev = (0, 0);
                        }
                        put_row(w.record(), s, &r.key, ex, r.count, r.origin, &mut prev);
                        if let Err(e) = w.end_record() {
                            failed = Some(e);
                        }
                        Ok(())
                    })?;
                    if let Some(e) = failed {
                        return Err(this.err(&e));
                    }
                    let (_, t) = w.finish().map_err(|e| this.err(&e))?;
                    for p in *g {
                        std::fs::remove_file(p).map_err(|e| this.err(&e))?;
                    }
                    Ok((path, t))
                })
                .collect();
            n += groups.len();
            for m in merged {
                let (path, t) = m?;
                self.runs.push(path);
                self.totals.raw += t.raw;
                self.totals.written += t.written;
            }
            self.passes += 1;
        }
        emitting(end, out, |emit| {
            self.merge_sorted(&self.runs, surt, |r| {
                let known = surt.then_some(&r.surt[..]);
                let ex = if r.same { &r.key } else { &r.example };
                emit.row(&shown(end.show_surt, &r.key, known), r.count, r.origin, ex)
            })
        })
    }

    /// Merge sorted runs, each key's rows added up into one given to `f`.
    fn merge_sorted(
        &self,
        runs: &[PathBuf],
        surt: bool,
        mut f: impl FnMut(&Merged) -> Result<(), RunError>,
    ) -> Result<(), RunError> {
        let mut streams = Vec::new();
        for b in self.blocks(runs)? {
            let mut s = SortedStream {
                r: b,
                surt,
                cur: None,
            };
            s.advance().map_err(|e| self.read_err(&e))?;
            streams.push(s);
        }
        self.merge_streams(&mut streams, &mut f)
    }

    /// [`SpillDir::merge_sorted`] of the streams.
    fn merge_streams(
        &self,
        streams: &mut [SortedStream],
        mut f: impl FnMut(&Merged) -> Result<(), RunError>,
    ) -> Result<(), RunError> {
        let less = |s: &[SortedStream], a: usize, b: usize| s[a].order_key() < s[b].order_key();
        let live = |s: &SortedStream| s.cur.is_some();
        let mut heap = Heap::new(streams, live, less);
        let mut m = Merged::default();
        let mut open = false;
        while let Some(i) = heap.top() {
            let s = &streams[i];
            let (sk, key) = s.order_key();
            if open && (sk != &m.surt[..] || key != &m.key[..]) {
                f(&m)?;
                open = false;
            }
            let c = s.cur.as_ref().expect("in the heap");
            if !open || c.origin < m.origin {
                if !open {
                    m.surt.clear();
                    m.surt.extend_from_slice(sk);
                    m.key.clear();
                    m.key.extend_from_slice(key);
                    m.count = 0;
                }
                m.origin = c.origin;
                m.same = c.ex.is_none();
                m.example.clear();
                if let Some(r) = c.ex.clone() {
                    m.example.extend_from_slice(&s.r.block()[r]);
                }
            }
            m.count += c.count;
            open = true;
            streams[i].advance().map_err(|e| self.read_err(&e))?;
            heap.next(streams, live, less);
        }
        if open {
            f(&m)?;
        }
        Ok(())
    }
}

/// Bytes of output rows handed to `out` at once.
const EMIT: usize = 1 << 20;

/// The output rows of a merge, formatted into a buffer written to `out`
/// every [`EMIT`] bytes.
struct Emit<'a> {
    end: &'a Ending<'a>,
    out: Out<'a>,
    text: Vec<u8>,
    rows: u64,
}

impl Emit<'_> {
    /// One row: `shown` is the canonical field (the key, or its SURT).
    fn row(
        &mut self,
        shown: &[u8],
        count: u64,
        (file, line, _): (u32, u64, u32),
        example: &[u8],
    ) -> Result<(), RunError> {
        let (fields, names) = (self.end.columns.fields(), self.end.names);
        let name = &names[file as usize];
        format_row(&mut self.text, fields, shown, count, name, line, example);
        self.rows += 1;
        if self.text.len() >= EMIT {
            (self.out)(&self.text)?;
            self.text.clear();
        }
        Ok(())
    }
}

/// The rows `f` gives an [`Emit`] written to `out`; how many.
fn emitting(
    end: &Ending<'_>,
    out: Out<'_>,
    f: impl FnOnce(&mut Emit<'_>) -> Result<(), RunError>,
) -> Result<u64, RunError> {
    let mut emit = Emit {
        end,
        out,
        text: Vec::with_capacity(EMIT + (EMIT >> 4)),
        rows: 0,
    };
    f(&mut emit)?;
    (emit.out)(&emit.text)?;
    Ok(emit.rows)
}

/// A key's rows added up by [`SpillDir::merge_sorted`].
#[derive(Default)]
struct Merged {
    surt: Vec<u8>,
    key: Vec<u8>,
    example: Vec<u8>,
    /// The example is the key.
    same: bool,
    count: u64,
    origin: (u32, u64, u32),
}

/// The bytes a partition being counted holds for its keys: its records
/// (not the unused end of the last block), and per key its place in the
/// row list and a slot ([`SLOT_BYTES`]); the table's first slots are part
/// of the fixed overhead.
fn counted_bytes(part: &Part) -> usize {
    let unused = part
        .arena
        .blocks
        .last()
        .map_or(0, |b| b.capacity() - b.len());
    part.arena.bytes - unused.min(part.arena.bytes) + part.recs.len() * (4 + SLOT_BYTES)
}

/// A key's share of its partition's slot table: 8 bytes a slot, at most
/// 3/4 full, doubling.
const SLOT_BYTES: usize = 22;

/// A file whose keys are counted: where, what it holds, how many splits
/// deep, and the name of its owner list (`own-{name}`).
struct Piece {
    path: PathBuf,
    kind: Kind,
    depth: u32,
    name: String,
}

/// What a file read for its keys holds.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A partition's rows ([`put_row`]); a row's number is its place.
    Rows,
    /// Key records of a split: row number (from the one before in the
    /// block), key, count.
    Keys,
}

/// `f(row number, key, count)` for each record of the file at `path` until
/// it breaks; whether it read them all.
fn for_each_key(
    path: &Path,
    kind: Kind,
    mut f: impl FnMut(u64, &[u8], u64) -> ControlFlow<()>,
) -> io::Result<bool> {
    let mut r = RunReader::new(File::open(path)?);
    let mut g = 0u64;
    while let Some(n) = r.next_block()? {
        let mut b = r.block();
        let mut prev = 0;
        for _ in 0..n {
            let (key, count) = match kind {
                Kind::Rows => {
                    let row = read_row(&mut b, false)?;
                    (row.key, row.count)
                }
                Kind::Keys => {
                    g = prev + get_varint(&mut b)?;
                    prev = g;
                    (get_bytes(&mut b)?, get_varint(&mut b)?)
                }
            };
            if f(g, key, count).is_break() {
                return Ok(false);
            }
            if kind == Kind::Rows {
                g += 1;
            }
        }
    }
    Ok(true)
}

/// A row of a spill run, borrowed from its block.
struct RowRef<'a> {
    surt: &'a [u8],
    key: &'a [u8],
    ex: Option<&'a [u8]>,
    count: u64,
    file: u32,
    line: u64,
    item: u32,
}

fn read_row<'a>(b: &mut &'a [u8], surt: bool) -> io::Result<RowRef<'a>> {
    let surt = if surt { get_bytes(b)? } else { &[] };
    let key = get_bytes(b)?;
    let ex = match get_varint(b)? {
        0 => None,
        n => Some(get_slice(b, (n - 1) as usize)?),
    };
    Ok(RowRef {
        surt,
        key,
        ex,
        count: get_varint(b)?,
        file: get_varint(b)? as u32,
        line: get_varint(b)?,
        item: get_varint(b)? as u32,
    })
}

/// Where a row's bytes are in its block.
fn range_in(block: &[u8], part: &[u8]) -> Range<usize> {
    if part.is_empty() {
        return 0..0;
    }
    let start = part.as_ptr() as usize - block.as_ptr() as usize;
    start..start + part.len()
}

/// A current row of a run being merged, as places in the run's block.
struct Cur {
    surt: Range<usize>,
    key: Range<usize>,
    ex: Option<Range<usize>>,
    count: u64,
    origin: (u32, u64, u32),
}

/// Blocks of a run and where the next record is.
struct Blocks {
    r: RunReader<File>,
    pos: usize,
    left: u32,
    prev: (u32, u64),
}

impl Blocks {
    fn new(r: RunReader<File>) -> Self {
        Blocks {
            r,
            pos: 0,
            left: 0,
            prev: (0, 0),
        }
    }

    fn block(&self) -> &[u8] {
        self.r.block()
    }

    /// The next row (its line relative to the row before in the block, in
    /// the same input), or `None` at the end.
    fn next_row(&mut self, surt: bool) -> io::Result<Option<Cur>> {
        while self.left == 0 {
            match self.r.next_block()? {
                None => return Ok(None),
                Some(n) => (self.left, self.pos, self.prev) = (n, 0, (0, 0)),
            }
        }
        let block = self.r.block();
        let mut b = &block[self.pos..];
        let row = read_row(&mut b, surt)?;
        let line = if row.file == self.prev.0 {
            self.prev.1.wrapping_add(row.line)
        } else {
            row.line
        };
        self.prev = (row.file, line);
        let cur = Cur {
            surt: range_in(block, row.surt),
            key: range_in(block, row.key),
            ex: row.ex.map(|x| range_in(block, x)),
            count: row.count,
            origin: (row.file, line, row.item),
        };
        self.pos = block.len() - b.len();
        self.left -= 1;
        Ok(Some(cur))
    }
}

/// A partition's rows that its owner list names, with their counts.
struct PartStream {
    rows: Blocks,
    owners: OwnerStream,
    g: u64,
    cur: Option<Cur>,
    origin: (u32, u64, u32),
}

impl PartStream {
    fn new(rows: Blocks, owners: RunReader<File>) -> Self {
        PartStream {
            rows,
            owners: OwnerStream::new(owners),
            g: 0,
            cur: None,
            origin: (0, 0, 0),
        }
    }

    fn advance(&mut self) -> io::Result<()> {
        if self.g == 0 && self.owners.next.is_none() {
            self.owners.advance()?;
        }
        loop {
            let Some(mut cur) = self.rows.next_row(false)? else {
                self.cur = None;
                if self.owners.next.is_some() {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        "owner list past its rows",
                    ));
                }
                return Ok(());
            };
            let g = self.g;
            self.g += 1;
            match self.owners.next {
                Some((o, count)) if o == g => {
                    cur.count = count;
                    self.origin = cur.origin;
                    self.cur = Some(cur);
                    self.owners.advance()?;
                    return Ok(());
                }
                _ => {}
            }
        }
    }
}

/// An owner list's entries: (row number, count).
struct OwnerStream {
    r: RunReader<File>,
    b: Vec<u8>,
    pos: usize,
    left: u32,
    prev: u64,
    next: Option<(u64, u64)>,
}

impl OwnerStream {
    fn new(r: RunReader<File>) -> Self {
        OwnerStream {
            r,
            b: Vec::new(),
            pos: 0,
            left: 0,
            prev: 0,
            next: None,
        }
    }

    fn advance(&mut self) -> io::Result<()> {
        while self.left == 0 {
            match self.r.next_block()? {
                None => {
                    self.next = None;
                    return Ok(());
                }
                Some(n) => {
                    self.b.clear();
                    self.b.extend_from_slice(self.r.block());
                    (self.left, self.pos, self.prev) = (n, 0, 0);
                }
            }
        }
        let mut b = &self.b[self.pos..];
        let g = self.prev + get_varint(&mut b)?;
        let count = get_varint(&mut b)?;
        self.pos = self.b.len() - b.len();
        self.prev = g;
        self.left -= 1;
        self.next = Some((g, count));
        Ok(())
    }
}

/// A sorted run's rows.
struct SortedStream {
    r: Blocks,
    surt: bool,
    cur: Option<Cur>,
}

impl SortedStream {
    fn advance(&mut self) -> io::Result<()> {
        self.cur = self.r.next_row(self.surt)?;
        Ok(())
    }

    /// (SURT, key) of the current row.
    fn order_key(&self) -> (&[u8], &[u8]) {
        let b = self.r.block();
        match &self.cur {
            Some(c) => (&b[c.surt.clone()], &b[c.key.clone()]),
            None => (&[], &[]),
        }
    }
}

/// A binary min-heap of stream indices, ordered by `less` over the
/// streams' current rows.
struct Heap {
    h: Vec<usize>,
}

impl Heap {
    fn new<S>(
        streams: &[S],
        live: impl Fn(&S) -> bool,
        less: impl Fn(&[S], usize, usize) -> bool,
    ) -> Self {
        let mut heap = Heap { h: Vec::new() };
        for i in (0..streams.len()).filter(|&i| live(&streams[i])) {
            heap.h.push(i);
            let mut c = heap.h.len() - 1;
            while c > 0 {
                let p = (c - 1) / 2;
                if !less(streams, heap.h[c], heap.h[p]) {
                    break;
                }
                heap.h.swap(c, p);
                c = p;
            }
        }
        heap
    }

    fn top(&self) -> Option<usize> {
        self.h.first().copied()
    }

    /// The top stream has moved on: drop it if it ended, else sift it down.
    fn next<S>(
        &mut self,
        streams: &[S],
        live: impl Fn(&S) -> bool,
        less: impl Fn(&[S], usize, usize) -> bool,
    ) {
        if !live(&streams[self.h[0]]) {
            let last = self.h.pop().expect("not empty");
            if self.h.is_empty() {
                return;
            }
            self.h[0] = last;
        }
        let mut p = 0;
        loop {
            let (l, r) = (2 * p + 1, 2 * p + 2);
            let mut m = p;
            if l < self.h.len() && less(streams, self.h[l], self.h[m]) {
                m = l;
            }
            if r < self.h.len() && less(streams, self.h[r], self.h[m]) {
                m = r;
            }
            if m == p {
                return;
            }
            self.h.swap(p, m);
            p = m;
        }
    }
}
