//! The order-preserving map behind `normalize` and `convert`: one output per
//! input line or record, in input order, batch by batch.
//!
//! Memory is bounded by the batch size whatever the input length (an
//! endless stdin works: each batch is written, and the caller may flush,
//! before the next is read). The output does not depend on the thread count
//! or chunk size: chunks are keyed in parallel and concatenated in order
//! (rayon's indexed `collect`).
//!
//! Outputs ([`MapOutput`]): one key per line; CSV `line,input,output,error`;
//! or, for CSV/TSV records, every input field unchanged followed by the key
//! column and `error`, in the input's own delimiter — a short record padded
//! with empty fields to the header's width, so that the key and the error
//! always stand under their headings.

use std::borrow::Cow;

use rayon::prelude::*;

use super::line::{
    line_key, record_key, record_reject_text, reject_input, strip_cr, ChunkLines, LineText,
    RecordKey,
};
use super::sink::{csv_u64, field_with, write_behind};
use super::source::{
    chunk_size, for_each_batch, for_each_line, line_chunks, split_chunks, Batch, Format, Layout,
    LineNumbers, Opened,
};
use super::{KeyFn, Observer, Reject, RejectReason, RunError, Stats};
use crate::cdx::CdxLayout;
use crate::decode::Charset;

/// How outputs are written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MapOutput {
    /// One key per line; an empty line for a blank or rejected one.
    Lines,
    /// As [`MapOutput::Lines`], with a line of a NUL byte and the input's
    /// index (`"\0" N`, N counted from 0 in the order given) before the
    /// first output of each input: a consumer that numbers its lines per
    /// input, as rejects do, learns where each input starts.
    LinesByInput,
    /// CSV with header `line,input,output,error`.
    Csv,
    /// CSV/TSV records: the input's fields, then the key column (named
    /// `output_column` in the header) and `error`.
    Records { output_column: String },
    /// CDX/CDXJ lines: each record with its key next to its fields
    /// ([`CdxLayout::with_key`]; `-` / `null` for a rejected record), each
    /// input's header with the letter `A` added; a blank line stays blank.
    /// A line that is not text (too long, not UTF-8) gives an empty line.
    Cdx,
}

/// Tunables of a map run.
#[derive(Debug, Clone)]
pub struct Config {
    pub chunk_size: usize,
    pub max_line_bytes: usize,
    pub charset: Option<Charset>,
    /// Target size of a batch of lines read ahead.
    pub batch_bytes: usize,
    pub output: MapOutput,
    /// The workers (`None`: the current rayon pool); see
    /// [`super::dedup::Config::pool`].
    pub pool: Option<std::sync::Arc<rayon::ThreadPool>>,
}

/// Map every line or record of `inputs` through `key`; each batch's output
/// goes to `out` in order (keyed on [`Config::pool`]). `out` is called from
/// a thread of its own, which writes a batch's chunks as they come while
/// the workers key the next batch: on one worker, writing had taken its
/// time from keying. Each chunk is passed on as soon as
/// its batch is keyed, so a slow stream's output is not held back.
pub fn run(
    inputs: Vec<Opened>,
    format: &Format,
    key: &KeyFn<'_>,
    cfg: &Config,
    obs: &mut dyn Observer,
    out: &mut (dyn FnMut(&[u8]) -> Result<(), RunError> + Send),
) -> Result<Stats, RunError> {
    // Chunks of output on their way: a few, so memory stays bounded.
    write_behind(
        8,
        |t: &Vec<u8>| out(t),
        drop,
        |send| map_all(inputs, format, key, cfg, obs, send),
    )
}

