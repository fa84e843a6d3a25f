//! The classes of a line's bytes as bit masks, one bit per byte: the input
//! of the whole-line split of the usual crawl line (3987bis §2.2, RFC 3986
//! §3, §2.1 for the `%` triplets), built 32 bytes per AVX2 register or 64
//! per AVX-512 register, with the byte-at-a-time build as the portable
//! reference the vector code is tested against.
//!
//! Classified at once: ASCII bytes no component admits raw (controls,
//! space, `[`, …), `%`, non-ASCII bytes, `/`, `?`, `#`, `:` or `@`, `.`,
//! uppercase and `-`. The `%` triplets are classified with the rest: with
//! AVX-512 the two bytes after each byte are loaded beside it and valued by
//! nibble lookups, so a line's triplets cost one step whatever their
//! number. AVX2 stops at 64 bytes: for longer lines, blocks joined into
//! `u128` masks cost as much as the component scan (BENCHMARKS.md,
//! decision log: "Whole-line bit-mask split (AVX2 and AVX-512)").

#[cfg(test)]
use super::bits::{range, Bits, Shifts};
#[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
use super::bits::{Join, U256};
#[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
use super::detect::{Avx2, Avx512bw, Bmi2};
use crate::chars;

/// The longest line taken by the AVX2 masks: one bit per byte of a `u64`.
pub(crate) const MAX_LEN: usize = 64;
/// The longest line taken by two AVX-512 registers: a `u128`.
pub(crate) const MAX_LEN_WIDE: usize = 128;
/// The longest line taken by four AVX-512 registers: a [`U256`](super::bits::U256).
pub(crate) const MAX_LEN_256: usize = 256;

/// One bit per byte of the line (bit `i` is byte `i`), per class.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Masks<B> {
    /// Bytes no component admits raw: outside [`chars::S_FRAGMENT`], the
    /// widest class (non-ASCII is in no class), and not `%`.
    ///
    /// [`chars::S_FRAGMENT`]: crate::chars::S_FRAGMENT
    pub(crate) bad: B,
    /// `%`: each must start a `pct-encoded` triplet (checked by the split).
    pub(crate) pct: B,
    /// Non-ASCII bytes (also in `bad`): each character they make up must
    /// be a `ucschar` (checked by the split).
    pub(crate) high: B,
    pub(crate) slash: B,
    pub(crate) question: B,
    pub(crate) hash: B,
    /// `:` or `@`: in the authority, a port or userinfo (left to the full
    /// parser); elsewhere plain bytes.
    pub(crate) colon_at: B,
    pub(crate) dot: B,
    pub(crate) upper: B,
    pub(crate) hyphen: B,
    /// Lead bytes of the characters the split checks one at a time: `C2`
    /// (U+0080–00BF, the C1 controls among them), `E2` (U+2000–2FFF, the
    /// bidi formatting characters among them) and `EE` up (private use,
    /// non-characters, the planes above the BMP). The characters of
    /// every other lead byte are all `ucschar`s (§2.2) and none is a bidi
    /// formatting one (§4.1).
    pub(crate) high_slow: B,
    /// `%` bytes not followed by two hex digits (RFC 3986 §2.1): the
    /// split gives up on the line.
    pub(crate) triplet_bad: B,
    /// `%` bytes whose triplet percent-encoding normalization rewrites: a
    /// lowercase hex digit (§5.3.2.1) or an unreserved character
    /// (§5.3.2.3).
    pub(crate) triplet_dirty: B,
}

#[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
impl<B: Copy> Masks<B> {
    /// The masks of a line from those of its first and second half.
    #[inline(always)]
    fn join<W: Join<B>>(lo: &Self, hi: &Self) -> Masks<W> {
        Masks {
            bad: W::join(lo.bad, hi.bad),
            pct: W::join(lo.pct, hi.pct),
            high: W::join(lo.high, hi.high),
            slash: W::join(lo.slash, hi.slash),
            question: W::join(lo.question, hi.question),
            hash: W::join(lo.hash, hi.hash),
            colon_at: W::join(lo.colon_at, hi.colon_at),
            dot: W::join(lo.dot, hi.dot),
            upper: W::join(lo.upper, hi.upper),
            hyphen: W::join(lo.hyphen, hi.hyphen),
            high_slow: W::join(lo.high_slow, hi.high_slow),
            triplet_bad: W::join(lo.triplet_bad, hi.triplet_bad),
            triplet_dirty: W::join(lo.triplet_dirty, hi.triplet_dirty),
        }
    }
}

