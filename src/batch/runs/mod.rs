//! Runs: files of records in compressed, checksummed blocks, written and
//! read sequentially — the format of the dedup engine's spill files, meant
//! to hold the sorted buckets of a disk repository updated in sorted
//! batches too (DRUM, Lee et al., "IRLbot", WWW 2008, §5).
//!
//! A run is a header, blocks, and an end frame; a file may hold several
//! runs one after the other (a partition's spill file grows by a run per
//! spill), read as one stream of blocks.
//!
//! ```text
//! header  "IRIRUNS" version(u8=1) codec(u8) level(i8) 0 0 crc(u32)  16 bytes
//! block   raw_len(u32) stored_len(u32) records(u32) crc(u32) stored bytes
//! end     0 16 0 crc, then records(u64) raw_bytes(u64)
//! ```
//!
//! Integers are little-endian; `crc` is the CRC-32 (ISO-HDLC) of the
//! header's or frame's first 12 bytes and the frame's stored bytes, so a flipped bit or a
//! truncated file is reported, never decoded as records. A record never
//! spans two blocks, so a block decodes alone; what a record holds is the
//! caller's ([`put_varint`], [`put_bytes`] and their readers help).

use std::io::{self, Read, Write};

#[cfg(test)]
mod tests;

const MAGIC: &[u8; 7] = b"IRIRUNS";
const VERSION: u8 = 1;
const HEADER: usize = 16;
const FRAME: usize = 16;

/// Raw bytes of a block: large enough for the codec to find repeats across
/// many URLs and for sequential I/O, small enough that a merge holding one
/// block per run stays small (two buffers of this size per reader).
pub const BLOCK_RAW: usize = 128 << 10;

/// How blocks are compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    /// LZ4 (block format, `lz4_flex`).
    Lz4,
    /// Zstandard at a level (negative: the fast levels).
    Zstd(i8),
}

impl Codec {
    fn id(self) -> (u8, i8) {
        match self {
            Codec::Lz4 => (1, 0),
            Codec::Zstd(l) => (2, l),
        }
    }

    fn from_id(id: u8, level: i8) -> Option<Codec> {
        match id {
            1 => Some(Codec::Lz4),
            2 => Some(Codec::Zstd(level)),
            _ => None,
        }
    }
}

fn corrupt(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("corrupt run: {what}"))
}

fn crc(head: &[u8], body: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(head);
    h.update(body);
    h.finalize()
}

/// Writes one run: records gathered into blocks, each compressed and framed
/// as it fills. [`RunWriter::finish`] writes the end frame; a writer
/// dropped without it leaves a run that readers report as truncated.
pub struct RunWriter<W: Write> {
    out: W,
    codec: Codec,
    zstd: Option<zstd::bulk::Compressor<'static>>,
    block: Vec<u8>,
    stored: Vec<u8>,
    records: u32,
    total_records: u64,
    raw: u64,
    written: u64,
}

impl<W: Write> RunWriter<W> {
    pub fn new(mut out: W, codec: Codec) -> io::Result<Self> {
        let mut head = [0u8; HEADER];
        head[..7].copy_from_slice(MAGIC);
        head[7] = VERSION;
        let (id, level) = codec.id();
        head[8] = id;
        head[9] = level as u8;
        let c = crc(&head[..12], &[]);
        head[12..].copy_from_slice(&c.to_le_bytes());
        out.write_all(&head)?;
        let zstd = match codec {
            Codec::Zstd(l) => Some(zstd::bulk::Compressor::new(i32::from(l))?),
            Codec::Lz4 => None,
        };
        Ok(RunWriter {
            out,
            codec,
            zstd,
            block: Vec::with_capacity(BLOCK_RAW + (BLOCK_RAW >> 2)),
            stored: Vec::new(),
            records: 0,
            total_records: 0,
            raw: 0,
            written: HEADER as u64,
        })
    }

    /// Whether the next record starts a block (a caller that encodes
    /// records relative to the previous one starts afresh there).
    pub fn at_block_start(&self) -> bool {
        self.block.is_empty()
    }

    /// The block being filled, to append one record to; [`RunWriter::end_record`]
    /// closes it.
    pub fn record(&mut self) -> &mut Vec<u8> {
        &mut self.block
    }

