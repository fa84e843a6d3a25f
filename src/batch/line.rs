//! The commands: per-line preprocessing, the streaming map (`normalize`,
//! `convert`), and [`run`], which executes a parsed command line.
//!
//! Every line of every command goes through [`process_line`] — strip CR,
//! blank check, length limit, UTF-8 check, key function — so that future
//! input features (CSV columns, charsets, `--mode`) have one place to hook
//! in. Commands are generic over the key function (`Normalizer::key`,
//! `to_uri`, `to_iri`, or a fake one in tests).

use std::borrow::Cow;
use std::fmt;
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;

use crate::cli::{
    Cli, CliError, Command, CompareArgs, FormArg, FormatArg, KeyArgs, LearnArgs, RunArgs, SortArg,
};
use crate::dedup;
use crate::input::{self, BatchReader, Spec};
use crate::ladder::protocol::{ProtocolRules, Rules};
use crate::learn::Learned;
use crate::output::{csv_field, csv_u64, OutputFile};
use crate::prep::Prep;
use crate::records;
use crate::{Level, Normalizer, Options};
use std::sync::Arc;

/// How many rejected lines are shown on stderr without `--rejects`.
pub const PREVIEW: usize = 5;

/// Bytes of an over-long line kept in the `input` column of rejects.
pub const LONG_LINE_PREFIX: usize = 256;

/// Why a line was not accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RejectReason {
    /// Longer than `--max-line-bytes`.
    TooLong { max: usize },
    /// Not UTF-8; the offset of the first bad byte.
    InvalidUtf8 { at: usize },
    /// The key function failed.
    Key(crate::Error),
    /// Invalid in the `--encoding` charset.
    Decode(crate::decode::DecodeError),
    /// Any other reason (CSV input: missing column, invalid base).
    Other(String),
}

impl fmt::Display for RejectReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RejectReason::TooLong { max } => write!(f, "line longer than {max} bytes"),
            RejectReason::InvalidUtf8 { at } => write!(f, "invalid UTF-8 at byte {at}"),
            RejectReason::Key(e) => write!(f, "{e}"),
            RejectReason::Decode(e) => write!(f, "{e}"),
            RejectReason::Other(e) => f.write_str(e),
        }
    }
}

/// What became of one line.
#[derive(Debug)]
pub enum Outcome<'a> {
    /// Empty or only spaces/tabs (after removing the line terminator).
    Blank,
    Key(Cow<'a, str>),
    Reject(RejectReason),
}

/// `line` without one trailing `\r` (CRLF input).
#[inline]
pub fn strip_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// The per-line step: `line` is one physical line without its `\n`.
#[inline]
pub fn process_line<'a, K>(line: &'a [u8], max_line: usize, key: &K) -> Outcome<'a>
where
    K: for<'k> Fn(&'k str) -> crate::Result<Cow<'k, str>>,
{
    process_line_in(line, max_line, None, key)
}

