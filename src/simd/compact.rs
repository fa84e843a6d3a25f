//! The compaction kernel of the rewrite of a short crawl line: the syntax
//! and scheme rungs (draft-ietf-iri-3987bis §5.3.2–§5.3.3, RFC 3986
//! §6.2.2–§6.2.3) as bit masks over the line's bytes, then the bytes kept
//! copied out in one instruction per 64 (AVX-512 VBMI2 `vpcompressb`).
//!
//! What it does and which lines it takes is described in
//! `crate::ladder::compact`, which plans the line ([`Plan`]); its portable
//! twin is the scalar rewrite of `crate::ladder::http`, which takes every
//! line this kernel leaves (and, with `--cfg irinorm_portable` or off
//! x86-64, every line). The hex values of every byte are computed at once
//! and moved under their `%` with a byte permutation (`vpermb`), so a
//! triplet costs no branch; dot segments are found by mask arithmetic in
//! the line as written.

use std::arch::x86_64::*;

use super::bits::{range, Bits, Low, U256};
use super::detect::{Bmi2, Compact};
use crate::chars::HEX_UPPER;

/// The longest line taken: four 64-byte registers.
pub(crate) const MAX_LEN: usize = 256;

/// What the masks need to know of a line besides its bytes: where its
/// parts are, and the one decision taken outside them (the port's bytes
/// to drop).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Plan {
    /// The end of the host: scheme, `://` and host are lowercased.
    pub host_end: usize,
    /// Bytes `port_drop.0..port_drop.1` of the port (with or without its
    /// `:`) go.
    pub port_drop: (usize, usize),
    /// The path, `path.0..path.1`.
    pub path: (usize, usize),
    /// Where the fragment's `#` is, if there is one.
    pub fragment: Option<usize>,
    /// The scan saw a `.` after a `/` in the path (`PATH_DOT`).
    pub dots: bool,
}

/// Write the key of the line `s` (as `plan` describes it: a parsed line of
/// at most [`MAX_LEN`] bytes, every `%` starting a triplet of hex digits,
/// its host ASCII and ending at `plan.host_end`) into the empty `out`,
/// whose capacity must be at least the line's length, and three times it
/// plus 16 when the line is not all ASCII. `false` (with `out` empty) when
/// the line is one the scalar rewrite must take after all (a `%2E` decoded
/// in the path, a `#` in the fragment, too little room).
///
/// Whatever `plan` says, the kernel writes only within `out`'s capacity
/// and only ASCII (non-ASCII bytes are written as their triplets).
#[inline]
pub(crate) fn compact(_: Compact, s: &str, plan: &Plan, out: &mut String) -> bool {
    let len = s.len();
    if len > MAX_LEN || !out.is_empty() || out.capacity() < len {
        return false;
    }
    let cap = out.capacity();
    // SAFETY: the CPU has what the kernel needs (a `Compact` exists);
    // `out` has room for `len` bytes, and the kernel checks the room of
    // the longer output of a non-ASCII line against `cap`.
    let written = unsafe { compact_any(s.as_bytes(), plan, out.as_mut_ptr(), cap) };
    let Some(n) = written else {
        return false;
    };
    // SAFETY: the kernel wrote `n <= cap` bytes of ASCII (the line's
    // bytes, some case-changed, decoded unreserved characters, and the
    // triplets of the non-ASCII ones).
    unsafe { out.as_mut_vec().set_len(n) };
    true
}

/// A line's worth of bits, one per byte: `u64` for a line of one
/// register, `u128` for two, [`U256`] for four. The shorter types keep
/// the mask arithmetic of most lines in single registers. The parse's
/// [`Bits`] (width, words, `trailing_zeros`; "bits `0..n`" with its
/// [`Bmi2`], [`bmi2`]), and what the compaction needs besides.
trait Mask: Bits + std::ops::BitAndAssign + std::ops::Shr<u32, Output = Self> {
    /// The 64-byte registers a line of [`Bits::WIDTH`] bytes takes.
    const REGS: usize = Self::WIDTH / 64;
    /// Word `k` (`k < REGS`): register `k`'s bits.
    fn word(self, k: usize) -> u64;
    fn leading_zeros(self) -> usize;
}

