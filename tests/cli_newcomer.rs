//! What a first-time user meets: CSV output as wide as its header, help
//! texts that fit their command, a warning when most of an input is
//! rejected, error messages that name the option or format that fixes them,
//! one shape for `learn`'s reports, and a repository whose docs and
//! `.gitignore` match what the README does.

use std::io::Write;
use std::path::{Path, PathBuf};

mod common;
use common::{ok, run, summary};

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn err(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `irinorm CMD --help`, its whitespace runs (line wrapping) as one space.
fn help(cmd: &str) -> String {
    let h = ok(&run(&[cmd, "--help"], b""));
    h.split_whitespace().collect::<Vec<_>>().join(" ")
}

// --- 2. CSV rows as wide as the header; the column as the user named it ---

#[test]
fn short_csv_rows_are_padded_and_the_error_names_the_column() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "links.csv",
        b"id,url,x\n1,http://a/,p\n2\n3,http://b/\n",
    );
    let out = ok(&run(
        &["normalize", "--column", "url", f.to_str().unwrap(), "-q"],
        b"",
    ));
    assert_eq!(
        out,
        "id,url,x,canonical,error\n\
         1,http://a/,p,http://a/,\n\
         2,,,,row has no column url (it has 1 field)\n\
         3,http://b/,,http://b/,\n"
    );
    for line in out.lines() {
        assert_eq!(line.matches(',').count(), 4, "{line}");
    }
    // By index, as written; and the base column by name.
    let out = ok(&run(
        &["normalize", "--column", "2", f.to_str().unwrap(), "-q"],
        b"",
    ));
    assert!(
        out.contains(",row has no column 2 (it has 1 field)\n"),
        "{out}"
    );
    let o = run(
        &[
            "normalize",
            "--column",
            "url",
            "--base-column",
            "x",
            f.to_str().unwrap(),
        ],
        b"",
    );
    assert!(
        ok(&o).contains("3,http://b/,,,invalid base: row has no column x (it has 2 fields)\n"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
}

// --- 4. Help texts per command ---

#[test]
fn help_texts_fit_their_command() {
    let convert = help("convert");
    assert!(convert.contains("A-label"), "{convert}");
    assert!(!convert.contains("kept as written"), "{convert}");
    let dedup = help("dedup");
    assert!(
        !dedup.replace("--input-format", "").contains("--format"),
        "dedup has no --format: {dedup}"
    );
    for cmd in ["dedup", "normalize", "convert"] {
        let h = help(cmd);
        assert!(
            h.contains("CSV/TSV records") && h.contains("CDX/CDXJ"),
            "{cmd}: {h}"
        );
    }
    // learn offers the formats it accepts, and only those.
    let learn = help("learn");
    let formats = &learn[learn.find("--input-format <FORMAT>").unwrap()..];
    let formats = &formats[..formats.find("--min-evidence").unwrap()];
    for f in ["cdx", "cdxj", "csv", "tsv"] {
        assert!(formats.contains(&format!("- {f}: ")), "{formats}");
    }
    assert!(!formats.contains("- lines"), "{formats}");
    let o = run(&["learn", "--digests", "-", "--input-format", "lines"], b"");
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err(&o).contains("possible values: cdx, cdxj, csv, tsv"),
        "{}",
        err(&o)
    );
}

#[test]
fn format_lines_on_csv_input_is_refused_not_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "u.csv", b"url\nhttp://a/\n");
    for cmd in [&["normalize"][..], &["convert", "--to", "iri"][..]] {
        for fmt in ["lines", "csv"] {
            let mut args = cmd.to_vec();
            args.extend(["--format", fmt, f.to_str().unwrap()]);
            let o = run(&args, b"");
            assert_eq!(o.status.code(), Some(2), "{args:?}");
            assert!(
                err(&o).contains("does not apply to csv/tsv input"),
                "{}",
                err(&o)
            );
        }
        let mut args = cmd.to_vec();
        args.push(f.to_str().unwrap());
        assert!(ok(&run(&args, b"")).starts_with("url,canonical,error\n"));
    }
}

#[test]
fn a_terminal_on_stdin_is_announced() {
    // A pseudo-terminal needs `script` (util-linux); without it, nothing to
    // check on this machine.
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("no `script`: skipped");
        return;
    }
    let cmd = format!("{} dedup </dev/tty", env!("CARGO_BIN_EXE_irinorm"));
    let mut child = std::process::Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"http://a/\n\x04").unwrap();
    drop(stdin);
    let o = child.wait_with_output().unwrap();
    let all = String::from_utf8_lossy(&o.stdout).into_owned() + &err(&o);
    assert!(all.contains("reading from stdin (the terminal)"), "{all}");
    // A pipe is not announced.
    let o = run(&["dedup"], b"http://a/\n");
    assert!(!err(&o).contains("reading from stdin"), "{}", err(&o));
}

