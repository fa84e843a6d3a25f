//! Runs of plain bytes, 16 at a time with SSSE3 or 8 per branch without:
//! the inner loop of the one-pass parser (`crate::iri::parse`, 3987bis
//! §2.2).
//!
//! Most of an IRI reference is bytes that its component admits raw
//! (3987bis §2.2: `iunreserved`, `sub-delims`, and per component `:`, `@`,
//! `/`, `?`, `#`). [`Runs::run`] finds where such a run stops — at a
//! delimiter, a `%`, a non-ASCII byte or an error, which the parser then
//! looks at one by one — and what the rungs need to know about the run
//! (uppercase and `-` in a host, §5.3.2.1 and the `xn--` test of §5.3.3;
//! `#` in a fragment, which the URI form encodes).
//!
//! The class test is the nibble lookup of SIMD text scanners: a byte `b`
//! belongs to a class when `LO[b & 15] & HI[b >> 4] != 0`, where each high
//! nibble of printable ASCII (`0x2_` … `0x7_`) owns one bit and `LO` holds,
//! for each low nibble, the bits of the rows whose byte is in the class.
//! With SSSE3 (`pshufb`) that is a handful of instructions for 16 bytes and
//! the stop is one `trailing_zeros`; the tables are built from
//! [`chars::SCAN`], so both paths admit exactly the same bytes. Without
//! SSSE3 (or off x86-64, or with `--cfg irinorm_portable`) the scalar loop
//! checks 8 bytes per branch.

#[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
use super::detect::Ssse3;
use crate::chars::{self, S_FRAGMENT, S_REG_NAME};

/// [`chars::SCAN`], for the tables built at compile time.
const SCAN: [u16; 256] = chars::build_scan();

/// The nibble tables of the class whose [`chars::SCAN`] bit is `ok`.
#[cfg(any(test, all(target_arch = "x86_64", not(irinorm_portable))))]
#[derive(Clone, Copy)]
struct Nibbles {
    lo: [u8; 16],
    hi: [u8; 16],
}

#[cfg(any(test, all(target_arch = "x86_64", not(irinorm_portable))))]
const fn nibbles(ok: u16) -> Nibbles {
    let mut n = Nibbles {
        lo: [0; 16],
        hi: [0; 16],
    };
    let mut h = 2;
    while h < 8 {
        n.hi[h] = 1 << (h - 2);
        let mut l = 0;
        while l < 16 {
            if SCAN[h * 16 + l] & ok != 0 {
                n.lo[l] |= 1 << (h - 2);
            }
            l += 1;
        }
        h += 1;
    }
    n
}

/// A component class: the tables of its bit, and whether the run's
/// [`S_UPPER`](chars::S_UPPER), [`S_HYPHEN`](chars::S_HYPHEN), [`S_HASH`](chars::S_HASH) bits are wanted.
pub(crate) struct Class {
    ok: u16,
    acc: bool,
    #[cfg(any(test, all(target_arch = "x86_64", not(irinorm_portable))))]
    tables: Nibbles,
}

impl Class {
    pub(crate) const fn new(ok: u16, acc: bool) -> Self {
        // Bytes below 0x20 are in no class: the tables have no row for them.
        let mut b = 0;
        while b < 0x20 {
            assert!(SCAN[b] & ok == 0);
            b += 1;
        }
        Class {
            ok,
            acc,
            #[cfg(any(test, all(target_arch = "x86_64", not(irinorm_portable))))]
            tables: nibbles(ok),
        }
    }

    /// The class's [`chars::SCAN`] bit.
    pub(crate) fn ok(&self) -> u16 {
        self.ok
    }

    /// The nibble tables `(LO, HI)` of the class, for other vector code.
    #[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
    pub(crate) fn tables(&self) -> (&[u8; 16], &[u8; 16]) {
        (&self.tables.lo, &self.tables.hi)
    }
}

/// How runs are found: [`Scalar`] anywhere, [`Ssse3`] on a CPU that has it.
/// The parser is generic over it and compiled once for each, so the vector
/// code is inlined into a function built for SSSE3 (`crate::iri::parse`).
pub(crate) trait Runs: Copy {
    /// Where the run of bytes of `class` in `b[i..end]` stops (`end` if it
    /// does not), and the OR of the [`chars::SCAN`] entries of its bytes
    /// when the class accumulates them (only the [`S_UPPER`](chars::S_UPPER),
    /// [`S_HYPHEN`](chars::S_HYPHEN), [`S_HASH`](chars::S_HASH) bits are meaningful).
    fn run(self, b: &[u8], i: usize, end: usize, class: &Class) -> (usize, u32);
}

/// One table lookup per byte ([`scalar_run`]).
#[derive(Clone, Copy)]
pub(crate) struct Scalar;

impl Runs for Scalar {
    #[inline(always)]
    fn run(self, b: &[u8], i: usize, end: usize, class: &Class) -> (usize, u32) {
        scalar_run(b, i, end, class)
    }
}

