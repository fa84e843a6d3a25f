//! The shapes of an input ([`Format`]) and the records read from one: CSV/TSV
//! records (RFC 4180, the `csv` crate) with the columns that hold the
//! reference and its base and the physical line each starts on, and the
//! field layout a CDX/CDXJ input declares in its header line.
//!
//! A quoted CSV field may hold newlines, so records are parsed sequentially
//! on the reader thread ([`super::reader`]) and handed over in batches.

use std::io::{self, Read};

use csv::ByteRecord;

use crate::batch::RunError;
use crate::cdx::{CdxLayout, Format as CdxFormat};

/// How an input is cut into units.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Format {
    /// One reference per line (LF or CRLF).
    Lines,
    Records(RecordFormat),
    /// Web-archive index lines ([`crate::cdx`]): read as lines, the
    /// reference of each is its record's original URL.
    Cdx(CdxFormat),
}

/// CSV/TSV input: which fields hold the reference and its base.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordFormat {
    pub delimiter: u8,
    /// The first record is a header (names the columns).
    pub header: bool,
    pub column: Column,
    pub base_column: Option<Column>,
}

/// A column, by header name or 0-based index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Column {
    Index(usize),
    Name(String),
}

impl std::fmt::Display for Column {
    /// As the user wrote it: the name, or the 1-based index.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Column::Index(i) => write!(f, "{}", i + 1),
            Column::Name(n) => f.write_str(n),
        }
    }
}

impl Column {
    /// `cut`-style: only digits is a 1-based index, anything else a name.
    pub fn parse(spec: &str) -> Result<Column, RunError> {
        if !spec.is_empty() && spec.bytes().all(|b| b.is_ascii_digit()) {
            return match spec.parse::<usize>() {
                Ok(n) if n >= 1 => Ok(Column::Index(n - 1)),
                _ => Err(RunError::msg(format!(
                    "column index {spec} out of range (indexes are 1-based)"
                ))),
            };
        }
        Ok(Column::Name(spec.to_owned()))
    }

    /// The 0-based index in a file whose first record is `first` (its
    /// header, if `header`): a name must be in the header and an index
    /// within the record, otherwise the run cannot mean anything.
    pub(super) fn resolve(
        &self,
        first: Option<&ByteRecord>,
        header: bool,
        file: &str,
    ) -> Result<usize, RunError> {
        match self {
            Column::Index(i) => match first {
                Some(r) if *i >= r.len() => Err(RunError::msg(format!(
                    "column {} is beyond the {} fields of {}'s first {}",
                    i + 1,
                    r.len(),
                    file,
                    if header { "row (its header)" } else { "row" }
                ))),
                _ => Ok(*i),
            },
            Column::Name(n) if !header => Err(RunError::msg(format!(
                "column {n:?} given by name, but the input has no header: give its 1-based index"
            ))),
            Column::Name(n) => first
                .and_then(|h| h.iter().position(|f| f == n.as_bytes()))
                .ok_or_else(|| RunError::msg(format!("no column {n:?} in the header of {file}"))),
        }
    }
}

/// Records per batch of CSV/TSV input.
pub const RECORDS_PER_BATCH: usize = 1 << 14;

/// One CSV/TSV record and the 1-based physical line it starts on.
#[derive(Debug, Clone)]
pub struct Rec {
    pub rec: ByteRecord,
    pub line: u64,
    /// The input ended inside this record's last field, a quoted one whose
    /// closing quote never came (RFC 4180 §2 rule 5): the field holds the
    /// rest of the input, and the record is rejected as such.
    pub unterminated: bool,
}

/// The columns of one CSV/TSV input.
#[derive(Debug, Clone)]
pub struct Layout {
    /// The header record, if the input has one.
    pub header: Option<ByteRecord>,
    pub column: usize,
    pub base_column: Option<usize>,
    /// The columns as the user named them (for messages).
    pub names: (Column, Option<Column>),
    /// Fields of the header (or, without one, of the first record): every
    /// record written back is padded with empty fields to this width.
    pub width: usize,
    pub delimiter: u8,
}

impl Layout {
    /// A layout for records read without a header, naming the columns by
    /// their 1-based index (for programs that parse the records
    /// themselves: the fuzz targets).
    #[cfg(fuzzing)]
    pub fn by_index(column: usize, base_column: Option<usize>, delimiter: u8) -> Layout {
        Layout {
            header: None,
            column,
            base_column,
            names: (Column::Index(column), base_column.map(Column::Index)),
            width: 0,
            delimiter,
        }
    }
}