/// [`run`] on this thread, handing each piece of output to `out`.
fn map_all(
    inputs: Vec<Opened>,
    format: &Format,
    key: &KeyFn<'_>,
    cfg: &Config,
    obs: &mut dyn Observer,
    out: &mut dyn FnMut(Vec<u8>) -> Result<(), RunError>,
) -> Result<Stats, RunError> {
    let mut stats = Stats::default();
    let mut layout: Option<Layout> = None;
    let mut cdx: Option<CdxLayout> = None;
    let mut header_done = false;
    let mut lines = LineNumbers::default();
    let mut marked: Option<usize> = None;
    let delim = match format {
        Format::Records(rf) => rf.delimiter,
        Format::Lines | Format::Cdx(_) => b',',
    };
    if cfg.output == MapOutput::Csv {
        out(b"line,input,output,error\n".to_vec())?;
    }
    for_each_batch(
        inputs,
        format,
        cfg.charset,
        cfg.max_line_bytes,
        cfg.batch_bytes,
        |item, _| {
            let Some(batch) = item.batch_or_start(|l, c| {
                layout = l;
                if let Some(c) = c {
                    if let (Some(h), MapOutput::Cdx) = (&c.header, &cfg.output) {
                        out(format!("{}\n", CdxLayout::header_with_key(h)).into_bytes())?;
                    }
                    cdx = Some(c.layout);
                }
                if let (Some(l), MapOutput::Records { output_column }) = (&layout, &cfg.output) {
                    if !header_done {
                        header_done = true;
                        if let Some(h) = &l.header {
                            let mut t = Vec::new();
                            for f in h {
                                field_with(&mut t, f, delim);
                                t.push(delim);
                            }
                            field_with(&mut t, output_column.as_bytes(), delim);
                            t.push(delim);
                            t.extend_from_slice(b"error\n");
                            out(t)?;
                        }
                    }
                }
                Ok(())
            })?
            else {
                return Ok(());
            };
            let mut work = || match &layout {
                Some(l) => map_records(&batch, l, key, cfg, delim),
                None => map_lines(&batch, &mut lines, cdx.as_ref(), key, cfg),
            };
            let outs = match &cfg.pool {
                Some(p) => p.install(work),
                None => work(),
            };
            if cfg.output == MapOutput::LinesByInput && marked != Some(batch.file) {
                marked = Some(batch.file);
                out(format!("\0{}\n", batch.file).into_bytes())?;
            }
            for o in outs {
                out(o.text)?;
                for r in &o.rejects {
                    obs.reject(r)?;
                }
                stats.add(&o.stats);
            }
            if layout.is_some() {
                // Records: the chunks count records, the batch its bytes.
                stats.bytes += batch.bytes;
            }
            obs.progress(batch.bytes);
            Ok(())
        },
    )?;
    Ok(stats)
}

/// Output of one chunk.
struct ChunkOut {
    text: Vec<u8>,
    rejects: Vec<Reject>,
    stats: Stats,
}

/// The chunks of a batch of lines, mapped in parallel, their lines
/// numbered by `lines`.
fn map_lines(
    batch: &Batch,
    lines: &mut LineNumbers,
    cdx: Option<&CdxLayout>,
    key: &KeyFn<'_>,
    cfg: &Config,
) -> Vec<ChunkOut> {
    let data = &batch.data;
    let size = chunk_size(cfg.chunk_size, data.len());
    if cfg.output == MapOutput::Csv {
        // The output names each line's number: each chunk needs its first
        // line's before it is mapped (a count of its lines beforehand).
        return line_chunks(batch, size, lines)
            .into_par_iter()
            .map(|(r, first)| map_chunk(&data[r], batch, first, cdx, key, cfg))
            .collect();
    }
    // Otherwise only rejects name a line: each chunk counts its lines
    // from its start, and its rejects learn its first line's number once
    // all chunks have counted theirs (no pass over the bytes to count).
    let mut outs: Vec<ChunkOut> = split_chunks(data, size)
        .into_par_iter()
        .map(|r| map_chunk(&data[r], batch, 0, cdx, key, cfg))
        .collect();
    let firsts = lines.chunks(batch, outs.iter().map(|o| o.stats.lines));
    for (o, first) in outs.iter_mut().zip(firsts) {
        for r in &mut o.rejects {
            r.line += first;
        }
    }
    outs
}

