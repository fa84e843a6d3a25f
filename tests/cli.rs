//! End-to-end tests of the `irinorm` binary: the command-line contract
//! (columns, order, counts, rejects, exit codes, atomic output, BrokenPipe)
//! and the determinism of `dedup` across input paths, chunk sizes and
//! thread counts.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

mod common;
use common::{bin, run, summary};

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn write(dir: &Path, name: &str, data: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, data).expect("write input");
    p
}

const HEADER: &str = "canonical,count,first_file,first_line,example\n";

#[test]
fn dedup_columns_order_and_counts() {
    let dir = tempfile::tempdir().unwrap();
    let input = b"HTTP://Example.COM:80/a/./b\nhttp://other.example/\n\nhttp://example.com/a/b\n   \nhttp://a/%zz\nhttp://other.example\n";
    let f = write(dir.path(), "in.txt", input);
    let name = f.to_str().unwrap();
    let o = run(&["dedup", name], b"");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        format!(
            "{HEADER}http://example.com/a/b,2,{name},1,HTTP://Example.COM:80/a/./b\n\
             http://other.example/,2,{name},2,http://other.example/\n"
        )
    );
    let err = stderr(&o);
    assert_eq!(summary(&err), (7, 2, 4, 1));
    assert!(err.contains("2 unique"), "{err}");
    assert!(
        err.contains(&format!("rejected {name}:6: invalid percent-encoding")),
        "{err}"
    );
    // --quiet silences the summary.
    let o = run(&["dedup", "-q", name], b"");
    assert_eq!(stderr(&o), "");
}

#[test]
fn sort_canonical_and_levels() {
    let input = b"http://b.example/\nHTTP://A.example/%7e\nhttp://a.example/~\n";
    let o = run(&["dedup", "--sort", "canonical", "-q"], input);
    assert_eq!(
        stdout(&o),
        format!("{HEADER}http://a.example/~,2,-,2,HTTP://A.example/%7e\nhttp://b.example/,1,-,1,http://b.example/\n")
    );
    let o = run(&["dedup", "--level", "string", "-q"], input);
    assert_eq!(stdout(&o).lines().count(), 4);
}

#[test]
fn columns_choose_and_order_the_output() {
    let input =
        b"http://b.example/x,y\nHTTP://A.example/%7e\nhttp://a.example/~\nHTTP://B.example/x,y\n";
    let o = run(&["dedup", "-q", "--columns", "canonical"], input);
    assert_eq!(
        stdout(&o),
        "canonical\n\"http://b.example/x,y\"\nhttp://a.example/~\n"
    );
    let o = run(
        &[
            "dedup",
            "-q",
            "--columns",
            "first_line, count,example",
            "--sort",
            "canonical",
        ],
        input,
    );
    assert_eq!(
        stdout(&o),
        "first_line,count,example\n2,2,HTTP://A.example/%7e\n1,2,\"http://b.example/x,y\"\n"
    );
    for (list, why) in [
        ("canonical,url", "no output column \"url\""),
        ("count,count", "output column count given twice"),
    ] {
        let o = run(&["dedup", "--columns", list], input);
        assert_eq!(o.status.code(), Some(2));
        assert!(stderr(&o).contains(why), "{}", stderr(&o));
    }
}

#[test]
fn stdin_crlf_bom_and_no_final_newline() {
    let input =
        b"\xEF\xBB\xBFhttp://example.com/x\r\nhttp://example.com/y\r\n\r\nhttp://EXAMPLE.com/x";
    for args in [&["dedup"][..], &["dedup", "-"][..]] {
        let o = run(args, input);
        assert!(o.status.success());
        assert_eq!(
            stdout(&o),
            format!("{HEADER}http://example.com/x,2,-,1,http://example.com/x\nhttp://example.com/y,1,-,2,http://example.com/y\n")
        );
        assert_eq!(summary(&stderr(&o)), (4, 1, 3, 0));
    }
    // The same as a (memory-mapped) file.
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "bom.txt", input);
    let o = run(&["dedup", f.to_str().unwrap()], b"");
    assert!(stdout(&o).contains(&format!(
        "http://example.com/x,2,{},1,http://example.com/x\n",
        f.display()
    )));
}

