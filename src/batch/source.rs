//! Input layer: where the bytes of the IRI lists come from.
//!
//! Two access patterns, both behind small types so that later input features
//! (gzip/zstd, charsets, CSV columns) can be slotted in at one place:
//!
//! * [`load`] gives the *whole* input as one byte slice ([`Data`]) — used by
//!   `dedup`, which needs random access to every line until the end (the
//!   `example` column points into it). Regular files are memory-mapped
//!   (memmap2); anything else (stdin, pipes, `/proc` files, or a failed map)
//!   is read into memory.
//! * [`BatchReader`] gives a stream of batches of *complete lines* with
//!   bounded memory — used by `normalize` and `convert`, which must work on
//!   endless stdin.
//!
//! Both drop a UTF-8 byte-order mark at the start of an input, and
//! [`split_chunks`] cuts a buffer into chunks at line ends for the workers.
//!
//! Before either, [`prepare`] (whole inputs) and [`open_stream`] (streams)
//! undo compression and UTF-16: gzip (multi-member) and zstd are recognised
//! by their magic bytes, files and stdin alike, and decompressed (into
//! memory for [`load`], on the fly for a stream); an input with a UTF-16LE/BE
//! byte-order mark, or declared UTF-16 by `--encoding`, is transcoded to
//! UTF-8 as a whole (a UTF-16 input cannot be cut into lines on 0x0A bytes).
//! Both return the charset in which the *lines* are then to be decoded
//! (`None`: UTF-8).

use std::fs::File;
use std::io::{self, Read};
use std::ops::Range;
use std::path::Path;

use crate::cli::CliError;
use crate::decode::{self, Charset, Compression};

/// The UTF-8 byte-order mark, ignored at the start of an input.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The display name of standard input (as in the `first_file` column).
pub const STDIN_NAME: &str = "-";

/// The bytes of one whole input.
pub enum Data {
    /// A memory-mapped regular file.
    Mapped(memmap2::Mmap),
    /// Bytes read into memory (stdin, pipes, empty or unmappable files).
    Owned(Vec<u8>),
}

impl Data {
    /// All bytes, including a BOM if there is one.
    pub fn raw(&self) -> &[u8] {
        match self {
            Data::Mapped(m) => m,
            Data::Owned(v) => v,
        }
    }

    /// The bytes without a leading UTF-8 BOM.
    pub fn bytes(&self) -> &[u8] {
        strip_bom(self.raw())
    }
}

/// `data` without a leading UTF-8 BOM.
pub fn strip_bom(data: &[u8]) -> &[u8] {
    data.strip_prefix(BOM).unwrap_or(data)
}

/// One input as given on the command line, loaded whole.
pub struct Loaded {
    /// The name as given on the command line (`-` for stdin).
    pub name: String,
    pub data: Data,
}

/// Where one input comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Spec {
    Stdin,
    File(std::path::PathBuf),
}

impl Spec {
    /// `-` is stdin, anything else a path.
    pub fn parse(arg: &Path) -> Spec {
        if arg.as_os_str() == "-" {
            Spec::Stdin
        } else {
            Spec::File(arg.to_path_buf())
        }
    }

    /// The inputs of a command line: no argument means stdin.
    pub fn from_args(args: &[std::path::PathBuf]) -> Vec<Spec> {
        if args.is_empty() {
            vec![Spec::Stdin]
        } else {
            args.iter().map(|a| Spec::parse(a)).collect()
        }
    }

    /// The name as given (`-` for stdin).
    pub fn name(&self) -> String {
        match self {
            Spec::Stdin => STDIN_NAME.to_owned(),
            Spec::File(p) => p.display().to_string(),
        }
    }

    /// The size of a regular file (for the progress bar); `None` otherwise.
    pub fn size_hint(&self) -> Option<u64> {
        match self {
            Spec::Stdin => None,
            Spec::File(p) => std::fs::metadata(p)
                .ok()
                .filter(|m| m.is_file())
                .map(|m| m.len()),
        }
    }
}

/// An input opened for reading (files are opened up front, so that a missing
/// file is reported before any work is done).
pub enum Opened {
    Stdin,
    File { name: String, file: File },
}

impl Opened {
    pub fn name(&self) -> String {
        match self {
            Opened::Stdin => STDIN_NAME.to_owned(),
            Opened::File { name, .. } => name.clone(),
        }
    }

    /// A byte stream of this input (for [`BatchReader`]).
    pub fn into_reader(self) -> Box<dyn Read + Send> {
        match self {
            Opened::Stdin => Box::new(io::stdin()),
            Opened::File { file, .. } => Box::new(file),
        }
    }
}

