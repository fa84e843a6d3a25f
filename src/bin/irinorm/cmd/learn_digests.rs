//! `learn --digests`: reading the captures (decompressed like every input)
//! and learning their content rules (3987bis §5.3.4) — one streaming pass
//! over a CDX/CDXJ index sorted by SURT key, else grouped by origin first
//! within `--memory` (`batch::SpillGroups`) — with a progress bar as
//! `dedup` shows it.

use std::io::{BufReader, BufWriter, Read, Seek, Write};
use std::path::Path;

use indicatif::ProgressStyle;
use irinorm::batch::{self, Input, SpillGroups};
use irinorm::cdx::Format;
use irinorm::learn::digest::{DigestFormat, DigestOptions};
use irinorm::learn::group::{learn_unsorted, Grouping, Step};
use irinorm::learn::stream::{self, Learnt, StreamError, CHUNK_BYTES};

use super::info::default_input;
use super::{note, pool, progress};
use crate::cli::{CliError, DigestFormatArg, LearnArgs, RunArgs};
use crate::term::escape;

/// Read buffer: large sequential reads of a big index.
const READ_BUF: usize = 1 << 20;

/// The progress bar while grouped captures are learned.
const LEARNING: &str =
    "{spinner} {elapsed_precise} [{wide_bar}] {human_pos}/{human_len} captures learned eta {eta}";

/// The zstd level stdin is kept at while it is streamed (a fast one).
const TEE_LEVEL: i32 = -1;

/// The captures of `--digests` learned: the input's name and what was found.
pub fn learn_digests(
    a: &LearnArgs,
    path: &Path,
    opts: &DigestOptions,
) -> Result<(String, Learnt), CliError> {
    let name = path.display().to_string();
    let fmt = format_of(&name, a.input_format)?;
    let input = Input::parse(path);
    let bar = progress(
        input.size_hint().filter(|_| !compressed(path)),
        &run_args(a),
    );
    let mut tick = |n: u64| {
        if let Some(b) = &bar {
            b.inc(n);
        }
    };
    // Grouped input: the bytes read, then the captures learned.
    let mut step = |s: Step| {
        let Some(b) = &bar else {
            return;
        };
        match s {
            Step::Read(n) | Step::Learned(n) => b.inc(n),
            Step::Grouped(n) => {
                b.reset();
                b.set_length(n);
                if let Ok(style) = ProgressStyle::with_template(LEARNING) {
                    b.set_style(style);
                }
            }
        }
    };
    let pool = pool(a.threads)?;
    let read_err = |e: &std::io::Error| CliError::io(format!("cannot read {}", escape(&name)), e);
    let index = match fmt {
        DigestFormat::Cdx => Some(Format::Cdx),
        DigestFormat::Cdxj => Some(Format::Cdxj),
        DigestFormat::Csv | DigestFormat::Tsv => None,
    };
    if let Some(dir) = &a.temp_dir {
        batch::check_temp_dir(dir)?;
    }
    let memory = a.memory.unwrap_or_else(batch::default_memory);
    let mut groups = SpillGroups::new(memory, a.temp_dir.clone());
    // The pooled pass's summaries: each of its groupings holds half of the
    // budget, and at most two of them (or one and the captures' merge) at
    // once.
    let new = || -> Box<dyn Grouping + Send> {
        Box::new(SpillGroups::new(memory / 2, a.temp_dir.clone()))
    };
    let mut r = open(&input)?;
    let Some(f) = index else {
        let l = pool.install(|| learn_unsorted(r, fmt, opts, &mut groups, &new, &mut step));
        let l = l.map_err(|e| read_err(&e));
        spilled(&groups);
        return done(name, l, &bar);
    };
    // Stdin cannot be read again: what the pass reads is kept, compressed,
    // in an unlinked temporary file, to be grouped if it is not sorted.
    let stdin = matches!(input, Input::Stdin);
    let mut tee = match stdin {
        true => Some(
            zstd::Encoder::new(BufWriter::new(temp_file(a)?), TEE_LEVEL)
                .map_err(|e| CliError::io("cannot compress to a temporary file".into(), &e))?,
        ),
        false => None,
    };
    let streamed = pool.install(|| {
        let t = tee.as_mut().map(|t| t as &mut dyn Write);
        stream::learn_sorted_with(&mut r, f, opts, CHUNK_BYTES, t, &new, &mut tick)
    });
    let (origin, line) = match streamed {
        Ok(l) => return done(name, Ok(l), &bar),
        Err(StreamError::Io(e)) => return Err(read_err(&e)),
        Err(StreamError::Unsorted { origin, line }) => (origin, line),
    };
    note(format_args!(
        "{} is not sorted by host (the captures of {} reappear at line {line}): \
         reading it again, grouped by origin (within --memory)",
        escape(&name),
        escape(&origin)
    ));
    if let Some(b) = &bar {
        b.reset();
    }
    let l = match tee {
        Some(tee) => {
            let tmp_err = |e: &std::io::Error| {
                CliError::io("cannot read back stdin from a temporary file".into(), e)
            };
            let mut tmp = tee
                .finish()
                .and_then(|w| w.into_inner().map_err(|e| e.into_error()))
                .map_err(|e| tmp_err(&e))?;
            tmp.rewind().map_err(|e| tmp_err(&e))?;
            let kept = zstd::Decoder::new(tmp).map_err(|e| tmp_err(&e))?;
            let again = BufReader::with_capacity(READ_BUF, kept.chain(r));
            pool.install(|| learn_unsorted(again, fmt, opts, &mut groups, &new, &mut step))
        }
        None => {
            let r = open(&input)?;
            pool.install(|| learn_unsorted(r, fmt, opts, &mut groups, &new, &mut step))
        }
    };
    let l = l.map_err(|e| read_err(&e));
    spilled(&groups);
    done(name, l, &bar)
}

