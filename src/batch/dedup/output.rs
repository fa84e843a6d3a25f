//! Writing the rows: CSV rows formatted in parallel pieces and written in
//! order by a writer thread, in first-occurrence order from the tape
//! without a sort, each row's record asked for ahead of its use.

use std::sync::atomic::Ordering::Relaxed;

use rayon::prelude::*;

use super::columns::Field;
use super::keying::Chunk;
use super::part::Part;
use crate::batch::sink::{csv_field, csv_u64, write_behind};
use crate::batch::RunError;

/// Append to `tape` the partition of each new row of `chunks`, in input
/// order: what a merge stored in their `fresh` flags (the merge has
/// joined, so its stores are visible here).
pub(super) fn tape_of(chunks: &[Chunk], tape: &mut Vec<u8>) {
    for c in chunks {
        tape.extend(
            c.bufs
                .fresh
                .iter()
                .filter_map(|f| f.load(Relaxed).checked_sub(1)),
        );
    }
}

/// Rows per piece of [`write_by_origin`] (about 400 KB of CSV): small
/// enough that the pieces' buffers are reused from the second group on
/// instead of fresh memory faulted in page by page (larger pieces were
/// slower).
pub(super) const PIECE: usize = 1 << 12;

/// Rows per piece for an output of `rows` rows: [`PIECE`], but at least 64
/// pieces down to 256 rows each. The buffers of the first groups are fresh
/// memory; with only a few groups, every piece was, and an output of tens
/// of thousands of rows had every byte of its buffers faulted in.
pub(super) fn piece_rows(rows: usize) -> usize {
    (rows / 64).clamp(256, PIECE)
}

/// How far ahead [`write_by_origin`] asks for a row's record, and for the
/// rest of a row whose head names it ([`Added::REST`]).
pub(super) const AHEAD_ROW: usize = 32;
pub(super) const AHEAD_KEY: usize = 16;

/// A second walk of a piece of the tape, `dist` rows ahead of the row
/// being written.
pub(super) struct Ahead {
    pub(super) next: Vec<usize>,
    pub(super) j: usize,
    pub(super) dist: usize,
}

impl Ahead {
    fn new(start: &[usize], dist: usize) -> Self {
        Ahead {
            next: start.to_vec(),
            j: 0,
            dist,
        }
    }

    /// `f` on each row not yet visited up to `dist` rows after row `i`.
    #[inline]
    fn upto<P: Added>(&mut self, i: usize, tape: &[u8], parts: &[P], f: impl Fn(&P, usize)) {
        while self.j < tape.len() && self.j <= i + self.dist {
            let q = tape[self.j] as usize;
            if self.next[q] < parts[q].added() {
                f(&parts[q], self.next[q]);
            }
            self.next[q] += 1;
            self.j += 1;
        }
    }
}

/// A partition's rows in the order they were added, as
/// [`write_by_origin`] reads them.
pub(super) trait Added: Sync {
    /// How many.
    fn added(&self) -> usize;
    /// Ask for the `i`-th row ahead of its use ([`AHEAD_ROW`] rows).
    fn prefetch_head(&self, i: usize);
    /// Whether a row's head names bytes elsewhere, asked for by
    /// [`Added::prefetch_rest`] [`AHEAD_KEY`] rows ahead (once the head,
    /// asked for earlier, has come).
    const REST: bool;
    /// Ask for the rest of the `i`-th row, if [`Added::REST`].
    fn prefetch_rest(&self, _i: usize) {}
}

impl Added for Part {
    fn added(&self) -> usize {
        self.recs.len()
    }

    #[inline]
    fn prefetch_head(&self, i: usize) {
        self.prefetch_record(self.recs[i]);
    }

    /// A record holds its key and example: [`Part::prefetch_record`] asks
    /// for all of it at once.
    const REST: bool = false;
}

/// What an output wrote: its rows, and the writer threads it started
/// ([`write_pieces`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Written {
    pub(super) rows: u64,
    pub(super) writers: usize,
}

