//! End-to-end tests of `irinorm check`: findings as CSV rows that name
//! their input and their line within it (as the rejects do), whatever the
//! threads and chunk size; severities, exit status and rejects.

use std::path::{Path, PathBuf};

mod common;
use common::{run, summary};

fn write(dir: &Path, name: &str, data: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, data).expect("write input");
    p
}

const HEADER: &str = "file,line,input,severity,code,component,offset,message";

/// (file, line, code) of each finding row.
fn findings(csv: &str) -> Vec<(String, u64, String)> {
    let mut rows = csv.lines();
    assert_eq!(rows.next(), Some(HEADER));
    rows.map(|r| {
        let f: Vec<&str> = r.split(',').collect();
        (f[0].to_owned(), f[1].parse().unwrap(), f[4].to_owned())
    })
    .collect()
}

#[test]
fn rows_name_their_input_and_its_line() {
    let dir = tempfile::tempdir().unwrap();
    // U+202E (RIGHT-TO-LEFT OVERRIDE) is a bidi formatting character (§4.1).
    let rlo = "\u{202e}";
    let a = write(
        dir.path(),
        "a.txt",
        format!("http://a.example/\nhttp://[bad\nhttp://ex{rlo}ample.com/\n").as_bytes(),
    );
    let empty = write(dir.path(), "empty.txt", b"");
    let b = write(
        dir.path(),
        "b.txt",
        format!("http://b.example/x{rlo}\n\nhttp://b.example/\nhttp://c.example/{rlo}\n")
            .as_bytes(),
    );
    let (a, empty, b) = (
        a.to_str().unwrap(),
        empty.to_str().unwrap(),
        b.to_str().unwrap(),
    );
    let want = vec![
        (a.to_owned(), 3, "bidi-formatting".to_owned()),
        (b.to_owned(), 1, "bidi-formatting".to_owned()),
        (b.to_owned(), 4, "bidi-formatting".to_owned()),
    ];
    for extra in [&["-j1"][..], &["-j2", "--chunk-size", "16"]] {
        let rejects = dir.path().join("rejects.csv");
        let mut args = vec!["check", a, empty, b, "--rejects", rejects.to_str().unwrap()];
        args.extend_from_slice(extra);
        let o = run(&args, b"");
        assert_eq!(o.status.code(), Some(1), "errors found: exit 1");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(summary(&err), (7, 1, 5, 1), "{err}");
        assert_eq!(findings(&String::from_utf8_lossy(&o.stdout)), want);
        let rej = std::fs::read_to_string(&rejects).unwrap();
        assert!(rej.contains(&format!("{a},2,http://[bad,")), "{rej}");
    }
}

#[test]
fn severity_filters_and_exit_status() {
    // A percent-encoded bidi formatting character is a warning, a raw one
    // an error.
    let input = b"http://a.example/%E2%80%AE\n";
    let o = run(&["check", "-q", "-"], input);
    assert_eq!(o.status.code(), Some(0), "a warning does not fail");
    let rows = findings(&String::from_utf8_lossy(&o.stdout));
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].1, 1);

    let o = run(&["check", "-q", "--fail-on", "warning", "-"], input);
    assert_eq!(o.status.code(), Some(1));

    let o = run(&["check", "-q", "--min-severity", "error", "-"], input);
    assert_eq!(o.status.code(), Some(0));
    assert!(findings(&String::from_utf8_lossy(&o.stdout)).is_empty());
}
