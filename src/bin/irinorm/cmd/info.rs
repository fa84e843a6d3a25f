//! The small commands: `compare` (keys at every rung), `rules` (the
//! protocol rung's named rules and the learned kinds), `learn` (rules
//! learned from redirects and content digests).

use std::borrow::Cow;
use std::io::{BufWriter, Seek, Write};
use std::path::Path;

use irinorm::batch::OutputFile;
use irinorm::learn::digest::{self, ContentRule, DigestOptions, Evidence};
use irinorm::learn::pool::{Pooled, PooledRules, Why};
use irinorm::learn::{Learned, RedirectTally};
use irinorm::{Level, Mode, Rules};

use super::learn_digests::learn_digests;
use super::{normalizer, note, prep, redirect_tally, PREVIEW};
use crate::cli::{CliError, CompareArgs, InputArgs, LearnArgs, LevelArg};
use crate::term::escape;

/// `compare`: the keys of A and B at each rung (with the same options as
/// `normalize`), and the verdict at `--level`.
pub fn compare(a: &CompareArgs) -> Result<i32, CliError> {
    let input = InputArgs {
        mode: a.mode,
        decode_entities: a.decode_entities,
        ..default_input()
    };
    let prep = prep(&input, a.key.base.as_deref(), None)?;
    let chosen: Level = a.key.level.into();
    let mut rows = Vec::new();
    let mut at_chosen = None;
    for level in [
        LevelArg::String,
        LevelArg::Syntax,
        LevelArg::Scheme,
        LevelArg::Protocol,
    ] {
        let mut k = a.key.clone();
        k.level = level;
        if level != LevelArg::Protocol {
            (k.rules, k.redirects, k.learned) = (None, None, None);
        }
        let n = normalizer(&k)?;
        let prep = prep.clone().href_is_key(level == LevelArg::String);
        let key = |s: &str| -> Result<String, irinorm::Error> {
            prep.key(s, &|t| n.key(t)).map(Cow::into_owned)
        };
        let (ka, kb) = (key(&a.a), key(&a.b));
        let eq = matches!((&ka, &kb), (Ok(x), Ok(y)) if x == y);
        let level: Level = level.into();
        if level == chosen {
            at_chosen = Some((ka.clone(), kb.clone()));
        }
        rows.push((level, cell(ka), cell(kb), eq));
    }
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
    let mut s = format!("{:<9} {:<wa$}  {:<wb$}  equal\n", "level", "A", "B");
    for (level, ka, kb, eq) in &rows {
        s.push_str(&format!(
            "{:<9} {ka:<wa$}  {kb:<wb$}  {}\n",
            level.name(),
            if *eq { "yes" } else { "no" }
        ));
    }
    let lowest = rows.iter().find(|r| r.3).map(|r| r.0);
    match lowest {
        Some(l) => s.push_str(&format!("lowest equal level: {}\n", l.name())),
        None => s.push_str("lowest equal level: none\n"),
    }
    let mut out = OutputFile::stdout();
    out.write(s.as_bytes())?;
    out.finish()?;
    match at_chosen {
        Some((Ok(x), Ok(y))) => Ok(if x == y { 0 } else { 1 }),
        Some((Err(e), _)) => Err(CliError::msg(format!(
            "A has no key at level {}: {e}",
            chosen.name()
        ))),
        Some((_, Err(e))) => Err(CliError::msg(format!(
            "B has no key at level {}: {e}",
            chosen.name()
        ))),
        None => Ok(1),
    }
}

/// A table cell: the key, or why there is none (escaped: the text may
/// quote the input).
fn cell(r: Result<String, irinorm::Error>) -> String {
    match r {
        Ok(k) => escape(&k),
        Err(e) => format!("(invalid: {})", escape(&e.to_string())),
    }
}

/// The input options of `normalize` at their defaults.
pub(super) fn default_input() -> InputArgs {
    InputArgs {
        encoding: None,
        query_encoding: None,
        mode: Mode::Strict,
        decode_entities: false,
        split_spaces: false,
        input_format: None,
        column: None,
        base_column: None,
        no_header: false,
        output_column: "canonical".to_owned(),
    }
}

/// `irinorm rules`: every rule, its description and an example; then the
/// kinds of rules `learn` writes to a rules file.
pub fn rules() -> Result<i32, CliError> {
    let mut t =
        String::from("rules of the protocol rung (* = on by default; --rules LIST to choose)\n\n");
    for (name, desc, before, after, on) in Rules::describe() {
        t.push_str(&format!(
            "{} {name}\n    {desc}\n    {before}\n  → {after}\n\n",
            if on { '*' } else { ' ' }
        ));
    }
    t.push_str(
        "learned rules (irinorm learn --redirects/--digests -o rules.tsv; applied per host \
         with --level protocol --learned rules.tsv; a row with contradictions is never applied)\n\n",
    );
    for (source, kind, pattern, what) in digest::rule_kinds() {
        t.push_str(&format!(
            "  {kind} {pattern}  (from {source})\n    {what}\n"
        ));
    }
    write_stdout(t.as_bytes())
}

