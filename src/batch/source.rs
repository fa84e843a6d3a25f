//! Sources: where the bytes of the IRI lists come from, as a stream of
//! bounded batches.
//!
//! Every input — a regular file, stdin, gzip (multi-member) or zstd (both
//! recognised by their magic bytes), UTF-16 with a byte-order mark or
//! declared by the charset — is *read* as a stream on a reader thread
//! ([`for_each_batch`]; one for all the inputs, one after the other):
//! decompression and transcoding overlap the keying
//! done by the caller's workers, and memory is bounded by the batch size and
//! a queue of [`QUEUE`] batches, whatever the input size.
//!
//! Files are read, not memory-mapped, unless the caller chooses otherwise
//! ([`open_all_mapped`], `--mmap`): a file truncated while we read it then
//! ends early (what was read is processed, the counts add up) instead of
//! killing the process with SIGBUS, which would lose a crawl job's hours.
//! Reading costs a copy per byte and the fresh pages it is copied into:
//! on two workers, the reader's CPU is what the workers lose
//! (BENCHMARKS.md §38, §39). An input already in memory ([`Opened::from_bytes`],
//! a mapped file) is cut into batches that are slices of it: no byte is
//! copied. What the reader knows of an input's origin (a regular file and
//! how much is left of it, a pipe, a caller's reader, bytes in memory)
//! sizes a small input's buffer and says what a short read means ([`Pace`]).
//!
//! Batch shapes ([`Format`]):
//! * lines: a buffer of complete lines ([`BatchReader`]), cut into chunks at
//!   line ends ([`split_chunks`]) for the workers;
//! * CDX/CDXJ index lines: lines as above, after an optional ` CDX …`
//!   header line that names the fields ([`CdxInput`]);
//! * CSV/TSV records (RFC 4180, the `csv` crate): a quoted field may hold
//!   newlines, so records are parsed sequentially on the reader thread and
//!   handed over in batches, each with the physical line it starts on.
//!
//! A UTF-8 byte-order mark at the start of an input is ignored.

use std::fs::File;
use std::io::{self, Read};
use std::ops::Range;
use std::path::PathBuf;
use std::sync::mpsc;

use csv::ByteRecord;

use super::Error;
use crate::cdx::{CdxLayout, Format as CdxFormat};
use crate::decode::{self, Charset, Compression};

/// The UTF-8 byte-order mark, ignored at the start of an input.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The display name of standard input (as in the `first_file` column).
pub const STDIN_NAME: &str = "-";

/// Batches read ahead of the workers, per input.
pub const QUEUE: usize = 2;

/// Records per batch of CSV/TSV input.
pub const RECORDS_PER_BATCH: usize = 1 << 14;

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

/// How an input is cut into units.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Format {
    /// One reference per line (LF or CRLF).
    Lines,
    Records(RecordFormat),
    /// Web-archive index lines ([`crate::cdx`]): read as lines, the
    /// reference of each is its record's original URL.
    Cdx(CdxFormat),
}

/// CSV/TSV input: which fields hold the reference and its base.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordFormat {
    pub delimiter: u8,
    /// The first record is a header (names the columns).
    pub header: bool,
    pub column: Column,
    pub base_column: Option<Column>,
}

/// A column, by header name or 0-based index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Column {
    Index(usize),
    Name(String),
}

impl Column {
    /// `cut`-style: only digits is a 1-based index, anything else a name.
    pub fn parse(spec: &str) -> Result<Column, Error> {
        if !spec.is_empty() && spec.bytes().all(|b| b.is_ascii_digit()) {
            return match spec.parse::<usize>() {
                Ok(n) if n >= 1 => Ok(Column::Index(n - 1)),
                _ => Err(Error::msg(format!(
                    "column index {spec} out of range (indexes are 1-based)"
                ))),
            };
        }
        Ok(Column::Name(spec.to_owned()))
    }

    /// The 0-based index in a file whose first record is `first` (its
    /// header, if `header`): a name must be in the header and an index
    /// within the record, otherwise the run cannot mean anything.
    fn resolve(
        &self,
        first: Option<&ByteRecord>,
        header: bool,
        file: &str,
    ) -> Result<usize, Error> {
        match self {
            Column::Index(i) => match first {
                Some(r) if *i >= r.len() => Err(Error::msg(format!(
                    "column {} is beyond the {} fields of {}'s first {}",
                    i + 1,
                    r.len(),
                    file,
                    if header { "row (its header)" } else { "row" }
                ))),
                _ => Ok(*i),
            },
            Column::Name(n) if !header => Err(Error::msg(format!(
                "column {n:?} given by name, but the input has no header: give its 1-based index"
            ))),
            Column::Name(n) => first
                .and_then(|h| h.iter().position(|f| f == n.as_bytes()))
                .ok_or_else(|| Error::msg(format!("no column {n:?} in the header of {file}"))),
        }
    }
}

/// An input opened for reading (files are opened up front, so that a
/// missing file is reported before any work is done).
pub struct Opened {
    pub name: String,
    reader: Box<dyn Read + Send>,
    origin: Origin,
}

/// Bytes an input has in memory already: a caller's buffer, or a file
/// mapped by [`open_all_mapped`]. Its batches of lines are slices of them.
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
enum Origin {
    /// A regular file, and the bytes left in it when it was opened: the
    /// reader sizes a small input's buffer to that ([`BatchReader::sized`];
    /// a hint only: a file may grow or shrink while it is read), and all
    /// of it is there ([`Pace::Whole`]).
    File(u64),
    /// A pipe, terminal, socket or device (its descriptor): bytes come as
    /// they are written ([`Pace::Live`]).
    #[cfg(unix)]
    Live(std::os::fd::RawFd),
    /// A reader given by the caller ([`Pace::Unknown`]).
    Reader,
    /// Bytes in memory ([`Opened::from_bytes`]): all there ([`Pace::Whole`]).
    Memory(Shared),
}