/// The masks the slow way, a byte at a time: the reference the vector
/// code is tested against.
#[cfg(test)]
pub(crate) fn masks_scalar<B: Bits>(b: &[u8]) -> Masks<B> {
    let mut m = Masks::<B>::default();
    for (i, &c) in b.iter().enumerate().take(B::WIDTH) {
        let bit = range::<B, _>(Shifts, i, i + 1);
        let set = |mask: &mut B, yes: bool| {
            if yes {
                *mask |= bit
            }
        };
        set(
            &mut m.bad,
            chars::SCAN[c as usize] & chars::S_FRAGMENT == 0 && c != b'%',
        );
        set(&mut m.pct, c == b'%');
        set(&mut m.high, c >= 0x80);
        set(&mut m.slash, c == b'/');
        set(&mut m.question, c == b'?');
        set(&mut m.hash, c == b'#');
        set(&mut m.colon_at, c == b':' || c == b'@');
        set(&mut m.dot, c == b'.');
        set(&mut m.upper, c.is_ascii_uppercase());
        set(&mut m.hyphen, c == b'-');
        set(&mut m.high_slow, is_slow_lead(c));
        if c == b'%' {
            let (bad, dirty) = triplet(b, i);
            set(&mut m.triplet_bad, bad);
            set(&mut m.triplet_dirty, dirty);
        }
    }
    m
}

/// A lead byte of [`Masks::high_slow`].
#[cfg(test)]
fn is_slow_lead(c: u8) -> bool {
    c == 0xC2 || c == 0xE2 || c >= 0xEE
}

/// Whether the `%` at `b[at]` starts no triplet (RFC 3986 §2.1), and
/// whether percent-encoding normalization rewrites it (§5.3.2.1 a
/// lowercase hex digit, §5.3.2.3 an unreserved character).
#[inline]
fn triplet(b: &[u8], at: usize) -> (bool, bool) {
    let digit = |i: usize| b.get(i).and_then(|&c| Some((c, chars::hex_val(c)?)));
    match (digit(at + 1), digit(at + 2)) {
        (Some((h, hv)), Some((l, lv))) => (
            false,
            h.is_ascii_lowercase() || l.is_ascii_lowercase() || chars::is_unreserved(hv * 16 + lv),
        ),
        _ => (true, false),
    }
}

/// The masks of `b` (at most [`MAX_LEN`] bytes), 32 bytes at a time.
#[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
#[inline(always)]
pub(crate) fn masks_avx2(_: Avx2, b: &[u8]) -> Masks<u64> {
    // SAFETY: the CPU has AVX2 (an `Avx2` exists).
    unsafe { x86::masks(b) }
}

/// The masks of `b` (at most [`MAX_LEN`] bytes) from one AVX-512 register.
#[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
#[inline(always)]
pub(crate) fn masks_avx512(_: Avx512bw, b: &[u8], bmi2: Bmi2) -> Masks<u64> {
    // SAFETY: the CPU has AVX-512BW (an `Avx512bw` exists) and BMI2.
    unsafe { x86::masks_avx512(b, bmi2) }
}

/// The masks of `b` (65 to [`MAX_LEN_WIDE`] bytes) from two AVX-512
/// registers.
#[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
#[inline(always)]
pub(crate) fn masks_avx512_wide(_: Avx512bw, b: &[u8], bmi2: Bmi2) -> Masks<u128> {
    // SAFETY: the CPU has AVX-512BW (an `Avx512bw` exists) and BMI2.
    unsafe { x86::masks_avx512_wide(b, bmi2) }
}

/// The masks of `b` (129 to [`MAX_LEN_256`] bytes) from four AVX-512
/// registers.
#[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
#[inline(always)]
pub(crate) fn masks_avx512_256(_: Avx512bw, b: &[u8], bmi2: Bmi2) -> Masks<U256> {
    // SAFETY: the CPU has AVX-512BW (an `Avx512bw` exists) and BMI2.
    unsafe { x86::masks_avx512_256(b, bmi2) }
}