/// 16 bytes at a time with `pshufb`; a value exists only on a CPU with
/// SSSE3 ([`Features::ssse3`](super::detect::Features::ssse3)).
#[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
impl Runs for Ssse3 {
    #[inline(always)]
    fn run(self, b: &[u8], i: usize, end: usize, class: &Class) -> (usize, u32) {
        // SAFETY: an `Ssse3` value means the CPU has SSSE3.
        unsafe { x86::plain_run(b, i, end, class) }
    }
}

/// [`Runs`] with the best way this CPU has, looked up at each run: for the
/// parser's rare paths (userinfo, an authority that is not plain).
#[derive(Clone, Copy)]
pub(crate) struct Detect;

impl Runs for Detect {
    #[inline]
    fn run(self, b: &[u8], i: usize, end: usize, class: &Class) -> (usize, u32) {
        #[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
        if let Some(t) = super::detect::features().ssse3() {
            return t.run(b, i, end, class);
        }
        Scalar.run(b, i, end, class)
    }
}

/// A run found with one table lookup per byte, 8 bytes per branch.
#[inline(always)]
pub(crate) fn scalar_run(b: &[u8], mut i: usize, end: usize, class: &Class) -> (usize, u32) {
    let t = &chars::SCAN;
    let ok = class.ok;
    let mut acc = 0u32;
    while i + 8 <= end {
        let w = &b[i..i + 8];
        let c = [
            t[w[0] as usize],
            t[w[1] as usize],
            t[w[2] as usize],
            t[w[3] as usize],
            t[w[4] as usize],
            t[w[5] as usize],
            t[w[6] as usize],
            t[w[7] as usize],
        ];
        if c[0] & c[1] & c[2] & c[3] & c[4] & c[5] & c[6] & c[7] & ok == 0 {
            break;
        }
        if class.acc {
            acc |= (c[0] | c[1] | c[2] | c[3] | c[4] | c[5] | c[6] | c[7]) as u32;
        }
        i += 8;
    }
    while i < end {
        let c = t[b[i] as usize];
        if c & ok == 0 {
            break;
        }
        if class.acc {
            acc |= c as u32;
        }
        i += 1;
    }
    (i, acc)
}

#[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
mod x86 {
    use super::*;
    use crate::chars::{S_HASH, S_HYPHEN, S_UPPER};
    use std::arch::x86_64::*;

    /// Bits of the 16 bytes of `v` outside the class (bit k: byte k), and
    /// their [`S_UPPER`](chars::S_UPPER) / [`S_HYPHEN`](chars::S_HYPHEN) / [`S_HASH`](chars::S_HASH) bits as masks.
    ///
    /// These functions are `inline(always)` rather than
    /// `target_feature(enable = "ssse3")`, so that they melt into the
    /// caller built for SSSE3; the caller must only run them on such a CPU.
    #[inline(always)]
    unsafe fn classify(v: __m128i, lo: __m128i, hi: __m128i) -> u32 {
        // SAFETY: the caller runs this only on a CPU with SSSE3 (and
        // SSE2, the x86-64 baseline).
        unsafe {
            let lo_n = _mm_and_si128(v, _mm_set1_epi8(0x0f));
            let hi_n = _mm_and_si128(_mm_srli_epi16::<4>(v), _mm_set1_epi8(0x0f));
            let rows = _mm_and_si128(_mm_shuffle_epi8(lo, lo_n), _mm_shuffle_epi8(hi, hi_n));
            let outside = _mm_cmpeq_epi8(rows, _mm_setzero_si128());
            _mm_movemask_epi8(outside) as u32
        }
    }

