//! The whole-line parser of the usual crawl line (3987bis §2.2, RFC 3986
//! §3): `scheme://`, a reg-name or IPv4 host with an optional port
//! (no userinfo, no IP literal), then path, query and fragment, with valid
//! `%` triplets and `ucschar` characters; at most 64 bytes with AVX2, 256
//! with AVX-512BW.
//!
//! The component-by-component scan of [`super::parse_with`] pays a setup
//! and a few checks at the start and the end of every component's run; on
//! a 60-byte line that costs more than the bytes themselves. Here the line
//! is classified first into one bit mask per class of byte ([`Masks`]):
//! ASCII bytes no component admits raw (controls, space, `[`, …), `%`,
//! non-ASCII bytes, `/`, `?`, `#`, `:` or `@`, `.`, uppercase and `-` — 32
//! bytes per AVX2 register, or 64 per AVX-512 register with a masked load
//! that never reads past the line. The split is then a few
//! `trailing_zeros` on those masks (the authority ends at the first `/`,
//! `?` or `#` after `//`, the path at the first `?` or `#`, the query at
//! the first `#`), and each flag of [`super::flags`] is one AND with a
//! component's range of bits.
//!
//! The `%` triplets are classified with the rest (RFC 3986 §2.1: two hex
//! digits follow; a triplet that §5.3.2.1 or §5.3.2.3 rewrites makes its
//! component dirty): with AVX-512 the two bytes after each byte are loaded
//! beside it and valued by nibble lookups, so a line's triplets cost one
//! step whatever their number. Non-ASCII characters must be `ucschar`s
//! (§2.2) and no bidi formatting character (§4.1); only those of the few
//! lead bytes where a character may fail that are decoded one at a time
//! ([`Masks::high_slow`]). After the authority the URI form encodes them
//! (§3.3), so they make their component dirty; in the host they mark an
//! IDN for the host rungs.
//!
//! It decides nothing alone: whatever it does not take (a non-ASCII
//! character that is not a `ucschar`, userinfo, an IP literal,
//! a scheme without `//`, a longer line, a byte no component admits, a bad
//! `%`) it leaves to [`super::parse_with`], which parses it, or rejects
//! it, as before. What it takes, it must split exactly as that parser
//! does, which the tests check on the bundled data and on generated lines.
//! Its one addition is [`super::flags::PATH_DOT`] left unset when no `.`
//! follows a `/` in the path, so the rungs need not look for dot segments
//! (§5.3.2.4), and [`super::flags::PATH_DOT_SEEN`] set when one does.
//!
//! AVX2 stops at 64 bytes: for 65 to 128 bytes, four blocks joined into
//! `u128` masks cost as much as the component scan (callgrind, BENCHMARKS
//! §20).

// Only x86-64 has the vector code that builds the masks.
#![cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]

use super::flags::*;
use super::{HostKind, IriRef, NONE};
use crate::{chars, host};

/// The longest reference taken by the AVX2 masks: one bit per byte of a
/// `u64`.
pub(super) const MAX_LEN: usize = 64;
/// The longest reference taken by two AVX-512 registers: a `u128`.
pub(super) const MAX_LEN_WIDE: usize = 128;
/// The longest reference taken by four AVX-512 registers: a [`U256`].
pub(super) const MAX_LEN_256: usize = 256;

/// A line's worth of bits: `u64`, `u128` or [`U256`].
pub(crate) trait Bits:
    Copy
    + Default
    + Eq
    + std::fmt::Debug
    + std::ops::BitAnd<Output = Self>
    + std::ops::BitOr<Output = Self>
    + std::ops::BitOrAssign
    + std::ops::Not<Output = Self>
    + std::ops::Shl<u32, Output = Self>
{
    /// Bits in all (a byte of the line each).
    const WIDTH: usize;
    const ZERO: Self;
    fn trailing_zeros(self) -> u32;
    /// The mask whose 64-bit word `k` (from the lowest) is `word(k)`.
    fn from_words(word: impl Fn(usize) -> u64) -> Self;
}

macro_rules! bits {
    ($t:ty, $word:ident => $words:expr) => {
        impl Bits for $t {
            const WIDTH: usize = <$t>::BITS as usize;
            const ZERO: Self = 0;
            #[inline(always)]
            fn trailing_zeros(self) -> u32 {
                <$t>::trailing_zeros(self)
            }
            #[inline(always)]
            fn from_words($word: impl Fn(usize) -> u64) -> Self {
                $words
            }
        }
    };
}
bits!(u64, word => word(0));
bits!(u128, word => u128::from(word(0)) | u128::from(word(1)) << 64);

