//! `irinorm links`: a link graph from WAT/WARC files or CSV/TSV edges (see
//! `irinorm help links`).

use std::time::Instant;

use irinorm::batch::links::{self, Graph, Kind, LinkField, LinkReject};
use irinorm::batch::{self, csv_field, csv_u64, Column, DedupConfig, Observer, OutputFile};
use irinorm::{Level, Mode};

use super::{batch_bytes, distinct_outputs, inputs, normalizer, note, pool, progress, PREVIEW};
use crate::cli::{CliError, FormArg, InputArgs, LinksArgs, LinksFormatArg, RunArgs};
use crate::term::escape;

/// The format of `--input-format`, or the one the first input's name says.
fn kind(a: &LinksArgs) -> Result<Kind, CliError> {
    let inferred = || {
        let name = a.inputs.first()?.to_str()?.to_ascii_lowercase();
        let name = name
            .strip_suffix(".gz")
            .or_else(|| name.strip_suffix(".zst"))
            .unwrap_or(&name)
            .to_owned();
        Some(if name.ends_with(".wat") {
            LinksFormatArg::Wat
        } else if name.ends_with(".csv") {
            LinksFormatArg::Csv
        } else if name.ends_with(".tsv") {
            LinksFormatArg::Tsv
        } else {
            LinksFormatArg::Warc
        })
    };
    let f = a
        .input_format
        .or_else(inferred)
        .unwrap_or(LinksFormatArg::Warc);
    let delimiter = match f {
        LinksFormatArg::Wat | LinksFormatArg::Warc => {
            if a.source_column.is_some() || a.column.is_some() || a.base_column.is_some() {
                return Err(CliError::msg(
                    "--source-column, --column and --base-column are for CSV/TSV edges",
                ));
            }
            return Ok(Kind::Archive);
        }
        LinksFormatArg::Csv => b',',
        LinksFormatArg::Tsv => b'\t',
    };
    let col = |c: &Option<String>, default: usize| -> Result<Column, CliError> {
        match c {
            Some(s) => Ok(Column::parse(s)?),
            None => Ok(Column::Index(default)),
        }
    };
    Ok(Kind::Delimited {
        delimiter,
        header: !a.no_header,
        source: col(&a.source_column, 0)?,
        target: col(&a.column, 1)?,
        base: a.base_column.as_deref().map(Column::parse).transpose()?,
    })
}

/// The shared flags of a run, as `dedup` has them (progress, inputs).
fn run_args(a: &LinksArgs) -> RunArgs {
    RunArgs {
        inputs: a.inputs.clone(),
        output: a.output.clone(),
        rejects: a.rejects.clone(),
        strict: a.strict,
        max_line_bytes: a.max_record_bytes,
        threads: a.threads,
        chunk_size: 2 << 20,
        mmap: false,
        quiet: a.quiet,
        progress: a.progress,
        no_progress: a.no_progress,
        input: InputArgs {
            encoding: None,
            query_encoding: None,
            mode: a.mode,
            decode_entities: false,
            split_spaces: false,
            input_format: None,
            column: None,
            base_column: None,
            no_header: a.no_header,
            output_column: "canonical".into(),
        },
    }
}

/// The progress bar.
struct Bar(Option<indicatif::ProgressBar>);

impl Observer for Bar {
    fn progress(&mut self, bytes: u64) {
        if let Some(pb) = &self.0 {
            pb.inc(bytes);
        }
    }
}

