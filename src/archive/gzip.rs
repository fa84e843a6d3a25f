//! A WARC file as a stream of bytes: gzip members (RFC 1952 §2.2, one
//! member per record as ISO 28500 Annex D recommends) decompressed one
//! after the other, each member's offset in the file known, so that a
//! record is named by the offset a WARC index (CDX) gives for it.
//!
//! The member header (§2.3.1) and trailer (CRC-32 and ISIZE, checked) are
//! read here; one raw DEFLATE decompressor (RFC 1951) is reset for every
//! member instead of a new one made: a WARC has one member per record.

use std::io::{self, BufRead, BufReader, Read};

use flate2::{Decompress, FlushDecompress, Status};

/// Counts the bytes read from the file.
struct Counting<R> {
    inner: R,
    read: u64,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        Ok(n)
    }
}

/// Where the reader is in a file of gzip members.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Not compressed: the bytes as they are.
    Plain,
    /// Within a member's DEFLATE data.
    Member,
    /// Between members.
    Between,
    /// After an error: the file ends there.
    Failed,
}

/// The decompressed bytes of a WARC file, gzip members or plain, with the
/// file offset of the member being read ([`Members::member_offset`]).
pub struct Members<R> {
    r: BufReader<Counting<R>>,
    state: State,
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
        let mut r = BufReader::with_capacity(256 << 10, Counting { inner, read: 0 });
        let gz = r.fill_buf()?.starts_with(&[0x1f, 0x8b]);
        Ok(Members {
            r,
            state: if gz { State::Between } else { State::Plain },
            inflate: Decompress::new(false),
            crc: crc32fast::Hasher::new(),
            size: 0,
            member: 0,
            out: 0,
        })
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

    fn offset(&self) -> u64 {
        self.r.get_ref().read - self.r.buffer().len() as u64
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
        let mut b = [0u8; N];
        match self.r.read_exact(&mut b) {
            Ok(()) => Ok(b),
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
                Err(self.error(io::ErrorKind::UnexpectedEof, &format!("truncated {what}")))
            }
            Err(e) => {
                self.state = State::Failed;
                Err(e)
            }
        }
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
        let crc = u32::from_le_bytes([t[0], t[1], t[2], t[3]]);
        let size = u32::from_le_bytes([t[4], t[5], t[6], t[7]]);
        if crc != self.crc.clone().finalize() || size != self.size {
            return Err(self.error(io::ErrorKind::InvalidData, "CRC or size mismatch"));
        }
        Ok(())
    }
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
                    self.member = self.offset();
                    let n = self.r.read(buf)?;
                    self.out += n as u64;
                    return Ok(n);
                }
                State::Between => {
                    if self.r.fill_buf()?.is_empty() {
                        return Ok(0);
                    }
                    self.member = self.offset();
                    self.header()?;
                    self.inflate.reset(false);
                    self.crc.reset();
                    self.size = 0;
                    self.state = State::Member;
                }
                State::Member => {
                    let input = match self.r.fill_buf() {
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

    #[test]
    fn plain_bytes_pass_through() {
        let mut m = Members::new(&b"WARC/1.0\r\n"[..]).unwrap();
        let mut out = Vec::new();
        m.read_to_end(&mut out).unwrap();
        assert!(!m.compressed());
        assert_eq!(out, b"WARC/1.0\r\n");
    }
}