// --- 5. The example of CSV input is the row as written ---

#[test]
fn the_example_of_a_csv_row_is_the_row() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "links.csv",
        b"base,relative\nhttp://a.example/page,#\nhttp://a.example/page,\"x,y\"\n",
    );
    let out = ok(&run(
        &[
            "dedup",
            "--base-column",
            "base",
            "--column",
            "relative",
            f.to_str().unwrap(),
            "-q",
        ],
        b"",
    ));
    let name = f.to_str().unwrap();
    assert_eq!(
        out,
        format!(
            "canonical,count,first_file,first_line,example\n\
             http://a.example/page#,1,{name},2,\"http://a.example/page,#\"\n\
             \"http://a.example/x,y\",1,{name},3,\"http://a.example/page,\"\"x,y\"\"\"\n"
        )
    );
}

// --- 6. A run that rejects most of its input warns, with the cause ---

#[test]
fn mostly_rejected_input_warns_with_the_likely_cause() {
    let dir = tempfile::tempdir().unwrap();
    // Pseudo-random bytes (xorshift): binary input.
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let bytes: Vec<u8> = (0..200_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect();
    let bin = write(dir.path(), "random.bin", &bytes);
    let o = run(&["dedup", bin.to_str().unwrap()], b"");
    assert_eq!(o.status.code(), Some(0));
    let e = err(&o);
    assert!(e.contains("warning: ") && e.contains("looks binary"), "{e}");
    let (_, _, accepted, rejected) = summary(&e);
    assert!(rejected > 100 * accepted.max(1), "{e}");
    let o = run(&["dedup", "--strict", bin.to_str().unwrap()], b"");
    assert_eq!(o.status.code(), Some(1));

    // CSV records read as lines; a column that most rows lack.
    let csv = b"id,url\n1,http://a/\n2,http://b/\n3,http://c/\n";
    let e = err(&run(&["dedup"], csv));
    assert!(e.contains("--input-format csv or tsv"), "{e}");
    let f = write(dir.path(), "r.csv", b"a,b\n1\n2\n3\n4,http://d/\n");
    let e = err(&run(&["dedup", "--column", "b", f.to_str().unwrap()], b""));
    assert!(
        e.contains("records have no column b: check --column"),
        "{e}"
    );
    // Relative references without a base.
    let e = err(&run(&["normalize"], b"/a\n/b\n/c\nhttp://d/\n"));
    assert!(e.contains("give --base"), "{e}");
    // A good run, or a few bad lines among many, says nothing more.
    let e = err(&run(&["dedup"], b"http://a/\nhttp://b/\n/c\n"));
    assert!(!e.contains("warning"), "{e}");
}

// --- 7. Error messages that name the fix ---

#[test]
fn errors_name_the_option_or_format_that_fixes_them() {
    let dir = tempfile::tempdir().unwrap();
    // An over-long line names --max-line-bytes.
    let long = format!("http://a/{}\n", "x".repeat(100));
    let e = err(&run(
        &["normalize", "--max-line-bytes", "50"],
        long.as_bytes(),
    ));
    assert!(e.contains("(raise --max-line-bytes)"), "{e}");
    // A truncated gzip input names gzip.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    for i in 0..5000 {
        writeln!(gz, "http://a.example/{i}").unwrap();
    }
    let gz = gz.finish().unwrap();
    for cut in [5, gz.len() / 2] {
        let f = write(dir.path(), "cut.txt.gz", &gz[..cut]);
        let o = run(&["dedup", f.to_str().unwrap()], b"");
        assert_eq!(o.status.code(), Some(2));
        assert!(
            err(&o).contains("gzip input: the compressed data ends early"),
            "{}",
            err(&o)
        );
    }
    // An unterminated quote is reported as such, not as a newline in a path.
    let f = write(
        dir.path(),
        "q.csv",
        b"id,url\n1,http://a/\n2,\"http://b/\n3,http://c/\n",
    );
    let rejects = dir.path().join("rejects.csv");
    let o = run(
        &[
            "dedup",
            "--column",
            "url",
            f.to_str().unwrap(),
            "--rejects",
            rejects.to_str().unwrap(),
        ],
        b"",
    );
    ok(&o);
    let r = std::fs::read_to_string(&rejects).unwrap();
    assert!(
        r.contains(
            "unterminated quoted field: the quote opened in the row of line 3 is never closed"
        ),
        "{r}"
    );
    // A closed quote over two lines at the very end is a field, not an error.
    let f = write(dir.path(), "q2.csv", b"id,url\n1,\"http://a/\nb\"\n");
    let o = run(&["normalize", "--column", "url", f.to_str().unwrap()], b"");
    assert!(!err(&o).contains("unterminated"), "{}", err(&o));
}

