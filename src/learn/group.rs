//! The digest learner on captures in any order (CSV, TSV, an index not
//! sorted by host; 3987bis §5.3.4 evidence at crawl scale): the captures
//! are grouped by origin first, through a [`Grouping`] — in memory here,
//! or the batch engine's sorted runs on disk within a memory budget
//! (`batch::SpillGroups`) — then streamed an origin at a time into the
//! learner of [`stream`](super::stream), on the rayon pool.
//!
//! Within an origin the captures reach the learner in the order of a
//! sorted index: an index line's own bytes (`LC_ALL=C sort` order, the
//! order of a CDX/CDXJ index sorted by SURT key), a CSV/TSV record's
//! fields. So the rules are those of the sorted index on the same lines,
//! whatever the input order, the memory budget or the number of threads.
//! Memory: what the grouping holds, plus a few origins being learned.

use std::io::{self, BufRead};
use std::sync::{mpsc, Mutex};

use rayon::prelude::*;

use super::cluster::Origin;
use super::digest::{split_key, url_key, DigestOptions};
use super::pool::{NewGrouping, PoolPass};
use super::records::{for_each_delimited, index_line, timestamp_secs, DigestFormat};
use super::stream::{ChunkOut, Counted, Gather, Learnt, CHUNK_BYTES};
use crate::cdx::{CdxLayout, Format};

use super::grouping::{get_str, get_varint, put_bytes, put_varint};
pub use super::grouping::{Each, Grouping, InMemory};

/// A capture as the grouping carries it: path, query (length + 1, 0 for
/// none), digest, time (1 and its zigzag varint, 0 for none).
fn put_capture(b: &mut Vec<u8>, path: &str, query: Option<&str>, digest: &str, time: Option<i64>) {
    put_bytes(b, path.as_bytes());
    match query {
        None => put_varint(b, 0),
        Some(q) => {
            put_varint(b, q.len() as u64 + 1);
            b.extend_from_slice(q.as_bytes());
        }
    }
    put_bytes(b, digest.as_bytes());
    match time {
        None => put_varint(b, 0),
        Some(t) => {
            put_varint(b, 1);
            put_varint(b, ((t << 1) ^ (t >> 63)) as u64);
        }
    }
}

type Capture<'a> = (&'a str, Option<&'a str>, &'a str, Option<i64>);

fn get_capture<'a>(b: &mut &'a [u8]) -> Option<Capture<'a>> {
    let path = get_str(b)?;
    let query = match get_varint(b)? {
        0 => None,
        n => {
            let n = usize::try_from(n - 1).ok()?;
            if b.len() < n {
                return None;
            }
            let (s, rest) = b.split_at(n);
            *b = rest;
            Some(std::str::from_utf8(s).ok()?)
        }
    };
    let digest = get_str(b)?;
    let time = match get_varint(b)? {
        0 => None,
        1 => {
            let z = get_varint(b)?;
            Some((z >> 1) as i64 ^ -((z & 1) as i64))
        }
        _ => return None,
    };
    Some((path, query, digest, time))
}

/// Phase one: the captures read, tallied, and pushed to the grouping.
struct Reader<'g> {
    grouping: &'g mut dyn Grouping,
    learnt: Learnt,
    records: usize,
    unusable: usize,
    payload: Vec<u8>,
}

impl Reader<'_> {
    fn capture(&mut self, url: &str, digest: &str, ts: Option<&str>, key: &[u8]) -> io::Result<()> {
        self.records += 1;
        let k = url_key(url);
        let Some(parts) = k.as_deref().and_then(split_key) else {
            self.unusable += 1;
            return Ok(());
        };
        let time = ts.and_then(timestamp_secs);
        self.payload.clear();
        put_capture(&mut self.payload, parts.path, parts.query, digest, time);
        self.grouping
            .push(parts.origin().as_bytes(), key, &self.payload)
    }
}