macro_rules! mask {
    ($t:ty) => {
        impl Mask for $t {
            #[inline(always)]
            fn word(self, k: usize) -> u64 {
                (self >> (64 * k)) as u64
            }
            #[inline(always)]
            fn leading_zeros(self) -> usize {
                <$t>::leading_zeros(self) as usize
            }
        }
    };
}

mask!(u64);
mask!(u128);

impl Mask for U256 {
    #[inline(always)]
    fn word(self, k: usize) -> u64 {
        U256::word(self, k)
    }
    #[inline(always)]
    fn leading_zeros(self) -> usize {
        U256::leading_zeros(self) as usize
    }
}

/// The parse's "bits `0..n`" with `bzhi`, one instruction a word and no
/// branch (a branch on the length here is a costly mispredict).
#[inline(always)]
fn bmi2() -> Bmi2 {
    // SAFETY: only called from functions that enable BMI2 (`compact_with`,
    // `store`, and `dot_segments` inlined into the first), which run only
    // under a `Compact` token, whose features include BMI2.
    unsafe { Bmi2::assume() }
}

/// Bit `i`, or none when `i` is past the mask.
#[inline(always)]
fn bit<M: Mask>(i: usize) -> M {
    range(bmi2(), i.min(M::WIDTH), (i + 1).min(M::WIDTH))
}

/// [`compact_with`] with masks as wide as the line needs.
///
/// # Safety
/// As [`compact_with`].
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,bmi1,bmi2,lzcnt,popcnt")]
unsafe fn compact_any(s: &[u8], plan: &Plan, out: *mut u8, cap: usize) -> Option<usize> {
    // SAFETY: this function's contract.
    unsafe {
        if s.len() <= 64 {
            compact_with::<u64>(s, plan, out, cap)
        } else if s.len() <= 128 {
            compact_with::<u128>(s, plan, out, cap)
        } else {
            compact_with::<U256>(s, plan, out, cap)
        }
    }
}