#[test]
fn rejects_file_reasons() {
    let dir = tempfile::tempdir().unwrap();
    let mut input = b"http://ok.example/\nhttp://bad\xff.example/\nhttp://a/\x00b\n".to_vec();
    input.extend_from_slice(b"http://long.example/");
    input.extend_from_slice(&vec![b'a'; 1 << 20]);
    input.extend_from_slice(b"\nrelative/path\n");
    let f = write(dir.path(), "in.txt", &input);
    let rej = dir.path().join("rejects.csv");
    let o = run(
        &[
            "dedup",
            f.to_str().unwrap(),
            "--rejects",
            rej.to_str().unwrap(),
        ],
        b"",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(summary(&stderr(&o)), (5, 0, 1, 4));
    assert!(
        !stderr(&o).contains("rejected "),
        "no preview with --rejects"
    );
    let text = std::fs::read_to_string(&rej).unwrap();
    let rows: Vec<&str> = text.lines().collect();
    assert_eq!(rows[0], "file,line,input,error");
    assert_eq!(rows.len(), 5);
    let name = f.display().to_string();
    assert_eq!(
        rows[1],
        format!("{name},2,http://bad\u{fffd}.example/,invalid UTF-8 at byte 10")
    );
    assert!(
        rows[2].starts_with(&format!("{name},3,http://a/\0b,")),
        "{}",
        rows[2]
    );
    assert!(
        rows[2].len() > format!("{name},3,http://a/\0b,").len(),
        "has a reason"
    );
    let long_input = format!("http://long.example/{}...", "a".repeat(256 - 20));
    assert_eq!(
        rows[3],
        format!("{name},4,{long_input},line longer than 65536 bytes")
    );
    assert!(rows[4].starts_with(&format!("{name},5,relative/path,relative reference")));

    // A larger limit accepts the 1 MB line.
    let o = run(
        &[
            "dedup",
            "-q",
            f.to_str().unwrap(),
            "--max-line-bytes",
            "2000000",
        ],
        b"",
    );
    assert!(stdout(&o).contains(",4,http://long.example/aaa"));
}

#[test]
fn strict_exit_status() {
    let o = run(&["dedup", "--strict", "-q"], b"http://a/\nhttp://a/%zz\n");
    assert_eq!(o.status.code(), Some(1));
    let o = run(&["dedup", "--strict", "-q"], b"http://a/\n\n");
    assert_eq!(o.status.code(), Some(0));
    let o = run(&["dedup", "-q"], b"http://a/%zz\n");
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn base_resolves_relative_references() {
    let o = run(
        &["dedup", "-q", "--base", "http://example.com/x/"],
        b"a/../b\nhttp://example.com/x/b\n",
    );
    assert_eq!(
        stdout(&o),
        format!("{HEADER}http://example.com/x/b,2,-,1,a/../b\n")
    );
}

#[test]
fn missing_input_is_a_one_line_error() {
    let o = run(&["dedup", "data/x.txt"], b"");
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "irinorm: cannot open data/x.txt: No such file or directory\n"
    );
    assert_eq!(stdout(&o), "");
    let o = run(&["normalize", "no/such"], b"");
    assert_eq!(o.status.code(), Some(2));
}

fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".irinorm"))
        .collect()
}

#[test]
fn atomic_output() {
    let dir = tempfile::tempdir().unwrap();
    let good = write(dir.path(), "in.txt", b"http://a.example/\n");
    let out = dir.path().join("out.csv");
    let missing = dir.path().join("missing.txt");
    let args = |input: &Path, out: &Path, cmd: &'static str| -> Vec<String> {
        vec![
            cmd.into(),
            "-q".into(),
            good.display().to_string(),
            input.display().to_string(),
            "-o".into(),
            out.display().to_string(),
            "--rejects".into(),
            dir.path().join("rej.csv").display().to_string(),
        ]
    };
    // A failing run leaves neither the output nor a temporary file.
    for cmd in ["dedup", "normalize"] {
        let a = args(&missing, &out, cmd);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        let o = run(&a, b"");
        assert_eq!(o.status.code(), Some(2));
        assert!(!out.exists());
        assert!(!dir.path().join("rej.csv").exists());
        assert!(leftovers(dir.path()).is_empty());
    }
    // An existing output is only replaced on success.
    std::fs::write(&out, "old").unwrap();
    let a = args(&missing, &out, "dedup");
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    assert_eq!(run(&a, b"").status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "old");
    let a = args(&good, &out, "dedup");
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    assert!(run(&a, b"").status.success());
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.starts_with(HEADER) && text.contains("http://a.example/,2,"));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("rej.csv")).unwrap(),
        "file,line,input,error\n"
    );
    assert!(leftovers(dir.path()).is_empty());
    // Devices are written directly, never renamed over.
    let o = run(&["dedup", "-q", "-o", "/dev/null"], b"http://a/\n");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!std::fs::metadata("/dev/null").unwrap().is_file());
}