impl Origin {
    /// The origin of an open file (`f` must stay open while it is read).
    fn of(f: &File) -> Origin {
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
    fn file(name: String, f: File) -> Opened {
        Opened {
            name,
            origin: Origin::of(&f),
            reader: Box::new(f),
        }
    }

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

/// Open every input (no reading yet): `cannot open NAME: REASON` on failure.
pub fn open_all(inputs: &[Input]) -> Result<Vec<Opened>, Error> {
    open_each(inputs, Opened::file)
}

/// Open every input, each file as `file` makes it an input.
fn open_each(
    inputs: &[Input],
    file: impl Fn(String, File) -> Opened,
) -> Result<Vec<Opened>, Error> {
    inputs
        .iter()
        .map(|input| match input {
            Input::Stdin => Ok(stdin(input.name())),
            Input::Path(p) => File::open(p)
                .map(|f| file(input.name(), f))
                .map_err(|e| Error::io(format!("cannot open {}", p.display()), &e)),
        })
        .collect()
}

/// [`open_all`], with every regular file among `inputs` mapped into memory
/// instead of read (stdin, pipes, devices and a file that cannot be mapped
/// are read). The workers then key the file's pages where the kernel keeps
/// them: no reader copies them into buffers, and no fresh buffer is zeroed
/// for them (BENCHMARKS.md §39 measures what that saves).
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
pub unsafe fn open_all_mapped(inputs: &[Input]) -> Result<Vec<Opened>, Error> {
    // SAFETY: passed on to our caller.
    open_each(inputs, |name, f| unsafe { Opened::mapped(name, f) })
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
/// first bytes [`open_sized`] looks at would fill that buffer, and the
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

/// One CSV/TSV record and the 1-based physical line it starts on.
#[derive(Debug, Clone)]
pub struct Rec {
    pub rec: ByteRecord,
    pub line: u64,
}

/// The columns of one CSV/TSV input.
#[derive(Debug, Clone)]
pub struct Layout {
    /// The header record, if the input has one.
    pub header: Option<ByteRecord>,
    pub column: usize,
    pub base_column: Option<usize>,
}

/// A bounded piece of one input.
pub struct Batch {
    /// Index of the input.
    pub file: usize,
    /// Lines: complete lines (the last may lack its `\n`).
    pub data: Data,
    /// Lines: lines of the input before `data` that no batch holds (a
    /// CDX header the reader took). The number of `data`'s first line is
    /// these and the lines of the input's earlier batches, which the
    /// consumer counts anyway ([`LineNumbers`]): the reader does not pass
    /// over every byte once more to count them.
    pub skipped_lines: u64,
    /// Records (empty for lines).
    pub records: Vec<Rec>,
    /// The charset the lines/fields are in (`None`: UTF-8).
    pub charset: Option<Charset>,
    /// Bytes of the input this batch covers (for progress).
    pub bytes: u64,
    /// The run's last batch: the reader found the end of the last input
    /// in reading it. False also where that was not known yet (a stream
    /// that had not ended when the batch was full). [`Upcoming::ended`]
    /// answers from it once the batch is handed out, else from the queue.
    last: bool,
    /// Where `data`'s buffer goes back to when the batch is dropped, for
    /// the reader to fill again: its pages stay mapped, so a run does not
    /// fault in (and the kernel zero) a fresh buffer per batch.
    spare: Option<Spare>,
}

/// The bytes of a batch of lines: a buffer the reader filled, or a slice
/// of an input in memory ([`Opened::from_bytes`]). Derefs to the bytes.
pub enum Data {
    Owned(Vec<u8>),
    Shared(Shared, Range<usize>),
}

impl std::ops::Deref for Data {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Data::Owned(v) => v,
            Data::Shared(bytes, range) => &(**bytes).as_ref()[range.clone()],
        }
    }
}

impl From<Vec<u8>> for Data {
    fn from(v: Vec<u8>) -> Data {
        Data::Owned(v)
    }
}

/// Buffers of finished batches, returned to the reader: one pool for all
/// the inputs of a run, so that the next input's reader fills them again
/// too (a crawl comes as many files).
type Spare = std::sync::Arc<Pool>;

/// The buffers of a [`Spare`]; those left when the run ends are released
/// ([`release`]).
#[derive(Default)]
struct Pool(std::sync::Mutex<Vec<Vec<u8>>>);

impl Pool {
    fn take(&self) -> Option<Vec<u8>> {
        self.0.lock().ok().and_then(|mut s| s.pop())
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        let bufs = self.0.get_mut().unwrap_or_else(|e| e.into_inner());
        for buf in bufs.drain(..) {
            release(buf);
        }
    }
}

/// Return `buf` to the pool, its length kept: the reader reads into it
/// without zeroing. The reader is at most [`QUEUE`] batches ahead, so the
/// pool keeps no more than that and one; a buffer beyond is released.
fn give_back(spare: &Spare, buf: Vec<u8>) {
    // The small buffer that held the bytes read past an input's last batch
    // ([`BatchReader::adopt`]) would only be grown again.
    if buf.capacity() < SMALLEST_READ {
        return release(buf);
    }
    if let Ok(mut s) = spare.0.lock() {
        if s.len() <= QUEUE {
            s.push(buf);
            return;
        }
    }
    release(buf);
}

impl Drop for Batch {
    fn drop(&mut self) {
        if let (Some(spare), Data::Owned(buf)) = (&self.spare, &mut self.data) {
            give_back(spare, std::mem::take(buf));
        }
    }
}

/// Where each input starts (sent before its batches): the columns of a
/// CSV/TSV input, the field layout of a CDX/CDXJ input.
pub enum Item {
    Start {
        file: usize,
        layout: Option<Layout>,
        cdx: Option<CdxInput>,
    },
    Batch(Batch),
}

/// A CDX or CDXJ input: its field layout (from its ` CDX …` header, else
/// CDX11) and the header line as written, if it has one. The header is not
/// a record: it is not in the batches (which start at physical line 2) and
/// not counted.
#[derive(Debug, Clone)]
pub struct CdxInput {
    pub layout: CdxLayout,
    pub header: Option<String>,
}

/// The layout of a CDX/CDXJ input whose first batch is `first`, and the
/// length of its header line (with its `\n`; 0 if none). A header that
/// names no original-URL field is an error of the run: no record of that
/// input could mean anything.
fn cdx_start(f: CdxFormat, first: &[u8], name: &str) -> Result<(CdxInput, usize), Error> {
    let mut layout = CdxLayout::new(f);
    let end = memchr::memchr(b'\n', first).map_or(first.len(), |i| i + 1);
    let line = &first[..end];
    if f != CdxFormat::Cdx || !line.starts_with(b" CDX ") {
        return Ok((
            CdxInput {
                layout,
                header: None,
            },
            0,
        ));
    }
    let text = String::from_utf8_lossy(line);
    let text = text.trim_end_matches(['\n', '\r']);
    layout
        .header(text)
        .map_err(|e| Error::msg(format!("{name}: {e}")))?;
    let header = Some(text.to_owned());
    Ok((CdxInput { layout, header }, end))
}

/// Read `inputs` in order on one reader thread, and hand every batch to `f`
/// on the calling thread, in input order. `batch_bytes` is the target size
/// of a batch of lines; `max_line` bounds how much of an over-long line is
/// kept (it is rejected downstream).
///
/// One thread reads the inputs one after the other, so it reads ahead
/// across their boundaries: the workers do not wait for the next file to be
/// opened and its first batch read (a crawl comes as many files). At most
/// [`QUEUE`] batches wait, whatever the inputs. `f` may ask the
/// [`Upcoming`] items whether the batch it holds is the last.
pub fn for_each_batch(
    inputs: Vec<Opened>,
    format: &Format,
    charset: Option<Charset>,
    max_line: usize,
    batch_bytes: usize,
    mut f: impl FnMut(Item, &Upcoming) -> Result<(), Error>,
) -> Result<(), Error> {
    let (tx, rx) = mpsc::sync_channel::<Result<Item, Error>>(QUEUE);
    let format = format.clone();
    let reader = std::thread::Builder::new()
        .name("irinorm-read".into())
        .spawn(move || {
            let spare = Spare::default();
            let n = inputs.len();
            for (file, opened) in inputs.into_iter().enumerate() {
                let sizes = (max_line, batch_bytes);
                let at = (file, file + 1 == n);
                match read_input(at, opened, &format, charset, sizes, &spare, &tx) {
                    Ok(true) => {}
                    // The receiver is gone: the run stopped.
                    Ok(false) => return,
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        return;
                    }
                }
            }
        })
        .map_err(|e| Error::io("cannot start a reader thread".into(), &e))?;
    let upcoming = Upcoming {
        rx,
        next: std::cell::RefCell::new(None),
        last: std::cell::Cell::new(false),
    };
    while let Some(item) = upcoming.recv() {
        // On an error the reader is not waited for: it may be blocked on an
        // endless stdin. Dropping `rx` makes its next send fail, so it
        // stops at its next batch (or with the process).
        f(item?, &upcoming)?;
    }
    let _ = reader.join();
    Ok(())
}

/// The items the reader has not handed out yet ([`for_each_batch`]).
pub struct Upcoming {
    rx: mpsc::Receiver<Result<Item, Error>>,
    /// An item taken from the queue by [`Upcoming::ended`], handed out next.
    next: std::cell::RefCell<Option<Result<Item, Error>>>,
    /// The batch handed out last said it is the run's last ([`Batch::last`]).
    last: std::cell::Cell<bool>,
}

impl Upcoming {
    /// True if the batch being handled is the run's last: it said so (its
    /// reader found the end in reading it), or the reader is done and
    /// every item has been handed out. False while that is not known yet
    /// (the reader may still be reading), so a caller may only use it to
    /// choose between ways that give the same result. (Asking the queue
    /// alone, a loaded machine that had not yet run the reader to its end
    /// said no for a small file: `dedup` then took the arena's way, +40 %
    /// for `kasztp`, 8 runs of 51 with one core busy, BENCHMARKS.md §37.)
    pub fn ended(&self) -> bool {
        if self.last.get() {
            return true;
        }
        let mut next = self.next.borrow_mut();
        if next.is_some() {
            return false;
        }
        match self.rx.try_recv() {
            Ok(item) => {
                *next = Some(item);
                false
            }
            Err(mpsc::TryRecvError::Empty) => false,
            Err(mpsc::TryRecvError::Disconnected) => true,
        }
    }

    fn recv(&self) -> Option<Result<Item, Error>> {
        let taken = self.next.borrow_mut().take();
        let item = taken.or_else(|| self.rx.recv().ok());
        self.last
            .set(matches!(&item, Some(Ok(Item::Batch(b))) if b.last));
        item
    }
}

