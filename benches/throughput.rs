//! Throughput of "parse → canonical string → dedup" pipelines, irinorm vs the
//! code a user would write instead.
//!
//! ```text
//! cargo bench --bench throughput                      # all corpora
//! cargo bench --bench throughput -- kasztp            # one group
//! IRINORM_BENCH_CORPUS=bench-data/corpus-5m.txt cargo bench --bench throughput
//! ```
//!
//! Groups (one per corpus, `Throughput::Bytes` = file bytes):
//! * `kasztp`, `node_files` — `data/*.txt`, one URL per line (kasztp's BOM is
//!   stripped before the lines are split, for every pipeline alike);
//! * `cc_bases` — the `base` column of `data/relative_urls_cc_10k.csv`;
//! * `generated` — `$IRINORM_BENCH_CORPUS`, else the smallest
//!   `bench-data/corpus-*.txt` (see `examples/gen_corpus.rs`); skipped with a
//!   message when there is none.
//!
//! Pipelines (single thread, lines pre-split, `std` `HashSet` with its default
//! hasher for everyone, fresh set per iteration):
//! * `url_pipeline` — `url::Url::parse` → `String::from(url)` → `HashSet<String>`;
//! * `ada_pipeline` — `ada_url::Url::parse(line, None)` → `href()` → `HashSet<String>`;
//! * `naive_hashset` — the raw lines into a `HashSet<&[u8]>`: a careless dedup
//!   that normalizes nothing (issue 9: normalizing must cost less than this);
//! * `irinorm_keys_t1` — `Normalizer::key` (scheme rung, URI form) →
//!   `HashSet<Cow<str>>` (borrowed keys stay borrowed);
//! * `irinorm_dedup_t1`, `irinorm_dedup_t2` — the engine of `irinorm dedup`
//!   (`batch::run_dedup`, scheme rung) on 1 and 2 worker threads, over the
//!   same lines as one in-memory input: batches, keys, the table of distinct
//!   keys with counts and first occurrences, and the CSV rows in input
//!   order (formatted, not written to a file). This is what the issue-9
//!   targets compare with the peers.
//! * `irinorm_dedup_mem_t1`, `irinorm_dedup_mem_t2` — the same with the
//!   lines as an input in memory (`Opened::from_bytes`): its batches are
//!   slices of it, as `irinorm dedup --mmap` makes of a file's pages, not
//!   read into the reader's buffers.
//! * `irinorm_dedup_keys_t1` — the same engine writing only the canonical
//!   column (`dedup --columns canonical`): the distinct keys, which is what
//!   the peers' sets hold (its table keeps no examples).
//!
//! `sort -u` and the `irinorm dedup` binary are measured end to end by
//! `scripts/bench_e2e.sh` (wall time and peak RSS), not here.

use std::borrow::Cow;
use std::collections::HashSet;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

#[path = "common/engine.rs"]
mod engine;

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use irinorm::{Level, Normalizer, Options};

struct Corpus {
    name: &'static str,
    /// Bytes of the input as a file (what a dedup tool would read).
    bytes: u64,
    lines: Vec<&'static str>,
}

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data")
}

fn leak_lines(text: String) -> Vec<&'static str> {
    let text: &'static str = Box::leak(text.into_boxed_str());
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    text.lines().filter(|l| !l.is_empty()).collect()
}

fn read_lossy(path: &Path) -> Option<(u64, String)> {
    let raw = std::fs::read(path).ok()?;
    let n = raw.len() as u64;
    Some((n, String::from_utf8_lossy(&raw).into_owned()))
}

fn line_corpus(name: &'static str, path: &Path) -> Option<Corpus> {
    let Some((bytes, text)) = read_lossy(path) else {
        eprintln!(
            "[throughput] {}: not readable, group {name} skipped",
            path.display()
        );
        return None;
    };
    Some(Corpus {
        name,
        bytes,
        lines: leak_lines(text),
    })
}

fn cc_bases() -> Option<Corpus> {
    let (_, text) = read_lossy(&data_dir().join("relative_urls_cc_10k.csv"))?;
    let bases: String = text
        .lines()
        .skip(1)
        .filter_map(|row| row.split_once(',').map(|(b, _)| b))
        .flat_map(|b| [b, "\n"])
        .collect();
    Some(Corpus {
        name: "cc_bases",
        bytes: bases.len() as u64,
        lines: leak_lines(bases),
    })
}

/// `$IRINORM_BENCH_CORPUS`, else the smallest `bench-data/corpus-*.txt`.
fn generated() -> Option<Corpus> {
    let path = match std::env::var_os("IRINORM_BENCH_CORPUS") {
        Some(p) => PathBuf::from(p),
        None => {
            let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("bench-data");
            let mut found: Vec<(u64, PathBuf)> = std::fs::read_dir(&dir)
                .into_iter()
                .flatten()
                .flatten()
                .filter(|e| {
                    let n = e.file_name();
                    let n = n.to_string_lossy();
                    n.starts_with("corpus-") && n.ends_with(".txt")
                })
                .filter_map(|e| Some((e.metadata().ok()?.len(), e.path())))
                .collect();
            found.sort();
            match found.into_iter().next() {
                Some((_, p)) => p,
                None => {
                    eprintln!(
                        "[throughput] no bench-data/corpus-*.txt and no IRINORM_BENCH_CORPUS: \
                         group `generated` skipped (make one with \
                         `cargo run --release --example gen_corpus -- --lines 5000000 --seed 1 \
                         -o bench-data/corpus-5m.txt`)"
                    );
                    return None;
                }
            }
        }
    };
    eprintln!("[throughput] generated corpus: {}", path.display());
    line_corpus("generated", &path)
}

