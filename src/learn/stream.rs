//! The digest learner in one streaming pass over an index sorted by SURT
//! key (3987bis §5.3.4 evidence at crawl scale): captures of one host are
//! contiguous in such an index, so each origin is learned as soon as its
//! captures have been read, and memory holds a few hosts, not the crawl.
//!
//! The reading thread only cuts the input into *chunks* of whole lines
//! that end where the host changes (the SURT key's host, before `)`, or a
//! URL's authority): a chunk holds every line of its hosts. Workers (the
//! rayon pool, fed through a bounded queue) parse the lines, build the
//! chunk's [`Origin`]s in input order and learn them. Rules are the same as
//! [`learn`](super::digest::learn) on the same records, whatever the
//! number of workers or the chunk size: an origin's captures reach its
//! `Origin` in input order, and the rules are sorted at the end. Each
//! origin's verdicts (a few numbers per candidate) go to the pooled pass
//! ([`pool`](super::pool)), which sorts them in a [`Grouping`]
//! — on disk past a memory budget — and judges them across origins at the
//! end.
//!
//! An origin whose captures are in two chunks means the input is not
//! grouped by host: the pass stops with [`StreamError::Unsorted`] and the
//! caller groups the captures first
//! ([`learn_unsorted`](super::group::learn_unsorted)), as for CSV/TSV,
//! which have no SURT key. (Hosts out of order inside one chunk need no
//! grouping: the chunk's origins are built whole.)

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::{self, BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};

use rayon::prelude::*;

use super::cluster::{Judgement, Origin, OriginStats};
use super::digest::{split_key, url_key, DigestOptions};
use super::grouping::{get_varint, in_memory, put_varint, Grouping};
use super::pool::{NewGrouping, PoolPass, Pooled, PooledRules};
use super::records::{index_line, timestamp_secs, IndexLine};
use super::RedirectTally;
use crate::cdx::{CdxLayout, Format};

/// Bytes of lines gathered before a chunk is handed to the workers (a
/// chunk ends at a host boundary, so a host larger than this is one
/// larger chunk).
pub const CHUNK_BYTES: usize = 1 << 20;

/// What one pass found besides the rules (the figures of
/// [`ReadResult`](super::records::ReadResult), without the records).
#[derive(Debug, Default)]
pub struct Learnt {
    /// Every rule, applied or refused, to be drained in the order of the
    /// rules file.
    pub rules: PooledRules,
    /// Records read as content evidence, and those of them that were no
    /// evidence (URL not a valid reference, no authority, or user info).
    pub records: usize,
    pub unusable: usize,
    pub rejected: Vec<(usize, String)>,
    pub not_200: usize,
    /// The redirects of 3xx captures naming their target, tallied.
    pub redirects: RedirectTally,
    /// Origins learned and what the learner saw on them.
    pub origins: usize,
    pub stats: OriginStats,
    /// The patterns whose evidence pooled across origins applied rules
    /// (see [`pool`](super::pool)), by kind and pattern.
    pub pooled: Vec<Pooled>,
}

/// Why a streaming pass stopped.
#[derive(Debug)]
pub enum StreamError {
    Io(io::Error),
    /// The captures of `origin` are not contiguous: its host reappears at
    /// `line` (1-based) after other hosts.
    Unsorted {
        origin: String,
        line: usize,
    },
}

impl From<io::Error> for StreamError {
    fn from(e: io::Error) -> Self {
        StreamError::Io(e)
    }
}

/// Lines of an index, whole hosts, with their 0-based line numbers.
struct Chunk {
    seq: usize,
    layout: Arc<CdxLayout>,
    /// The lines' bytes, each with its `\n` (or none at the end of input).
    text: Vec<u8>,
    /// (line number, end offset in `text`).
    lines: Vec<(usize, usize)>,
}

/// A chunk's share of the result.
#[derive(Default)]
pub(super) struct ChunkOut {
    pub(super) seq: usize,
    pub(super) rules: Vec<Judgement>,
    pub(super) rejected: Vec<(usize, String)>,
    pub(super) not_200: usize,
    pub(super) redirects: RedirectTally,
    pub(super) records: usize,
    pub(super) unusable: usize,
    pub(super) origins: usize,
    pub(super) stats: OriginStats,
    /// The chunk's origins and the line of each one's first capture.
    pub(super) claimed: Vec<(String, usize)>,
}