    /// The [`S_UPPER`](chars::S_UPPER), [`S_HYPHEN`](chars::S_HYPHEN) and [`S_HASH`](chars::S_HASH) bits of the bytes of
    /// `v` whose bit is set in `taken` (after shifting the masks right by
    /// `shift`, as [`plain_run`] does with the class bits).
    #[inline(always)]
    unsafe fn flags(v: __m128i, shift: usize, taken: u32) -> u32 {
        // SAFETY: the caller runs this only on a CPU with SSSE3 (and
        // SSE2, the x86-64 baseline).
        unsafe {
            // 'A'..='Z': shifted so that 'A' is i8::MIN, then one signed compare.
            let shifted = _mm_add_epi8(v, _mm_set1_epi8((0x80u8 - b'A') as i8));
            let upper = _mm_cmplt_epi8(shifted, _mm_set1_epi8((0x80u8 + 26) as i8));
            let hyphen = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'-' as i8));
            let hash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'#' as i8));
            let seen = |m: __m128i| (_mm_movemask_epi8(m) as u32 >> shift) & taken != 0;
            let mut acc = 0;
            if seen(upper) {
                acc |= S_UPPER as u32;
            }
            if seen(hyphen) {
                acc |= S_HYPHEN as u32;
            }
            if seen(hash) {
                acc |= S_HASH as u32;
            }
            acc
        }
    }

    /// [`Runs::run`] with SSSE3.
    ///
    /// # Safety
    /// The CPU must have SSSE3.
    #[inline(always)]
    pub(super) unsafe fn plain_run(
        b: &[u8],
        mut i: usize,
        end: usize,
        class: &Class,
    ) -> (usize, u32) {
        // SAFETY (both loads): 16 bytes of an array, unaligned loads allowed.
        let lo = unsafe { _mm_loadu_si128(class.tables.lo.as_ptr().cast()) };
        let hi = unsafe { _mm_loadu_si128(class.tables.hi.as_ptr().cast()) };
        let len = b.len();
        let mut acc = 0;
        while i < end {
            // The 16 bytes from `i`; near the end of `b`, its last 16 bytes
            // with the masks shifted so that bit 0 is byte `i` (no copy);
            // a `b` shorter than 16 bytes is copied, padded with NUL.
            let (v, shift) = if i + 16 <= len {
                // SAFETY: `b[i..i + 16]` is in bounds.
                (unsafe { _mm_loadu_si128(b[i..i + 16].as_ptr().cast()) }, 0)
            } else if len >= 16 {
                // SAFETY: `b[len - 16..]` is in bounds.
                let v = unsafe { _mm_loadu_si128(b[len - 16..].as_ptr().cast()) };
                (v, i - (len - 16))
            } else {
                let mut pad = [0u8; 16];
                pad[..len].copy_from_slice(b);
                // SAFETY: 16 bytes of an array.
                (unsafe { _mm_loadu_si128(pad.as_ptr().cast()) }, i)
            };
            // Bytes of this block from `i` up to `end`: at most 16.
            let avail = (16 - shift).min(end - i);
            // SAFETY (classify, flags): the CPU has SSSE3 (the caller's
            // contract).
            let outside = (unsafe { classify(v, lo, hi) } >> shift) | (u32::MAX << avail);
            let n = outside.trailing_zeros() as usize;
            if class.acc {
                acc |= unsafe { flags(v, shift, (1u32 << n) - 1) };
            }
            i += n;
            if n < avail {
                return (i, acc);
            }
        }
        (end, acc)
    }
}

/// The classes of the parser (`crate::iri::parse`).
pub(crate) static PATH: Class = Class::new(chars::S_PATH, false);
pub(crate) static QUERY: Class = Class::new(chars::S_QUERY, false);
pub(crate) static FRAGMENT: Class = Class::new(S_FRAGMENT, true);
pub(crate) static USERINFO: Class = Class::new(chars::S_USERINFO, false);
pub(crate) static REG_NAME: Class = Class::new(S_REG_NAME, true);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chars::{S_HASH, S_HYPHEN, S_UPPER};
    use proptest::prelude::*;

    const CLASSES: [&Class; 5] = [&PATH, &QUERY, &FRAGMENT, &USERINFO, &REG_NAME];

    /// The OR of the wanted bits, as the scalar loop reports them.
    fn wanted(acc: u32) -> u32 {
        acc & (S_UPPER | S_HYPHEN | S_HASH) as u32
    }

    #[test]
    fn nibble_tables_admit_exactly_the_scan_table_bytes() {
        for c in CLASSES {
            for b in 0..=255u8 {
                let t = c.tables;
                let inside = t.lo[(b & 15) as usize] & t.hi[(b >> 4) as usize] != 0;
                assert_eq!(inside, chars::SCAN[b as usize] & c.ok != 0, "{b:#x}");
            }
        }
    }

    #[test]
    fn every_byte_at_every_place_stops_both_loops_alike() {
        for c in CLASSES {
            for len in 0..40 {
                for at in 0..len {
                    for b in 0..=255u8 {
                        let mut s = b"aZ-#".repeat(10)[..len].to_vec();
                        s[at] = b;
                        // From the start or not; to the end of the bytes
                        // or before it (a component inside a reference).
                        for (start, end) in
                            [(0, len), (1.min(len), len), (0, len.saturating_sub(3))]
                        {
                            let (i, a) = Detect.run(&s, start, end, c);
                            let (j, x) = scalar_run(&s, start, end, c);
                            assert_eq!((i, wanted(a)), (j, wanted(x)), "{s:?} {start} {end}");
                        }
                    }
                }
            }
        }
    }

    proptest! {
        #[test]
        fn same_as_the_scalar_loop(
            s in proptest::collection::vec(any::<u8>(), 0..80),
            plain in proptest::collection::vec(
                prop::sample::select(b"azAZ09-._~!$&'()*+,;=:@/?#%[]".to_vec()),
                0..80,
            ),
            cut in 0usize..80,
        ) {
            // Mostly plain bytes, then anything: long runs and every stop.
            let mut bytes = plain;
            bytes.extend_from_slice(&s);
            let end = cut.min(bytes.len());
            for c in CLASSES {
                let (i, a) = Detect.run(&bytes, 0, end, c);
                let (j, x) = scalar_run(&bytes, 0, end, c);
                prop_assert_eq!((i, wanted(a)), (j, wanted(x)));
            }
        }
    }
}