/// Write the key of the line `s` (as [`Plan`] describes it) to `out`; its
/// length, or `None` when the line is one the scalar rewrite must take
/// after all (a `%2E` decoded in the path, a `#` in the fragment, a
/// non-ASCII line and less than `3 * len + 16` bytes of room).
///
/// # Safety
/// The CPU must have what a [`Compact`] token says; `s` is at most
/// [`M::WIDTH`](Bits::WIDTH) bytes; `out` must be valid for writes of
/// `cap` bytes, and `cap` be at least `s.len()`. (The key is right only
/// for a line as [`compact`] describes it; its memory safety does not
/// depend on that.)
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,bmi1,bmi2,lzcnt,popcnt")]
#[inline]
unsafe fn compact_with<M: Mask>(s: &[u8], plan: &Plan, out: *mut u8, cap: usize) -> Option<usize> {
    debug_assert!(s.len() <= M::WIDTH);
    let len = s.len();
    // Register `k` holds bytes `64 * k..`; its lanes past the line are zero.
    let mut v = [_mm512_setzero_si512(); 4];
    for (k, v) in v.iter_mut().enumerate().take(M::REGS) {
        let n = len.saturating_sub(64 * k);
        // SAFETY: the masked load reads `s[64 * k..]`, at most 64 bytes,
        // only (none when `n` is 0); masked-off lanes are not touched and
        // read as zero.
        *v = unsafe { _mm512_maskz_loadu_epi8(bmi2().below(n), s.as_ptr().add(64 * k).cast()) };
    }
    let v = &mut v[..M::REGS];
    if let Some(f) = plan.fragment {
        // A `#` in the fragment is encoded (`%23`): the output grows.
        if class::<M>(v, b'#') & range::<M, _>(bmi2(), f + 1, len) != M::ZERO {
            return None;
        }
    }
    let mut drop = range::<M, _>(bmi2(), plan.port_drop.0, plan.port_drop.1);

    // §5.3.2.1: scheme and host lowercase (nothing before the host's end
    // is a hex digit: there is no `%` there).
    let upper = M::from_words(|k| in_range(v[k], b'A', 26)) & bmi2().below::<M>(plan.host_end);
    for (k, v) in v.iter_mut().enumerate() {
        *v = _mm512_mask_add_epi8(*v, upper.word(k), *v, _mm512_set1_epi8(0x20));
    }

    // §5.3.2.1 and §5.3.2.3: every triplet at once.
    let pct = class::<M>(v, b'%');
    if pct != M::ZERO {
        // A hex digit's value: its low nibble, plus 9 for a letter.
        let mut hex = [_mm512_setzero_si512(); 5];
        for (h, &v) in hex.iter_mut().zip(v.iter()) {
            let nib = _mm512_and_si512(v, _mm512_set1_epi8(0x0f));
            let letter = _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0x40));
            *h = _mm512_mask_add_epi8(nib, letter, nib, _mm512_set1_epi8(9));
        }
        // Lane `i` of `after(k, j)` holds the hex value of byte `i + j` of
        // register `k` (the next register's first bytes past its end).
        let after = |k: usize, j: i8| {
            let idx = _mm512_add_epi8(lane_index(), _mm512_set1_epi8(j));
            _mm512_permutex2var_epi8(hex[k], idx, hex[k + 1])
        };
        let mut val = [_mm512_setzero_si512(); 4];
        for (k, val) in val.iter_mut().enumerate().take(M::REGS) {
            // `h1 << 4` in 16-bit lanes: a value of at most 15 stays in its
            // byte, and what a larger one spills is masked off.
            let high = _mm512_and_si512(
                _mm512_slli_epi16::<4>(after(k, 1)),
                _mm512_set1_epi8(0xf0u8 as i8),
            );
            *val = _mm512_or_si512(high, _mm512_and_si512(after(k, 2), _mm512_set1_epi8(0x0f)));
        }
        let unreserved = M::from_words(|k| is_unreserved(val[k]));
        let decoded = pct & unreserved;
        let decoded_dot = decoded & M::from_words(|k| eq(val[k], b'.'));
        if decoded_dot & range::<M, _>(bmi2(), plan.path.0, plan.path.1) != M::ZERO {
            // `%2E` may make a dot segment only once decoded (one decoded
            // after the path is in no segment).
            return None;
        }
        for (k, v) in v.iter_mut().enumerate() {
            *v = _mm512_mask_mov_epi8(*v, decoded.word(k), val[k]);
        }
        // The hex digits of every triplet to uppercase: those of a decoded
        // one too, which are dropped anyway. (Every triplet is whole, so
        // no digit is past the line.)
        let digits = pct << 1 | pct << 2;
        let gone = decoded << 1 | decoded << 2;
        let lower_hex = M::from_words(|k| in_range(v[k], b'a', 6)) & digits;
        for (k, v) in v.iter_mut().enumerate() {
            *v = _mm512_mask_sub_epi8(*v, lower_hex.word(k), *v, _mm512_set1_epi8(0x20));
        }
        drop |= gone;
    }

    // §5.3.2.4 (RFC 3986 §5.2.4), on a path that starts with '/' (after
    // `scheme://`, so `pe > ps >= 3`).
    let (ps, pe) = plan.path;
    if plan.dots && pe > ps {
        let slash = class::<M>(v, b'/');
        let dot = class::<M>(v, b'.');
        // A segment's first byte follows a '/'; the byte after a `.` (or
        // after `..`) ends the segment when it is a '/' or the path's end.
        let starts = slash << 1 & range::<M, _>(bmi2(), ps + 1, pe);
        let ends_next = slash >> 1 | bit::<M>(pe - 1);
        let ends_after_next = slash >> 2 | bit::<M>(pe - 2);
        let single = dot & starts & ends_next;
        let double = dot & starts & dot >> 1 & ends_after_next;
        drop |= dot_segments(
            single | double,
            double,
            slash & range::<M, _>(bmi2(), ps, pe),
            pe,
        );
    }

    let keep = bmi2().below::<M>(len) & !drop;
    let high = M::from_words(|k| _mm512_movepi8_mask(v[k]));
    if high == M::ZERO {
        // SAFETY: `out` has room for `len` bytes, at least as many as
        // `keep` has bits (the caller's contract).
        return Some(unsafe { store(out, v, |k| keep.word(k)) });
    }
    // Non-ASCII bytes (none is dropped): compacted on the stack first,
    // then copied out with each one as its triplet (§3.3), which takes at
    // most three bytes for each of the line's and 16 to copy over.
    if cap < 3 * len + 16 {
        return None;
    }
    let mut kept = [0u8; MAX_LEN + 16];
    // SAFETY: `kept` has room for `len` bytes.
    let n = unsafe { store(kept.as_mut_ptr(), v, |k| keep.word(k)) };
    // Each register's non-ASCII bytes among its kept ones, from where its
    // kept bytes start.
    let mut highs = [(0, 0); 4];
    let mut at = 0;
    for (k, h) in highs.iter_mut().enumerate().take(M::REGS) {
        *h = (at, _pext_u64(high.word(k), keep.word(k)));
        at += keep.word(k).count_ones() as usize;
    }
    // SAFETY: `kept` holds `n` bytes and 16 more; `out` has room for the
    // triplets (`cap`, checked above).
    Some(unsafe { encode(&kept, n, &highs[..M::REGS], out) })
}

