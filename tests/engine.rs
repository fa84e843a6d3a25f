//! The dedup engine gives the same rows whatever the strategy (in the
//! manner of ripgrep's `SearcherTester`): plain file, stdin, gzip, zstd and
//! CSV sources; any thread count, chunk size and batch size; in memory or
//! spilled to disk under a tiny `--memory` budget, with every ordering and
//! form. Also: temporary files never outlive a run, an unwritable temp
//! directory is one clear error, quoted input is escaped on stderr, and
//! `normalize`'s engine names each reject by its line.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};

use common::{ok, run};
use irinorm::batch::{
    self, key_fn, Column, DedupConfig, Format, Input, Opened, Order, Prep, Quiet, RecordFormat,
    Summary,
};
use irinorm::{Normalizer, Options};

/// A few thousand real URLs with spelling variants and repeats spread far
/// apart (so that a key recurs across batches and spills), some rejects.
fn corpus(blank_and_bad: bool) -> String {
    let kasztp = std::fs::read_to_string("data/kasztp.txt").unwrap();
    let node = std::fs::read_to_string("data/node_files.txt").unwrap();
    let base: Vec<&str> = kasztp
        .lines()
        .skip(1)
        .take(2500)
        .chain(node.lines().take(1500))
        .filter(|l| !l.trim().is_empty() && !l.contains('"') && !l.contains(','))
        .collect();
    let mut out = String::new();
    for (i, l) in base.iter().enumerate() {
        out.push_str(l);
        out.push('\n');
        if i % 3 == 0 {
            // The scheme and host in upper case: the same key.
            let v = match l.find("://") {
                Some(p) => {
                    let end = l[p + 3..].find('/').map_or(l.len(), |e| p + 3 + e);
                    format!("{}{}", l[..end].to_ascii_uppercase(), &l[end..])
                }
                None => l.to_string(),
            };
            out.push_str(&v);
            out.push('\n');
        }
        if i % 7 == 0 {
            // A repeat of a line seen long before.
            out.push_str(base[i / 2]);
            out.push('\n');
        }
        if blank_and_bad && i % 101 == 0 {
            out.push_str("\nhttp://a b/\n \t\n");
        }
    }
    out
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn gz(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

/// How a test hands a file to the engine.
#[derive(Clone, Copy, Debug)]
enum Via {
    Read,
    /// `batch::open_all_mapped` (`--mmap`).
    Mapped,
    /// The file's bytes in memory (`Opened::from_bytes`).
    Memory,
}

impl Via {
    const ALL: [Via; 3] = [Via::Read, Via::Mapped, Via::Memory];

    /// The file at `path`, opened this way.
    fn open(self, path: &Path) -> Vec<Opened> {
        let input = [Input::Path(path.to_path_buf())];
        match self {
            Via::Read => batch::open_all(&input).unwrap(),
            // SAFETY: the tests' files are written before a run and not
            // touched while it reads them.
            Via::Mapped => unsafe { batch::open_all_mapped(&input).unwrap() },
            Via::Memory => vec![Opened::from_bytes(
                input[0].name(),
                std::sync::Arc::new(std::fs::read(path).unwrap()),
            )],
        }
    }
}

/// The library's dedup of one file at the scheme rung: CSV and summary.
fn dedup_file(path: &Path, format: &Format, cfg: &DedupConfig) -> (Vec<u8>, Summary) {
    dedup_via(path, Via::Read, format, cfg)
}

/// [`dedup_file`], the file opened as `via` says.
fn dedup_via(path: &Path, via: Via, format: &Format, cfg: &DedupConfig) -> (Vec<u8>, Summary) {
    let n = Normalizer::new(Options::default());
    let key = key_fn(Prep::default(), |s: &str| n.key(s));
    let inputs = via.open(path);
    let mut out = Vec::new();
    let s = batch::run_dedup(inputs, format, &key, cfg, &mut Quiet, &mut |b: &[u8]| {
        out.extend_from_slice(b);
        Ok(())
    })
    .unwrap();
    (out, s)
}

/// The rows with the `first_file` column replaced (inputs have different
/// names).
fn rows_without_file(csv: &str) -> Vec<String> {
    let mut r = csv::ReaderBuilder::new().from_reader(csv.as_bytes());
    r.records()
        .map(|rec| {
            let rec = rec.unwrap();
            format!("{}|{}|{}|{}", &rec[0], &rec[1], &rec[3], &rec[4])
        })
        .collect()
}

/// Library level: every source kind, the same rows.
#[test]
fn sources_give_identical_rows() {
    let dir = tempfile::tempdir().unwrap();
    let text = corpus(false);
    let plain = write(dir.path(), "u.txt", text.as_bytes());
    let gzp = write(dir.path(), "u.txt.gz", &gz(text.as_bytes()));
    let zst = write(
        dir.path(),
        "u.txt.zst",
        &zstd::encode_all(text.as_bytes(), 3).unwrap(),
    );
    let mut csv_text = Vec::new();
    for l in text.lines() {
        batch::csv_field(&mut csv_text, l.as_bytes());
        csv_text.push(b'\n');
    }
    let csvp = write(dir.path(), "u.csv", &csv_text);
    let dedup = |path: &Path, via: Via, format: &Format, cfg: &DedupConfig| {
        let (out, s) = dedup_via(path, via, format, cfg);
        (rows_without_file(&String::from_utf8(out).unwrap()), s)
    };
    let base_cfg = DedupConfig::default();
    let (want, s0) = dedup(&plain, Via::Read, &Format::Lines, &base_cfg);
    assert!(s0.unique > 3000 && s0.stats.accepted > s0.unique + 1000);
    assert_eq!(s0.spilled_bytes, 0);
    let records = Format::Records(RecordFormat {
        delimiter: b',',
        header: false,
        column: Column::Index(0),
        base_column: None,
    });
    let small = DedupConfig {
        chunk_size: 999,
        batch_bytes: 20_000,
        memory: 50_000,
        ..DedupConfig::default()
    };
    // Three workers on two cores: a pool of the caller's choosing.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    let small = DedupConfig {
        pool: Some(std::sync::Arc::new(pool)),
        ..small
    };
    // Mapped or in memory, plain lines are sliced, not read; a compressed
    // file and CSV records are read from memory as from a file.
    for (name, path, format) in [
        ("plain", &plain, &Format::Lines),
        ("gzip", &gzp, &Format::Lines),
        ("zstd", &zst, &Format::Lines),
        ("csv", &csvp, &records),
    ] {
        for (cfg, via) in [&base_cfg, &small]
            .into_iter()
            .flat_map(|cfg| Via::ALL.map(|via| (cfg, via)))
        {
            let (got, s) = dedup(path, via, format, cfg);
            assert_eq!(got, want, "{name} {via:?}, memory {}", cfg.memory);
            assert_eq!(s.unique, s0.unique, "{name}");
            assert_eq!(s.stats.accepted, s0.stats.accepted, "{name}");
            if cfg.memory < 100_000 {
                assert!(
                    s.spilled_bytes > 0 && s.spilled_partitions > 1,
                    "{name}: {s:?}"
                );
            }
        }
    }
}

/// `columns` chooses columns, nothing else: every row of every source,
/// order and budget is the full row's projection, header included; and a
/// table without examples holds fewer bytes, so it spills less.
#[test]
fn chosen_columns_are_the_full_rows_projected() {
    use irinorm::batch::{Columns, Field};
    let dir = tempfile::tempdir().unwrap();
    let text = corpus(true);
    let plain = write(dir.path(), "u.txt", text.as_bytes());
    let mut csv_text = Vec::new();
    for l in text.lines() {
        batch::csv_field(&mut csv_text, l.as_bytes());
        csv_text.push(b'\n');
    }
    let csvp = write(dir.path(), "u.csv", &csv_text);
    let records = Format::Records(RecordFormat {
        delimiter: b',',
        header: false,
        column: Column::Index(0),
        base_column: None,
    });
    let parse = |out: &[u8]| -> Vec<Vec<String>> {
        let mut r = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(out);
        r.records()
            .map(|rec| rec.unwrap().iter().map(str::to_owned).collect())
            .collect()
    };
    let lists = [
        "canonical",
        "count,canonical",
        "example,first_line,first_file",
        "first_line",
        "example,canonical,count,first_file,first_line",
    ];
    for (path, format) in [(&plain, &Format::Lines), (&csvp, &records)] {
        for order in [Order::First, Order::Key, Order::Surt] {
            for memory in [usize::MAX, 60_000] {
                let cfg = DedupConfig {
                    order,
                    memory,
                    chunk_size: 999,
                    batch_bytes: 20_000,
                    ..DedupConfig::default()
                };
                let (full, fs) = dedup_file(path, format, &cfg);
                let full = parse(&full);
                assert!(full.len() > 3000);
                for list in lists {
                    let columns = Columns::parse(list).unwrap();
                    let at: Vec<usize> = columns
                        .fields()
                        .iter()
                        .map(|f| Field::ALL.iter().position(|g| g == f).unwrap())
                        .collect();
                    let cfg = DedupConfig {
                        columns: columns.clone(),
                        ..cfg.clone()
                    };
                    let (got, s) = dedup_file(path, format, &cfg);
                    let want: Vec<Vec<String>> = full
                        .iter()
                        .map(|row| at.iter().map(|&i| row[i].clone()).collect())
                        .collect();
                    assert!(parse(&got) == want, "{list} {order:?} {memory}");
                    assert_eq!((s.unique, s.stats), (fs.unique, fs.stats));
                    if memory < usize::MAX {
                        assert!(fs.spilled_bytes > 0);
                        if columns.has_example() {
                            assert_eq!(s.spilled_bytes, fs.spilled_bytes, "{list}");
                        } else {
                            assert!(s.spilled_raw_bytes < fs.spilled_raw_bytes, "{list}");
                        }
                    }
                }
            }
        }
    }
    assert!(Columns::parse("canonical,count,canonical").is_err());
    assert!(Columns::parse("canonical,url").is_err());
    assert!(Columns::parse("").is_err());
    assert!(Columns::new(&[]).is_err());
    assert_eq!(Columns::default().fields(), Field::ALL);
}

/// Several inputs in one run, read one after the other by one reader that
/// reads ahead across their boundaries (and reuses one input's buffers for
/// the next): the rows of their concatenation, each first occurrence named
/// by its own file and line; a broken later input is an error, not a hang.
#[test]
fn several_inputs_are_one_stream_with_their_own_lines() {
    let dir = tempfile::tempdir().unwrap();
    let text = corpus(true);
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let cut = [0, lines.len() / 5, lines.len() / 2, lines.len()];
    let part = |i: usize| lines[cut[i]..cut[i + 1]].concat();
    let paths = [
        write(dir.path(), "a.txt", part(0).as_bytes()),
        write(dir.path(), "b.txt.gz", &gz(part(1).as_bytes())),
        write(dir.path(), "c.txt", part(2).as_bytes()),
    ];
    let whole = write(dir.path(), "all.txt", text.as_bytes());
    let n = Normalizer::new(Options::default());
    let key = key_fn(Prep::default(), |s: &str| n.key(s));
    let run = |paths: &[PathBuf], cfg: &DedupConfig| {
        let inputs: Vec<_> = paths.iter().map(|p| Input::Path(p.clone())).collect();
        let mut out = Vec::new();
        let r = batch::run_dedup(
            batch::open_all(&inputs).unwrap(),
            &Format::Lines,
            &key,
            cfg,
            &mut Quiet,
            &mut |b: &[u8]| {
                out.extend_from_slice(b);
                Ok(())
            },
        );
        r.map(|s| (String::from_utf8(out).unwrap(), s))
    };
    // Batches of about 2 KB: every input spans many of them.
    let small = DedupConfig {
        chunk_size: 700,
        batch_bytes: 2_000,
        ..DedupConfig::default()
    };
    for cfg in [&DedupConfig::default(), &small] {
        let (want, w) = run(std::slice::from_ref(&whole), cfg).unwrap();
        let (got, g) = run(&paths, cfg).unwrap();
        assert_eq!(g.unique, w.unique);
        assert_eq!(g.stats.lines, w.stats.lines);
        assert_eq!(g.stats.rejected, w.stats.rejected);
        let rows = |csv: &str| -> Vec<csv::StringRecord> {
            csv::Reader::from_reader(csv.as_bytes())
                .records()
                .map(Result::unwrap)
                .collect()
        };
        let (want, got) = (rows(&want), rows(&got));
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(&want) {
            // The whole input's line, as a line of one of the parts.
            let line: usize = w[3].parse().unwrap();
            let i = (0..3).rfind(|&i| cut[i] < line).unwrap();
            let name = paths[i].display().to_string();
            let expect = [&w[0], &w[1], &name, &(line - cut[i]).to_string(), &w[4]];
            assert_eq!(g.iter().collect::<Vec<_>>(), expect);
        }
    }
    // A broken gzip stream after a good input: the run stops with an error.
    let bad = write(dir.path(), "bad.gz", &gz(text.as_bytes())[..300]);
    let err = run(&[paths[0].clone(), bad, paths[2].clone()], &small).unwrap_err();
    assert!(err.to_string().contains("bad.gz"), "{err}");
}

/// CLI level: a tiny budget (spill) gives byte-identical output to the
/// unbounded run, for every input kind and option that shapes rows.
#[test]
fn spill_is_invisible_in_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let text = corpus(true);
    let plain = write(dir.path(), "u.txt", text.as_bytes());
    let gzp = write(dir.path(), "u.txt.gz", &gz(text.as_bytes()));
    let zst = write(
        dir.path(),
        "u.txt.zst",
        &zstd::encode_all(text.as_bytes(), 3).unwrap(),
    );
    let cc = write(
        dir.path(),
        "cc.csv",
        std::fs::read_to_string("data/relative_urls_cc_10k.csv")
            .unwrap()
            .lines()
            .take(3000)
            .map(|l| format!("{l}\n"))
            .collect::<String>()
            .as_bytes(),
    );
    let spaced: String = text
        .lines()
        .collect::<Vec<_>>()
        .chunks(3)
        .map(|c| c.join(" ") + "\n")
        .collect();
    let spaced = write(dir.path(), "spaced.txt", spaced.as_bytes());
    let s = |p: &PathBuf| p.to_str().unwrap().to_owned();
    let cases: Vec<(Vec<String>, Option<&[u8]>)> = vec![
        (vec![s(&plain)], None),
        (vec!["-".into()], Some(text.as_bytes())),
        (vec![s(&gzp)], None),
        (vec![s(&zst)], None),
        (vec![s(&plain), "--sort".into(), "canonical".into()], None),
        (vec![s(&plain), "--sort".into(), "surt".into()], None),
        (
            vec![
                s(&plain),
                "--sort".into(),
                "surt".into(),
                "--form".into(),
                "surt".into(),
            ],
            None,
        ),
        (vec![s(&plain), "--form".into(), "surt".into()], None),
        (vec![s(&plain), "--form".into(), "iri".into()], None),
        (vec![s(&plain), "--level".into(), "protocol".into()], None),
        (vec![s(&spaced), "--split-spaces".into()], None),
        (vec![s(&plain), s(&gzp), s(&zst)], None),
        (
            vec![
                s(&cc),
                "--column".into(),
                "relative".into(),
                "--base-column".into(),
                "base".into(),
            ],
            None,
        ),
    ];
    for (args, stdin) in &cases {
        let mut base: Vec<&str> = vec!["dedup", "-q"];
        base.extend(args.iter().map(String::as_str));
        let want = ok(&run(&base, stdin.unwrap_or(b"")));
        assert!(want.lines().count() > 100, "{args:?}");
        for extra in [
            &["--memory", "64K", "--chunk-size", "777", "--threads", "1"][..],
            &["--memory", "1M", "--chunk-size", "4096", "--threads", "3"][..],
        ] {
            let tmp = tempfile::tempdir().unwrap();
            let mut a = base.clone();
            a.extend(extra);
            a.extend(["--temp-dir", tmp.path().to_str().unwrap()]);
            let o = run(&a, stdin.unwrap_or(b""));
            assert_eq!(ok(&o), want, "{args:?} {extra:?}");
            // Spill files are gone.
            assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
        }
    }
    // The summary reports the spill.
    let tmp = tempfile::tempdir().unwrap();
    let o = run(
        &[
            "dedup",
            &s(&plain),
            "--memory",
            "64K",
            "--temp-dir",
            tmp.path().to_str().unwrap(),
        ],
        b"",
    );
    ok(&o);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("spilled") && err.contains("partitions"),
        "{err}"
    );
}

