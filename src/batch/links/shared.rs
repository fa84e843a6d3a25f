//! What a links run's reader thread and workers share: the graph's kind,
//! the counters of records and links, and the rejects — held up to a
//! limit, then sorted and spilled to an unlinked temporary file, merged in
//! input order (file, record, link) at the end, so that millions of bad
//! links stay within a bounded memory.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::{self, BufRead, BufReader, BufWriter, Seek, Write};
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Mutex;

/// Page or host edges.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Graph {
    #[default]
    Pages,
    /// Host edges, hosts named as Common Crawl's host graph names them.
    /// The key function must give URIs or IRIs (not SURTs).
    Hosts,
}

/// A link or a record that was not turned into an edge, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkReject {
    /// Index of the input.
    pub file: usize,
    /// 1-based record number in the input.
    pub record: u64,
    /// The record's offset (gzip member or byte; 0 for CSV/TSV).
    pub offset: u64,
    /// 1-based number of the link in its record; 0: the whole record.
    pub link: u64,
    /// The link's path (`A@/href`); empty for a record.
    pub path: String,
    /// The link as written; for a record, the start of its line.
    pub input: String,
    pub reason: String,
}

impl LinkReject {
    pub(super) fn record(file: usize, record: u64, offset: u64, reason: String) -> LinkReject {
        LinkReject {
            file,
            record,
            offset,
            link: 0,
            path: String::new(),
            input: String::new(),
            reason,
        }
    }
}

/// `\` → `\\`, tab → `\t`, LF → `\n`, CR → `\r`.
pub fn escape(out: &mut Vec<u8>, s: &[u8]) {
    for &b in s {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            _ => out.push(b),
        }
    }
}

/// The inverse of [`escape`].
pub fn unescape(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.contains('\\') {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some(o) => out.push(o),
            None => {}
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The rejects of a run: the latest in memory, the others in sorted runs.
#[derive(Default)]
pub(super) struct Rejects {
    held: Vec<LinkReject>,
    /// Sorted runs, each an unlinked temporary file.
    runs: Vec<std::fs::File>,
    /// Where runs go (`None`: the system's temporary directory).
    dir: Option<PathBuf>,
    /// Rejects held before a spill (0: no spill).
    limit: usize,
    /// The first spill that failed: the run fails with it at the end.
    error: Option<io::Error>,
}

fn order(r: &LinkReject) -> (usize, u64, u64) {
    (r.file, r.record, r.link)
}

impl Rejects {
    pub(super) fn new(dir: Option<PathBuf>, limit: usize) -> Rejects {
        Rejects {
            dir,
            limit: limit.max(1),
            ..Rejects::default()
        }
    }

    fn push(&mut self, r: LinkReject) {
        self.held.push(r);
        if self.limit > 0 && self.held.len() >= self.limit && self.error.is_none() {
            if let Err(e) = self.spill() {
                self.error = Some(e);
            }
        }
    }

    /// The held rejects, sorted, to a new run.
    fn spill(&mut self) -> io::Result<()> {
        self.held.sort_by_key(order);
        let file = crate::batch::cleanup::unnamed_temp_file(self.dir.as_deref())?;
        let mut w = BufWriter::new(file);
        let mut line = Vec::new();
        for r in self.held.drain(..) {
            line.clear();
            let nums = format!("{}\t{}\t{}\t{}\t", r.file, r.record, r.offset, r.link);
            line.extend_from_slice(nums.as_bytes());
            for (i, f) in [&r.path, &r.input, &r.reason].into_iter().enumerate() {
                if i > 0 {
                    line.push(b'\t');
                }
                escape(&mut line, f.as_bytes());
            }
            line.push(b'\n');
            w.write_all(&line)?;
        }
        let mut file = w.into_inner().map_err(|e| e.into_error())?;
        file.rewind()?;
        self.runs.push(file);
        Ok(())
    }

    /// Every reject in input order (file, record, link; equal keys in the
    /// order they came), to `f`.
    pub(super) fn drain(
        mut self,
        f: &mut dyn FnMut(&LinkReject) -> Result<(), crate::batch::RunError>,
    ) -> Result<(), crate::batch::RunError> {
        let io_err =
            |e: &io::Error| crate::batch::RunError::io("cannot spill link rejects".into(), e);
        if let Some(e) = &self.error {
            return Err(io_err(e));
        }
        self.held.sort_by_key(order);
        if self.runs.is_empty() {
            for r in &self.held {
                f(r)?;
            }
            return Ok(());
        }
        let mut readers: Vec<_> = self.runs.drain(..).map(BufReader::new).collect();
        let mut held = std::mem::take(&mut self.held).into_iter();
        // The next reject of each run (the held ones last), by key, then
        // run: equal keys leave in the order they came.
        let mut heap = BinaryHeap::new();
        let mut heads: Vec<Option<LinkReject>> = Vec::with_capacity(readers.len() + 1);
        for (i, r) in readers.iter_mut().enumerate() {
            heads.push(read_one(r).map_err(|e| io_err(&e))?);
            if let Some(h) = &heads[i] {
                heap.push(Reverse((order(h), i)));
            }
        }
        heads.push(held.next());
        let last = readers.len();
        if let Some(h) = &heads[last] {
            heap.push(Reverse((order(h), last)));
        }
        while let Some(Reverse((_, i))) = heap.pop() {
            let r = heads[i].take().expect("a head for each entry");
            f(&r)?;
            heads[i] = if i == last {
                held.next()
            } else {
                read_one(&mut readers[i]).map_err(|e| io_err(&e))?
            };
            if let Some(h) = &heads[i] {
                heap.push(Reverse((order(h), i)));
            }
        }
        Ok(())
    }
}

/// The next reject of a run, as [`Rejects::spill`] wrote it.
fn read_one(r: &mut impl BufRead) -> io::Result<Option<LinkReject>> {
    let mut line = String::new();
    if r.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    let bad = || io::Error::new(io::ErrorKind::InvalidData, "a spilled reject is damaged");
    let mut f = line.trim_end_matches('\n').split('\t');
    let mut num = || -> io::Result<u64> { f.next().and_then(|n| n.parse().ok()).ok_or_else(bad) };
    let (file, record, offset, link) = (num()? as usize, num()?, num()?, num()?);
    let mut text =
        || -> io::Result<String> { f.next().map(|t| unescape(t).into_owned()).ok_or_else(bad) };
    Ok(Some(LinkReject {
        file,
        record,
        offset,
        link,
        path: text()?,
        input: text()?,
        reason: text()?,
    }))
}

/// What the reader and the workers share: counters and rejects.
#[derive(Default)]
pub(crate) struct Shared {
    pub(super) rejects: Mutex<Rejects>,
    pub(super) records_rejected: AtomicU64,
    pub(super) pages: AtomicU64,
    pub(super) links: AtomicU64,
    pub(super) accepted: AtomicU64,
    pub(super) rejected: AtomicU64,
    pub(super) dropped: AtomicU64,
    pub(super) bytes_read: AtomicU64,
}

impl Shared {
    pub(super) fn reject(&self, r: LinkReject) {
        if r.link == 0 {
            self.records_rejected.fetch_add(1, Relaxed);
        }
        self.rejects
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(r);
    }
}