/// 256 bits as two `u128`s (`lo` holds bits 0..128), for lines of 129 to
/// [`MAX_LEN_256`] bytes: each operation is two of `u128`'s. (The
/// compaction of the rewrite uses it too, `crate::ladder::compact`.)
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct U256 {
    lo: u128,
    hi: u128,
}

impl std::ops::BitAnd for U256 {
    type Output = Self;
    #[inline(always)]
    fn bitand(self, o: Self) -> Self {
        U256 {
            lo: self.lo & o.lo,
            hi: self.hi & o.hi,
        }
    }
}

impl std::ops::BitOr for U256 {
    type Output = Self;
    #[inline(always)]
    fn bitor(self, o: Self) -> Self {
        U256 {
            lo: self.lo | o.lo,
            hi: self.hi | o.hi,
        }
    }
}

impl std::ops::BitOrAssign for U256 {
    #[inline(always)]
    fn bitor_assign(&mut self, o: Self) {
        *self = *self | o;
    }
}

impl std::ops::Not for U256 {
    type Output = Self;
    #[inline(always)]
    fn not(self) -> Self {
        U256 {
            lo: !self.lo,
            hi: !self.hi,
        }
    }
}

impl std::ops::Shl<u32> for U256 {
    type Output = Self;
    /// `n < 256`, as for the primitive types.
    #[inline(always)]
    fn shl(self, n: u32) -> Self {
        match n {
            0 => self,
            1..128 => U256 {
                lo: self.lo << n,
                hi: self.hi << n | self.lo >> (128 - n),
            },
            _ => U256 {
                lo: 0,
                hi: self.lo << (n - 128),
            },
        }
    }
}

impl std::ops::BitAndAssign for U256 {
    #[inline(always)]
    fn bitand_assign(&mut self, o: Self) {
        *self = *self & o;
    }
}

impl std::ops::Shr<u32> for U256 {
    type Output = Self;
    /// `n < 256`, as for the primitive types.
    #[inline(always)]
    fn shr(self, n: u32) -> Self {
        match n {
            0 => self,
            1..128 => U256 {
                lo: self.lo >> n | self.hi << (128 - n),
                hi: self.hi >> n,
            },
            _ => U256 {
                lo: self.hi >> (n - 128),
                hi: 0,
            },
        }
    }
}

impl U256 {
    /// 64-bit word `k` (from the lowest).
    #[inline(always)]
    pub(crate) fn word(self, k: usize) -> u64 {
        let half = if k < 2 { self.lo } else { self.hi };
        (half >> (64 * (k % 2))) as u64
    }

    #[inline(always)]
    pub(crate) fn leading_zeros(self) -> u32 {
        if self.hi != 0 {
            self.hi.leading_zeros()
        } else {
            128 + self.lo.leading_zeros()
        }
    }
}

impl Bits for U256 {
    const WIDTH: usize = 256;
    const ZERO: Self = U256 { lo: 0, hi: 0 };
    #[inline(always)]
    fn from_words(word: impl Fn(usize) -> u64) -> Self {
        U256 {
            lo: u128::from(word(0)) | u128::from(word(1)) << 64,
            hi: u128::from(word(2)) | u128::from(word(3)) << 64,
        }
    }
    #[inline(always)]
    fn trailing_zeros(self) -> u32 {
        if self.lo != 0 {
            self.lo.trailing_zeros()
        } else {
            128 + self.hi.trailing_zeros()
        }
    }
}

/// Masks of twice the width from those of a line's two halves.
pub(super) trait Join<H>: Sized {
    fn join(lo: H, hi: H) -> Self;
}

impl Join<u64> for u128 {
    #[inline(always)]
    fn join(lo: u64, hi: u64) -> Self {
        u128::from(lo) | u128::from(hi) << 64
    }
}

impl Join<u128> for U256 {
    #[inline(always)]
    fn join(lo: u128, hi: u128) -> Self {
        U256 { lo, hi }
    }
}