#[test]
fn unwritable_temp_dir_is_one_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no/such/dir");
    let o = run(
        &[
            "dedup",
            "--memory",
            "64K",
            "--temp-dir",
            missing.to_str().unwrap(),
            "-",
        ],
        b"http://a/\n",
    );
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("cannot write to the temporary directory"),
        "{err}"
    );
}

#[test]
fn temp_files_gone_after_success_and_error() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let input = write(dir.path(), "u.txt", corpus(false).as_bytes());
    let out = dir.path().join("out.csv");
    let t = tmp.path().to_str().unwrap();
    let o = run(
        &[
            "dedup",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--memory",
            "64K",
            "--temp-dir",
            t,
        ],
        b"",
    );
    ok(&o);
    assert!(out.exists());
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
    // An error after the spill started: the second input is not UTF-16.
    let bad = write(dir.path(), "bad.txt", b"\xFF\xFEh\x00\x00\xD8i\x00\n\x00");
    let out2 = dir.path().join("out2.csv");
    let o = run(
        &[
            "dedup",
            input.to_str().unwrap(),
            bad.to_str().unwrap(),
            "-o",
            out2.to_str().unwrap(),
            "--memory",
            "64K",
            "--temp-dir",
            t,
        ],
        b"",
    );
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!out2.exists());
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{names:?}");
}

