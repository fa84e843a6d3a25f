//! CSV/TSV input (`--input-format csv|tsv`, `--column`, `--base-column`).
//!
//! A quoted field may hold commas and newlines, so the input cannot be cut
//! into chunks at arbitrary line ends as plain lines are. Records are
//! therefore *read* sequentially (the `csv` crate, `flexible`, one reader per
//! input after decompression/UTF-16 transcoding by [`input::open_stream`]),
//! in batches of [`BATCH`] records; the keys of a batch are computed in
//! parallel (rayon, `collect` keeps the order) and then consumed in order on
//! the calling thread: written (`normalize`, `convert`) or inserted into one
//! first-occurrence table (`dedup`). The output is thus byte-identical
//! whatever `--threads`.
//!
//! Row numbers are the *physical* line on which a record starts (1-based,
//! the header counts), as in the `first_line` and rejects columns.
//! `normalize`/`convert` write every input field unchanged (same bytes; the
//! csv writer quotes as needed) followed by the key column and `error`.

use std::borrow::Cow;
use std::time::Instant;

use csv::ByteRecord;
use rayon::prelude::*;

use crate::cli::{CliError, InputFormatArg, RunArgs, SortArg};
use crate::decode::{decode_line, Charset};
use crate::input::{self, Spec};
use crate::output::{csv_field, csv_u64, OutputFile};
use crate::pipeline::{note, summary, RejectReason, Rejects, Stats};

/// Records per parallel batch.
pub const BATCH: usize = 1 << 16;

/// The key of one record: `(reference, base)` → key.
pub type RowKey<'a> = dyn Fn(&str, Option<&str>) -> Result<String, RejectReason> + Sync + 'a;

/// The field delimiter if the input is csv/tsv: `--input-format`, else
/// inferred from the first input's name (`.csv`/`.tsv`, also followed by
/// `.gz`/`.zst`).
pub fn delimiter(run: &RunArgs) -> Option<u8> {
    let fmt = run.input.input_format.or_else(|| {
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
    })?;
    match fmt {
        InputFormatArg::Lines => None,
        InputFormatArg::Csv => Some(b','),
        InputFormatArg::Tsv => Some(b'\t'),
    }
}

/// `--column`/`--base-column` need csv/tsv input.
pub fn check_lines_args(run: &RunArgs) -> Result<(), CliError> {
    if run.input.column.is_some() || run.input.base_column.is_some() {
        return Err(CliError::msg(
            "--column and --base-column need csv or tsv input (--input-format)",
        ));
    }
    Ok(())
}

/// A column given as a name or a 1-based index, resolved against `header`.
fn column(spec: &str, header: Option<&ByteRecord>, file: &str) -> Result<usize, CliError> {
    if !spec.is_empty() && spec.bytes().all(|b| b.is_ascii_digit()) {
        return match spec.parse::<usize>() {
            Ok(n) if n >= 1 => Ok(n - 1),
            _ => Err(CliError::msg(format!(
                "column index {spec} out of range (indexes are 1-based)"
            ))),
        };
    }
    let Some(h) = header else {
        return Err(CliError::msg(format!(
            "column {spec:?} given by name, but --no-header: give its 1-based index"
        )));
    };
    h.iter()
        .position(|f| f == spec.as_bytes())
        .ok_or_else(|| CliError::msg(format!("no column {spec:?} in the header of {file}")))
}

/// One record and the physical line it starts on.
struct Rec {
    rec: ByteRecord,
    line: u64,
}

enum RowOut {
    Blank,
    Key(String),
    Reject(RejectReason),
}

/// Everything about one record: its reference field, its base, its key.
fn row_out(
    r: &Rec,
    col: usize,
    base_col: Option<usize>,
    charset: Option<Charset>,
    max_line: usize,
    key: &RowKey<'_>,
) -> RowOut {
    let Some(field) = r.rec.get(col) else {
        return RowOut::Reject(RejectReason::Other(format!(
            "row has no column {}",
            col + 1
        )));
    };
    // With a base, the empty reference is meaningful (the base document).
    let empty_ref = field.is_empty() && base_col.is_some();
    if !empty_ref
        && field
            .iter()
            .all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
    {
        return RowOut::Blank;
    }
    if field.len() > max_line {
        return RowOut::Reject(RejectReason::TooLong { max: max_line });
    }
    let s = match decode(field, charset) {
        Ok(s) => s,
        Err(e) => return RowOut::Reject(e),
    };
    let base = match base_col {
        None => None,
        Some(bc) => match r.rec.get(bc) {
            None => {
                return RowOut::Reject(RejectReason::Other(format!(
                    "invalid base: row has no column {}",
                    bc + 1
                )))
            }
            Some(b) => match decode(b, charset) {
                Ok(b) => Some(b),
                Err(e) => return RowOut::Reject(RejectReason::Other(format!("invalid base: {e}"))),
            },
        },
    };
    match key(&s, base.as_deref()) {
        Ok(k) => RowOut::Key(k),
        Err(e) => RowOut::Reject(e),
    }
}

