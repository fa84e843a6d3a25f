//! The dedup engine of `irinorm dedup` as a benchmark pipeline, shared by
//! `benches/throughput.rs` and `examples/pipelines.rs` (included with
//! `#[path]`, so both measure the same code).

use std::hint::black_box;

use irinorm::batch::{self, key_fn, Columns, DedupConfig, Format, Opened, Prep, Quiet};
use irinorm::{Normalizer, Options};

/// [`batch::run_dedup`] (scheme rung, URI form) over `text` as one input on
/// `threads` workers: batches, keys, the table, the CSV rows in input order
/// (formatted and counted, not written) with `columns` (`None`: all five;
/// `canonical` alone writes what the peers' sets hold, the distinct keys).
/// The input is read as a stream into the reader's batches, as `irinorm
/// dedup` reads a file. Returns (rows, rejected lines).
pub fn dedup_text<T>(text: T, threads: usize, columns: Option<&str>) -> (usize, usize)
where
    T: AsRef<[u8]> + Send + 'static,
{
    let input = Opened::from_reader("-", Box::new(std::io::Cursor::new(text)));
    dedup_input(input, threads, columns)
}

/// [`dedup_text`] over `text` as an input in memory: its batches are
/// slices of it, as `irinorm dedup --mmap` makes of a file's pages.
pub fn dedup_memory(text: &'static [u8], threads: usize, columns: Option<&str>) -> (usize, usize) {
    let input = Opened::from_bytes("-", std::sync::Arc::new(text));
    dedup_input(input, threads, columns)
}

fn dedup_input(input: Opened, threads: usize, columns: Option<&str>) -> (usize, usize) {
    let n = Normalizer::new(Options::default());
    let key = key_fn(Prep::default(), |s: &str| n.key(s));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool");
    let cfg = DedupConfig {
        pool: Some(std::sync::Arc::new(pool)),
        columns: columns.map_or_else(Columns::default, |c| {
            Columns::parse(c).expect("output columns")
        }),
        ..DedupConfig::default()
    };
    let mut bytes = 0usize;
    let s = batch::run_dedup(
        vec![input],
        &Format::Lines,
        &key,
        &cfg,
        &mut Quiet,
        &mut |b: &[u8]| {
            bytes += black_box(b).len();
            Ok(())
        },
    )
    .expect("dedup");
    (s.unique as usize, s.stats.rejected as usize)
}
