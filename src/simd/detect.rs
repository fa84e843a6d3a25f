//! CPU feature detection, once per process: one word of feature bits read
//! with one relaxed load, and the zero-sized tokens that prove a feature is
//! there, so that the kernels taking them can be safe functions.
//!
//! The word is filled on the first call ([`features`]) from
//! `is_x86_feature_detected!` and never changes after; a token exists only
//! where its features were found, so holding one is the proof a kernel's
//! `target_feature` needs. Code compiled for a CPU without a token's
//! features never sees one: the callers fall back to the portable paths.

use std::sync::atomic::{AtomicU32, Ordering};

const READY: u32 = 1 << 31;
const SSSE3: u32 = 1 << 0;
const AVX2: u32 = 1 << 1;
const BMI2: u32 = 1 << 2;
const AVX512BW: u32 = 1 << 3;
/// Everything the compaction needs: AVX-512 BW, VBMI (`vpermb`), VBMI2
/// (`vpcompressb`), and the bit instructions (BMI1/2, LZCNT, POPCNT).
const COMPACT: u32 = 1 << 4;

static FEATURES: AtomicU32 = AtomicU32::new(0);

/// The CPU features the kernels use, as found once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Features(u32);

/// The features of this CPU: after the first call, one load and a test.
#[inline]
pub(crate) fn features() -> Features {
    let f = FEATURES.load(Ordering::Relaxed);
    if f & READY != 0 {
        Features(f)
    } else {
        detect()
    }
}

#[cold]
#[inline(never)]
fn detect() -> Features {
    use std::arch::is_x86_feature_detected as has;
    let mut f = READY;
    for (bit, yes) in [
        (SSSE3, has!("ssse3")),
        (AVX2, has!("avx2")),
        (BMI2, has!("bmi2")),
        (AVX512BW, has!("avx512f") && has!("avx512bw")),
        (
            COMPACT,
            has!("avx512f")
                && has!("avx512bw")
                && has!("avx512vbmi")
                && has!("avx512vbmi2")
                && has!("bmi1")
                && has!("bmi2")
                && has!("lzcnt")
                && has!("popcnt"),
        ),
    ] {
        if yes {
            f |= bit;
        }
    }
    FEATURES.store(f, Ordering::Relaxed);
    Features(f)
}

impl Features {
    #[inline(always)]
    fn has(self, bit: u32) -> bool {
        self.0 & bit != 0
    }

    /// SSSE3 (`pshufb`): the runs of plain bytes.
    #[inline(always)]
    pub(crate) fn ssse3(self) -> Option<Ssse3> {
        self.has(SSSE3).then_some(Ssse3(()))
    }

    /// BMI2 (`bzhi`, `pext`).
    #[inline(always)]
    pub(crate) fn bmi2(self) -> Option<Bmi2> {
        self.has(BMI2).then_some(Bmi2(()))
    }

    /// AVX2: the whole-line masks of up to 64 bytes.
    #[inline(always)]
    pub(crate) fn avx2(self) -> Option<Avx2> {
        self.has(AVX2).then_some(Avx2(()))
    }

    /// AVX-512 F and BW: the whole-line masks of up to 256 bytes.
    #[inline(always)]
    pub(crate) fn avx512bw(self) -> Option<Avx512bw> {
        self.has(AVX512BW).then_some(Avx512bw(()))
    }

    /// What the compaction of the rewrite needs ([`COMPACT`]).
    #[inline(always)]
    pub(crate) fn compact(self) -> Option<Compact> {
        self.has(COMPACT).then_some(Compact(()))
    }
}

/// The CPU has SSSE3.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ssse3(());

/// The CPU has BMI2.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Bmi2(());

impl Bmi2 {
    /// A `Bmi2` without the check, for code that runs only where BMI2
    /// was found otherwise (the compaction, under its [`Compact`]).
    ///
    /// # Safety
    /// The CPU has BMI2.
    #[inline(always)]
    pub(super) unsafe fn assume() -> Bmi2 {
        Bmi2(())
    }
}

/// The CPU has AVX2.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Avx2(());

/// The CPU has AVX-512 F and BW.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Avx512bw(());

/// The CPU has everything the compaction needs (AVX-512 BW, VBMI, VBMI2,
/// BMI1, BMI2, LZCNT, POPCNT).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Compact(());

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detected_once_and_as_std_says() {
        let f = features();
        assert_eq!(f, features());
        assert_eq!(f.ssse3().is_some(), is_x86_feature_detected!("ssse3"));
        assert_eq!(f.avx2().is_some(), is_x86_feature_detected!("avx2"));
        assert_eq!(f.bmi2().is_some(), is_x86_feature_detected!("bmi2"));
        assert_eq!(f.avx512bw().is_some(), is_x86_feature_detected!("avx512bw"));
        if f.compact().is_some() {
            assert!(f.avx512bw().is_some() && f.bmi2().is_some());
        }
    }
}
