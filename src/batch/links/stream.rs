//! The inputs of a links run as the dedup engine reads them: one line per
//! record, so that the engine's line number is the record's number, made
//! on the reader thread. A line holds what the workers need to extract and
//! key the record's links ([`super::edges`]); the heavy parts (JSON, HTML
//! tokenizing, keying) run on the workers, in parallel.
//!
//! ```text
//! W \t file \t record \t offset \t WAT JSON (CR, LF → space)
//! H \t file \t record \t offset \t page \t n \t (path \t url) × n \t HTML as UTF-8
//! C \t file \t record \t 0 \t source \t target \t base
//! (empty line)   a record without links, or a rejected one
//! ```
//!
//! Text fields other than the last are escaped ([`escape`]); the HTML has
//! its CR and LF turned into tabs (whitespace to the tokenizer, removed
//! from URLs by the URL Standard as newlines are, invalid in an IRI as
//! newlines are). A malformed record is reported to [`Shared`] here.

use std::io::{self, Read};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use super::shared::{escape, LinkReject, Shared};
use crate::archive::{self, Next, WarcReader};
use crate::batch::source::Column;

/// How an input's records are read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// WARC or WAT files (gzip members or plain): WAT JSON metadata
    /// records and HTTP response records, whatever the file holds.
    Archive,
    /// CSV or TSV edges: a source, a target and optionally a base column.
    Delimited {
        delimiter: u8,
        header: bool,
        source: Column,
        target: Column,
        base: Option<Column>,
    },
}

/// Counts the raw bytes read from an input (for the progress bar).
struct Counted<R> {
    inner: R,
    shared: Arc<Shared>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.shared.bytes_read.fetch_add(n as u64, Relaxed);
        Ok(n)
    }
}

/// What a [`Lines`] reads records from.
enum Source {
    Archive(Box<WarcReader<Counted<Box<dyn Read + Send>>>>),
    Delimited {
        reader: Box<csv::Reader<Box<dyn Read + Send>>>,
        columns: Option<(usize, usize, Option<usize>)>,
        spec: (Column, Column, Option<Column>),
        header: bool,
        record: u64,
    },
    Failed,
}

/// One input's records as lines (see the module doc), a `Read`er for the
/// engine.
pub struct Lines {
    file: usize,
    source: Source,
    shared: Arc<Shared>,
    line: Vec<u8>,
    at: usize,
    done: bool,
}

impl Lines {
    /// The lines of input number `file`, read from `raw`.
    pub fn new(
        file: usize,
        raw: Box<dyn Read + Send>,
        kind: &Kind,
        max_record: usize,
        shared: Arc<Shared>,
    ) -> Lines {
        let counted = Counted {
            inner: raw,
            shared: shared.clone(),
        };
        let source = match kind {
            Kind::Archive => match WarcReader::new(counted, max_record) {
                Ok(r) => Source::Archive(Box::new(r)),
                Err(e) => {
                    shared.reject(LinkReject::record(file, 1, 0, format!("read error: {e}")));
                    Source::Failed
                }
            },
            Kind::Delimited {
                delimiter,
                header,
                source,
                target,
                base,
            } => {
                // gzip or zstd edges are decompressed as the engine's
                // inputs are.
                let opened = crate::batch::Opened::from_reader("", Box::new(counted));
                let stream = match crate::batch::open_stream(opened, None) {
                    Ok((r, _)) => r,
                    Err(e) => {
                        shared.reject(LinkReject::record(file, 1, 0, e.to_string()));
                        Box::new(io::empty())
                    }
                };
                let reader = csv::ReaderBuilder::new()
                    .delimiter(*delimiter)
                    .has_headers(false)
                    .flexible(true)
                    .from_reader(stream);
                Source::Delimited {
                    reader: Box::new(reader),
                    columns: None,
                    spec: (source.clone(), target.clone(), base.clone()),
                    header: *header,
                    record: 0,
                }
            }
        };
        Lines {
            file,
            source,
            shared,
            line: Vec::with_capacity(1 << 16),
            at: 0,
            done: false,
        }
    }