/// Open every input (no reading yet): `cannot open NAME: REASON` on failure.
pub fn open_all(specs: &[Spec]) -> Result<Vec<Opened>, CliError> {
    specs
        .iter()
        .map(|spec| match spec {
            Spec::Stdin => Ok(Opened::Stdin),
            Spec::File(p) => File::open(p)
                .map(|file| Opened::File {
                    name: spec.name(),
                    file,
                })
                .map_err(|e| CliError::io(format!("cannot open {}", p.display()), &e)),
        })
        .collect()
}

/// Load one opened input whole: map a regular file, read anything else.
pub fn load(input: Opened) -> Result<Loaded, CliError> {
    let name = input.name();
    let data = match input {
        Opened::Stdin => {
            let mut v = Vec::new();
            io::stdin()
                .lock()
                .read_to_end(&mut v)
                .map_err(|e| CliError::io("cannot read -".to_owned(), &e))?;
            Data::Owned(v)
        }
        Opened::File { mut file, .. } => {
            let meta = file
                .metadata()
                .map_err(|e| CliError::io(format!("cannot read {name}"), &e))?;
            let mapped = if meta.is_file() && meta.len() > 0 {
                // SAFETY: the map is only ever read, never written, and it
                // lives as long as the `Data` that owns it. What mmap cannot
                // protect against is *another process* changing the file while
                // we run: bytes may then change under us (lines are re-checked
                // as UTF-8 when read, so this gives odd output, not UB in our
                // code), and truncating the file makes later accesses raise
                // SIGBUS, which kills the process. Like ripgrep, we accept
                // that: dedup inputs are data files that nobody edits in place.
                unsafe { memmap2::Mmap::map(&file) }.ok()
            } else {
                None
            };
            match mapped {
                Some(m) => {
                    #[cfg(unix)]
                    {
                        let _ = m.advise(memmap2::Advice::Sequential);
                    }
                    Data::Mapped(m)
                }
                None => {
                    let mut v = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
                    file.read_to_end(&mut v)
                        .map_err(|e| CliError::io(format!("cannot read {name}"), &e))?;
                    Data::Owned(v)
                }
            }
        }
    };
    Ok(Loaded { name, data })
}

/// Decompress `data` if it is gzip or zstd, transcode it if it is UTF-16
/// (BOM, or `charset` UTF-16), and return it with the charset its lines are
/// in (`None`: UTF-8; a byte-order mark overrides `charset`).
pub fn prepare(
    name: &str,
    data: Data,
    charset: Option<Charset>,
) -> Result<(Data, Option<Charset>), CliError> {
    let data = match decode::detect_compression(data.raw()) {
        Compression::None => data,
        c => {
            let mut v = Vec::with_capacity(data.raw().len().saturating_mul(4));
            decompress_reader(data.raw(), c)
                .and_then(|mut r| r.read_to_end(&mut v))
                .map_err(|e| CliError::io(format!("cannot decompress {name}"), &e))?;
            Data::Owned(v)
        }
    };
    match utf16_of(data.raw(), charset) {
        Some(enc) => {
            let v = decode::transcode_utf16_to_utf8(data.raw(), enc)
                .map_err(|e| CliError::msg(format!("cannot decode {name}: {e}")))?;
            Ok((Data::Owned(v), None))
        }
        None => {
            let cs = line_charset(data_head(&data), charset);
            Ok((data, cs))
        }
    }
}

fn data_head(d: &Data) -> &[u8] {
    &d.raw()[..d.raw().len().min(4)]
}

/// The UTF-16 encoding of an input starting with `head`, if any: its BOM,
/// else a UTF-16 `charset`.
fn utf16_of(head: &[u8], charset: Option<Charset>) -> Option<&'static encoding_rs::Encoding> {
    match decode::sniff_bom(head) {
        Some((enc, _)) if enc == encoding_rs::UTF_8 => None,
        Some((enc, _)) => Some(enc),
        None => charset
            .map(Charset::encoding)
            .filter(|&e| e == encoding_rs::UTF_16LE || e == encoding_rs::UTF_16BE),
    }
}

/// The charset of the lines: `None` for UTF-8 (also with a UTF-8 BOM).
fn line_charset(head: &[u8], charset: Option<Charset>) -> Option<Charset> {
    if head.starts_with(BOM) {
        return None;
    }
    charset.filter(|c| !c.is_unicode())
}

fn decompress_reader<'a, R: Read + Send + 'a>(
    r: R,
    c: Compression,
) -> io::Result<Box<dyn Read + Send + 'a>> {
    Ok(match c {
        Compression::None => Box::new(r),
        Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(r)),
        Compression::Zstd => Box::new(zstd::Decoder::new(r)?),
    })
}

