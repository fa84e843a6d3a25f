//! Byte searches of 16 bytes at a time with SSE2 (part of the x86-64
//! baseline, so no detection): the `.` and `/` of a path, for its dot
//! segments (RFC 3986 §5.2.4, 3987bis §5.3.2.4), and the bytes that
//! percent-encoding normalization looks at (3987bis §5.3.2.1–§5.3.2.3),
//! and the bytes of a host or path that web mode's fast path looks at
//! (URL Standard §4.2, §4.4).
//! Each search has its portable loop beside it, which every other target
//! (and `--cfg irinorm_portable`) runs, and a differential test.

/// The `.` and the `/` bytes of `b` (fewer than 64), a bit each.
#[inline]
pub(crate) fn dots_and_slashes(b: &[u8]) -> (u64, u64) {
    debug_assert!(b.len() < 64);
    #[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
    if b.len() >= 16 {
        return x86::dots_and_slashes(b);
    }
    dots_and_slashes_portable(b)
}

/// The bytes of `b[from..to]` (at most 64 of them) in each of the `N`
/// byte sets, a bit mask each: bit `k` of mask `j` is set when
/// `b[from + k]` is one of `sets[j]`. On x86-64 (when `b` has 16 bytes)
/// it reads 16-byte blocks of `b` itself, the last one shifted back to
/// end in `b` rather than past it, so a short range inside a longer slice
/// (a host inside its line) costs one block.
#[inline(always)]
pub(crate) fn byte_masks<const N: usize>(
    b: &[u8],
    from: usize,
    to: usize,
    sets: [&[u8]; N],
) -> [u64; N] {
    assert!(from <= to && to - from <= 64 && to <= b.len());
    #[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
    if b.len() >= 16 {
        return x86::byte_masks(b, from, to, sets);
    }
    byte_masks_portable(b, from, to, sets)
}

/// [`byte_masks`] a byte at a time.
#[inline]
fn byte_masks_portable<const N: usize>(
    b: &[u8],
    from: usize,
    to: usize,
    sets: [&[u8]; N],
) -> [u64; N] {
    let mut m = [0u64; N];
    for (k, c) in b[from..to].iter().enumerate() {
        for (m, set) in m.iter_mut().zip(sets) {
            *m |= u64::from(set.contains(c)) << k;
        }
    }
    m
}

/// [`dots_and_slashes`] a byte at a time.
#[inline]
fn dots_and_slashes_portable(b: &[u8]) -> (u64, u64) {
    b.iter().enumerate().fold((0, 0), |(d, s), (i, &c)| {
        (d | u64::from(c == b'.') << i, s | u64::from(c == b'/') << i)
    })
}

/// The first `i >= from` with `b[i] == b'.'` and `accept(i)`.
#[inline]
pub(crate) fn next_dot(b: &[u8], from: usize, accept: impl Fn(usize) -> bool) -> Option<usize> {
    #[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
    if b.len() >= from + 16 {
        return x86::next_dot(b, from, accept);
    }
    next_dot_portable(b, from, accept)
}

/// [`next_dot`] a byte at a time.
#[inline]
fn next_dot_portable(b: &[u8], from: usize, accept: impl Fn(usize) -> bool) -> Option<usize> {
    (from..b.len()).find(|&i| b[i] == b'.' && accept(i))
}

/// The first index at or after `from` of a byte that percent-encoding
/// normalization looks at — `%`, a non-ASCII byte, `#` when `hash` — or
/// `b.len()`. On x86-64 16 bytes at a time (the high bit of each byte is
/// its non-ASCII test), the last block overlapping the one before it.
#[inline]
pub(crate) fn next_special(b: &[u8], from: usize, hash: bool) -> usize {
    #[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
    if b.len() >= 16 {
        let mut i = from;
        while i < b.len() {
            let start = i.min(b.len() - 16);
            // The bytes of the block at `start`, from `i` on.
            let m = x86::special_mask(b, start, hash) >> (i - start);
            if m != 0 {
                return i + m.trailing_zeros() as usize;
            }
            i = start + 16;
        }
        return b.len();
    }
    next_special_portable(b, from, hash)
}

/// [`next_special`] a byte at a time.
#[inline]
fn next_special_portable(b: &[u8], from: usize, hash: bool) -> usize {
    let mut i = from;
    while i < b.len() && !(b[i] == b'%' || b[i] >= 0x80 || (hash && b[i] == b'#')) {
        i += 1;
    }
    i
}