/// `irinorm learn`: rules from redirects and/or digests, as a report on
/// stdout or a rules file (`-o`).
pub fn learn(a: &LearnArgs) -> Result<i32, CliError> {
    let mut tally = match &a.redirects {
        Some(p) => redirect_tally(p)?,
        None => RedirectTally::default(),
    };
    let opts = DigestOptions {
        min_evidence: a.min_evidence,
        significance: a.significance,
        window: a.window,
        max_excess: a.max_excess,
        pool_origins: a.pool_origins,
        pool_share: a.pool_share,
    };
    let mut read = match &a.digests {
        Some(p) => Some(learn_digests(a, p, &opts)?),
        None => None,
    };
    let mut content = None;
    if let Some((name, r)) = &mut read {
        if !r.rejected.is_empty() {
            note(format_args!(
                "{}: {} line(s) rejected",
                escape(name),
                r.rejected.len()
            ));
            for (line, why) in r.rejected.iter().take(PREVIEW) {
                note(format_args!(
                    "rejected {}:{line}: {}",
                    escape(name),
                    escape(why)
                ));
            }
        }
        content = Some(std::mem::take(&mut r.rules));
    }
    if let Some((_, r)) = &read {
        tally.merge(&r.redirects);
    }
    let learned = Learned::from_tally(tally, a.min_evidence);
    if let Some(path) = &a.output {
        // The content rules stream from the pooled pass to the file.
        let mut out = OutputFile::create(Some(path))?;
        out.write(learned.redirects_tsv().as_bytes())?;
        let (mut total, mut active) = (0, 0);
        let mut buf = String::new();
        drain_rules(content, |r, _| {
            total += 1;
            active += usize::from(r.is_active());
            r.push_tsv_row(&mut buf);
            flush_at(&mut buf, FLUSH, |b| out.write(b))
        })?;
        out.write(buf.as_bytes())?;
        out.finish()?;
        note(format_args!(
            "{} redirect rule(s), {} content rule(s) ({} contradicted, never applied) written to {}",
            learned.rules().count(),
            active,
            total - active,
            escape(&path.display().to_string())
        ));
        return Ok(0);
    }
    let mut t = String::new();
    if let Some((name, r)) = &read {
        let (records, unusable) = (r.records, r.unusable);
        t.push_str(&format!(
            "{}: {} captures read as content evidence ({} unusable URLs) on {} origins, \
             {} not status 200 ({} redirects with a target), {} lines rejected; \
             {} digests on two or more URLs ({} of them on distinct pages: not evidence)\n",
            escape(name),
            records,
            unusable,
            r.origins,
            r.not_200,
            r.redirects.len(),
            r.rejected.len(),
            r.stats.clusters,
            r.stats.shared
        ));
    }
    if a.redirects.is_some() || learned.rows() > 0 {
        let kinds: Vec<String> = learned
            .counts()
            .iter()
            .map(|(change, n)| format!("{} {n}", change.name()))
            .collect();
        t.push_str(&format!(
            "{} redirects read (by kind: {})\n",
            learned.rows(),
            if kinds.is_empty() {
                "none".to_owned()
            } else {
                kinds.join(", ")
            }
        ));
    }
    t.push_str(&format!(
        "a rule needs {} agreeing observations (digests: pages){}\n",
        a.min_evidence,
        if read.is_some() {
            format!(
                "; a digest rule is applied only when its merged pairs' disagreement (none \
                 included) is shown to stay within the origin's drift plus --max-excess {} \
                 (binomial p < {}){}{}",
                a.max_excess,
                a.significance,
                a.window
                    .map(|w| format!(", pairs within {}", duration(w)))
                    .unwrap_or_default(),
                if a.pool_origins > 0 {
                    format!(
                        ", on its origin's pairs or on those of its kind and pattern pooled \
                         over at least {} origins, of which at most a share {} show it \
                         selecting content",
                        a.pool_origins.max(2),
                        a.pool_share
                    )
                } else {
                    String::new()
                }
            )
        } else {
            String::new()
        }
    ));
    let stdout = std::io::stdout();
    let mut w = BufWriter::with_capacity(FLUSH, stdout.lock());
    rules_report(&mut w, &t, &learned, content, a.temp_dir.as_deref())?;
    let mut t = String::new();
    if let Some((_, r)) = &read {
        pooled_report(&mut t, &r.pooled);
    }
    w.write_all(t.as_bytes())
        .and_then(|()| w.flush())
        .map_err(stdout_err)?;
    Ok(0)
}