/// Reads up to `n` bytes (fewer only at the end of the stream).
fn peek(r: &mut dyn Read, n: usize) -> io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(n);
    r.take(n as u64).read_to_end(&mut head)?;
    Ok(head)
}

/// [`prepare`] for a stream: decompressed on the fly; a UTF-16 input is read
/// whole and transcoded.
pub fn open_stream(
    input: Opened,
    charset: Option<Charset>,
) -> Result<(Box<dyn Read + Send>, Option<Charset>), CliError> {
    let name = input.name();
    let err = |e: io::Error| CliError::io(format!("cannot read {name}"), &e);
    let mut r = input.into_reader();
    let head = peek(&mut r, 4).map_err(err)?;
    let c = decode::detect_compression(&head);
    let r = io::Cursor::new(head).chain(r);
    let mut r = decompress_reader(r, c).map_err(err)?;
    let head = peek(&mut r, 4).map_err(err)?;
    if let Some(enc) = utf16_of(&head, charset) {
        let mut all = head;
        r.read_to_end(&mut all).map_err(err)?;
        let v = decode::transcode_utf16_to_utf8(&all, enc)
            .map_err(|e| CliError::msg(format!("cannot decode {name}: {e}")))?;
        return Ok((Box::new(io::Cursor::new(v)), None));
    }
    let cs = line_charset(&head, charset);
    Ok((Box::new(io::Cursor::new(head).chain(r)), cs))
}

/// Cut `data` into ranges of about `chunk_size` bytes, each ending just after
/// a `'\n'` (or at the end of `data`). Every byte is in exactly one range and
/// the data is scanned only around the nominal boundaries.
pub fn split_chunks(data: &[u8], chunk_size: usize) -> Vec<Range<usize>> {
    let chunk_size = chunk_size.max(1);
    let mut out = Vec::with_capacity(data.len() / chunk_size + 1);
    let mut start = 0;
    while start < data.len() {
        let nominal = start.saturating_add(chunk_size);
        let end = if nominal >= data.len() {
            data.len()
        } else {
            // The byte just before the nominal boundary may itself be the
            // line end; otherwise the chunk extends to the next one.
            match memchr::memchr(b'\n', &data[nominal - 1..]) {
                Some(i) => nominal + i,
                None => data.len(),
            }
        };
        out.push(start..end);
        start = end;
    }
    out
}

/// Calls `f(line, offset)` for each line of `chunk` (without its `'\n'`;
/// a last line without `'\n'` counts) and returns the number of lines.
#[inline]
pub fn for_each_line<'a>(chunk: &'a [u8], mut f: impl FnMut(&'a [u8], usize)) -> u64 {
    let mut pos = 0;
    let mut n = 0;
    for nl in memchr::memchr_iter(b'\n', chunk) {
        f(&chunk[pos..nl], pos);
        pos = nl + 1;
        n += 1;
    }
    if pos < chunk.len() {
        f(&chunk[pos..], pos);
        n += 1;
    }
    n
}

/// Number of lines in a chunk (same rule as [`for_each_line`]).
pub fn count_lines(chunk: &[u8]) -> u64 {
    let nl = memchr::memchr_iter(b'\n', chunk).count() as u64;
    nl + u64::from(chunk.last().is_some_and(|&b| b != b'\n'))
}

/// Reads a stream in batches of complete lines with bounded memory.
///
/// A batch is returned when it reaches the target size, when the source
/// seems to have no more data right now (a short read of less than 64 KiB —
/// so that `tail -f | irinorm normalize` answers promptly), or at the end.
/// A line longer than `max_line` (+2 bytes of slack for `\r`) is cut to that
/// many bytes and the rest of it skipped, so that one endless line cannot
/// exhaust memory; the cut line is still longer than `max_line` and is
/// therefore rejected downstream.
pub struct BatchReader<R> {
    r: R,
    buf: Vec<u8>,
    /// Bytes of `buf` returned by the previous call.
    consumed: usize,
    target: usize,
    keep: usize,
    skipping: bool,
    eof: bool,
    first: bool,
}

impl<R: Read> BatchReader<R> {
    pub fn new(r: R, target: usize, max_line: usize) -> Self {
        BatchReader {
            r,
            buf: Vec::new(),
            consumed: 0,
            target: target.max(1),
            keep: max_line.saturating_add(2),
            skipping: false,
            eof: false,
            first: true,
        }
    }