#[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
mod x86 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
        _mm_setzero_si128,
    };

    /// [`super::byte_masks`] for `b.len() >= 16`: the blocks at `from`,
    /// `from + 16`, …, each moved back to end at `b.len()` at most.
    #[inline(always)]
    pub(super) fn byte_masks<const N: usize>(
        b: &[u8],
        from: usize,
        to: usize,
        sets: [&[u8]; N],
    ) -> [u64; N] {
        debug_assert!(b.len() >= 16 && from <= to && to - from <= 64 && to <= b.len());
        let mut m = [0u64; N];
        if to - from <= 16 && from + 16 <= b.len() {
            // One block (a host, a short path): no shifts.
            // SAFETY: `from + 16 <= b.len()`; SSE2 is part of the x86_64
            // baseline; the load is unaligned.
            unsafe {
                let v = _mm_loadu_si128(b.as_ptr().add(from).cast::<__m128i>());
                let keep = (1u32 << (to - from)) - 1;
                for (m, set) in m.iter_mut().zip(sets) {
                    let mut hit = _mm_setzero_si128();
                    for &c in set {
                        hit = _mm_or_si128(hit, _mm_cmpeq_epi8(v, _mm_set1_epi8(c as i8)));
                    }
                    *m = u64::from(_mm_movemask_epi8(hit) as u32 & keep);
                }
            }
            return m;
        }
        let last = b.len() - 16;
        let mut at = from;
        while at < to {
            let start = at.min(last);
            // SAFETY: `start + 16 <= b.len()`; SSE2 is part of the x86_64
            // baseline; the load is unaligned.
            unsafe {
                let v = _mm_loadu_si128(b.as_ptr().add(start).cast::<__m128i>());
                for (m, set) in m.iter_mut().zip(sets) {
                    let mut hit = _mm_setzero_si128();
                    for &c in set {
                        hit = _mm_or_si128(hit, _mm_cmpeq_epi8(v, _mm_set1_epi8(c as i8)));
                    }
                    // Bit `k` is `b[start + k]`; the range's bit `at - from`
                    // is `b[at]`.
                    let bits = u64::from(_mm_movemask_epi8(hit) as u16);
                    *m |= (bits >> (at - start)) << (at - from);
                }
            }
            at = start + 16;
        }
        let n = to - from;
        let keep = if n == 64 { u64::MAX } else { (1 << n) - 1 };
        m.map(|x| x & keep)
    }

    /// [`super::dots_and_slashes`] for 16 to 63 bytes, 16 at a time (the
    /// last block overlapping the one before rather than reading past the
    /// end: its bits are the same).
    pub(super) fn dots_and_slashes(b: &[u8]) -> (u64, u64) {
        debug_assert!((16..64).contains(&b.len()));
        let (mut dot, mut slash) = (0u64, 0u64);
        let mut start = 0;
        loop {
            let at = start.min(b.len() - 16);
            // SAFETY: `at + 16 <= b.len()`; SSE2 is part of the x86_64
            // baseline; the load is unaligned.
            let (d, s) = unsafe {
                let v = _mm_loadu_si128(b.as_ptr().add(at).cast::<__m128i>());
                let eq = |c: u8| _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(c as i8)));
                (eq(b'.') as u32, eq(b'/') as u32)
            };
            dot |= u64::from(d) << at;
            slash |= u64::from(s) << at;
            if at + 16 == b.len() {
                return (dot, slash);
            }
            start = at + 16;
        }
    }

    /// [`super::next_dot`] for `b.len() >= from + 16`: each 16-byte
    /// block's dots as a bit mask (the last block overlaps the one before
    /// it rather than reading past the end; its dots before `at` were
    /// looked at already).
    pub(super) fn next_dot(b: &[u8], from: usize, accept: impl Fn(usize) -> bool) -> Option<usize> {
        debug_assert!(b.len() >= from + 16);
        let mut at = from;
        loop {
            let start = at.min(b.len() - 16);
            // SAFETY: `start + 16 <= b.len()`; SSE2 is part of the x86_64
            // baseline; the load is unaligned.
            let mut dots = unsafe {
                let v = _mm_loadu_si128(b.as_ptr().add(start).cast::<__m128i>());
                _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'.' as i8))) as u32
            };
            dots &= u32::MAX << (at - start);
            while dots != 0 {
                let i = start + dots.trailing_zeros() as usize;
                if accept(i) {
                    return Some(i);
                }
                dots &= dots - 1;
            }
            if start + 16 == b.len() {
                return None;
            }
            at = start + 16;
        }
    }

    /// Bit `k` set when `b[start + k]` is `%`, non-ASCII or (with `hash`) `#`.
    #[inline]
    pub(super) fn special_mask(b: &[u8], start: usize, hash: bool) -> u32 {
        assert!(start + 16 <= b.len());
        // SAFETY: the 16 bytes at `start` are in `b` (asserted); SSE2 is part
        // of the x86_64 baseline; the load is unaligned.
        unsafe {
            let v = _mm_loadu_si128(b.as_ptr().add(start).cast::<__m128i>());
            let pct = _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'%' as i8)));
            let hashes = if hash {
                _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'#' as i8)))
            } else {
                0
            };
            (_mm_movemask_epi8(v) | pct | hashes) as u32
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(5_000))]
        /// Each search is its portable loop, at every length and start
        /// (the blocks, the overlapping last one, the bytes before 16).
        #[test]
        fn each_search_is_its_portable_loop(
            b in proptest::collection::vec(
                prop_oneof![any::<u8>(), prop::sample::select(b"./%#a\xC3".to_vec())],
                0..100,
            ),
            from in 0usize..100,
            hash: bool,
        ) {
            let from = from.min(b.len());
            if b.len() < 64 {
                prop_assert_eq!(dots_and_slashes(&b), dots_and_slashes_portable(&b));
            }
            let accept = |i: usize| i == 0 || b[i - 1] == b'/';
            prop_assert_eq!(next_dot(&b, from, accept), next_dot_portable(&b, from, accept));
            prop_assert_eq!(next_special(&b, from, hash), next_special_portable(&b, from, hash));
        }
        /// [`byte_masks`] is its portable loop for every range of up to 64
        /// bytes, in slices shorter and longer than a block.
        #[test]
        fn byte_masks_are_their_portable_loop(
            b in proptest::collection::vec(
                prop_oneof![any::<u8>(), prop::sample::select(b"./:%-".to_vec())],
                0..100,
            ),
            from in 0usize..100,
            len in 0usize..65,
        ) {
            let from = from.min(b.len());
            let to = (from + len).min(b.len());
            let sets: [&[u8]; 3] = [b".", b"/", b":%"];
            prop_assert_eq!(byte_masks(&b, from, to, sets), byte_masks_portable(&b, from, to, sets));
        }
    }
}
