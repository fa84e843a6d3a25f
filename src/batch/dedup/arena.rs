//! The record arena: a partition's distinct keys as records (header, key,
//! example) in blocks that never move, each named by a `u32`.

/// A distinct key in a partition, as its record in the partition's arena
/// holds it ([`Arena::push`]). The record is the row: the table's slot
/// names it, so a probe reads one place (the header it updates is next to
/// the key it compares), and the output reads the example next to both.
/// The hash is not kept: the slot has 32 bits of it, and a spill computes
/// it again.
#[derive(Clone, Copy)]
pub(super) struct Row {
    /// Where the record is ([`Arena::push`]).
    pub(super) at: u32,
    pub(super) key_len: u32,
    pub(super) ex_len: u32,
    pub(super) file: u32,
    pub(super) item: u32,
    /// 1-based line.
    pub(super) line: u64,
    /// Occurrences; 0 for a record replaced by one with an earlier origin.
    pub(super) count: u64,
}

/// `Row::ex_len` of a row whose example is its key (stored once). Keys and
/// examples are shorter than 2³¹ bytes ([`ARENA`](super::keying::ARENA)), so the bit is free.
pub(super) const SAME: u32 = 1 << 31;

/// A record's header: count (8 bytes), line (8), file, item, key length,
/// example length (4 each, at the offsets below), native-endian; then the
/// key, then the example unless it is the key, then padding to 8 bytes.
pub(super) const HEAD: usize = 32;
pub(super) const COUNT_AT: usize = 0;
pub(super) const LINE_AT: usize = 8;
pub(super) const FILE_AT: usize = 16;
pub(super) const ITEM_AT: usize = 20;
pub(super) const KEY_LEN_AT: usize = 24;
pub(super) const EX_LEN_AT: usize = 28;

impl Row {
    pub(super) fn origin(&self) -> (u32, u64, u32) {
        (self.file, self.line, self.item)
    }
}

#[inline]
pub(super) fn u64_at(b: &[u8], i: usize) -> u64 {
    let mut w = [0; 8];
    w.copy_from_slice(&b[i..i + 8]);
    u64::from_ne_bytes(w)
}

#[inline]
pub(super) fn u32_at(b: &[u8], i: usize) -> u32 {
    let mut w = [0; 4];
    w.copy_from_slice(&b[i..i + 4]);
    u32::from_ne_bytes(w)
}

/// Whether a record stores its example apart from its key, and its bytes.
#[inline]
pub(super) fn record_len(key: &[u8], example: &[u8]) -> (bool, usize) {
    // A key borrowed from its line is the example itself: no compare.
    let same = (key.as_ptr() == example.as_ptr() && key.len() == example.len()) || key == example;
    let body = key.len() + if same { 0 } else { example.len() };
    (same, (HEAD + body + 7) & !7)
}

/// The block index and byte offset of the record at `at` ([`Arena::push`]).
#[inline]
pub(super) fn place(at: u32) -> (usize, usize) {
    (
        (at >> OFF_BITS) as usize,
        ((at & ((1 << OFF_BITS) - 1)) as usize) << 3,
    )
}

/// Records in blocks that never move: growing the arena copies nothing.
#[derive(Default)]
pub(super) struct Arena {
    pub(super) blocks: Vec<Vec<u8>>,
    pub(super) bytes: usize,
}

/// Size of an arena block (a larger record gets a block of its own).
pub(super) const BLOCK: usize = 1 << 20;
/// Bits of a record's place for its offset in a block, in 8-byte units
/// (records are 8-byte aligned, and start in the first [`BLOCK`] bytes).
pub(super) const OFF_BITS: u32 = 17;
/// Blocks a partition's arena may hold: a record's place is a `u32`, and
/// the table's slot keeps it + 1. [`Table::room_for`] spills before a
/// batch could pass this (32 GiB in one partition).
///
/// [`Table::room_for`]: super::table::Table::room_for
pub(super) const MAX_BLOCKS: usize = (1 << (32 - OFF_BITS)) - 1;

