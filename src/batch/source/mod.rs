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
//! on two workers, the reader's CPU is what the workers lose (BENCHMARKS.md,
//! decision log: "--mmap and the populate advice"). An input already in memory
//! ([`Opened::from_bytes`], a mapped file) is cut into batches that are
//! slices of it: no byte is copied. What the reader knows of an input's
//! origin (a regular file and how much is left of it, a pipe, a caller's
//! reader, bytes in memory) sizes a small input's buffer and says what a
//! short read means ([`Pace`]).
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
//!
//! One job per file, in the order a byte passes them:
//!
//! ```text
//! input    the inputs, opened up front (files, stdin, readers, bytes)
//! mmap     a file mapped instead of read (opt-in, `unsafe`); huge-page
//!          advice for batch buffers
//! stream   decompression, UTF-16 transcoding, the byte-order mark
//! pace     what a short read means (a live pipe: `poll`)
//! records  the formats; CSV/TSV records, their columns and line numbers;
//!          the CDX header
//! reader   the reader thread, its batches and the buffers they come back
//!          in; BatchReader, which cuts a stream into batches of lines
//! ```
//!
//! The lines of a batch are cut into chunks and numbered by
//! [`super::scan`].

mod input;
mod mmap;
mod pace;
mod reader;
mod records;
mod stream;

pub use input::{open_all, Input, Opened};
pub use mmap::open_all_mapped;
pub use reader::{for_each_batch, kept_len, Batch};
pub use records::{Column, Format, Layout, Rec, RecordFormat};
pub use stream::open_stream;

// The chunks and lines of a batch, at the paths the engine has used for
// them: they live in `batch::scan`.
pub use super::scan::{chunk_size, for_each_line, line_chunks, split_chunks, LineNumbers};
