//! One module per command; this one holds what they share: flags → plain
//! configurations ([`normalizer`], [`prep`], [`format`]), the worker pool,
//! the rejects output and the summary on stderr.

mod dedup;
mod info;
mod map;

use std::fmt;
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use irinorm::batch::prep::{Prep, PrepConfig};
use irinorm::batch::sink::{csv_field, csv_u64, OutputFile};
use irinorm::batch::source::{Column, Input};
use irinorm::batch::{Format, Observer, RecordFormat, Reject, Stats};
use irinorm::ladder::protocol::{ProtocolRules, Rules};
use irinorm::learn::Learned;
use irinorm::{Level, Normalizer, Options};

use crate::cli::{Cli, CliError, Command, InputArgs, InputFormatArg, KeyArgs, RunArgs};
use crate::term::escape;

/// How many rejected lines are shown on stderr without `--rejects`.
pub const PREVIEW: usize = 5;

/// Execute a parsed command line; the exit status on success.
pub fn run(cli: Cli) -> Result<i32, CliError> {
    match cli.command {
        Command::Dedup(a) => dedup::run(&a),
        Command::Normalize(a) => map::normalize(&a),
        Command::Convert(a) => map::convert(&a),
        Command::Compare(a) => info::compare(&a),
        Command::Rules => info::rules(),
        Command::Learn(a) => info::learn(&a),
    }
}

/// The normalizer of `--level`, `--form`, `--nfc`, `--base`, `--rules`,
/// `--redirects`.
pub fn normalizer(k: &KeyArgs) -> Result<Normalizer, CliError> {
    let level: Level = k.level.into();
    if level != Level::Protocol && (k.rules.is_some() || k.redirects.is_some()) {
        return Err(CliError::msg(
            "--rules and --redirects need --level protocol",
        ));
    }
    let mut n = Normalizer::new(Options {
        level,
        form: k.form.into(),
        nfc: k.nfc,
    });
    if level == Level::Protocol {
        let rules = match &k.rules {
            Some(list) => Rules::parse_list(list)
                .map_err(|e| CliError::msg(format!("invalid --rules {list}: {e}")))?,
            None => Rules::DEFAULT,
        };
        let learned = match &k.redirects {
            Some(path) => Some(learn_from(path, k.min_evidence)?),
            None => None,
        };
        n = n.with_protocol(Arc::new(ProtocolRules::new(rules, learned)));
    }
    match &k.base {
        Some(b) => n
            .with_base(b)
            .map_err(|e| CliError::msg(format!("invalid --base {}: {e}", escape(b)))),
        None => Ok(n),
    }
}

/// Read a redirect log (CSV from,to) and learn from it (3987bis §5.3.4).
pub fn learn_from(path: &Path, min_evidence: usize) -> Result<Learned, CliError> {
    let f = std::fs::File::open(path)
        .map_err(|e| CliError::io(format!("cannot open {}", path.display()), &e))?;
    Learned::from_csv_with(std::io::BufReader::new(f), min_evidence)
        .map_err(|e| CliError::msg(format!("{}: {e}", path.display())))
}

/// The preparation of `--mode`, `--decode-entities`, `--query-encoding`,
/// `--split-spaces`. In web mode `base` is parsed by the URL Standard (a
/// usage error if it rejects it), and at the string rung (`level`) the key
/// is the `href` itself.
pub fn prep(a: &InputArgs, base: Option<&str>, level: Option<Level>) -> Result<Prep, CliError> {
    let prep = Prep::new(
        &PrepConfig {
            mode: a.mode,
            decode_entities: a.decode_entities,
            query_encoding: a.query_encoding,
            split_spaces: a.split_spaces,
        },
        base,
    )
    .map_err(|e| {
        CliError::msg(format!(
            "invalid --base {}: {e}",
            escape(base.unwrap_or(""))
        ))
    })?;
    Ok(prep.href_is_key(level == Some(Level::String)))
}