#[cfg(unix)]
#[test]
fn sigint_and_sigterm_leave_no_files() {
    use std::process::Stdio;
    for sig in ["INT", "TERM"] {
        let dir = tempfile::tempdir().unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.csv");
        let mut child = common::bin()
            .args([
                "dedup",
                "-",
                "-o",
                out.to_str().unwrap(),
                "--memory",
                "64K",
                "--temp-dir",
                tmp.path().to_str().unwrap(),
            ])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Feed enough to spill, keep stdin open: the run is mid-way.
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(corpus(false).as_bytes()).unwrap();
        stdin.flush().unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        // Wait until the spill directory and the atomic output exist.
        while std::time::Instant::now() < deadline
            && (std::fs::read_dir(tmp.path()).unwrap().count() == 0
                || std::fs::read_dir(dir.path()).unwrap().count() == 0)
        {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert!(
            std::fs::read_dir(tmp.path()).unwrap().count() > 0,
            "no spill yet"
        );
        let st = std::process::Command::new("kill")
            .args([&format!("-{sig}"), &child.id().to_string()])
            .status()
            .unwrap();
        assert!(st.success());
        let o = child.wait_with_output().unwrap();
        drop(stdin);
        assert_eq!(o.status.code(), Some(130), "{sig}");
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0, "{sig}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "{sig}");
    }
}

#[test]
fn control_characters_are_escaped_on_stderr() {
    let o = run(&["dedup", "-"], b"http://a/\x1b[31mred\x07 x\n");
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(!err.contains('\x1b') && !err.contains('\x07'), "{err:?}");
    assert!(err.contains("\\x1b[31mred\\x07"), "{err}");
}

#[test]
fn two_outputs_naming_one_file_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let x = dir.path().join("x.csv");
    let x = x.to_str().unwrap();
    let o = run(&["dedup", "-", "-o", x, "--rejects", x], b"http://a/\n");
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("same file"));
    assert!(!Path::new(x).exists());
}