/// One bit per byte of the line (bit `i` is byte `i`), per class.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Masks<B> {
    /// Bytes no component admits raw: outside [`chars::S_FRAGMENT`], the
    /// widest class (non-ASCII is in no class), and not `%`.
    ///
    /// [`chars::S_FRAGMENT`]: crate::chars::S_FRAGMENT
    bad: B,
    /// `%`: each must start a `pct-encoded` triplet (checked by [`split`]).
    pct: B,
    /// Non-ASCII bytes (also in `bad`): each character they make up must
    /// be a `ucschar` (checked by [`split`]).
    high: B,
    slash: B,
    question: B,
    hash: B,
    /// `:` or `@`: in the authority, a port or userinfo (left to the full
    /// parser); elsewhere plain bytes.
    colon_at: B,
    dot: B,
    upper: B,
    hyphen: B,
    /// Lead bytes of the characters the split checks one at a time: `C2`
    /// (U+0080–00BF, the C1 controls among them), `E2` (U+2000–2FFF, the
    /// bidi formatting characters among them) and `EE` up (private use,
    /// non-characters, the planes above the BMP). The characters of
    /// every other lead byte are all `ucschar`s (§2.2) and none is a bidi
    /// formatting one (§4.1).
    high_slow: B,
    /// `%` bytes not followed by two hex digits (RFC 3986 §2.1): the
    /// split gives up on the line.
    triplet_bad: B,
    /// `%` bytes whose triplet percent-encoding normalization rewrites: a
    /// lowercase hex digit (§5.3.2.1) or an unreserved character
    /// (§5.3.2.3).
    triplet_dirty: B,
}