/// Lines or CSV/TSV records: `--input-format`, else inferred from the
/// first input's name (`.csv`/`.tsv`, also followed by `.gz`/`.zst`).
pub fn format(run: &RunArgs) -> Result<Format, CliError> {
    let inferred = || {
        let name = run.inputs.first()?.to_str()?.to_ascii_lowercase();
        let name = name
            .strip_suffix(".gz")
            .or_else(|| name.strip_suffix(".zst"))
            .unwrap_or(&name);
        if name.ends_with(".csv") {
            Some(InputFormatArg::Csv)
        } else if name.ends_with(".tsv") {
            Some(InputFormatArg::Tsv)
        } else {
            None
        }
    };
    let a = &run.input;
    let delimiter = match a.input_format.or_else(inferred) {
        None | Some(InputFormatArg::Lines) => {
            if a.column.is_some() || a.base_column.is_some() {
                return Err(CliError::msg(
                    "--column and --base-column need csv or tsv input (--input-format)",
                ));
            }
            return Ok(Format::Lines);
        }
        Some(InputFormatArg::Csv) => b',',
        Some(InputFormatArg::Tsv) => b'\t',
    };
    let column = match &a.column {
        Some(c) => Column::parse(c)?,
        None => Column::Index(0),
    };
    let base_column = a.base_column.as_deref().map(Column::parse).transpose()?;
    Ok(Format::Records(RecordFormat {
        delimiter,
        header: !a.no_header,
        column,
        base_column,
    }))
}

/// The worker pool of `--threads` (default: all cores).
pub fn pool(threads: Option<usize>) -> Result<rayon::ThreadPool, CliError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .thread_name(|i| format!("irinorm-{i}"))
        .build()
        .map_err(|e| CliError::msg(format!("cannot start worker threads: {e}")))
}

/// Two outputs must not name one file: the second would silently replace
/// the first.
pub fn distinct_outputs(outputs: &[(&str, Option<&Path>)]) -> Result<(), CliError> {
    let real = |p: &Path| -> Option<std::path::PathBuf> {
        if p.as_os_str() == "-" {
            return None;
        }
        let dir = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        Some(dir.join(p.file_name()?))
    };
    let named: Vec<(&str, std::path::PathBuf)> = outputs
        .iter()
        .filter_map(|(flag, p)| Some((*flag, real((*p)?)?)))
        .collect();
    for (i, (f1, p1)) in named.iter().enumerate() {
        for (f2, p2) in &named[i + 1..] {
            if p1 == p2 {
                return Err(CliError::msg(format!(
                    "{f1} and {f2} name the same file {}",
                    p1.display()
                )));
            }
        }
    }
    Ok(())
}

/// Where rejected lines go (a `--rejects` CSV, or a preview on stderr), and
/// the progress bar: the engine's [`Observer`].
pub struct Report<'a> {
    names: &'a [String],
    file: Option<OutputFile>,
    shown: usize,
    quiet: bool,
    row: Vec<u8>,
    bar: Option<ProgressBar>,
}

impl<'a> Report<'a> {
    pub fn new(run: &RunArgs, names: &'a [String], total: Option<u64>) -> Result<Self, CliError> {
        let file = match &run.rejects {
            Some(p) => {
                let mut f = OutputFile::create(Some(p))?;
                f.write(b"file,line,input,error\n")?;
                Some(f)
            }
            None => None,
        };
        Ok(Report {
            names,
            file,
            shown: 0,
            quiet: run.quiet,
            row: Vec::new(),
            bar: progress(total, run),
        })
    }

    /// Close the rejects file (moved into place) and the progress bar.
    pub fn finish(self) -> Result<bool, CliError> {
        if let Some(pb) = &self.bar {
            pb.finish_and_clear();
        }
        match self.file {
            Some(f) => f.finish().map(|()| true),
            None => Ok(false),
        }
    }
}