/// Issue 14's output rows: physical lines for CSV records, UTF-8 examples
/// from a legacy charset, blank means spaces/tabs (a lone CR of CRLF too).
#[test]
fn first_line_example_and_blank_lines() {
    let csv = b"url,x\n\n\nhttp://a/,1\n\n\"http://b/\nx\",2\nhttp://A/,3\n";
    let o = run(
        &[
            "dedup",
            "--input-format",
            "csv",
            "--rejects",
            "/dev/null",
            "-",
        ],
        csv,
    );
    assert_eq!(
        ok(&o),
        "canonical,count,first_file,first_line,example\nhttp://a/,2,-,4,\"http://a/,1\"\n"
    );
    let o = run(&["dedup", "--input-format", "csv", "-"], csv);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("rejected -:6:"), "{err}");
    let o = run(
        &["dedup", "--input-format", "csv", "-"],
        b"url\r\n\r\n\r\nhttp://a/\r\n\r\nhttp://b/\r\n",
    );
    assert!(ok(&o).ends_with("http://a/,1,-,4,http://a/\nhttp://b/,1,-,6,http://b/\n"));
    // Shift_JIS in, UTF-8 out (key and example).
    let o = run(
        &["dedup", "--encoding", "shift_jis", "-"],
        b"http://a/\x82\xa0\n",
    );
    assert!(
        ok(&o).ends_with("http://a/%E3%81%82,1,-,1,http://a/\u{3042}\n"),
        "{:?}",
        o.stdout
    );
    // A lone CR line is blank; CRs, or an over-long line of spaces, are not.
    let o = run(
        &["dedup", "--max-line-bytes", "9", "-"],
        b"\r\n\r\r\n \t \n          \nhttp://a/\n",
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("5 lines: 2 blank, 1 accepted, 2 rejected"),
        "{err}"
    );
    assert!(err.contains("line longer than 9 bytes"), "{err}");
}