/// [`process_line`] for a line in `charset` (`None`: UTF-8): a legacy
/// charset is transcoded to UTF-8 + NFC ([`crate::decode::decode_line`]).
#[inline]
pub fn process_line_in<'a, K>(
    line: &'a [u8],
    max_line: usize,
    charset: Option<crate::decode::Charset>,
    key: &K,
) -> Outcome<'a>
where
    K: for<'k> Fn(&'k str) -> crate::Result<Cow<'k, str>>,
{
    let line = strip_cr(line);
    if line.is_empty()
        || (matches!(line[0], b' ' | b'\t' | b'\r')
            && line.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r')))
    {
        return Outcome::Blank;
    }
    if line.len() > max_line {
        return Outcome::Reject(RejectReason::TooLong { max: max_line });
    }
    if charset.is_some() {
        return match crate::decode::decode_line(line, charset) {
            Ok(Cow::Borrowed(s)) => match key(s) {
                Ok(k) => Outcome::Key(k),
                Err(e) => Outcome::Reject(RejectReason::Key(e)),
            },
            Ok(Cow::Owned(s)) => match key(&s) {
                Ok(k) => Outcome::Key(Cow::Owned(k.into_owned())),
                Err(e) => Outcome::Reject(RejectReason::Key(e)),
            },
            Err(e) => Outcome::Reject(RejectReason::Decode(e)),
        };
    }
    let s = match std::str::from_utf8(line) {
        Ok(s) => s,
        Err(e) => {
            return Outcome::Reject(RejectReason::InvalidUtf8 {
                at: e.valid_up_to(),
            })
        }
    };
    match key(s) {
        Ok(k) => Outcome::Key(k),
        Err(e) => Outcome::Reject(RejectReason::Key(e)),
    }
}

/// The `input` column for a rejected line: lossy UTF-8; an over-long line
/// is cut to its first [`LONG_LINE_PREFIX`] bytes followed by `...`.
pub fn reject_input(line: &[u8], max_line: usize) -> Cow<'_, str> {
    let line = strip_cr(line);
    if line.len() > max_line {
        let mut s = String::from_utf8_lossy(&line[..LONG_LINE_PREFIX.min(line.len())]).into_owned();
        s.push_str("...");
        Cow::Owned(s)
    } else {
        String::from_utf8_lossy(line)
    }
}

/// Line counts. Invariant: `accepted + rejected + blank == lines`.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Stats {
    pub lines: u64,
    pub blank: u64,
    pub accepted: u64,
    pub rejected: u64,
    pub bytes: u64,
}

impl Stats {
    pub fn add(&mut self, o: &Stats) {
        self.lines += o.lines;
        self.blank += o.blank;
        self.accepted += o.accepted;
        self.rejected += o.rejected;
        self.bytes += o.bytes;
    }
}

/// Where rejected lines go: a `--rejects` CSV, or a preview on stderr.
pub struct Rejects {
    file: Option<OutputFile>,
    shown: usize,
    quiet: bool,
    row: Vec<u8>,
}

impl Rejects {
    pub fn create(path: Option<&Path>, quiet: bool) -> Result<Self, CliError> {
        let file = match path {
            Some(p) => {
                let mut f = OutputFile::create(Some(p))?;
                f.write(b"file,line,input,error\n")?;
                Some(f)
            }
            None => None,
        };
        Ok(Rejects {
            file,
            shown: 0,
            quiet,
            row: Vec::new(),
        })
    }

    /// How many rejected lines the caller needs to keep (all for a file).
    pub fn wanted(&self) -> usize {
        if self.file.is_some() {
            usize::MAX
        } else {
            PREVIEW
        }
    }

    pub fn record(
        &mut self,
        file: &str,
        line: u64,
        input: &str,
        reason: &dyn fmt::Display,
    ) -> Result<(), CliError> {
        match &mut self.file {
            Some(f) => {
                self.row.clear();
                csv_field(&mut self.row, file.as_bytes());
                self.row.push(b',');
                csv_u64(&mut self.row, line);
                self.row.push(b',');
                csv_field(&mut self.row, input.as_bytes());
                self.row.push(b',');
                csv_field(&mut self.row, reason.to_string().as_bytes());
                self.row.push(b'\n');
                f.write(&self.row)
            }
            None => {
                if self.shown < PREVIEW && !self.quiet {
                    self.shown += 1;
                    let shown: String = input.chars().take(100).collect();
                    note(format_args!("rejected {file}:{line}: {reason}: {shown}"));
                }
                Ok(())
            }
        }
    }

    pub fn to_file(&self) -> bool {
        self.file.is_some()
    }

    pub fn finish(self) -> Result<(), CliError> {
        match self.file {
            Some(f) => f.finish(),
            None => Ok(()),
        }
    }
}

/// One line on stderr, prefixed `irinorm: `; a closed stderr is ignored.
pub fn note(args: fmt::Arguments<'_>) {
    let _ = writeln!(std::io::stderr(), "irinorm: {args}");
}