/// One input, read on the reader thread: the `file`-th, and whether it is
/// the `last`; `sizes`: the longest line kept, and the target size of a
/// batch. `Ok(false)`: the receiver is gone.
fn read_input(
    (file, last): (usize, bool),
    opened: Opened,
    format: &Format,
    charset: Option<Charset>,
    (max_line, batch_bytes): (usize, usize),
    spare: &Spare,
    tx: &mpsc::SyncSender<Result<Item, Error>>,
) -> Result<bool, Error> {
    if let (Format::Lines | Format::Cdx(_), Origin::Memory(bytes)) = (format, &opened.origin) {
        let all: &[u8] = (**bytes).as_ref();
        let head = &all[..all.len().min(4)];
        let plain = decode::detect_compression(head) == decode::Compression::None
            && utf16_of(head, charset).is_none();
        if plain {
            let charset = line_charset(head, charset);
            let input = (file, last, opened.name.as_str());
            return slice_input(input, bytes, format, charset, batch_bytes, tx);
        }
    }
    let name = opened.name.clone();
    let Stream {
        reader: stream,
        charset,
        size,
        pace,
    } = open_sized(opened, charset)?;
    let send = |item: Item| tx.send(Ok(item)).is_ok();
    match format {
        Format::Lines | Format::Cdx(_) => {
            let mut reader = BatchReader::new(stream, batch_bytes, max_line)
                .reusing(spare.take().unwrap_or_default())
                .sized(size)
                .paced(pace);
            let read_err = |e: io::Error| Error::io(format!("cannot read {name}"), &e);
            let first = reader.next_batch().map_err(read_err)?;
            let mut skipped_lines = 0u64;
            let mut skip = 0;
            let cdx = match format {
                Format::Cdx(f) => {
                    let (input, header_len) = cdx_start(*f, first.unwrap_or(b""), &name)?;
                    if header_len > 0 {
                        (skip, skipped_lines) = (header_len, 1);
                    }
                    Some(input)
                }
                _ => None,
            };
            if !send(Item::Start {
                file,
                layout: None,
                cdx,
            }) {
                return Ok(false);
            }
            let mut more = first.is_some();
            while more {
                // The reader's buffer becomes the batch (no copy). The
                // bytes read past it wait in a small buffer until the batch
                // is sent, and the reader then goes on in a spare one
                // ([`BatchReader::adopt`]). Taken before the send, the
                // spare pool was still empty while the queue was full: the
                // batch the worker held came back only once it took the
                // next, and the reader made a buffer more than the worker,
                // the queue and itself use, whose pages the kernel zeroes
                // (BENCHMARKS.md §38).
                let mut data = reader.take_batch();
                let bytes = data.len() as u64;
                data.drain(..std::mem::take(&mut skip));
                let b = Batch {
                    file,
                    data: Data::Owned(data),
                    spare: Some(spare.clone()),
                    skipped_lines: std::mem::take(&mut skipped_lines),
                    records: Vec::new(),
                    charset,
                    bytes,
                    last: last && reader.at_end(),
                };
                if !send(Item::Batch(b)) {
                    return Ok(false);
                }
                if let Some(buf) = spare.take() {
                    release(reader.adopt(buf));
                }
                more = reader.next_batch().map_err(read_err)?.is_some();
            }
            // The reader's own buffer serves the next input.
            give_back(spare, reader.into_buf());
            Ok(true)
        }
        Format::Records(rf) => {
            // The csv crate's line numbers skip blank lines; physical lines
            // come from the byte offsets of records and the newlines seen.
            let lines = NewlineLog::default();
            let counting = CountingReader {
                inner: stream,
                pos: 0,
                log: lines.clone(),
            };
            let mut rdr = csv::ReaderBuilder::new()
                .has_headers(false)
                .flexible(true)
                .delimiter(rf.delimiter)
                .from_reader(counting);
            let line_of = |rec: &ByteRecord| rec.position().map_or(0, |p| lines.line_of(p.byte()));
            let err = |e: csv::Error| Error::msg(format!("cannot read {name}: {e}"));
            let mut first = ByteRecord::new();
            if !rdr.read_byte_record(&mut first).map_err(err)? {
                return Ok(true);
            }
            let column = rf.column.resolve(Some(&first), rf.header, &name)?;
            let base_column = match &rf.base_column {
                Some(c) => Some(c.resolve(Some(&first), rf.header, &name)?),
                None => None,
            };
            let mut pending = Vec::with_capacity(1024);
            let header = if rf.header {
                Some(first)
            } else {
                let line = line_of(&first);
                pending.push(Rec { rec: first, line });
                None
            };
            let layout = Layout {
                header,
                column,
                base_column,
            };
            if !send(Item::Start {
                file,
                layout: Some(layout),
                cdx: None,
            }) {
                return Ok(false);
            }
            let mut last_byte = 0u64;
            loop {
                let mut rec = ByteRecord::new();
                let more = rdr.read_byte_record(&mut rec).map_err(err)?;
                if more {
                    let line = line_of(&rec);
                    pending.push(Rec { rec, line });
                }
                if pending.len() >= RECORDS_PER_BATCH || (!more && !pending.is_empty()) {
                    let byte = rdr.position().byte();
                    let b = Batch {
                        file,
                        data: Data::Owned(Vec::new()),
                        spare: None,
                        skipped_lines: 0,
                        records: std::mem::replace(&mut pending, Vec::with_capacity(1024)),
                        charset,
                        bytes: byte - last_byte,
                        last: last && !more,
                    };
                    last_byte = byte;
                    if !send(Item::Batch(b)) {
                        return Ok(false);
                    }
                }
                if !more {
                    return Ok(true);
                }
            }
        }
    }
}

/// One input in memory (`bytes`, neither compressed nor UTF-16), on the
/// reader thread: batches of complete lines that are slices of it, cut as
/// [`BatchReader`] cuts a stream (a BOM skipped, a CDX header taken, about
/// `batch_bytes` each, at a line end), with no byte copied. A line longer
/// than a batch is a batch of its own, whole: it is rejected downstream as
/// [`BatchReader`]'s cut one is, and costs no memory (`reject_input` shows
/// the same bytes of either). `input`: the input's index, whether it is
/// the last, its name. `Ok(false)`: the receiver is gone.
fn slice_input(
    (file, last, name): (usize, bool, &str),
    bytes: &Shared,
    format: &Format,
    charset: Option<Charset>,
    batch_bytes: usize,
    tx: &mpsc::SyncSender<Result<Item, Error>>,
) -> Result<bool, Error> {
    let all: &[u8] = (**bytes).as_ref();
    let mut at = if all.starts_with(BOM) { BOM.len() } else { 0 };
    // A CDX header's bytes count in the first batch's `bytes`.
    let mut counted_from = at;
    let mut skipped_lines = 0;
    let cdx = match format {
        Format::Cdx(f) => {
            let (input, header_len) = cdx_start(*f, &all[at..], name)?;
            skipped_lines = u64::from(header_len > 0);
            at += header_len;
            Some(input)
        }
        _ => None,
    };
    let start = Item::Start {
        file,
        layout: None,
        cdx,
    };
    if tx.send(Ok(start)).is_err() {
        return Ok(false);
    }
    let target = batch_bytes.max(1);
    while at < all.len() {
        let end = match all.len() - at {
            rest if rest <= target => all.len(),
            // The last line end within the target, else the end of the
            // line that starts the batch.
            _ => match memchr::memrchr(b'\n', &all[at..at + target]) {
                Some(i) => at + i + 1,
                None => memchr::memchr(b'\n', &all[at + target..])
                    .map_or(all.len(), |i| at + target + i + 1),
            },
        };
        let b = Batch {
            file,
            data: Data::Shared(bytes.clone(), at..end),
            spare: None,
            skipped_lines: std::mem::take(&mut skipped_lines),
            records: Vec::new(),
            charset,
            bytes: (end - counted_from) as u64,
            last: last && end == all.len(),
        };
        if tx.send(Ok(Item::Batch(b))).is_err() {
            return Ok(false);
        }
        (at, counted_from) = (end, end);
    }
    Ok(true)
}

/// The newlines read so far that lie beyond the last record asked about
/// (shared by a [`CountingReader`] and its consumer): offset, and whether a
/// CR precedes it.
#[derive(Clone, Default)]
struct NewlineLog(std::rc::Rc<std::cell::RefCell<NewlineState>>);

#[derive(Default)]
struct NewlineState {
    pending: std::collections::VecDeque<(u64, bool)>,
    before: u64,
    last_byte: u8,
}

impl NewlineLog {
    /// 1-based physical line on which the record read from `offset` starts;
    /// offsets must be asked in increasing order (records are). The csv
    /// crate gives the offset where it started reading, before the blank
    /// lines it skips: those are skipped here too.
    fn line_of(&self, mut offset: u64) -> u64 {
        let mut g = self.0.borrow_mut();
        let st = &mut *g;
        while let Some(&(nl, cr)) = st.pending.front() {
            let blank = nl == offset || (cr && nl == offset + 1);
            if nl >= offset && !blank {
                break;
            }
            if blank {
                offset = nl + 1;
            }
            st.pending.pop_front();
            st.before += 1;
        }
        st.before + 1
    }
}

/// A reader that logs the offset of every `\n` that passes through it.
struct CountingReader<R> {
    inner: R,
    pos: u64,
    log: NewlineLog,
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let mut g = self.log.0.borrow_mut();
        for i in memchr::memchr_iter(b'\n', &buf[..n]) {
            let prev = if i > 0 { buf[i - 1] } else { g.last_byte };
            g.pending.push_back((self.pos + i as u64, prev == b'\r'));
        }
        if n > 0 {
            g.last_byte = buf[n - 1];
        }
        self.pos += n as u64;
        Ok(n)
    }
}

/// The UTF-16 encoding of an input starting with `head`, if any: its BOM,
/// else a UTF-16 `charset`.
fn utf16_of(head: &[u8], charset: Option<Charset>) -> Option<&'static encoding_rs::Encoding> {
    match decode::sniff_bom(head) {
        Some((enc, _)) if enc == encoding_rs::UTF_8 => None,
        Some((enc, _)) => Some(enc),
        None => charset
            .map(Charset::encoding)
            .filter(|&e| e == encoding_rs::UTF_16LE || e == encoding_rs::UTF_16BE),
    }
}

/// The charset of the lines: `None` for UTF-8 (also with a UTF-8 BOM).
fn line_charset(head: &[u8], charset: Option<Charset>) -> Option<Charset> {
    if head.starts_with(BOM) {
        return None;
    }
    charset.filter(|c| !c.is_unicode())
}

fn decompress_reader<'a, R: Read + Send + 'a>(
    r: R,
    c: Compression,
) -> io::Result<Box<dyn Read + Send + 'a>> {
    Ok(match c {
        Compression::None => Box::new(r),
        Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(r)),
        Compression::Zstd => Box::new(zstd::Decoder::new(r)?),
    })
}

/// Reads up to `n` bytes (fewer only at the end of the stream).
fn peek(r: &mut dyn Read, n: usize) -> io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(n);
    r.take(n as u64).read_to_end(&mut head)?;
    Ok(head)
}

/// An input as a stream of UTF-8 (or `--encoding`) bytes: decompressed on
/// the fly, UTF-16 transcoded on the fly ([`Utf16Reader`]); with the charset
/// its lines are then in (`None`: UTF-8; a byte-order mark overrides
/// `charset`).
pub fn open_stream(
    input: Opened,
    charset: Option<Charset>,
) -> Result<(Box<dyn Read + Send>, Option<Charset>), Error> {
    open_sized(input, charset).map(|s| (s.reader, s.charset))
}