/// The corpus as CDX11 (with a header) and CDXJ records, one per line: a
/// blank line stays blank, a line with a space stays as it is (a malformed
/// record, as it is a rejected line).
fn as_cdx(text: &str) -> (String, String) {
    let mut cdx = String::from(" CDX N b a m s k r M S V g\n");
    let mut cdxj = String::new();
    for (i, l) in text.lines().enumerate() {
        if l.trim().is_empty() || l.contains(' ') {
            cdx.push_str(l);
            cdxj.push_str(l);
        } else {
            cdx.push_str(&format!(
                "k 20240101000000 {l} text/html 200 D{i} - - 1 2 f"
            ));
            let url = serde_json::to_string(l).unwrap();
            cdxj.push_str(&format!(
                "k 20240101000000 {{\"url\": {url}, \"status\": \"200\"}}"
            ));
        }
        cdx.push('\n');
        cdxj.push('\n');
    }
    (cdx, cdxj)
}

/// CDX and CDXJ inputs key each record's original URL: the same keys,
/// counts and stats as the bare URLs, in memory and spilled, and the
/// record line as the example.
#[test]
fn cdx_sources_give_the_rows_of_their_urls() {
    let dir = tempfile::tempdir().unwrap();
    let text = corpus(true);
    let (cdx, cdxj) = as_cdx(&text);
    let plain = write(dir.path(), "u.txt", text.as_bytes());
    let cdxp = write(dir.path(), "u.cdx", cdx.as_bytes());
    let cdxgz = write(dir.path(), "u.cdx.gz", &gz(cdx.as_bytes()));
    let cdxjp = write(dir.path(), "u.cdxj", cdxj.as_bytes());
    let dedup = |path: &Path, via: Via, format: &Format, cfg: &DedupConfig| {
        let (out, s) = dedup_via(path, via, format, cfg);
        let mut r = csv::ReaderBuilder::new().from_reader(&out[..]);
        let rows: Vec<(String, String, u64, String)> = r
            .records()
            .map(|rec| {
                let rec = rec.unwrap();
                let line: u64 = rec[3].parse().unwrap();
                (
                    rec[0].to_owned(),
                    rec[1].to_owned(),
                    line,
                    rec[4].to_owned(),
                )
            })
            .collect();
        (rows, s)
    };
    let base_cfg = DedupConfig::default();
    let (want, s0) = dedup(&plain, Via::Read, &Format::Lines, &base_cfg);
    assert!(s0.stats.rejected > 10 && s0.stats.blank > 10, "{s0:?}");
    let small = DedupConfig {
        chunk_size: 999,
        batch_bytes: 20_000,
        memory: 50_000,
        ..DedupConfig::default()
    };
    let cdx_lines: Vec<&str> = cdx.lines().collect();
    let cdxj_lines: Vec<&str> = cdxj.lines().collect();
    for (name, path, format, lines, header) in [
        ("cdx", &cdxp, irinorm::cdx::Format::Cdx, &cdx_lines, 1),
        ("cdx.gz", &cdxgz, irinorm::cdx::Format::Cdx, &cdx_lines, 1),
        ("cdxj", &cdxjp, irinorm::cdx::Format::Cdxj, &cdxj_lines, 0),
    ] {
        for (cfg, via) in [&base_cfg, &small]
            .into_iter()
            .flat_map(|cfg| Via::ALL.map(|via| (cfg, via)))
        {
            let name = format!("{name} {via:?}");
            let (got, s) = dedup(path, via, &Format::Cdx(format), cfg);
            assert_eq!(got.len(), want.len(), "{name}");
            for (g, w) in got.iter().zip(&want) {
                assert_eq!((&g.0, &g.1), (&w.0, &w.1), "{name}");
                assert_eq!(g.2, w.2 + header, "{name}: {g:?}");
                // The example is the record line as written.
                assert_eq!(g.3, lines[g.2 as usize - 1], "{name}");
            }
            let st = |s: &Summary| (s.unique, s.stats.accepted, s.stats.rejected, s.stats.blank);
            assert_eq!(st(&s), st(&s0), "{name}");
            assert_eq!(
                s.stats.lines, s0.stats.lines,
                "{name}: the header is not a record"
            );
            if cfg.memory < 100_000 {
                assert!(s.spilled_bytes > 0, "{name}: {s:?}");
            }
        }
    }
}

