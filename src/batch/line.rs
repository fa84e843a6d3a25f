//! One line (or CSV field) before its key: strip the line terminator,
//! recognise a blank line, enforce the length limit, decode the charset or
//! check UTF-8 — each failure a [`RejectReason`] that goes to the rejects
//! output, never a panic and never a silent drop.
//!
//! Blank means empty or only spaces and tabs (after one trailing CR is
//! removed, so a lone CR of a CRLF file is blank), as bytes or, with a
//! legacy charset, once decoded (an ISO-2022-JP escape sequence alone
//! decodes to nothing). The length limit is
//! checked first: an over-long line is over-long even if it is all spaces.

use std::borrow::Cow;

use super::error::RejectReason;
use super::keyfn::KeyFn;
use super::source::{kept_len, Layout, Rec};
use crate::cdx::CdxLayout;
use crate::decode::Charset;

/// Bytes of an over-long line kept in the `input` column of rejects.
pub const LONG_LINE_PREFIX: usize = 256;

/// The text of one line or field, ready for its key.
#[derive(Debug)]
pub enum LineText<'a> {
    /// Empty or only spaces/tabs (after removing the line terminator).
    Blank,
    /// The reference as UTF-8: borrowed, or transcoded from `--encoding`.
    Text(Cow<'a, str>),
    Reject(RejectReason),
}

/// What became of one line.
#[derive(Debug)]
pub enum Outcome<'a> {
    Blank,
    Key(Cow<'a, str>),
    Reject(RejectReason),
}

/// `line` without one trailing `\r` (CRLF input).
#[inline]
pub fn strip_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Empty, or only spaces and tabs.
#[inline]
pub fn is_blank(line: &[u8]) -> bool {
    line.is_empty()
        || (matches!(line[0], b' ' | b'\t') && line.iter().all(|b| matches!(b, b' ' | b'\t')))
}

/// The per-line checks: `line` is one physical line without its `\n`; a
/// legacy `charset` is transcoded to UTF-8 + NFC
/// (`crate::decode::decode_line`), otherwise the bytes must be UTF-8.
#[inline]
pub fn line_text(line: &[u8], max_line: usize, charset: Option<Charset>) -> LineText<'_> {
    checked_text(line, None, max_line, charset)
}

/// The lines of one chunk, whose UTF-8 is checked once for the whole chunk:
/// lines end at `\n`, so when the chunk is UTF-8 each of its lines is, and
/// the line's text is a slice of the chunk's. A chunk with a bad sequence
/// anywhere checks each line, so the reject still names its line and
/// offset. (Checking each line on its own costs about 150 instructions a
/// line, most of them the call's setup: BENCHMARKS.md, decision log,
/// "Per-line work around the key".)
pub struct ChunkLines<'a> {
    bytes: &'a [u8],
    /// The chunk as text: `None` if it is not all UTF-8, or with `--encoding`.
    text: Option<&'a str>,
    max_line: usize,
    charset: Option<Charset>,
}

impl<'a> ChunkLines<'a> {
    pub fn new(bytes: &'a [u8], max_line: usize, charset: Option<Charset>) -> Self {
        let text = match charset {
            // `simdutf8` checks 32 or 64 bytes per step (AVX2, AVX-512)
            // where `std` goes a word at a time: the whole chunk is checked
            // here, so this is every input byte. Its `basic` flavour only
            // says yes or no; a chunk that fails is checked line by line
            // with `std`, which tells where.
            None => simdutf8::basic::from_utf8(bytes).ok(),
            Some(_) => None,
        };
        ChunkLines {
            bytes,
            text,
            max_line,
            charset,
        }
    }

    /// [`line_text`] of the line at `pos` (from [`super::scan::for_each_line`]
    /// over this chunk).
    #[inline]
    pub fn text(&self, line: &'a [u8], pos: usize) -> LineText<'a> {
        debug_assert!(std::ptr::eq(&self.bytes[pos..pos + line.len()], line));
        // The line (without its CR) starts and ends next to ASCII bytes or
        // the chunk's ends: the slice is on character boundaries.
        let text = self.text.map(|t| &t[pos..pos + strip_cr(line).len()]);
        checked_text(line, text, self.max_line, self.charset)
    }
}

/// [`line_text`], where `text` (if any) is `line` without its CR, already
/// known to be UTF-8.
#[inline(always)]
fn checked_text<'a>(
    line: &'a [u8],
    text: Option<&'a str>,
    max_line: usize,
    charset: Option<Charset>,
) -> LineText<'a> {
    let line = strip_cr(line);
    if line.len() > max_line {
        return LineText::Reject(RejectReason::TooLong { max: max_line });
    }
    if is_blank(line) {
        return LineText::Blank;
    }
    if let Some(t) = text {
        return LineText::Text(Cow::Borrowed(t));
    }
    match decode_text(line, charset) {
        // A legacy charset can decode bytes to nothing: a line that is only
        // an ISO-2022-JP escape sequence (`ESC ( J`) holds no character.
        Ok(t) if charset.is_some() && is_blank(t.as_bytes()) => LineText::Blank,
        Ok(t) => LineText::Text(t),
        Err(r) => LineText::Reject(r),
    }
}