    /// The next batch of complete lines (the last may lack its `'\n'`), or
    /// `None` at the end of the stream.
    pub fn next_batch(&mut self) -> io::Result<Option<&[u8]>> {
        self.buf.drain(..self.consumed);
        self.consumed = 0;
        loop {
            if self.eof {
                if self.buf.is_empty() {
                    return Ok(None);
                }
                self.strip_first_bom();
                self.consumed = self.buf.len();
                return Ok(Some(&self.buf));
            }
            let old = self.buf.len();
            // At most 1 MiB per read: the spare space is zeroed each time.
            let want = self.target.saturating_sub(old).clamp(64 * 1024, 1 << 20);
            self.buf.resize(old + want, 0);
            let n = loop {
                match self.r.read(&mut self.buf[old..]) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => {
                        self.buf.truncate(old);
                        return Err(e);
                    }
                }
            };
            self.buf.truncate(old + n);
            if n == 0 {
                self.eof = true;
                continue;
            }
            if self.skipping {
                match memchr::memchr(b'\n', &self.buf[old..]) {
                    Some(i) => {
                        self.buf.drain(old..old + i);
                        self.skipping = false;
                    }
                    None => {
                        self.buf.truncate(old);
                        continue;
                    }
                }
            }
            let last_nl = memchr::memrchr(b'\n', &self.buf);
            let tail_start = last_nl.map_or(0, |i| i + 1);
            if self.buf.len() - tail_start > self.keep {
                self.buf.truncate(tail_start + self.keep);
                self.skipping = true;
            }
            if let Some(i) = last_nl {
                let short = n < want && n < 64 * 1024;
                if self.buf.len() >= self.target || short {
                    self.consumed = i + 1;
                    if self.strip_first_bom() {
                        self.consumed -= BOM.len();
                    }
                    return Ok(Some(&self.buf[..self.consumed]));
                }
            }
        }
    }

    fn strip_first_bom(&mut self) -> bool {
        if std::mem::take(&mut self.first) && self.buf.starts_with(BOM) {
            self.buf.drain(..BOM.len());
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_everything_at_line_ends() {
        let data = b"aa\nbbbb\nc\n\ndddddd\ne";
        for size in 1..25 {
            let chunks = split_chunks(data, size);
            let mut pos = 0;
            for c in &chunks {
                assert_eq!(c.start, pos);
                assert!(c.end == data.len() || data[c.end - 1] == b'\n');
                assert!(c.end > c.start);
                pos = c.end;
            }
            assert_eq!(pos, data.len());
        }
        assert!(split_chunks(b"", 4).is_empty());
    }

    #[test]
    fn lines_counted() {
        assert_eq!(count_lines(b""), 0);
        assert_eq!(count_lines(b"\n"), 1);
        assert_eq!(count_lines(b"a\nb"), 2);
        assert_eq!(count_lines(b"a\nb\n"), 2);
        let mut seen = Vec::new();
        let n = for_each_line(b"a\n\nbc", |l, off| seen.push((l.to_vec(), off)));
        assert_eq!(n, 3);
        assert_eq!(
            seen,
            vec![(b"a".to_vec(), 0), (b"".to_vec(), 2), (b"bc".to_vec(), 3)]
        );
    }

    /// A reader returning at most `step` bytes per call.
    struct Trickle<'a>(&'a [u8], usize);
    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.1.min(buf.len()).min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    fn batches(data: &[u8], step: usize, target: usize, max: usize) -> Vec<u8> {
        let mut r = BatchReader::new(Trickle(data, step), target, max);
        let mut out = Vec::new();
        while let Some(b) = r.next_batch().unwrap() {
            let complete = b.last() == Some(&b'\n');
            out.extend_from_slice(b);
            assert!(complete || r.eof);
        }
        out
    }

    #[test]
    fn batches_reassemble_the_stream() {
        let data = b"\xEF\xBB\xBFone\ntwo\r\n\nthree\nfour";
        for step in [1, 2, 3, 7, 100] {
            for target in [1, 5, 1000] {
                assert_eq!(batches(data, step, target, 100), &data[3..]);
            }
        }
    }

    #[test]
    fn long_lines_are_cut() {
        let mut data = b"ok\n".to_vec();
        data.extend_from_slice(&[b'x'; 1000]);
        data.extend_from_slice(b"\nend\n");
        for step in [1, 10, 5000] {
            let out = batches(&data, step, 16, 10);
            let lines: Vec<&[u8]> = out.split(|&b| b == b'\n').collect();
            assert_eq!(lines[0], b"ok");
            // Cut only when the line does not fit in what was read at once.
            assert_eq!(lines[1].len(), if step < 1000 { 12 } else { 1000 });
            assert_eq!(lines[2], b"end");
        }
    }
}