/// A deterministic multi-MB input: URLs in several spellings, repeats,
/// blank lines, CRLF, invalid lines.
fn big_input(lines: usize) -> Vec<u8> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut v = Vec::with_capacity(lines * 40);
    for i in 0..lines {
        let r = next();
        let host = r % 500;
        let path = (r >> 16) % 3000;
        match (r >> 40) % 16 {
            0 => v.extend_from_slice(format!("HTTP://Host{host}.Example:80/p/./{path}").as_bytes()),
            1 => v.extend_from_slice(format!("http://host{host}.example/p/%7e{path}\r").as_bytes()),
            2 => v.extend_from_slice(b""),
            3 => v.extend_from_slice(format!("http://host{host}.example/%zz{path}").as_bytes()),
            4 => {
                v.extend_from_slice(format!("http://host{host}.example/").as_bytes());
                v.push(0xFF);
                v.extend_from_slice(format!("{path}").as_bytes());
            }
            5 => v.extend_from_slice(format!("rel/{path}").as_bytes()),
            6 => v.extend_from_slice(
                format!("http://m\u{fc}nchen{host}.example/{path}?q=\u{e9}").as_bytes(),
            ),
            _ => v.extend_from_slice(
                format!("http://host{host}.example/p/{path}?i={}", i % 7).as_bytes(),
            ),
        }
        v.push(b'\n');
    }
    v
}

#[test]
fn output_is_identical_for_any_input_path_chunk_size_and_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let data = big_input(150_000);
    assert!(data.len() > 4_000_000, "{}", data.len());
    let f = write(dir.path(), "big.txt", &data);
    let name = f.to_str().unwrap();
    let dedup = |extra: &[&str], stdin: bool| -> (String, String) {
        let rej = dir.path().join("r.csv");
        let mut args = vec!["dedup", "-q", "--rejects", rej.to_str().unwrap()];
        args.extend_from_slice(extra);
        let o = if stdin {
            run(&args, &data)
        } else {
            args.push(name);
            run(&args, b"")
        };
        assert!(o.status.success(), "{}", stderr(&o));
        let file_col = format!(",{name},");
        let csv = stdout(&o).replace(&file_col, ",-,");
        let rejects = std::fs::read_to_string(&rej)
            .unwrap()
            .replace(&format!("{name},"), "-,");
        (csv, rejects)
    };
    let reference = dedup(&["--threads", "1"], false);
    assert!(reference.0.lines().count() > 1000);
    assert!(reference.1.lines().count() > 1000);
    for (extra, stdin) in [
        (&["--threads", "2"][..], false),
        (&["--threads", "2"][..], true),
        (&["--threads", "1", "--chunk-size", "1024"][..], false),
        (&["--threads", "2", "--chunk-size", "1024"][..], true),
        (&["--threads", "2", "--chunk-size", "65536"][..], false),
        (&["--threads", "3", "--chunk-size", "65536"][..], true),
    ] {
        assert!(
            dedup(extra, stdin) == reference,
            "differs with {extra:?} stdin={stdin}"
        );
    }
    let sorted = dedup(&["--sort", "canonical", "--threads", "1"], false);
    assert!(
        dedup(
            &[
                "--sort",
                "canonical",
                "--threads",
                "2",
                "--chunk-size",
                "1024"
            ],
            true
        ) == sorted
    );

    // normalize: one output line per input line, whatever the chunking.
    let norm = |extra: &[&str]| {
        let mut args = vec!["normalize", "-q", name];
        args.extend_from_slice(extra);
        let o = run(&args, b"");
        assert!(o.status.success());
        o.stdout
    };
    let n1 = norm(&["--threads", "1"]);
    assert_eq!(n1.iter().filter(|&&b| b == b'\n').count(), 150_000);
    assert!(norm(&["--threads", "2", "--chunk-size", "1024"]) == n1);
    let o = run(&["normalize", "-q", "--chunk-size", "65536"], &data);
    assert!(o.stdout == n1);
}