/// `bytes` as UTF-8 text: checked (`None`), or transcoded from `charset`.
pub fn decode_text(bytes: &[u8], charset: Option<Charset>) -> Result<Cow<'_, str>, RejectReason> {
    match charset {
        None => {
            std::str::from_utf8(bytes)
                .map(Cow::Borrowed)
                .map_err(|e| RejectReason::InvalidUtf8 {
                    at: e.valid_up_to(),
                })
        }
        Some(_) => crate::decode::decode_line(bytes, charset).map_err(RejectReason::Decode),
    }
}

/// The key of `text` (borrowing from it where the key function does).
#[inline]
pub fn key_of<'a>(
    text: &Cow<'a, str>,
    base: Option<&str>,
    key: &KeyFn<'_>,
) -> Result<Cow<'a, str>, RejectReason> {
    match text {
        Cow::Borrowed(s) => key(s, base),
        Cow::Owned(s) => key(s, base).map(|k| Cow::Owned(k.into_owned())),
    }
}

/// The reference of a CDX/CDXJ line's text: its record's original URL
/// (`a` / `url`); a malformed record is rejected with the [`crate::cdx`]
/// module's reason.
#[inline]
pub fn cdx_reference<'a>(
    text: &Cow<'a, str>,
    layout: &CdxLayout,
) -> Result<Cow<'a, str>, RejectReason> {
    match text {
        Cow::Borrowed(s) => layout.record(s).map(|r| r.url),
        Cow::Owned(s) => layout.record(s).map(|r| Cow::Owned(r.url.into_owned())),
    }
    .map_err(RejectReason::Other)
}

/// The key of a line's text: of the text itself, or (`cdx`) of its
/// record's original URL.
#[inline]
pub fn line_key<'a>(
    text: &Cow<'a, str>,
    cdx: Option<&CdxLayout>,
    key: &KeyFn<'_>,
) -> Result<Cow<'a, str>, RejectReason> {
    match cdx {
        None => key_of(text, None, key),
        Some(layout) => key_of(&cdx_reference(text, layout)?, None, key),
    }
}

/// `line_text` then `key_of`.
#[inline]
pub fn process_line<'a>(
    line: &'a [u8],
    max_line: usize,
    charset: Option<Charset>,
    key: &KeyFn<'_>,
) -> Outcome<'a> {
    match line_text(line, max_line, charset) {
        LineText::Blank => Outcome::Blank,
        LineText::Reject(r) => Outcome::Reject(r),
        LineText::Text(t) => match key_of(&t, None, key) {
            Ok(k) => Outcome::Key(k),
            Err(r) => Outcome::Reject(r),
        },
    }
}

/// What became of one record.
pub enum RecordKey<'a> {
    Blank,
    /// The key and the record as written (the `example`: its fields joined
    /// by the delimiter, quoted where RFC 4180 needs it; lossy UTF-8).
    Key {
        key: String,
        example: Cow<'a, str>,
    },
    Reject(RejectReason),
}

/// `r` as a line of its input: its fields joined by `delimiter`, each
/// quoted only where RFC 4180 §2 needs it (so a record written without
/// needless quotes reads back byte for byte).
pub fn record_text(r: &Rec, delimiter: u8) -> String {
    let mut out = Vec::with_capacity(r.rec.as_slice().len() + r.rec.len());
    for (i, f) in r.rec.iter().enumerate() {
        if i > 0 {
            out.push(delimiter);
        }
        super::sink::field_with(&mut out, f, delimiter);
    }
    match String::from_utf8(out) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

/// The reject reason of a record with no field at the column named `name`.
fn missing_column(what: &str, name: &super::source::Column, r: &Rec) -> RejectReason {
    RejectReason::Other(format!(
        "{what}row has no column {name} (it has {} field{})",
        r.rec.len(),
        if r.rec.len() == 1 { "" } else { "s" }
    ))
}

/// The key of a CSV/TSV record: its reference field (and its base field),
/// decoded from the charset and keyed. The example (the record as written)
/// is built only when `examples` asks for it; otherwise it is empty.
pub fn record_key<'a>(
    r: &'a Rec,
    layout: &Layout,
    max_line: usize,
    charset: Option<Charset>,
    key: &KeyFn<'_>,
    examples: bool,
) -> RecordKey<'a> {
    if r.unterminated {
        return RecordKey::Reject(RejectReason::Other(format!(
            "unterminated quoted field: the quote opened in the row of line {} is never \
             closed, so the field runs to the end of the input",
            r.line
        )));
    }
    let Some(field) = r.rec.get(layout.column) else {
        return RecordKey::Reject(missing_column("", &layout.names.0, r));
    };
    // With a base, the empty reference is meaningful (the base document).
    let empty_ref = field.is_empty() && layout.base_column.is_some();
    if field.len() > max_line {
        return RecordKey::Reject(RejectReason::TooLong { max: max_line });
    }
    if !empty_ref
        && (is_blank(field)
            || field
                .iter()
                .all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n')))
    {
        return RecordKey::Blank;
    }
    let s = match decode_text(field, charset) {
        Ok(s) => s,
        Err(e) => return RecordKey::Reject(e),
    };
    // As for lines: a field a legacy charset decodes to nothing (or to
    // blanks) is blank, unless it is the empty reference of a row with a base.
    if charset.is_some()
        && !(s.is_empty() && layout.base_column.is_some())
        && s.bytes().all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
    {
        return RecordKey::Blank;
    }
    let base = match layout.base_column {
        None => None,
        Some(bc) => match r.rec.get(bc) {
            None => {
                let name = layout
                    .names
                    .1
                    .clone()
                    .unwrap_or(super::source::Column::Index(bc));
                return RecordKey::Reject(missing_column("invalid base: ", &name, r));
            }
            Some(b) => match decode_text(b, charset) {
                Ok(b) => Some(b),
                Err(e) => {
                    return RecordKey::Reject(RejectReason::Other(format!("invalid base: {e}")))
                }
            },
        },
    };
    match key_of(&s, base.as_deref(), key) {
        Ok(k) => RecordKey::Key {
            key: k.into_owned(),
            example: if examples {
                Cow::Owned(record_text(r, layout.delimiter))
            } else {
                Cow::Borrowed("")
            },
        },
        Err(e) => RecordKey::Reject(e),
    }
}