    /// The record appended through [`RunWriter::record`] is complete.
    pub fn end_record(&mut self) -> io::Result<()> {
        self.records += 1;
        if self.block.len() >= BLOCK_RAW || self.records == u32::MAX {
            self.flush_block()?;
        }
        Ok(())
    }

    fn flush_block(&mut self) -> io::Result<()> {
        if self.block.is_empty() {
            return Ok(());
        }
        let raw_len = u32::try_from(self.block.len()).map_err(|_| corrupt("record too large"))?;
        match (self.codec, &mut self.zstd) {
            (Codec::Zstd(_), Some(z)) => {
                self.stored.clear();
                self.stored
                    .reserve(zstd::zstd_safe::compress_bound(self.block.len()));
                z.compress_to_buffer(&self.block, &mut self.stored)?;
            }
            _ => {
                self.stored.resize(
                    lz4_flex::block::get_maximum_output_size(self.block.len()),
                    0,
                );
                let n = lz4_flex::block::compress_into(&self.block, &mut self.stored)
                    .map_err(io::Error::other)?;
                self.stored.truncate(n);
            }
        }
        self.frame(raw_len, self.records)?;
        self.total_records += u64::from(self.records);
        self.raw += self.block.len() as u64;
        self.block.clear();
        self.records = 0;
        Ok(())
    }

    fn frame(&mut self, raw_len: u32, records: u32) -> io::Result<()> {
        let mut head = [0u8; FRAME];
        head[..4].copy_from_slice(&raw_len.to_le_bytes());
        head[4..8].copy_from_slice(&(self.stored.len() as u32).to_le_bytes());
        head[8..12].copy_from_slice(&records.to_le_bytes());
        let c = crc(&head[..12], &self.stored);
        head[12..].copy_from_slice(&c.to_le_bytes());
        self.out.write_all(&head)?;
        self.out.write_all(&self.stored)?;
        self.written += (FRAME + self.stored.len()) as u64;
        Ok(())
    }

    /// Write the last block and the end frame; the writer, and the run's
    /// (records, raw bytes, bytes written).
    pub fn finish(mut self) -> io::Result<(W, Totals)> {
        self.flush_block()?;
        self.stored.clear();
        self.stored
            .extend_from_slice(&self.total_records.to_le_bytes());
        self.stored.extend_from_slice(&self.raw.to_le_bytes());
        self.frame(0, 0)?;
        self.out.flush()?;
        let t = Totals {
            records: self.total_records,
            raw: self.raw,
            written: self.written,
        };
        Ok((self.out, t))
    }
}

/// What a run holds.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Totals {
    pub records: u64,
    /// Bytes of records, before compression.
    pub raw: u64,
    /// Bytes of the run on disk.
    pub written: u64,
}

/// Reads the blocks of one or more runs, one after the other, checking
/// every frame.
pub struct RunReader<R: Read> {
    input: R,
    codec: Option<Codec>,
    zstd: Option<zstd::bulk::Decompressor<'static>>,
    stored: Vec<u8>,
    block: Vec<u8>,
    /// Records and raw bytes of the current run so far.
    seen: (u64, u64),
    done: bool,
}

impl<R: Read> RunReader<R> {
    pub fn new(input: R) -> Self {
        RunReader {
            input,
            codec: None,
            zstd: None,
            stored: Vec::new(),
            block: Vec::new(),
            seen: (0, 0),
            done: false,
        }
    }

