//! One module per command; this one holds what they share: flags → plain
//! configurations ([`normalizer`], [`prep`], [`format`]), the worker pool,
//! the rejects output and the summary on stderr.

mod check;
mod dedup;
mod info;
mod learn_digests;
mod links;
mod map;
mod seen;

use std::borrow::Cow;
use std::fmt;
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use irinorm::batch::{
    self, csv_field, csv_u64, Column, Format, Input, KeyFn, Observer, Opened, OutputFile, Prep,
    PrepConfig, RecordFormat, Reject, RejectReason, Stats,
};
use irinorm::learn::{Learned, RedirectTally};
use irinorm::{surt_ia, Level, Normalizer, Options, ProtocolRules, Rules};

use crate::cli::{
    Cli, CliError, Command, FormArg, InputArgs, InputFormatArg, KeyArgs, LevelArg, RunArgs,
};
use crate::term::escape;

/// How many rejected lines are shown on stderr without `--rejects`.
pub const PREVIEW: usize = 5;

/// Fewest rejected lines for the warning of a mostly rejected run: one or
/// two bad lines of a tiny input say nothing about the input as a whole.
const MOSTLY_REJECTED_MIN: u64 = 3;

/// Execute a parsed command line; the exit status on success.
pub fn run(cli: Cli) -> Result<i32, CliError> {
    match cli.command {
        Command::Dedup(a) => dedup::run(&a),
        Command::Normalize(a) => map::normalize(&a),
        Command::Convert(a) => map::convert(&a),
        Command::Compare(a) => info::compare(&a),
        Command::Rules => info::rules(),
        Command::Learn(a) => info::learn(&a),
        Command::Links(a) => links::run(&a),
        Command::Seen(a) => seen::run(&a),
        Command::Check(a) => check::run(&a),
    }
}

/// The normalizer of `--level`, `--form`, `--nfc`, `--base`, `--rules`,
/// `--redirects`, `--learned`.
pub fn normalizer(k: &KeyArgs) -> Result<Normalizer, CliError> {
    let level: Level = k.level.into();
    if level != Level::Protocol
        && (k.rules.is_some() || k.redirects.is_some() || k.learned.is_some())
    {
        return Err(CliError::msg(
            "--rules, --redirects and --learned need --level protocol",
        ));
    }
    let form = k.form.ladder_form().ok_or_else(|| {
        CliError::msg(
            "--form surt-ia is the Internet Archive's canonicalization, not a form of the ladder",
        )
    })?;
    let mut n = Normalizer::new(Options {
        level,
        form,
        nfc: k.nfc,
    })
    .with_idn_display(check::display_policy(&k.display)?);
    if level == Level::Protocol {
        let rules = match &k.rules {
            Some(list) => Rules::parse_list(list)
                .map_err(|e| CliError::msg(format!("invalid --rules {list}: {e}")))?,
            None => Rules::DEFAULT,
        };
        n = n.with_protocol(Arc::new(ProtocolRules::new(rules, learned_rules(k)?)));
    }
    match &k.base {
        Some(b) => n
            .with_base(b)
            .map_err(|e| CliError::msg(format!("invalid --base {}: {e}", escape(b)))),
        None => Ok(n),
    }
}

/// The rules of `--redirects` and `--learned` (both: merged, see
/// [`Learned::merge`]).
fn learned_rules(k: &KeyArgs) -> Result<Option<Learned>, CliError> {
    let from_redirects = match &k.redirects {
        Some(path) => Some(learn_from(path, k.min_evidence)?),
        None => None,
    };
    let from_file = match &k.learned {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| CliError::io(format!("cannot read {}", path.display()), &e))?;
            Some(
                Learned::from_tsv(&text)
                    .map_err(|e| CliError::msg(format!("{}: {}", path.display(), escape(&e))))?,
            )
        }
        None => None,
    };
    Ok(match (from_redirects, from_file) {
        (Some(a), Some(b)) => Some(a.merge(b)),
        // A file's rows judged together: rows that contradict each other
        // (slash added and removed, an index with a slash rule, a `www.`
        // cycle) are set aside, as when they were learned.
        (None, Some(b)) => Some(b.merge(Learned::default())),
        (a, None) => a,
    })
}

