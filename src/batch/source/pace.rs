//! What a short read means: whether the lines read so far go out as a
//! batch before it is full (a live pipe, watched with `poll` on Unix) or
//! the reader waits for more (a file, whose bytes are all there).
//!
//! Elsewhere than Unix a pipe is paced as a caller's reader
//! ([`Pace::Unknown`]): a short read of less than 64 KiB ends a batch.

#[cfg(unix)]
use std::io;

/// What a read that gave fewer bytes than asked says about a stream
/// ([`BatchReader::paced`](super::BatchReader::paced)), which decides whether the lines read so far
/// go out as a batch before it is full.
pub enum Pace {
    /// Nothing: all of the stream is there (a regular file; its decoder's
    /// reads end where its buffer does). Batches are full ones.
    Whole,
    /// The stream has no more bytes for now, unless `more(wait)` says some
    /// came within `wait`: the batch goes out once no byte came for
    /// [`Pace::GAP`], or [`Pace::MOST`] after the first short read, so
    /// that `tail -f | irinorm normalize` answers promptly, and `zcat |
    /// irinorm dedup -`, whose reads find the pipe drained all the time,
    /// still fills its batches (ended at each short read, they would hold
    /// a few dozen KB: BENCHMARKS.md, decision log, "Reader thread and full batches").
    Live(Box<dyn FnMut(std::time::Duration) -> bool + Send>),
    /// A short read of less than 64 KiB ends the batch (a caller's
    /// reader, of which nothing else is known).
    Unknown,
}

impl Pace {
    /// How long no byte may come before the lines read go out.
    pub const GAP: std::time::Duration = std::time::Duration::from_millis(10);
    /// How long after its first short read a batch goes out anyway.
    pub const MOST: std::time::Duration = std::time::Duration::from_millis(50);
}

/// Whether a read of descriptor `fd` would find bytes (or the end) within
/// `wait` (`poll`; an error other than an interruption says yes: the read
/// will tell).
#[cfg(unix)]
pub(super) fn readable_within(fd: std::os::fd::RawFd, wait: std::time::Duration) -> bool {
    let mut p = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    let ms = i32::try_from(wait.as_millis()).unwrap_or(i32::MAX);
    loop {
        // SAFETY: `p` is one valid `pollfd`, as the count of 1 says.
        let r = unsafe { libc::poll(&mut p, 1, ms) };
        if r >= 0 {
            return r > 0;
        }
        if io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            return true;
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::io::Read;

    /// [`readable_within`] on a pipe: not while it is empty, yes once a
    /// byte is in it, and yes once its writer is gone (the read gives the
    /// end).
    #[test]
    fn a_pipe_is_readable_once_written_or_closed() {
        use std::io::Write;
        use std::os::fd::AsRawFd;
        let ms = std::time::Duration::from_millis;
        let (mut r, mut w) = io::pipe().unwrap();
        let fd = r.as_raw_fd();
        assert!(!readable_within(fd, ms(5)));
        w.write_all(b"x").unwrap();
        assert!(readable_within(fd, ms(5)));
        r.read_exact(&mut [0u8]).unwrap();
        assert!(!readable_within(fd, ms(0)));
        drop(w);
        assert!(readable_within(fd, ms(5)));
    }
}
