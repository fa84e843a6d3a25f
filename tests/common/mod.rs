//! Shared helpers of the end-to-end tests: run the real `irinorm` binary.

// Each test crate uses its own subset of these helpers.
#![allow(dead_code)]

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// The binary under test.
pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_irinorm"))
}

/// Run with `args`, feeding `stdin` from a thread (so a large input cannot
/// deadlock against a full stdout pipe).
pub fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = bin()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn irinorm");
    let mut inp = child.stdin.take().expect("stdin");
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = inp.write_all(&data);
    });
    let out = child.wait_with_output().expect("wait");
    writer.join().expect("writer");
    out
}

/// The stdout of a run that must succeed (else its stderr in the panic).
pub fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "exit {:?}: {}",
        o.status.code(),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// (lines, blank, accepted, rejected) of the summary line on stderr.
pub fn summary(err: &str) -> (u64, u64, u64, u64) {
    let line = err
        .lines()
        .find(|l| l.contains(" lines: "))
        .unwrap_or_else(|| panic!("no summary in {err:?}"));
    let n: Vec<u64> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .take(4)
        .map(|s| s.parse().unwrap())
        .collect();
    (n[0], n[1], n[2], n[3])
}