#[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
mod x86 {
    use super::{Masks, MAX_LEN, MAX_LEN_256, MAX_LEN_WIDE};
    use crate::simd::bits::{Low, U256};
    use crate::simd::detect::Bmi2;
    use std::arch::x86_64::*;

    /// The masks of `b` (at most [`MAX_LEN`] bytes) from one 64-byte
    /// register: a masked load reads only the line's bytes (the others are
    /// zero, and the lanes past the end of `b` are never touched), and
    /// each class is one compare straight into a mask register.
    ///
    /// # Safety
    /// The CPU must have AVX-512BW (and BMI2, which `bmi2` says).
    #[target_feature(enable = "avx512f,avx512bw")]
    #[inline]
    pub(super) unsafe fn masks_avx512(b: &[u8], bmi2: Bmi2) -> Masks<u64> {
        debug_assert!(b.len() <= MAX_LEN);
        classes(b, 0, tables(), bmi2)
    }

    /// [`masks_avx512`] for 65 to [`MAX_LEN_WIDE`] bytes: two registers,
    /// their masks joined into `u128`s.
    ///
    /// # Safety
    /// The CPU must have AVX-512BW (and BMI2, which `bmi2` says).
    #[target_feature(enable = "avx512f,avx512bw")]
    #[inline]
    pub(super) unsafe fn masks_avx512_wide(b: &[u8], bmi2: Bmi2) -> Masks<u128> {
        debug_assert!(b.len() > MAX_LEN && b.len() <= MAX_LEN_WIDE);
        let t = tables();
        Masks::join(&classes(b, 0, t, bmi2), &classes(b, MAX_LEN, t, bmi2))
    }

    /// [`masks_avx512`] for 129 to [`MAX_LEN_256`] bytes: four registers,
    /// their masks joined into [`U256`]s.
    ///
    /// # Safety
    /// The CPU must have AVX-512BW (and BMI2, which `bmi2` says).
    #[target_feature(enable = "avx512f,avx512bw")]
    #[inline]
    pub(super) unsafe fn masks_avx512_256(b: &[u8], bmi2: Bmi2) -> Masks<U256> {
        debug_assert!(b.len() > MAX_LEN_WIDE && b.len() <= MAX_LEN_256);
        let t = tables();
        let lo = Masks::join(&classes(b, 0, t, bmi2), &classes(b, MAX_LEN, t, bmi2));
        let hi = Masks::join(
            &classes(b, 2 * MAX_LEN, t, bmi2),
            &classes(b, 3 * MAX_LEN, t, bmi2),
        );
        Masks::join(&lo, &hi)
    }

    /// The nibble tables of [`FRAGMENT`](crate::simd::runs::FRAGMENT) in every lane.
    #[target_feature(enable = "avx512f,avx512bw")]
    #[inline]
    fn tables() -> (__m512i, __m512i) {
        let (lo, hi) = crate::simd::runs::FRAGMENT.tables();
        (table(lo), table(hi))
    }

