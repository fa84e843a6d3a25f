//! A WARC file as a stream of bytes: gzip members (RFC 1952 §2.2, one
//! member per record as ISO 28500 Annex D recommends) decompressed one
//! after the other, each member's offset in the file known, so that a
//! record is named by the offset a WARC index (CDX) gives for it.

use std::io::{self, BufRead, BufReader, Read};

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

/// How the bytes are stored.
enum Inner<R> {
    /// Not compressed: the bytes as they are.
    Plain(BufReader<Counting<R>>),
    /// Within a member.
    Member(Box<flate2::bufread::GzDecoder<BufReader<Counting<R>>>>),
    /// Between members (the reader, for the next one).
    Between(BufReader<Counting<R>>),
    Poisoned,
}

/// The decompressed bytes of a WARC file, gzip members or plain, with the
/// file offset of the member being read ([`Members::member_offset`]).
pub struct Members<R> {
    inner: Inner<R>,
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
            inner: if gz {
                Inner::Between(r)
            } else {
                Inner::Plain(r)
            },
            member: 0,
            out: 0,
        })
    }

    /// Whether the input is gzip members.
    pub fn compressed(&self) -> bool {
        !matches!(self.inner, Inner::Plain(_))
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
}

fn offset<R>(r: &BufReader<Counting<R>>) -> u64 {
    r.get_ref().read - r.buffer().len() as u64
}

impl<R: Read> Read for Members<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            match &mut self.inner {
                Inner::Plain(r) => {
                    self.member = offset(r);
                    let n = r.read(buf)?;
                    self.out += n as u64;
                    return Ok(n);
                }
                Inner::Member(d) => {
                    let n = d.read(buf)?;
                    if n > 0 || buf.is_empty() {
                        self.out += n as u64;
                        return Ok(n);
                    }
                    let Inner::Member(d) = std::mem::replace(&mut self.inner, Inner::Poisoned)
                    else {
                        unreachable!()
                    };
                    let r = d.into_inner();
                    // A member that ends without consuming a byte (a cut
                    // or empty gzip header the decoder reports as its end)
                    // would start again at the same place for ever.
                    if offset(&r) == self.member {
                        return Err(io::Error::new(
                            io::ErrorKind::UnexpectedEof,
                            format!("truncated gzip member at offset {}", self.member),
                        ));
                    }
                    self.inner = Inner::Between(r);
                }
                Inner::Between(r) => {
                    if r.fill_buf()?.is_empty() {
                        return Ok(0);
                    }
                    self.member = offset(r);
                    let Inner::Between(r) = std::mem::replace(&mut self.inner, Inner::Poisoned)
                    else {
                        unreachable!()
                    };
                    self.inner = Inner::Member(Box::new(flate2::bufread::GzDecoder::new(r)));
                }
                Inner::Poisoned => return Ok(0),
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