/// How far [`learn_unsorted`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// More bytes of the input were read.
    Read(u64),
    /// Everything was read: this many usable captures are grouped, to be
    /// learned.
    Grouped(u64),
    /// This many more captures reached the learner.
    Learned(u64),
}

/// Learn the content rules of captures in any order, grouped through
/// `grouping` (see the module documentation), the pooled pass's summaries
/// sorted in groupings made by `new`; `progress` is told how far it is.
/// The rules are those of [`learn_sorted`](super::stream::learn_sorted)
/// on the same lines sorted.
pub fn learn_unsorted<R: BufRead>(
    r: R,
    format: DigestFormat,
    opts: &DigestOptions,
    grouping: &mut dyn Grouping,
    new: &NewGrouping<'_>,
    progress: &mut dyn FnMut(Step),
) -> io::Result<Learnt> {
    let mut rd = Reader {
        grouping,
        learnt: Learnt::default(),
        records: 0,
        unusable: 0,
        payload: Vec::new(),
    };
    let mut read = |n| progress(Step::Read(n));
    let mut r = Counted(r, &mut read);
    match format {
        DigestFormat::Cdx | DigestFormat::Cdxj => {
            let f = if format == DigestFormat::Cdx {
                Format::Cdx
            } else {
                Format::Cdxj
            };
            let mut layout = CdxLayout::new(f);
            let (mut buf, mut redirects) = (Vec::new(), Vec::new());
            let mut i = 0;
            loop {
                buf.clear();
                if r.read_until(b'\n', &mut buf)? == 0 {
                    break;
                }
                let bytes = buf.strip_suffix(b"\n").unwrap_or(&buf);
                let line = String::from_utf8_lossy(bytes);
                let l = &mut rd.learnt;
                let kind = index_line(&mut layout, i, &line);
                let rec = kind.capture(i, &mut l.rejected, &mut l.not_200, &mut redirects);
                for (from, to) in redirects.drain(..) {
                    l.redirects.add(&from, &to);
                }
                if let Some(rec) = rec {
                    let d = rec.digest.as_deref().unwrap_or_default();
                    rd.capture(&rec.url, d, rec.timestamp.as_deref(), bytes)?;
                }
                i += 1;
            }
        }
        DigestFormat::Csv | DigestFormat::Tsv => {
            let sep = if format == DigestFormat::Csv {
                b','
            } else {
                b'\t'
            };
            let mut failed = None;
            let mut rejected = Vec::new();
            let mut key = Vec::new();
            for_each_delimited(r, sep, &mut rejected, |rec| {
                if failed.is_some() {
                    return;
                }
                key.clear();
                put_bytes(&mut key, rec.url.as_bytes());
                put_bytes(&mut key, rec.digest.as_bytes());
                put_bytes(&mut key, rec.timestamp.as_deref().unwrap_or("").as_bytes());
                let ts = rec.timestamp.as_deref();
                if let Err(e) = rd.capture(&rec.url, &rec.digest, ts, &key) {
                    failed = Some(e);
                }
            })?;
            if let Some(e) = failed {
                return Err(e);
            }
            rd.learnt.rejected = rejected;
        }
    }
    let Reader {
        grouping,
        learnt: read,
        records,
        unusable,
        ..
    } = rd;
    progress(Step::Grouped((records - unusable) as u64));
    let learned = &mut |n| progress(Step::Learned(n));
    let mut l = learn_grouped_origins(grouping, opts, new, learned)?;
    l.rejected = read.rejected;
    l.not_200 = read.not_200;
    l.redirects = read.redirects;
    l.records = records;
    l.unusable = unusable;
    Ok(l)
}

/// Whole origins of grouped captures, for a worker.
struct Batch {
    seq: usize,
    /// The captures of the origins, one after the other.
    bytes: Vec<u8>,
    /// Each origin and where its captures end in `bytes`.
    origins: Vec<(String, usize)>,
}

