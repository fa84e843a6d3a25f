//! An input as a stream of bytes in the charset of its lines: gzip
//! (multi-member) and zstd decompressed, recognised by their magic bytes;
//! UTF-16 (by its byte-order mark or the declared charset) transcoded to
//! UTF-8; a UTF-8 byte-order mark recognised.

use std::io::{self, Read};

use super::input::{Opened, Origin};
#[cfg(unix)]
use super::pace::readable_within;
use super::pace::Pace;
use crate::batch::RunError;
use crate::decode::{self, Charset, Compression};

/// The UTF-8 byte-order mark, ignored at the start of an input.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// An input as a stream of UTF-8 (or `--encoding`) bytes: decompressed on
/// the fly, UTF-16 transcoded on the fly (`Utf16Reader`); with the charset
/// its lines are then in (`None`: UTF-8; a byte-order mark overrides
/// `charset`).
pub fn open_stream(
    input: Opened,
    charset: Option<Charset>,
) -> Result<(Box<dyn Read + Send>, Option<Charset>), RunError> {
    open_sized(input, charset).map(|s| (s.reader, s.charset))
}

/// An input as [`open_stream`] gives it, the number of bytes it will give
/// if that is known, and what a short read of it means.
pub(super) struct Stream {
    pub(super) reader: Box<dyn Read + Send>,
    pub(super) charset: Option<Charset>,
    /// A regular file's length, when it is read as it is (neither
    /// decompressed nor transcoded); a hint ([`BatchReader::sized`](super::BatchReader::sized)).
    pub(super) size: Option<u64>,
    pub(super) pace: Pace,
}

/// [`open_stream`], with the stream's size if it is known and its pace.
pub(super) fn open_sized(input: Opened, charset: Option<Charset>) -> Result<Stream, RunError> {
    let name = input.name;
    let err = |e: io::Error| RunError::io(format!("cannot read {name}"), &e);
    let (pace, left) = match input.origin {
        Origin::File(left) => (Pace::Whole, Some(left)),
        #[cfg(unix)]
        Origin::Live(fd) => (
            Pace::Live(Box::new(move |wait| readable_within(fd, wait))),
            None,
        ),
        Origin::Reader => (Pace::Unknown, None),
        Origin::Memory(bytes) => (Pace::Whole, Some((*bytes).as_ref().len() as u64)),
    };
    let mut r = input.reader;
    let head = peek(&mut r, 4).map_err(err)?;
    let c = decode::detect_compression(&head);
    let size = left.filter(|_| c == decode::Compression::None);
    let r = io::Cursor::new(head).chain(r);
    let mut r = decompress_reader(r, c).map_err(err)?;
    let head = peek(&mut r, 4).map_err(err)?;
    if let Some(enc) = utf16_of(&head, charset) {
        let r = io::Cursor::new(head).chain(r);
        return Ok(Stream {
            reader: Box::new(Utf16Reader::new(r, enc)),
            charset: None,
            size: None,
            pace,
        });
    }
    let charset = line_charset(&head, charset);
    Ok(Stream {
        reader: Box::new(io::Cursor::new(head).chain(r)),
        charset,
        size,
        pace,
    })
}

/// The UTF-16 encoding of an input starting with `head`, if any: its BOM,
/// else a UTF-16 `charset`.
pub(super) fn utf16_of(
    head: &[u8],
    charset: Option<Charset>,
) -> Option<&'static encoding_rs::Encoding> {
    match decode::sniff_bom(head) {
        Some((enc, _)) if enc == encoding_rs::UTF_8 => None,
        Some((enc, _)) => Some(enc),
        None => charset
            .map(Charset::encoding)
            .filter(|&e| e == encoding_rs::UTF_16LE || e == encoding_rs::UTF_16BE),
    }
}

/// The charset of the lines: `None` for UTF-8 (also with a UTF-8 BOM).
pub(super) fn line_charset(head: &[u8], charset: Option<Charset>) -> Option<Charset> {
    if head.starts_with(BOM) {
        return None;
    }
    charset.filter(|c| !c.is_unicode())
}

/// `r` decompressed as `c` says (gzip: every member, as `zcat` reads it).
fn decompress_reader<'a, R: Read + Send + 'a>(
    r: R,
    c: Compression,
) -> io::Result<Box<dyn Read + Send + 'a>> {
    Ok(match c {
        Compression::None => Box::new(r),
        Compression::Gzip => Box::new(Decompressing {
            inner: flate2::read::MultiGzDecoder::new(r),
            codec: "gzip",
        }),
        Compression::Zstd => Box::new(Decompressing {
            inner: zstd::Decoder::new(r)?,
            codec: "zstd",
        }),
    })
}

/// A decompressor whose errors name its codec: "unexpected end of file"
/// alone does not tell that the gzip data is cut short.
struct Decompressing<R> {
    inner: R,
    codec: &'static str,
}

impl<R: Read> Read for Decompressing<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf).map_err(|e| {
            let what = if e.kind() == io::ErrorKind::UnexpectedEof {
                "the compressed data ends early (a truncated file?)".to_owned()
            } else {
                e.to_string()
            };
            io::Error::new(e.kind(), format!("{} input: {what}", self.codec))
        })
    }
}