/// The key function of a run: `prep`, then the ladder's key (`--level`,
/// `--form`, …), or with `--form surt-ia` the Internet Archive's SURT
/// ([`irinorm::surt_ia`]), which replaces the ladder.
pub fn key_function(k: &KeyArgs, prep: Prep) -> Result<Box<KeyFn<'static>>, CliError> {
    if k.form != FormArg::SurtIa {
        let n = normalizer(k)?;
        return Ok(Box::new(batch::ladder_key_fn(prep, n)));
    }
    if k.level != LevelArg::Scheme
        || k.nfc
        || k.rules.is_some()
        || k.redirects.is_some()
        || k.learned.is_some()
    {
        return Err(CliError::msg(
            "--form surt-ia is the Internet Archive's canonicalization, not a rung of the \
             ladder: it takes no --level, --nfc, --rules, --redirects or --learned",
        ));
    }
    // --base: resolved (RFC 3986 §5.2) at the string rung, nothing else.
    let base = match &k.base {
        Some(b) => Some(
            Normalizer::new(Options {
                level: Level::String,
                ..Options::default()
            })
            .with_base(b)
            .map_err(|e| CliError::msg(format!("invalid --base {}: {e}", escape(b))))?,
        ),
        None => None,
    };
    Ok(Box::new(batch::key_fn(
        prep,
        move |t: &str| -> irinorm::Result<Cow<'_, str>> {
            let resolved = match &base {
                Some(n) => n.key(t)?,
                None => Cow::Borrowed(t),
            };
            surt_ia(&resolved).map(Cow::Owned).map_err(|e| {
                irinorm::Error::new(0, irinorm::ErrorKind::Other(format!("no IA SURT: {e}")))
            })
        },
    )))
}

/// Read a redirect log (CSV from,to) and learn from it (3987bis §5.3.4).
pub fn learn_from(path: &Path, min_evidence: usize) -> Result<Learned, CliError> {
    Ok(Learned::from_tally(redirect_tally(path)?, min_evidence))
}