/// Bytes of rows gathered before they are written.
const FLUSH: usize = 1 << 16;

/// Hand `buf` to `write` and empty it once it holds `at` bytes or more.
fn flush_at(
    buf: &mut String,
    at: usize,
    mut write: impl FnMut(&[u8]) -> Result<(), CliError>,
) -> Result<(), CliError> {
    if buf.len() >= at {
        write(buf.as_bytes())?;
        buf.clear();
    }
    Ok(())
}

/// Every content rule of the pooled pass (if any), in the order of the
/// rules file, to `each`.
fn drain_rules(
    rules: Option<PooledRules>,
    mut each: impl FnMut(&ContentRule, Why) -> Result<(), CliError>,
) -> Result<(), CliError> {
    let Some(rules) = rules else {
        return Ok(());
    };
    let mut failed = None;
    let drained = rules.drain(&mut |r, why| {
        each(&r, why).map_err(|e| {
            failed = Some(e);
            std::io::Error::other("stopped")
        })
    });
    match failed {
        Some(e) => Err(e),
        None => drained.map_err(|e| {
            CliError::io(
                "cannot read back the pooled rules from the temporary directory".into(),
                &e,
            )
        }),
    }
}

fn stdout_err(e: std::io::Error) -> CliError {
    CliError::io("cannot write to stdout".into(), &e)
}

/// The patterns whose pooled evidence changed verdicts: applied where
/// their origins could not show them safe alone, or refused everywhere
/// because most origins that decide them show them selecting content. The
/// pooled figures and the origins changed (each rule's own figures are in
/// the rules tables).
fn pooled_report(t: &mut String, pooled: &[Pooled]) {
    if pooled.is_empty() {
        return;
    }
    t.push_str(
        "\nverdicts on pooled evidence (kind and pattern over the origins with pairs; \
         each rule's own figures are in the rules tables):\n\
         verdict,kind,pattern,origins,safe_alone,selecting,pairs,disagreeing,drift,p,origins_changed\n",
    );
    for p in pooled {
        let mut hosts: Vec<String> = p.changed.iter().map(|h| escape(h)).collect();
        if p.changed_count > hosts.len() {
            hosts.push(format!("and {} more", p.changed_count - hosts.len()));
        }
        t.push_str(&format!(
            "{},{},{},{},{},{},{},{} ({:.1}%),{:.1}%,{},{}\n",
            if p.applies {
                "applied"
            } else {
                "refused (most show it selecting)"
            },
            p.kind,
            escape(&p.pattern),
            p.origins,
            p.own_safe,
            p.selecting,
            p.pairs,
            p.disagreeing,
            p.disagreeing as f64 / p.pairs.max(1) as f64 * 100.0,
            p.expected / p.pairs.max(1) as f64 * 100.0,
            p_value(p.head),
            hosts.join(" ")
        ));
    }
}

/// A probability as the report prints it; one that underflowed to 0 (a
/// sum of terms each below the smallest `f64`, so far below 1e-300) as
/// `<1e-300`.
fn p_value(p: f64) -> String {
    if p > 0.0 {
        format!("{p:.2e}")
    } else {
        "<1e-300".to_owned()
    }
}

/// `2d`, `36h`, `90m`, `3600s`: a window as `--window` takes it.
fn duration(secs: i64) -> String {
    match secs {
        s if s > 0 && s % 86_400 == 0 => format!("{}d", s / 86_400),
        s if s > 0 && s % 3_600 == 0 => format!("{}h", s / 3_600),
        s if s > 0 && s % 60 == 0 => format!("{}m", s / 60),
        s => format!("{s}s"),
    }
}

/// The columns of a report's rule tables: those of the rules file that
/// `-o` writes (`#host kind pattern support contradictions clusters pairs
/// disagreeing drift`), with the evidence each rule comes from first. A
/// redirect rule has no clusters, pairs or drift (`-`); a digest rule's
/// `disagreeing` is its merged pairs with different digests and `drift`
/// the share the origin's drift baseline expects, both as rates too. A
/// digest rule the pooled pass changed says so in `contradictions`:
/// `0 (pooled)`, applied on the pooled evidence of its kind and pattern;
/// `1 (most origins selecting)`, refused everywhere (see [`Why`]).
const RULE_COLUMNS: &str =
    "source,host,kind,pattern,support,contradictions,clusters,pairs,disagreeing,drift\n";

/// One row of a report's rule table (CSV; host and pattern escaped).
fn rule_row(
    out: &mut String,
    [source, host, kind, pattern]: [&str; 4],
    support: usize,
    contra: usize,
    evidence: Option<&Evidence>,
    why: Option<Why>,
) {
    let contra = match why {
        Some(w @ (Why::Pooled | Why::MostSelecting)) => format!("{contra} ({})", w.name()),
        _ => contra.to_string(),
    };
    let e = match evidence {
        Some(e) => format!(
            "{},{},{} ({:.1}%),{:.1}%",
            e.clusters,
            e.pairs,
            e.disagreeing,
            e.disagreement() * 100.0,
            e.drift() * 100.0
        ),
        None => "-,-,-,-".to_owned(),
    };
    out.push_str(&format!(
        "{source},{},{kind},{},{support},{contra},{e}\n",
        escape(host),
        escape(pattern)
    ));
}