/// Reads up to `n` bytes (fewer only at the end of the stream).
fn peek(r: &mut dyn Read, n: usize) -> io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(n);
    r.take(n as u64).read_to_end(&mut head)?;
    Ok(head)
}

/// Transcodes a UTF-16LE/BE stream to UTF-8 as it is read (a leading BOM is
/// removed; no NFC: UTF-16 is already Unicode, 3987bis §3.1). An invalid
/// sequence (unpaired surrogate, odd length) is an error with its byte
/// offset: a UTF-16 input whose framing is broken cannot be cut into lines.
pub struct Utf16Reader<R> {
    inner: R,
    decoder: encoding_rs::Decoder,
    enc: &'static encoding_rs::Encoding,
    raw: Vec<u8>,
    out: Vec<u8>,
    out_pos: usize,
    consumed: u64,
    eof: bool,
}

impl<R: Read> Utf16Reader<R> {
    pub fn new(inner: R, enc: &'static encoding_rs::Encoding) -> Self {
        Utf16Reader {
            inner,
            decoder: enc.new_decoder_with_bom_removal(),
            enc,
            raw: vec![0; 64 << 10],
            out: Vec::new(),
            out_pos: 0,
            consumed: 0,
            eof: false,
        }
    }

    fn fill(&mut self) -> io::Result<()> {
        use encoding_rs::DecoderResult;
        let n = loop {
            match self.inner.read(&mut self.raw) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        };
        let last = n == 0;
        self.eof = last;
        self.out.clear();
        self.out_pos = 0;
        let cap = self
            .decoder
            .max_utf8_buffer_length_without_replacement(n)
            .unwrap_or(n * 3 + 16);
        self.out.resize(cap, 0);
        let (res, read, written) =
            self.decoder
                .decode_to_utf8_without_replacement(&self.raw[..n], &mut self.out, last);
        self.out.truncate(written);
        match res {
            DecoderResult::InputEmpty | DecoderResult::OutputFull => {
                self.consumed += read as u64;
                Ok(())
            }
            DecoderResult::Malformed(bad, after) => {
                let at = self.consumed + read as u64 - u64::from(bad) - u64::from(after);
                Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "invalid {} byte sequence at byte {at}",
                        self.enc.name().to_ascii_lowercase()
                    ),
                ))
            }
        }
    }
}

impl<R: Read> Read for Utf16Reader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.out_pos == self.out.len() {
            if self.eof {
                return Ok(0);
            }
            self.fill()?;
        }
        let n = buf.len().min(self.out.len() - self.out_pos);
        buf[..n].copy_from_slice(&self.out[self.out_pos..self.out_pos + n]);
        self.out_pos += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::source::{open_all, Input};

    #[test]
    fn only_a_plain_regular_file_tells_its_size_any_file_is_whole() {
        let dir = tempfile::tempdir().unwrap();
        let text = b"http://a.example/\n".repeat(100);
        let plain = dir.path().join("a.txt");
        std::fs::write(&plain, &text).unwrap();
        let gz = dir.path().join("a.txt.gz");
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        io::Write::write_all(&mut enc, &text).unwrap();
        std::fs::write(&gz, enc.finish().unwrap()).unwrap();
        let utf16 = dir.path().join("a16.txt");
        let wide: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain(text.iter().flat_map(|&b| [b, 0]))
            .collect();
        std::fs::write(&utf16, wide).unwrap();
        let size = |p: &std::path::Path| {
            let opened = open_all(&[Input::Path(p.to_path_buf())]).unwrap();
            let mut s = open_sized(opened.into_iter().next().unwrap(), None).unwrap();
            let mut got = Vec::new();
            s.reader.read_to_end(&mut got).unwrap();
            assert_eq!(got, text);
            // All of a file is there, also when decoded.
            assert!(matches!(s.pace, Pace::Whole));
            s.size
        };
        assert_eq!(size(&plain), Some(text.len() as u64));
        assert_eq!(size(&gz), None);
        assert_eq!(size(&utf16), None);
        let given = Opened::from_reader("-", Box::new(io::Cursor::new(text.clone())));
        let s = open_sized(given, None).unwrap();
        assert!(s.size.is_none() && matches!(s.pace, Pace::Unknown));
        // A pipe (as a path: a FIFO, /dev/stdin) is live.
        #[cfg(unix)]
        {
            use std::fs::File;
            use std::io::Write;
            use std::os::fd::{AsRawFd, OwnedFd};
            let (r, mut w) = io::pipe().unwrap();
            w.write_all(&text).unwrap();
            drop(w);
            let r = File::from(OwnedFd::from(r));
            assert!(matches!(Origin::of(&r), Origin::Live(fd) if fd == r.as_raw_fd()));
            let s = open_sized(Opened::file("pipe".into(), r), None).unwrap();
            assert!(s.size.is_none() && matches!(s.pace, Pace::Live(_)));
        }
    }
}