/// Phase two: the grouping drained an origin at a time into batches of
/// about [`CHUNK_BYTES`], learned on the rayon pool.
fn learn_grouped_origins(
    grouping: &mut dyn Grouping,
    opts: &DigestOptions,
    new: &NewGrouping<'_>,
    learned: &mut dyn FnMut(u64),
) -> io::Result<Learnt> {
    let gather = Mutex::new(Gather::new(PoolPass::new(&opts.thresholds(), new)));
    let (tx, rx) = mpsc::sync_channel::<Batch>(2 * rayon::current_num_threads());
    let fresh = |seq| Batch {
        seq,
        bytes: Vec::with_capacity(CHUNK_BYTES + 4096),
        origins: Vec::new(),
    };
    let (workers, drained) = std::thread::scope(|s| {
        let gather = &gather;
        let workers = s.spawn(move || {
            rx.into_iter().par_bridge().for_each(|b| {
                let out = learn_batch(b, opts);
                gather.lock().unwrap_or_else(|e| e.into_inner()).add(out);
            })
        });
        let mut batch = fresh(0);
        let mut held = 0;
        let drained = grouping.drain(&mut |origin, payload| {
            held += 1;
            let same = batch
                .origins
                .last()
                .is_some_and(|(o, _)| o.as_bytes() == origin);
            if !same {
                if batch.bytes.len() >= CHUNK_BYTES {
                    // A failed pooled pass stops the drain; its error is
                    // the one returned.
                    if gather
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .failed
                        .is_some()
                    {
                        return Err(io::Error::other("the pooled pass failed"));
                    }
                    let next = fresh(batch.seq + 1);
                    // The workers only hang up when they panicked; the
                    // panic is raised when they are joined.
                    let _ = tx.send(std::mem::replace(&mut batch, next));
                    learned(std::mem::take(&mut held));
                }
                let o = String::from_utf8_lossy(origin).into_owned();
                batch.origins.push((o, batch.bytes.len()));
            }
            batch.bytes.extend_from_slice(payload);
            if let Some(last) = batch.origins.last_mut() {
                last.1 = batch.bytes.len();
            }
            Ok(())
        });
        if !batch.origins.is_empty() {
            let _ = tx.send(batch);
            learned(held);
        }
        drop(tx);
        (workers.join(), drained)
    });
    if let Err(p) = workers {
        std::panic::resume_unwind(p)
    }
    let gather = gather.into_inner().unwrap_or_else(|e| e.into_inner());
    if gather.failed.is_none() {
        drained?;
    }
    let l = gather.finish()?;
    if l.unusable > 0 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "a grouped capture could not be decoded",
        ));
    }
    Ok(l)
}

fn learn_batch(b: Batch, opts: &DigestOptions) -> ChunkOut {
    let mut out = ChunkOut {
        seq: b.seq,
        ..ChunkOut::default()
    };
    let t = opts.thresholds();
    let mut start = 0;
    for (name, end) in b.origins {
        let mut o = Origin::new(name);
        let mut caps = &b.bytes[start..end];
        start = end;
        while !caps.is_empty() {
            let Some((path, query, digest, time)) = get_capture(&mut caps) else {
                out.unusable += 1;
                break;
            };
            o.push(path, query, digest, time);
        }
        let (rules, stats) = o.judge_all(&t);
        out.rules.extend(rules);
        out.stats = out.stats.plus(stats);
        out.origins += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn captures_round_trip() {
        let cases: [Capture<'_>; 4] = [
            ("/", None, "D", None),
            ("/a/b", Some(""), "", Some(0)),
            ("/x", Some("q=1&r"), "sha1:ABC", Some(-1_234_567_890)),
            ("/é", Some("é=ü"), "d", Some(i64::MIN)),
        ];
        let mut b = Vec::new();
        for c in cases {
            put_capture(&mut b, c.0, c.1, c.2, c.3);
        }
        let mut s = b.as_slice();
        for c in cases {
            assert_eq!(get_capture(&mut s), Some(c));
        }
        assert!(s.is_empty());
        assert_eq!(get_capture(&mut &b[..3]), None);
    }
}