/// Say how much the grouping wrote to disk, if anything.
fn spilled(g: &SpillGroups) {
    if g.runs_written > 0 {
        note(format_args!(
            "grouping by origin past --memory: {} sorted run(s), {:.1} MB written to the temporary directory",
            g.runs_written,
            g.bytes_written as f64 / 1e6
        ));
    }
}

/// The end of a run: the progress bar cleared, and what the pooled pass
/// wrote to disk said.
fn done(
    name: String,
    l: Result<Learnt, CliError>,
    bar: &Option<indicatif::ProgressBar>,
) -> Result<(String, Learnt), CliError> {
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let l = l?;
    let (runs, bytes) = l.rules.spilled;
    if runs > 0 {
        note(format_args!(
            "pooling across origins past --memory: {runs} sorted run(s), {:.1} MB written to the temporary directory",
            bytes as f64 / 1e6
        ));
    }
    Ok((name, l))
}

/// An unlinked temporary file in --temp-dir.
fn temp_file(a: &LearnArgs) -> Result<std::fs::File, CliError> {
    batch::unnamed_temp_file(a.temp_dir.as_deref())
        .map_err(|e| CliError::io("cannot create a temporary file".into(), &e))
}

/// The input, decompressed, buffered.
fn open(input: &Input) -> Result<BufReader<Box<dyn std::io::Read + Send>>, CliError> {
    let opened = batch::open_all(std::slice::from_ref(input))?;
    let Some(opened) = opened.into_iter().next() else {
        return Err(CliError::msg("no input"));
    };
    let (stream, _) = batch::open_stream(opened, None)?;
    Ok(BufReader::with_capacity(READ_BUF, stream))
}

/// Whether the file starts with a gzip or zstd magic number (its size
/// then says nothing about the bytes read).
fn compressed(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| head.starts_with(&[0x1f, 0x8b]) || head == [0x28, 0xb5, 0x2f, 0xfd])
}

/// `--input-format`, or the format named by the file's extension.
fn format_of(name: &str, format: Option<DigestFormatArg>) -> Result<DigestFormat, CliError> {
    Ok(match format {
        Some(DigestFormatArg::Cdx) => DigestFormat::Cdx,
        Some(DigestFormatArg::Cdxj) => DigestFormat::Cdxj,
        Some(DigestFormatArg::Csv) => DigestFormat::Csv,
        Some(DigestFormatArg::Tsv) => DigestFormat::Tsv,
        None => DigestFormat::from_path(name).ok_or_else(|| {
            CliError::msg(format!(
                "cannot tell the format of {} from its name: give --input-format cdx, cdxj, csv or tsv",
                escape(name)
            ))
        })?,
    })
}

/// The flags of a run that the progress bar reads, as `dedup` has them.
fn run_args(a: &LearnArgs) -> RunArgs {
    RunArgs {
        inputs: a.digests.iter().cloned().collect(),
        output: None,
        rejects: None,
        strict: false,
        max_line_bytes: 0,
        threads: a.threads,
        chunk_size: 0,
        mmap: false,
        quiet: false,
        progress: a.progress,
        no_progress: a.no_progress,
        input: default_input(),
    }
}