pub fn run(a: &LinksArgs) -> Result<i32, CliError> {
    let start = Instant::now();
    distinct_outputs(&[
        ("--output", a.output.as_deref()),
        ("--rejects", a.rejects.as_deref()),
    ])?;
    let run = run_args(a);
    let graph = if a.hosts { Graph::Hosts } else { Graph::Pages };
    let mut key_args = a.key.clone();
    if a.hosts {
        if a.key.form != FormArg::Uri {
            return Err(CliError::msg(
                "--hosts names hosts as Common Crawl's host graph does: it takes no --form",
            ));
        }
    } else if matches!(a.key.form, FormArg::Surt | FormArg::SurtIa) {
        // Edges are keyed in URI form and shown as such: a SURT has no
        // scheme and would merge endpoints.
        return Err(CliError::msg(
            "links writes uri or iri keys (--form uri|iri)",
        ));
    }
    key_args.base = a.key.base.clone();
    let prep = batch::Prep::new(
        &batch::PrepConfig {
            mode: a.mode,
            decode_entities: false,
            query_encoding: None,
            split_spaces: false,
        },
        a.key.base.as_deref(),
    )
    .map_err(|e| CliError::msg(format!("invalid --base: {e}")))?
    .href_is_key(Level::from(a.key.level) == Level::String && a.mode == Mode::Web);
    let resolve_once = prep.is_noop();
    // uri or iri keys: the ladder's key function. In web mode a link that
    // is its own `href` is keyed from the parse that found it so (the same
    // key, without a second parse).
    let n = normalizer(&key_args)?;
    let own_href_key =
        batch::ladder_own_href_key_fn(prep.clone(), n.clone()).map(|f| links::OwnHrefKey(f.into()));
    let key = batch::ladder_key_fn(prep, n);
    let columns = match &a.columns {
        Some(c) => LinkField::parse_list(c)?,
        None => links::Config::default().columns,
    };
    if let Some(dir) = &a.temp_dir {
        batch::check_temp_dir(dir)?;
    }
    let (inputs, names, total) = inputs(&run);
    let pool = std::sync::Arc::new(pool(a.threads)?);
    let cfg = links::Config {
        kind: kind(a)?,
        graph,
        targets: a.targets,
        columns,
        max_record_bytes: a.max_record_bytes as usize,
        web_join: a.mode == Mode::Web,
        resolve_once,
        own_href_key,
        rejects_held: links::Config::default().rejects_held,
        dedup: DedupConfig {
            memory: a.memory.unwrap_or_else(batch::default_memory),
            temp_dir: a.temp_dir.clone(),
            batch_bytes: batch_bytes(&run, pool.current_num_threads()),
            pool: Some(pool.clone()),
            ..DedupConfig::default()
        },
    };
    let mut out = OutputFile::create(a.output.as_deref())?;
    let mut rejects_file = match &a.rejects {
        Some(p) => {
            let mut f = OutputFile::create(Some(p))?;
            f.write(b"file,record,offset,link,path,input,error\n")?;
            Some(f)
        }
        None => None,
    };
    let mut bar = Bar(progress(total, &run));
    let mut shown = 0usize;
    let mut row = Vec::new();
    let mut on_reject = |r: &LinkReject| -> Result<(), batch::RunError> {
        let name = names.get(r.file).map_or("-", String::as_str);
        match &mut rejects_file {
            Some(f) => {
                row.clear();
                csv_field(&mut row, name.as_bytes());
                for n in [r.record, r.offset, r.link] {
                    row.push(b',');
                    csv_u64(&mut row, n);
                }
                for s in [&r.path, &r.input, &r.reason] {
                    row.push(b',');
                    csv_field(&mut row, s.as_bytes());
                }
                row.push(b'\n');
                f.write(&row)
            }
            None => {
                if shown < PREVIEW && !a.quiet {
                    shown += 1;
                    let what = if r.link == 0 {
                        format!("record {} (offset {})", r.record, r.offset)
                    } else {
                        format!("record {} link {} {}", r.record, r.link, r.path)
                    };
                    let input: String = r.input.chars().take(100).collect();
                    note(format_args!(
                        "rejected {}: {what}: {}: {}",
                        escape(name),
                        escape(&r.reason),
                        escape(&input)
                    ));
                }
                Ok(())
            }
        }
    };
    let s = links::run(
        &inputs,
        &key,
        &cfg,
        &mut bar,
        &mut |b: &[u8]| out.write(b),
        &mut on_reject,
    )?;
    out.finish()?;
    if let Some(f) = rejects_file {
        f.finish()?;
    }
    if let Some(pb) = &bar.0 {
        pb.finish_and_clear();
    }
    if !a.quiet {
        let secs = start.elapsed().as_secs_f64();
        let what = if a.targets {
            format!("{} edges, {} targets", s.edges, s.rows)
        } else {
            format!("{} edges", s.edges)
        };
        let dropped = if a.hosts {
            format!(" ({} left out of the host graph)", s.dropped)
        } else {
            String::new()
        };
        let more = if s.rejected + s.records_rejected > PREVIEW as u64 && a.rejects.is_none() {
            format!(" (first {PREVIEW} shown; --rejects FILE lists all)")
        } else {
            String::new()
        };
        note(format_args!(
            "{} records ({} rejected), {} pages: {} links, {} accepted{dropped}, {} rejected{more}; \
             {what}; {secs:.3} s, {:.1} MB/s",
            s.records,
            s.records_rejected,
            s.pages,
            s.links,
            s.accepted,
            s.rejected,
            s.bytes as f64 / 1e6 / secs.max(1e-9)
        ));
        if s.dedup.spilled_bytes > 0 {
            note(format_args!(
                "spilled {:.1} MB to disk in {} partitions",
                s.dedup.spilled_bytes as f64 / 1e6,
                s.dedup.spilled_partitions
            ));
        }
    }
    Ok(i32::from(a.strict && s.rejected + s.records_rejected > 0))
}
