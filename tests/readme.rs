//! The README as a newcomer follows it: every ```` ```sh ```` block runs as
//! written, in order, in a copy of the repository, with the binary under
//! test as the `irinorm` on PATH (what `cargo install --path .` gives).
//! Blocks marked ```` ```sh needs=… ```` need more than the binary (the Rust
//! toolchain for minutes, Python, Spark, a cluster) and are skipped here;
//! the Python ones are run by `python/tests/test_readme.py`. Also: the
//! README's table of what never merges agrees with `irinorm compare`.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

const README: &str = include_str!("../README.md");

/// The fenced blocks of `md`: (info string, body).
fn blocks(md: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut open: Option<(String, String)> = None;
    for line in md.lines() {
        match (&mut open, line.strip_prefix("```")) {
            (None, Some(info)) => open = Some((info.trim().to_owned(), String::new())),
            (Some(_), Some(_)) => out.push(open.take().expect("open block")),
            (Some((_, body)), None) => {
                body.push_str(line);
                body.push('\n');
            }
            (None, None) => {}
        }
    }
    assert!(open.is_none(), "an unclosed code block in README.md");
    out
}

/// The `sh` blocks the test runs, and those marked as needing more.
fn shell_blocks() -> (Vec<String>, Vec<String>) {
    let (mut run, mut skipped) = (Vec::new(), Vec::new());
    for (info, body) in blocks(README) {
        let mut words = info.split_whitespace();
        if words.next() != Some("sh") {
            continue;
        }
        match words.next() {
            None => run.push(body),
            Some(w) if w.starts_with("needs=") => skipped.push(body),
            Some(w) => panic!("unknown mark {w:?} on a sh block: use needs=…"),
        }
    }
    (run, skipped)
}

/// Copy the repository's sources and data (not `target/`, not `.git`).
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let name = e.file_name();
        if [".git", "target", "bench-data", ".venv"]
            .iter()
            .any(|n| name == *n)
        {
            continue;
        }
        let (src, dst) = (e.path(), to.join(&name));
        if e.file_type().unwrap().is_dir() {
            copy_tree(&src, &dst);
        } else if e.file_type().unwrap().is_file() {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

/// A directory whose only entry is `irinorm`, the binary under test.
fn bin_dir(root: &Path) -> PathBuf {
    let dir = root.join("bin");
    std::fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_irinorm"), dir.join("irinorm")).unwrap();
    dir
}

#[test]
fn the_install_step_comes_before_the_first_irinorm_command() {
    let (run, _) = shell_blocks();
    let first = run
        .iter()
        .flat_map(|b| b.lines())
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
        .expect("a shell block");
    assert_eq!(first, "cargo install --path .");
    assert!(
        !README.contains("cargo run --release -- "),
        "the binary is installed, not run by cargo"
    );
}

#[test]
fn every_shell_block_runs_as_written() {
    let (run, skipped) = shell_blocks();
    assert!(run.len() >= 4 && !skipped.is_empty(), "{run:?}");
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("irinorm");
    copy_tree(Path::new(env!("CARGO_MANIFEST_DIR")), &repo);
    let path = format!(
        "{}:{}",
        bin_dir(tmp.path()).display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for (i, block) in run.iter().enumerate() {
        // `cargo install --path .` is what put the binary under test on
        // PATH (building it again here would take minutes).
        let script = block.replace("cargo install --path .", ": installed");
        let out = Command::new("bash")
            .args(["-euo", "pipefail", "-c", &script])
            .current_dir(&repo)
            .env("PATH", &path)
            .env_remove("CARGO_TARGET_DIR")
            .output()
            .expect("bash");
        assert!(
            out.status.success(),
            "README sh block {} failed (exit {:?}):\n{block}\nstdout:\n{}\nstderr:\n{}",
            i + 1,
            out.status.code(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("warning:"), "block {}: {err}", i + 1);
    }
    // The main job's figure, as the README states it.
    let csv = std::fs::read_to_string(repo.join("out.csv")).unwrap();
    assert_eq!(csv.lines().count() - 1, 9_763);
    assert!(README.contains("9,763 unique keys"));
}

/// The rows of the README table that follows `heading`: its first two
/// backquoted references.
fn table_pairs(heading: &str) -> Vec<(String, String)> {
    let at = README.find(heading).expect("the table's heading");
    README[at..]
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .map(|row| {
            let cell = row.split('|').nth(1).unwrap();
            let refs: Vec<&str> = cell.split('`').skip(1).step_by(2).collect();
            assert_eq!(refs.len(), 2, "{row}");
            (refs[0].to_owned(), refs[1].to_owned())
        })
        .collect()
}

#[test]
fn what_never_merges_never_merges() {
    let pairs = table_pairs("What never merges, at any rung:");
    assert!(pairs.len() >= 6, "{pairs:?}");
    for (a, b) in pairs {
        let o = common::run(&["compare", "--level", "protocol", &a, &b], b"");
        let out = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(1), "{a} vs {b}:\n{out}");
        assert!(
            out.contains("lowest equal level: none"),
            "{a} vs {b}:\n{out}"
        );
    }
}