impl<B: Copy> Masks<B> {
    /// The masks of a line from those of its first and second half.
    #[inline(always)]
    pub(super) fn join<W: Join<B>>(lo: &Self, hi: &Self) -> Masks<W> {
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
pub(super) fn masks_scalar<B: Bits>(b: &[u8]) -> Masks<B> {
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

/// How [`split`] and the masks compute "bits `0..n`": the split is mostly
/// such masks (a component's range, the bits after a position). With
/// shifts each is a shift and a select per 64-bit word, across words on
/// a line of more than 64 bytes; with BMI2's `bzhi` one instruction a
/// word. The parse uses `bzhi` (`x86::Bmi2`, detected with the vector
/// paths); the shifts (`Shifts`) are the reference of the tests.
pub(crate) trait Low: Copy {
    /// Bits `0..n` set (`n <= B::WIDTH`).
    fn below<B: Bits>(self, n: usize) -> B;
}

/// Shifts, on any CPU.
#[cfg(test)]
#[derive(Debug, Clone, Copy)]
pub(super) struct Shifts;

#[cfg(test)]
impl Low for Shifts {
    #[inline(always)]
    fn below<B: Bits>(self, n: usize) -> B {
        if n >= B::WIDTH {
            !B::ZERO
        } else {
            !(!B::ZERO << n as u32)
        }
    }
}

/// Bits `from..to` set (`from <= to <= B::WIDTH`).
#[inline(always)]
pub(crate) fn range<B: Bits, L: Low>(low: L, from: usize, to: usize) -> B {
    low.below::<B>(to) & !low.below::<B>(from)
}

/// The first set bit of `mask` at or after `from`, or `len` if none (no
/// bit of a mask is at `len` or above, and `len <= B::WIDTH`).
#[inline(always)]
fn next<B: Bits, L: Low>(low: L, mask: B, from: usize, len: usize) -> usize {
    ((mask & !low.below::<B>(from)).trailing_zeros() as usize).min(len)
}

/// Split `input` with its masks `m` when it is the usual line, else
/// `None`.
#[inline(always)]
pub(super) fn split<'a, B: Bits, L: Low>(
    input: &'a str,
    m: &Masks<B>,
    low: L,
) -> Option<IriRef<'a>> {
    let b = input.as_bytes();
    let len = b.len();
    if m.bad & !m.high != B::ZERO {
        return None;
    }
    let mut flags = 0;
    // Every '%' starts a triplet (`pct-encoded`, RFC 3986 §2.1); those
    // that percent-encoding normalization rewrites (§5.3.2.1 lowercase
    // hex, §5.3.2.3 an unreserved character) make their component dirty.
    // A hex digit is no delimiter, so a triplet never straddles two
    // components: its '%' stands for it.
    let mut dirty = B::ZERO;
    let mut hex_digits = B::ZERO;
    if m.pct != B::ZERO {
        if m.triplet_bad != B::ZERO {
            return None;
        }
        flags |= PCT;
        dirty = m.triplet_dirty;
        hex_digits = m.pct << 1 | m.pct << 2;
    }
    // scheme "://" (§2.2; RFC 3986 §3.1).
    let scheme_end = match super::http_scheme(b) {
        Some(j) => j,
        None => {
            let (colon, upper) = super::scheme(b)?;
            if b.get(colon..colon + 3) != Some(b"://") {
                return None;
            }
            if upper {
                flags |= SCHEME_UPPER;
            }
            colon
        }
    };
    // "//" iauthority: here ihost [ ":" port ], the host a reg-name or an
    // IPv4 address (§2.2).
    let auth_start = scheme_end + 3;
    let auth_end = next(low, m.slash | m.question | m.hash, auth_start, len);
    if m.high != B::ZERO {
        // Non-ASCII characters: each a `ucschar` and no bidi formatting
        // character (§2.2 `iunreserved`, §4.1; `iprivate` in the query is
        // left to the scan). The URI form encodes them in the path, query
        // and fragment (§3.3): their component is dirty; in the host they
        // are an IDN's (HOST_NON_ASCII below), and in userinfo or a port
        // the split gives up anyway. `input` is a `str`: each run of high
        // bytes is whole characters.
        // Most lines need no character looked at (see `high_slow`).
        if m.high_slow != B::ZERO {
            let mut rest = m.high;
            while rest != B::ZERO {
                let at = rest.trailing_zeros() as usize;
                let ch = input.get(at..)?.chars().next()?;
                if chars::is_bidi_format(ch) || !chars::is_ucschar(ch) {
                    return None;
                }
                rest = rest & !low.below::<B>(at + ch.len_utf8());
            }
        }
        flags |= NON_ASCII;
        dirty |= m.high;
    }
    let auth = range::<B, L>(low, auth_start, auth_end);
    let mut host_end = auth_end;
    if m.colon_at & auth != B::ZERO {
        // A port (`*DIGIT`, RFC 3986 §3.2.3) after the one ':', or else
        // userinfo: the full parser's.
        host_end = next(low, m.colon_at, auth_start, len);
        if b[host_end] != b':' || !b[host_end + 1..auth_end].iter().all(u8::is_ascii_digit) {
            return None;
        }
    }
    let host = range::<B, L>(low, auth_start, host_end);
    // The hex digits of a triplet are not the host's letters (the
    // component scan does not count them either).
    if m.upper & !hex_digits & host != B::ZERO {
        flags |= HOST_UPPER;
    }
    if m.pct & host != B::ZERO {
        flags |= HOST_PCT;
    }
    if m.hyphen & host != B::ZERO {
        flags |= HOST_HYPHEN;
    }
    if m.high & host != B::ZERO {
        flags |= HOST_NON_ASCII;
    }
    // Sliced only when it may be an IPv4 address: slicing a `str` is a
    // call, around which the vector registers of the masks were saved and
    // reloaded (BENCHMARKS.md §21).
    let host_kind = if b.get(auth_start).is_some_and(u8::is_ascii_digit)
        && host::is_ipv4address(&input[auth_start..host_end])
    {
        HostKind::Ipv4
    } else {
        HostKind::RegName
    };
    // The path, up to '?' or '#'; a '.' right after a '/' may start a dot
    // segment (§5.3.2.4).
    let path_end = next(low, m.question | m.hash, auth_end, len);
    let path = range::<B, L>(low, auth_end, path_end);
    if (m.slash << 1) & m.dot & path != B::ZERO {
        flags |= PATH_DOT | PATH_DOT_SEEN;
    }
    if dirty & path != B::ZERO {
        flags |= PATH_DIRTY;
    }
    let mut query_start = NONE;
    let mut fragment_start = NONE;
    let mut i = path_end;
    if i < len && b[i] == b'?' {
        query_start = i as u32;
        let end = next(low, m.hash, i + 1, len);
        if dirty & range::<B, L>(low, i + 1, end) != B::ZERO {
            flags |= QUERY_DIRTY;
        }
        i = end;
    }
    if i < len {
        // '#': the fragment, dirty when it holds another '#' (the URI form
        // encodes it).
        fragment_start = i as u32;
        if (m.hash | dirty) & range::<B, L>(low, i + 1, len) != B::ZERO {
            flags |= FRAGMENT_DIRTY;
        }
    }
    Some(IriRef {
        s: input,
        scheme_end: scheme_end as u32,
        auth_start: auth_start as u32,
        userinfo_end: NONE,
        host_end: host_end as u32,
        path_start: auth_end as u32,
        query_start,
        fragment_start,
        host_kind: Some(host_kind),
        flags,
    })
}

#[cfg(target_arch = "x86_64")]
pub(super) mod x86 {
    use super::{Bits, Low, Masks, MAX_LEN, MAX_LEN_256, MAX_LEN_WIDE, U256};
    use std::arch::x86_64::*;