pub(crate) fn summary(stats: &Stats, unique: Option<usize>, start: Instant, rejects_to_file: bool) {
    let secs = start.elapsed().as_secs_f64();
    let mbps = if secs > 0.0 {
        stats.bytes as f64 / 1e6 / secs
    } else {
        0.0
    };
    let unique = unique.map_or(String::new(), |u| format!(", {u} unique"));
    let more = if stats.rejected > PREVIEW as u64 && !rejects_to_file {
        format!(" (first {PREVIEW} shown; --rejects FILE lists all)")
    } else {
        String::new()
    };
    note(format_args!(
        "{} lines: {} blank, {} accepted, {} rejected{more}{unique}; {secs:.3} s, {mbps:.1} MB/s",
        stats.lines, stats.blank, stats.accepted, stats.rejected
    ));
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

pub(crate) fn pool(threads: Option<usize>) -> Result<rayon::ThreadPool, CliError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .thread_name(|i| format!("irinorm-{i}"))
        .build()
        .map_err(|e| CliError::msg(format!("cannot start worker threads: {e}")))
}

fn normalizer(k: &KeyArgs) -> Result<Normalizer, CliError> {
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
            .map_err(|e| CliError::msg(format!("invalid --base {b}: {e}"))),
        None => Ok(n),
    }
}

/// Read a redirect log (CSV from,to) and learn from it (3987bis §5.3.4).
fn learn_from(path: &Path, min_evidence: usize) -> Result<Learned, CliError> {
    let f = std::fs::File::open(path)
        .map_err(|e| CliError::io(format!("cannot open {}", path.display()), &e))?;
    Learned::from_csv_with(std::io::BufReader::new(f), min_evidence)
        .map_err(|e| CliError::msg(format!("{}: {e}", path.display())))
}

/// `irinorm rules`: every rule, its description and an example.
fn run_rules() -> Result<i32, CliError> {
    let mut t =
        String::from("rules of the protocol rung (* = on by default; --rules LIST to choose)\n\n");
    for (name, desc, before, after, on) in Rules::describe() {
        t.push_str(&format!(
            "{} {name}\n    {desc}\n    {before}\n  → {after}\n\n",
            if on { '*' } else { ' ' }
        ));
    }
    write_stdout(t.as_bytes())
}

/// `irinorm learn`: the learned rules with their support, and the
/// contradictions set aside.
fn run_learn(a: &LearnArgs) -> Result<i32, CliError> {
    let learned = learn_from(&a.redirects, a.min_evidence)?;
    let mut t = format!(
        "{} redirects read; rules need {} agreeing observations and no contradiction\n\n",
        learned.rows(),
        a.min_evidence
    );
    t.push_str("host,change,paths,support\n");
    let mut rules: Vec<_> = learned.rules().collect();
    rules.sort_by(|x, y| (&x.host, x.change.name()).cmp(&(&y.host, y.change.name())));
    for r in &rules {
        t.push_str(&format!(
            "{},{},{},{}\n",
            r.host,
            r.change.name(),
            r.path_kind,
            r.support
        ));
    }
    if !learned.contradictions().is_empty() {
        t.push_str("\ncontradictions (set aside):\n");
        for c in learned.contradictions() {
            let obs: Vec<String> = c
                .observations
                .iter()
                .map(|(ch, pk, n)| format!("{} {pk} ×{n}", ch.name()))
                .collect();
            t.push_str(&format!("{}: {}\n", c.host, obs.join("; ")));
        }
    }
    t.push_str("\nobservations by kind:\n");
    for (change, n) in learned.counts() {
        t.push_str(&format!("{}: {n}\n", change.name()));
    }
    write_stdout(t.as_bytes())
}

/// Write to stdout; a closed stdout ends quietly.
fn write_stdout(bytes: &[u8]) -> Result<i32, CliError> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(|e| CliError::io("cannot write to stdout".into(), &e))?;
    Ok(0)
}