/// Store the bytes `keep(k)` selects of each register `v[k]` at `out`,
/// one register's after the other's; how many.
///
/// # Safety
/// `out` must be valid for writes of as many bytes as the masks have bits.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi2,bmi2,popcnt")]
#[inline]
unsafe fn store(out: *mut u8, v: &[__m512i], keep: impl Fn(usize) -> u64) -> usize {
    let mut w = 0;
    for (k, &v) in v.iter().enumerate() {
        let keep = keep(k);
        let n = keep.count_ones() as usize;
        // SAFETY: the masked store writes `n` bytes, within the room.
        unsafe {
            _mm512_mask_storeu_epi8(
                out.add(w).cast(),
                bmi2().below(n),
                _mm512_maskz_compress_epi8(keep, v),
            );
        }
        w += n;
    }
    w
}

/// Copy `src[..n]` to `out`, each byte at `base + i` for a bit `i` of
/// one of the `highs` (in order: `(base, bits)`) as its percent-encoded
/// triplet, uppercase hex (§3.3, RFC 3986 §2.1); the length written. The
/// runs between them are copied 16 bytes at a time, over their end.
///
/// # Safety
/// `src` must hold `n + 16` bytes, every position named by `highs` be
/// below `n` and in increasing order, and `out` be valid for writes of
/// `n + 2 * (the bits of highs) + 16` bytes.
#[target_feature(enable = "bmi1")]
#[inline]
unsafe fn encode(src: &[u8], n: usize, highs: &[(usize, u64)], out: *mut u8) -> usize {
    debug_assert!(src.len() >= n + 16);
    let copy = |from: usize, to: usize, len: usize| {
        let mut i = 0;
        while i < len {
            // SAFETY: `from + i < n` (`i < len`), so 16 bytes from there
            // are in `src`; `to + i` is below the output's length, which
            // has 16 bytes of room after it.
            unsafe {
                let v = _mm_loadu_si128(src.as_ptr().add(from + i).cast());
                _mm_storeu_si128(out.add(to + i).cast(), v);
            }
            i += 16;
        }
    };
    let (mut r, mut w) = (0, 0);
    for &(base, mut bits) in highs {
        while bits != 0 {
            let p = base + bits.trailing_zeros() as usize;
            bits &= bits - 1;
            debug_assert!(r <= p && p < n);
            copy(r, w, p - r);
            w += p - r;
            let b = src[p];
            // SAFETY: three bytes of the output's room.
            unsafe {
                out.add(w).write(b'%');
                out.add(w + 1).write(HEX_UPPER[usize::from(b >> 4)]);
                out.add(w + 2).write(HEX_UPPER[usize::from(b & 15)]);
            }
            w += 3;
            r = p + 1;
        }
    }
    copy(r, w, n - r);
    w + n - r
}

