//! The URL-seen test: a persistent set of every key a crawl has seen, and
//! `dedup` against it — DRUM, the disk repository with update management
//! of IRLbot (Lee, Leonard, Wang, Loguinov, WWW 2008 / ACM TWEB 2009,
//! §5): batches checked and merged into sorted buckets sequentially,
//! never a lookup per key.
//!
//! A seen-set is a directory ([`store`]): a manifest, committed by an
//! atomic rename, naming bucket files of sorted fingerprints ([`keys`]) in
//! the compressed, checksummed blocks of [`crate::batch::runs`]. A batch
//! ([`filter`]) is deduplicated by the engine, its keys fingerprinted and
//! sorted, merged once against each bucket file, and its new keys added as
//! a new bucket file; the newest files are merged while they hold at least
//! half as many keys as the one before (size tiers), so a batch costs one
//! sequential read of the store and writes of its own keys, each key being
//! rewritten at most log₂(keys) times over the store's life.
//!
//! **Fingerprints.** A key is stored as its SipHash-1-3 128-bit hash under
//! the seen-set's random 128-bit secret (written in the manifest, so
//! nobody who writes URLs can aim one at another's fingerprint). A key is
//! wrongly reported as seen only if its fingerprint equals another key's:
//! among n keys the chance that any two collide is at most n²/2¹²⁹ —
//! 1.5 × 10⁻¹⁹ at 10¹⁰ keys, 1.5 × 10⁻¹⁵ at 10¹² (the birthday bound). Sorted and
//! delta-coded, 10⁷ fingerprints take about 14 bytes each on disk.
//!
//! **Keys.** The seen-set records the key options its keys were made with
//! (as text its caller builds) and refuses a run with other ones: the same
//! URL keyed otherwise would be a different key.
//!
//! **Safety.** One writer at a time (an exclusive `flock` on `LOCK`; a
//! check takes a shared one). An update writes new files and commits by
//! renaming a synced manifest, so a crash or a signal at any point leaves
//! the previous state whole. Every file carries checksums (the manifest a
//! CRC-32 of its text, bucket files one per block and frame, and the
//! manifest their key counts and sizes), so a truncated or damaged file is
//! an error, never read as keys.

mod filter;
mod keys;
mod store;
#[cfg(test)]
mod tests;

use std::path::Path;

pub use filter::{run, Pending, SeenConfig, SeenSummary};
pub use store::{Access, Bucket, SeenInfo, Store};

use super::RunError;

/// What the seen-set in `dir` holds (its manifest, under a shared lock).
pub fn info(dir: &Path) -> Result<SeenInfo, RunError> {
    Ok(Store::open(dir, None, Access::Read)?.info())
}

/// Read every bucket file of the seen-set in `dir` whole, checking every
/// block: its information, after checking.
pub fn verify(dir: &Path) -> Result<SeenInfo, RunError> {
    let store = Store::open(dir, None, Access::Read)?;
    let n = store.verify()?;
    let info = store.info();
    if n != info.keys() {
        return Err(RunError::msg(format!(
            "seen-set {}: {n} keys read, {} in its manifest",
            dir.display(),
            info.keys()
        )));
    }
    Ok(info)
}

/// Merge the seen-set's bucket files into one (a smaller store, one file
/// to read per batch): what it then holds.
pub fn compact(dir: &Path) -> Result<SeenInfo, RunError> {
    if !dir.join("MANIFEST").exists() {
        return Err(RunError::msg(format!(
            "seen-set {}: no seen-set here (no MANIFEST)",
            dir.display()
        )));
    }
    let mut store = Store::open(dir, None, Access::Write)?;
    store.compact()?;
    Ok(store.info())
}