    /// [`Low`] with BMI2's `bzhi`: held only where the CPU has BMI2.
    #[derive(Debug, Clone, Copy)]
    pub(crate) struct Bmi2(());

    impl Bmi2 {
        /// A `Bmi2` without the check, for code that runs only where BMI2
        /// was found otherwise (the compaction's `available`).
        ///
        /// # Safety
        /// The CPU has BMI2.
        #[inline(always)]
        pub(crate) unsafe fn assume() -> Bmi2 {
            Bmi2(())
        }

        /// `Some` when the CPU has BMI2 (checked once, then a load and a
        /// test).
        #[inline]
        pub(in crate::iri) fn detect() -> Option<Bmi2> {
            std::arch::is_x86_feature_detected!("bmi2").then_some(Bmi2(()))
        }
    }

    impl Low for Bmi2 {
        #[inline(always)]
        fn below<B: Bits>(self, n: usize) -> B {
            // Word `k` has bits `0..n - 64k`, all of them from 64 (`bzhi`
            // keeps the bits below its index, all of them for an index of
            // 64 to 255).
            B::from_words(|k| {
                let n = n.saturating_sub(64 * k).min(64) as u32;
                // SAFETY: the CPU has BMI2 (a `Bmi2` exists).
                unsafe { _bzhi_u64(u64::MAX, n) }
            })
        }
    }

    /// The CPU has AVX2 (checked once, then a load and a test).
    #[inline]
    pub(in crate::iri) fn has_avx2() -> bool {
        std::arch::is_x86_feature_detected!("avx2")
    }

    /// The CPU has AVX-512BW (checked once, then a load and a test).
    #[inline]
    pub(in crate::iri) fn has_avx512bw() -> bool {
        std::arch::is_x86_feature_detected!("avx512bw")
    }