/// The redirects of a redirect log (CSV from,to), tallied as they are read.
pub fn redirect_tally(path: &Path) -> Result<RedirectTally, CliError> {
    let f = std::fs::File::open(path)
        .map_err(|e| CliError::io(format!("cannot open {}", path.display()), &e))?;
    RedirectTally::from_csv(std::io::BufReader::new(f))
        .map_err(|e| CliError::msg(format!("{}: {}", path.display(), escape(&e))))
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

/// The `--input-format`, else the one inferred from the first input's
/// name (`.csv`/`.tsv`/`.cdx`/`.cdxj`, also followed by `.gz`/`.zst`).
pub fn input_format(run: &RunArgs) -> Option<InputFormatArg> {
    let inferred = || {
        let name = run.inputs.first()?.to_str()?.to_ascii_lowercase();
        let name = name
            .strip_suffix(".gz")
            .or_else(|| name.strip_suffix(".zst"))
            .unwrap_or(&name);
        match name.rsplit_once('.')?.1 {
            "csv" => Some(InputFormatArg::Csv),
            "tsv" => Some(InputFormatArg::Tsv),
            "cdx" => Some(InputFormatArg::Cdx),
            "cdxj" => Some(InputFormatArg::Cdxj),
            _ => None,
        }
    };
    run.input.input_format.or_else(inferred)
}

/// Lines, CDX/CDXJ lines or CSV/TSV records (see [`input_format`]).
pub fn format(run: &RunArgs) -> Result<Format, CliError> {
    let a = &run.input;
    let fmt = input_format(run);
    let columns = a.column.is_some() || a.base_column.is_some();
    let delimiter = match fmt {
        None | Some(InputFormatArg::Lines) if columns => {
            return Err(CliError::msg(
                "--column and --base-column need csv or tsv input (--input-format)",
            ))
        }
        None | Some(InputFormatArg::Lines) => return Ok(Format::Lines),
        Some(f @ (InputFormatArg::Cdx | InputFormatArg::Cdxj)) => {
            if columns || a.split_spaces {
                return Err(CliError::msg(
                    "cdx/cdxj input: the reference is each record's original URL; \
                     --column, --base-column and --split-spaces do not apply",
                ));
            }
            return Ok(Format::Cdx(if f == InputFormatArg::Cdx {
                irinorm::cdx::Format::Cdx
            } else {
                irinorm::cdx::Format::Cdxj
            }));
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
    causes: Causes,
}

/// The rejects tallied by what usually causes them, for the warning of a
/// run that rejects most of its input ([`Report::warning`]).
#[derive(Default)]
struct Causes {
    /// The input format and options that shape the advice.
    format: Option<InputFormatArg>,
    column: Option<String>,
    max_line_bytes: u64,
    /// Not UTF-8, or control bytes: binary input, or another charset.
    binary: u64,
    /// CSV/TSV records without the --column (or --base-column) field.
    no_column: u64,
    too_long: u64,
    /// Relative references and no base.
    relative: u64,
    /// Lines (read as lines) holding a comma or a tab: CSV/TSV records.
    delimited: u64,
    /// Lines holding spaces: CDX, several references, or hrefs as written.
    spaces: u64,
}

impl Causes {
    fn count(&mut self, r: &Reject) {
        let reason = r.reason.to_string();
        match &r.reason {
            RejectReason::InvalidUtf8 { .. } => self.binary += 1,
            RejectReason::TooLong { .. } => self.too_long += 1,
            _ if reason.starts_with("control ") => self.binary += 1,
            _ if reason.contains("row has no column") => self.no_column += 1,
            _ if reason.starts_with("relative reference without a base") => self.relative += 1,
            _ => {}
        }
        let lines = matches!(self.format, None | Some(InputFormatArg::Lines));
        if lines && (r.input.contains(',') || r.input.contains('\t')) {
            self.delimited += 1;
        } else if r.input.trim().contains(' ') {
            self.spaces += 1;
        }
    }

    /// The likely cause of `n` rejects, if one kind of them is at least
    /// half, with the option that fixes it.
    fn likely(&self, n: u64) -> String {
        let half = |k: u64| k * 2 >= n && k > 0;
        let col = self.column.as_deref().unwrap_or("1");
        if half(self.binary) {
            format!(
                "the input looks binary or in another charset ({} lines not UTF-8 or with \
                 control bytes): check the file, or give its charset with --encoding",
                self.binary
            )
        } else if half(self.no_column) {
            format!(
                "{} records have no column {col}: check --column (by name or 1-based \
                 index), --no-header and the delimiter (--input-format csv or tsv)",
                self.no_column
            )
        } else if half(self.too_long) {
            format!(
                "{} lines are longer than --max-line-bytes ({}): raise it, e.g. \
                 --max-line-bytes 1M",
                self.too_long, self.max_line_bytes
            )
        } else if half(self.relative) {
            format!(
                "{} relative references and no base: give --base IRI (or, for CSV/TSV, \
                 --base-column)",
                self.relative
            )
        } else if half(self.delimited) {
            format!(
                "{} lines hold commas or tabs, as CSV/TSV records do: give --input-format \
                 csv or tsv and --column",
                self.delimited
            )
        } else if half(self.spaces) {
            format!(
                "{} lines hold spaces: a CDX index needs --input-format cdx or cdxj; several \
                 references per line, --split-spaces; links as written in HTML, --mode web",
                self.spaces
            )
        } else {
            "check --input-format, --column and --mode".to_owned()
        }
    }
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
            causes: Causes {
                format: input_format(run),
                column: run.input.column.clone(),
                max_line_bytes: run.max_line_bytes,
                ..Causes::default()
            },
        })
    }

    /// A warning when most of the lines that are not blank were rejected
    /// (at least [`MOSTLY_REJECTED_MIN`] of them): the run did not do what
    /// was meant, and the warning names the likely cause.
    pub fn warning(&self, stats: &Stats) -> Option<String> {
        let n = stats.rejected;
        let read = stats.accepted + n;
        if n < MOSTLY_REJECTED_MIN || n * 2 <= read {
            return None;
        }
        Some(format!(
            "warning: {n} of {read} lines ({:.0} %) were rejected; likely cause: {} \
             (--strict makes such a run exit 1)",
            n as f64 * 100.0 / read as f64,
            self.causes.likely(n)
        ))
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
        self.causes.count(r);
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
                    let hint = match r.reason {
                        RejectReason::TooLong { .. } => " (raise --max-line-bytes)",
                        _ => "",
                    };
                    note(format_args!(
                        "rejected {}:{}: {}{hint}: {}",
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
    let repairs = batch::collect_repairs(pool);
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

/// The inputs, their names and total size. Reading a terminal is said on
/// stderr: a command that waits there without a word looks hung.
pub fn inputs(run: &RunArgs) -> (Vec<Input>, Vec<String>, Option<u64>) {
    let inputs = Input::from_args(&run.inputs);
    if !run.quiet
        && inputs.iter().any(|i| matches!(i, Input::Stdin))
        && std::io::stdin().is_terminal()
    {
        note(format_args!(
            "reading from stdin (the terminal): type or paste lines, end with Ctrl-D; \
             or give input files"
        ));
    }
    let names = inputs.iter().map(Input::name).collect();
    let total = inputs.iter().map(Input::size_hint).sum::<Option<u64>>();
    (inputs, names, total)
}

/// The run's inputs, opened (mapped with `--mmap`).
pub fn open(run: &RunArgs, inputs: &[Input]) -> Result<Vec<Opened>, CliError> {
    Ok(if run.mmap {
        // SAFETY: `--mmap` is the user's word that the files stay as they
        // are while the run reads them (its help says what breaks if not).
        unsafe { batch::open_all_mapped(inputs)? }
    } else {
        batch::open_all(inputs)?
    })
}

/// Bytes per batch read ahead: two chunks per worker, and at least 4 (8
/// MB by default). The 16 MB batches two workers had before made `dedup
/// -j2` 4 % and `normalize -j2` 10 % slower; 4 MB ones were no faster
/// (BENCHMARKS.md §28).
pub fn batch_bytes(run: &RunArgs, threads: usize) -> usize {
    (run.chunk_size as usize)
        .saturating_mul(threads.max(2) * 2)
        .clamp(16 << 10, 64 << 20)
}

/// The engine's settings for a `run_map` job (`normalize`, `convert`,
/// `check`) from the run's options, on `pool`, writing `output`.
pub fn map_config(
    run: &RunArgs,
    pool: &Arc<rayon::ThreadPool>,
    output: batch::MapOutput,
) -> batch::MapConfig {
    batch::MapConfig {
        chunk_size: run.chunk_size as usize,
        max_line_bytes: run.max_line_bytes as usize,
        charset: run.input.encoding,
        batch_bytes: batch_bytes(run, pool.current_num_threads()),
        pool: Some(pool.clone()),
        output,
    }
}

/// The exit status of a run that completed.
pub fn exit(run: &RunArgs, stats: &Stats) -> i32 {
    i32::from(run.strict && stats.rejected > 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn run_args(args: &[&str]) -> RunArgs {
        let mut v = vec!["irinorm", "normalize"];
        v.extend(args);
        match Cli::parse_from(v).command {
            Command::Normalize(a) => a.run,
            _ => unreachable!(),
        }
    }

    #[test]
    fn input_format_from_names_and_flag() {
        let f = |args: &[&str]| input_format(&run_args(args));
        assert_eq!(f(&["x.cdx"]), Some(InputFormatArg::Cdx));
        assert_eq!(f(&["X.CDXJ.gz"]), Some(InputFormatArg::Cdxj));
        assert_eq!(f(&["a/b.cdx.zst"]), Some(InputFormatArg::Cdx));
        assert_eq!(f(&["u.tsv"]), Some(InputFormatArg::Tsv));
        assert_eq!(f(&["u.txt"]), None);
        assert_eq!(f(&["cdx"]), None);
        assert_eq!(
            f(&["u.txt", "--input-format", "cdxj"]),
            Some(InputFormatArg::Cdxj)
        );
        assert_eq!(
            format(&run_args(&["x.cdxj"])).unwrap(),
            Format::Cdx(irinorm::cdx::Format::Cdxj)
        );
        for bad in [
            &["x.cdx", "--column", "2"][..],
            &["x.cdx", "--split-spaces"][..],
        ] {
            let e = format(&run_args(bad)).unwrap_err().to_string();
            assert!(e.contains("original URL"), "{bad:?}: {e}");
        }
    }

    #[test]
    fn surt_ia_refuses_the_ladder_options() {
        let key_args = |args: &[&str]| {
            let mut v = vec!["irinorm", "normalize", "--form", "surt-ia"];
            v.extend(args);
            match Cli::parse_from(v).command {
                Command::Normalize(a) => a.key,
                _ => unreachable!(),
            }
        };
        let key = key_function(&key_args(&[]), Prep::default()).unwrap();
        assert_eq!(
            key("http://www.archive.org/goo/?b&a", None).unwrap(),
            "org,archive)/goo?a&b"
        );
        let key = key_function(
            &key_args(&["--base", "http://www.A.org/x/"]),
            Prep::default(),
        )
        .unwrap();
        assert_eq!(key("Goo?b&a", None).unwrap(), "org,a)/x/goo?a&b");
        for bad in [
            &["--level", "protocol"][..],
            &["--level", "syntax"][..],
            &["--nfc"][..],
        ] {
            let e = key_function(&key_args(bad), Prep::default())
                .err()
                .unwrap()
                .to_string();
            assert!(e.contains("not a rung"), "{bad:?}: {e}");
        }
    }
}