    /// The masks of the at most 64 bytes of `b` from `at` (none when `at`
    /// is past the end).
    #[target_feature(enable = "avx512f,avx512bw")]
    #[inline]
    fn classes(b: &[u8], at: usize, (lo, hi): (__m512i, __m512i), bmi2: Bmi2) -> Masks<u64> {
        let line = bmi2.below::<u64>(b.len().saturating_sub(at));
        // SAFETY: the masked load reads `b[at..]`, at most 64 bytes, only
        // (masked-off lanes are not accessed, and read as zero; with no
        // byte left the pointer is never dereferenced).
        let v = unsafe { _mm512_maskz_loadu_epi8(line, b.as_ptr().wrapping_add(at).cast()) };
        let eq = |c: u8| _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(c as i8));
        let (low, high) = nibbles(v);
        let rows = _mm512_and_si512(_mm512_shuffle_epi8(lo, low), _mm512_shuffle_epi8(hi, high));
        let pct = eq(b'%');
        let (triplet_bad, triplet_dirty) = if pct == 0 {
            (0, 0)
        } else {
            triplets(b, at, pct, bmi2)
        };
        let high = _mm512_movepi8_mask(v);
        Masks {
            bad: !_mm512_test_epi8_mask(rows, rows) & line & !pct,
            pct,
            high,
            slash: eq(b'/'),
            question: eq(b'?'),
            hash: eq(b'#'),
            colon_at: eq(b':') | eq(b'@'),
            dot: eq(b'.'),
            upper: _mm512_cmplt_epu8_mask(
                _mm512_sub_epi8(v, _mm512_set1_epi8(b'A' as i8)),
                _mm512_set1_epi8(26),
            ),
            hyphen: eq(b'-'),
            high_slow: if high == 0 {
                0
            } else {
                eq(0xC2) | eq(0xE2) | _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0xEEu8 as i8))
            },
            triplet_bad,
            triplet_dirty,
        }
    }

    /// Each byte's low and high nibble.
    #[target_feature(enable = "avx512f,avx512bw")]
    #[inline]
    fn nibbles(v: __m512i) -> (__m512i, __m512i) {
        let low = _mm512_and_si512(v, _mm512_set1_epi8(0x0f));
        let high = _mm512_and_si512(_mm512_srli_epi16::<4>(v), _mm512_set1_epi8(0x0f));
        (low, high)
    }

    /// A 16-byte table in every lane, for `vpshufb`.
    #[target_feature(enable = "avx512f,avx512bw")]
    #[inline]
    fn table(t: &[u8; 16]) -> __m512i {
        // SAFETY: 16 bytes of an array, an unaligned load.
        unsafe { _mm512_broadcast_i32x4(_mm_loadu_si128(t.as_ptr().cast())) }
    }

    /// The hex digit classes of a byte, by its low and its high nibble (a
    /// byte is in a class when both entries have its bit).
    const DIGIT: u8 = 1;
    const UPPER_HEX: u8 = 2;
    const LOWER_HEX: u8 = 4;
    const HEX_LOW: [u8; 16] = {
        let mut t = [0; 16];
        let mut i = 0;
        while i < 16 {
            t[i] = if i <= 9 { DIGIT } else { 0 }
                | if i >= 1 && i <= 6 {
                    UPPER_HEX | LOWER_HEX
                } else {
                    0
                };
            i += 1;
        }
        t
    };
    const HEX_HIGH: [u8; 16] = {
        let mut t = [0; 16];
        t[3] = DIGIT;
        t[4] = UPPER_HEX;
        t[6] = LOWER_HEX;
        t
    };
    /// What a hex digit's high nibble adds to its low one for its value:
    /// 9 for a letter. (A lowercase digit's value is never needed: its
    /// triplet is rewritten whatever it encodes.)
    const HEX_ADD: [u8; 16] = {
        let mut t = [0; 16];
        t[4] = 9;
        t[6] = 9;
        t
    };
    /// The first hex digit `h` of a triplet as a bit, `1 << (h - 2)` for
    /// `2..=7` (every unreserved character is `0x2D..=0x7E`), ...
    const FIRST: [u8; 16] = {
        let mut t = [0; 16];
        let mut h = 2;
        while h <= 7 {
            t[h] = 1 << (h - 2);
            h += 1;
        }
        t
    };
    /// ... and by the second digit `l`, the bits of the first digits `h`
    /// for which `h * 16 + l` is unreserved (RFC 3986 §2.3).
    const SECOND: [u8; 16] = {
        let class = crate::chars::build();
        let mut t = [0; 16];
        let mut l = 0;
        while l < 16 {
            let mut h = 2;
            while h <= 7 {
                if class[h * 16 + l] & crate::chars::UNRESERVED != 0 {
                    t[l] |= 1 << (h - 2);
                }
                h += 1;
            }
            l += 1;
        }
        t
    };

    /// Of the `pct` bytes of `b[at..]` (bit `i` is `b[at + i]`), those not
    /// followed by two hex digits (RFC 3986 §2.1), and those whose triplet
    /// is rewritten (§5.3.2.1 a lowercase digit, §5.3.2.3 an unreserved
    /// character), all at once: the two bytes after each byte are loaded
    /// beside it, classified and valued by nibble lookups.
    #[target_feature(enable = "avx512f,avx512bw")]
    #[inline]
    fn triplets(b: &[u8], at: usize, pct: u64, bmi2: Bmi2) -> (u64, u64) {
        let after = |k: usize| {
            let n = b.len().saturating_sub(at + k);
            // SAFETY: the masked load reads `b[at + k..]`, at most 64
            // bytes, only; with no byte left it reads none, and the
            // pointer is never dereferenced.
            unsafe {
                _mm512_maskz_loadu_epi8(
                    bmi2.below::<u64>(n),
                    b.as_ptr().wrapping_add(at + k).cast(),
                )
            }
        };
        let (first, second) = (after(1), after(2));
        let (hex_low, hex_high) = (table(&HEX_LOW), table(&HEX_HIGH));
        let digit = |v: __m512i| {
            let (low, high) = nibbles(v);
            let class = _mm512_and_si512(
                _mm512_shuffle_epi8(hex_low, low),
                _mm512_shuffle_epi8(hex_high, high),
            );
            let value = _mm512_add_epi8(low, _mm512_shuffle_epi8(table(&HEX_ADD), high));
            (class, value)
        };
        let ((c1, v1), (c2, v2)) = (digit(first), digit(second));
        let hex = _mm512_test_epi8_mask(c1, c1) & _mm512_test_epi8_mask(c2, c2);
        let lower = _mm512_set1_epi8(LOWER_HEX as i8);
        let lowercase = _mm512_test_epi8_mask(_mm512_or_si512(c1, c2), lower);
        let unreserved = _mm512_test_epi8_mask(
            _mm512_shuffle_epi8(table(&FIRST), v1),
            _mm512_shuffle_epi8(table(&SECOND), v2),
        );
        (pct & !hex, pct & hex & (lowercase | unreserved))
    }

    /// The masks of `b` (at most [`MAX_LEN`] bytes), 32 bytes at a time.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(super) unsafe fn masks(b: &[u8]) -> Masks<u64> {
        debug_assert!(b.len() <= MAX_LEN);
        let (lo, hi) = crate::simd::runs::FRAGMENT.tables();
        // SAFETY: 16 bytes of an array, unaligned loads allowed.
        let (lo, hi) = unsafe {
            (
                _mm256_broadcastsi128_si256(_mm_loadu_si128(lo.as_ptr().cast())),
                _mm256_broadcastsi128_si256(_mm_loadu_si128(hi.as_ptr().cast())),
            )
        };
        let len = b.len();
        let mut m = Masks::default();
        if len < 32 {
            // Shorter than one block: a padded copy (NUL is a bad byte,
            // trimmed below).
            let mut pad = [0u8; 32];
            pad[..len].copy_from_slice(b);
            // SAFETY: 32 bytes from 0; AVX2 (this function's contract).
            unsafe { block::<0>(&pad, 0, lo, hi, &mut m) };
            m.bad &= (1u64 << len) - 1;
        } else {
            // SAFETY: each block is in `b` (`len >= 32`); AVX2 as above.
            unsafe {
                block::<0>(b, 0, lo, hi, &mut m);
                if len > 32 {
                    block::<32>(b, len, lo, hi, &mut m);
                }
            }
        }
        // The triplets one at a time (the blocks' loads may not reach
        // the digits after them).
        let mut rest = m.pct;
        while rest != 0 {
            let at = rest.trailing_zeros() as usize;
            let (bad, dirty) = super::triplet(b, at);
            m.triplet_bad |= u64::from(bad) << at;
            m.triplet_dirty |= u64::from(dirty) << at;
            rest &= rest - 1;
        }
        m
    }

    /// Classify the 32 bytes from `K` into `m`'s bits `K..K + 32`. When
    /// the line ends before `K + 32` (`len`, 0 for the first block), the
    /// block loaded is the line's last 32 bytes and its bits are shifted
    /// past those already classified.
    ///
    /// # Safety
    /// The CPU must have AVX2, and `b` must hold 32 bytes from `K` or, when
    /// `len < K + 32`, from `len - 32`.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn block<const K: usize>(
        b: &[u8],
        len: usize,
        lo: __m256i,
        hi: __m256i,
        m: &mut Masks<u64>,
    ) {
        let start = if K + 32 <= len || K == 0 { K } else { len - 32 };
        let skip = K - start;
        // SAFETY: `start + 32 <= b.len()` (the contract).
        let v = unsafe { _mm256_loadu_si256(b.as_ptr().add(start).cast()) };
        macro_rules! put {
            ($x:expr) => {
                ((((_mm256_movemask_epi8($x) as u32) >> skip) as u64) << K)
            };
        }
        macro_rules! eq {
            ($c:expr) => {
                put!(_mm256_cmpeq_epi8(v, _mm256_set1_epi8($c as i8)))
            };
        }
        // Nibble lookup of `runs` (a byte is in the class when both of its
        // nibbles' table entries share a bit).
        let low = _mm256_and_si256(v, _mm256_set1_epi8(0x0f));
        let high = _mm256_and_si256(_mm256_srli_epi16::<4>(v), _mm256_set1_epi8(0x0f));
        let rows = _mm256_and_si256(_mm256_shuffle_epi8(lo, low), _mm256_shuffle_epi8(hi, high));
        let pct = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'%' as i8));
        let outside = _mm256_cmpeq_epi8(rows, _mm256_setzero_si256());
        m.bad |= put!(_mm256_andnot_si256(pct, outside));
        m.pct |= put!(pct);
        let high = put!(v);
        m.high |= high;
        if high != 0 {
            // `EE` up: above `ED` as signed bytes, and high.
            let above = _mm256_cmpgt_epi8(v, _mm256_set1_epi8(0xEDu8 as i8));
            m.high_slow |= put!(_mm256_or_si256(
                _mm256_or_si256(
                    _mm256_cmpeq_epi8(v, _mm256_set1_epi8(0xC2u8 as i8)),
                    _mm256_cmpeq_epi8(v, _mm256_set1_epi8(0xE2u8 as i8)),
                ),
                _mm256_and_si256(above, v),
            ));
        }
        m.slash |= eq!(b'/');
        m.question |= eq!(b'?');
        m.hash |= eq!(b'#');
        m.colon_at |= put!(_mm256_or_si256(
            _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b':' as i8)),
            _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'@' as i8)),
        ));
        m.dot |= eq!(b'.');
        m.hyphen |= eq!(b'-');
        // 'A'..='Z' moved to -128..-103, then one signed compare.
        let shifted = _mm256_add_epi8(v, _mm256_set1_epi8((0x80u8 - b'A') as i8));
        m.upper |= put!(_mm256_cmpgt_epi8(
            _mm256_set1_epi8((0x80u8 + 26) as i8),
            shifted
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The split looks only at the characters of [`Masks::high_slow`]'s
    /// lead bytes: every other non-ASCII character is a `ucschar` (§2.2)
    /// and no bidi formatting character (§4.1).
    #[test]
    fn characters_of_other_lead_bytes_need_no_look() {
        let mut skipped = 0;
        for c in ('\u{80}'..=char::MAX).filter(|c| !is_slow_lead(c.to_string().as_bytes()[0])) {
            assert!(chars::is_ucschar(c) && !chars::is_bidi_format(c), "{c:?}");
            skipped += 1;
        }
        // C3–DF: 29 · 64; E0 (U+0800–0FFF) and ED (U+D000–D7FF, then
        // the surrogates): 2048 each; E1, E3–EC: 11 · 4096.
        assert_eq!(skipped, 29 * 64 + 2 * 2048 + 11 * 4096);
    }

    #[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(5_000))]
        /// Every length up to 256 (each block, the overlapping last one, the
        /// padded short one, one, two and four 64-byte registers, the last
        /// one partly or not at all in the line) and every byte value.
        #[test]
        fn vector_masks_are_the_scalar_masks(
            b in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::prelude::any::<u8>(),
                    proptest::sample::select(b"/?#:@.-AZaz09%[%%2457DEdef".to_vec()),
                ],
                0..=MAX_LEN_256,
            )
        ) {
            let f = crate::simd::detect::features();
            if let (true, Some(avx2)) = (b.len() <= MAX_LEN, f.avx2()) {
                proptest::prop_assert_eq!(masks_avx2(avx2, &b), masks_scalar::<u64>(&b));
            }
            let (Some(bmi2), Some(avx512)) = (f.bmi2(), f.avx512bw()) else {
                return Ok(());
            };
            if b.len() <= MAX_LEN {
                let fast = masks_avx512(avx512, &b, bmi2);
                proptest::prop_assert_eq!(fast, masks_scalar::<u64>(&b));
            } else if b.len() <= MAX_LEN_WIDE {
                let fast = masks_avx512_wide(avx512, &b, bmi2);
                proptest::prop_assert_eq!(fast, masks_scalar::<u128>(&b));
            } else {
                let fast = masks_avx512_256(avx512, &b, bmi2);
                proptest::prop_assert_eq!(fast, masks_scalar::<U256>(&b));
            }
        }
    }
}
