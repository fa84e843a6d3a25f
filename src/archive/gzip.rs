//! A WARC file as a stream of bytes: gzip members (RFC 1952 §2.2, one
//! member per record as ISO 28500 Annex D recommends) decompressed one
//! after the other, each member's offset in the file known, so that a
//! record is named by the offset a WARC index (CDX) gives for it.
//!
//! The member header (§2.3.1) and trailer (CRC-32 and ISIZE, checked) are
//! read here. A member's DEFLATE data (RFC 1951) is first decoded whole by
//! libdeflate, straight into the caller's buffer: a WARC's members are
//! mostly small, and per member libdeflate builds its Huffman tables and
//! decodes in about half the instructions of zlib. That result is taken
//! only when the whole member was in the input buffer and its CRC-32 and
//! ISIZE match; anything else (a member larger than [`LOOKAHEAD`] or than
//! the caller's buffer, damaged, truncated) is decoded again from its start
//! by a streaming raw DEFLATE decompressor (zlib-rs, reset for every
//! member), so what is read and every error are the streaming decoder's:
//! such a member costs one partial libdeflate pass more. The one
//! difference: a member zlib refuses that libdeflate decodes (libdeflate
//! also takes 287–288 length and 31–32 distance codes and a few incomplete
//! codes, none of which an encoder writes) is accepted when its CRC-32 and
//! size match.

use std::io::{self, Read};
use std::ptr::NonNull;

use flate2::{Decompress, FlushDecompress, Status};

/// The input buffer's size.
const INPUT: usize = 1 << 20;
/// Compressed bytes in the input buffer when a member starts (unless the
/// file ends first): members up to this size are decoded whole. Less than
/// `INPUT`, so the buffer is refilled and its rest moved to the front only
/// every `INPUT - LOOKAHEAD` bytes or so.
const LOOKAHEAD: usize = 256 << 10;

/// The input bytes: a buffer that can be topped up without consuming what
/// is in it, so a whole member can be handed to the decoder.
struct Input<R> {
    inner: R,
    buf: Box<[u8]>,
    start: usize,
    end: usize,
    /// Bytes read from the file.
    read: u64,
    /// The file has ended.
    eof: bool,
    /// A read error met while topping up, given to the next read that
    /// needs more bytes: bytes before it are decoded first.
    error: Option<io::Error>,
}

impl<R: Read> Input<R> {
    fn new(inner: R) -> Self {
        Input {
            inner,
            buf: vec![0; INPUT].into_boxed_slice(),
            start: 0,
            end: 0,
            read: 0,
            eof: false,
            error: None,
        }
    }

    fn avail(&self) -> &[u8] {
        &self.buf[self.start..self.end]
    }

    fn consume(&mut self, n: usize) {
        self.start += n;
    }

    /// The file offset of the next unconsumed byte.
    fn offset(&self) -> u64 {
        self.read - (self.end - self.start) as u64
    }

    /// Reads once into the room after `end`.
    fn read_more(&mut self) -> io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        loop {
            match self.inner.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(());
                }
                Ok(n) => {
                    self.end += n;
                    self.read += n as u64;
                    return Ok(());
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// Unconsumed bytes, read from the file if there are none (empty at
    /// the end of the file).
    fn fill(&mut self) -> io::Result<&[u8]> {
        if self.start == self.end && !self.eof {
            self.start = 0;
            self.end = 0;
            self.read_more()?;
        }
        Ok(self.avail())
    }

    /// At least `want` unconsumed bytes (at most the buffer's size), unless
    /// the file ends or a read fails first (the error is kept for later).
    fn top_up(&mut self, want: usize) {
        let want = want.min(self.buf.len());
        while self.end - self.start < want && !self.eof && self.error.is_none() {
            if self.end == self.buf.len() {
                self.buf.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.start = 0;
            }
            if let Err(e) = self.read_more() {
                self.error = Some(e);
            }
        }
    }
}

/// libdeflate's decompressor (`libdeflate_deflate_decompress_ex`): one
/// whole raw DEFLATE stream from a buffer into a buffer.
struct Whole(NonNull<libdeflate_sys::libdeflate_decompressor>);

// SAFETY: the decompressor is plain heap memory with no tie to the thread
// that made it; `&mut self` keeps its use to one thread at a time.
unsafe impl Send for Whole {}

impl Whole {
    fn new() -> Self {
        // SAFETY: no arguments; the result is checked for null.
        let p = unsafe { libdeflate_sys::libdeflate_alloc_decompressor() };
        match NonNull::new(p) {
            Some(p) => Whole(p),
            None => std::alloc::handle_alloc_error(std::alloc::Layout::new::<[u8; 1 << 15]>()),
        }
    }