fn map_chunk(
    chunk: &[u8],
    batch: &Batch,
    first_line: u64,
    cdx: Option<&CdxLayout>,
    key: &KeyFn<'_>,
    cfg: &Config,
) -> ChunkOut {
    let max_line = cfg.max_line_bytes;
    let mut text = Vec::with_capacity(chunk.len() + chunk.len() / 4);
    let mut rejects = Vec::new();
    let mut stats = Stats {
        bytes: chunk.len() as u64,
        ..Stats::default()
    };
    let mut line_no = first_line;
    let lines = ChunkLines::new(chunk, max_line, batch.charset);
    stats.lines = for_each_line(chunk, |line, pos| {
        line_no += 1;
        let text_of = lines.text(line, pos);
        let mut result = match &text_of {
            LineText::Blank => None,
            LineText::Reject(r) => Some(Err(r.clone())),
            LineText::Text(t) => Some(line_key(t, cdx, key)),
        };
        let record = match (&cfg.output, cdx, &text_of) {
            (MapOutput::Cdx, Some(l), LineText::Text(t)) => Some(cdx_line(l, t, &mut result)),
            _ => None,
        };
        let (output, error): (&[u8], Option<&RejectReason>) = match &result {
            None => {
                stats.blank += 1;
                (b"", None)
            }
            Some(Ok(k)) => {
                stats.accepted += 1;
                (k.as_bytes(), None)
            }
            Some(Err(r)) => {
                stats.rejected += 1;
                (b"", Some(r))
            }
        };
        match cfg.output {
            MapOutput::Cdx if cdx.is_some() => {
                text.extend_from_slice(record.as_deref().unwrap_or("").as_bytes());
                text.push(b'\n');
            }
            MapOutput::Lines
            | MapOutput::LinesByInput
            | MapOutput::Records { .. }
            | MapOutput::Cdx => {
                text.extend_from_slice(output);
                text.push(b'\n');
            }
            MapOutput::Csv => {
                csv_u64(&mut text, line_no);
                text.push(b',');
                match error {
                    None => field_with(&mut text, strip_cr(line), b','),
                    Some(_) => field_with(&mut text, reject_input(line, max_line).as_bytes(), b','),
                }
                text.push(b',');
                field_with(&mut text, output, b',');
                text.push(b',');
                if let Some(r) = error {
                    field_with(&mut text, r.to_string().as_bytes(), b',');
                }
                text.push(b'\n');
            }
        }
        if let Some(r) = error {
            rejects.push(Reject {
                file: batch.file,
                line: line_no,
                input: reject_input(line, max_line).into_owned(),
                reason: r.clone(),
            });
        }
        // Written out: its buffer takes this worker's next rewritten key.
        if let Some(Ok(Cow::Owned(k))) = result {
            crate::ladder::syntax::recycle(k);
        }
    });
    ChunkOut {
        text,
        rejects,
        stats,
    }
}

/// A CDX/CDXJ line with its key, or with the null key if it has none. A
/// key that cannot be a CDX field (it holds a space: `--split-spaces`)
/// rejects the record; a line whose JSON cannot take a member is written
/// unchanged (it is rejected already).
fn cdx_line(
    l: &CdxLayout,
    t: &str,
    result: &mut Option<Result<Cow<'_, str>, RejectReason>>,
) -> String {
    if let Some(Ok(k)) = result {
        match l.with_key(t, Some(k.as_ref())) {
            Ok(s) => return s,
            Err(e) => *result = Some(Err(RejectReason::Other(e))),
        }
    }
    l.with_key(t, None)
        .unwrap_or_else(|_| t.strip_suffix('\r').unwrap_or(t).to_owned())
}

fn map_records(
    batch: &Batch,
    layout: &Layout,
    key: &KeyFn<'_>,
    cfg: &Config,
    delim: u8,
) -> Vec<ChunkOut> {
    batch
        .records
        .par_chunks(1024)
        .map(|recs| {
            let mut text = Vec::new();
            let mut rejects = Vec::new();
            let mut stats = Stats::default();
            for r in recs {
                stats.lines += 1;
                for f in &r.rec {
                    field_with(&mut text, f, delim);
                    text.push(delim);
                }
                for _ in r.rec.len()..layout.width {
                    text.push(delim);
                }
                match record_key(r, layout, cfg.max_line_bytes, batch.charset, key, false) {
                    RecordKey::Blank => {
                        stats.blank += 1;
                        text.push(delim);
                    }
                    RecordKey::Key { key, .. } => {
                        stats.accepted += 1;
                        field_with(&mut text, key.as_bytes(), delim);
                        text.push(delim);
                    }
                    RecordKey::Reject(e) => {
                        stats.rejected += 1;
                        text.push(delim);
                        field_with(&mut text, e.to_string().as_bytes(), delim);
                        rejects.push(Reject {
                            file: batch.file,
                            line: r.line,
                            input: record_reject_text(r, layout, cfg.max_line_bytes),
                            reason: e,
                        });
                    }
                }
                text.push(b'\n');
            }
            ChunkOut {
                text,
                rejects,
                stats,
            }
        })
        .collect()
}
