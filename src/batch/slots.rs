//! The index of a dedup partition: key hash → where its row is (a `u32`
//! of the caller's), in an open-addressing table whose slots carry 32
//! bits of the hash.
//!
//! Why not `hashbrown`: a merge probe of `hashbrown::HashTable<u32>` cannot
//! be asked for ahead of time (the table does not say where a hash's group
//! lies), and its 7-bit tags send about one probe in a hundred to the row
//! to compare full hashes. Here a slot is one `u64` — the low 32 bits of the
//! hash and the row's place — so
//! * [`Slots::prefetch`] asks for a hash's home slot several keys ahead,
//!   and [`Slots::peek`] names the row a later probe will compare, so that
//!   its bytes can be asked for too (the merge then waits for memory once
//!   per batch of keys, not twice per key);
//! * a row is read only when all 32 bits agree;
//! * growing rehashes from the slots alone, without touching the rows.
//!
//! Linear probing, a power-of-two capacity, at most 3/4 full. The slot
//! tags are a filter only: the caller compares the full hash and the key
//! bytes of every candidate ([`Slots::find`]), so no two keys ever merge
//! on a hash.

/// An empty slot (a filled one holds row + 1 in its low half).
const EMPTY: u64 = 0;

/// Capacity of a table's first allocation.
const FIRST: usize = 1024;

/// Ask for the cache line at `p` ahead of its use (a hint: no effect on
/// what the program computes).
#[inline(always)]
pub(super) fn prefetch<T>(p: *const T) {
    crate::simd::bytes::prefetch(p);
}

/// Ask for every cache line of `bytes` (up to four: a longer key is
/// compared past the first lines while the rest arrive).
#[inline(always)]
pub(super) fn prefetch_bytes(bytes: &[u8]) {
    let start = bytes.as_ptr() as usize;
    let end = start + bytes.len();
    let mut line = start & !63;
    for _ in 0..4 {
        if line >= end {
            break;
        }
        prefetch(line as *const u8);
        line += 64;
    }
}

/// Hash → a row's place (`u32`), see the module doc.
#[derive(Default)]
pub(super) struct Slots {
    slots: Vec<u64>,
    len: usize,
}

/// Where [`Slots::find`] stopped without a match: the empty slot that
/// [`Slots::fill`] takes.
pub(super) struct Vacant(usize);

/// Where [`Slots::find`] found its match, for [`Slots::set`].
pub(super) struct Found(usize);

/// `n` empty slots, written before they are read. `vec![EMPTY; n]` would
/// take zeroed memory from the system unwritten: the table's first reads
/// then map the shared zero page, and each first write copies it, which
/// flushes the TLB of every core running one of our threads (interrupts
/// that showed in a worker's `Slots::grow` on two workers).
/// The length goes through `black_box`: for a constant `n` (the first
/// table, [`FIRST`]) LLVM had folded the allocation and its zeroing into a
/// `calloc`, which is that same unwritten memory.
fn empty(n: usize) -> Vec<u64> {
    let mut v = Vec::with_capacity(n);
    v.resize(std::hint::black_box(n), EMPTY);
    v
}

#[inline]
fn tag(hash: u64) -> u64 {
    hash & 0xFFFF_FFFF
}

impl Slots {
    /// Bytes allocated.
    pub fn bytes(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<u64>()
    }

    /// Room for `rows` rows in all without growing again: one rehash into
    /// a table of that size now, where growing by doubling would write
    /// and rehash about twice its slots on the way. A caller that can
    /// project how many rows will come calls this once it can.
    pub fn reserve(&mut self, rows: usize) {
        let n = (rows * 4 / 3 + 1).next_power_of_two().max(FIRST);
        if n > self.slots.len() {
            self.rehash(n);
        }
    }

    #[inline]
    fn mask(&self) -> usize {
        self.slots.len() - 1
    }

    /// Ask for `hash`'s home slot ahead of a [`Slots::find`].
    #[inline]
    pub fn prefetch(&self, hash: u64) {
        if !self.slots.is_empty() {
            prefetch(&self.slots[tag(hash) as usize & self.mask()]);
        }
    }