    /// The DEFLATE stream at the start of `input` decoded into `out`:
    /// (input bytes used, output bytes), or `None` if it is invalid,
    /// needs more input than `input`, or does not fit in `out`.
    fn inflate(&mut self, input: &[u8], out: &mut [u8]) -> Option<(usize, usize)> {
        let (mut used, mut n) = (0, 0);
        // SAFETY: the pointers and lengths are those of live slices, and
        // libdeflate reads only `input` and writes only `out`.
        let r = unsafe {
            libdeflate_sys::libdeflate_deflate_decompress_ex(
                self.0.as_ptr(),
                input.as_ptr().cast(),
                input.len(),
                out.as_mut_ptr().cast(),
                out.len(),
                &mut used,
                &mut n,
            )
        };
        (r == libdeflate_sys::libdeflate_result_LIBDEFLATE_SUCCESS).then_some((used, n))
    }
}

impl Drop for Whole {
    fn drop(&mut self) {
        // SAFETY: allocated by `libdeflate_alloc_decompressor`, freed once.
        unsafe { libdeflate_sys::libdeflate_free_decompressor(self.0.as_ptr()) }
    }
}

/// Where the reader is in a file of gzip members.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Not compressed: the bytes as they are.
    Plain,
    /// Within a member's DEFLATE data, decoded by the streaming decoder.
    Member,
    /// Between members.
    Between,
    /// After an error: the file ends there.
    Failed,
}

/// The decompressed bytes of a WARC file, gzip members or plain, with the
/// file offset of the member being read ([`Members::member_offset`]).
pub struct Members<R> {
    r: Input<R>,
    state: State,
    whole: Whole,
    /// Members are tried whole first (off only to test the streaming path
    /// against it).
    whole_first: bool,
    inflate: Decompress,
    /// CRC-32 of the member's bytes so far (`crc32fast`: a carry-less
    /// multiply kernel where the CPU has one).
    crc: crc32fast::Hasher,
    /// The member's size so far, modulo 2³² (ISIZE).
    size: u32,
    /// The file offset of the current member (or, plain, of the next byte).
    member: u64,
    /// Decompressed bytes handed out.
    out: u64,
}

impl<R: Read> Members<R> {
    /// Gzip members if the bytes start with the gzip magic, else plain.
    pub fn new(inner: R) -> io::Result<Self> {
        let mut r = Input::new(inner);
        r.top_up(2);
        if let Some(e) = r.error.take() {
            return Err(e);
        }
        let gz = r.avail().starts_with(&[0x1f, 0x8b]);
        Ok(Members {
            r,
            state: if gz { State::Between } else { State::Plain },
            whole: Whole::new(),
            whole_first: true,
            inflate: Decompress::new(false),
            crc: crc32fast::Hasher::new(),
            size: 0,
            member: 0,
            out: 0,
        })
    }

    /// As [`Members::new`], every member read by the streaming decoder:
    /// the reference the whole-member path is tested against.
    #[cfg(any(test, fuzzing))]
    #[doc(hidden)]
    pub fn streaming(inner: R) -> io::Result<Self> {
        Ok(Members {
            whole_first: false,
            ..Members::new(inner)?
        })
    }