/// Execute a parsed command line; the exit status on success.
pub fn run(cli: Cli) -> Result<i32, CliError> {
    match cli.command {
        Command::Dedup(a) => {
            // SURT is a display form that is not one-to-one (no scheme):
            // rows are grouped by the URI-form key and shown as SURT.
            let surt = a.key.form == FormArg::Surt;
            let mut key_args = a.key.clone();
            if surt {
                key_args.form = FormArg::Uri;
            }
            let n = normalizer(&key_args)?;
            let prep = Prep::new(&a.run.input, a.key.base.as_deref());
            if let Some(delim) = records::delimiter(&a.run) {
                let key = row_key(&n, prep);
                return records::run_dedup(&a.run, delim, a.sort, surt, &key);
            }
            records::check_lines_args(&a.run)?;
            run_dedup(&a.run, a.sort, surt, |s| prep.key(s, &|t| n.key(t)))
        }
        Command::Normalize(a) => {
            let n = normalizer(&a.key)?;
            let prep = Prep::new(&a.run.input, a.key.base.as_deref());
            if let Some(delim) = records::delimiter(&a.run) {
                let key = row_key(&n, prep);
                return records::run_map(&a.run, delim, &key);
            }
            records::check_lines_args(&a.run)?;
            run_map(&a.run, a.format, |s| prep.key(s, &|t| n.key(t)))
        }
        Command::Convert(a) => {
            let prep = Prep::new(&a.run.input, None);
            let conv: fn(&str) -> crate::Result<Cow<'_, str>> = match a.to {
                FormArg::Uri => crate::to_uri,
                FormArg::Iri => crate::to_iri,
                FormArg::Surt => {
                    return Err(CliError::msg(
                        "convert --to surt is not a conversion; use normalize --form surt",
                    ))
                }
            };
            if let Some(delim) = records::delimiter(&a.run) {
                if a.run.input.base_column.is_some() {
                    return Err(CliError::msg("convert has no --base-column"));
                }
                let key = move |s: &str, _: Option<&str>| {
                    prep.key(s, &conv)
                        .map(Cow::into_owned)
                        .map_err(RejectReason::Key)
                };
                return records::run_map(&a.run, delim, &key);
            }
            records::check_lines_args(&a.run)?;
            run_map(&a.run, a.format, |s| prep.key(s, &conv))
        }
        Command::Compare(a) => run_compare(&a),
        Command::Rules => run_rules(),
        Command::Learn(a) => run_learn(&a),
    }
}

/// The key of a CSV/TSV record: the reference, resolved against the row's
/// base (`--base-column`) if there is one, prepared and keyed by `n`.
fn row_key(
    n: &Normalizer,
    prep: Prep,
) -> impl Fn(&str, Option<&str>) -> Result<String, RejectReason> + Sync + '_ {
    move |s, base| match base {
        None => prep
            .key(s, &|t| n.key(t))
            .map(Cow::into_owned)
            .map_err(RejectReason::Key),
        Some(b) => {
            let bp =
                crate::parse(b).map_err(|e| RejectReason::Other(format!("invalid base: {e}")))?;
            if !bp.is_absolute() {
                return Err(RejectReason::Other(format!(
                    "invalid base: {}",
                    crate::Error::new(0, crate::ErrorKind::BaseNotAbsolute)
                )));
            }
            prep.with_base_http(crate::prep::is_http(b))
                .key(s, &|t| {
                    let r = crate::parse(t)?;
                    if r.is_absolute() {
                        n.key(t)
                    } else {
                        Ok(Cow::Owned(n.key(&crate::resolve(&bp, &r))?.into_owned()))
                    }
                })
                .map(Cow::into_owned)
                .map_err(RejectReason::Key)
        }
    }
}

/// The repairs line of the summary, if anything was repaired.
fn repairs_note(pool: &rayon::ThreadPool, run: &RunArgs) {
    let repairs = crate::prep::collect_repairs(pool);
    if !run.quiet && !repairs.is_empty() {
        note(format_args!("repairs: {repairs}"));
    }
}