#[test]
fn the_preview_quotes_a_line_as_the_rejects_file_does() {
    let dir = tempfile::tempdir().unwrap();
    let line = "http://a/Gr\\%C3\\%B6bner basis";
    let rejects = dir.path().join("r.csv");
    let e = err(&run(&["dedup"], format!("{line}\n").as_bytes()));
    ok(&run(
        &["dedup", "--rejects", rejects.to_str().unwrap()],
        format!("{line}\n").as_bytes(),
    ));
    let file = std::fs::read_to_string(&rejects).unwrap();
    assert!(file.contains(line), "{file}");
    assert!(e.contains(&format!(": {line}\n")), "{e}");
    // Control characters are still escaped on the terminal.
    let e = err(&run(&["dedup"], b"http://a/\x1b[31m\n"));
    assert!(e.contains("\\x1b[31m") && !e.contains('\x1b'), "{e}");
}

// --- 8. learn: one shape, one vocabulary ---

#[test]
fn learn_reports_rules_in_the_rules_files_columns() {
    let dir = tempfile::tempdir().unwrap();
    let redirects = write(
        dir.path(),
        "redirects.csv",
        b"from,to\nhttp://h.example/a,http://h.example/a/\n\
          http://h.example/b,http://h.example/b/\nhttp://h.example/c,http://h.example/c/\n",
    );
    let cdx = format!("{}/tests/archive/crawl.cdx", env!("CARGO_MANIFEST_DIR"));
    let report = ok(&run(
        &[
            "learn",
            "--digests",
            &cdx,
            "--window",
            "300d",
            "--redirects",
            redirects.to_str().unwrap(),
        ],
        b"",
    ));
    let header =
        "source,host,kind,pattern,support,contradictions,clusters,pairs,disagreeing,drift\n";
    assert_eq!(report.matches(header).count(), 1, "{report}");
    assert!(
        report.contains("redirects,h.example,slash-added,no-extension,3,0,-,-,-,-\n")
            && report.contains("digests,http://shop.example,ignore-param,sid,10,0,"),
        "{report}"
    );
    // The rules file has the same rows.
    let tsv = dir.path().join("rules.tsv");
    ok(&run(
        &[
            "learn",
            "--digests",
            &cdx,
            "--window",
            "300d",
            "--redirects",
            redirects.to_str().unwrap(),
            "-o",
            tsv.to_str().unwrap(),
        ],
        b"",
    ));
    let file = std::fs::read_to_string(&tsv).unwrap();
    let table = report.split(header).nth(1).unwrap();
    let from_report: Vec<String> = table
        .lines()
        .take_while(|l| !l.is_empty())
        .map(|l| l.split(',').skip(1).take(5).collect::<Vec<_>>().join("\t"))
        .collect();
    // The report has the file's first five columns, then the evidence.
    let mut from_file: Vec<String> = file
        .lines()
        .skip(1)
        .map(|l| l.split('\t').take(5).collect::<Vec<_>>().join("\t"))
        .collect();
    let mut sorted = from_report.clone();
    sorted.sort();
    from_file.sort();
    assert_eq!(sorted, from_file);
    // Digests alone: no empty redirect section before the digest rules.
    let report = ok(&run(&["learn", "--digests", &cdx], b""));
    assert!(!report.contains("redirects read"), "{report}");
    assert!(
        !report.contains("\n\n\n") && !report.contains("observations by kind"),
        "{report}"
    );
    // Nothing learned: said once, no empty table.
    let report = ok(&run(
        &[
            "learn",
            "--redirects",
            redirects.to_str().unwrap(),
            "--min-evidence",
            "9",
        ],
        b"",
    ));
    assert!(
        report.contains("no rules learned") && !report.contains(header),
        "{report}"
    );
}

// --- 10. The repository matches what the README does ---

#[test]
fn the_readmes_outputs_are_ignored_and_data_readme_names_the_main_job() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let ignore = std::fs::read_to_string(root.join(".gitignore")).unwrap();
    for p in [
        "/.venv/",
        "/rules.tsv",
        "/out/",
        "/rejects.csv",
        "/out*.csv",
    ] {
        assert!(ignore.lines().any(|l| l == p), "{p} not in .gitignore");
    }
    let data = std::fs::read_to_string(root.join("data/README.md")).unwrap();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let job = "irinorm dedup data/relative_urls_cc_10k.csv --base-column base --column relative -o out.csv --rejects rejects.csv";
    assert!(data.contains(job) && readme.contains(job));
}
