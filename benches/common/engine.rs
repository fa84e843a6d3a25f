//! The dedup engine of `irinorm dedup` as a benchmark pipeline, shared by
//! `benches/throughput.rs` and `examples/pipelines.rs` (included with
//! `#[path]`, so both measure the same code).

use std::hint::black_box;

use irinorm::batch::{dedup, key_fn, prep::Prep, source, Format, Quiet};
use irinorm::{Normalizer, Options};

/// `batch::dedup::run` (scheme rung, URI form) over `text` as one input on
/// `threads` workers: batches, keys, the table, the CSV rows in input order
/// (formatted and counted, not written) with `columns` (`None`: all five;
/// `canonical` alone writes what the peers' sets hold, the distinct keys).
/// Returns (rows, rejected lines).
pub fn dedup_text<T>(text: T, threads: usize, columns: Option<&str>) -> (usize, usize)
where
    T: AsRef<[u8]> + Send + 'static,
{
    let n = Normalizer::new(Options::default());
    let key = key_fn(Prep::default(), |s: &str| n.key(s));
    let input = source::Opened::from_reader("-", Box::new(std::io::Cursor::new(text)));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool");
    let cfg = dedup::Config {
        pool: Some(std::sync::Arc::new(pool)),
        columns: columns.map_or_else(dedup::Columns::default, |c| {
            dedup::Columns::parse(c).expect("output columns")
        }),
        ..dedup::Config::default()
    };
    let mut bytes = 0usize;
    let s = dedup::run(
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