/// An input as [`open_stream`] gives it, the number of bytes it will give
/// if that is known, and what a short read of it means.
struct Stream {
    reader: Box<dyn Read + Send>,
    charset: Option<Charset>,
    /// A regular file's length, when it is read as it is (neither
    /// decompressed nor transcoded); a hint ([`BatchReader::sized`]).
    size: Option<u64>,
    pace: Pace,
}

/// [`open_stream`], with the stream's size if it is known and its pace.
fn open_sized(input: Opened, charset: Option<Charset>) -> Result<Stream, Error> {
    let name = input.name;
    let err = |e: io::Error| Error::io(format!("cannot read {name}"), &e);
    let (pace, left) = match input.origin {
        Origin::File(left) => (Pace::Whole, Some(left)),
        #[cfg(unix)]
        Origin::Live(fd) => (
            Pace::Live(Box::new(move |wait| readable_within(fd, wait))),
            None,
        ),
        Origin::Reader => (Pace::Unknown, None),
        Origin::Memory(bytes) => (Pace::Whole, Some((*bytes).as_ref().len() as u64)),
    };
    let mut r = input.reader;
    let head = peek(&mut r, 4).map_err(err)?;
    let c = decode::detect_compression(&head);
    let size = left.filter(|_| c == decode::Compression::None);
    let r = io::Cursor::new(head).chain(r);
    let mut r = decompress_reader(r, c).map_err(err)?;
    let head = peek(&mut r, 4).map_err(err)?;
    if let Some(enc) = utf16_of(&head, charset) {
        let r = io::Cursor::new(head).chain(r);
        return Ok(Stream {
            reader: Box::new(Utf16Reader::new(r, enc)),
            charset: None,
            size: None,
            pace,
        });
    }
    let charset = line_charset(&head, charset);
    Ok(Stream {
        reader: Box::new(io::Cursor::new(head).chain(r)),
        charset,
        size,
        pace,
    })
}

/// Whether a read of descriptor `fd` would find bytes (or the end) within
/// `wait` (`poll`; an error other than an interruption says yes: the read
/// will tell).
#[cfg(unix)]
fn readable_within(fd: std::os::fd::RawFd, wait: std::time::Duration) -> bool {
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

/// What a read that gave fewer bytes than asked says about a stream
/// ([`BatchReader::paced`]), which decides whether the lines read so far
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
    /// still fills its batches (before, they were cut at 33 KB on
    /// average, BENCHMARKS.md §35).
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

/// Transcodes a UTF-16LE/BE stream to UTF-8 as it is read (a leading BOM is
/// removed; no NFC: UTF-16 is already Unicode, 3987bis §3.1). An invalid
/// sequence (unpaired surrogate, odd length) is an error with its byte
/// offset: a UTF-16 input whose framing is broken cannot be cut into lines.
pub struct Utf16Reader<R> {
    inner: R,
    decoder: encoding_rs::Decoder,
    enc: &'static encoding_rs::Encoding,
    raw: Vec<u8>,
    out: Vec<u8>,
    out_pos: usize,
    consumed: u64,
    eof: bool,
}

impl<R: Read> Utf16Reader<R> {
    pub fn new(inner: R, enc: &'static encoding_rs::Encoding) -> Self {
        Utf16Reader {
            inner,
            decoder: enc.new_decoder_with_bom_removal(),
            enc,
            raw: vec![0; 64 << 10],
            out: Vec::new(),
            out_pos: 0,
            consumed: 0,
            eof: false,
        }
    }

    fn fill(&mut self) -> io::Result<()> {
        use encoding_rs::DecoderResult;
        let n = loop {
            match self.inner.read(&mut self.raw) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        };
        let last = n == 0;
        self.eof = last;
        self.out.clear();
        self.out_pos = 0;
        let cap = self
            .decoder
            .max_utf8_buffer_length_without_replacement(n)
            .unwrap_or(n * 3 + 16);
        self.out.resize(cap, 0);
        let (res, read, written) =
            self.decoder
                .decode_to_utf8_without_replacement(&self.raw[..n], &mut self.out, last);
        self.out.truncate(written);
        match res {
            DecoderResult::InputEmpty | DecoderResult::OutputFull => {
                self.consumed += read as u64;
                Ok(())
            }
            DecoderResult::Malformed(bad, after) => {
                let at = self.consumed + read as u64 - u64::from(bad) - u64::from(after);
                Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "invalid {} byte sequence at byte {at}",
                        self.enc.name().to_ascii_lowercase()
                    ),
                ))
            }
        }
    }
}

impl<R: Read> Read for Utf16Reader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.out_pos == self.out.len() {
            if self.eof {
                return Ok(0);
            }
            self.fill()?;
        }
        let n = buf.len().min(self.out.len() - self.out_pos);
        buf[..n].copy_from_slice(&self.out[self.out_pos..self.out_pos + n]);
        self.out_pos += n;
        Ok(n)
    }
}

/// Cut `data` into ranges of about `chunk_size` bytes, each ending just after
/// a `'\n'` (or at the end of `data`). Every byte is in exactly one range and
/// the data is scanned only around the nominal boundaries.
pub fn split_chunks(data: &[u8], chunk_size: usize) -> Vec<Range<usize>> {
    let chunk_size = chunk_size.max(1);
    let mut out = Vec::with_capacity(data.len() / chunk_size + 1);
    let mut start = 0;
    while start < data.len() {
        let nominal = start.saturating_add(chunk_size);
        let end = if nominal >= data.len() {
            data.len()
        } else {
            // The byte just before the nominal boundary may itself be the
            // line end; otherwise the chunk extends to the next one.
            match memchr::memchr(b'\n', &data[nominal - 1..]) {
                Some(i) => nominal + i,
                None => data.len(),
            }
        };
        out.push(start..end);
        start = end;
    }
    out
}

/// Calls `f(line, offset)` for each line of `chunk` (without its `'\n'`;
/// a last line without `'\n'` counts) and returns the number of lines.
#[inline]
pub fn for_each_line<'a>(chunk: &'a [u8], mut f: impl FnMut(&'a [u8], usize)) -> u64 {
    let mut pos = 0;
    let mut n = 0;
    newlines(chunk, |nl| {
        f(&chunk[pos..nl], pos);
        pos = nl + 1;
        n += 1;
    });
    if pos < chunk.len() {
        f(&chunk[pos..], pos);
        n += 1;
    }
    n
}

