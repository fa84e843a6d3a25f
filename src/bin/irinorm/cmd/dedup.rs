//! `irinorm dedup`: one CSV row per distinct key (see `irinorm help dedup`).

use std::time::Instant;

use irinorm::batch::{self, DedupConfig, Order, OutputFile};

use super::{
    batch_bytes, distinct_outputs, exit, format, inputs, key_function, note, open, pool, prep,
    repairs_note, summary, Report,
};
use crate::cli::{CliError, DedupArgs, FormArg, SortArg};

pub fn run(a: &DedupArgs) -> Result<i32, CliError> {
    let start = Instant::now();
    let run = &a.run;
    if run.input.output_column != "canonical" {
        return Err(CliError::msg(
            "dedup writes the columns of --columns; --output-column is for normalize and convert",
        ));
    }
    distinct_outputs(&[
        ("--output", run.output.as_deref()),
        ("--rejects", run.rejects.as_deref()),
    ])?;
    // SURT is a display form that is not one-to-one (no scheme): rows are
    // grouped by the URI-form key and shown as SURT. IA SURT keys are the
    // grouping keys themselves (the IA merges http and https).
    let surt = a.key.form == FormArg::Surt;
    let surt_ia = a.key.form == FormArg::SurtIa;
    let mut key_args = a.key.clone();
    if surt {
        key_args.form = FormArg::Uri;
    }
    let prep = prep(&run.input, a.key.base.as_deref(), Some(a.key.level.into()))?;
    let key = key_function(&key_args, prep)?;
    let format = format(run)?;
    if let Some(dir) = &a.temp_dir {
        batch::check_temp_dir(dir)?;
    }
    let (inputs, names, total) = inputs(run);
    let opened = open(run, &inputs)?;
    let pool = std::sync::Arc::new(pool(run.threads)?);
    let cfg = DedupConfig {
        chunk_size: run.chunk_size as usize,
        max_line_bytes: run.max_line_bytes as usize,
        split_spaces: run.input.split_spaces,
        memory: a.memory.unwrap_or_else(batch::default_memory),
        temp_dir: a.temp_dir.clone(),
        order: match a.sort {
            SortArg::First => Order::First,
            SortArg::Canonical if !surt => Order::Key,
            SortArg::Surt if surt_ia => Order::Key,
            SortArg::Canonical | SortArg::Surt => Order::Surt,
        },
        show_surt: surt,
        charset: run.input.encoding,
        batch_bytes: batch_bytes(run, pool.current_num_threads()),
        columns: a.columns.clone().unwrap_or_default(),
        pool: Some(pool.clone()),
        tuning: Default::default(),
    };
    let out = OutputFile::create(run.output.as_deref())?;
    let mut report = Report::new(run, &names, total)?;
    // The run's loop is on the pool's workers (`batch::run_dedup`).
    // With --seen/--seen-check the rows pass the seen-set's test first.
    let (s, seen) = super::seen::dedup(a, opened, &format, &*key, &cfg, &mut report, out)?;
    let warning = report.warning(&s.stats);
    let to_file = report.finish()?;
    if !run.quiet {
        let mut extra = format!(", {} unique", s.unique);
        extra.push_str(&seen);
        if s.spilled_bytes > 0 {
            extra.push_str(&format!(
                "; spilled {:.1} MB to disk ({:.1} MB of rows compressed {:.1}x) in {} partitions, {} {}",
                s.spilled_bytes as f64 / 1e6,
                s.spilled_raw_bytes as f64 / 1e6,
                s.spilled_raw_bytes as f64 / s.spilled_bytes as f64,
                s.spilled_partitions,
                s.spill_passes,
                if s.spill_passes == 1 {
                    "pass"
                } else {
                    "passes"
                }
            ));
        }
        summary(&s.stats, &extra, start, to_file);
        if let Some(w) = warning {
            note(format_args!("{w}"));
        }
    }
    repairs_note(&pool, run.quiet);
    Ok(exit(run, &s.stats))
}