impl Arena {
    /// Append the record of a new row: its header, key and example (the
    /// example once more only when it differs from the key: most lines of
    /// a crawl are already canonical); where it is (block << [`OFF_BITS`]
    /// | offset / 8). The caller keeps the arena under [`MAX_BLOCKS`].
    #[inline]
    pub(super) fn push(
        &mut self,
        key: &[u8],
        example: &[u8],
        origin: (u32, u64, u32),
        count: u64,
    ) -> u32 {
        let (same, n) = record_len(key, example);
        if !self.has_room(n) {
            self.blocks.push(Vec::with_capacity(BLOCK.max(n)));
            self.bytes += BLOCK.max(n);
        }
        let i = self.blocks.len() - 1;
        let last = &mut self.blocks[i];
        let off = last.len();
        let ex_len = if same { SAME } else { example.len() as u32 };
        let mut head = [0; HEAD];
        head[COUNT_AT..COUNT_AT + 8].copy_from_slice(&count.to_ne_bytes());
        head[LINE_AT..LINE_AT + 8].copy_from_slice(&origin.1.to_ne_bytes());
        for (at, w) in [
            (FILE_AT, origin.0),
            (ITEM_AT, origin.2),
            (KEY_LEN_AT, key.len() as u32),
            (EX_LEN_AT, ex_len),
        ] {
            head[at..at + 4].copy_from_slice(&w.to_ne_bytes());
        }
        last.extend_from_slice(&head);
        last.extend_from_slice(key);
        if !same {
            last.extend_from_slice(example);
        }
        last.resize(off + n, 0);
        debug_assert!(i < MAX_BLOCKS && off < BLOCK && off.is_multiple_of(8));
        ((i as u32) << OFF_BITS) | (off >> 3) as u32
    }

    /// Whether the last block has room for `n` more bytes.
    #[inline]
    fn has_room(&self, n: usize) -> bool {
        self.blocks
            .last()
            .is_some_and(|l| l.capacity() - l.len() >= n)
    }

    /// Whether the record of `key` and `example` would start a new block.
    pub(super) fn opens_block(&self, key: &[u8], example: &[u8]) -> bool {
        !self.has_room(record_len(key, example).1)
    }

    /// The block and offset of the record at `at`.
    #[inline]
    pub(super) fn block(&self, at: u32) -> (&[u8], usize) {
        let (i, off) = place(at);
        (&self.blocks[i], off)
    }

    /// The row of the record at `at`.
    #[inline]
    pub(super) fn row(&self, at: u32) -> Row {
        let (b, o) = self.block(at);
        Row {
            at,
            count: u64_at(b, o + COUNT_AT),
            line: u64_at(b, o + LINE_AT),
            file: u32_at(b, o + FILE_AT),
            item: u32_at(b, o + ITEM_AT),
            key_len: u32_at(b, o + KEY_LEN_AT),
            ex_len: u32_at(b, o + EX_LEN_AT),
        }
    }

    /// `len` bytes of the record at `at`, from `from` bytes past its
    /// header.
    #[inline]
    pub(super) fn body(&self, at: u32, from: usize, len: usize) -> &[u8] {
        let (b, o) = self.block(at);
        &b[o + HEAD + from..o + HEAD + from + len]
    }

    /// The key of the record at `at` (without decoding the rest).
    #[inline]
    pub(super) fn key_at(&self, at: u32) -> &[u8] {
        let (b, o) = self.block(at);
        let len = u32_at(b, o + KEY_LEN_AT) as usize;
        &b[o + HEAD..o + HEAD + len]
    }

    #[inline]
    pub(super) fn set_count(&mut self, at: u32, count: u64) {
        let (i, off) = place(at);
        let c = off + COUNT_AT;
        self.blocks[i][c..c + 8].copy_from_slice(&count.to_ne_bytes());
    }

    /// The record's bytes from its header to the end of its key (what a
    /// probe reads), if its key is `key_len` bytes long.
    #[inline]
    pub(super) fn probed(&self, at: u32, key_len: usize) -> &[u8] {
        let (b, o) = self.block(at);
        &b[o..(o + HEAD + key_len).min(b.len())]
    }
}