/// The SURT (CDX form) of a key; the key itself if it does not parse.
pub fn surt_of(key: &[u8]) -> Vec<u8> {
    std::str::from_utf8(key)
        .ok()
        .and_then(|k| crate::parse(k).ok())
        .map(|r| crate::surt::surt(&r, &crate::surt::SurtOptions::default()).into_bytes())
        .unwrap_or_else(|| key.to_vec())
}

/// `dedup` with any key function; `surt` writes the canonical column as
/// SURT (grouping stays by key).
pub fn run_dedup<K>(run: &RunArgs, sort: SortArg, surt: bool, key: K) -> Result<i32, CliError>
where
    K: for<'k> Fn(&'k str) -> crate::Result<Cow<'k, str>> + Sync,
{
    let start = Instant::now();
    let opened = input::open_all(&Spec::from_args(&run.inputs))?;
    let pool = pool(run.threads)?;
    let mut out = OutputFile::create(run.output.as_deref())?;
    let mut rejects = Rejects::create(run.rejects.as_deref(), run.quiet)?;
    let loaded = opened
        .into_iter()
        .map(|o| {
            let l = input::load(o)?;
            let (data, charset) = input::prepare(&l.name, l.data, run.input.encoding)?;
            Ok((l.name, data, charset))
        })
        .collect::<Result<Vec<_>, CliError>>()?;
    let sources: Vec<dedup::Source<'_>> = loaded
        .iter()
        .map(|(name, data, charset)| dedup::Source {
            name,
            data: data.bytes(),
            charset: *charset,
        })
        .collect();
    let total: u64 = sources.iter().map(|s| s.data.len() as u64).sum();
    let pb = progress(Some(total), run);
    let cfg = dedup::Config {
        chunk_size: run.chunk_size as usize,
        max_line_bytes: run.max_line_bytes as usize,
        keep_rejects: rejects.wanted(),
        split_spaces: run.input.split_spaces,
    };
    let mut d = pool.install(|| dedup::Dedup::run(&sources, &key, &cfg, pb.as_ref()));
    if let Some(pb) = &pb {
        pb.finish_and_clear();
    }
    let to_surt: dedup::KeyMap<'_> = &surt_of;
    if surt {
        pool.install(|| d.render(to_surt));
    }
    match sort {
        SortArg::First => {}
        SortArg::Canonical if !surt => pool.install(|| d.sort_canonical()),
        SortArg::Canonical | SortArg::Surt => pool.install(|| d.sort_by_map(to_surt)),
    }
    pool.install(|| d.write_csv(&mut out))?;
    for r in d.rejects() {
        rejects.record(r.file, r.line, &r.input, r.reason)?;
    }
    out.finish()?;
    let to_file = rejects.to_file();
    rejects.finish()?;
    let stats = d.stats();
    if !run.quiet {
        summary(&stats, Some(d.unique()), start, to_file);
    }
    repairs_note(&pool, run);
    Ok(if run.strict && stats.rejected > 0 {
        1
    } else {
        0
    })
}

/// Output of one chunk of the streaming map.
struct ChunkOut {
    text: Vec<u8>,
    rejects: Vec<(u64, String, RejectReason)>,
    stats: Stats,
}

