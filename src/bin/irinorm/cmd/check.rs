//! `irinorm check`: the findings of [`irinorm::check`] (3987bis §4, §7.3,
//! §8.6) for every line, as CSV, through the same streaming engine as
//! `normalize` (threads, rejects, bounded memory); and the display policy of
//! `--idn-display` / `--top-domains`, shared with `normalize`, `dedup` and
//! `convert`.
//!
//! The key function of the run writes, for a line with findings, the count
//! and then one CSV row per finding (without the file and line) on lines of
//! their own; a clean line gives an empty key. The sink numbers the lines of
//! each input (the engine marks where each starts, [`MapOutput::LinesByInput`])
//! and writes the rows with the input's name and the line number in front,
//! as the rejects name them.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::Write;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use irinorm::batch::{self, csv_field, Format, MapOutput, OutputFile};
use irinorm::check::{Checker, Severity};
use irinorm::{DisplayPolicy, TopDomains};

use super::{
    distinct_outputs, format, inputs, map_config, note, open, pool, prep, repairs_note, summary,
    Report,
};
use crate::cli::{CheckArgs, CliError, DisplayArgs};

/// The policy of `--idn-display` and `--top-domains`.
pub fn display_policy(d: &DisplayArgs) -> Result<DisplayPolicy, CliError> {
    let mut p = DisplayPolicy::new(d.idn_display.into());
    if let Some(path) = &d.top_domains {
        let text = std::fs::read_to_string(path)
            .map_err(|e| CliError::io(format!("cannot read {}", path.display()), &e))?;
        p = p.with_top_domains(Arc::new(TopDomains::parse(&text)));
    }
    Ok(p)
}

/// `to_iri` under `policy`, as the key of a `convert --to iri` run.
pub fn to_iri_fn(
    policy: &DisplayPolicy,
) -> impl for<'x> Fn(&'x str) -> irinorm::Result<Cow<'x, str>> + Sync + '_ {
    move |s| irinorm::to_iri_with(s, policy)
}

/// What the workers tally: findings by code and the worst severity.
#[derive(Default)]
struct Tally {
    by_code: Mutex<BTreeMap<&'static str, u64>>,
    worst: AtomicU8,
}

pub fn run(a: &CheckArgs) -> Result<i32, CliError> {
    let start = Instant::now();
    let run = &a.run;
    distinct_outputs(&[
        ("--output", run.output.as_deref()),
        ("--rejects", run.rejects.as_deref()),
    ])?;
    let format = format(run)?;
    if !matches!(format, Format::Lines) {
        return Err(CliError::msg(
            "check reads lines (one IRI reference per line), not csv/tsv/cdx/cdxj",
        ));
    }
    let checker = Checker::new(display_policy(&a.display)?);
    let min: Severity = a.min_severity.into();
    let tally = Tally::default();
    let prep = prep(&run.input, None, None)?;
    let key = batch::key_fn(prep, |s: &str| -> irinorm::Result<Cow<'_, str>> {
        let findings = checker.check(s)?;
        let kept: Vec<_> = findings.into_iter().filter(|f| f.severity >= min).collect();
        if kept.is_empty() {
            return Ok(Cow::Borrowed(""));
        }
        let mut out = kept.len().to_string().into_bytes();
        let mut by_code = tally.by_code.lock().unwrap_or_else(|e| e.into_inner());
        for f in &kept {
            *by_code.entry(f.code.as_str()).or_default() += 1;
            tally
                .worst
                .fetch_max(f.severity as u8 + 1, Ordering::Relaxed);
            out.push(b'\n');
            for (k, field) in [
                s,
                f.severity.name(),
                f.code.as_str(),
                f.part.name(),
                &f.offset.to_string(),
                &f.message,
            ]
            .into_iter()
            .enumerate()
            {
                if k > 0 {
                    out.push(b',');
                }
                csv_field(&mut out, field.as_bytes());
            }
        }
        Ok(Cow::Owned(String::from_utf8_lossy(&out).into_owned()))
    });
    let (inputs, names, total) = inputs(run);
    let opened = open(run, &inputs)?;
    let pool = Arc::new(pool(run.threads)?);
    let cfg = map_config(run, &pool, MapOutput::LinesByInput);
    let mut out = OutputFile::create(run.output.as_deref())?;
    out.write(b"file,line,input,severity,code,component,offset,message\n")?;
    let mut report = Report::new(run, &names, total)?;
    let mut rows = Rows::new(&names);
    let stats = pool.install(|| {
        batch::run_map(
            opened,
            &format,
            &key,
            &cfg,
            &mut report,
            &mut |b: &[u8]| {
                let mut buf = Vec::with_capacity(b.len() + 64);
                rows.feed(b, &mut buf);
                out.write(&buf)?;
                out.flush()
            },
        )
    })?;
    out.finish()?;
    drop(key);
    let warning = report.warning(&stats);
    let to_file = report.finish()?;
    let by_code = tally
        .by_code
        .into_inner()
        .unwrap_or_else(|e| e.into_inner());
    if !run.quiet {
        let n: u64 = by_code.values().sum();
        summary(&stats, &format!(", {n} findings"), start, to_file);
        for (code, count) in &by_code {
            note(format_args!("  {count:>10}  {code}"));
        }
        if let Some(w) = warning {
            note(format_args!("{w}"));
        }
    }
    repairs_note(&pool, run.quiet);
    let worst = tally.worst.load(Ordering::Relaxed);
    let fail_on: Severity = a.fail_on.into();
    let failed = worst > fail_on as u8 || (run.strict && stats.rejected > 0);
    Ok(i32::from(failed))
}

/// Turns the run's output (one key per input line and a mark where each
/// input starts, see the module doc) into CSV rows that name their input
/// and line; keeps a partial line between calls.
struct Rows {
    /// Each input's name as a CSV field.
    names: Vec<Vec<u8>>,
    file: usize,
    /// The current input's line number.
    line: u64,
    /// Rows still to come for the current line.
    pending: u64,
    partial: Vec<u8>,
}

impl Rows {
    fn new(names: &[String]) -> Rows {
        let names = names
            .iter()
            .map(|n| {
                let mut f = Vec::new();
                csv_field(&mut f, n.as_bytes());
                f
            })
            .collect();
        Rows {
            names,
            file: 0,
            line: 0,
            pending: 0,
            partial: Vec::new(),
        }
    }

    fn feed(&mut self, mut b: &[u8], out: &mut Vec<u8>) {
        while let Some(nl) = memchr::memchr(b'\n', b) {
            if self.partial.is_empty() {
                self.one(&b[..nl], out);
            } else {
                let mut whole = std::mem::take(&mut self.partial);
                whole.extend_from_slice(&b[..nl]);
                self.one(&whole, out);
            }
            b = &b[nl + 1..];
        }
        self.partial.extend_from_slice(b);
    }

    fn one(&mut self, text: &[u8], out: &mut Vec<u8>) {
        if self.pending > 0 {
            if let Some(name) = self.names.get(self.file) {
                out.extend_from_slice(name);
            }
            let _ = write!(out, ",{},", self.line);
            out.extend_from_slice(text);
            out.push(b'\n');
            self.pending -= 1;
            return;
        }
        if let Some(mark) = text.strip_prefix(b"\0") {
            self.file = std::str::from_utf8(mark)
                .ok()
                .and_then(|t| t.parse().ok())
                .unwrap_or(self.file);
            self.line = 0;
            return;
        }
        self.line += 1;
        if !text.is_empty() {
            self.pending = std::str::from_utf8(text)
                .ok()
                .and_then(|t| t.parse().ok())
                .unwrap_or(0);
        }
    }
}
