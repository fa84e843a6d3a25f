//! Output layer: CSV encoding and where the bytes go.
//!
//! [`OutputFile`] is the one writer every command uses. Stdout, pipes and
//! devices (`/dev/null`, FIFOs) are written directly. A path that is a regular
//! file, or does not exist yet, is written *atomically*: into a temporary file
//! in the same directory (`.irinorm-XXXXXX.tmp`), renamed over the target only
//! by [`OutputFile::finish`]. A run that fails drops the temporary file, so it
//! never leaves a partial CSV and never clobbers a good old one. The
//! temporary file is registered with [`cleanup`], so a program that handles
//! SIGINT/SIGTERM removes it too; only SIGKILL can leave it behind (never a
//! partial file under the target name).
//!
//! The CSV writer is hand-rolled ([`csv_field`]): RFC 4180 quoting only where
//! needed (`,` `"` CR LF), which is what the hot path of `dedup` wants.

use std::fs::OpenOptions;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use super::{cleanup, RunError};

const BUF: usize = 1 << 20;
/// Writes of this many bytes or more bypass the buffer ([`OutputFile::write`]).
const DIRECT: usize = 64 << 10;

enum Target {
    Stdout,
    Direct,
    Atomic {
        tmp: tempfile::TempPath,
        path: PathBuf,
    },
}

/// A buffered output: stdout, a direct file or an atomic file.
pub struct OutputFile {
    w: BufWriter<Box<dyn Write + Send>>,
    target: Target,
    name: String,
}

impl OutputFile {
    /// Standard output.
    pub fn stdout() -> Self {
        OutputFile {
            w: BufWriter::with_capacity(BUF, Box::new(io::stdout())),
            target: Target::Stdout,
            name: "standard output".to_owned(),
        }
    }

    /// `None` or `-` is stdout; an existing non-regular file (device, FIFO)
    /// is opened directly; a regular or new file is written atomically.
    pub fn create(path: Option<&Path>) -> Result<Self, RunError> {
        let path = match path {
            None => return Ok(Self::stdout()),
            Some(p) if p.as_os_str() == "-" => return Ok(Self::stdout()),
            Some(p) => p,
        };
        let name = path.display().to_string();
        let cannot = |e: &io::Error| RunError::io(format!("cannot create {name}"), e);
        let existing = std::fs::metadata(path).ok();
        if let Some(meta) = existing.as_ref().filter(|m| !m.is_file()) {
            if meta.is_dir() {
                return Err(RunError::msg(format!(
                    "cannot create {name}: Is a directory"
                )));
            }
            let f = OpenOptions::new()
                .write(true)
                .truncate(true)
                .open(path)
                .map_err(|e| cannot(&e))?;
            return Ok(OutputFile {
                w: BufWriter::with_capacity(BUF, Box::new(f)),
                target: Target::Direct,
                name,
            });
        }
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let mut builder = tempfile::Builder::new();
        builder.prefix(".irinorm-").suffix(".tmp");
        let perms = match &existing {
            Some(m) => Some(m.permissions()),
            None => default_permissions(),
        };
        if let Some(perms) = perms {
            builder.permissions(perms);
        }
        let tmp = builder.tempfile_in(dir).map_err(|e| cannot(&e))?;
        let (file, tmp) = tmp.into_parts();
        cleanup::register(&tmp);
        Ok(OutputFile {
            w: BufWriter::with_capacity(BUF, Box::new(file) as Box<dyn Write + Send>),
            target: Target::Atomic {
                tmp,
                path: path.to_path_buf(),
            },
            name,
        })
    }

    /// The name for error messages.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Write bytes; errors name the output (BrokenPipe stays recognisable).
    ///
    /// A large write (a block of `dedup`'s rows, already formatted) goes
    /// past the buffer once it is flushed: copying it there would touch the
    /// buffer's pages and move every byte once more for nothing.
    pub fn write(&mut self, bytes: &[u8]) -> Result<(), RunError> {
        let r = if bytes.len() >= DIRECT {
            self.w
                .flush()
                .and_then(|()| self.w.get_mut().write_all(bytes))
        } else {
            self.w.write_all(bytes)
        };
        r.map_err(|e| self.err(&e))
    }