// ------------------------------------------------------------------ pipelines

/// Returns (distinct, errors).
fn url_pipeline(lines: &[&str]) -> (usize, usize) {
    let mut set: HashSet<String> = HashSet::new();
    let mut errors = 0;
    for &line in lines {
        match url::Url::parse(line) {
            Ok(u) => {
                set.insert(String::from(u));
            }
            Err(_) => errors += 1,
        }
    }
    (set.len(), errors)
}

fn ada_pipeline(lines: &[&str]) -> (usize, usize) {
    let mut set: HashSet<String> = HashSet::new();
    let mut errors = 0;
    for &line in lines {
        match ada_url::Url::parse(line, None) {
            Ok(u) => {
                set.insert(u.href().to_owned());
            }
            Err(_) => errors += 1,
        }
    }
    (set.len(), errors)
}

/// The raw bytes of each line, no parsing, no normalization.
fn naive_hashset(lines: &[&str]) -> (usize, usize) {
    let set: HashSet<&[u8]> = lines.iter().map(|l| l.as_bytes()).collect();
    (set.len(), 0)
}

fn irinorm_keys<'a>(n: &Normalizer, lines: &[&'a str]) -> (usize, usize) {
    let mut set: HashSet<Cow<'a, str>> = HashSet::new();
    let mut errors = 0;
    for &line in lines {
        match n.key(line) {
            Ok(k) => {
                set.insert(k);
            }
            Err(_) => errors += 1,
        }
    }
    (set.len(), errors)
}

fn normalizer() -> Normalizer {
    Normalizer::new(Options {
        level: Level::Scheme,
        ..Options::default()
    })
}

// ------------------------------------------------------------------ driver

fn bench_corpus(c: &mut Criterion, corpus: &Corpus) {
    let lines = &corpus.lines[..];
    let mb = corpus.bytes as f64 / 1e6;
    // One untimed pass each: what every pipeline thinks of the corpus.
    let (u_d, u_e) = url_pipeline(lines);
    let (a_d, a_e) = ada_pipeline(lines);
    let (n_d, _) = naive_hashset(lines);
    eprintln!(
        "[throughput] {}: {} lines, {:.2} MB | url: {u_d} distinct, {u_e} errors | \
         ada: {a_d} distinct, {a_e} errors | naive: {n_d} distinct",
        corpus.name,
        lines.len(),
        mb
    );
    let n = normalizer();
    let (i_d, i_e) = irinorm_keys(&n, lines);
    // The lines as one input for the engine (what a file would hold).
    let text: &'static [u8] = {
        let mut t = Vec::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
        for l in lines {
            t.extend_from_slice(l.as_bytes());
            t.push(b'\n');
        }
        t.leak()
    };
    let (e_d, e_e) = engine::dedup_text(text, 1, None);
    assert_eq!(
        (e_d, e_e),
        (i_d, i_e),
        "the engine and the key pipeline disagree"
    );
    assert_eq!(
        engine::dedup_memory(text, 2, None),
        (i_d, i_e),
        "the engine in memory and the key pipeline disagree"
    );
    eprintln!(
        "[throughput] {}: irinorm scheme keys: {i_d} distinct, {i_e} errors",
        corpus.name
    );

    let mut g = c.benchmark_group(corpus.name);
    g.throughput(Throughput::Bytes(corpus.bytes));
    if lines.len() > 1_000_000 {
        // Seconds per iteration: one iteration per sample.
        g.sampling_mode(SamplingMode::Flat);
    }
    g.bench_function("url_pipeline", |b| {
        b.iter(|| url_pipeline(black_box(lines)))
    });
    g.bench_function("ada_pipeline", |b| {
        b.iter(|| ada_pipeline(black_box(lines)))
    });
    g.bench_function("naive_hashset", |b| {
        b.iter(|| naive_hashset(black_box(lines)))
    });
    g.bench_function("irinorm_keys_t1", |b| {
        b.iter(|| irinorm_keys(&n, black_box(lines)))
    });
    for threads in [1, 2] {
        g.bench_function(format!("irinorm_dedup_t{threads}"), |b| {
            b.iter(|| engine::dedup_text(black_box(text), threads, None))
        });
        g.bench_function(format!("irinorm_dedup_mem_t{threads}"), |b| {
            b.iter(|| engine::dedup_memory(black_box(text), threads, None))
        });
    }
    // The keys alone (`--columns canonical`): the output the peers' sets
    // hold, still counted and in input order.
    g.bench_function("irinorm_dedup_keys_t1", |b| {
        b.iter(|| engine::dedup_text(black_box(text), 1, Some("canonical")))
    });
    g.finish();
}

fn throughput(c: &mut Criterion) {
    let dir = data_dir();
    let corpora = [
        line_corpus("kasztp", &dir.join("kasztp.txt")),
        line_corpus("node_files", &dir.join("node_files.txt")),
        cc_bases(),
        generated(),
    ];
    for corpus in corpora.iter().flatten() {
        bench_corpus(c, corpus);
    }
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
}

criterion_group! {
    name = benches;
    config = config();
    targets = throughput
}
criterion_main!(benches);
