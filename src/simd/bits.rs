//! Bit masks one bit per byte of a line (`u64`, `u128`, [`U256`]) and
//! "bits `0..n`" computed with shifts or with BMI2's `bzhi`: the arithmetic
//! of the whole-line split (3987bis §2.2, RFC 3986 §3) and of the
//! compaction of the rewrite (3987bis §5.3.2–§5.3.3).

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
    #[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
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
            #[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
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
/// 256 bytes: each operation is two of `u128`'s. (The compaction of the
/// rewrite uses it too, [`super::compact`].)
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

#[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
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
    #[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
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
#[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
pub(crate) trait Join<H>: Sized {
    fn join(lo: H, hi: H) -> Self;
}

#[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
impl Join<u64> for u128 {
    #[inline(always)]
    fn join(lo: u64, hi: u64) -> Self {
        u128::from(lo) | u128::from(hi) << 64
    }
}

#[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
impl Join<u128> for U256 {
    #[inline(always)]
    fn join(lo: u128, hi: u128) -> Self {
        U256 { lo, hi }
    }
}

/// How the whole-line split and the masks compute "bits `0..n`": the split
/// is mostly such masks (a component's range, the bits after a position).
/// With shifts each is a shift and a select per 64-bit word, across words
/// on a line of more than 64 bytes; with BMI2's `bzhi` one instruction a
/// word. The parse uses `bzhi` (the [`Bmi2`](super::detect::Bmi2) token,
/// detected with the vector paths); the shifts (`Shifts`) are the
/// reference of the tests.
pub(crate) trait Low: Copy {
    /// Bits `0..n` set (`n <= B::WIDTH`).
    fn below<B: Bits>(self, n: usize) -> B;
}

/// Shifts, on any CPU.
#[cfg(test)]
#[derive(Debug, Clone, Copy)]
pub(crate) struct Shifts;

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

#[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
impl Low for super::detect::Bmi2 {
    #[inline(always)]
    fn below<B: Bits>(self, n: usize) -> B {
        // Word `k` has bits `0..n - 64k`, all of them from 64 (`bzhi`
        // keeps the bits below its index, all of them for an index of
        // 64 to 255).
        B::from_words(|k| {
            let n = n.saturating_sub(64 * k).min(64) as u32;
            // SAFETY: the CPU has BMI2 (a `Bmi2` exists).
            unsafe { std::arch::x86_64::_bzhi_u64(u64::MAX, n) }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        assert_eq!(range::<u64, _>(Shifts, 0, 0), 0);
        assert_eq!(range::<u64, _>(Shifts, 0, 64), u64::MAX);
        assert_eq!(range::<u64, _>(Shifts, 3, 5), 0b11000);
        assert_eq!(range::<u128, _>(Shifts, 63, 65), 0b11 << 63);
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
        assert_eq!(bit(128) >> 1, bit(127));
    }

    /// `bzhi`'s bits below `n` are the shifts', at every `n` of each width.
    #[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
    #[test]
    fn bzhi_bits_are_the_shifted_bits() {
        let Some(bmi2) = crate::simd::detect::features().bmi2() else {
            eprintln!("no BMI2 here: nothing to compare");
            return;
        };
        fn each<B: Bits>(bmi2: crate::simd::detect::Bmi2) {
            for n in 0..=B::WIDTH {
                assert_eq!(bmi2.below::<B>(n), Shifts.below::<B>(n), "{n}");
            }
        }
        each::<u64>(bmi2);
        each::<u128>(bmi2);
        each::<U256>(bmi2);
    }
}
