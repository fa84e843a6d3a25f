//! `learn --digests`: reading the captures (decompressed like every input)
//! and learning their content rules (3987bis §5.3.4) — one streaming pass
//! over a CDX/CDXJ index sorted by SURT key, else grouped by origin in
//! memory — with a progress bar as `dedup` shows it.

use std::io::BufReader;
use std::path::Path;

use irinorm::batch::{self, Input};
use irinorm::cdx::Format;
use irinorm::learn::digest::{DigestFormat, DigestOptions};
use irinorm::learn::stream::{self, Learnt, StreamError};

use super::info::default_input;
use super::{note, pool, progress};
use crate::cli::{CliError, DigestFormatArg, LearnArgs, RunArgs};
use crate::term::escape;

/// Read buffer: large sequential reads of a big index.
const READ_BUF: usize = 1 << 20;

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
    let pool = pool(a.threads)?;
    let read_err = |e: &std::io::Error| CliError::io(format!("cannot read {}", escape(&name)), e);
    let index = match fmt {
        DigestFormat::Cdx => Some(Format::Cdx),
        DigestFormat::Cdxj => Some(Format::Cdxj),
        DigestFormat::Csv | DigestFormat::Tsv => None,
    };
    let mut learnt = None;
    if let Some(f) = index {
        let r = open(&input)?;
        match pool.install(|| stream::learn_sorted(r, f, opts, &mut tick)) {
            Ok(l) => learnt = Some(l),
            Err(StreamError::Io(e)) => return Err(read_err(&e)),
            Err(StreamError::Unsorted { origin, line }) => {
                if matches!(input, Input::Stdin) {
                    return Err(CliError::msg(format!(
                        "stdin is not sorted by host: the captures of {} reappear at line \
                         {line}; sort the index by SURT key (sort -k1,1), or give it as a \
                         file to have it grouped in memory",
                        escape(&origin)
                    )));
                }
                note(format_args!(
                    "{} is not sorted by host (the captures of {} reappear at line {line}): \
                     reading it again, grouped by origin in memory",
                    escape(&name),
                    escape(&origin)
                ));
                if let Some(b) = &bar {
                    b.reset();
                }
            }
        }
    }
    let learnt = match learnt {
        Some(l) => l,
        None => {
            let r = open(&input)?;
            pool.install(|| stream::learn_grouped(r, fmt, opts, &mut tick))
                .map_err(|e| read_err(&e))?
        }
    };
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    Ok((name, learnt))
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