    /// The masks of `b` (at most [`MAX_LEN`] bytes) from one 64-byte
    /// register: a masked load reads only the line's bytes (the others are
    /// zero, and the lanes past the end of `b` are never touched), and
    /// each class is one compare straight into a mask register.
    ///
    /// # Safety
    /// The CPU must have AVX-512BW (and BMI2, which `bmi2` says).
    #[target_feature(enable = "avx512f,avx512bw")]
    #[inline]
    pub(in crate::iri) unsafe fn masks_avx512(b: &[u8], bmi2: Bmi2) -> Masks<u64> {
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
    pub(in crate::iri) unsafe fn masks_avx512_wide(b: &[u8], bmi2: Bmi2) -> Masks<u128> {
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
    pub(in crate::iri) unsafe fn masks_avx512_256(b: &[u8], bmi2: Bmi2) -> Masks<U256> {
        debug_assert!(b.len() > MAX_LEN_WIDE && b.len() <= MAX_LEN_256);
        let t = tables();
        let lo = Masks::join(&classes(b, 0, t, bmi2), &classes(b, MAX_LEN, t, bmi2));
        let hi = Masks::join(
            &classes(b, 2 * MAX_LEN, t, bmi2),
            &classes(b, 3 * MAX_LEN, t, bmi2),
        );
        Masks::join(&lo, &hi)
    }

    /// The nibble tables of [`crate::runs::FRAGMENT`] in every lane.
    #[target_feature(enable = "avx512f,avx512bw")]
    #[inline]
    fn tables() -> (__m512i, __m512i) {
        let (lo, hi) = crate::runs::FRAGMENT.tables();
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
    pub(in crate::iri) unsafe fn masks(b: &[u8]) -> Masks<u64> {
        debug_assert!(b.len() <= MAX_LEN);
        let (lo, hi) = crate::runs::FRAGMENT.tables();
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
    use crate::chars::{S_FRAGMENT, S_PATH, S_QUERY, S_REG_NAME};

    /// The split relies on the classes nesting: what the fragment admits,
    /// less the delimiters a component ends at (and `:`/`@`, which the
    /// authority leaves to the full parser), is what each component admits.
    #[test]
    fn the_classes_nest_as_the_split_assumes() {
        for c in 0..=255u8 {
            let s = chars::SCAN[c as usize];
            let plain = s & S_FRAGMENT != 0;
            assert_eq!(s & S_QUERY != 0, plain && c != b'#', "{c:#x}");
            assert_eq!(s & S_PATH != 0, plain && !b"?#".contains(&c), "{c:#x}");
            assert_eq!(
                s & S_REG_NAME != 0,
                plain && !b"/?#:@".contains(&c),
                "{c:#x}"
            );
        }
    }

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

    #[test]
    fn ranges_and_next_bits() {
        assert_eq!(range::<u64, _>(Shifts, 0, 0), 0);
        assert_eq!(range::<u64, _>(Shifts, 0, 64), u64::MAX);
        assert_eq!(range::<u64, _>(Shifts, 3, 5), 0b11000);
        assert_eq!(range::<u64, _>(Shifts, 63, 64), 1 << 63);
        assert_eq!(range::<u64, _>(Shifts, 64, 64), 0);
        assert_eq!(range::<u128, _>(Shifts, 0, 128), u128::MAX);
        assert_eq!(range::<u128, _>(Shifts, 63, 65), 0b11 << 63);
        assert_eq!(range::<u128, _>(Shifts, 128, 128), 0);
        assert_eq!(next(Shifts, 0b1001_0000u64, 0, 9), 4);
        assert_eq!(next(Shifts, 0b1001_0000u64, 5, 9), 7);
        assert_eq!(next(Shifts, 0b1001_0000u64, 8, 9), 9);
        assert_eq!(next(Shifts, 0u64, 0, 9), 9);
        assert_eq!(next(Shifts, 1u64 << 63, 63, 64), 63);
        assert_eq!(next(Shifts, 1u64 << 63, 64, 64), 64);
        assert_eq!(next(Shifts, 1u128 << 100, 64, 128), 100);
        assert_eq!(next(Shifts, 1u128 << 127, 128, 128), 128);
        let bit = |i: u32| U256 { lo: 1, hi: 0 } << i;
        assert_eq!(range::<U256, _>(Shifts, 0, 256), !U256::ZERO);
        assert_eq!(range::<U256, _>(Shifts, 256, 256), U256::ZERO);
        assert_eq!(range::<U256, _>(Shifts, 127, 129), bit(127) | bit(128));
        assert_eq!(
            bit(127),
            U256 {
                lo: 1 << 127,
                hi: 0
            }
        );
        assert_eq!(bit(128), U256 { lo: 0, hi: 1 });
        assert_eq!(
            bit(255),
            U256 {
                lo: 0,
                hi: 1 << 127
            }
        );
        assert_eq!(
            U256 {
                lo: u128::MAX,
                hi: 0
            } << 3,
            U256 {
                lo: u128::MAX << 3,
                hi: 0b111
            }
        );
        assert_eq!(next(Shifts, bit(200), 0, 256), 200);
        assert_eq!(next(Shifts, bit(100) | bit(200), 101, 256), 200);
        assert_eq!(next(Shifts, bit(100), 101, 256), 256);
        assert_eq!(next(Shifts, bit(0), 0, 256), 0);
    }

    /// `bzhi`'s bits below `n` are the shifts', at every `n` of each width.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn bzhi_bits_are_the_shifted_bits() {
        let Some(bmi2) = x86::Bmi2::detect() else {
            eprintln!("no BMI2 here: nothing to compare");
            return;
        };
        fn each<B: Bits>(bmi2: x86::Bmi2) {
            for n in 0..=B::WIDTH {
                assert_eq!(bmi2.below::<B>(n), Shifts.below::<B>(n), "{n}");
            }
        }
        each::<u64>(bmi2);
        each::<u128>(bmi2);
        each::<U256>(bmi2);
    }

    #[cfg(target_arch = "x86_64")]
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
            if b.len() <= MAX_LEN && x86::has_avx2() {
                // SAFETY: the CPU has AVX2.
                let fast = unsafe { x86::masks(&b) };
                proptest::prop_assert_eq!(fast, masks_scalar::<u64>(&b));
            }
            let Some(bmi2) = x86::Bmi2::detect().filter(|_| x86::has_avx512bw()) else {
                return Ok(());
            };
            // SAFETY (all): the CPU has AVX-512BW and BMI2.
            if b.len() <= MAX_LEN {
                let fast = unsafe { x86::masks_avx512(&b, bmi2) };
                proptest::prop_assert_eq!(fast, masks_scalar::<u64>(&b));
            } else if b.len() <= MAX_LEN_WIDE {
                let fast = unsafe { x86::masks_avx512_wide(&b, bmi2) };
                proptest::prop_assert_eq!(fast, masks_scalar::<u128>(&b));
            } else {
                let fast = unsafe { x86::masks_avx512_256(&b, bmi2) };
                proptest::prop_assert_eq!(fast, masks_scalar::<U256>(&b));
            }
        }
    }
}
