//! Temporary files that must not outlive the run, also when it is
//! interrupted.
//!
//! The engine registers every temporary path it creates (the atomic output's
//! `.irinorm-*.tmp`, the spill directory) for as long as it exists. Normal
//! ends — success, error, panic unwinding — remove them through `Drop`
//! (`tempfile`). A signal does not unwind, so a program that installs a
//! handler for SIGINT/SIGTERM (the `irinorm` binary does, with `ctrlc`)
//! calls [`remove_all`] from it before exiting. The library itself installs
//! no handler: that is the embedding program's choice.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

static PATHS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Remember `path` (a file or a directory) until [`forget`].
pub fn register(path: &Path) {
    if let Ok(mut p) = PATHS.lock() {
        p.push(path.to_path_buf());
    }
}

/// `path` was removed or moved into place: no longer ours to delete.
pub fn forget(path: &Path) {
    if let Ok(mut p) = PATHS.lock() {
        if let Some(i) = p.iter().rposition(|q| q == path) {
            p.swap_remove(i);
        }
    }
}

/// Remove every registered path (for a signal handler; errors are ignored:
/// there is nobody left to tell).
pub fn remove_all() {
    let paths = match PATHS.lock() {
        Ok(mut p) => std::mem::take(&mut *p),
        Err(_) => return,
    };
    for p in paths {
        if p.is_dir() {
            let _ = std::fs::remove_dir_all(&p);
        } else {
            let _ = std::fs::remove_file(&p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registered_paths_are_removed_forgotten_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::write(&a, b"x").unwrap();
        std::fs::create_dir(&b).unwrap();
        std::fs::write(b.join("c"), b"y").unwrap();
        let kept = dir.path().join("kept");
        std::fs::write(&kept, b"z").unwrap();
        register(&a);
        register(&b);
        register(&kept);
        forget(&kept);
        remove_all();
        assert!(!a.exists() && !b.exists() && kept.exists());
    }
}