/// Every row in order of first occurrence, formatted by `format` and
/// written through `out`. Without a spill each partition's rows already
/// are in that order (batches and their chunks are merged in input order),
/// and `tape` names the partition of each row in that order
/// ([`Table::tape`](super::table::Table::tape)): no sort and no compare of origins. The tape is cut
/// into pieces of `piece` rows, formatted in parallel (each from its own
/// starting row in every partition) and written in order.
pub(super) fn write_by_origin<P: Added>(
    parts: &[P],
    tape: &[u8],
    piece: usize,
    format: impl Fn(&mut Vec<u8>, &P, usize) + Sync,
    out: &mut (dyn FnMut(&[u8]) -> Result<(), RunError> + Send),
) -> Result<Written, RunError> {
    debug_assert_eq!(tape.len(), parts.iter().map(P::added).sum::<usize>());
    let pieces: Vec<&[u8]> = tape.chunks(piece.max(1)).collect();
    // starts[j][p]: rows of partition p before piece j.
    let mut starts = Vec::with_capacity(pieces.len());
    let mut next = vec![0usize; parts.len()];
    for t in &pieces {
        starts.push(next.clone());
        for &p in *t {
            next[p as usize] += 1;
        }
    }
    let pieces: Vec<(&[u8], Vec<usize>)> = pieces.into_iter().zip(starts).collect();
    let writers = write_pieces(&pieces, out, |(t, start), text| {
        text.reserve(t.len() * 128);
        let mut next = start.clone();
        // The rows come from every partition in turn, too many streams for
        // the hardware to see: ask for each row `AHEAD_ROW` rows ahead, and
        // for the rest of it (where its head says) `AHEAD_KEY` ahead
        // (BENCHMARKS.md, decision log: "Output order and formatting").
        let mut rows = Ahead::new(start, AHEAD_ROW);
        let mut rest = P::REST.then(|| Ahead::new(start, AHEAD_KEY));
        for (i, &p) in t.iter().enumerate() {
            rows.upto(i, t, parts, P::prefetch_head);
            if let Some(rest) = &mut rest {
                rest.upto(i, t, parts, P::prefetch_rest);
            }
            format(text, &parts[p as usize], next[p as usize]);
            next[p as usize] += 1;
        }
    })?;
    Ok(Written {
        rows: tape.len() as u64,
        writers,
    })
}

/// Format `pieces` in parallel, a few per worker at a time, and write them
/// in order from a thread of their own: a `write` copies into the page
/// cache, which takes pages of fresh memory, and on a worker that time was
/// taken from formatting.
/// The writer's groups come back as buffers for later groups: fresh ones
/// would be new memory, faulted in page by page.
/// An output of one group (4 pieces a worker: with [`piece_rows`], 1,024
/// rows a worker or fewer on up to 16 workers) has nothing for a writer to
/// overlap, which would start, wait for the group and write it: it is
/// written here instead.
/// The writer threads it started: 0 or 1.
pub(super) fn write_pieces<P: Sync>(
    pieces: &[P],
    out: &mut (dyn FnMut(&[u8]) -> Result<(), RunError> + Send),
    fill: impl Fn(&P, &mut Vec<u8>) + Sync,
) -> Result<usize, RunError> {
    let format = |group: &[P], mut bufs: Vec<Vec<u8>>| -> Vec<Vec<u8>> {
        bufs.resize_with(group.len(), Vec::new);
        group
            .par_iter()
            .zip(bufs)
            .map(|(piece, mut text)| {
                text.clear();
                fill(piece, &mut text);
                text
            })
            .collect()
    };
    let group = 4 * rayon::current_num_threads().max(1);
    if pieces.len() <= group {
        format(pieces, Vec::new()).iter().try_for_each(|t| out(t))?;
        return Ok(0);
    }
    let (give_back, spares) = std::sync::mpsc::channel::<Vec<Vec<u8>>>();
    // One group queued while one is written and one formatted.
    let write = |texts: &Vec<Vec<u8>>| texts.iter().try_for_each(|t| out(t));
    // The formatting may be done: then the buffers go.
    let done = move |texts| drop(give_back.send(texts));
    write_behind(1, write, done, |send| {
        for g in pieces.chunks(group) {
            send(format(g, spares.try_recv().unwrap_or_default()))?;
        }
        Ok(())
    })?;
    Ok(1)
}

/// The canonical column: the key, or its SURT (`known`, if computed already).
pub(super) fn shown<'a>(
    surt: bool,
    key: &'a [u8],
    known: Option<&'a [u8]>,
) -> std::borrow::Cow<'a, [u8]> {
    use std::borrow::Cow;
    match (surt, known) {
        (false, _) => Cow::Borrowed(key),
        (true, Some(s)) => Cow::Borrowed(s),
        (true, None) => Cow::Owned(crate::surt::surt_of_key(key)),
    }
}

/// One output row of `columns`; `file` is already a CSV field.
pub(super) fn format_row(
    t: &mut Vec<u8>,
    columns: &[Field],
    shown: &[u8],
    count: u64,
    file: &[u8],
    line: u64,
    example: &[u8],
) {
    // Where the canonical field was written, when the example is the same
    // bytes (the input line was canonical already, and its key borrows
    // it): the example is then copied from there, not scanned for quoting
    // again.
    let mut same = None;
    for (i, c) in columns.iter().enumerate() {
        if i > 0 {
            t.push(b',');
        }
        match c {
            Field::Canonical => {
                let start = t.len();
                csv_field(t, shown);
                if std::ptr::eq(shown, example) {
                    same = Some(start..t.len());
                }
            }
            Field::Raw(_) => t.extend_from_slice(shown),
            Field::Count => csv_u64(t, count),
            Field::FirstFile => t.extend_from_slice(file),
            Field::FirstLine => csv_u64(t, line),
            Field::Example => match same.clone() {
                Some(field) => t.extend_from_within(field),
                None => csv_field(t, example),
            },
        }
    }
    t.push(b'\n');
}