fn decode(field: &[u8], charset: Option<Charset>) -> Result<Cow<'_, str>, RejectReason> {
    match charset {
        None => {
            std::str::from_utf8(field)
                .map(Cow::Borrowed)
                .map_err(|e| RejectReason::InvalidUtf8 {
                    at: e.valid_up_to(),
                })
        }
        Some(_) => decode_line(field, charset).map_err(RejectReason::Decode),
    }
}

/// The input text of a rejected record (lossy; over-long cut like lines).
fn reject_text(r: &Rec, col: usize, max_line: usize) -> String {
    crate::pipeline::reject_input(r.rec.get(col).unwrap_or(b""), max_line).into_owned()
}

/// What the batch loop hands to its consumer.
struct Batch<'a> {
    file: usize,
    name: &'a str,
    /// The header of this file (None with --no-header).
    header: Option<&'a ByteRecord>,
    col: usize,
    recs: &'a [Rec],
    outs: &'a [RowOut],
}

/// Read every input as records, key them batch by batch in parallel, and
/// hand each batch in order to `consume`. Returns the stats.
fn for_each_batch(
    run: &RunArgs,
    delim: u8,
    pool: &rayon::ThreadPool,
    key: &RowKey<'_>,
    mut consume: impl FnMut(Batch<'_>) -> Result<(), CliError>,
) -> Result<Stats, CliError> {
    let specs = Spec::from_args(&run.inputs);
    let opened = input::open_all(&specs)?;
    let max_line = run.max_line_bytes as usize;
    let mut stats = Stats::default();
    for (file, opened) in opened.into_iter().enumerate() {
        let name = opened.name();
        let (reader, charset) = input::open_stream(opened, run.input.encoding)?;
        let mut rdr = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .delimiter(delim)
            .from_reader(reader);
        let err = |e: csv::Error| CliError::msg(format!("cannot read {name}: {e}"));
        let header = if run.input.no_header {
            None
        } else {
            let mut h = ByteRecord::new();
            if !rdr.read_byte_record(&mut h).map_err(err)? {
                continue;
            }
            Some(h)
        };
        let col = match &run.input.column {
            Some(c) => column(c, header.as_ref(), &name)?,
            None => 0,
        };
        let base_col = match &run.input.base_column {
            Some(c) => Some(column(c, header.as_ref(), &name)?),
            None => None,
        };
        let mut done = false;
        while !done {
            let mut recs: Vec<Rec> = Vec::with_capacity(1024);
            while recs.len() < BATCH {
                let mut rec = ByteRecord::new();
                if !rdr.read_byte_record(&mut rec).map_err(err)? {
                    done = true;
                    break;
                }
                let line = rec.position().map_or(0, |p| p.line());
                recs.push(Rec { rec, line });
            }
            let outs: Vec<RowOut> = pool.install(|| {
                recs.par_iter()
                    .map(|r| row_out(r, col, base_col, charset, max_line, key))
                    .collect()
            });
            stats.lines += recs.len() as u64;
            for o in &outs {
                match o {
                    RowOut::Blank => stats.blank += 1,
                    RowOut::Key(_) => stats.accepted += 1,
                    RowOut::Reject(_) => stats.rejected += 1,
                }
            }
            consume(Batch {
                file,
                name: &name,
                header: header.as_ref(),
                col,
                recs: &recs,
                outs: &outs,
            })?;
        }
        stats.bytes += rdr.position().byte();
    }
    Ok(stats)
}

fn exit(run: &RunArgs, stats: &Stats) -> i32 {
    i32::from(run.strict && stats.rejected > 0)
}

/// `normalize`/`convert` on records: every field, then the key and `error`.
pub fn run_map(run: &RunArgs, delim: u8, key: &RowKey<'_>) -> Result<i32, CliError> {
    let start = Instant::now();
    let pool = crate::pipeline::pool(run.threads)?;
    let mut out = OutputFile::create(run.output.as_deref())?;
    let mut rejects = Rejects::create(run.rejects.as_deref(), run.quiet)?;
    let max_line = run.max_line_bytes as usize;
    let mut header_done = false;
    let writer = || {
        csv::WriterBuilder::new()
            .delimiter(delim)
            .flexible(true)
            .terminator(csv::Terminator::Any(b'\n'))
            .from_writer(Vec::new())
    };
    let werr = |e: csv::Error| CliError::msg(format!("cannot write CSV: {e}"));
    let stats = for_each_batch(run, delim, &pool, key, |b| {
        let mut w = writer();
        if !header_done {
            header_done = true;
            if let Some(h) = b.header {
                let mut h = h.clone();
                h.push_field(run.input.output_column.as_bytes());
                h.push_field(b"error");
                w.write_byte_record(&h).map_err(werr)?;
            }
        }
        for (r, o) in b.recs.iter().zip(b.outs) {
            let mut row = r.rec.clone();
            match o {
                RowOut::Blank => {
                    row.push_field(b"");
                    row.push_field(b"");
                }
                RowOut::Key(k) => {
                    row.push_field(k.as_bytes());
                    row.push_field(b"");
                }
                RowOut::Reject(e) => {
                    row.push_field(b"");
                    row.push_field(e.to_string().as_bytes());
                    rejects.record(b.name, r.line, &reject_text(r, b.col, max_line), e)?;
                }
            }
            w.write_byte_record(&row).map_err(werr)?;
        }
        let text = w
            .into_inner()
            .map_err(|e| CliError::msg(format!("cannot write CSV: {e}")))?;
        out.write(&text)?;
        out.flush()
    })?;
    let repairs = crate::prep::collect_repairs(&pool);
    out.finish()?;
    let to_file = rejects.to_file();
    rejects.finish()?;
    if !run.quiet {
        summary(&stats, None, start, to_file);
        if !repairs.is_empty() {
            note(format_args!("repairs: {repairs}"));
        }
    }
    Ok(exit(run, &stats))
}

/// One key of the records dedup.
struct Row {
    key: String,
    count: u64,
    file: usize,
    line: u64,
    example: Vec<u8>,
}

/// `dedup` on records: same CSV as for lines; `first_line` is the line on
/// which the record starts, `example` the reference field as written.
pub fn run_dedup(
    run: &RunArgs,
    delim: u8,
    sort: SortArg,
    surt: bool,
    key: &RowKey<'_>,
) -> Result<i32, CliError> {
    let start = Instant::now();
    let pool = crate::pipeline::pool(run.threads)?;
    let mut out = OutputFile::create(run.output.as_deref())?;
    let mut rejects = Rejects::create(run.rejects.as_deref(), run.quiet)?;
    let max_line = run.max_line_bytes as usize;
    let split = run.input.split_spaces;
    let mut names: Vec<String> = Vec::new();
    let mut rows: Vec<Row> = Vec::new();
    let mut index: hashbrown::HashMap<String, usize, foldhash::fast::RandomState> =
        hashbrown::HashMap::default();
    let stats = for_each_batch(run, delim, &pool, key, |b| {
        if names.len() <= b.file {
            names.resize(b.file + 1, String::new());
            names[b.file] = b.name.to_owned();
        }
        for (r, o) in b.recs.iter().zip(b.outs) {
            match o {
                RowOut::Blank => {}
                RowOut::Key(k) => {
                    let mut add = |k: &str| match index.get(k) {
                        Some(&i) => rows[i].count += 1,
                        None => {
                            index.insert(k.to_owned(), rows.len());
                            rows.push(Row {
                                key: k.to_owned(),
                                count: 1,
                                file: b.file,
                                line: r.line,
                                example: r.rec.get(b.col).unwrap_or(b"").to_vec(),
                            });
                        }
                    };
                    if split && k.contains(' ') {
                        k.split(' ').filter(|p| !p.is_empty()).for_each(&mut add);
                    } else {
                        add(k);
                    }
                }
                RowOut::Reject(e) => {
                    rejects.record(b.name, r.line, &reject_text(r, b.col, max_line), e)?
                }
            }
        }
        Ok(())
    })?;
    drop(index);
    let repairs = crate::prep::collect_repairs(&pool);
    // --form surt: grouped by the URI-form key, shown (and sorted) as SURT.
    let shown = |k: &str| -> Vec<u8> {
        if surt {
            crate::pipeline::surt_of(k.as_bytes())
        } else {
            k.as_bytes().to_vec()
        }
    };
    match sort {
        SortArg::First => {}
        SortArg::Canonical if !surt => pool.install(|| rows.par_sort_by(|a, b| a.key.cmp(&b.key))),
        SortArg::Canonical | SortArg::Surt => pool.install(|| {
            rows.par_sort_by_cached_key(|r| {
                (crate::pipeline::surt_of(r.key.as_bytes()), r.key.clone())
            })
        }),
    }
    out.write(b"canonical,count,first_file,first_line,example\n")?;
    let mut t = Vec::with_capacity(1 << 20);
    for r in &rows {
        csv_field(&mut t, &shown(&r.key));
        t.push(b',');
        csv_u64(&mut t, r.count);
        t.push(b',');
        csv_field(&mut t, names[r.file].as_bytes());
        t.push(b',');
        csv_u64(&mut t, r.line);
        t.push(b',');
        csv_field(&mut t, &r.example);
        t.push(b'\n');
        if t.len() > 1 << 20 {
            out.write(&t)?;
            t.clear();
        }
    }
    out.write(&t)?;
    out.finish()?;
    let to_file = rejects.to_file();
    rejects.finish()?;
    if !run.quiet {
        summary(&stats, Some(rows.len()), start, to_file);
        if !repairs.is_empty() {
            note(format_args!("repairs: {repairs}"));
        }
    }
    Ok(exit(run, &stats))
}
