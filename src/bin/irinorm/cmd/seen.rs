//! `irinorm dedup --seen DIR` / `--seen-check DIR` (the URL-seen test) and
//! `irinorm seen info|compact DIR` (see `irinorm help seen`).

use std::fmt::Write as _;

use irinorm::batch::{
    self, DedupConfig, Format, KeyFn, Opened, OutputFile, SeenConfig, SeenInfo, Summary,
};

use super::Report;
use crate::cli::{CliError, DedupArgs, FormArg, SeenArgs, SeenCommand};

/// The key options a seen-set records: everything that changes the key of
/// a reference (not how references are found in the input). `--form surt`
/// groups by the URI-form key, so it shares a seen-set with `--form uri`.
/// A rules file is recorded by its CRC-32: other rules make other keys.
fn key_options(a: &DedupArgs) -> Result<String, CliError> {
    let k = &a.key;
    let form = match k.form {
        FormArg::Uri | FormArg::Surt => "uri",
        FormArg::Iri => "iri",
        FormArg::SurtIa => "surt-ia",
    };
    let level = format!("{:?}", k.level).to_ascii_lowercase();
    let mut o = format!("level={level} form={form} nfc={}", k.nfc);
    if let Some(list) = &k.rules {
        let rules = irinorm::Rules::parse_list(list)
            .map_err(|e| CliError::msg(format!("invalid --rules {list}: {e}")))?;
        let _ = write!(o, " rules={rules}");
    }
    for (name, file) in [("redirects", &k.redirects), ("learned", &k.learned)] {
        if let Some(path) = file {
            let bytes = std::fs::read(path)
                .map_err(|e| CliError::io(format!("cannot read {}", path.display()), &e))?;
            let _ = write!(o, " {name}=crc32:{:08x}", crc32fast::hash(&bytes));
        }
    }
    if k.redirects.is_some() {
        let _ = write!(o, " min-evidence={}", k.min_evidence);
    }
    let input = &a.run.input;
    let _ = write!(o, " mode={}", input.mode);
    if let Some(q) = input.query_encoding {
        let _ = write!(o, " query-encoding={}", q.name());
    }
    Ok(o)
}

/// Run `dedup`, through the seen-set of `--seen`/`--seen-check` if one is
/// given; the output is finished, then the new keys committed. The engine's
/// summary and what to add to the summary line.
pub fn dedup(
    a: &DedupArgs,
    opened: Vec<Opened>,
    format: &Format,
    key: &KeyFn<'_>,
    cfg: &DedupConfig,
    report: &mut Report<'_>,
    mut out: OutputFile,
) -> Result<(Summary, String), CliError> {
    let (dir, update) = match (&a.seen, &a.seen_check) {
        (Some(d), _) => (d, true),
        (None, Some(d)) => (d, false),
        (None, None) => {
            let s = batch::run_dedup(opened, format, key, cfg, report, &mut |b: &[u8]| {
                out.write(b)
            })?;
            out.finish()?;
            return Ok((s, String::new()));
        }
    };
    let seen = SeenConfig {
        dir: dir.clone(),
        key_options: key_options(a)?,
        update,
    };
    let (s, pending) = batch::run_dedup_seen(opened, format, key, cfg, &seen, report, &mut |b| {
        out.write(b)
    })?;
    // The output first: a crash before the commit sends these keys again
    // next time rather than never.
    out.finish()?;
    let info = pending.commit()?;
    let verb = if update { "added" } else { "not added" };
    let extra = format!(
        "; {} new ({verb}), {} seen before; seen-set: {}",
        s.new,
        s.seen,
        describe(&info)
    );
    Ok((s.dedup, extra))
}

/// "N keys, B bytes (b bytes/key) in F files".
fn describe(info: &SeenInfo) -> String {
    let (keys, bytes) = (info.keys(), info.bytes());
    let per = if keys == 0 {
        String::new()
    } else {
        format!(" ({:.1} bytes/key)", bytes as f64 / keys as f64)
    };
    format!(
        "{keys} keys, {bytes} bytes{per} in {} file{}",
        info.buckets.len(),
        if info.buckets.len() == 1 { "" } else { "s" }
    )
}

/// `irinorm seen info|compact`.
pub fn run(a: &SeenArgs) -> Result<i32, CliError> {
    match &a.command {
        SeenCommand::Info { dir, verify, json } => {
            let info = if *verify {
                batch::seen_verify(dir)?
            } else {
                batch::seen_info(dir)?
            };
            let text = if *json {
                let buckets: Vec<_> = info
                    .buckets
                    .iter()
                    .map(|b| serde_json::json!({"file": b.name, "keys": b.keys, "bytes": b.bytes}))
                    .collect();
                serde_json::json!({
                    "version": info.version,
                    "key_options": info.key_options,
                    "keys": info.keys(),
                    "bytes": info.bytes(),
                    "files": buckets,
                    "verified": verify,
                })
                .to_string()
            } else {
                let mut t = format!(
                    "format version {}\nkey options: {}\n{}\n",
                    info.version,
                    info.key_options,
                    describe(&info)
                );
                for b in &info.buckets {
                    let _ = writeln!(t, "  {}: {} keys, {} bytes", b.name, b.keys, b.bytes);
                }
                if *verify {
                    t.push_str("every block checked\n");
                }
                t
            };
            println!("{}", text.trim_end());
        }
        SeenCommand::Compact { dir } => {
            let info = batch::seen_compact(dir)?;
            eprintln!("irinorm: compacted: {}", describe(&info));
        }
    }
    Ok(0)
}
