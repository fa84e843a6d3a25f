//! WARC records (ISO 28500:2017, WARC/1.0 and WARC/1.1 §4–§5) read one
//! after the other from a file of gzip members or plain bytes: a version
//! line, named fields up to an empty line, a block of exactly
//! `Content-Length` bytes, and two CRLFs.
//!
//! The bytes are untrusted. A record that breaks the format (no version
//! line, no or a bad `Content-Length`, a block not followed by CRLF CRLF —
//! a lying `Content-Length` —, a header over [`MAX_HEADER`], a block over
//! the caller's limit, a truncated gzip member) is a [`Next::Reject`] with
//! its reason, number and offset; the reader then looks for the next
//! `WARC/` version line and goes on. Memory is bounded by the largest block
//! allowed: a larger one is skipped, not buffered.

use std::io::{self, Read};

use super::gzip::Members;

/// The most bytes a record's header may have.
pub const MAX_HEADER: usize = 1 << 20;

/// A record's place in its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    /// 1-based number of the record in the file (rejected ones counted).
    pub number: u64,
    /// Offset of the record in the file: of its gzip member in a
    /// compressed file (what a CDX index gives), of its first byte in a
    /// plain one.
    pub offset: u64,
}

/// A WARC record: the fields irinorm reads, and its block.
#[derive(Debug)]
pub struct Record<'a> {
    pub place: Place,
    /// `WARC-Type` (`response`, `metadata`, `request`, …), as written.
    pub warc_type: &'a str,
    /// `WARC-Target-URI`, without the angle brackets of WARC/1.0 drafts.
    pub target_uri: &'a str,
    /// `Content-Type` of the block (`application/http; msgtype=response`,
    /// `application/json`, …).
    pub content_type: &'a str,
    /// The block: `Content-Length` bytes.
    pub block: &'a [u8],
}

/// What the reader found next.
#[derive(Debug)]
pub enum Next<'a> {
    Record(Record<'a>),
    /// A malformed record, skipped.
    Reject {
        place: Place,
        reason: String,
    },
    End,
}

/// Reads WARC records from a file (see the module doc).
pub struct WarcReader<R> {
    src: Members<R>,
    buf: Vec<u8>,
    /// Bytes of `buf` read from the file (the rest is room).
    end: usize,
    /// Consumed bytes of `buf`.
    pos: usize,
    /// Decompressed offset of `buf[0]`.
    base: u64,
    /// (decompressed offset, member offset) where each member's bytes
    /// start in `buf`, oldest first.
    marks: Vec<(u64, u64)>,
    max_block: usize,
    number: u64,
    eof: bool,
    /// A read error ended the file.
    failed: bool,
}

enum Fill {
    Ok,
    Eof,
    Err(io::Error),
}

impl<R: Read> WarcReader<R> {
    /// A reader of `inner` (gzip members or plain bytes) taking blocks of
    /// up to `max_block` bytes.
    pub fn new(inner: R, max_block: usize) -> io::Result<Self> {
        Ok(WarcReader {
            src: Members::new(inner)?,
            buf: Vec::new(),
            end: 0,
            pos: 0,
            base: 0,
            marks: Vec::new(),
            max_block,
            number: 0,
            eof: false,
            failed: false,
        })
    }

    /// Decompressed bytes read from the file so far.
    pub fn bytes_read(&self) -> u64 {
        self.src.position()
    }