    /// Fill `buf` whole; false if the input ended before its first byte.
    fn read_full(&mut self, n: usize) -> io::Result<bool> {
        self.stored.resize(n, 0);
        let mut got = 0;
        while got < n {
            match self.input.read(&mut self.stored[got..]) {
                Ok(0) if got == 0 => return Ok(false),
                Ok(0) => return Err(corrupt("truncated")),
                Ok(k) => got += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(true)
    }

    fn header(&mut self) -> io::Result<bool> {
        if !self.read_full(HEADER)? {
            return Ok(false);
        }
        let h = &self.stored[..HEADER];
        if &h[..7] != MAGIC || h[7] != VERSION {
            return Err(corrupt("not a run of this version"));
        }
        if crc(&h[..12], &[]).to_le_bytes() != h[12..HEADER] {
            return Err(corrupt("header checksum mismatch"));
        }
        let codec = Codec::from_id(h[8], h[9] as i8).ok_or_else(|| corrupt("unknown codec"))?;
        if matches!(codec, Codec::Zstd(_)) && self.zstd.is_none() {
            self.zstd = Some(zstd::bulk::Decompressor::new()?);
        }
        self.codec = Some(codec);
        self.seen = (0, 0);
        Ok(true)
    }

    /// The block [`RunReader::next_block`] read last (raw bytes).
    pub fn block(&self) -> &[u8] {
        &self.block
    }

    /// Read the next block ([`RunReader::block`]); the number of its
    /// records, `None` at the end of the last run.
    pub fn next_block(&mut self) -> io::Result<Option<u32>> {
        loop {
            if self.done {
                return Ok(None);
            }
            if self.codec.is_none() && !self.header()? {
                self.done = true;
                return Ok(None);
            }
            if !self.read_full(FRAME)? {
                return Err(corrupt("truncated"));
            }
            let mut head = [0u8; FRAME];
            head.copy_from_slice(&self.stored[..FRAME]);
            let word =
                |i: usize| u32::from_le_bytes([head[i], head[i + 1], head[i + 2], head[i + 3]]);
            let (raw_len, stored_len, records, want) = (word(0), word(4), word(8), word(12));
            if !self.read_full(stored_len as usize)? && stored_len > 0 {
                return Err(corrupt("truncated"));
            }
            if crc(&head[..12], &self.stored) != want {
                return Err(corrupt("checksum mismatch"));
            }
            if raw_len == 0 {
                // The end frame: the run's totals must be what was read.
                let s = &self.stored;
                if s.len() != 16
                    || u64::from_le_bytes(s[..8].try_into().unwrap_or_default()) != self.seen.0
                    || u64::from_le_bytes(s[8..].try_into().unwrap_or_default()) != self.seen.1
                {
                    return Err(corrupt("totals differ from the blocks"));
                }
                self.codec = None;
                continue;
            }
            self.block.clear();
            match (self.codec, &mut self.zstd) {
                (Some(Codec::Zstd(_)), Some(z)) => {
                    self.block.reserve(raw_len as usize);
                    z.decompress_to_buffer(&self.stored, &mut self.block)
                        .map_err(|_| corrupt("undecodable block"))?;
                }
                _ => {
                    self.block.resize(raw_len as usize, 0);
                    let n = lz4_flex::block::decompress_into(&self.stored, &mut self.block)
                        .map_err(|_| corrupt("undecodable block"))?;
                    self.block.truncate(n);
                }
            }
            if self.block.len() != raw_len as usize {
                return Err(corrupt("block length"));
            }
            self.seen.0 += u64::from(records);
            self.seen.1 += u64::from(raw_len);
            return Ok(Some(records));
        }
    }
}

/// Append `v` as a LEB128 varint.
#[inline]
pub fn put_varint(b: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        b.push(v as u8 | 0x80);
        v >>= 7;
    }
    b.push(v as u8);
}

/// Append `bytes` with their length first.
#[inline]
pub fn put_bytes(b: &mut Vec<u8>, bytes: &[u8]) {
    put_varint(b, bytes.len() as u64);
    b.extend_from_slice(bytes);
}

/// Read a varint from the front of `b`.
#[inline]
pub fn get_varint(b: &mut &[u8]) -> io::Result<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let (&byte, rest) = b.split_first().ok_or_else(|| corrupt("short record"))?;
        *b = rest;
        v |= u64::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            return Ok(v);
        }
    }
    Err(corrupt("varint"))
}

/// Read `n` bytes from the front of `b`.
#[inline]
pub fn get_slice<'a>(b: &mut &'a [u8], n: usize) -> io::Result<&'a [u8]> {
    if b.len() < n {
        return Err(corrupt("short record"));
    }
    let (s, rest) = b.split_at(n);
    *b = rest;
    Ok(s)
}

/// Read bytes written by [`put_bytes`].
#[inline]
pub fn get_bytes<'a>(b: &mut &'a [u8]) -> io::Result<&'a [u8]> {
    let n = get_varint(b)?;
    get_slice(b, usize::try_from(n).map_err(|_| corrupt("length"))?)
}