/// CLI level: CDX/CDXJ dedup is byte-identical under a tiny budget (spill),
/// any chunk size and thread count; normalize keeps the input order.
#[test]
fn cdx_runs_are_identical_whatever_the_strategy() {
    let dir = tempfile::tempdir().unwrap();
    let (cdx, cdxj) = as_cdx(&corpus(true));
    let cdxp = write(dir.path(), "u.cdx", cdx.as_bytes());
    let cdxjp = write(dir.path(), "u.cdxj", cdxj.as_bytes());
    for path in [&cdxp, &cdxjp] {
        let p = path.to_str().unwrap();
        for cmd in [
            &["dedup", "-q", p][..],
            &["dedup", "-q", "--form", "surt-ia", p][..],
            &[
                "dedup",
                "-q",
                "--level",
                "protocol",
                "--sort",
                "canonical",
                p,
            ][..],
            &["normalize", "-q", p][..],
        ] {
            let want = ok(&run(cmd, b""));
            assert!(want.lines().count() > 1000, "{cmd:?}");
            for extra in [
                &["--memory", "64K", "--chunk-size", "777", "--threads", "1"][..],
                &["--memory", "1M", "--chunk-size", "4096", "--threads", "3"][..],
            ] {
                let tmp = tempfile::tempdir().unwrap();
                let mut a = cmd.to_vec();
                if cmd[0] == "normalize" {
                    a.extend(&extra[2..]);
                } else {
                    a.extend(extra);
                    a.extend(["--temp-dir", tmp.path().to_str().unwrap()]);
                }
                assert_eq!(ok(&run(&a, b"")), want, "{a:?}");
                assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
            }
            if cmd[0] == "normalize" {
                // One output line per input line, in order.
                let input = std::fs::read_to_string(path).unwrap();
                assert_eq!(want.lines().count(), input.lines().count());
                for (o, i) in want.lines().zip(input.lines()) {
                    if !i.trim().is_empty() && path == &cdxp {
                        assert!(o.starts_with(i), "{o} / {i}");
                    }
                }
            }
        }
    }
}