    /// Flush to the OS (for streaming commands, after each batch).
    pub fn flush(&mut self) -> Result<(), RunError> {
        let r = self.w.flush();
        r.map_err(|e| self.err(&e))
    }

    fn err(&self, e: &io::Error) -> RunError {
        RunError::io(format!("cannot write {}", self.name), e)
    }

    /// Flush, and for an atomic output move it into place.
    pub fn finish(mut self) -> Result<(), RunError> {
        self.flush()?;
        match std::mem::replace(&mut self.target, Target::Stdout) {
            Target::Stdout | Target::Direct => Ok(()),
            Target::Atomic { tmp, path } => {
                let tmp_path = tmp.to_path_buf();
                let r = tmp.persist(&path).map_err(|e| {
                    RunError::io(format!("cannot create {}", path.display()), &e.error)
                });
                // Persisted, or removed by the failed persist's drop.
                cleanup::forget(&tmp_path);
                r
            }
        }
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        // An unfinished atomic output: `TempPath` removes the file.
        if let Target::Atomic { tmp, .. } = &self.target {
            cleanup::forget(tmp);
        }
    }
}

#[cfg(unix)]
fn default_permissions() -> Option<std::fs::Permissions> {
    use std::os::unix::fs::PermissionsExt;
    // Like `File::create`: 0666 minus the umask (the kernel applies it).
    Some(std::fs::Permissions::from_mode(0o666))
}

#[cfg(not(unix))]
fn default_permissions() -> Option<std::fs::Permissions> {
    None
}

/// Run `produce` while a thread of its own writes, in order, what it
/// sends: `write` is called on each item, then `done` gets the item back
/// (to reuse its buffers). At most `queue` items wait between the two, so
/// memory stays bounded, and each is written as soon as it is sent, so a
/// slow stream is answered at once. The writer's error comes first (it is
/// why a send failed: `produce` then stops); a panic on either side is
/// resumed.
pub(super) fn write_behind<T: Send, R>(
    queue: usize,
    mut write: impl FnMut(&T) -> Result<(), RunError> + Send,
    mut done: impl FnMut(T) + Send,
    produce: impl FnOnce(&mut dyn FnMut(T) -> Result<(), RunError>) -> Result<R, RunError>,
) -> Result<R, RunError> {
    let (to_write, items) = std::sync::mpsc::sync_channel::<T>(queue);
    std::thread::scope(|scope| {
        let writer = std::thread::Builder::new()
            .name("irinorm-write".into())
            .spawn_scoped(scope, move || {
                for item in items {
                    write(&item)?;
                    done(item);
                }
                Ok(())
            })
            .map_err(|e| RunError::io("cannot start a writer thread".into(), &e))?;
        let produced = produce(&mut |item| {
            to_write
                .send(item)
                .map_err(|_| RunError::msg("the output writer stopped"))
        });
        // The end of the output: the writer drains what is queued.
        drop(to_write);
        writer
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
        produced
    })
}

/// Append one CSV field to `out`, quoted only when it contains `,` `"` CR or
/// LF (RFC 4180).
#[inline]
pub fn csv_field(out: &mut Vec<u8>, field: &[u8]) {
    field_with(out, field, b',');
}

/// [`csv_field`] for a file whose fields are separated by `delim` (`,` for
/// CSV, TAB for TSV): quoted when it holds `delim`, `"`, CR or LF.
pub fn field_with(out: &mut Vec<u8>, field: &[u8], delim: u8) {
    if !needs_quotes(field, delim) {
        out.extend_from_slice(field);
        return;
    }
    out.push(b'"');
    for &b in field {
        if b == b'"' {
            out.push(b'"');
        }
        out.push(b);
    }
    out.push(b'"');
}

/// Whether `field` holds `delim`, `"`, CR or LF (a vector kernel where
/// there is one: `simd::bytes`).
#[inline]
fn needs_quotes(field: &[u8], delim: u8) -> bool {
    crate::simd::bytes::csv_needs_quotes(field, delim)
}