/// The host part of an index line's first field: a SURT key up to its
/// `)`, or the authority of a URL (a field that starts with a scheme and
/// `://`, RFC 3986 §3.1); the whole field otherwise.
fn host_of(line: &[u8]) -> &[u8] {
    let field = line.split(|&b| b == b' ').next().unwrap_or_default();
    let scheme = field
        .iter()
        .position(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')))
        .unwrap_or(field.len());
    if scheme > 0 && field[scheme..].starts_with(b"://") {
        let rest = &field[scheme + 3..];
        let end = rest
            .iter()
            .position(|b| matches!(b, b'/' | b'?' | b'#'))
            .unwrap_or(rest.len());
        return &rest[..end];
    }
    match memchr::memchr(b')', field) {
        Some(end) => &field[..=end],
        None => field,
    }
}

/// Origins the claims remember at most: past it they forget the older
/// ones, and the end of the pass ([`Gather::unsorted`]) finds an origin
/// learned in two chunks among every chunk's claims.
/// (A few in the tests, so that both ways of finding it are used.)
const CLAIMS_HELD: usize = if cfg!(test) { 4 } else { 1 << 16 };

/// Which chunk each origin was learned in, for the origins of the chunks
/// learned last; a second chunk is a sign the input is not grouped by host,
/// found early here.
#[derive(Default)]
struct Claims {
    by_origin: Mutex<HashMap<String, usize>>,
    broken: AtomicBool,
    first_broken: Mutex<Option<(usize, String, usize)>>,
}

impl Claims {
    fn claim(&self, origin: &str, seq: usize, line: usize) -> bool {
        let mut m = self.by_origin.lock().unwrap_or_else(|e| e.into_inner());
        match m.get(origin) {
            Some(&s) if s != seq => {
                self.broken.store(true, Ordering::Relaxed);
                let mut f = self.first_broken.lock().unwrap_or_else(|e| e.into_inner());
                if f.as_ref().is_none_or(|x| line < x.0) {
                    *f = Some((line, origin.to_owned(), seq));
                }
                false
            }
            Some(_) => true,
            None => {
                if m.len() >= CLAIMS_HELD {
                    m.clear();
                }
                m.insert(origin.to_owned(), seq);
                true
            }
        }
    }
}

/// Learn the content rules of a CDX/CDXJ index sorted (or at least
/// grouped) by host, in one pass; `progress` is called with the bytes
/// read. Chunks go to the current rayon pool through a queue of twice as
/// many chunks as it has threads. The pooled pass's summaries are held in
/// memory.
pub fn learn_sorted<R: BufRead>(
    r: R,
    format: Format,
    opts: &DigestOptions,
    progress: &mut dyn FnMut(u64),
) -> Result<Learnt, StreamError> {
    learn_sorted_with(r, format, opts, CHUNK_BYTES, None, &in_memory, progress)
}

/// [`learn_sorted`] with chunks of about `chunk_bytes`, the pooled pass's
/// summaries sorted in groupings made by `new`; every line read is also
/// written to `tee` (for input that cannot be read twice: when the pass
/// stops on [`StreamError::Unsorted`], `tee` holds what was read of `r`,
/// and `r` the rest).
pub fn learn_sorted_with<R: BufRead>(
    mut r: R,
    format: Format,
    opts: &DigestOptions,
    chunk_bytes: usize,
    tee: Option<&mut dyn Write>,
    new: &NewGrouping<'_>,
    progress: &mut dyn FnMut(u64),
) -> Result<Learnt, StreamError> {
    let claims = Claims::default();
    let mut gather = Gather::new(PoolPass::new(&opts.thresholds(), new));
    gather.claims = Some(new());
    let gather = Mutex::new(gather);
    let (tx, rx) = mpsc::sync_channel::<Chunk>(2 * rayon::current_num_threads());
    let (workers, read) = std::thread::scope(|s| {
        let (claims, gather) = (&claims, &gather);
        let workers = s.spawn(move || {
            rx.into_iter().par_bridge().for_each(|c| {
                let out = learn_chunk(c, opts, claims);
                // A failed pass stops the reader as a broken claim does.
                if !gather.lock().unwrap_or_else(|e| e.into_inner()).add(out) {
                    claims.broken.store(true, Ordering::Relaxed);
                }
            })
        });
        let read = cut_chunks(
            &mut r,
            format,
            chunk_bytes,
            &tx,
            &claims.broken,
            tee,
            progress,
        );
        drop(tx);
        (workers.join(), read)
    });
    read?;
    if let Err(p) = workers {
        std::panic::resume_unwind(p)
    }
    let mut gather = gather.into_inner().unwrap_or_else(|e| e.into_inner());
    if let Some(e) = gather.failed {
        return Err(StreamError::Io(e));
    }
    let broken = match claims.first_broken.into_inner().unwrap_or(None) {
        Some((line, origin, _)) => Some((line, origin)),
        None => gather.unsorted()?,
    };
    if let Some((line, origin)) = broken {
        return Err(StreamError::Unsorted {
            origin,
            line: line + 1,
        });
    }
    Ok(gather.finish()?)
}

/// The reading thread: lines into chunks that end at a host boundary.
fn cut_chunks<R: BufRead>(
    r: &mut R,
    format: Format,
    chunk_bytes: usize,
    tx: &mpsc::SyncSender<Chunk>,
    stop: &AtomicBool,
    mut tee: Option<&mut dyn Write>,
    progress: &mut dyn FnMut(u64),
) -> io::Result<()> {
    let mut layout = Arc::new(CdxLayout::new(format));
    let fresh = |seq, layout: &Arc<CdxLayout>| Chunk {
        seq,
        layout: Arc::clone(layout),
        text: Vec::with_capacity(chunk_bytes.min(CHUNK_BYTES) + 4096),
        lines: Vec::new(),
    };
    let mut chunk = fresh(0, &layout);
    let mut host: Vec<u8> = Vec::new();
    let mut i = 0;
    loop {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        // Read the line straight into the chunk; it moves to the next
        // chunk when it starts a host there.
        let start = chunk.text.len();
        let n = r.read_until(b'\n', &mut chunk.text)?;
        if n == 0 {
            break;
        }
        progress(n as u64);
        let line = &chunk.text[start..];
        if let Some(t) = &mut tee {
            t.write_all(line)?;
        }
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        // A header changes how the lines after it are read: it starts a
        // chunk of its own layout.
        let bare = match i {
            0 => line.strip_prefix("\u{FEFF}".as_bytes()).unwrap_or(line),
            _ => line,
        };
        if format == Format::Cdx && bare.starts_with(b" CDX ") {
            let mut l = (*layout).clone();
            let text = String::from_utf8_lossy(line);
            if matches!(index_line(&mut l, i, &text), IndexLine::Skip) {
                chunk.text.truncate(start);
                layout = Arc::new(l);
                if chunk.lines.is_empty() {
                    chunk.layout = Arc::clone(&layout);
                } else {
                    let next = fresh(chunk.seq + 1, &layout);
                    send(tx, std::mem::replace(&mut chunk, next));
                }
                i += 1;
                continue;
            }
        }
        let h = host_of(line);
        if h != host.as_slice() {
            host.clear();
            host.extend_from_slice(h);
            if start >= chunk_bytes {
                let mut next = fresh(chunk.seq + 1, &layout);
                next.text.extend_from_slice(&chunk.text[start..]);
                chunk.text.truncate(start);
                send(tx, std::mem::replace(&mut chunk, next));
            }
        }
        chunk.lines.push((i, chunk.text.len()));
        i += 1;
    }
    if !chunk.lines.is_empty() {
        send(tx, chunk);
    }
    Ok(())
}

fn send(tx: &mpsc::SyncSender<Chunk>, c: Chunk) {
    // The workers only hang up when they panicked; the panic is raised
    // when they are joined.
    let _ = tx.send(c);
}

/// Origins in the order of their first capture, found by name.
#[derive(Default)]
struct Origins {
    list: Vec<Origin>,
    /// Line of each origin's first capture.
    first_line: Vec<usize>,
    index: HashMap<String, usize>,
    last: Option<usize>,
}

impl Origins {
    /// Add a capture of `url` (its key parts) to its origin.
    fn push(&mut self, url: &str, digest: &str, ts: Option<&str>, line: usize) -> bool {
        let Some(k) = url_key(url) else {
            return false;
        };
        let Some(parts) = split_key(&k) else {
            return false;
        };
        let at = match self.last {
            Some(l) if parts.is_origin(&self.list[l].origin) => l,
            _ => {
                let o = parts.origin();
                let at = match self.index.get(&o) {
                    Some(&at) => at,
                    None => {
                        self.list.push(Origin::new(o.clone()));
                        self.first_line.push(line);
                        self.index.insert(o, self.list.len() - 1);
                        self.list.len() - 1
                    }
                };
                self.last = Some(at);
                at
            }
        };
        let time = ts.and_then(timestamp_secs);
        self.list[at].push(parts.path, parts.query, digest, time);
        true
    }
}

fn learn_chunk(c: Chunk, opts: &DigestOptions, claims: &Claims) -> ChunkOut {
    let mut out = ChunkOut {
        seq: c.seq,
        ..ChunkOut::default()
    };
    if claims.broken.load(Ordering::Relaxed) {
        return out;
    }
    let mut layout = (*c.layout).clone();
    let mut origins = Origins::default();
    let mut start = 0;
    let mut redirects = Vec::new();
    for &(i, end) in &c.lines {
        let bytes = &c.text[start..end];
        start = end;
        let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
        let line = match simdutf8::basic::from_utf8(bytes) {
            Ok(s) => Cow::Borrowed(s),
            Err(_) => String::from_utf8_lossy(bytes),
        };
        let kind = index_line(&mut layout, i, &line);
        let rec = kind.capture(i, &mut out.rejected, &mut out.not_200, &mut redirects);
        for (from, to) in redirects.drain(..) {
            out.redirects.add(&from, &to);
        }
        if let Some(rec) = rec {
            out.records += 1;
            let digest = rec.digest.as_deref().unwrap_or_default();
            if !origins.push(&rec.url, digest, rec.timestamp.as_deref(), i) {
                out.unusable += 1;
            }
        }
    }
    let t = opts.thresholds();
    for (o, &line) in origins.list.iter().zip(&origins.first_line) {
        if !claims.claim(&o.origin, c.seq, line) {
            return out;
        }
        out.claimed.push((o.origin.clone(), line));
    }
    for o in &origins.list {
        let (rules, stats) = o.judge_all(&t);
        out.rules.extend(rules);
        out.stats = out.stats.plus(stats);
    }
    out.origins = origins.list.len();
    out
}

/// A chunk's number and rejected lines.
type ChunkLines = (usize, Vec<(usize, String)>);

/// The chunks' figures summed as they come, in any order, their verdicts
/// pushed to the pooled pass.
pub(super) struct Gather<'n> {
    l: Learnt,
    pass: PoolPass<'n>,
    /// Each chunk's rejected lines, by chunk.
    lines: Vec<ChunkLines>,
    /// Why the pass could not go on.
    pub(super) failed: Option<io::Error>,
    /// Every chunk's origins (a streaming pass's; see [`Claims`]): the
    /// origin, its chunk and the line of its first capture there.
    claims: Option<Box<dyn Grouping + Send>>,
}

