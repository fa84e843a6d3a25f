//! End-to-end tests of the input features: compression, charsets,
//! preprocessing modes, CSV/TSV records (columns, per-row bases), and an
//! independent RFC 3986 §5.2 check of `--base-column` on the cc_10k sample.

use std::path::{Path, PathBuf};

mod common;
use common::{run, summary};

/// stdout (lossy: a dedup `example` of legacy-charset input is written as
/// its raw bytes) and stderr of a successful run.
fn ok(args: &[&str], stdin: &[u8]) -> (String, String) {
    let o = run(args, stdin);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{args:?}: {err}");
    (String::from_utf8_lossy(&o.stdout).into_owned(), err)
}

fn data(name: &str) -> String {
    format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).expect("write");
    p
}

#[test]
fn gzip_and_zstd_equal_plain() {
    for cmd in [
        &["normalize", "--mode", "web"][..],
        &["dedup", "--mode", "web", "-q"][..],
        &["convert", "--to", "iri"][..],
    ] {
        let plain = ok(&[cmd, &[&data("input_plain.txt")]].concat(), b"").0;
        for ext in ["gz", "zst"] {
            let f = data(&format!("input_plain.txt.{ext}"));
            let got = ok(&[cmd, &[&f]].concat(), b"").0;
            // dedup names the file in first_file.
            assert_eq!(
                got.replace(&f, "F"),
                plain.replace(&data("input_plain.txt"), "F"),
                "{cmd:?} {ext}"
            );
            // Compressed stdin too.
            let bytes = std::fs::read(&f).unwrap();
            let got = ok(cmd, &bytes).0;
            assert_eq!(
                got.replace(",-,", ",F,"),
                plain.replace(&data("input_plain.txt"), "F"),
                "{cmd:?} stdin {ext}"
            );
        }
    }
}

#[test]
fn legacy_charsets_equal_their_utf8_twins() {
    for (file, label) in [
        ("input_sjis", "shift_jis"),
        ("input_cp1251", "windows-1251"),
    ] {
        let base = ["--base", "http://base.example/"];
        let twin = ok(
            &[
                &["normalize"][..],
                &base,
                &[&data(&format!("{file}.utf8.txt"))],
            ]
            .concat(),
            b"",
        )
        .0;
        let legacy = data(&format!("{file}.txt"));
        let args = [&["normalize", "--encoding", label][..], &base, &[&legacy]].concat();
        assert_eq!(ok(&args, b"").0, twin, "{label}");
        // dedup too, and from stdin.
        let raw = std::fs::read(data(&format!("{file}.txt"))).unwrap();
        let d = ok(
            &[&["dedup", "-q", "--encoding", label][..], &base].concat(),
            &raw,
        )
        .0;
        let t = ok(
            &[&["dedup", "-q"][..], &base].concat(),
            &std::fs::read(data(&format!("{file}.utf8.txt"))).unwrap(),
        )
        .0;
        // `example` differs (raw bytes vs UTF-8): compare the keys and counts.
        let keys = |s: &str| -> Vec<String> {
            s.lines()
                .map(|l| l.splitn(3, ',').take(2).collect::<Vec<_>>().join(","))
                .collect()
        };
        assert_eq!(keys(&d), keys(&t), "{label} dedup");
    }
}

#[test]
fn utf16le_bom_equals_its_utf8_content() {
    let base = ["--base", "http://base.example/"];
    let twin = ok(
        &[&["normalize"][..], &base, &[&data("input_sjis.utf8.txt")]].concat(),
        b"",
    )
    .0;
    let got = ok(
        &[&["normalize"][..], &base, &[&data("input_utf16le_bom.txt")]].concat(),
        b"",
    )
    .0;
    assert_eq!(got, twin);
    let raw = std::fs::read(data("input_utf16le_bom.txt")).unwrap();
    assert_eq!(ok(&[&["normalize"][..], &base].concat(), &raw).0, twin);
}

