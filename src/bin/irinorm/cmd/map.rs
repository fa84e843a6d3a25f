//! `irinorm normalize` and `irinorm convert`: one output per input line or
//! record, in order, streaming (bounded memory on endless stdin).

use std::time::Instant;

use irinorm::batch::{self, Format, KeyFn, MapOutput, OutputFile};

use super::{
    distinct_outputs, exit, format, input_format, inputs, key_function, map_config, note, open,
    pool, prep, repairs_note, summary, Report,
};
use crate::cli::{
    CliError, ConvertArgs, ConvertTo, FormatArg, InputFormatArg, NormalizeArgs, RunArgs,
};

pub fn normalize(a: &NormalizeArgs) -> Result<i32, CliError> {
    let prep = prep(
        &a.run.input,
        a.key.base.as_deref(),
        Some(a.key.level.into()),
    )?;
    let key = key_function(&a.key, prep)?;
    run(&a.run, a.format, &*key)
}

pub fn convert(a: &ConvertArgs) -> Result<i32, CliError> {
    if a.run.input.base_column.is_some() {
        return Err(CliError::msg("convert has no --base-column"));
    }
    if let Some(f @ (InputFormatArg::Cdx | InputFormatArg::Cdxj)) = input_format(&a.run) {
        return Err(CliError::msg(format!(
            "convert reads lines or csv/tsv, not {}: use normalize",
            if f == InputFormatArg::Cdx {
                "cdx"
            } else {
                "cdxj"
            }
        )));
    }
    let prep = prep(&a.run.input, None, None)?;
    let policy = super::check::display_policy(&a.display)?;
    match a.to {
        ConvertTo::Uri => run(&a.run, a.format, &batch::key_fn(prep, irinorm::to_uri)),
        ConvertTo::Iri => {
            let to_iri = super::check::to_iri_fn(&policy);
            run(&a.run, a.format, &batch::key_fn(prep, to_iri))
        }
    }
}

fn run(run: &RunArgs, out_format: Option<FormatArg>, key: &KeyFn<'_>) -> Result<i32, CliError> {
    let start = Instant::now();
    distinct_outputs(&[
        ("--output", run.output.as_deref()),
        ("--rejects", run.rejects.as_deref()),
    ])?;
    let format = format(run)?;
    if let (Format::Records(_), Some(f)) = (&format, out_format) {
        return Err(CliError::msg(format!(
            "--format {} does not apply to csv/tsv input: each record is written back \
             with the key column (--output-column) and `error` appended",
            if f == FormatArg::Lines {
                "lines"
            } else {
                "csv"
            }
        )));
    }
    let out_format = out_format.unwrap_or(FormatArg::Lines);
    let (inputs, names, total) = inputs(run);
    let opened = open(run, &inputs)?;
    let pool = std::sync::Arc::new(pool(run.threads)?);
    let output = match (&format, out_format) {
        (Format::Records(_), _) => MapOutput::Records {
            output_column: run.input.output_column.clone(),
        },
        (Format::Lines, FormatArg::Lines) => MapOutput::Lines,
        (Format::Lines | Format::Cdx(_), FormatArg::Csv) => MapOutput::Csv,
        (Format::Cdx(_), FormatArg::Lines) => MapOutput::Cdx,
    };
    let cfg = map_config(run, &pool, output);
    let mut out = OutputFile::create(run.output.as_deref())?;
    let mut report = Report::new(run, &names, total)?;
    let stats = pool.install(|| {
        batch::run_map(
            opened,
            &format,
            key,
            &cfg,
            &mut report,
            &mut |b: &[u8]| {
                out.write(b)?;
                out.flush()
            },
        )
    })?;
    out.finish()?;
    let warning = report.warning(&stats);
    let to_file = report.finish()?;
    if !run.quiet {
        summary(&stats, "", start, to_file);
        if let Some(w) = warning {
            note(format_args!("{w}"));
        }
    }
    repairs_note(&pool, run.quiet);
    Ok(exit(run, &stats))
}