impl<'n> Gather<'n> {
    pub(super) fn new(pass: PoolPass<'n>) -> Self {
        Gather {
            l: Learnt::default(),
            pass,
            lines: Vec::new(),
            failed: None,
            claims: None,
        }
    }

    /// An origin learned in two chunks, if any: the line of its first
    /// capture in the later chunk, the earliest such line.
    fn unsorted(&mut self) -> io::Result<Option<(usize, String)>> {
        let Some(mut g) = self.claims.take() else {
            return Ok(None);
        };
        let mut first: Option<(usize, String)> = None;
        let mut last: Option<Vec<u8>> = None;
        g.drain(&mut |origin, payload| {
            let again = last.as_deref() == Some(origin);
            if again {
                let line = usize::try_from(get_varint(&mut &payload[..]).unwrap_or(0))
                    .unwrap_or(usize::MAX);
                if first.as_ref().is_none_or(|f| line < f.0) {
                    first = Some((line, String::from_utf8_lossy(origin).into_owned()));
                }
            } else {
                last = Some(origin.to_vec());
            }
            Ok(())
        })?;
        Ok(first)
    }

    /// Add a chunk's share; `false` once the pass failed.
    pub(super) fn add(&mut self, o: ChunkOut) -> bool {
        if self.failed.is_some() {
            return false;
        }
        if let Err(e) = o.rules.iter().try_for_each(|j| self.pass.push(j)) {
            self.failed = Some(e);
            return false;
        }
        if let Some(g) = &mut self.claims {
            let mut line = Vec::new();
            for (origin, l) in &o.claimed {
                line.clear();
                put_varint(&mut line, *l as u64);
                let seq = (o.seq as u64).to_be_bytes();
                if let Err(e) = g.push(origin.as_bytes(), &seq, &line) {
                    self.failed = Some(e);
                    return false;
                }
            }
        }
        if !o.rejected.is_empty() {
            self.lines.push((o.seq, o.rejected));
        }
        self.l.redirects.merge(&o.redirects);
        let l = &mut self.l;
        l.not_200 += o.not_200;
        l.records += o.records;
        l.unusable += o.unusable;
        l.origins += o.origins;
        l.stats = l.stats.plus(o.stats);
        true
    }

    /// The second pass over every origin's verdicts ([`PoolPass`]).
    pub(super) fn finish(mut self) -> io::Result<Learnt> {
        if let Some(e) = self.failed {
            return Err(e);
        }
        self.lines.sort_unstable_by_key(|x| x.0);
        for (_, rejected) in self.lines {
            self.l.rejected.extend(rejected);
        }
        (self.l.rules, self.l.pooled) = self.pass.finish()?;
        Ok(self.l)
    }
}

/// A reader that reports the bytes read.
pub(super) struct Counted<'p, R>(pub(super) R, pub(super) &'p mut dyn FnMut(u64));

impl<R: io::Read> io::Read for Counted<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.0.read(buf)?;
        (self.1)(n as u64);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Counted<'_, R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.0.fill_buf()
    }

    fn consume(&mut self, n: usize) {
        (self.1)(n as u64);
        self.0.consume(n);
    }
}

#[cfg(test)]
mod tests;
