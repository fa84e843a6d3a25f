//! url vs ada-url, the two WPT-conformant parsers `--mode web` could use
//! (issue 11): time to parse every reference of the bundled `data/` and
//! serialize its `href`, single thread, best of 7 passes.
//!
//! ```text
//! cargo run --release --example web_parsers [FILE]...
//! ```
//!
//! Each corpus also reports the share of its lines that web mode keys on
//! its fast path (`irinorm::web::is_own_href`: the line is its own
//! `href`). Files given as arguments (e.g. `bench-data/real2m.txt`,
//! `bench-data/c2m.txt`, see `scripts/bench_web.sh`) are reported the
//! same way, after the bundled ones.
//!
//! Corpora: `kasztp.txt`, `node_files.txt`, `isaacs_files.txt` (one absolute
//! URL per line), and `relative_urls_cc_10k.csv` (relative references
//! resolved against their base, the base parsed once per row by both).

use std::path::Path;
use std::time::{Duration, Instant};

fn best<F: FnMut() -> usize>(mut f: F) -> (Duration, usize) {
    let mut best = Duration::MAX;
    let mut n = 0;
    for _ in 0..7 {
        let t = Instant::now();
        n = f();
        best = best.min(t.elapsed());
    }
    (best, n)
}

fn report(name: &str, bytes: usize, lines: usize, parser: &str, (d, ok): (Duration, usize)) {
    let mbs = bytes as f64 / d.as_secs_f64() / 1e6;
    let ns = d.as_nanos() as f64 / lines as f64;
    println!("{name:<14} {parser:<4} {mbs:>7.1} MB/s {ns:>7.0} ns/line  ({ok} of {lines} parsed)");
}

fn main() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
    let files: Vec<std::path::PathBuf> = ["kasztp.txt", "node_files.txt", "isaacs_files.txt"]
        .into_iter()
        .map(|f| data.join(f))
        .chain(std::env::args().skip(1).map(Into::into))
        .collect();
    for path in &files {
        let file = path.file_name().and_then(|f| f.to_str()).unwrap_or("?");
        let text = std::fs::read_to_string(path).expect("data file");
        let text = text.strip_prefix('\u{FEFF}').unwrap_or(&text);
        let lines: Vec<&str> = text.lines().collect();
        let bytes = text.len();
        let u = best(|| {
            lines
                .iter()
                .filter_map(|l| url::Url::parse(l).ok())
                .map(|u| String::from(u).len().min(1))
                .sum()
        });
        report(file, bytes, lines.len(), "url", u);
        let a = best(|| {
            lines
                .iter()
                .filter_map(|l| ada_url::Url::parse(*l, None).ok())
                .map(|u| u.href().to_owned().len().min(1))
                .sum()
        });
        report(file, bytes, lines.len(), "ada", a);
        let fast = lines
            .iter()
            .filter(|l| irinorm::web::is_own_href(l))
            .count();
        println!(
            "{file:<14} fast path {fast} of {} lines ({:.1} %)",
            lines.len(),
            100.0 * fast as f64 / lines.len() as f64
        );
    }
    let csv = std::fs::read_to_string(data.join("relative_urls_cc_10k.csv")).expect("csv");
    let rows: Vec<(&str, &str)> = csv
        .lines()
        .skip(1)
        .filter_map(|r| r.split_once(','))
        .collect();
    let bytes: usize = rows.iter().map(|(b, r)| b.len() + r.len() + 2).sum();
    let u = best(|| {
        rows.iter()
            .filter_map(|(b, r)| {
                let base = url::Url::parse(b).ok()?;
                url::Url::options().base_url(Some(&base)).parse(r).ok()
            })
            .map(|u| String::from(u).len().min(1))
            .sum()
    });
    report("cc_relative", bytes, rows.len(), "url", u);
    let a = best(|| {
        rows.iter()
            .filter_map(|(b, r)| ada_url::Url::parse(*r, Some(*b)).ok())
            .map(|u| u.href().to_owned().len().min(1))
            .sum()
    });
    report("cc_relative", bytes, rows.len(), "ada", a);
}