/// Append an integer field: two digits per step from a table, as `itoa`
/// does, but written in place. `itoa`'s digits end its buffer at a place
/// known only at run time, so appending them called `memmove` for a few
/// bytes, and that call cost a dedup (two numbers a row) more than the
/// digits did. Here the room is appended as one fixed-size store
/// and cut to the number's length, and the digits are written into it
/// (built in a buffer and copied whole instead, the copy's 16-byte load
/// waited on the digits' 2-byte stores).
#[inline]
pub fn csv_u64(out: &mut Vec<u8>, mut n: u64) {
    const PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
        2021222324252627282930313233343536373839\
        4041424344454647484950515253545556575859\
        6061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899";
    if n < 10 {
        out.push(b'0' + n as u8);
        return;
    }
    // At most 20 digits (`u64::MAX`).
    let len = n.ilog10() as usize + 1;
    let at = out.len();
    out.extend_from_slice(&[0; 20]);
    out.truncate(at + len);
    let digits = &mut out[at..];
    let mut end = len;
    while n >= 100 {
        let d = (n % 100) as usize * 2;
        n /= 100;
        end -= 2;
        digits[end..end + 2].copy_from_slice(&PAIRS[d..d + 2]);
    }
    if n >= 10 {
        let d = n as usize * 2;
        digits[..2].copy_from_slice(&PAIRS[d..d + 2]);
    } else {
        digits[0] = b'0' + n as u8;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        let mut v = Vec::new();
        csv_field(&mut v, b"plain");
        v.push(b',');
        csv_field(&mut v, b"a,b");
        v.push(b',');
        csv_field(&mut v, b"say \"hi\"\n");
        v.push(b',');
        csv_u64(&mut v, 0);
        v.push(b',');
        csv_u64(&mut v, 18446744073709551615);
        assert_eq!(
            v,
            b"plain,\"a,b\",\"say \"\"hi\"\"\n\",0,18446744073709551615".to_vec()
        );
    }

    #[test]
    fn integers_are_written_as_std_writes_them() {
        let mut ns = vec![0, 1, 9, u64::MAX, u64::MAX - 1];
        for d in 1..20 {
            let p = 10u64.pow(d);
            ns.extend([p - 1, p, p + 1, p + p / 2 + 7]);
        }
        let mut v = b"x".to_vec();
        for &n in &ns {
            let at = v.len();
            csv_u64(&mut v, n);
            assert_eq!(&v[at..], n.to_string().as_bytes(), "{n}");
        }
    }

    #[test]
    fn large_writes_past_the_buffer_keep_their_place() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.csv");
        let mut out = OutputFile::create(Some(&path)).unwrap();
        let big: Vec<u8> = (0..DIRECT + 5).map(|i| b'a' + (i % 26) as u8).collect();
        let mut want = Vec::new();
        for piece in [
            &b"head\n"[..],
            &big,
            b"mid\n",
            b"dle\n",
            &big,
            &big,
            b"tail\n",
        ] {
            out.write(piece).unwrap();
            want.extend_from_slice(piece);
        }
        out.finish().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), want);
    }

    #[test]
    fn quotes_for_a_special_byte_at_every_place() {
        // Lengths across the 16-byte blocks and the overlapping last one.
        for delim in [b',', b'\t'] {
            for len in 0..50 {
                let plain = vec![b'a'; len];
                assert!(!needs_quotes(&plain, delim), "{len}");
                for at in 0..len {
                    for special in [delim, b'"', b'\n', b'\r'] {
                        let mut f = plain.clone();
                        f[at] = special;
                        assert!(needs_quotes(&f, delim), "{len} {at} {special}");
                    }
                    // Bytes next to the special ones, and the other
                    // delimiter, need no quotes.
                    for other in [b'!', b'#', b'\x0b', b'\x0c', b'\x80', delim ^ b'\t' ^ b','] {
                        let mut f = plain.clone();
                        f[at] = other;
                        assert!(!needs_quotes(&f, delim), "{len} {at} {other}");
                    }
                }
            }
        }
    }

    #[test]
    fn atomic_output_only_on_finish() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.csv");
        let mut o = OutputFile::create(Some(&p)).unwrap();
        o.write(b"x").unwrap();
        drop(o);
        assert!(!p.exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        let mut o = OutputFile::create(Some(&p)).unwrap();
        o.write(b"y").unwrap();
        o.finish().unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"y");
    }
}
