//! Parse every line of a file, `ROUNDS` times: the parser alone, for
//! `valgrind --tool=callgrind` and `perf`.
//!
//! ```sh
//! cargo run --release --example parse_lines -- bench-data/c300k.txt 20
//! ```
//!
//! Prints the number of lines that parsed and the sum of their path
//! lengths (so the work cannot be optimised away).
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: parse_lines FILE [ROUNDS]");
        std::process::exit(2);
    };
    let text = std::fs::read(path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(1);
    });
    let text = String::from_utf8_lossy(&text);
    let lines: Vec<&str> = text.lines().collect();
    let rounds: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let (mut ok, mut path_bytes) = (0usize, 0usize);
    for _ in 0..rounds {
        for line in &lines {
            if let Ok(r) = irinorm::parse(std::hint::black_box(line)) {
                ok += 1;
                path_bytes += r.path().len();
            }
        }
    }
    println!("{ok} parsed, {path_bytes} path bytes");
}