    /// At least `want` unconsumed bytes in `buf`, unless the file ends.
    fn fill(&mut self, want: usize) -> Fill {
        while self.end - self.pos < want && !self.eof {
            if self.pos > 0 && self.pos * 2 >= self.end {
                self.buf.copy_within(self.pos..self.end, 0);
                self.end -= self.pos;
                self.base += self.pos as u64;
                self.pos = 0;
                let base = self.base;
                // Keep the last mark at or before the new start.
                let keep = self.marks.iter().rposition(|m| m.0 <= base).unwrap_or(0);
                self.marks.drain(..keep);
            }
            let len = self.end;
            let room = (want - (len - self.pos)).clamp(64 << 10, 4 << 20);
            // Zeroed once: the bytes past `end` are reused, not cleared
            // for every read.
            if self.end < len + room {
                self.buf.resize(len + room, 0);
            }
            match self.src.read(&mut self.buf[len..]) {
                Ok(0) => self.eof = true,
                Ok(n) => {
                    self.end = len + n;
                    let at = self.base + len as u64;
                    let member = if self.src.compressed() {
                        self.src.member_offset()
                    } else {
                        at
                    };
                    if self.marks.last().is_none_or(|m| m.1 != member) {
                        self.marks.push((at, member));
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.eof = true;
                    self.failed = true;
                    return Fill::Err(e);
                }
            }
        }
        if self.end - self.pos >= want {
            Fill::Ok
        } else {
            Fill::Eof
        }
    }

    /// The file offset of the record starting at `buf[at]`.
    fn offset_of(&self, at: usize) -> u64 {
        let d = self.base + at as u64;
        if !self.src.compressed() {
            return d;
        }
        self.marks
            .iter()
            .rev()
            .find(|m| m.0 <= d)
            .map_or(0, |m| m.1)
    }

    /// The next record, reject, or the end.
    pub fn next_record(&mut self) -> Next<'_> {
        // Skip the CRLFs between records (and stray blank lines).
        loop {
            if self.failed {
                return Next::End;
            }
            match self.fill(1) {
                Fill::Ok => {}
                Fill::Eof => return Next::End,
                Fill::Err(e) => return self.reject_here(format!("read error: {e}")),
            }
            let rest = &self.buf[self.pos..self.end];
            let skip = rest
                .iter()
                .position(|&b| b != b'\r' && b != b'\n')
                .unwrap_or(rest.len());
            self.pos += skip;
            if skip < rest.len() {
                break;
            }
        }
        self.number += 1;
        let place = Place {
            number: self.number,
            offset: self.offset_of(self.pos),
        };
        // The header: up to an empty line. The record starts at `self.pos`
        // until it is consumed: a refill may move the bytes (and `pos`) to
        // the front of the buffer, so no index into it outlives a `fill`.
        let header_len = loop {
            let hay = &self.buf[self.pos..self.end];
            if let Some(i) = memchr::memmem::find(hay, b"\r\n\r\n") {
                break i + 4;
            }
            if let Some(i) = memchr::memmem::find(hay, b"\n\n") {
                break i + 2;
            }
            if hay.len() > MAX_HEADER {
                self.pos += 1;
                self.resync();
                return Next::Reject {
                    place,
                    reason: format!("record header longer than {MAX_HEADER} bytes"),
                };
            }
            match self.fill(hay.len() + 1) {
                Fill::Ok => {}
                Fill::Eof => {
                    let got = self.end - self.pos;
                    self.pos = self.end;
                    return Next::Reject {
                        place,
                        reason: format!("truncated record header ({got} bytes, then end of file)"),
                    };
                }
                Fill::Err(e) => {
                    self.pos = self.end;
                    return Next::Reject {
                        place,
                        reason: format!("read error in the record header: {e}"),
                    };
                }
            }
        };
        let start = self.pos;
        let fields = match Fields::parse(&self.buf[start..start + header_len]) {
            Ok(f) => f,
            Err(reason) => {
                self.pos = start + 1;
                self.resync();
                return Next::Reject { place, reason };
            }
        };
        let block_start = start + header_len;
        let len = fields.length;
        if len > self.max_block as u64 {
            // Skipped unread: its bytes never held in memory.
            self.pos = block_start;
            let mut left = len;
            while left > 0 {
                match self.fill(1) {
                    Fill::Ok => {}
                    _ => break,
                }
                let n = left.min((self.end - self.pos) as u64);
                self.pos += n as usize;
                left -= n;
            }
            return Next::Reject {
                place,
                reason: format!(
                    "block of {len} bytes, more than the limit of {} (--max-record-bytes)",
                    self.max_block
                ),
            };
        }
        let len = len as usize;
        let fill = self.fill(header_len + len + 4);
        let (start, block_start) = (self.pos, self.pos + header_len);
        match fill {
            Fill::Ok => {}
            Fill::Eof | Fill::Err(_) if self.end - start >= header_len + len => {
                // A last record whose trailing CRLFs are cut is whole.
            }
            Fill::Eof | Fill::Err(_) => {
                let got = self.end - block_start;
                self.pos = self.end;
                let until = match fill {
                    Fill::Err(e) => format!("a read error: {e}"),
                    _ => "the end of file".to_owned(),
                };
                return Next::Reject {
                    place,
                    reason: format!(
                        "truncated record: Content-Length {len}, {got} bytes before {until}"
                    ),
                };
            }
        }
        let end = block_start + len;
        let tail = &self.buf[end..(end + 4).min(self.end)];
        let trailer_ok = tail == b"\r\n\r\n"
            || (tail.len() < 4 && b"\r\n\r\n".starts_with(tail) && self.eof)
            || tail.starts_with(b"\n\n");
        if !trailer_ok {
            self.pos = block_start;
            self.resync();
            return Next::Reject {
                place,
                reason: format!(
                    "the block is not followed by CRLF CRLF: Content-Length {len} is wrong"
                ),
            };
        }
        self.pos = end;
        let buf = &self.buf;
        let text = |r: Option<std::ops::Range<usize>>| {
            r.and_then(|r| std::str::from_utf8(&buf[start + r.start..start + r.end]).ok())
                .unwrap_or("")
        };
        let mut target_uri = text(fields.target_uri);
        if let Some(t) = target_uri
            .strip_prefix('<')
            .and_then(|t| t.strip_suffix('>'))
        {
            target_uri = t;
        }
        Next::Record(Record {
            place,
            warc_type: text(fields.warc_type),
            target_uri,
            content_type: text(fields.content_type),
            block: &buf[block_start..end],
        })
    }

