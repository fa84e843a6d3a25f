//! One pipeline of `benches/throughput.rs` on one file, for profilers
//! (`perf record`, `valgrind --tool=callgrind`) and quick timings.
//!
//! ```text
//! cargo build --release --example pipelines
//! target/release/examples/pipelines PIPELINE FILE [LINES|all] [REPEAT]
//! valgrind --tool=callgrind target/release/examples/pipelines keys FILE 100000 1
//! ```
//!
//! `PIPELINE` is one of
//! * `keys` — `Normalizer::key` (scheme rung, URI form) → `HashSet<Cow<str>>`;
//! * `keys_only` — `Normalizer::key`, keys dropped (what `normalize`
//!   computes; `normalize` also hands each rewritten key's buffer to the
//!   next, which the public API leaves to the engine);
//! * `protocol` — as `keys` at the protocol rung (default rules);
//! * `parse` — `irinorm::parse` alone (the scan a key starts with);
//! * `naive` — the raw lines into a `HashSet<&[u8]>`, no normalization;
//! * `keys_fold`, `naive_fold` — `keys` and `naive` with `foldhash` instead
//!   of std's SipHash (what a dedup engine would use);
//! * `ada` — `ada_url::Url::parse` → `href()` → `HashSet<String>`;
//! * `ada_href` — `ada_url::Url::parse` → `href()`, no set;
//! * `url` — `url::Url::parse` → `String` → `HashSet<String>`;
//! * `engine`, `engine2` — the dedup engine of `irinorm dedup`
//!   (`batch::run_dedup`, scheme rung) on 1 or 2 worker threads, over the
//!   same lines as one in-memory input (built before the timed runs):
//!   batches, keys, table, sorted CSV rows (counted, not written);
//! * `engine_keys`, `engine_keys2` — the same with only the canonical
//!   column (`dedup --columns canonical`).
//! * `engine_mem`, `engine_mem2` — `engine`, `engine2` with the lines as an
//!   input in memory (`Opened::from_bytes`): batches are slices of it, as
//!   `dedup --mmap` makes of a file, not read into buffers.
//!
//! The first `LINES` lines (by default, or with `all`, every line) are
//! read, split at `\n`, and the pipeline runs `REPEAT` times (default 5);
//! the best run is printed as ns/line and MB/s (MB = 10^6 bytes of the
//! lines plus their newlines).

use std::borrow::Cow;
use std::collections::HashSet;
use std::hint::black_box;
use std::time::Instant;

use irinorm::{Level, Normalizer, Options};

#[path = "../benches/common/engine.rs"]
mod common_engine;

type Fold = foldhash::fast::RandomState;

#[inline(never)]
fn run(pipeline: &str, lines: &[&str], text: &'static [u8]) -> (usize, usize) {
    let scheme = Normalizer::new(Options::default());
    let protocol = Normalizer::new(Options {
        level: Level::Protocol,
        ..Options::default()
    });
    let mut errors = 0;
    match pipeline {
        "keys" | "protocol" => {
            let n = if pipeline == "keys" {
                &scheme
            } else {
                &protocol
            };
            let mut set: HashSet<Cow<str>> = HashSet::new();
            for &l in lines {
                match n.key(l) {
                    Ok(k) => {
                        set.insert(k);
                    }
                    Err(_) => errors += 1,
                }
            }
            (set.len(), errors)
        }
        "keys_only" => {
            let mut bytes = 0;
            for &l in lines {
                match scheme.key(l) {
                    Ok(k) => bytes += black_box(&k).len(),
                    Err(_) => errors += 1,
                }
            }
            (bytes, errors)
        }
        "parse" => {
            let mut bytes = 0;
            for &l in lines {
                match irinorm::parse(l) {
                    Ok(r) => bytes += black_box(r.path()).len(),
                    Err(_) => errors += 1,
                }
            }
            (bytes, errors)
        }
        "naive" => {
            let set: HashSet<&[u8]> = lines.iter().map(|l| l.as_bytes()).collect();
            (set.len(), 0)
        }
        "naive_fold" => {
            let set: HashSet<&[u8], Fold> = lines.iter().map(|l| l.as_bytes()).collect();
            (set.len(), 0)
        }
        "keys_fold" => {
            let mut set: HashSet<Cow<str>, Fold> = HashSet::default();
            for &l in lines {
                match scheme.key(l) {
                    Ok(k) => {
                        set.insert(k);
                    }
                    Err(_) => errors += 1,
                }
            }
            (set.len(), errors)
        }
        "ada" => {
            let mut set: HashSet<String> = HashSet::new();
            for &l in lines {
                match ada_url::Url::parse(l, None) {
                    Ok(u) => {
                        set.insert(u.href().to_owned());
                    }
                    Err(_) => errors += 1,
                }
            }
            (set.len(), errors)
        }
        "ada_href" => {
            let mut bytes = 0;
            for &l in lines {
                match ada_url::Url::parse(l, None) {
                    Ok(u) => bytes += black_box(u.href()).len(),
                    Err(_) => errors += 1,
                }
            }
            (bytes, errors)
        }
        "url" => {
            let mut set: HashSet<String> = HashSet::new();
            for &l in lines {
                match url::Url::parse(l) {
                    Ok(u) => {
                        set.insert(String::from(u));
                    }
                    Err(_) => errors += 1,
                }
            }
            (set.len(), errors)
        }
        "engine" => common_engine::dedup_text(text, 1, None),
        "engine2" => common_engine::dedup_text(text, 2, None),
        "engine_keys" => common_engine::dedup_text(text, 1, Some("canonical")),
        "engine_keys2" => common_engine::dedup_text(text, 2, Some("canonical")),
        "engine_mem" => common_engine::dedup_memory(text, 1, None),
        "engine_mem2" => common_engine::dedup_memory(text, 2, None),
        other => panic!("unknown pipeline {other:?}"),
    }
}

/// The lines as one input for the engine pipelines (what a file would
/// hold), built once outside the timed runs, as the criterion bench does.
fn engine_text(lines: &[&str]) -> &'static [u8] {
    let mut text = Vec::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
    for l in lines {
        text.extend_from_slice(l.as_bytes());
        text.push(b'\n');
    }
    text.leak()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [pipeline, file, rest @ ..] = &args[..] else {
        eprintln!("usage: pipelines PIPELINE FILE [LINES|all] [REPEAT]");
        std::process::exit(2);
    };
    let max: usize = match rest.first().map(String::as_str) {
        None | Some("all") => usize::MAX,
        Some(n) => n.parse().expect("LINES: a number or `all`"),
    };
    let repeat: usize = rest.get(1).map_or(5, |s| s.parse().unwrap());
    let raw = std::fs::read(file).expect("read FILE");
    let text = String::from_utf8_lossy(&raw);
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(&text);
    let lines: Vec<&str> = text
        .split('\n')
        .filter(|l| !l.is_empty())
        .take(max)
        .collect();
    let bytes: usize = lines.iter().map(|l| l.len() + 1).sum();
    let text = if pipeline.starts_with("engine") {
        engine_text(&lines)
    } else {
        &[]
    };
    let mut best = f64::INFINITY;
    let mut out = (0, 0);
    for _ in 0..repeat {
        let t = Instant::now();
        out = run(pipeline, black_box(&lines), text);
        best = best.min(t.elapsed().as_secs_f64());
    }
    println!(
        "{pipeline} {file}: {} lines, {:.1} ns/line, {:.1} MB/s, result {} errors {}",
        lines.len(),
        best * 1e9 / lines.len() as f64,
        bytes as f64 / 1e6 / best,
        out.0,
        out.1
    );
}
