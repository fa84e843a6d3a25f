//! The small commands: `compare` (keys at every rung), `rules` (the
//! protocol rung's named rules), `learn` (rules learned from redirects).

use std::borrow::Cow;
use std::io::Write;

use irinorm::batch::sink::OutputFile;
use irinorm::ladder::protocol::Rules;
use irinorm::Level;

use super::{learn_from, normalizer, prep};
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
            (k.rules, k.redirects) = (None, None);
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
fn default_input() -> InputArgs {
    InputArgs {
        encoding: None,
        query_encoding: None,
        mode: irinorm::preprocess::Mode::Strict,
        decode_entities: false,
        split_spaces: false,
        input_format: None,
        column: None,
        base_column: None,
        no_header: false,
        output_column: "canonical".to_owned(),
    }
}

/// `irinorm rules`: every rule, its description and an example.
pub fn rules() -> Result<i32, CliError> {
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
pub fn learn(a: &LearnArgs) -> Result<i32, CliError> {
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