    /// A reject at the current position for a read error, after which the
    /// file ends.
    fn reject_here(&mut self, reason: String) -> Next<'_> {
        self.number += 1;
        let place = Place {
            number: self.number,
            offset: self.offset_of(self.pos),
        };
        self.pos = self.end;
        Next::Reject { place, reason }
    }

    /// Move `pos` to the next line that starts with `WARC/` (or the end).
    fn resync(&mut self) {
        loop {
            let hay = &self.buf[self.pos..self.end];
            if let Some(i) = memchr::memmem::find(hay, b"\nWARC/") {
                self.pos += i + 1;
                return;
            }
            // Keep the last bytes: the pattern may straddle the refill.
            let keep = hay.len().min(5);
            self.pos = self.end - keep;
            match self.fill(keep + 1) {
                Fill::Ok => {}
                _ => {
                    self.pos = self.end;
                    return;
                }
            }
        }
    }
}

/// The fields of a record's header that irinorm reads (ranges in the
/// header's bytes).
struct Fields {
    length: u64,
    warc_type: Option<std::ops::Range<usize>>,
    target_uri: Option<std::ops::Range<usize>>,
    content_type: Option<std::ops::Range<usize>>,
}

impl Fields {
    /// ISO 28500 §4: `WARC/1.x` CRLF, then `name: value` lines (§5: names
    /// are case-insensitive).
    fn parse(h: &[u8]) -> Result<Fields, String> {
        let mut lines = h.split(|&b| b == b'\n');
        let first = lines.next().unwrap_or_default();
        let version = first.strip_suffix(b"\r").unwrap_or(first);
        if !version.starts_with(b"WARC/") {
            let shown = String::from_utf8_lossy(&version[..version.len().min(40)]).into_owned();
            return Err(format!("not a WARC record: starts with {shown:?}"));
        }
        let mut f = Fields {
            length: 0,
            warc_type: None,
            target_uri: None,
            content_type: None,
        };
        let mut length = None;
        let mut at = first.len() + 1;
        for line in lines {
            let here = at;
            at += line.len() + 1;
            let l = line.strip_suffix(b"\r").unwrap_or(line);
            let Some(colon) = memchr::memchr(b':', l) else {
                continue;
            };
            let name = l[..colon].trim_ascii();
            let value = l[colon + 1..].trim_ascii();
            let v0 = here + (value.as_ptr() as usize - line.as_ptr() as usize);
            let range = Some(v0..v0 + value.len());
            if name.eq_ignore_ascii_case(b"Content-Length") {
                let n = std::str::from_utf8(value)
                    .ok()
                    .filter(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
                    .and_then(|s| s.parse::<u64>().ok());
                match n {
                    Some(n) => length = Some(n),
                    None => {
                        return Err(format!(
                            "bad Content-Length {:?}",
                            String::from_utf8_lossy(&value[..value.len().min(40)])
                        ))
                    }
                }
            } else if name.eq_ignore_ascii_case(b"WARC-Type") {
                f.warc_type = range;
            } else if name.eq_ignore_ascii_case(b"WARC-Target-URI") {
                f.target_uri = range;
            } else if name.eq_ignore_ascii_case(b"Content-Type") {
                f.content_type = range;
            }
        }
        f.length = length.ok_or("no Content-Length field")?;
        Ok(f)
    }
}
