//! Every use of `std::arch` in the crate: CPU feature detection (once, one
//! value) and the vector kernels, each behind a safe function with its
//! portable version beside it and a differential test against it.
//!
//! | file | kernels | portable twin |
//! |---|---|---|
//! | `detect` | the feature word and its tokens | — |
//! | `runs` | runs of plain bytes (SSSE3 `pshufb` nibble lookup) | 8 table lookups per branch |
//! | `masks` | a line's byte classes as bit masks (AVX2, AVX-512BW) | a byte at a time |
//! | `bits` | "bits `0..n`" (BMI2 `bzhi`) | shifts |
//! | `compact` | the rewrite as one compaction (AVX-512 VBMI2) | the scalar rewrite of `ladder::http` |
//! | `scan` | `.`/`/` and `%`/non-ASCII searches, a range's masks of chosen bytes (SSE2) | byte loops |
//! | `bytes` | a batch's newlines, a CSV field's quote test (SSE2), prefetch | `memchr`, a byte loop, nothing |
//!
//! The kernels are compiled on x86-64 only, and not at all with
//! `RUSTFLAGS="--cfg irinorm_portable"`: then the portable paths are what
//! runs, exactly as on every other target, which is how CI checks them.

#[cfg(any(test, all(target_arch = "x86_64", not(irinorm_portable))))]
pub(crate) mod bits;
pub(crate) mod bytes;
#[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
pub(crate) mod compact;
#[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
pub(crate) mod detect;
#[cfg(any(test, all(target_arch = "x86_64", not(irinorm_portable))))]
pub(crate) mod masks;
pub(crate) mod runs;
pub(crate) mod scan;

#[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
pub(crate) use detect::features;