    /// The next record's line: written into `dst` if it is a WAT line
    /// that fits (`Some(n)`, its bytes), else into `self.line` (`Some(0)`);
    /// `None` at the end.
    fn next_line(&mut self, dst: &mut [u8]) -> Option<usize> {
        self.line.clear();
        self.at = 0;
        let file = self.file;
        match &mut self.source {
            Source::Failed => None,
            Source::Archive(r) => match r.next_record() {
                Next::End => None,
                Next::Reject { place, reason } => {
                    self.shared.reject(LinkReject::record(
                        file,
                        place.number,
                        place.offset,
                        reason,
                    ));
                    self.line.push(b'\n');
                    Some(0)
                }
                Next::Record(rec) => {
                    if archive::is_wat_json(&rec) {
                        if let Some(n) = wat_line_into(dst, file, &rec) {
                            return Some(n);
                        }
                    }
                    archive_line(&mut self.line, file, &rec);
                    self.line.push(b'\n');
                    Some(0)
                }
            },
            Source::Delimited {
                reader,
                columns,
                spec,
                header,
                record,
            } => {
                let mut rec = csv::ByteRecord::new();
                match reader.read_byte_record(&mut rec) {
                    Ok(false) => return None,
                    Ok(true) => {}
                    Err(e) => {
                        *record += 1;
                        self.shared.reject(LinkReject::record(
                            file,
                            *record,
                            0,
                            format!("CSV: {e}"),
                        ));
                        self.line.push(b'\n');
                        return (!matches!(e.kind(), csv::ErrorKind::Io(_))).then_some(0);
                    }
                }
                *record += 1;
                if columns.is_none() {
                    let first = (*header).then_some(&rec);
                    let find = |c: &Column| -> Result<usize, String> {
                        match (c, first) {
                            (Column::Index(i), _) => Ok(*i),
                            (Column::Name(n), Some(h)) => h
                                .iter()
                                .position(|f| f == n.as_bytes())
                                .ok_or_else(|| format!("no column {n:?} in the header")),
                            (Column::Name(n), None) => {
                                Err(format!("column {n:?} named without a header"))
                            }
                        }
                    };
                    let cols = (|| {
                        Ok::<_, String>((
                            find(&spec.0)?,
                            find(&spec.1)?,
                            spec.2.as_ref().map(&find).transpose()?,
                        ))
                    })();
                    match cols {
                        Ok(c) => *columns = Some(c),
                        Err(reason) => {
                            self.shared
                                .reject(LinkReject::record(file, *record, 0, reason));
                            self.source = Source::Failed;
                            return None;
                        }
                    }
                    if *header {
                        self.line.push(b'\n');
                        return Some(0);
                    }
                }
                let (s, t, b) = columns.expect("set above");
                let field = |i: usize| rec.get(i);
                match (field(s), field(t)) {
                    (Some(src), Some(tgt)) => {
                        self.line.extend_from_slice(b"C\t");
                        self.line
                            .extend_from_slice(format!("{file}\t{record}\t0\t").as_bytes());
                        escape(&mut self.line, src);
                        self.line.push(b'\t');
                        escape(&mut self.line, tgt);
                        self.line.push(b'\t');
                        if let Some(base) = b.and_then(field) {
                            escape(&mut self.line, base);
                        }
                    }
                    _ => {
                        let reason = format!("row has no column {} or {}", spec.0, spec.1);
                        self.shared
                            .reject(LinkReject::record(file, *record, 0, reason));
                    }
                }
                self.line.push(b'\n');
                Some(0)
            }
        }
    }
}

/// CR and LF → space (a WAT record's JSON on one line: whitespace
/// between tokens, and never inside a JSON string).
fn unfold(b: &mut [u8]) {
    let mut from = 0;
    while let Some(i) = memchr::memchr2(b'\n', b'\r', &b[from..]) {
        b[from + i] = b' ';
        from += i + 1;
    }
}

/// The line of a WAT JSON record, with its LF, written into `dst` if it
/// fits: its length.
fn wat_line_into(dst: &mut [u8], file: usize, rec: &archive::Record<'_>) -> Option<usize> {
    use std::io::Write;
    let mut cur = io::Cursor::new(&mut *dst);
    write!(
        cur,
        "W\t{file}\t{}\t{}\t",
        rec.place.number, rec.place.offset
    )
    .ok()?;
    let from = cur.position() as usize;
    let end = from + rec.block.len();
    if end >= dst.len() {
        return None;
    }
    dst[from..end].copy_from_slice(rec.block);
    unfold(&mut dst[from..end]);
    dst[end] = b'\n';
    Some(end + 1)
}

/// The line of an archive record (without its LF): `W` for a WAT JSON
/// record, `H` for an HTTP response, nothing for any other.
fn archive_line(out: &mut Vec<u8>, file: usize, rec: &archive::Record<'_>) {
    let head = |out: &mut Vec<u8>, kind: &str| {
        out.extend_from_slice(
            format!(
                "{kind}\t{file}\t{}\t{}\t",
                rec.place.number, rec.place.offset
            )
            .as_bytes(),
        );
    };
    if archive::is_wat_json(rec) {
        head(out, "W");
        let from = out.len();
        out.extend_from_slice(rec.block);
        unfold(&mut out[from..]);
    } else if archive::is_http_response(rec) {
        let Some(resp) = archive::http_response(rec.block) else {
            return;
        };
        let html = archive::is_html(resp.content_type) && (200..300).contains(&resp.status);
        if resp.header_links.is_empty() && !html {
            return;
        }
        head(out, "H");
        escape(out, rec.target_uri.as_bytes());
        out.extend_from_slice(format!("\t{}", resp.header_links.len()).as_bytes());
        for l in &resp.header_links {
            out.push(b'\t');
            escape(out, l.path.as_bytes());
            out.push(b'\t');
            escape(out, l.url.as_bytes());
        }
        out.push(b'\t');
        if html {
            let text = archive::decode_body(resp.content_type, resp.body);
            let from = out.len();
            out.extend_from_slice(text.as_bytes());
            for b in &mut out[from..] {
                if *b == b'\n' || *b == b'\r' {
                    *b = b'\t';
                }
            }
        }
    }
}

impl Read for Lines {
    /// Fills `buf` (a short read only at the end): the engine takes a short
    /// read of a caller's reader for a pause and would end its batch there.
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut n = 0;
        while n < buf.len() {
            if self.at < self.line.len() {
                let k = (buf.len() - n).min(self.line.len() - self.at);
                buf[n..n + k].copy_from_slice(&self.line[self.at..self.at + k]);
                self.at += k;
                n += k;
                continue;
            }
            if self.done {
                break;
            }
            match self.next_line(&mut buf[n..]) {
                Some(k) => n += k,
                None => self.done = true,
            }
        }
        Ok(n)
    }
}