/// The `input` of a rejected record: its reference field (lossy; an
/// over-long one cut like lines).
pub fn record_reject_text(r: &Rec, layout: &Layout, max_line: usize) -> String {
    reject_input(r.rec.get(layout.column).unwrap_or(b""), max_line).into_owned()
}

/// The `input` column for a rejected line: lossy UTF-8; an over-long line
/// is cut to its first [`LONG_LINE_PREFIX`] bytes followed by `...`.
pub fn reject_input(line: &[u8], max_line: usize) -> Cow<'_, str> {
    let line = strip_cr(&line[..line.len().min(kept_len(max_line))]);
    if line.len() > max_line {
        let mut s = String::from_utf8_lossy(&line[..LONG_LINE_PREFIX.min(line.len())]).into_owned();
        s.push_str("...");
        Cow::Owned(s)
    } else {
        String::from_utf8_lossy(line)
    }
}

/// Line counts. Invariant: `accepted + rejected + blank == lines`.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Stats {
    /// Physical lines (or CSV/TSV records), blank ones included.
    pub lines: u64,
    pub blank: u64,
    pub accepted: u64,
    pub rejected: u64,
    pub bytes: u64,
}

impl Stats {
    pub fn add(&mut self, o: &Stats) {
        self.lines += o.lines;
        self.blank += o.blank;
        self.accepted += o.accepted;
        self.rejected += o.rejected;
        self.bytes += o.bytes;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cdx::Format;

    #[test]
    fn a_chunk_checked_once_gives_each_line_what_a_line_check_gives() {
        let lines: [&[u8]; 12] = [
            b"http://a.example/",
            b"http://m\xc3\xbcnchen.example/\r",
            b"",
            b" \t",
            b"\r",
            b"http://a/\xff",
            b"\xe2\x82",
            b"https://b.example/\xe2\x82\xac",
            b"\xf0\x9f\x98\x80\r",
            b"0123456789abcdef-too-long",
            b"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9",
            b"last-without-newline",
        ];
        // Every window of consecutive lines: chunks that are all UTF-8 and
        // chunks with a bad sequence in one line; with and without a final
        // newline; UTF-8 and a legacy charset.
        for charset in [
            None,
            Some(crate::decode::Charset(encoding_rs::WINDOWS_1252)),
        ] {
            for a in 0..lines.len() {
                for b in a + 1..=lines.len() {
                    for end_nl in [false, true] {
                        let mut chunk = lines[a..b].join(&b'\n');
                        if end_nl {
                            chunk.push(b'\n');
                        }
                        let c = ChunkLines::new(&chunk, 20, charset);
                        crate::batch::scan::for_each_line(&chunk, |line, pos| {
                            let want = format!("{:?}", line_text(line, 20, charset));
                            assert_eq!(format!("{:?}", c.text(line, pos)), want);
                        });
                    }
                }
            }
        }
    }

    #[test]
    fn cdx_reference_borrows_the_url_or_gives_the_reason() {
        let l = CdxLayout::new(Format::Cdx);
        let line = "k 2024 http://a/ m 200 d - - 1 2 f";
        let r = cdx_reference(&Cow::Borrowed(line), &l).unwrap();
        assert!(matches!(r, Cow::Borrowed("http://a/")));
        let r = cdx_reference(&Cow::Owned(line.to_owned()), &l).unwrap();
        assert_eq!(r, "http://a/");
        let e = cdx_reference(&Cow::Borrowed("a b"), &l).unwrap_err();
        assert!(e.to_string().contains("2 fields"), "{e}");
        let j = CdxLayout::new(Format::Cdxj);
        let e = cdx_reference(&Cow::Borrowed("k 2024 {}"), &j).unwrap_err();
        assert!(e.to_string().contains("no \"url\""), "{e}");
    }
}