#[test]
fn invalid_charset_bytes_are_rejected_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    let rej = dir.path().join("rej.csv");
    // 0x81 0x20: a Shift_JIS lead byte followed by an invalid trail byte.
    let (out, err) = ok(
        &[
            "normalize",
            "--encoding",
            "shift_jis",
            "--rejects",
            rej.to_str().unwrap(),
        ],
        b"http://a/\x82\xa0\nhttp://a/x\x81\x20y\nhttp://b/\n",
    );
    assert_eq!(out, "http://a/%E3%81%82\n\nhttp://b/\n");
    assert_eq!(summary(&err), (3, 0, 2, 1));
    let rej = std::fs::read_to_string(rej).unwrap();
    assert!(
        rej.contains(",2,") && rej.contains("invalid shift_jis byte sequence at byte 10"),
        "{rej}"
    );
    // Unknown labels are a usage error.
    let o = run(&["normalize", "--encoding", "klingon"], b"");
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn query_encoding_for_http_only() {
    let (out, _) = ok(
        &["normalize", "--query-encoding", "shift_jis"],
        "http://a/検?q=検#検\nftp://a/?q=検\n".as_bytes(),
    );
    assert_eq!(
        out,
        "http://a/%E6%A4%9C?q=%8C%9F#%E6%A4%9C\nftp://a/?q=%E6%A4%9C\n"
    );
}

#[test]
fn modes_repair_and_count() {
    let (out, err) = ok(
        &["normalize", "--mode", "web"],
        b"  http://a.example/x\\y\t \n",
    );
    assert_eq!(out, "http://a.example/x/y\n");
    assert!(err.contains("repairs: 1 line changed"), "{err}");
    assert!(err.contains("backslashes"), "{err}");
    let (out, err) = ok(&["normalize", "--mode", "leiri"], b"http://a/b c\n");
    assert_eq!(out, "http://a/b%20c\n");
    assert!(err.contains("1 chars percent-encoded"), "{err}");
    let (out, err) = ok(&["normalize"], b"http://a/b c\n");
    assert_eq!(out, "\n");
    assert_eq!(summary(&err), (1, 0, 0, 1));
    assert!(!err.contains("repairs"), "{err}");
    let (out, _) = ok(
        &["dedup", "-q", "--mode", "leiri", "--decode-entities"],
        b"http://a/?x=1&amp;y=2\nhttp://a/?x=1&y=2\n",
    );
    assert!(out.contains("http://a/?x=1&y=2,2,-,1,"), "{out}");
}

#[test]
fn split_spaces_items() {
    let input = b"http://a/ HTTP://A/  http://b/\nhttp://c/\n";
    let (out, _) = ok(&["normalize", "--split-spaces"], input);
    assert_eq!(out, "http://a/ http://a/ http://b/\nhttp://c/\n");
    let (out, err) = ok(&["dedup", "--split-spaces"], input);
    assert_eq!(
        out,
        "canonical,count,first_file,first_line,example\n\
         http://a/,2,-,1,http://a/ HTTP://A/  http://b/\n\
         http://b/,1,-,1,http://a/ HTTP://A/  http://b/\n\
         http://c/,1,-,2,http://c/\n"
    );
    assert_eq!(summary(&err), (2, 0, 2, 0));
}

const TRICKY_CSV: &str = "id,url,note\n\
    1,\"http://a/x,y\",plain\n\
    2,\"http://b/\nz\",multi\n\
    3,HTTP://A/x%2cy,\"q \"\"x\"\"\"\n\
    4,,empty\n\
    5,bad url,x\n\
    6,HTTP://A:80/x%2Cy,again\n";

