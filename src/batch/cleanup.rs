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
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

static PATHS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Set by [`remove_all`]: the run is being torn down.
static STOPPING: AtomicBool = AtomicBool::new(false);

/// A temporary file with no name: unlinked as it is created (in `dir`, or
/// the system's temporary directory), so no end of the run — a signal or
/// `SIGKILL` included — can leave it behind, and it needs no registering.
pub fn unnamed_temp_file(dir: Option<&Path>) -> std::io::Result<std::fs::File> {
    match dir {
        Some(d) => tempfile::tempfile_in(d),
        None => tempfile::tempfile(),
    }
}

/// Remember `path` (a file or a directory) until [`forget`]. After
/// [`remove_all`] has started, the path is removed at once instead.
pub fn register(path: &Path) {
    if let Ok(mut p) = PATHS.lock() {
        if STOPPING.load(Ordering::SeqCst) {
            drop(p);
            remove(path);
            return;
        }
        p.push(path.to_path_buf());
    }
}

/// True once [`remove_all`] has started: writers of temporary files stop.
pub fn stopping() -> bool {
    STOPPING.load(Ordering::SeqCst)
}

fn remove(p: &Path) {
    if p.is_dir() {
        let _ = std::fs::remove_dir_all(p);
    } else {
        let _ = std::fs::remove_file(p);
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
/// there is nobody left to tell). Workers may still be creating files in a
/// spill directory while it is removed, so a directory is removed until it
/// stays gone (a few tries, a few milliseconds apart).
pub fn remove_all() {
    STOPPING.store(true, Ordering::SeqCst);
    remove_registered(|_| true);
}

/// The removal part of [`remove_all`], of the registered paths that
/// `which` picks, without marking the process as stopping.
fn remove_registered(which: impl Fn(&Path) -> bool) {
    let paths = match PATHS.lock() {
        Ok(mut p) => {
            let (picked, kept) = std::mem::take(&mut *p).into_iter().partition(|q| which(q));
            *p = kept;
            picked
        }
        Err(_) => return,
    };
    for _ in 0..20 {
        for p in &paths {
            remove(p);
        }
        if paths.iter().all(|p| !p.exists()) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
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
        // Not `remove_all`, nor other tests' paths: they go on.
        remove_registered(|p| p.starts_with(dir.path()));
        assert!(!a.exists() && !b.exists() && kept.exists());
    }
}