    /// The first row whose slot tag agrees with `hash` (a hint for
    /// prefetching: it may hold another key).
    #[inline]
    pub fn peek(&self, hash: u64) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        let (mask, t) = (self.mask(), tag(hash));
        let mut i = t as usize & mask;
        loop {
            let s = self.slots[i];
            if s == EMPTY {
                return None;
            }
            if s >> 32 == t {
                return Some((s as u32).wrapping_sub(1));
            }
            i = (i + 1) & mask;
        }
    }

    /// The row for `hash` that `is` accepts (called only for rows whose
    /// slot tag agrees), or the empty slot where the probe ended.
    #[inline]
    pub fn find(
        &mut self,
        hash: u64,
        mut is: impl FnMut(u32) -> bool,
    ) -> Result<(Found, u32), Vacant> {
        if self.slots.is_empty() {
            self.slots = empty(FIRST);
        }
        let (mask, t) = (self.mask(), tag(hash));
        let mut i = t as usize & mask;
        loop {
            let s = self.slots[i];
            if s == EMPTY {
                return Err(Vacant(i));
            }
            if s >> 32 == t {
                let row = (s as u32).wrapping_sub(1);
                if is(row) {
                    return Ok((Found(i), row));
                }
            }
            i = (i + 1) & mask;
        }
    }

    /// Index `row` under `hash` at the slot [`Slots::find`] returned (no
    /// other call in between).
    #[inline]
    pub fn fill(&mut self, at: Vacant, hash: u64, row: u32) {
        debug_assert!(row < u32::MAX && self.slots[at.0] == EMPTY);
        self.slots[at.0] = (tag(hash) << 32) | u64::from(row + 1);
        self.len += 1;
        if self.len * 4 > self.slots.len() * 3 {
            self.grow();
        }
    }

    /// Index `row` instead of the one [`Slots::find`] found (no other
    /// call in between).
    pub fn set(&mut self, at: Found, row: u32) {
        debug_assert!(row < u32::MAX && self.slots[at.0] != EMPTY);
        self.slots[at.0] = (self.slots[at.0] & !0xFFFF_FFFF) | u64::from(row + 1);
    }

    /// Twice the capacity.
    #[cold]
    fn grow(&mut self) {
        self.rehash(self.slots.len() * 2);
    }

    /// `n` slots (a power of two, more than now); the slots move by their
    /// tags alone.
    fn rehash(&mut self, n: usize) {
        let bigger = empty(n);
        let old = std::mem::replace(&mut self.slots, bigger);
        let mask = self.mask();
        for s in old.into_iter().filter(|&s| s != EMPTY) {
            let mut i = (s >> 32) as usize & mask;
            while self.slots[i] != EMPTY {
                i = (i + 1) & mask;
            }
            self.slots[i] = s;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::hash::BuildHasher;

    /// Index `rows` (their hashes) the way `Part::add` does, looking each
    /// one up first; the rows found instead of inserted.
    fn index(slots: &mut Slots, hashes: &[u64]) -> Vec<Option<u32>> {
        let mut seen = Vec::new();
        hashes
            .iter()
            .map(|&h| match slots.find(h, |r| seen[r as usize] == h) {
                Ok((_, r)) => Some(r),
                Err(at) => {
                    slots.fill(at, h, seen.len() as u32);
                    seen.push(h);
                    None
                }
            })
            .collect()
    }

    #[test]
    fn equal_tags_are_told_apart_by_the_callers_compare() {
        // Same low 32 bits (tag and home), different hashes: three rows.
        let hs = [0x1_0000_0005, 0x2_0000_0005, 0x3_0000_0005, 0x2_0000_0005];
        let mut s = Slots::default();
        assert_eq!(index(&mut s, &hs), [None, None, None, Some(1)]);
        assert_eq!(s.len, 3);
        // peek names the first candidate, which find may then reject.
        assert_eq!(s.peek(0x3_0000_0005), Some(0));
        assert_eq!(s.peek(6), None);
    }

    #[test]
    fn growth_keeps_every_row_findable_and_stays_under_three_quarters() {
        // Hashes as the engine makes them: homes collide, probes run on.
        let hasher = foldhash::fast::FixedState::with_seed(7);
        let hs: Vec<u64> = (0..5000u64).map(|i| hasher.hash_one(i)).collect();
        let mut s = Slots::default();
        assert!(index(&mut s, &hs).iter().all(Option::is_none));
        assert_eq!(s.len, 5000);
        assert!(s.slots.len() >= 5000 * 4 / 3 && s.slots.len().is_power_of_two());
        for (r, &h) in hs.iter().enumerate() {
            assert_eq!(
                s.find(h, |x| x as usize == r).ok().map(|f| f.1),
                Some(r as u32)
            );
            assert_eq!(s.peek(h), Some(r as u32));
        }
    }

    #[test]
    fn reserve_sizes_once_and_keeps_rows_findable() {
        let hasher = foldhash::fast::FixedState::with_seed(3);
        let hs: Vec<u64> = (0..7000u64).map(|i| hasher.hash_one(i)).collect();
        let mut s = Slots::default();
        for (r, &h) in hs.iter().enumerate() {
            if r == 1000 {
                // Room for 7,000 in all: 16,384 slots (at most 3/4 full), no
                // growth after.
                s.reserve(7000);
                assert_eq!(s.slots.len(), 16384);
            }
            let Err(at) = s.find(h, |x| hs[x as usize] == h) else {
                panic!("hash {r} found before it was added")
            };
            s.fill(at, h, r as u32);
        }
        assert_eq!((s.slots.len(), s.len), (16384, 7000));
        // Less room than there is changes nothing.
        s.reserve(10);
        assert_eq!(s.slots.len(), 16384);
        for (r, &h) in hs.iter().enumerate() {
            assert_eq!(
                s.find(h, |x| hs[x as usize] == h).ok().map(|f| f.1),
                Some(r as u32)
            );
        }
    }

    #[test]
    fn set_replaces_the_row_found() {
        let mut s = Slots::default();
        let Err(at) = s.find(9, |_| true) else {
            panic!("an empty table")
        };
        s.fill(at, 9, 4);
        let Ok((at, 4)) = s.find(9, |r| r == 4) else {
            panic!("row 4 not found")
        };
        s.set(at, 7);
        assert_eq!(s.find(9, |r| r == 7).ok().map(|f| f.1), Some(7));
        assert_eq!((s.peek(9), s.len), (Some(7), 1));
    }

    proptest! {
        /// Against a map: the first occurrence of each hash is inserted,
        /// every later one finds that row, whatever the collisions (hashes
        /// that share their low 32 bits, tags that share their home, enough
        /// of them to grow the table).
        #[test]
        fn finds_what_a_map_finds(raw in proptest::collection::vec((0u64..4, 0u64..2048), 0..3000)) {
            let hashes: Vec<u64> = raw.iter().map(|&(hi, lo)| (hi << 40) | lo).collect();
            let mut s = Slots::default();
            let got = index(&mut s, &hashes);
            let mut first = std::collections::HashMap::new();
            for (i, &h) in hashes.iter().enumerate() {
                let n = first.len() as u32;
                let want = first.get(&h).copied();
                first.entry(h).or_insert(n);
                prop_assert_eq!(got[i], want);
            }
            prop_assert_eq!(s.len, first.len());
        }
    }
}
