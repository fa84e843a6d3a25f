//! Byte searches of the batch engine, 16 bytes at a time with SSE2 (part of
//! the x86-64 baseline, so no detection): the newlines of a batch, the
//! bytes that make a CSV field need quotes (RFC 4180 §2), and the prefetch
//! hint of the dedup table; and bytes below a bound in a `u64`, eight at a
//! time with no vector unit ([`bytes_below`]). Each has its portable version beside it, which
//! every other target (and `--cfg irinorm_portable`) runs, and a
//! differential test.

/// A byte of value 1 in every byte of a word.
pub(crate) const ONES: u64 = u64::MAX / 255;

/// The high bit of each byte of `w` that is below `n` (`n` ≤ 128): zero
/// exactly when there is none, and exact up to the first such byte in
/// little-endian order (a borrow may mark bytes after it). Eight bytes
/// tested at once with no vector unit ("haszero" generalised; Warren,
/// *Hacker's Delight*, 2nd ed., §6-1).
#[inline(always)]
pub(crate) fn bytes_below(w: u64, n: u8) -> u64 {
    w.wrapping_sub(ONES * u64::from(n)) & !w & (ONES << 7)
}

/// Calls `f` with the offset of every `'\n'` of `bytes`, in order.
///
/// Lines of a crawl are a few dozen bytes: `memchr_iter` starts a search
/// per line, whose setup costs more than the search. On x86-64 the
/// newlines of 64 bytes at a time become one bit mask, and each line costs
/// a `tzcnt`.
#[inline]
pub(crate) fn for_each_newline(bytes: &[u8], f: impl FnMut(usize)) {
    #[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
    {
        let mut f = f;
        let blocks = bytes.chunks_exact(64);
        let tail = blocks.remainder();
        for (k, block) in blocks.enumerate() {
            let mut m = x86::newline_mask(block);
            while m != 0 {
                f(k * 64 + m.trailing_zeros() as usize);
                m &= m - 1;
            }
        }
        let base = bytes.len() - tail.len();
        for (i, &b) in tail.iter().enumerate() {
            if b == b'\n' {
                f(base + i);
            }
        }
    }
    #[cfg(not(all(target_arch = "x86_64", not(irinorm_portable))))]
    for_each_newline_portable(bytes, f);
}

/// [`for_each_newline`] with `memchr`.
#[cfg_attr(
    all(target_arch = "x86_64", not(irinorm_portable), not(test)),
    allow(dead_code)
)]
#[inline]
fn for_each_newline_portable(bytes: &[u8], f: impl FnMut(usize)) {
    memchr::memchr_iter(b'\n', bytes).for_each(f);
}

/// Whether `field` holds `delim`, `"`, CR or LF (RFC 4180 §2.6: such a
/// field is quoted). Fields are a few dozen bytes, where four `memchr`
/// calls cost more in setup than in search: on x86-64 one pass of SSE2
/// compares over 16-byte blocks (the last block overlapping the one
/// before), else a byte loop.
#[inline]
pub(crate) fn csv_needs_quotes(field: &[u8], delim: u8) -> bool {
    #[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
    if field.len() >= 16 {
        return x86::csv_needs_quotes(field, delim);
    }
    csv_needs_quotes_portable(field, delim)
}

/// [`csv_needs_quotes`] a byte at a time.
#[inline]
fn csv_needs_quotes_portable(field: &[u8], delim: u8) -> bool {
    field
        .iter()
        .any(|&b| b == delim || b == b'"' || b == b'\n' || b == b'\r')
}

/// Ask for the cache line at `p` ahead of its use (a hint: no effect on
/// what the program computes; nothing where there is no kernel).
#[inline(always)]
pub(crate) fn prefetch<T>(p: *const T) {
    #[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
    x86::prefetch(p);
    #[cfg(not(all(target_arch = "x86_64", not(irinorm_portable))))]
    let _ = p;
}

#[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
mod x86 {
    use std::arch::x86_64::*;

    /// Bit `i` set where `block[i]` is `'\n'`, for `i < 64`.
    #[inline(always)]
    pub(super) fn newline_mask(block: &[u8]) -> u64 {
        assert!(block.len() >= 64);
        let mut m = 0u64;
        for i in 0..4 {
            // SAFETY: `16 * i + 16 <= 64 <= block.len()` (asserted); SSE2
            // is part of the x86-64 baseline; the load is unaligned.
            let eq = unsafe {
                let v = _mm_loadu_si128(block.as_ptr().add(16 * i).cast());
                _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'\n' as i8))) as u16
            };
            m |= u64::from(eq) << (16 * i);
        }
        m
    }

    /// [`super::csv_needs_quotes`] for a field of 16 bytes or more.
    pub(super) fn csv_needs_quotes(field: &[u8], delim: u8) -> bool {
        assert!(field.len() >= 16);
        let hit = |at: usize| {
            // SAFETY: `at + 16 <= field.len()` (every `at` below is at most
            // `field.len() - 16`); SSE2 is part of the x86-64 baseline.
            unsafe {
                let v = _mm_loadu_si128(field.as_ptr().add(at).cast());
                let m = _mm_or_si128(
                    _mm_or_si128(
                        _mm_cmpeq_epi8(v, _mm_set1_epi8(delim as i8)),
                        _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8)),
                    ),
                    _mm_or_si128(
                        _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\n' as i8)),
                        _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\r' as i8)),
                    ),
                );
                _mm_movemask_epi8(m) != 0
            }
        };
        let last = field.len() - 16;
        let mut at = 0;
        while at < last {
            if hit(at) {
                return true;
            }
            at += 16;
        }
        hit(last)
    }

    /// The prefetch instruction for the cache line at `p`.
    #[inline(always)]
    pub(super) fn prefetch<T>(p: *const T) {
        // SAFETY: a prefetch never faults and reads nothing the program
        // sees; SSE is part of the x86-64 baseline.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast::<i8>()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Any byte below `n` anywhere in the word is found, and the first
    /// one marked is the first one below `n`.
    #[test]
    fn bytes_below_finds_the_first_byte_below() {
        for n in [1u8, 0x0e, 0x21, 0x80] {
            for at in 0..8 {
                for b in 0u8..=255 {
                    for fill in [b'a', 0xff, n] {
                        let mut w = [fill; 8];
                        w[at] = b;
                        let got = bytes_below(u64::from_le_bytes(w), n);
                        let first = w.iter().position(|&c| c < n);
                        assert_eq!(got != 0, first.is_some(), "{n} {at} {b}");
                        if let Some(i) = first {
                            assert_eq!(got.trailing_zeros() as usize, 8 * i + 7, "{n} {at} {b}");
                        }
                    }
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3_000))]
        /// Each search is its portable version, at every length (the
        /// 64-byte blocks and their tail; the 16-byte blocks, the
        /// overlapping last one and the fields under 16 bytes).
        #[test]
        fn each_search_is_its_portable_version(
            b in proptest::collection::vec(
                prop_oneof![any::<u8>(), prop::sample::select(b"\n\r\",\ta".to_vec())],
                0..300,
            ),
            tab: bool,
        ) {
            let (mut fast, mut slow) = (Vec::new(), Vec::new());
            for_each_newline(&b, |i| fast.push(i));
            for_each_newline_portable(&b, |i| slow.push(i));
            prop_assert_eq!(fast, slow);
            let delim = if tab { b'\t' } else { b',' };
            prop_assert_eq!(csv_needs_quotes(&b, delim), csv_needs_quotes_portable(&b, delim));
        }
    }
}