/// `normalize` / `convert`: one output per input line, in order, batch by
/// batch (bounded memory; flushed after each batch).
pub fn run_map<K>(run: &RunArgs, format: FormatArg, key: K) -> Result<i32, CliError>
where
    K: for<'k> Fn(&'k str) -> crate::Result<Cow<'k, str>> + Sync,
{
    let start = Instant::now();
    let specs = Spec::from_args(&run.inputs);
    let total = specs.iter().map(Spec::size_hint).sum::<Option<u64>>();
    let opened = input::open_all(&specs)?;
    let pool = pool(run.threads)?;
    let mut out = OutputFile::create(run.output.as_deref())?;
    let mut rejects = Rejects::create(run.rejects.as_deref(), run.quiet)?;
    let pb = progress(total, run);
    if format == FormatArg::Csv {
        out.write(b"line,input,output,error\n")?;
    }
    let max_line = run.max_line_bytes as usize;
    let chunk_size = run.chunk_size as usize;
    let threads = pool.current_num_threads().max(1);
    let batch_target = chunk_size.saturating_mul(threads * 4).max(1 << 20);
    let mut stats = Stats::default();
    for opened in opened {
        let name = opened.name();
        let (stream, charset) = input::open_stream(opened, run.input.encoding)?;
        let mut reader = BatchReader::new(stream, batch_target, max_line);
        let mut line_base = 0u64;
        loop {
            let batch = match reader.next_batch() {
                Ok(Some(b)) => b,
                Ok(None) => break,
                Err(e) => return Err(CliError::io(format!("cannot read {name}"), &e)),
            };
            // Small batches (a slow pipe) are still spread over the workers.
            let cs = chunk_size.min((batch.len() / (threads * 4)).max(16 << 10));
            let chunks = input::split_chunks(batch, cs);
            let firsts: Vec<u64> = pool.install(|| {
                chunks
                    .par_iter()
                    .map(|c| input::count_lines(&batch[c.clone()]))
                    .collect()
            });
            let mut acc = line_base;
            let firsts: Vec<u64> = firsts
                .into_iter()
                .map(|n| {
                    let f = acc;
                    acc += n;
                    f
                })
                .collect();
            line_base = acc;
            let keep = rejects.wanted();
            let outs: Vec<ChunkOut> = pool.install(|| {
                chunks
                    .par_iter()
                    .zip(firsts.par_iter())
                    .map(|(c, &first)| {
                        let chunk = &batch[c.clone()];
                        map_chunk(chunk, first, format, max_line, charset, keep, &key)
                    })
                    .collect()
            });
            for o in outs {
                out.write(&o.text)?;
                for (line, input, reason) in &o.rejects {
                    rejects.record(&name, *line, input, reason)?;
                }
                stats.add(&o.stats);
            }
            out.flush()?;
            if let Some(pb) = &pb {
                pb.inc(batch.len() as u64);
            }
        }
    }
    if let Some(pb) = &pb {
        pb.finish_and_clear();
    }
    out.finish()?;
    let to_file = rejects.to_file();
    rejects.finish()?;
    if !run.quiet {
        summary(&stats, None, start, to_file);
    }
    repairs_note(&pool, run);
    Ok(if run.strict && stats.rejected > 0 {
        1
    } else {
        0
    })
}

fn map_chunk<K>(
    chunk: &[u8],
    first_line: u64,
    format: FormatArg,
    max_line: usize,
    charset: Option<crate::decode::Charset>,
    keep: usize,
    key: &K,
) -> ChunkOut
where
    K: for<'k> Fn(&'k str) -> crate::Result<Cow<'k, str>> + Sync,
{
    let mut text = Vec::with_capacity(chunk.len() + chunk.len() / 4);
    let mut rejects = Vec::new();
    let mut stats = Stats {
        bytes: chunk.len() as u64,
        ..Stats::default()
    };
    let mut line_no = first_line;
    stats.lines = input::for_each_line(chunk, |line, _| {
        line_no += 1;
        let outcome = process_line_in(line, max_line, charset, key);
        let (output, error): (&[u8], Option<&RejectReason>) = match &outcome {
            Outcome::Blank => {
                stats.blank += 1;
                (b"", None)
            }
            Outcome::Key(k) => {
                stats.accepted += 1;
                (k.as_bytes(), None)
            }
            Outcome::Reject(r) => {
                stats.rejected += 1;
                (b"", Some(r))
            }
        };
        match format {
            FormatArg::Lines => {
                text.extend_from_slice(output);
                text.push(b'\n');
            }
            FormatArg::Csv => {
                csv_u64(&mut text, line_no);
                text.push(b',');
                match error {
                    None => csv_field(&mut text, strip_cr(line)),
                    Some(_) => csv_field(&mut text, reject_input(line, max_line).as_bytes()),
                }
                text.push(b',');
                csv_field(&mut text, output);
                text.push(b',');
                if let Some(r) = error {
                    csv_field(&mut text, r.to_string().as_bytes());
                }
                text.push(b'\n');
            }
        }
        if let Some(r) = error {
            if rejects.len() < keep {
                rejects.push((
                    line_no,
                    reject_input(line, max_line).into_owned(),
                    r.clone(),
                ));
            }
        }
    });
    ChunkOut {
        text,
        rejects,
        stats,
    }
}