/// The newlines read so far that lie beyond the last record asked about
/// (shared by a [`CountingReader`] and its consumer): offset, and whether a
/// CR precedes it.
#[derive(Clone, Default)]
pub(super) struct NewlineLog(std::rc::Rc<std::cell::RefCell<NewlineState>>);

#[derive(Default)]
struct NewlineState {
    pending: std::collections::VecDeque<(u64, bool)>,
    before: u64,
    last_byte: u8,
    /// The last byte read that is not CR or LF.
    last_text_byte: u8,
}

impl NewlineLog {
    /// 1-based physical line on which the record read from `offset` starts;
    /// offsets must be asked in increasing order (records are). The csv
    /// crate gives the offset where it started reading, before the blank
    /// lines it skips: those are skipped here too.
    pub(super) fn line_of(&self, mut offset: u64) -> u64 {
        let mut g = self.0.borrow_mut();
        let st = &mut *g;
        while let Some(&(nl, cr)) = st.pending.front() {
            let blank = nl == offset || (cr && nl == offset + 1);
            if nl >= offset && !blank {
                break;
            }
            if blank {
                offset = nl + 1;
            }
            st.pending.pop_front();
            st.before += 1;
        }
        st.before + 1
    }

    /// Whether the last byte read before the final line terminators is a
    /// `"`: at the end of an input, a record whose last field holds a
    /// newline ends with the closing quote, or its quote was never closed.
    pub(super) fn ends_with_quote(&self) -> bool {
        self.0.borrow().last_text_byte == b'"'
    }
}

/// A reader that logs the offset of every `\n` that passes through it.
pub(super) struct CountingReader<R> {
    pub(super) inner: R,
    pub(super) pos: u64,
    pub(super) log: NewlineLog,
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let mut g = self.log.0.borrow_mut();
        for i in memchr::memchr_iter(b'\n', &buf[..n]) {
            let prev = if i > 0 { buf[i - 1] } else { g.last_byte };
            g.pending.push_back((self.pos + i as u64, prev == b'\r'));
        }
        if n > 0 {
            g.last_byte = buf[n - 1];
            if let Some(&b) = buf[..n].iter().rev().find(|&&b| b != b'\n' && b != b'\r') {
                g.last_text_byte = b;
            }
        }
        self.pos += n as u64;
        Ok(n)
    }
}

/// A CDX or CDXJ input: its field layout (from its ` CDX …` header, else
/// CDX11) and the header line as written, if it has one. The header is not
/// a record: it is not in the batches (which start at physical line 2) and
/// not counted.
#[derive(Debug, Clone)]
pub struct CdxInput {
    pub layout: CdxLayout,
    pub header: Option<String>,
}

/// The layout of a CDX/CDXJ input whose first batch is `first`, and the
/// length of its header line (with its `\n`; 0 if none). A header that
/// names no original-URL field is an error of the run: no record of that
/// input could mean anything.
pub(super) fn cdx_start(
    f: CdxFormat,
    first: &[u8],
    name: &str,
) -> Result<(CdxInput, usize), RunError> {
    let mut layout = CdxLayout::new(f);
    let end = memchr::memchr(b'\n', first).map_or(first.len(), |i| i + 1);
    let line = &first[..end];
    if f != CdxFormat::Cdx || !line.starts_with(b" CDX ") {
        return Ok((
            CdxInput {
                layout,
                header: None,
            },
            0,
        ));
    }
    let text = String::from_utf8_lossy(line);
    let text = text.trim_end_matches(['\n', '\r']);
    layout
        .header(text)
        .map_err(|e| RunError::msg(format!("{name}: {e}")))?;
    let header = Some(text.to_owned());
    Ok((CdxInput { layout, header }, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cdx_header_is_taken_from_the_first_line_only() {
        let data = b" CDX a b\r\nhttp://a/ 2024\n CDX b a\n";
        let (c, n) = cdx_start(CdxFormat::Cdx, data, "x").unwrap();
        assert_eq!(n, 10);
        assert_eq!(c.header.as_deref(), Some(" CDX a b"));
        assert_eq!(c.layout.record("http://a/ 2024").unwrap().url, "http://a/");
        // CDXJ has no header; a plain first line is a record.
        assert_eq!(cdx_start(CdxFormat::Cdxj, data, "x").unwrap().1, 0);
        let (c, n) = cdx_start(CdxFormat::Cdx, b"k 1 http://a/", "x").unwrap();
        assert_eq!((n, c.header), (0, None));
        let e = cdx_start(CdxFormat::Cdx, b" CDX N b\n", "in.cdx").unwrap_err();
        assert!(e.to_string().starts_with("in.cdx: "), "{e}");
    }
}