#[test]
fn csv_quoted_fields_and_passthrough() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "t.csv", TRICKY_CSV.as_bytes());
    let f = f.to_str().unwrap();
    let (out, err) = ok(&["normalize", "--column", "url", f], b"");
    assert_eq!(
        out,
        "id,url,note,canonical,error\n\
         1,\"http://a/x,y\",plain,\"http://a/x,y\",\n\
         2,\"http://b/\nz\",multi,,control U+000A not allowed in path at byte 9\n\
         3,HTTP://A/x%2cy,\"q \"\"x\"\"\",http://a/x%2Cy,\n\
         4,,empty,,\n\
         5,bad url,x,,space not allowed in path at byte 3\n\
         6,HTTP://A:80/x%2Cy,again,http://a/x%2Cy,\n"
    );
    assert_eq!(summary(&err), (6, 1, 3, 2));
    let (out, _) = ok(
        &["normalize", "--column", "2", "--output-column", "key", f],
        b"",
    );
    assert!(out.starts_with("id,url,note,key,error\n"), "{out}");
    let (out, _) = ok(&["dedup", "-q", "--column", "url", f], b"");
    assert_eq!(
        out,
        format!(
            "canonical,count,first_file,first_line,example\n\
             \"http://a/x,y\",1,{f},2,\"1,\"\"http://a/x,y\"\",plain\"\n\
             http://a/x%2Cy,2,{f},5,\"3,HTTP://A/x%2cy,\"\"q \"\"\"\"x\"\"\"\"\"\"\"\n"
        )
    );
    // TSV and --no-header, compressed input, from the extension.
    let tsv = "x\thttp://a/%7e\nx\t\"http://a/\tq\"\n";
    let t = write(dir.path(), "t.tsv", tsv.as_bytes());
    let (out, _) = ok(
        &[
            "normalize",
            "-q",
            "--no-header",
            "--column",
            "2",
            t.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(
        out,
        "x\thttp://a/%7e\thttp://a/~\t\n\
         x\t\"http://a/\tq\"\t\ttab not allowed in path at byte 9\n"
    );
    // A named column with --no-header is a usage error.
    let o = run(&["normalize", "--no-header", "--column", "url", f], b"");
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn csv_base_column_identical_across_threads() {
    let dir = tempfile::tempdir().unwrap();
    let full = std::fs::read_to_string(format!(
        "{}/data/relative_urls_cc_10k.csv",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let mut small: String = full.lines().take(40).collect::<Vec<_>>().join("\n");
    small.push_str("\nnot a base,x\nrel/base,x\n");
    let f = write(dir.path(), "r.csv", small.as_bytes());
    let f = f.to_str().unwrap();
    let args = |t: &'static str, cmd: &'static str| {
        vec![
            cmd,
            "-q",
            "--threads",
            t,
            "--base-column",
            "base",
            "--column",
            "relative",
            f,
        ]
    };
    for cmd in ["normalize", "dedup"] {
        let a = ok(&args("1", cmd), b"").0;
        let b = ok(&args("2", cmd), b"").0;
        assert_eq!(a, b, "{cmd}");
    }
    let out = ok(&args("2", "normalize"), b"").0;
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "base,relative,canonical,error");
    assert_eq!(
        lines[1],
        "http://108shopping.com/?fn=category&cid=41,module_product_detail.php?pid=1561,\
         http://108shopping.com/module_product_detail.php?pid=1561,"
    );
    assert!(
        lines[40].starts_with("not a base,x,,invalid base: "),
        "{}",
        lines[40]
    );
    assert!(
        lines[41].starts_with("rel/base,x,,invalid base: "),
        "{}",
        lines[41]
    );
}

// ---------------------------------------------------------------------------
// An independent RFC 3986 §5.2 resolver (string splitting per Appendix B).

/// (scheme, authority, path, query, fragment) per the Appendix B regex
/// `^(([^:/?#]+):)?(//([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?`.
type Parts<'a> = (
    Option<&'a str>,
    Option<&'a str>,
    &'a str,
    Option<&'a str>,
    Option<&'a str>,
);

fn split(s: &str) -> Parts<'_> {
    let (s, fragment) = match s.find('#') {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let (s, query) = match s.find('?') {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let (scheme, s) = match s.find([':', '/']) {
        Some(i) if i > 0 && s.as_bytes()[i] == b':' => (Some(&s[..i]), &s[i + 1..]),
        _ => (None, s),
    };
    let (authority, path) = match s.strip_prefix("//") {
        Some(rest) => {
            let end = rest.find('/').unwrap_or(rest.len());
            (Some(&rest[..end]), &rest[end..])
        }
        None => (None, s),
    };
    (scheme, authority, path, query, fragment)
}

/// §5.2.4.
fn remove_dots(input: &str) -> String {
    let mut input = input.to_string();
    let mut output = String::new();
    while !input.is_empty() {
        if input.starts_with("../") {
            input.replace_range(..3, "");
        } else if input.starts_with("./") {
            input.replace_range(..2, "");
        } else if input.starts_with("/./") {
            input.replace_range(..3, "/");
        } else if input == "/." {
            input = "/".to_string();
        } else if input.starts_with("/../") || input == "/.." {
            let n = if input == "/.." { 3 } else { 4 };
            input.replace_range(..n, "/");
            match output.rfind('/') {
                Some(i) => output.truncate(i),
                None => output.clear(),
            }
        } else if input == "." || input == ".." {
            input.clear();
        } else {
            let start = usize::from(input.starts_with('/'));
            let end = input[start..].find('/').map_or(input.len(), |i| i + start);
            output.push_str(&input[..end]);
            input.replace_range(..end, "");
        }
    }
    output
}

/// §5.2.2 (strict) + §5.2.3 + §5.3.
fn resolve_3986(base: &str, r: &str) -> String {
    let (bs, ba, bp, bq, _) = split(base);
    let (rs, ra, rp, rq, rf) = split(r);
    let (ts, ta, tp, tq);
    if rs.is_some() {
        (ts, ta, tp, tq) = (rs, ra, remove_dots(rp), rq);
    } else {
        if ra.is_some() {
            (ta, tp, tq) = (ra, remove_dots(rp), rq);
        } else {
            if rp.is_empty() {
                tp = bp.to_string();
                tq = if rq.is_some() { rq } else { bq };
            } else {
                if rp.starts_with('/') {
                    tp = remove_dots(rp);
                } else {
                    let merged = if ba.is_some() && bp.is_empty() {
                        format!("/{rp}")
                    } else {
                        match bp.rfind('/') {
                            Some(i) => format!("{}{rp}", &bp[..=i]),
                            None => rp.to_string(),
                        }
                    };
                    tp = remove_dots(&merged);
                }
                tq = rq;
            }
            ta = ba;
        }
        ts = bs;
    }
    let mut out = String::new();
    if let Some(s) = ts {
        out.push_str(s);
        out.push(':');
    }
    if let Some(a) = ta {
        out.push_str("//");
        out.push_str(a);
    }
    out.push_str(&tp);
    if let Some(q) = tq {
        out.push('?');
        out.push_str(q);
    }
    if let Some(f) = rf {
        out.push('#');
        out.push_str(f);
    }
    out
}

#[test]
fn independent_resolver_agrees_with_rfc3986_examples() {
    let base = "http://a/b/c/d;p?q";
    for (r, want) in [
        ("g:h", "g:h"),
        ("g", "http://a/b/c/g"),
        ("./g", "http://a/b/c/g"),
        ("g/", "http://a/b/c/g/"),
        ("/g", "http://a/g"),
        ("//g", "http://g"),
        ("?y", "http://a/b/c/d;p?y"),
        ("g?y", "http://a/b/c/g?y"),
        ("#s", "http://a/b/c/d;p?q#s"),
        ("g#s", "http://a/b/c/g#s"),
        (";x", "http://a/b/c/;x"),
        ("", "http://a/b/c/d;p?q"),
        (".", "http://a/b/c/"),
        ("./", "http://a/b/c/"),
        ("..", "http://a/b/"),
        ("../g", "http://a/b/g"),
        ("../..", "http://a/"),
        ("../../g", "http://a/g"),
        ("../../../g", "http://a/g"),
        ("/./g", "http://a/g"),
        ("/../g", "http://a/g"),
        ("g.", "http://a/b/c/g."),
        ("..g", "http://a/b/c/..g"),
        ("./../g", "http://a/b/g"),
        ("g/./h", "http://a/b/c/g/h"),
        ("g/../h", "http://a/b/c/h"),
        ("g;x=1/../y", "http://a/b/c/y"),
        ("g?y/./x", "http://a/b/c/g?y/./x"),
        ("g#s/../x", "http://a/b/c/g#s/../x"),
        ("http:g", "http:g"),
    ] {
        assert_eq!(resolve_3986(base, r), want, "{r}");
    }
}

/// The whole cc_10k sample: every row accounted for, and irinorm's
/// `--level string` key (the resolved string) equal to the independent
/// resolution for every row whose resolution is ASCII.
#[test]
fn cc_10k_base_column_matches_independent_resolution() {
    let path = format!(
        "{}/data/relative_urls_cc_10k.csv",
        env!("CARGO_MANIFEST_DIR")
    );
    let (out, err) = ok(
        &[
            "normalize",
            "--level",
            "string",
            "--base-column",
            "base",
            "--column",
            "relative",
            &path,
        ],
        b"",
    );
    let (lines, blank, accepted, rejected) = summary(&err);
    assert_eq!((lines, blank), (9998, 0));
    assert_eq!(accepted + rejected, 9998);
    let mut rdr = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(out.as_bytes());
    let (mut compared, mut matched, mut skipped) = (0, 0, 0);
    let mut diffs = Vec::new();
    for rec in rdr.records() {
        let rec = rec.unwrap();
        let (base, rel, key, error) = (&rec[0], &rec[1], &rec[2], &rec[3]);
        let want = resolve_3986(base, rel);
        if !want.is_ascii() || !error.is_empty() {
            skipped += 1;
            continue;
        }
        compared += 1;
        if key == want {
            matched += 1;
        } else {
            diffs.push(format!(
                "{base} + {rel}: irinorm {key} / independent {want}"
            ));
        }
    }
    eprintln!(
        "cc_10k: {accepted} accepted, {rejected} rejected; compared {compared}, \
         matched {matched}, skipped {skipped} (non-ASCII or rejected)"
    );
    for d in &diffs {
        eprintln!("  diff: {d}");
    }
    assert!(compared > 9000, "{compared}");
    assert!(diffs.is_empty(), "{} differences", diffs.len());
}

/// Stdin redirected from a file (`< file`, the reader then knows how much
/// is left) is read from where it stands, as the same bytes through a pipe
/// are: also when a script before us read part of it.
#[test]
fn stdin_from_a_file_reads_what_is_left_of_it() {
    use std::io::{Seek, SeekFrom};
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    let mut text = Vec::new();
    for i in 0..20_000 {
        text.extend_from_slice(
            format!("HTTP://Example.COM:80/a/./p{}?q={}\n", i % 700, i % 3).as_bytes(),
        );
    }
    let path = write(dir.path(), "in.txt", &text);
    for skip in [0, 100_000] {
        // From the start, or from the line after byte `skip`.
        let from = match skip {
            0 => 0,
            _ => skip + text[skip..].iter().position(|&b| b == b'\n').unwrap() + 1,
        };
        let mut f = std::fs::File::open(&path).unwrap();
        f.seek(SeekFrom::Start(from as u64)).unwrap();
        for cmd in ["dedup", "normalize"] {
            let got = common::bin()
                .args([cmd, "-q", "-"])
                .stdin(Stdio::from(f.try_clone().unwrap()))
                .output()
                .unwrap();
            assert!(
                got.status.success(),
                "{}",
                String::from_utf8_lossy(&got.stderr)
            );
            f.seek(SeekFrom::Start(from as u64)).unwrap();
            let (want, _) = ok(&[cmd, "-q", "-"], &text[from..]);
            assert_eq!(
                String::from_utf8_lossy(&got.stdout),
                want,
                "{cmd} from {from}"
            );
            assert!(want.lines().count() > 100, "{want}");
        }
    }
}

/// `--mmap` changes how a file's bytes arrive, nothing else: the output,
/// the rejects file and the summary are those of the read file, for
/// `dedup` and `normalize`, with a BOM, CRLF and blank lines, lines over
/// a tiny `--max-line-bytes` (one longer than a batch: the reader cuts it,
/// the map keeps it whole), batches cut anywhere, a gzip and a UTF-16
/// file (read all the same) and stdin (never mapped).
#[test]
fn mmap_changes_nothing_but_the_copy() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = b"\xEF\xBB\xBF".to_vec();
    for i in 0..6_000 {
        let line = match i % 11 {
            0 => format!("HTTP://Example.COM:80/a/./p{}\r\n", i % 97),
            1 => "\n".to_string(),
            2 => format!("http://example.com/{}\n", "x".repeat(300 + i)),
            3 => "http://a b/\n".to_string(),
            _ => format!("http://example.com/p{}?q={}\n", i % 301, i % 5),
        };
        text.extend_from_slice(line.as_bytes());
        if i == 3_000 {
            // Longer than the 64 KiB batches of `--chunk-size 16K` on one
            // worker, and without the `\n` it would need to be cut before.
            text.extend_from_slice(format!("http://x/{}\n", "y".repeat(100_000)).as_bytes());
        }
    }
    text.extend_from_slice(b"http://example.com/last-without-newline");
    let plain = write(dir.path(), "in.txt", &text);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, &text).unwrap();
    let gzp = write(dir.path(), "in.txt.gz", &gz.finish().unwrap());
    let utf16: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain(
            String::from_utf8_lossy(&text[3..])
                .encode_utf16()
                .flat_map(u16::to_le_bytes),
        )
        .collect();
    let u16p = write(dir.path(), "in16.txt", &utf16);
    let rejects = dir.path().join("rejects.csv");
    let r = rejects.to_str().unwrap();
    for path in [&plain, &gzp, &u16p] {
        let p = path.to_str().unwrap();
        for cmd in [
            &["dedup", p, "--rejects", r][..],
            &["dedup", p, "--rejects", r, "--max-line-bytes", "100", "-j1"][..],
            &["dedup", p, "--rejects", r, "--chunk-size", "16K", "-j1"][..],
            &["normalize", p, "--rejects", r, "--format", "csv"][..],
            &["normalize", p, "--rejects", r, "--max-line-bytes", "40"][..],
            // Reads of 64 KiB, most of them ending in a long line: the
            // reader cuts those, and the rejects show the same bytes.
            &[
                "normalize",
                p,
                "--rejects",
                r,
                "--max-line-bytes",
                "40",
                "--chunk-size",
                "16K",
                "-j1",
            ][..],
        ] {
            let (want, want_err) = ok(cmd, b"");
            let want_rejects = std::fs::read(&rejects).unwrap();
            let (got, got_err) = ok(&[cmd, &["--mmap"]].concat(), b"");
            assert!(got == want, "{cmd:?}: the output differs");
            let same = std::fs::read(&rejects).unwrap() == want_rejects;
            assert!(same, "{cmd:?}: the rejects differ");
            assert_eq!(summary(&got_err), summary(&want_err), "{cmd:?}");
            let (_, _, accepted, rejected) = summary(&want_err);
            assert!(accepted > 4_000 && rejected > 500, "{cmd:?}: {want_err}");
        }
    }
    // Stdin is read, never mapped.
    let (want, _) = ok(&["dedup", "-q"], &text);
    assert_eq!(ok(&["dedup", "-q", "--mmap", "-"], &text).0, want);
}
