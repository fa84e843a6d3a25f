//! The inputs of a run, opened up front: files and stdin named as on a
//! command line, a reader the caller made, or bytes it has in memory.
//!
//! An input carries what its reader needs to know of its origin
//! ([`Origin`]): a regular file and how much is left of it, a pipe, a
//! caller's reader, bytes in memory. That sizes a small input's buffer and
//! says what a short read means ([`Pace`](super::Pace)).

use std::fs::File;
use std::io::{self, Read};
use std::path::PathBuf;

use crate::batch::RunError;

/// The display name of standard input (as in the `first_file` column).
pub const STDIN_NAME: &str = "-";

/// One input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    Stdin,
    Path(PathBuf),
}

impl Input {
    /// `-` is stdin, anything else a path.
    pub fn parse(arg: &std::path::Path) -> Input {
        if arg.as_os_str() == "-" {
            Input::Stdin
        } else {
            Input::Path(arg.to_path_buf())
        }
    }

    /// The inputs named on a command line (none: stdin).
    pub fn from_args(args: &[PathBuf]) -> Vec<Input> {
        if args.is_empty() {
            return vec![Input::Stdin];
        }
        args.iter().map(|a| Input::parse(a)).collect()
    }

    /// The name as given (`-` for stdin).
    pub fn name(&self) -> String {
        match self {
            Input::Stdin => STDIN_NAME.to_owned(),
            Input::Path(p) => p.display().to_string(),
        }
    }

    /// Size of a regular file (for a progress bar).
    pub fn size_hint(&self) -> Option<u64> {
        match self {
            Input::Stdin => None,
            Input::Path(p) => std::fs::metadata(p)
                .ok()
                .filter(|m| m.is_file())
                .map(|m| m.len()),
        }
    }
}

/// An input opened for reading (files are opened up front, so that a
/// missing file is reported before any work is done).
pub struct Opened {
    pub name: String,
    pub(super) reader: Box<dyn Read + Send>,
    pub(super) origin: Origin,
}

/// Bytes an input has in memory already: a caller's buffer, or a file
/// mapped by [`open_all_mapped`](super::open_all_mapped). Its batches of lines are slices of them.
pub type Shared = std::sync::Arc<dyn AsRef<[u8]> + Send + Sync>;

/// [`Shared`] bytes as a `Read`er ([`io::Cursor`]), for the inputs that are
/// decompressed, transcoded or parsed as records all the same.
struct SharedBytes(Shared);

impl AsRef<[u8]> for SharedBytes {
    fn as_ref(&self) -> &[u8] {
        (*self.0).as_ref()
    }
}

/// Where an input's bytes come from, as far as its reader cares.
#[derive(Clone)]
pub(super) enum Origin {
    /// A regular file, and the bytes left in it when it was opened: the
    /// reader sizes a small input's buffer to that ([`BatchReader::sized`](super::BatchReader::sized);
    /// a hint only: a file may grow or shrink while it is read), and all
    /// of it is there ([`Pace::Whole`](super::Pace::Whole)).
    File(u64),
    /// A pipe, terminal, socket or device (its descriptor): bytes come as
    /// they are written ([`Pace::Live`](super::Pace::Live)).
    #[cfg(unix)]
    Live(std::os::fd::RawFd),
    /// A reader given by the caller ([`Pace::Unknown`](super::Pace::Unknown)).
    Reader,
    /// Bytes in memory ([`Opened::from_bytes`]): all there ([`Pace::Whole`](super::Pace::Whole)).
    Memory(Shared),
}

impl Origin {
    /// The origin of an open file (`f` must stay open while it is read).
    pub(super) fn of(f: &File) -> Origin {
        match left_in(f) {
            Some(left) => Origin::File(left),
            #[cfg(unix)]
            None => Origin::Live(std::os::fd::AsRawFd::as_raw_fd(f)),
            #[cfg(not(unix))]
            None => Origin::Reader,
        }
    }
}

impl Opened {
    /// An input read from any reader (bytes in memory, a socket, a
    /// decompressor the caller set up), shown as `name` in the output.
    pub fn from_reader(name: impl Into<String>, reader: Box<dyn Read + Send>) -> Opened {
        Opened {
            name: name.into(),
            reader,
            origin: Origin::Reader,
        }
    }

    /// An input whose bytes are in memory already, shown as `name`. Its
    /// lines are handed to the workers as slices of `bytes`, not copied
    /// into batches (unless it is compressed or UTF-16, or read as
    /// CSV/TSV records: then it is read as any stream).
    pub fn from_bytes(name: impl Into<String>, bytes: Shared) -> Opened {
        Opened {
            name: name.into(),
            reader: Box::new(io::Cursor::new(SharedBytes(bytes.clone()))),
            origin: Origin::Memory(bytes),
        }
    }

    /// An open file (regular, or a pipe, terminal, device), shown as
    /// `name`, with its [`Origin`].
    pub(super) fn file(name: String, f: File) -> Opened {
        Opened {
            name,
            origin: Origin::of(&f),
            reader: Box::new(f),
        }
    }
}

/// Open every input (no reading yet): `cannot open NAME: REASON` on failure.
pub fn open_all(inputs: &[Input]) -> Result<Vec<Opened>, RunError> {
    open_each(inputs, Opened::file)
}

/// Open every input, each file as `file` makes it an input.
pub(super) fn open_each(
    inputs: &[Input],
    file: impl Fn(String, File) -> Opened,
) -> Result<Vec<Opened>, RunError> {
    inputs
        .iter()
        .map(|input| match input {
            Input::Stdin => Ok(stdin(input.name())),
            Input::Path(p) => File::open(p)
                .map(|f| file(input.name(), f))
                .map_err(|e| RunError::io(format!("cannot open {}", p.display()), &e)),
        })
        .collect()
}

/// The bytes left to read in `f` if it is a regular file: its length less
/// where it is (`None` for a pipe, a terminal, a device).
fn left_in(mut f: &File) -> Option<u64> {
    use std::io::Seek;
    let len = f.metadata().ok().filter(|m| m.is_file())?.len();
    let at = f.stream_position().ok()?;
    Some(len.saturating_sub(at))
}

/// Stdin as an input named `name` (a shell's `< file` is a file, of which
/// a script before us may have read part).
///
/// Read without `std`'s 8 KiB buffer (a duplicate of descriptor 0): the
/// first bytes [`open_sized`](super::stream::open_sized) looks at would fill that buffer, and the
/// rest of it, handed out by the next read, looked like a short read of a
/// stream that has nothing more yet; the reader ended its first batch
/// there, so a small input on stdin never came as one batch.
fn stdin(name: String) -> Opened {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        if let Ok(fd) = io::stdin().as_fd().try_clone_to_owned() {
            return Opened::file(name, File::from(fd));
        }
    }
    Opened::from_reader(name, Box::new(io::stdin()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_has_what_is_left_of_it_a_pipe_nothing() {
        use std::io::{Seek, SeekFrom};
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.txt");
        std::fs::write(&p, [b'x'; 1000]).unwrap();
        let mut f = File::open(&p).unwrap();
        assert_eq!(left_in(&f), Some(1000));
        f.seek(SeekFrom::Start(300)).unwrap();
        assert_eq!(left_in(&f), Some(700));
        f.seek(SeekFrom::Start(5000)).unwrap();
        assert_eq!(left_in(&f), Some(0));
        #[cfg(unix)]
        {
            let (r, _w) = io::pipe().unwrap();
            let r = File::from(std::os::fd::OwnedFd::from(r));
            assert_eq!(left_in(&r), None);
        }
    }
}