/// `compare`: the keys of A and B at each rung, and the verdict.
fn run_compare(a: &CompareArgs) -> Result<i32, CliError> {
    let cell = |r: crate::Result<Cow<'_, str>>| match r {
        Ok(k) => k.into_owned(),
        Err(e) => format!("(invalid: {e})"),
    };
    let rows: Vec<(Level, String, String, bool)> = Level::ALL
        .into_iter()
        .map(|level| {
            let n = Normalizer::new(Options {
                level,
                ..Options::default()
            });
            let (ka, kb) = (n.key(&a.a), n.key(&a.b));
            let eq = matches!((&ka, &kb), (Ok(x), Ok(y)) if x == y);
            (level, cell(ka), cell(kb), eq)
        })
        .collect();
    let wa = rows
        .iter()
        .map(|r| r.1.chars().count())
        .max()
        .unwrap_or(0)
        .max(1);
    let wb = rows
        .iter()
        .map(|r| r.2.chars().count())
        .max()
        .unwrap_or(0)
        .max(1);
    let mut s = String::new();
    s.push_str(&format!(
        "{:<9} {:<wa$}  {:<wb$}  equal\n",
        "level", "A", "B"
    ));
    for (level, ka, kb, eq) in &rows {
        s.push_str(&format!(
            "{:<9} {ka:<wa$}  {kb:<wb$}  {}\n",
            level.name(),
            if *eq { "yes" } else { "no" }
        ));
    }
    match crate::lowest_equal_level(&a.a, &a.b) {
        Ok(Some(l)) => s.push_str(&format!("lowest equal level: {}\n", l.name())),
        Ok(None) => s.push_str("lowest equal level: none\n"),
        Err(e) => s.push_str(&format!("lowest equal level: none ({e})\n")),
    }
    let level: Level = a.level.into();
    let equivalent = crate::equivalent(&a.a, &a.b, level).unwrap_or(false);
    let mut out = OutputFile::stdout();
    out.write(s.as_bytes())?;
    out.finish()?;
    Ok(if equivalent { 0 } else { 1 })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fake(s: &str) -> crate::Result<Cow<'_, str>> {
        if let Some(i) = s.find(' ') {
            return Err(crate::Error::new(
                i,
                crate::ErrorKind::CharNotAllowed {
                    ch: ' ',
                    component: crate::Component::Path,
                },
            ));
        }
        Ok(Cow::Borrowed(s))
    }

    #[test]
    fn lines_are_classified() {
        assert!(matches!(process_line(b"", 10, &fake), Outcome::Blank));
        assert!(matches!(process_line(b" \t\r", 10, &fake), Outcome::Blank));
        assert!(matches!(process_line(b"a\r", 10, &fake), Outcome::Key(k) if k == "a"));
        let r = |l: &[u8]| match process_line(l, 4, &fake) {
            Outcome::Reject(r) => r.to_string(),
            o => panic!("{o:?}"),
        };
        assert_eq!(r(b"abcde"), "line longer than 4 bytes");
        assert_eq!(r(b"ab\xff"), "invalid UTF-8 at byte 2");
        assert_eq!(r(b"a b"), "space not allowed in path at byte 1");
        assert_eq!(reject_input(b"a\xffb", 10), "a\u{fffd}b");
    }
}