/// The bytes the dot segments take away (RFC 3986 §5.2.4), given the first
/// `.` of each (`segments`, those of `..` also in `double`) and the '/'
/// bytes of the path (which ends at `end`). Segment by segment, as the
/// steps come to for a path starting with '/': a `.` segment goes with
/// its '/'; a `..` segment also takes the last segment still kept before
/// it (from its '/'); a last `.` or `..` leaves its '/' as the path's end.
#[inline(always)]
fn dot_segments<M: Mask>(mut segments: M, double: M, mut kept: M, end: usize) -> M {
    let mut drop = M::ZERO;
    while segments != M::ZERO {
        let d = segments.trailing_zeros() as usize;
        let at = bit::<M>(d);
        segments &= !at;
        let up = double & at != M::ZERO;
        let seg_end = d + 1 + usize::from(up);
        // `d - 1` is the segment's '/'.
        let mut from = d - 1;
        kept &= !bit::<M>(from);
        if up {
            let before = kept & bmi2().below::<M>(from);
            if before != M::ZERO {
                from = M::WIDTH - 1 - before.leading_zeros();
                kept &= !bit::<M>(from);
            }
        }
        if seg_end == end {
            from += 1;
        }
        drop |= range(bmi2(), from, seg_end);
    }
    drop
}

/// Lane `i` holds `i`.
#[target_feature(enable = "avx512f")]
#[inline]
fn lane_index() -> __m512i {
    const IDX: [u8; 64] = {
        let mut a = [0; 64];
        let mut i = 0;
        while i < 64 {
            a[i] = i as u8;
            i += 1;
        }
        a
    };
    // SAFETY: 64 bytes of a constant, an unaligned load.
    unsafe { _mm512_loadu_si512(IDX.as_ptr().cast()) }
}

/// The bytes of `v` that are unreserved (RFC 3986 §2.3): ALPHA, DIGIT,
/// `-`, `.`, `_`, `~`.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
fn is_unreserved(v: __m512i) -> u64 {
    let folded = _mm512_or_si512(v, _mm512_set1_epi8(0x20));
    in_range(folded, b'a', 26)
        | in_range(v, b'0', 10)
        | eq(v, b'-')
        | eq(v, b'.')
        | eq(v, b'_')
        | eq(v, b'~')
}

/// The bytes of `v` from `first` to `first + n - 1`.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
fn in_range(v: __m512i, first: u8, n: u8) -> u64 {
    _mm512_cmplt_epu8_mask(
        _mm512_sub_epi8(v, _mm512_set1_epi8(first as i8)),
        _mm512_set1_epi8(n as i8),
    )
}

/// The bytes of `v` equal to `c`.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
fn eq(v: __m512i, c: u8) -> u64 {
    _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(c as i8))
}

/// The bytes of a line's registers equal to `c`.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
fn class<M: Mask>(v: &[__m512i], c: u8) -> M {
    M::from_words(|k| eq(v[k], c))
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Whatever the plan and the bytes, the kernel writes only within
        /// the room it is given, and only ASCII. (Its keys are held to the
        /// scalar rewrite's, its portable twin, in `crate::ladder::compact`.)
        #[test]
        fn writes_only_ascii_within_the_room(
            s in "[a-zA-Z0-9%/.:?#é-]{0,300}",
            host_end in 0usize..300,
            port in (0usize..300, 0usize..300),
            path in (3usize..300, 3usize..300),
            fragment in proptest::option::of(0usize..300),
            dots: bool,
            room in 0usize..1000,
        ) {
            let Some(t) = crate::simd::detect::features().compact() else {
                return Ok(());
            };
            let plan = Plan { host_end, port_drop: port, path, fragment, dots };
            let mut out = String::with_capacity(room);
            let cap = out.capacity();
            if compact(t, &s, &plan, &mut out) {
                proptest::prop_assert!(out.len() <= cap && out.is_ascii());
            } else {
                proptest::prop_assert!(out.is_empty());
            }
        }
    }
}
