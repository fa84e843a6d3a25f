//! A dedup run's loop: batches from the reader are keyed on the workers,
//! merged into the table (or kept whole), and the table writes the rows
//! at the end.

use super::config::{Config, Diagnostics, Summary};
use super::keying::{key_batch, Spares};
use super::table::Table;
use super::whole::Whole;
use crate::batch::source::{for_each_batch, Format, Layout, LineNumbers, Opened};
use crate::batch::{KeyFn, Observer, RunError, Stats};
use crate::cdx::CdxLayout;

/// Deduplicate `inputs` by `key` (on [`Config::pool`]); writes
/// the CSV (header and rows) through `out` in blocks.
///
/// ```
/// use irinorm::batch::{key_fn, open_all, run_dedup, DedupConfig, Format, Input, Prep, Quiet};
/// use irinorm::{Normalizer, Options};
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("urls.txt");
/// std::fs::write(&path, "HTTP://a.example:80/\nhttp://a.example/\n").unwrap();
/// let n = Normalizer::new(Options::default());
/// let key = key_fn(Prep::default(), |s: &str| n.key(s));
/// let inputs = open_all(&[Input::Path(path.clone())]).unwrap();
/// let mut csv = Vec::new();
/// let cfg = DedupConfig::default();
/// let s = run_dedup(inputs, &Format::Lines, &key, &cfg, &mut Quiet, &mut |b: &[u8]| {
///     csv.extend_from_slice(b);
///     Ok(())
/// })
/// .unwrap();
/// assert_eq!((s.unique, s.stats.lines), (1, 2));
/// let csv = String::from_utf8(csv).unwrap();
/// let row = format!("http://a.example/,2,{},1,HTTP://a.example:80/\n", path.display());
/// assert_eq!(csv, format!("canonical,count,first_file,first_line,example\n{row}"));
/// ```
pub fn run(
    inputs: Vec<Opened>,
    format: &Format,
    key: &KeyFn<'_>,
    cfg: &Config,
    obs: &mut (dyn Observer + Send),
    out: &mut (dyn FnMut(&[u8]) -> Result<(), RunError> + Send),
) -> Result<Summary, RunError> {
    // The run's own loop is on a worker too (as the CLI had it): each step
    // it hands the workers (keying a batch, merging it, writing the rows)
    // then starts on the thread that asks for it, where handing it over
    // and waiting for it woke two threads, a cost that shows most on one
    // worker and a small input (BENCHMARKS.md, decision log: "The run's loop on its own pool"). Without a pool of its own the run stays on the
    // caller's thread: a loop that blocks on its reader is not put on the
    // global pool, which the caller shares.
    cfg.on_pool(move || {
        let names: Vec<String> = inputs.iter().map(|o| o.name.clone()).collect();
        let mut table = Table::new(cfg);
        let spares = Spares::default();
        let mut stats = Stats::default();
        let mut layout: Option<Layout> = None;
        let mut cdx: Option<CdxLayout> = None;
        let mut lines = LineNumbers::default();
        let mut diagnostics = Diagnostics::default();
        let workers = cfg
            .pool
            .as_ref()
            .map_or_else(rayon::current_num_threads, |p| p.current_num_threads());
        for_each_batch(
            inputs,
            format,
            cfg.charset,
            cfg.max_line_bytes,
            cfg.batch_bytes,
            |item, upcoming| {
                let Some(batch) = item.batch_or_start(|l, c| {
                    (layout, cdx) = (l, c.map(|c| c.layout));
                    Ok(())
                })?
                else {
                    return Ok(());
                };
                if let Some(kept) = table.whole.take() {
                    // A batch came after the one kept as the input's only one
                    // (only [`Tuning::assume_ended`] says that the reader has
                    // ended without asking it): the kept one is merged first,
                    // as any other.
                    let (kept, mut chunks) = kept.into_parts();
                    table.add(cfg, &kept, &mut chunks)?;
                    spares.keep(chunks);
                }
                // On one worker, or two and a batch of a few MB, a batch that
                // may be kept leaves its entries in input order: `whole` then
                // indexes them in one table, in that order, and needs no
                // grouping by partition.
                let grouped = !(table.may_keep() && cfg.tuning.in_order(workers, batch.data.len()));
                diagnostics.in_order += usize::from(!grouped);
                let mut chunks = cfg.on_pool(|| {
                    key_batch(
                        &batch,
                        (layout.as_ref(), cdx.as_ref()),
                        key,
                        cfg,
                        &table.hasher,
                        &spares,
                        grouped,
                    )
                });
                if layout.is_none() {
                    // Each chunk numbered its lines from its own start; now
                    // that all have counted theirs, each learns its first.
                    let firsts = lines.chunks(&batch, chunks.iter().map(|c| c.stats.lines));
                    for (c, first) in chunks.iter_mut().zip(firsts) {
                        c.first_line = first;
                        for r in &mut c.rejects {
                            r.line += first;
                        }
                    }
                }
                // The input's only batch is indexed where it is, at the end
                // (`whole`); asked last, when the reader had the most time to
                // find that it has ended (if the batch did not say so itself).
                let whole =
                    table.takes_whole(&chunks) && (cfg.tuning.assume_ended || upcoming.ended());
                if !whole {
                    table.add(cfg, &batch, &mut chunks)?;
                }
                for c in &chunks {
                    stats.add(&c.stats);
                    for r in &c.rejects {
                        obs.reject(r)?;
                    }
                }
                if layout.is_some() {
                    // Records: the chunks count records, the batch its bytes.
                    stats.bytes += batch.bytes;
                }
                obs.progress(batch.bytes);
                if whole {
                    diagnostics.kept += 1;
                    table.whole = Some(Whole::new(batch, chunks));
                } else {
                    spares.keep(chunks);
                }
                Ok(())
            },
        )?;
        // The output's buffers take this memory instead of fresh pages.
        drop(spares);
        let mut summary = cfg.on_pool(|| table.finish(&names, out))?;
        summary.stats = stats;
        summary.diagnostics.kept = diagnostics.kept;
        summary.diagnostics.in_order = diagnostics.in_order;
        Ok(summary)
    })
}
