//! Memory: a regular file mapped instead of read (the caller's choice, an
//! `unsafe fn` with its contract), and the huge-page advice
//! (`madvise`, Linux) for the reader's batch buffers.
//!
//! Files are read, not mapped, unless the caller chooses otherwise
//! ([`open_all_mapped`], `--mmap`): a file truncated while it is read then
//! ends early (what was read is processed, the counts add up) instead of
//! killing the process with `SIGBUS`, which would lose a crawl job's hours.

use std::fs::File;

use super::input::{open_each, Input, Opened};
use crate::batch::RunError;

/// [`open_all`](super::open_all), with every regular file among `inputs` mapped into memory
/// instead of read (stdin, pipes, devices and a file that cannot be mapped
/// are read). The workers then key the file's pages where the kernel keeps
/// them: no reader copies them into buffers, and no fresh buffer is zeroed
/// for them (BENCHMARKS.md, decision log: "--mmap and the populate advice").
///
/// # Safety
/// Every mapped file must stay as it is until the run that reads the
/// returned inputs has ended (every batch and every row that borrows its
/// bytes dropped). A file truncated meanwhile kills the process with
/// `SIGBUS` when a worker touches a page past its new end; a file changed
/// meanwhile changes bytes that were checked as UTF-8 and hashed already
/// (undefined behaviour for the `&str`s made of them, and keys stored
/// under another key's hash). A crawl's finished files, written once and
/// then read, are what this is for; a log still being written is not.
pub unsafe fn open_all_mapped(inputs: &[Input]) -> Result<Vec<Opened>, RunError> {
    // SAFETY: passed on to our caller.
    open_each(inputs, |name, f| unsafe { Opened::mapped(name, f) })
}

impl Opened {
    /// A regular, non-empty file mapped into memory ([`open_all_mapped`]),
    /// else the file as [`Opened::file`] reads it.
    ///
    /// # Safety
    /// As [`open_all_mapped`].
    unsafe fn mapped(name: String, f: File) -> Opened {
        // An empty file cannot be mapped; it has no pages to save.
        if f.metadata().is_ok_and(|m| m.is_file() && m.len() > 0) {
            // SAFETY: the caller promises that the file is neither changed
            // nor truncated while the run holds the map (see
            // `open_all_mapped`).
            if let Ok(map) = unsafe { memmap2::Mmap::map(&f) } {
                return Opened::from_bytes(name, std::sync::Arc::new(map));
            }
        }
        Opened::file(name, f)
    }
}

/// Ask the kernel to back the whole 2 MiB pages inside `room` with
/// transparent huge pages (`madvise(MADV_HUGEPAGE)`; it acts when the
/// system's THP mode is `madvise`, a common default, or `always`). A fresh
/// batch buffer is otherwise faulted in 4 KiB at a time: 2,304 faults for
/// the 9 MB of an 8 MB batch, each a trap and a page's bookkeeping, on the
/// reader thread, which at two workers takes that time from their cores
/// (BENCHMARKS.md, decision log: "madvise and huge pages").
/// A hint: where the kernel has no huge page to give, nothing changes.
/// The advice stays with the address range, so a buffer that had it is
/// [`release`]d, not just dropped.
pub(super) fn huge_pages<T>(room: &mut [T]) {
    let start = room.as_mut_ptr() as usize;
    advise(start, start + std::mem::size_of_val(room), true);
}

/// Drop a batch buffer, its huge-page advice ([`huge_pages`]) withdrawn
/// first. The allocator may keep the freed range (a buffer below its
/// `mmap` threshold, which rises once such a buffer is freed) and hand it
/// out for anything: with the advice, each first touch there would fault
/// in and zero 2 MiB, and a library caller's later small runs in the same
/// process would pay that.
pub(super) fn release(buf: Vec<u8>) {
    no_huge_pages(&buf);
    drop(buf);
}

/// Withdraw [`huge_pages`]' advice from the whole of `buf`'s room.
fn no_huge_pages(buf: &Vec<u8>) {
    let start = buf.as_ptr() as usize;
    advise(start, start + buf.capacity(), false);
}

/// `madvise(MADV_HUGEPAGE)` (`huge`) or `MADV_NOHUGEPAGE` on the whole
/// 2 MiB pages of `start..end` (Linux; elsewhere nothing).
fn advise(start: usize, end: usize, huge: bool) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let (from, to) = (start.next_multiple_of(HUGE), end / HUGE * HUGE);
        let advice = if huge {
            libc::MADV_HUGEPAGE
        } else {
            libc::MADV_NOHUGEPAGE
        };
        if to > from {
            // SAFETY: `from..to` lies inside an allocation this process
            // owns (the caller's buffer); the advice changes no byte of
            // it. Its result is ignored: a kernel without THP leaves the
            // pages as they were.
            unsafe {
                libc::madvise(from as *mut libc::c_void, to - from, advice);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (start, end, huge);
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// The `VmFlags` of the mapping that holds `addr` (Linux).
    fn vm_flags(addr: usize) -> String {
        let maps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let mut inside = false;
        for line in maps.lines() {
            if let Some((range, _)) = line.split_once(' ') {
                if let Some((a, b)) = range.split_once('-') {
                    if let (Ok(a), Ok(b)) =
                        (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16))
                    {
                        inside = (a..b).contains(&addr);
                        continue;
                    }
                }
            }
            if inside {
                if let Some(f) = line.strip_prefix("VmFlags:") {
                    return f.to_owned();
                }
            }
        }
        panic!("no mapping holds {addr:#x}");
    }

    #[test]
    fn a_released_buffer_keeps_no_huge_page_advice() {
        let mut buf: Vec<u8> = Vec::with_capacity(9 << 20);
        huge_pages(buf.spare_capacity_mut());
        let inside = (buf.as_ptr() as usize).next_multiple_of(2 << 20);
        let advised = vm_flags(inside);
        if !advised.split_whitespace().any(|f| f == "hg") {
            // A kernel without transparent huge pages: nothing to withdraw.
            return;
        }
        no_huge_pages(&buf);
        let after = vm_flags(inside);
        assert!(!after.split_whitespace().any(|f| f == "hg"), "{after}");
    }
}
