//! One partition's table: a slot table ([`Slots`]) over the records of
//! its arena, where a key is counted or added.

use super::arena::{Arena, Row, SAME};
use crate::batch::slots::{prefetch_bytes, Slots};

/// One partition's table.
#[derive(Default)]
pub(super) struct Part {
    pub(super) table: Slots,
    /// Where each record is, in the order the rows were added.
    pub(super) recs: Vec<u32>,
    pub(super) arena: Arena,
}

impl Part {
    #[inline]
    pub(super) fn key(&self, r: &Row) -> &[u8] {
        self.arena.body(r.at, 0, r.key_len as usize)
    }

    #[inline]
    pub(super) fn example(&self, r: &Row) -> &[u8] {
        if r.ex_len == SAME {
            return self.key(r);
        }
        self.arena.body(r.at, r.key_len as usize, r.ex_len as usize)
    }

    /// The `i`-th row added.
    #[inline]
    pub(super) fn row(&self, i: usize) -> Row {
        self.arena.row(self.recs[i])
    }

    /// The rows, in the order they were added (without the replaced ones).
    pub(super) fn rows(&self) -> impl Iterator<Item = Row> + '_ {
        self.recs
            .iter()
            .map(|&at| self.arena.row(at))
            .filter(|r| r.count > 0)
    }

    /// Bytes this partition holds (capacities: what the process touches).
    pub(super) fn bytes(&self) -> usize {
        self.arena.bytes + self.recs.capacity() * 4 + self.table.bytes()
    }

    /// Count `count` occurrences of `key`, first seen at `origin` with
    /// `example`; an earlier origin replaces the row's first occurrence.
    /// True if the key is new (a row was appended).
    #[inline]
    pub(super) fn add(
        &mut self,
        hash: u64,
        key: &[u8],
        example: &[u8],
        origin: (u32, u64, u32),
        count: u64,
    ) -> bool {
        let arena = &self.arena;
        match self.table.find(hash, |at| arena.key_at(at) == key) {
            Ok((slot, at)) => {
                let r = self.arena.row(at);
                if origin < r.origin() {
                    // Only after a spill can a later-read row be earlier:
                    // a record with that origin and example replaces it.
                    let new = self.arena.push(key, example, origin, r.count + count);
                    self.arena.set_count(at, 0);
                    self.table.set(slot, new);
                    self.recs.push(new);
                } else {
                    self.arena.set_count(at, r.count + count);
                }
                false
            }
            Err(vacant) => {
                let at = self.arena.push(key, example, origin, count);
                self.recs.push(at);
                self.table.fill(vacant, hash, at);
                true
            }
        }
    }

    /// Ask for the record at `at`: its first [`RECORD_LINES`] cache lines
    /// (its header and, in most records, its key and example), all at once.
    /// Asking for the header first and, once it had come, for the bytes it
    /// measures took a second walk ahead and a load that waited
    /// (BENCHMARKS.md, decision log: "Table and partitions").
    #[inline]
    pub(super) fn prefetch_record(&self, at: u32) {
        let (b, o) = self.arena.block(at);
        prefetch_bytes(&b[o..(o + RECORD_LINES * 64).min(b.len())]);
    }

    /// Ask for the record that a later [`Part::add`] of `hash` and a key of
    /// `key_len` bytes will most likely compare (after [`Slots::prefetch`]
    /// of its slot).
    #[inline]
    pub(super) fn prefetch_row(&self, hash: u64, key_len: usize) {
        if let Some(at) = self.table.peek(hash) {
            prefetch_bytes(self.arena.probed(at, key_len));
        }
    }
}

/// Cache lines of a record [`Part::prefetch_record`] asks for: its
/// 32-byte header with a key and an example of 80 bytes each starts
/// anywhere in a line and ends in the fourth.
pub(super) const RECORD_LINES: usize = 4;