/// `head`, then the rules of `learned` and `content` as the rules file has
/// them (same rows, same order, CSV instead of TSV), in two tables: the
/// rules applied, and the rows set aside as contradicted. A table with no
/// row is not printed. The content rows stream from the pooled pass; the
/// contradicted ones wait in an unlinked temporary file in `temp_dir`.
fn rules_report(
    w: &mut dyn Write,
    head: &str,
    learned: &Learned,
    content: Option<PooledRules>,
    temp_dir: Option<&Path>,
) -> Result<(), CliError> {
    let mut active = String::new();
    let mut contradicted = String::new();
    let mut redirect_rules: Vec<_> = learned.rules().collect();
    redirect_rules.sort_by(|x, y| (&x.host, x.change.name()).cmp(&(&y.host, y.change.name())));
    for r in &redirect_rules {
        let pattern = r.path_kind.to_string();
        rule_row(
            &mut active,
            ["redirects", &r.host, r.change.name(), &pattern],
            r.support,
            0,
            None,
            None,
        );
    }
    for c in learned.contradictions() {
        let total: usize = c.observations.iter().map(|o| o.2).sum();
        for &(change, kind, n) in &c.observations {
            let pattern = kind.to_string();
            rule_row(
                &mut contradicted,
                ["redirects", &c.host, change.name(), &pattern],
                n,
                (total - n).max(1),
                None,
                None,
            );
        }
    }
    let tmp_err = |e: std::io::Error| CliError::io("cannot write a temporary file".into(), &e);
    let tmp = irinorm::batch::unnamed_temp_file(temp_dir);
    let mut tmp = BufWriter::with_capacity(FLUSH, tmp.map_err(tmp_err)?);
    let (mut any_active, mut any_contradicted) = (!active.is_empty(), !contradicted.is_empty());
    let mut t = format!("{head}\n");
    let start = |t: &mut String| {
        t.push_str(
            "rules (host: host[:port] for a redirect rule, any scheme; \
             scheme://host[:port] for a digest rule, that origin only):\n",
        );
        t.push_str(RULE_COLUMNS);
    };
    if any_active {
        start(&mut t);
        t.push_str(&active);
    }
    let mut later = String::new();
    drain_rules(content, |r, why| {
        let kind = r.kind.to_string();
        let row = ["digests", &r.origin, &kind, &r.pattern];
        let (support, contra, e) = (r.support, r.contradictions, Some(&r.evidence));
        if r.is_active() {
            if !any_active {
                start(&mut t);
                any_active = true;
            }
            rule_row(&mut t, row, support, contra, e, Some(why));
            flush_at(&mut t, FLUSH, |b| w.write_all(b).map_err(stdout_err))
        } else {
            any_contradicted = true;
            rule_row(&mut later, row, support, contra, e, Some(why));
            flush_at(&mut later, FLUSH, |b| tmp.write_all(b).map_err(tmp_err))
        }
    })?;
    if !any_active {
        t.push_str("no rules learned\n");
    }
    w.write_all(t.as_bytes()).map_err(stdout_err)?;
    if any_contradicted {
        let mut c = String::from("\ncontradicted (set aside, never applied):\n");
        c.push_str(RULE_COLUMNS);
        c.push_str(&contradicted);
        w.write_all(c.as_bytes()).map_err(stdout_err)?;
        tmp.write_all(later.as_bytes()).map_err(tmp_err)?;
        let mut f = tmp.into_inner().map_err(|e| tmp_err(e.into_error()))?;
        f.rewind().map_err(tmp_err)?;
        std::io::copy(&mut f, w).map_err(stdout_err)?;
    }
    Ok(())
}

/// Write to stdout; a closed stdout ends quietly.
fn write_stdout(bytes: &[u8]) -> Result<i32, CliError> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(|e| CliError::io("cannot write to stdout".into(), &e))?;
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_probability_that_underflowed_is_not_printed_as_zero() {
        assert_eq!(p_value(3.92e-253), "3.92e-253");
        assert_eq!(p_value(0.0), "<1e-300");
    }

    #[test]
    fn windows_print_as_they_are_written() {
        for w in ["2d", "36h", "90m", "61s", "0s"] {
            let secs = digest::parse_window(w).unwrap();
            assert_eq!(duration(secs), w);
        }
        assert_eq!(duration(digest::parse_window("1w").unwrap()), "7d");
    }
}