#[test]
fn normalize_lines_and_csv() {
    let input = b"HTTP://A.example:80\n\nhttp://a/%zz\r\nhttp://b.example/x";
    let o = run(&["normalize"], input);
    assert_eq!(stdout(&o), "http://a.example/\n\n\nhttp://b.example/x\n");
    assert_eq!(summary(&stderr(&o)), (4, 1, 2, 1));
    let o = run(&["normalize", "--format", "csv", "-q"], input);
    assert_eq!(
        stdout(&o),
        "line,input,output,error\n\
         1,HTTP://A.example:80,http://a.example/,\n\
         2,,,\n\
         3,http://a/%zz,,invalid percent-encoding at byte 9\n\
         4,http://b.example/x,http://b.example/x,\n"
    );
}

#[test]
fn convert_maps_without_normalizing() {
    let o = run(
        &["convert", "--to", "uri", "-q"],
        "HTTP://a/\u{fc}\nrel/\u{e9}\n".as_bytes(),
    );
    assert_eq!(stdout(&o), "HTTP://a/%C3%BC\nrel/%C3%A9\n");
    let o = run(&["convert", "--to", "iri", "-q"], b"http://a/%C3%BC\n");
    assert_eq!(stdout(&o), "http://a/\u{fc}\n");
}

#[test]
fn broken_pipe_ends_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "big.txt", &big_input(200_000));
    for cmd in ["normalize", "dedup"] {
        let mut child = bin()
            .args([cmd, f.to_str().unwrap(), "--chunk-size", "65536"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut out = child.stdout.take().unwrap();
        let mut first = [0u8; 10];
        out.read_exact(&mut first).unwrap();
        drop(out); // like `| head -c 10`
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{cmd}: {}", stderr(&o));
        assert!(!stderr(&o).contains("Broken pipe"), "{cmd}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"), "{cmd}: {}", stderr(&o));
    }
}

#[test]
fn compare_exit_codes() {
    let o = run(
        &[
            "compare",
            "HTTP://Example.COM:80/a/./b",
            "http://example.com/a/b",
        ],
        b"",
    );
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    assert!(out.contains("lowest equal level: scheme"), "{out}");
    for level in ["string", "syntax", "scheme", "protocol"] {
        assert!(out.lines().any(|l| l.starts_with(level)), "{out}");
    }
    let o = run(
        &[
            "compare",
            "--level",
            "syntax",
            "HTTP://Example.COM:80/a/./b",
            "http://example.com/a/b",
        ],
        b"",
    );
    assert_eq!(o.status.code(), Some(1));
    let o = run(&["compare", "http://a/b", "http://a/c"], b"");
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("lowest equal level: none"));
    // Not a valid reference: a usage error (2), not "not equivalent" (1).
    let o = run(&["compare", "http://a/%zz", "http://a/"], b"");
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("A has no key at level scheme"),
        "{}",
        stderr(&o)
    );
    // The key options of `normalize` apply (issue 11).
    let o = run(
        &["compare", "--base", "http://a/b/", "c", "http://a/b/c"],
        b"",
    );
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let o = run(
        &[
            "compare",
            "--level",
            "protocol",
            "--rules",
            "+sort-query",
            "http://a/?b&a",
            "http://a/?a&b",
        ],
        b"",
    );
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let o = run(
        &["compare", "--mode", "web", "http://a/ b", "http://a/%20b"],
        b"",
    );
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let o = run(
        &["compare", "--nfc", "http://a/re\u{301}", "http://a/r\u{e9}"],
        b"",
    );
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
}

#[test]
fn help_has_examples_and_usage_errors_exit_2() {
    let o = run(&["dedup", "--help"], b"");
    assert!(o.status.success());
    assert!(stdout(&o).contains("Examples:"));
    let o = run(&["dedup", "--level", "bogus"], b"");
    assert_eq!(o.status.code(), Some(2));
}