/// `normalize`'s engine names each reject by its line in the input,
/// whatever chunks and batches the lines fall in and whether or not its
/// output numbers the lines itself (CSV): the chunks of a batch number
/// their lines from their own start, and learn where they start once all
/// of them are keyed.
#[test]
fn map_rejects_name_their_lines() {
    use irinorm::batch::{process_line, Outcome};
    use irinorm::batch::{MapConfig, MapOutput};
    use irinorm::batch::{Observer, Reject, RunError};

    struct Lines(Vec<u64>);
    impl Observer for Lines {
        fn reject(&mut self, r: &Reject) -> Result<(), RunError> {
            self.0.push(r.line);
            Ok(())
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let text = corpus(true);
    let path = write(dir.path(), "u.txt", text.as_bytes());
    let n = Normalizer::new(Options::default());
    let key = key_fn(Prep::default(), |s: &str| n.key(s));
    // Each line alone.
    let want: Vec<u64> = text
        .split_terminator('\n')
        .zip(1..)
        .filter(|(l, _)| {
            matches!(
                process_line(l.as_bytes(), 65536, None, &key),
                Outcome::Reject(_)
            )
        })
        .map(|(_, i)| i)
        .collect();
    assert!(want.len() > 30 && *want.last().unwrap() > 5_000, "{want:?}");
    for output in [MapOutput::Lines, MapOutput::Csv] {
        // Default batches (one, in several chunks), and batches of about
        // 40 KB (many, each in chunks of at least 16 KiB).
        for (threads, batch_bytes) in [(1, 16 << 20), (2, 16 << 20), (1, 40_000), (2, 40_000)] {
            let cfg = MapConfig {
                chunk_size: 2 << 20,
                max_line_bytes: 65536,
                charset: None,
                batch_bytes,
                output: output.clone(),
                pool: Some(std::sync::Arc::new(
                    rayon::ThreadPoolBuilder::new()
                        .num_threads(threads)
                        .build()
                        .unwrap(),
                )),
            };
            let mut seen = Lines(Vec::new());
            let inputs = batch::open_all(&[Input::Path(path.clone())]).unwrap();
            batch::run_map(
                inputs,
                &Format::Lines,
                &key,
                &cfg,
                &mut seen,
                &mut |_: &[u8]| Ok(()),
            )
            .unwrap();
            assert_eq!(
                seen.0, want,
                "{output:?}, {threads} threads, batches of {batch_bytes}"
            );
        }
    }
}

/// Disk is a resource too: a spill that the temporary directory has no
/// room for fails before writing, with the figures, and leaves nothing
/// behind; with room, the same run goes through.
#[test]
fn a_spill_without_room_fails_early_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let input = write(dir.path(), "u.txt", corpus(false).as_bytes());
    let mut cfg = DedupConfig {
        memory: 64 << 10,
        batch_bytes: 64 << 10,
        temp_dir: Some(tmp.path().to_path_buf()),
        ..DedupConfig::default()
    };
    cfg.tuning.assume_free = Some(10_000);
    let n = Normalizer::new(Options::default());
    let key = key_fn(Prep::default(), |s: &str| n.key(s));
    let inputs = Via::Read.open(&input);
    let e = batch::run_dedup(inputs, &Format::Lines, &key, &cfg, &mut Quiet, &mut |_| {
        Ok(())
    })
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("not enough free space in the temporary directory") && e.contains("MB free"),
        "{e}"
    );
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
    cfg.tuning.assume_free = Some(1 << 40);
    let (_, s) = dedup_file(&input, &Format::Lines, &cfg);
    assert!(s.spills > 0 && s.spill_passes == 1, "{s:?}");
    assert!(s.spilled_bytes < s.spilled_raw_bytes, "{s:?}");
}
