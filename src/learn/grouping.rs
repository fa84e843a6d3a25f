//! Records sorted by a group and a key, within memory or on disk: the
//! interface the digest learner's two sorts go through — captures grouped
//! by origin ([`group`](super::group), 3987bis §5.3.4 evidence at crawl
//! scale) and the pooled pass's summaries grouped by pattern
//! ([`pool`](super::pool)) — and its in-memory form; the batch engine
//! provides the one that spills sorted runs (`batch::SpillGroups`).
//! Also the varints their payloads are written with.

use std::io;

/// What [`Grouping::drain`] calls with each record: `(origin, payload)`.
pub type Each<'a> = dyn FnMut(&[u8], &[u8]) -> io::Result<()> + 'a;

/// Records of captures grouped by origin: each is pushed with its origin,
/// the key that orders it within the origin, and its payload, and comes
/// back from [`drain`](Grouping::drain) in (origin, key) order. Records
/// with equal origin and key are equal. (The pooled pass of
/// [`pool`](super::pool) groups its summaries the same way, by pattern.)
pub trait Grouping {
    fn push(&mut self, origin: &[u8], key: &[u8], payload: &[u8]) -> io::Result<()>;

    /// Every record pushed, in (origin, key) order, as `each(origin,
    /// payload)`; the grouping is empty afterwards.
    fn drain(&mut self, each: &mut Each<'_>) -> io::Result<()>;

    /// Sorted runs written to disk so far and their bytes (none for a
    /// grouping held in memory).
    fn spilled(&self) -> (usize, u64) {
        (0, 0)
    }
}

/// A [`Grouping`] that holds every record in memory.
#[derive(Default)]
pub struct InMemory {
    recs: Vec<(Vec<u8>, Vec<u8>, Vec<u8>)>,
}

impl Grouping for InMemory {
    fn push(&mut self, origin: &[u8], key: &[u8], payload: &[u8]) -> io::Result<()> {
        self.recs
            .push((origin.to_vec(), key.to_vec(), payload.to_vec()));
        Ok(())
    }

    fn drain(&mut self, each: &mut Each<'_>) -> io::Result<()> {
        let mut recs = std::mem::take(&mut self.recs);
        recs.sort_unstable_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
        for (o, _, p) in &recs {
            each(o, p)?;
        }
        Ok(())
    }
}

/// Append `v` as a LEB128 varint.
pub(crate) fn put_varint(b: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        b.push(v as u8 | 0x80);
        v >>= 7;
    }
    b.push(v as u8);
}

pub(crate) fn put_bytes(b: &mut Vec<u8>, s: &[u8]) {
    put_varint(b, s.len() as u64);
    b.extend_from_slice(s);
}

pub(crate) fn get_varint(b: &mut &[u8]) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let (&byte, rest) = b.split_first()?;
        *b = rest;
        v |= u64::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            return Some(v);
        }
    }
    None
}

pub(crate) fn get_str<'a>(b: &mut &'a [u8]) -> Option<&'a str> {
    let n = usize::try_from(get_varint(b)?).ok()?;
    if b.len() < n {
        return None;
    }
    let (s, rest) = b.split_at(n);
    *b = rest;
    std::str::from_utf8(s).ok()
}

/// A fresh [`InMemory`] grouping, boxed (for
/// [`NewGrouping`](super::pool::NewGrouping)).
pub fn in_memory() -> Box<dyn Grouping + Send> {
    Box::<InMemory>::default()
}
