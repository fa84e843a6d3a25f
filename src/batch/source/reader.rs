//! The reader thread: every input read in order, one after the other, and
//! handed to the caller as bounded batches — slices of an input in memory,
//! buffers of complete lines cut from a stream ([`BatchReader`]), or
//! CSV/TSV records.
//!
//! Decompression and transcoding overlap the keying done by the caller's
//! workers, and memory is bounded by the batch size and a queue of
//! [`QUEUE`] batches, whatever the input size. The buffers of finished
//! batches come back to the reader ([`Spare`]) to be filled again.

use std::io::{self, Read};
use std::ops::Range;
use std::sync::mpsc;

use csv::ByteRecord;

use super::input::{Opened, Origin, Shared};
use super::mmap::{huge_pages, release};
use super::pace::Pace;
use super::records::{
    cdx_start, CdxInput, CountingReader, Format, Layout, NewlineLog, Rec, RECORDS_PER_BATCH,
};
use super::stream::{line_charset, open_sized, utf16_of, Stream, BOM};
use crate::batch::RunError;
use crate::decode::{self, Charset};

/// Batches read ahead of the workers, per input.
pub const QUEUE: usize = 2;

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
    mut f: impl FnMut(Item, &Upcoming) -> Result<(), RunError>,
) -> Result<(), RunError> {
    let (tx, rx) = mpsc::sync_channel::<Result<Item, RunError>>(QUEUE);
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
        .map_err(|e| RunError::io("cannot start a reader thread".into(), &e))?;
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
    rx: mpsc::Receiver<Result<Item, RunError>>,
    /// An item taken from the queue by [`Upcoming::ended`], handed out next.
    next: std::cell::RefCell<Option<Result<Item, RunError>>>,
    /// The batch handed out last said it is the run's last ([`Batch::last`]).
    last: std::cell::Cell<bool>,
}

impl Upcoming {
    /// True if the batch being handled is the run's last: it said so (its
    /// reader found the end in reading it), or the reader is done and
    /// every item has been handed out. False while that is not known yet
    /// (the reader may still be reading), so a caller may only use it to
    /// choose between ways that give the same result. (Asked of the queue
    /// alone, the answer for a small file would depend on whether a loaded
    /// machine had run the reader to its end yet, and a wrong no sends
    /// `dedup` the slower way: BENCHMARKS.md, decision log, "The whole-input index".)
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

    fn recv(&self) -> Option<Result<Item, RunError>> {
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
    tx: &mpsc::SyncSender<Result<Item, RunError>>,
) -> Result<bool, RunError> {
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
            let read_err = |e: io::Error| RunError::io(format!("cannot read {name}"), &e);
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
            if !send(Item::Start { layout: None, cdx }) {
                return Ok(false);
            }
            let mut more = first.is_some();
            while more {
                // The reader's buffer becomes the batch (no copy). The
                // bytes read past it wait in a small buffer until the batch
                // is sent, and the reader then goes on in a spare one
                // ([`BatchReader::adopt`]). Taken before the send, the
                // spare pool would still be empty while the queue is full:
                // the batch the worker holds comes back only once it takes
                // the next, and the reader would make a buffer more than the
                // worker, the queue and itself use, whose pages the kernel
                // zeroes.
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
            let err = |e: csv::Error| RunError::msg(format!("cannot read {name}: {e}"));
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
                pending.push(Rec {
                    rec: first,
                    line,
                    unterminated: false,
                });
                None
            };
            let width = match &header {
                Some(h) => h.len(),
                None => pending[0].rec.len(),
            };
            let layout = Layout {
                header,
                column,
                base_column,
                names: (rf.column.clone(), rf.base_column.clone()),
                width,
                delimiter: rf.delimiter,
            };
            if !send(Item::Start {
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
                    pending.push(Rec {
                        rec,
                        line,
                        unterminated: false,
                    });
                } else if let Some(r) = pending.last_mut() {
                    // The input ended: a last field that runs over a line
                    // end but does not end with its quote was never closed.
                    r.unterminated = r.rec.iter().next_back().is_some_and(|f| f.contains(&b'\n'))
                        && !lines.ends_with_quote();
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
    tx: &mpsc::SyncSender<Result<Item, RunError>>,
) -> Result<bool, RunError> {
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
    let start = Item::Start { layout: None, cdx };
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

/// Where each input starts (sent before its batches): the columns of a
/// CSV/TSV input, the field layout of a CDX/CDXJ input.
pub enum Item {
    Start {
        layout: Option<Layout>,
        cdx: Option<CdxInput>,
    },
    Batch(Batch),
}

impl Item {
    /// The batch, or `None` for an input's start, whose layout and CDX
    /// input are given to `start` (what a consumer of
    /// [`for_each_batch`] does with each item first).
    pub fn batch_or_start(
        self,
        start: impl FnOnce(Option<Layout>, Option<CdxInput>) -> Result<(), RunError>,
    ) -> Result<Option<Batch>, RunError> {
        match self {
            Item::Start { layout, cdx } => start(layout, cdx).map(|()| None),
            Item::Batch(b) => Ok(Some(b)),
        }
    }
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
    /// consumer counts anyway ([`LineNumbers`](crate::batch::scan::LineNumbers)): the reader does not pass
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

impl Drop for Batch {
    fn drop(&mut self) {
        if let (Some(spare), Data::Owned(buf)) = (&self.spare, &mut self.data) {
            give_back(spare, std::mem::take(buf));
        }
    }
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

/// The smallest read into fresh room ([`BatchReader::next_batch`]); a
/// buffer below it is not worth keeping for a batch ([`give_back`]).
const SMALLEST_READ: usize = 64 << 10;

/// How much of an over-long line a reader keeps: `max_line` bytes and 2 of
/// slack for a `\r` ([`BatchReader`]; the rest is skipped, so that one
/// endless line cannot exhaust memory). An input in memory keeps its lines
/// whole; [`reject_input`](crate::batch::line::reject_input) shows the same
/// bytes of either.
pub fn kept_len(max_line: usize) -> usize {
    max_line.saturating_add(2)
}

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
            keep: kept_len(max_line),
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
    /// `read`, and read into 1 MiB at a time (BENCHMARKS.md, decision log:
    /// "Reader thread and full batches"). A hint
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
            // zeroes ~64 KiB, not 1 MiB of fresh memory.
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
mod tests;