    /// Everything the reader gives with reads of `size` bytes: the bytes,
    /// each read's member offset, and the error that ended it (what tests
    /// compare with [`Members::streaming`]'s).
    #[cfg(any(test, fuzzing))]
    #[doc(hidden)]
    pub fn read_all(mut self, size: usize) -> (Vec<u8>, Vec<u64>, Option<String>) {
        let (mut out, mut at, mut buf) = (Vec::new(), Vec::new(), vec![0u8; size]);
        loop {
            match self.read(&mut buf) {
                Ok(0) => return (out, at, None),
                Ok(n) => {
                    out.extend_from_slice(&buf[..n]);
                    at.push(self.member_offset());
                }
                Err(e) => return (out, at, Some(e.to_string())),
            }
        }
    }

    /// Whether the input is gzip members.
    pub fn compressed(&self) -> bool {
        self.state != State::Plain
    }

    /// The file offset of the gzip member the last byte read came from (of
    /// a plain file, that byte's offset).
    pub fn member_offset(&self) -> u64 {
        self.member
    }

    /// Decompressed bytes read so far.
    pub fn position(&self) -> u64 {
        self.out
    }

    fn error(&mut self, kind: io::ErrorKind, what: &str) -> io::Error {
        self.state = State::Failed;
        io::Error::new(
            kind,
            format!("{what} in the gzip member at offset {}", self.member),
        )
    }

    /// `n` bytes of the member's header or trailer.
    fn take<const N: usize>(&mut self, what: &str) -> io::Result<[u8; N]> {
        self.r.top_up(N);
        if let Some(b) = self.r.avail().get(..N) {
            let b = b.try_into().expect("N bytes");
            self.r.consume(N);
            return Ok(b);
        }
        if let Some(e) = self.r.error.take() {
            self.state = State::Failed;
            return Err(e);
        }
        Err(self.error(io::ErrorKind::UnexpectedEof, &format!("truncated {what}")))
    }

    /// A zero-terminated header field (FNAME, FCOMMENT).
    fn skip_zstring(&mut self) -> io::Result<()> {
        loop {
            let [b] = self.take::<1>("header")?;
            if b == 0 {
                return Ok(());
            }
        }
    }

    /// RFC 1952 §2.3.1: ID1 ID2 CM FLG MTIME XFL OS, then the optional
    /// FEXTRA, FNAME, FCOMMENT and FHCRC fields.
    fn header(&mut self) -> io::Result<()> {
        let h = self.take::<10>("header")?;
        if h[..3] != [0x1f, 0x8b, 8] || h[3] & 0xe0 != 0 {
            return Err(self.error(io::ErrorKind::InvalidData, "invalid header"));
        }
        let flags = h[3];
        if flags & 4 != 0 {
            let xlen = u16::from_le_bytes(self.take::<2>("header")?);
            for _ in 0..xlen {
                self.take::<1>("header")?;
            }
        }
        if flags & 8 != 0 {
            self.skip_zstring()?;
        }
        if flags & 16 != 0 {
            self.skip_zstring()?;
        }
        if flags & 2 != 0 {
            self.take::<2>("header")?;
        }
        Ok(())
    }

    /// RFC 1952 §2.3.1: CRC-32 and ISIZE (the size modulo 2³²).
    fn trailer(&mut self) -> io::Result<()> {
        let t = self.take::<8>("trailer")?;
        if !trailer_matches(t, self.crc.clone().finalize(), self.size) {
            return Err(self.error(io::ErrorKind::InvalidData, "CRC or size mismatch"));
        }
        Ok(())
    }

    /// The member whose DEFLATE data starts the input, decoded whole into
    /// `buf` with its trailer checked and consumed: its size, or `None`
    /// (nothing consumed) if the streaming decoder must read it.
    /// Members up to [`LOOKAHEAD`] bytes are in it whole.
    fn whole_member(&mut self, buf: &mut [u8]) -> Option<usize> {
        if !self.whole_first {
            return None;
        }
        self.r.top_up(LOOKAHEAD);
        let input = self.r.avail();
        let (used, n) = self.whole.inflate(input, buf)?;
        let t: [u8; 8] = input.get(used..used + 8)?.try_into().expect("8 bytes");
        if !trailer_matches(t, crc32fast::hash(&buf[..n]), n as u32) {
            return None;
        }
        self.r.consume(used + 8);
        Some(n)
    }
}