impl Observer for Report<'_> {
    fn progress(&mut self, bytes: u64) {
        if let Some(pb) = &self.bar {
            pb.inc(bytes);
        }
    }

    fn reject(&mut self, r: &Reject) -> Result<(), CliError> {
        let name = &self.names[r.file];
        match &mut self.file {
            Some(f) => {
                self.row.clear();
                csv_field(&mut self.row, name.as_bytes());
                self.row.push(b',');
                csv_u64(&mut self.row, r.line);
                self.row.push(b',');
                csv_field(&mut self.row, r.input.as_bytes());
                self.row.push(b',');
                csv_field(&mut self.row, r.reason.to_string().as_bytes());
                self.row.push(b'\n');
                f.write(&self.row)
            }
            None => {
                if self.shown < PREVIEW && !self.quiet {
                    self.shown += 1;
                    let shown: String = r.input.chars().take(100).collect();
                    note(format_args!(
                        "rejected {}:{}: {}: {}",
                        escape(name),
                        r.line,
                        escape(&r.reason.to_string()),
                        escape(&shown)
                    ));
                }
                Ok(())
            }
        }
    }
}

/// One line on stderr, prefixed `irinorm: `; a closed stderr is ignored.
pub fn note(args: fmt::Arguments<'_>) {
    let _ = writeln!(std::io::stderr(), "irinorm: {args}");
}

/// The summary line of a run.
pub fn summary(stats: &Stats, extra: &str, start: Instant, rejects_to_file: bool) {
    let secs = start.elapsed().as_secs_f64();
    let mbps = if secs > 0.0 {
        stats.bytes as f64 / 1e6 / secs
    } else {
        0.0
    };
    let more = if stats.rejected > PREVIEW as u64 && !rejects_to_file {
        format!(" (first {PREVIEW} shown; --rejects FILE lists all)")
    } else {
        String::new()
    };
    note(format_args!(
        "{} lines: {} blank, {} accepted, {} rejected{more}{extra}; {secs:.3} s, {mbps:.1} MB/s",
        stats.lines, stats.blank, stats.accepted, stats.rejected
    ));
}

/// The repairs line of the summary, if anything was repaired.
pub fn repairs_note(pool: &rayon::ThreadPool, quiet: bool) {
    let repairs = irinorm::batch::prep::collect_repairs(pool);
    if !quiet && !repairs.is_empty() {
        note(format_args!("repairs: {repairs}"));
    }
}

/// A progress bar on stderr, if wanted (see `--progress`).
fn progress(total: Option<u64>, run: &RunArgs) -> Option<ProgressBar> {
    let want = if run.progress {
        true
    } else if run.no_progress || run.quiet {
        false
    } else {
        std::io::stderr().is_terminal() && total.is_some_and(|t| t > 64 << 20)
    };
    if !want {
        return None;
    }
    let pb = ProgressBar::with_draw_target(total, ProgressDrawTarget::stderr());
    let template = if total.is_some() {
        "{spinner} {elapsed_precise} [{wide_bar}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}"
    } else {
        "{spinner} {elapsed_precise} {bytes} {bytes_per_sec}"
    };
    if let Ok(style) = ProgressStyle::with_template(template) {
        pb.set_style(style);
    }
    Some(pb)
}

/// The inputs, their names and total size.
pub fn inputs(run: &RunArgs) -> (Vec<Input>, Vec<String>, Option<u64>) {
    let inputs = Input::from_args(&run.inputs);
    let names = inputs.iter().map(Input::name).collect();
    let total = inputs.iter().map(Input::size_hint).sum::<Option<u64>>();
    (inputs, names, total)
}

/// Bytes per batch read ahead: a few chunks per worker.
pub fn batch_bytes(run: &RunArgs, threads: usize) -> usize {
    (run.chunk_size as usize)
        .saturating_mul(threads.max(1) * 4)
        .clamp(16 << 10, 64 << 20)
}

/// The exit status of a run that completed.
pub fn exit(run: &RunArgs, stats: &Stats) -> i32 {
    i32::from(run.strict && stats.rejected > 0)
}