/// Calls `f` with the offset of every `'\n'` of `bytes`, in order.
///
/// Lines of a crawl are a few dozen bytes: `memchr_iter` starts a search
/// per line, whose setup costs more than the search. On x86-64 the
/// newlines of 64 bytes at a time become one bit mask (SSE2, the
/// baseline), and each line costs a `tzcnt`.
#[inline]
fn newlines(bytes: &[u8], mut f: impl FnMut(usize)) {
    #[cfg(target_arch = "x86_64")]
    {
        let blocks = bytes.chunks_exact(64);
        let tail = blocks.remainder();
        for (k, block) in blocks.enumerate() {
            // SAFETY: SSE2 is part of x86-64; `block` is 64 bytes.
            let mut m = unsafe { x86::newline_mask(block) };
            while m != 0 {
                f(k * 64 + m.trailing_zeros() as usize);
                m &= m - 1;
            }
        }
        let base = bytes.len() - tail.len();
        for (i, &b) in tail.iter().enumerate() {
            if b == b'\n' {
                f(base + i);
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    memchr::memchr_iter(b'\n', bytes).for_each(f);
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    /// Bit `i` set where `block[i]` is `'\n'`.
    ///
    /// # Safety
    /// `block` holds at least 64 bytes.
    #[inline(always)]
    pub(super) unsafe fn newline_mask(block: &[u8]) -> u64 {
        debug_assert!(block.len() >= 64);
        let nl = _mm_set1_epi8(b'\n' as i8);
        let mut m = 0u64;
        for i in 0..4 {
            let v = _mm_loadu_si128(block.as_ptr().add(16 * i).cast());
            let eq = _mm_movemask_epi8(_mm_cmpeq_epi8(v, nl)) as u16;
            m |= u64::from(eq) << (16 * i);
        }
        m
    }
}

/// The 0-based number of the first line of each batch of lines, in the
/// order [`for_each_batch`] hands them out: the input's skipped lines and
/// the lines of its earlier batches, which the consumer counted (its
/// chunks' [`for_each_line`]) and gives back with [`LineNumbers::chunks`].
#[derive(Default)]
pub struct LineNumbers {
    file: Option<usize>,
    next: u64,
}

impl LineNumbers {
    /// The number of `batch`'s first line in its input.
    fn first(&mut self, batch: &Batch) -> u64 {
        if self.file != Some(batch.file) {
            (self.file, self.next) = (Some(batch.file), 0);
        }
        self.next += batch.skipped_lines;
        self.next
    }

    /// The 0-based number of the first line of each of `batch`'s chunks,
    /// given the lines each held, in order ([`for_each_line`]'s counts);
    /// the batch is then numbered. A chunk's lines were numbered from its
    /// own start while it was worked on: adding its first line's number
    /// makes them the input's.
    pub fn chunks(&mut self, batch: &Batch, lines: impl IntoIterator<Item = u64>) -> Vec<u64> {
        let mut next = self.first(batch);
        let firsts = lines
            .into_iter()
            .map(|n| {
                let f = next;
                next += n;
                f
            })
            .collect();
        self.next = next;
        firsts
    }
}

/// `batch`'s lines cut into chunks of about `chunk_size` bytes at line
/// ends, each with the 0-based number of its first line in the input
/// (`lines` numbers the batch; the chunks' lines counted in parallel on
/// the current rayon pool, before any is worked on). Only for a consumer
/// that needs a line's number while it works on the line (`normalize
/// --format csv` writes it): the others number their lines from each
/// chunk's start and learn the chunks' first lines afterwards
/// ([`LineNumbers::chunks`]), without this second pass over the bytes.
pub fn line_chunks(
    batch: &Batch,
    chunk_size: usize,
    lines: &mut LineNumbers,
) -> Vec<(Range<usize>, u64)> {
    use rayon::prelude::*;
    let ranges = split_chunks(&batch.data, chunk_size);
    let counts: Vec<u64> = ranges
        .par_iter()
        .map(|r| count_lines(&batch.data[r.clone()]))
        .collect();
    let firsts = lines.chunks(batch, counts);
    ranges.into_iter().zip(firsts).collect()
}

/// The chunk size for a batch of `len` bytes: at most `max`, but small
/// enough that every worker of the current pool gets several chunks (a
/// small input, or a slow pipe, gives batches of a few MB or less, which
/// would otherwise be keyed by one worker while the others wait), and at
/// least 16 KiB.
pub fn chunk_size(max: usize, len: usize) -> usize {
    let threads = rayon::current_num_threads().max(1);
    max.min(len / (threads * 4)).max(16 << 10)
}

/// Number of lines in a chunk (same rule as [`for_each_line`]).
pub fn count_lines(chunk: &[u8]) -> u64 {
    let nl = memchr::memchr_iter(b'\n', chunk).count() as u64;
    nl + u64::from(chunk.last().is_some_and(|&b| b != b'\n'))
}

/// Ask the kernel to back the whole 2 MiB pages inside `room` with
/// transparent huge pages (`madvise(MADV_HUGEPAGE)`; it acts when the
/// system's THP mode is `madvise`, a common default, or `always`). A fresh
/// batch buffer is otherwise faulted in 4 KiB at a time: 2,304 faults for
/// the 9 MB of an 8 MB batch, each a trap and a page's bookkeeping, on the
/// reader thread, which at two workers takes that time from their cores
/// (BENCHMARKS.md §27, §28).
/// A hint: where the kernel has no huge page to give, nothing changes.
/// The advice stays with the address range, so a buffer that had it is
/// [`release`]d, not just dropped.
fn huge_pages<T>(room: &mut [T]) {
    let start = room.as_mut_ptr() as usize;
    advise(start, start + std::mem::size_of_val(room), true);
}

/// Drop a batch buffer, its huge-page advice ([`huge_pages`]) withdrawn
/// first. The allocator may keep the freed range (a buffer below its
/// `mmap` threshold, which rises once such a buffer is freed) and hand it
/// out for anything: with the advice, each first touch there would fault
/// in and zero 2 MiB. A library caller's later small runs in the same
/// process paid that (BENCHMARKS.md §29).
fn release(buf: Vec<u8>) {
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

/// The smallest read into fresh room ([`BatchReader::next_batch`]); a
/// buffer below it is not worth keeping for a batch ([`give_back`]).
const SMALLEST_READ: usize = 64 << 10;

/// Reads a stream in batches of complete lines with bounded memory.
///
/// A batch is returned when it reaches the target size, when the source
/// has no more data for now (a short read, as its [`Pace`] reads it: so
/// that `tail -f | irinorm normalize` answers promptly, while a gzip file
/// or a pipe from `zcat` still fills its batches), or at the end.
/// A line longer than `max_line` (+2 bytes of slack for `\r`) is cut to that
/// many bytes and the rest of it skipped, so that one endless line cannot
/// exhaust memory; the cut line is still longer than `max_line` and is
/// therefore rejected downstream.
pub struct BatchReader<R> {
    r: R,
    /// Zeroed once as it grows; `buf[..len]` holds data (no zeroing per
    /// read).
    buf: Vec<u8>,
    len: usize,
    /// Bytes of `buf` returned by the previous call.
    consumed: usize,
    target: usize,
    keep: usize,
    skipping: bool,
    eof: bool,
    first: bool,
    /// The bytes the stream is expected still to give ([`BatchReader::sized`]).
    rest: Option<u64>,
    pace: Pace,
    /// When the batch being read had its first short read ([`Pace::Live`]).
    paused: Option<std::time::Instant>,
    /// [`Pace::MOST`] (a test may wait longer).
    most: std::time::Duration,
}

impl<R> Drop for BatchReader<R> {
    fn drop(&mut self) {
        release(std::mem::take(&mut self.buf));
    }
}

impl<R: Read> BatchReader<R> {
    pub fn new(r: R, target: usize, max_line: usize) -> Self {
        BatchReader {
            r,
            buf: Vec::new(),
            len: 0,
            consumed: 0,
            target: target.max(1),
            keep: super::line::kept_len(max_line),
            skipping: false,
            eof: false,
            first: true,
            rest: None,
            pace: Pace::Unknown,
            paused: None,
            most: Pace::MOST,
        }
    }

    /// The same, told what a short read of the stream means.
    pub fn paced(mut self, pace: Pace) -> Self {
        self.pace = pace;
        self
    }

    /// Whether a read that gave `n` bytes of the `want` asked for ends
    /// the batch ([`Pace`]).
    fn pauses(&mut self, n: usize, want: usize) -> bool {
        if n >= want {
            return false;
        }
        match &mut self.pace {
            Pace::Whole => false,
            Pace::Unknown => n < 64 * 1024,
            Pace::Live(more) => {
                let since = *self.paused.get_or_insert_with(std::time::Instant::now);
                let left = self.most.saturating_sub(since.elapsed());
                left.is_zero() || !more(left.min(Pace::GAP))
            }
        }
    }

    /// The same, told that the stream holds `size` bytes (a regular file's
    /// length; `None`: not known). An input smaller than a batch then gets
    /// a buffer of its size, zeroed by `calloc`: in a fresh process those
    /// are the kernel's zero pages, not written over once more before each
    /// `read`, and read into 1 MiB at a time (BENCHMARKS.md §35). A hint
    /// only: a stream longer or shorter than said is read as any other.
    pub fn sized(mut self, size: Option<u64>) -> Self {
        self.rest = size;
        self
    }

    /// The same, reading into `buf` (a buffer of an earlier batch, whose
    /// length is kept as space already zeroed, as in
    /// [`BatchReader::adopt`]).
    pub fn reusing(mut self, buf: Vec<u8>) -> Self {
        debug_assert_eq!(self.len, 0);
        self.buf = buf;
        self
    }

    /// The reader's buffer, for another reader ([`BatchReader::reusing`]).
    pub fn into_buf(mut self) -> Vec<u8> {
        std::mem::take(&mut self.buf)
    }

    /// The next batch of complete lines (the last may lack its `'\n'`), or
    /// `None` at the end of the stream.
    pub fn next_batch(&mut self) -> io::Result<Option<&[u8]>> {
        self.buf.copy_within(self.consumed..self.len, 0);
        self.len -= self.consumed;
        self.consumed = 0;
        loop {
            if self.eof {
                if self.len == 0 {
                    return Ok(None);
                }
                self.strip_first_bom();
                self.consumed = self.len;
                return Ok(Some(&self.buf[..self.len]));
            }
            let old = self.len;
            let room = self.target.saturating_add(1 << 20);
            // A stream known to end within this batch gets its bytes and
            // 64 KiB to find the end in, zeroed at once (`calloc`), unless
            // the buffer has that room already.
            let sized = self
                .rest
                .and_then(|rest| usize::try_from(rest).ok())
                .map(|rest| old.saturating_add(rest).saturating_add(SMALLEST_READ))
                .filter(|&end| end < room && end > self.buf.capacity());
            if let Some(end) = sized {
                let mut fresh = vec![0u8; end];
                huge_pages(&mut fresh);
                fresh[..old].copy_from_slice(&self.buf[..old]);
                release(std::mem::replace(&mut self.buf, fresh));
            }
            // At most 1 MiB per read, into space zeroed already where the
            // buffer has 64 KiB of it. Space it has not had yet must be
            // zeroed first: there, read no more than the batch holds
            // already (from 64 KiB), so a small input of unknown size
            // zeroes ~64 KiB, not 1 MiB of fresh memory (BENCHMARKS.md §29).
            let most = match self.buf.len() - old {
                z if z >= 1 << 20 => 1 << 20,
                z if z >= SMALLEST_READ => z,
                _ => old.max(SMALLEST_READ),
            };
            let want = self.target.saturating_sub(old).clamp(SMALLEST_READ, most);
            if self.buf.len() < old + want {
                // The whole batch's room at once: a buffer grown step by
                // step is moved (`mremap`) as it doubles, and each move
                // interrupts every core that runs a worker to flush its
                // TLB.
                if self.buf.capacity() < room {
                    self.buf.reserve_exact(room - self.buf.len());
                    huge_pages(self.buf.spare_capacity_mut());
                }
                self.buf.resize(old + want, 0);
            }
            let n = loop {
                match self.r.read(&mut self.buf[old..old + want]) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e),
                }
            };
            self.len = old + n;
            self.rest = self.rest.map(|r| r.saturating_sub(n as u64));
            if n == 0 {
                self.eof = true;
                continue;
            }
            if self.skipping {
                match memchr::memchr(b'\n', &self.buf[old..self.len]) {
                    Some(i) => {
                        self.buf.copy_within(old + i..self.len, old);
                        self.len -= i;
                        self.skipping = false;
                    }
                    None => {
                        self.len = old;
                        continue;
                    }
                }
            }
            let last_nl = memchr::memrchr(b'\n', &self.buf[..self.len]);
            let tail_start = last_nl.map_or(0, |i| i + 1);
            if self.len - tail_start > self.keep {
                self.len = tail_start + self.keep;
                self.skipping = true;
            }
            if let Some(i) = last_nl {
                if self.len >= self.target || self.pauses(n, want) {
                    self.paused = None;
                    self.consumed = i + 1;
                    if self.strip_first_bom() {
                        self.consumed -= BOM.len();
                    }
                    return Ok(Some(&self.buf[..self.consumed]));
                }
            }
        }
    }

    /// Go on in `buf` (a buffer of an earlier batch, whose length is kept
    /// as space already zeroed): the bytes read ahead move into it. The
    /// buffer the reader had is returned.
    pub fn adopt(&mut self, mut buf: Vec<u8>) -> Vec<u8> {
        let ahead = &self.buf[self.consumed..self.len];
        if buf.len() < ahead.len() {
            buf.resize(ahead.len(), 0);
        }
        buf[..ahead.len()].copy_from_slice(ahead);
        (self.len, self.consumed) = (ahead.len(), 0);
        std::mem::replace(&mut self.buf, buf)
    }

    /// The batch [`BatchReader::next_batch`] returned, as an owned buffer.
    /// The bytes read past it stay in a small buffer of their own, which
    /// the reader grows as it reads on, unless it [`BatchReader::adopt`]s
    /// a buffer of an earlier batch first.
    pub fn take_batch(&mut self) -> Vec<u8> {
        let tail = self.buf[self.consumed..self.len].to_vec();
        let mut batch = std::mem::replace(&mut self.buf, tail);
        batch.truncate(self.consumed);
        (self.len, self.consumed) = (self.buf.len(), 0);
        batch
    }

    /// Whether the stream has ended and every byte of it was handed out
    /// in a batch ([`BatchReader::next_batch`] saw the end itself: a
    /// stream smaller than a batch is read until a read gives nothing).
    pub fn at_end(&self) -> bool {
        self.eof && self.consumed == self.len
    }

    fn strip_first_bom(&mut self) -> bool {
        if std::mem::take(&mut self.first) && self.buf[..self.len].starts_with(BOM) {
            self.buf.copy_within(BOM.len()..self.len, 0);
            self.len -= BOM.len();
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A batch that says it is the run's last ends it at once, while the
    /// reader has not ended yet; one that does not know leaves the answer
    /// to the queue.
    #[test]
    fn a_batch_that_knows_it_is_the_last_ends_the_run_at_once() {
        let (tx, rx) = mpsc::sync_channel(QUEUE);
        let up = Upcoming {
            rx,
            next: std::cell::RefCell::new(None),
            last: std::cell::Cell::new(false),
        };
        let batch = |last| {
            Ok(Item::Batch(Batch {
                file: 0,
                data: b"a\n".to_vec().into(),
                skipped_lines: 0,
                records: Vec::new(),
                charset: None,
                bytes: 2,
                last,
                spare: None,
            }))
        };
        tx.send(batch(false)).unwrap();
        tx.send(batch(true)).unwrap();
        assert!(matches!(up.recv(), Some(Ok(Item::Batch(b))) if !b.last));
        assert!(!up.ended());
        assert!(matches!(up.recv(), Some(Ok(Item::Batch(b))) if b.last));
        // The reader (`tx`) is still there: the batch said so.
        assert!(up.ended());
        drop(tx);
    }

    /// A worker slower than the reader holds one batch, the queue
    /// [`QUEUE`] more, and the reader reads into one more: the reader
    /// takes a returned buffer only once its batch is sent (when the
    /// worker has given back the one before), so no more buffers than that
    /// are ever made, however many batches, and every line comes once.
    #[test]
    fn a_slow_worker_keeps_the_reader_to_queue_and_two_buffers() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("in");
        // 3.4 MB: more than a batch's room (64 KiB and 1 MiB), so that no
        // buffer is sized to what is left of the file.
        let text: String = (0..240_000).map(|i| format!("http://a/{i}\n")).collect();
        std::fs::write(&path, &text).unwrap();
        for file in [true, false] {
            let opened = if file {
                open_all(&[Input::Path(path.clone())]).unwrap()
            } else {
                let bytes = text.clone().into_bytes();
                vec![Opened::from_reader("-", Box::new(io::Cursor::new(bytes)))]
            };
            let (mut buffers, mut bytes, mut batches) = (Vec::new(), Vec::new(), 0);
            for_each_batch(opened, &Format::Lines, None, 1000, 64 << 10, |item, _| {
                if let Item::Batch(b) = item {
                    let at = b.data.as_ptr() as usize;
                    if !buffers.contains(&at) {
                        buffers.push(at);
                    }
                    bytes.extend_from_slice(&b.data);
                    batches += 1;
                    std::thread::sleep(std::time::Duration::from_millis(2));
                }
                Ok(())
            })
            .unwrap();
            assert!(batches >= 50, "{batches}");
            assert_eq!(bytes, text.as_bytes());
            assert!(buffers.len() <= QUEUE + 2, "{} buffers", buffers.len());
        }
    }

    /// The pool keeps batch buffers, up to [`QUEUE`] and one, and not the
    /// small one that held what was read past an input's last batch.
    #[test]
    fn the_pool_keeps_batch_buffers_only() {
        let spare = Spare::default();
        give_back(&spare, Vec::with_capacity(100));
        assert!(spare.take().is_none());
        for _ in 0..QUEUE + 3 {
            give_back(&spare, Vec::with_capacity(64 << 10));
        }
        let mut kept = 0;
        while spare.take().is_some() {
            kept += 1;
        }
        assert_eq!(kept, QUEUE + 1);
    }

    /// `ended` is never true while a batch is still to come (and the item
    /// it looked at is still handed out), and becomes true on the last.
    /// The last batch says so itself (`Batch::last`), and no other does.
    #[test]
    fn upcoming_ends_only_after_the_last_batch() {
        let wait = |up: &Upcoming, most: std::time::Duration| {
            let t = std::time::Instant::now();
            while !up.ended() && t.elapsed() < most {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            up.ended()
        };
        // 220 KB per input: one batch of 1 MiB, or several (a batch holds
        // at least what one read of 64 KiB gave); read from memory (a
        // caller's reader) or from files.
        let dir = tempfile::tempdir().unwrap();
        let text = |i| format!("http://a/{i}\n").repeat(20_000);
        let cases = [(1, 1 << 20), (1, 100), (3, 1 << 20), (3, 300)];
        let from_files = [(2, 1 << 20), (2, 100_000)];
        let cases = cases.map(|c| (false, c)).into_iter();
        for (files, (inputs, batch_bytes)) in cases.chain(from_files.map(|c| (true, c))) {
            let opened = if files {
                let paths: Vec<Input> = (0..inputs)
                    .map(|i| {
                        let path = dir.path().join(format!("in{i}"));
                        std::fs::write(&path, text(i)).unwrap();
                        Input::Path(path)
                    })
                    .collect();
                open_all(&paths).unwrap()
            } else {
                (0..inputs)
                    .map(|i| {
                        let text = text(i).into_bytes();
                        Opened::from_reader(format!("in{i}"), Box::new(io::Cursor::new(text)))
                    })
                    .collect()
            };
            let all = 20_000 * inputs as u64;
            let (mut lines, mut batches) = (0, 0);
            for_each_batch(
                opened,
                &Format::Lines,
                None,
                1000,
                batch_bytes,
                |item, up| {
                    if let Item::Batch(b) = item {
                        lines += count_lines(&b.data);
                        batches += 1;
                        // A file smaller than a batch is read until a read
                        // finds its end: its batch knows it is the last. A
                        // caller's reader may end with a short read, before
                        // the one that finds the end, and a batch may fill
                        // up before it: those may not know.
                        if files && batch_bytes == 1 << 20 {
                            assert_eq!(b.last, lines == all);
                        }
                        assert!(!b.last || lines == all);
                        // A batch that knows needs no wait for the reader.
                        assert!(!b.last || up.ended());
                        if lines < all {
                            assert!(!wait(up, std::time::Duration::from_millis(3)));
                        } else {
                            // The reader is done within seconds, however
                            // loaded the machine.
                            assert!(wait(up, std::time::Duration::from_secs(20)));
                        }
                    }
                    Ok(())
                },
            )
            .unwrap();
            assert_eq!(lines, all);
            assert!(batches > inputs || batch_bytes == 1 << 20, "{batches}");
        }
        let csv = |n: usize| {
            let rows: String = (0..n).map(|i| format!("{i},http://a/{i}\n")).collect();
            Opened::from_reader("in", Box::new(io::Cursor::new(format!("id,url\n{rows}"))))
        };
        let records = Format::Records(RecordFormat {
            delimiter: b',',
            header: true,
            column: Column::Name("url".into()),
            base_column: None,
        });
        let all = 2 * RECORDS_PER_BATCH + 10 + 5;
        let mut seen = 0;
        let inputs = vec![csv(2 * RECORDS_PER_BATCH + 10), csv(5)];
        for_each_batch(inputs, &records, None, 1000, 1 << 20, |item, _| {
            if let Item::Batch(b) = item {
                seen += b.records.len();
                assert_eq!(b.last, seen == all);
            }
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, all);
    }

    /// An input in memory comes as slices of it: every byte once, in
    /// order, past a BOM and a CDX header (counted as a skipped line); each
    /// slice ends at a line end (but the input's last) and holds at most
    /// `batch_bytes`, or one line that is longer; only the last is `last`.
    /// Compressed bytes in memory are read as a stream.
    #[test]
    fn an_input_in_memory_is_cut_into_slices_of_it() {
        let mut text = BOM.to_vec();
        text.extend_from_slice(b" CDX N b a m s k r M S V g\n");
        for i in 0..3_000 {
            let line = match i {
                1_000 => format!("{}\n", "y".repeat(5_000)),
                _ => format!("x{i} 20240101 http://a/{i}\r\n"),
            };
            text.extend_from_slice(line.as_bytes());
        }
        text.extend_from_slice(b"no newline at the end");
        let body = 3 + 27;
        assert!(text[body - 1] == b'\n' && text[body] == b'x');
        let text: &'static [u8] = text.leak();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, text).unwrap();
        let gz: &'static [u8] = gz.finish().unwrap().leak();
        let cdx = Format::Cdx(CdxFormat::Cdx);
        for (bytes, format, batch_bytes) in [
            (text, &Format::Lines, 1 << 20),
            (text, &cdx, 1 << 20),
            (text, &cdx, 999),
            (text, &Format::Lines, 1),
            (gz, &cdx, 999),
        ] {
            let shared: Shared = std::sync::Arc::new(bytes);
            let opened = Opened::from_bytes("in", shared);
            let (mut got, mut batches, mut skipped, mut header) = (Vec::new(), 0, 0, None);
            for_each_batch(vec![opened], format, None, 100, batch_bytes, |item, _| {
                match item {
                    Item::Start { cdx, .. } => header = cdx.and_then(|c| c.header),
                    Item::Batch(b) => {
                        let sliced = matches!(b.data, Data::Shared(..));
                        assert_eq!(sliced, bytes == text, "only plain bytes are sliced");
                        let d = &b.data[..];
                        if sliced {
                            assert!(d.len() <= batch_bytes || count_lines(d) == 1);
                            assert!(d.ends_with(b"\n") || d.ends_with(b"the end"));
                            assert_eq!(b.last, d.ends_with(b"the end"));
                        }
                        assert!(!b.last || d.ends_with(b"the end"));
                        got.extend_from_slice(d);
                        skipped += b.skipped_lines;
                        batches += 1;
                    }
                }
                Ok(())
            })
            .unwrap();
            let from = if matches!(format, Format::Cdx(_)) {
                assert_eq!(header.as_deref(), Some(" CDX N b a m s k r M S V g"));
                assert_eq!(skipped, 1);
                body
            } else {
                assert_eq!((header, skipped), (None, 0));
                3
            };
            assert!(got == text[from..], "{batch_bytes}");
            let want = match batch_bytes {
                _ if bytes == gz => 1,
                1 => 3_001,
                // The long line is one batch of its own.
                999 => (got.len() - 5_001) / 999,
                _ => 1,
            };
            assert!(batches >= want, "{batches} {want}");
        }
    }

    #[test]
    fn chunks_cover_everything_at_line_ends() {
        let data = b"aa\nbbbb\nc\n\ndddddd\ne";
        for size in 1..25 {
            let chunks = split_chunks(data, size);
            let mut pos = 0;
            for c in &chunks {
                assert_eq!(c.start, pos);
                assert!(c.end == data.len() || data[c.end - 1] == b'\n');
                assert!(c.end > c.start);
                pos = c.end;
            }
            assert_eq!(pos, data.len());
        }
        assert!(split_chunks(b"", 4).is_empty());
    }

    #[test]
    fn cdx_header_is_taken_from_the_first_line_only() {
        let data = b" CDX a b\r\nhttp://a/ 2024\n CDX b a\n";
        let (c, n) = cdx_start(CdxFormat::Cdx, data, "x").unwrap();
        assert_eq!(n, 10);
        assert_eq!(c.header.as_deref(), Some(" CDX a b"));
        assert_eq!(c.layout.record("http://a/ 2024").unwrap().url, "http://a/");
        // CDXJ has no header; a plain first line is a record.
        assert_eq!(cdx_start(CdxFormat::Cdxj, data, "x").unwrap().1, 0);
        let (c, n) = cdx_start(CdxFormat::Cdx, b"k 1 http://a/", "x").unwrap();
        assert_eq!((n, c.header), (0, None));
        let e = cdx_start(CdxFormat::Cdx, b" CDX N b\n", "in.cdx").unwrap_err();
        assert!(e.to_string().starts_with("in.cdx: "), "{e}");
    }

    #[test]
    fn lines_counted() {
        assert_eq!(count_lines(b""), 0);
        assert_eq!(count_lines(b"\n"), 1);
        assert_eq!(count_lines(b"a\nb"), 2);
        assert_eq!(count_lines(b"a\nb\n"), 2);
        let mut seen = Vec::new();
        let n = for_each_line(b"a\n\nbc", |l, off| seen.push((l.to_vec(), off)));
        assert_eq!(n, 3);
        assert_eq!(
            seen,
            vec![(b"a".to_vec(), 0), (b"".to_vec(), 2), (b"bc".to_vec(), 3)]
        );
    }

    /// The lines of the 64-byte masks are the lines `memchr` finds:
    /// newlines at every offset of a block, across block ends, in the
    /// tail after the last whole block, next to bytes of every value.
    #[test]
    fn newline_masks_find_every_line() {
        let mut data = Vec::new();
        // Newlines 1 to 70 bytes apart: every offset in a block is hit.
        for gap in 1..=70u8 {
            data.extend((0..gap).map(|i| gap.wrapping_mul(31).wrapping_add(i) | 0x80));
            data.push(b'\n');
        }
        data.extend(0..=255u8);
        for len in 0..data.len() {
            let bytes = &data[..len];
            let mut got = Vec::new();
            newlines(bytes, |i| got.push(i));
            let want: Vec<usize> = memchr::memchr_iter(b'\n', bytes).collect();
            assert_eq!(got, want, "{len} bytes");
            let mut lines = Vec::new();
            let n = for_each_line(bytes, |l, off| lines.push((l, off)));
            let want: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
            let want = match want.split_last() {
                Some((&[], rest)) => rest,
                _ => &want[..],
            };
            assert_eq!(n as usize, want.len(), "{len} bytes");
            assert!(lines.iter().map(|l| l.0).eq(want.iter().copied()));
            assert!(lines
                .iter()
                .all(|&(l, off)| &bytes[off..off + l.len()] == l));
        }
    }

    /// A reader returning at most `step` bytes per call.
    struct Trickle<'a>(&'a [u8], usize);
    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.1.min(buf.len()).min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    /// The stream as batches, every other one taken as an owned buffer (as
    /// `read_input` does) with the reader going on in a used buffer whose
    /// old bytes are garbage.
    fn batches(data: &[u8], step: usize, target: usize, max: usize) -> Vec<u8> {
        let out = sized_batches(data, step, (target, max), None, Pace::Unknown);
        // The same with the stream's size told, right or wrong (a file
        // that grew or shrank after its length was taken), and whatever a
        // short read is taken to mean.
        let len = data.len() as u64;
        for size in [0, 1, len / 2, len, len + 1, 3 * len, u64::MAX] {
            assert_eq!(
                sized_batches(data, step, (target, max), Some(size), Pace::Whole),
                out,
                "size {size}"
            );
        }
        for more in [true, false] {
            let pace = Pace::Live(Box::new(move |_| more));
            assert_eq!(sized_batches(data, step, (target, max), None, pace), out);
        }
        out
    }

    fn sized_batches(
        data: &[u8],
        step: usize,
        (target, max): (usize, usize),
        size: Option<u64>,
        pace: Pace,
    ) -> Vec<u8> {
        let mut r = BatchReader::new(Trickle(data, step), target, max)
            .sized(size)
            .paced(pace);
        let mut out = Vec::new();
        let mut spare = vec![vec![b'Z'; 64], Vec::new(), vec![b'Z'; 3]];
        let mut n = 0;
        while let Some(b) = r.next_batch().unwrap() {
            let complete = b.last() == Some(&b'\n');
            let len = b.len();
            if n % 2 == 0 {
                out.extend_from_slice(b);
            } else {
                // As the reader thread hands a batch out: the reader goes
                // on in the small buffer (no spare returned yet) or adopts
                // a spare (whose old bytes are not data).
                let owned = r.take_batch();
                if n % 4 == 3 {
                    drop(r.adopt(spare.pop().unwrap_or_default()));
                }
                assert_eq!(owned.len(), len);
                out.extend_from_slice(&owned);
                spare.insert(0, owned);
            }
            assert!(complete || r.eof);
            n += 1;
        }
        out
    }

    #[test]
    fn batches_reassemble_the_stream() {
        let data = b"\xEF\xBB\xBFone\ntwo\r\n\nthree\nfour";
        for step in [1, 2, 3, 7, 100] {
            for target in [1, 5, 1000] {
                assert_eq!(batches(data, step, target, 100), &data[3..]);
            }
        }
    }

    /// The lengths of the batches of `data` read `step` bytes at a time
    /// (the `slow`-th read, counted from 1, taking 1.1 s) under `pace`,
    /// with a target of all of it (so that only the pace ends a batch
    /// before the end); `most` ms for [`Pace::MOST`].
    fn cut_by(pace: Pace, data: &[u8], (step, slow): (usize, usize), most: u64) -> Vec<usize> {
        struct Slow<'a>(Trickle<'a>, usize);
        impl Read for Slow<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                self.1 = self.1.wrapping_sub(1);
                if self.1 == 0 {
                    std::thread::sleep(std::time::Duration::from_millis(1100));
                }
                self.0.read(buf)
            }
        }
        let target = data.len() + 1;
        let mut r = BatchReader::new(Slow(Trickle(data, step), slow), target, 1000).paced(pace);
        r.most = std::time::Duration::from_millis(most);
        let mut lens = Vec::new();
        while let Some(b) = r.next_batch().unwrap() {
            lens.push(b.len());
        }
        assert_eq!(lens.iter().sum::<usize>(), data.len());
        lens
    }

    #[test]
    fn a_short_read_ends_a_batch_as_the_pace_says() {
        let data = b"http://a.example/p\n".repeat(500);
        let step = (100, 0);
        // All of it is there (a file, also through a decoder): one batch.
        assert_eq!(cut_by(Pace::Whole, &data, step, 50).len(), 1);
        // A caller's reader: each short read ends one.
        assert!(cut_by(Pace::Unknown, &data, step, 50).len() > 80);
        // A live stream whose bytes keep coming: one batch (the test's
        // deadline is long, a busy machine must not cut it). Each wait is
        // for `GAP` at most.
        let more = |wait| {
            assert!(wait <= Pace::GAP, "{wait:?}");
            true
        };
        assert_eq!(
            cut_by(Pace::Live(Box::new(more)), &data, step, 60_000).len(),
            1
        );
        // ... and one that has nothing more each time: each short read
        // ends one.
        let none = Pace::Live(Box::new(|_| false));
        assert!(cut_by(none, &data, step, 60_000).len() > 80);
        // Bytes that keep coming, but one read takes 1.1 s: the batch goes
        // out after `MOST` (here 1 s) has passed since its first short read,
        // and the next one has `MOST` again.
        let lens = cut_by(
            Pace::Live(Box::new(|_| true)),
            &data[..1900],
            (190, 3),
            1000,
        );
        assert_eq!(lens, [570, 1330]);
    }

    /// [`readable_within`] on a pipe: not while it is empty, yes once a
    /// byte is in it, and yes once its writer is gone (the read gives the
    /// end).
    #[cfg(unix)]
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

    #[test]
    fn long_lines_are_cut() {
        let mut data = b"ok\n".to_vec();
        data.extend_from_slice(&[b'x'; 1000]);
        data.extend_from_slice(b"\nend\n");
        for step in [1, 10, 5000] {
            let out = batches(&data, step, 16, 10);
            let lines: Vec<&[u8]> = out.split(|&b| b == b'\n').collect();
            assert_eq!(lines[0], b"ok");
            // Cut only when the line does not fit in what was read at once.
            assert_eq!(lines[1].len(), if step < 1000 { 12 } else { 1000 });
            assert_eq!(lines[2], b"end");
        }
    }

    /// A reader of its bytes that records where and how much each `read`
    /// asked for.
    struct At<'a>(&'a [u8], Vec<(usize, usize)>);
    impl Read for At<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.1.push((buf.as_ptr() as usize, buf.len()));
            let n = buf.len().min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn a_stream_of_known_size_is_read_into_a_room_of_its_size() {
        // Reads go 1 MiB at a time into one room, never grown, that holds
        // what is left of the stream and 64 KiB to find its end in.
        fn read_in_one_room(r: &mut BatchReader<At<'_>>, data: &[u8], left: usize) {
            r.r.1.clear();
            let mut out = Vec::new();
            while let Some(b) = r.next_batch().unwrap() {
                out.extend_from_slice(b);
            }
            assert_eq!(out, data);
            let (base, room) = (r.buf.as_ptr() as usize, r.buf.capacity());
            assert!(
                room >= left + (64 << 10) && room < left + (1 << 20),
                "{room}"
            );
            let asked = &r.r.1;
            assert_eq!(asked[0].1, 1 << 20, "{asked:?}");
            for &(at, n) in asked {
                assert!((64 << 10..=1 << 20).contains(&n), "{asked:?}");
                assert!(at >= base && at + n <= base + room, "{asked:?}");
            }
        }
        // 2.5 MiB in batches of 8 MiB: one room of its size.
        let data: Vec<u8> = b"http://a.example/abcdefghijklmn\n".repeat(5 << 19 >> 5);
        let size = Some(data.len() as u64);
        let mut r = BatchReader::new(At(&data, Vec::new()), 8 << 20, 1000).sized(size);
        read_in_one_room(&mut r, &data, data.len());
        // The same in batches of 1 MiB: the first batch's room is the
        // usual one (2 MiB); the reader goes on in a new buffer, sized to
        // what is left.
        let mut r = BatchReader::new(At(&data, Vec::new()), 1 << 20, 1000).sized(size);
        r.next_batch().unwrap().unwrap();
        assert!(r.buf.capacity() >= (1 << 20) + (1 << 20));
        let first = r.take_batch();
        read_in_one_room(&mut r, &data[first.len()..], data.len() - first.len());
    }

    #[test]
    fn only_a_plain_regular_file_tells_its_size_any_file_is_whole() {
        let dir = tempfile::tempdir().unwrap();
        let text = b"http://a.example/\n".repeat(100);
        let plain = dir.path().join("a.txt");
        std::fs::write(&plain, &text).unwrap();
        let gz = dir.path().join("a.txt.gz");
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        io::Write::write_all(&mut enc, &text).unwrap();
        std::fs::write(&gz, enc.finish().unwrap()).unwrap();
        let utf16 = dir.path().join("a16.txt");
        let wide: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain(text.iter().flat_map(|&b| [b, 0]))
            .collect();
        std::fs::write(&utf16, wide).unwrap();
        let size = |p: &std::path::Path| {
            let opened = open_all(&[Input::Path(p.to_path_buf())]).unwrap();
            let mut s = open_sized(opened.into_iter().next().unwrap(), None).unwrap();
            let mut got = Vec::new();
            s.reader.read_to_end(&mut got).unwrap();
            assert_eq!(got, text);
            // All of a file is there, also when decoded.
            assert!(matches!(s.pace, Pace::Whole));
            s.size
        };
        assert_eq!(size(&plain), Some(text.len() as u64));
        assert_eq!(size(&gz), None);
        assert_eq!(size(&utf16), None);
        let given = Opened::from_reader("-", Box::new(io::Cursor::new(text.clone())));
        let s = open_sized(given, None).unwrap();
        assert!(s.size.is_none() && matches!(s.pace, Pace::Unknown));
        // A pipe (as a path: a FIFO, /dev/stdin) is live.
        #[cfg(unix)]
        {
            use std::io::Write;
            use std::os::fd::{AsRawFd, OwnedFd};
            let (r, mut w) = io::pipe().unwrap();
            w.write_all(&text).unwrap();
            drop(w);
            let r = File::from(OwnedFd::from(r));
            assert!(matches!(Origin::of(&r), Origin::Live(fd) if fd == r.as_raw_fd()));
            let s = open_sized(Opened::file("pipe".into(), r), None).unwrap();
            assert!(s.size.is_none() && matches!(s.pace, Pace::Live(_)));
        }
    }

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

    #[test]
    fn fresh_room_is_read_into_a_little_at_a_time() {
        // 3.6 MiB of lines in one batch: a fresh buffer asks for 64 KiB,
        // then no more than it holds (each ask is zeroed first); a buffer
        // that held as much before (zeroed already) asks for 1 MiB.
        let data: Vec<u8> = b"http://a.example/p\n".repeat(3 << 20 >> 4);
        let lens = |at: &[(usize, usize)]| at.iter().map(|&(_, n)| n).collect::<Vec<_>>();
        let mut r = BatchReader::new(At(&data, Vec::new()), 8 << 20, 1000);
        let first = r.next_batch().unwrap().unwrap().len();
        assert_eq!(first, data.len());
        let asked = lens(&r.r.1);
        assert_eq!(asked[0], 64 << 10, "{asked:?}");
        let mut held = 0;
        for &a in &asked {
            assert!(a <= held.max(64 << 10), "{a} after {held}: {asked:?}");
            held = (held + a).min(data.len());
        }
        let used = r.into_buf();
        let mut r = BatchReader::new(At(&data, Vec::new()), 8 << 20, 1000).reusing(used);
        assert_eq!(r.next_batch().unwrap().unwrap().len(), data.len());
        assert_eq!(lens(&r.r.1)[0], 1 << 20, "{:?}", r.r.1);
    }

    /// The `VmFlags` of the mapping that holds `addr` (Linux).
    #[cfg(target_os = "linux")]
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
    #[cfg(target_os = "linux")]
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
