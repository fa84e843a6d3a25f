//! Ad-hoc measurement: protocol-rung vs scheme-rung key throughput.
//! `cargo run --release --example protocol_throughput -- FILE` (one URL a line).
use std::time::Instant;

use irinorm::{Level, Normalizer, Options};

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: protocol_throughput FILE");
    let text = std::fs::read_to_string(path).expect("read");
    let lines: Vec<&str> = text
        .lines()
        .map(|l| l.trim_start_matches('\u{feff}'))
        .collect();
    let run = |level: Level| {
        let n = Normalizer::new(Options {
            level,
            ..Options::default()
        });
        let mut best = f64::MAX;
        let mut ok = 0usize;
        for _ in 0..7 {
            let t = Instant::now();
            ok = 0;
            let mut bytes = 0usize;
            for l in &lines {
                if let Ok(k) = n.key(l) {
                    ok += 1;
                    bytes += k.len();
                }
            }
            std::hint::black_box(bytes);
            best = best.min(t.elapsed().as_secs_f64());
        }
        (best, ok)
    };
    let (s, ok_s) = run(Level::Scheme);
    let (p, ok_p) = run(Level::Protocol);
    let n = lines.len() as f64;
    println!("lines {} (ok scheme {ok_s}, protocol {ok_p})", lines.len());
    println!("scheme   {:.1} ns/line", s / n * 1e9);
    println!("protocol {:.1} ns/line", p / n * 1e9);
    println!("ratio protocol/scheme {:.3}", p / s);
}