/// Whether a trailer holds this CRC-32 and size (modulo 2³²).
fn trailer_matches(t: [u8; 8], crc: u32, size: u32) -> bool {
    u32::from_le_bytes([t[0], t[1], t[2], t[3]]) == crc
        && u32::from_le_bytes([t[4], t[5], t[6], t[7]]) == size
}

impl<R: Read> Read for Members<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            match self.state {
                State::Failed => return Ok(0),
                State::Plain => {
                    self.member = self.r.offset();
                    let input = self.r.fill()?;
                    let n = input.len().min(buf.len());
                    buf[..n].copy_from_slice(&input[..n]);
                    self.r.consume(n);
                    self.out += n as u64;
                    return Ok(n);
                }
                State::Between => {
                    if self.r.fill()?.is_empty() {
                        return Ok(0);
                    }
                    self.member = self.r.offset();
                    self.header()?;
                    if let Some(n) = self.whole_member(buf) {
                        self.out += n as u64;
                        if n > 0 {
                            return Ok(n);
                        }
                    } else {
                        self.inflate.reset(false);
                        self.crc.reset();
                        self.size = 0;
                        self.state = State::Member;
                    }
                }
                State::Member => {
                    let input = match self.r.fill() {
                        Ok(i) => i,
                        Err(e) => {
                            self.state = State::Failed;
                            return Err(e);
                        }
                    };
                    let at_end = input.is_empty();
                    let (in0, out0) = (self.inflate.total_in(), self.inflate.total_out());
                    let status = self
                        .inflate
                        .decompress(input, buf, FlushDecompress::None)
                        .map_err(|e| self.error(io::ErrorKind::InvalidData, &e.to_string()))?;
                    let used = (self.inflate.total_in() - in0) as usize;
                    let n = (self.inflate.total_out() - out0) as usize;
                    self.r.consume(used);
                    self.crc.update(&buf[..n]);
                    self.size = self.size.wrapping_add(n as u32);
                    self.out += n as u64;
                    if status == Status::StreamEnd {
                        self.trailer()?;
                        self.state = State::Between;
                    } else if n == 0 && (at_end || used == 0) {
                        return Err(self.error(io::ErrorKind::UnexpectedEof, "truncated data"));
                    }
                    if n > 0 {
                        return Ok(n);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn members_are_read_in_order_and_their_offsets_known() {
        let (a, b) = (gz(b"first "), gz(b"second"));
        let mut file = a.clone();
        file.extend_from_slice(&b);
        let mut m = Members::new(&file[..]).unwrap();
        assert!(m.compressed());
        let mut buf = [0u8; 6];
        m.read_exact(&mut buf).unwrap();
        assert_eq!((&buf, m.member_offset()), (b"first ", 0));
        m.read_exact(&mut buf).unwrap();
        assert_eq!((&buf, m.member_offset()), (b"second", a.len() as u64));
        assert_eq!(m.read(&mut buf).unwrap(), 0);
    }

    #[test]
    fn a_truncated_member_is_an_error_not_an_end() {
        let a = gz(b"some record bytes that are cut");
        let mut m = Members::new(&a[..a.len() - 6]).unwrap();
        let mut out = Vec::new();
        assert!(m.read_to_end(&mut out).is_err());
    }

    /// Found by the `warc` fuzz target: short members whose last one is
    /// cut, read through the WARC reader, whose refills move the buffer
    /// under a record's header. The reader ends, with every record counted.
    #[test]
    fn cut_members_under_the_warc_reader_end() {
        let mut file = Vec::new();
        for part in [&b"\n;"[..], b"\n", b";", b"\n"] {
            file.extend(gz(part));
        }
        file.truncate(file.len() * 63 / 64);
        let mut r = crate::archive::WarcReader::new(&file[..], 1985).unwrap();
        let mut n = 0;
        while !matches!(r.next_record(), crate::archive::Next::End) {
            n += 1;
            assert!(n <= file.len());
        }
    }

    /// Bytes that do not compress (an xorshift generator).
    fn noise(n: usize, mut x: u64) -> Vec<u8> {
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect()
    }

    /// A member larger than the lookahead, and reads smaller than a member,
    /// go to the streaming decoder: the same bytes at the same offsets.
    #[test]
    fn big_members_and_small_reads_are_read_as_by_the_streaming_decoder() {
        let big = noise(LOOKAHEAD + 300_000, 7);
        let mut file = gz(b"WARC/1.0 first");
        file.extend(gz(&big));
        file.extend(gz(b""));
        file.extend(gz(&b"a small one ".repeat(500)));
        for size in [1, 1000, 70_000, 4 << 20] {
            let whole = Members::new(&file[..]).unwrap().read_all(size);
            assert_eq!(whole, Members::streaming(&file[..]).unwrap().read_all(size));
            assert_eq!(whole.0.len(), 14 + big.len() + 6000);
            assert_eq!(whole.2, None);
        }
    }

    /// A damaged member: the bytes before it, then the streaming decoder's
    /// error (its reason and the member's offset).
    #[test]
    fn damaged_members_end_with_the_streaming_decoders_error() {
        let mut file = gz(&b"first member, intact ".repeat(50));
        let second = file.len();
        file.extend(gz(&noise(3000, 3)));
        file.extend(gz(&b"third member ".repeat(80)));
        let mut errors = 0;
        for at in (second..file.len()).step_by(7) {
            for flip in [0x01, 0x40, 0xff] {
                let mut bad = file.clone();
                bad[at] ^= flip;
                for size in [100, 1 << 20] {
                    let whole = Members::new(&bad[..]).unwrap().read_all(size);
                    let streaming = Members::streaming(&bad[..]).unwrap().read_all(size);
                    assert_eq!(whole, streaming, "byte {at} ^ {flip:#x}, reads of {size}");
                    errors += usize::from(whole.2.is_some());
                }
            }
        }
        assert!(errors > 100);
        let cut = &file[..file.len() - 3];
        let whole = Members::new(cut).unwrap().read_all(1 << 20);
        assert_eq!(whole, Members::streaming(cut).unwrap().read_all(1 << 20));
        assert!(whole.2.unwrap().contains("truncated trailer"));
    }

    /// A read that fails: the members before it are read, then the error.
    #[test]
    fn a_read_error_comes_after_the_members_before_it() {
        struct Failing(Vec<u8>, usize);
        impl Read for Failing {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                if self.1 == self.0.len() {
                    return Err(io::Error::other("disk on fire"));
                }
                let n = buf.len().min(self.0.len() - self.1).min(5000);
                buf[..n].copy_from_slice(&self.0[self.1..self.1 + n]);
                self.1 += n;
                Ok(n)
            }
        }
        let mut file = Vec::new();
        for i in 0..20 {
            file.extend(gz(format!("member {i} ").repeat(100).as_bytes()));
        }
        let whole = Members::new(Failing(file.clone(), 0))
            .unwrap()
            .read_all(1 << 16);
        let streaming = Members::streaming(Failing(file, 0))
            .unwrap()
            .read_all(1 << 16);
        assert_eq!(whole, streaming);
        assert!(whole.0.ends_with(b"member 19 "));
        assert_eq!(whole.2.as_deref(), Some("disk on fire"));
    }

    #[test]
    fn plain_bytes_pass_through() {
        let mut m = Members::new(&b"WARC/1.0\r\n"[..]).unwrap();
        let mut out = Vec::new();
        m.read_to_end(&mut out).unwrap();
        assert!(!m.compressed());
        assert_eq!(out, b"WARC/1.0\r\n");
    }
}
