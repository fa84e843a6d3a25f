//! End-to-end tests of `--mode web` (issue 11): the URL Standard's parser,
//! then the ladder; bases from `--base` and `--base-column`; rejections with
//! the Standard's reason at an offset into the line as written; repairs by
//! kind in the summary.

mod common;
use common::run;

fn ok(args: &[&str], stdin: &[u8]) -> (String, String) {
    let o = run(args, stdin);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{args:?}: {err}");
    (String::from_utf8_lossy(&o.stdout).into_owned(), err)
}

#[test]
fn browsers_spellings_share_a_key() {
    // Every line is fetched as http://example.com/ by a browser.
    let input = "http:/example.com/\nhttp:example.com/\n\thttp://:@EXAMPLE.com:80\n\
                 http:\\\\example.com\\\nht\ttp://example.com/./\n";
    for level in ["string", "syntax", "scheme"] {
        let (out, _) = ok(
            &["dedup", "-q", "--mode", "web", "--level", level],
            input.as_bytes(),
        );
        assert!(
            out.contains("\nhttp://example.com/,5,-,1,"),
            "{level}: {out}"
        );
    }
}

#[test]
fn string_rung_is_the_href_higher_rungs_a_uri() {
    let input = b"http://h/a?b|c\nhttp://0xc0.0250.01/foo%\nhttp://h/%7e\n";
    let (out, _) = ok(&["normalize", "--mode", "web", "--level", "string"], input);
    assert_eq!(
        out,
        "http://h/a?b|c\nhttp://192.168.0.1/foo%\nhttp://h/%7e\n"
    );
    let (out, _) = ok(&["normalize", "--mode", "web", "--level", "scheme"], input);
    assert_eq!(
        out,
        "http://h/a?b%7Cc\nhttp://192.168.0.1/foo%25\nhttp://h/~\n"
    );
    let (out, _) = ok(
        &["convert", "--mode", "web", "--to", "iri"],
        b"http://h/%CE%B1|\n",
    );
    assert_eq!(out, "http://h/α%7C\n");
}

#[test]
fn bases_are_resolved_by_the_standard() {
    let (out, _) = ok(
        &[
            "normalize",
            "--mode",
            "web",
            "--base",
            "http://h/a/b",
            "--level",
            "string",
        ],
        b"..\\c\n//x\\y\n?q\n",
    );
    assert_eq!(out, "http://h/c\nhttp://x/y\nhttp://h/a/b?q\n");
    let csv = b"base,ref\nhttp://h/a/,..\\c\nhttps://h/,//x\\y\nhttp://[::1/,z\n";
    let dir = tempfile::tempdir().unwrap();
    let rej = dir.path().join("rej.csv");
    let (out, _) = ok(
        &[
            "normalize",
            "--mode",
            "web",
            "--input-format",
            "csv",
            "--column",
            "ref",
            "--base-column",
            "base",
            "--rejects",
            rej.to_str().unwrap(),
        ],
        csv,
    );
    assert!(
        out.contains("http://h/c") && out.contains("https://x/y"),
        "{out}"
    );
    let rej = std::fs::read_to_string(rej).unwrap();
    assert!(
        rej.contains("invalid base: not a URL (URL Standard)"),
        "{rej}"
    );
    // A --base the Standard rejects is a usage error.
    let o = run(
        &["normalize", "--mode", "web", "--base", "http://[::1/"],
        b"x\n",
    );
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn rejections_carry_the_standards_reason_and_offset() {
    let dir = tempfile::tempdir().unwrap();
    let rej = dir.path().join("rej.csv");
    let input = "\t\thttp://h:99999/\nrelative\n  http://exa mple.com/\n";
    ok(
        &[
            "dedup",
            "-q",
            "--mode",
            "web",
            "--rejects",
            rej.to_str().unwrap(),
        ],
        input.as_bytes(),
    );
    let rej = std::fs::read_to_string(rej).unwrap();
    assert!(
        rej.contains("not a URL (URL Standard): invalid port number at byte 11"),
        "{rej}"
    );
    assert!(rej.contains("relative URL without a base"), "{rej}");
    assert!(
        rej.contains("invalid international domain name at byte 9"),
        "{rej}"
    );
    // After character references are decoded (3987bis §5.2), the offset
    // still points into the line as written: at the port, byte 15.
    let rej2 = dir.path().join("rej2.csv");
    ok(
        &[
            "dedup",
            "-q",
            "--mode",
            "web",
            "--decode-entities",
            "--rejects",
            rej2.to_str().unwrap(),
        ],
        b"http://a&amp;b:99999/\n",
    );
    let rej2 = std::fs::read_to_string(rej2).unwrap();
    assert!(rej2.contains("invalid port number at byte 15"), "{rej2}");
}

#[test]
fn summary_counts_repairs_by_kind() {
    let (_, err) = ok(
        &["normalize", "--mode", "web"],
        b" http:\\\\h\\a b%zz\nhttp:h/\nhttp://h/\n",
    );
    let line = err.lines().find(|l| l.contains("repairs:")).expect(&err);
    assert!(line.contains("2 lines changed"), "{line}");
    for kind in [
        "1 whitespace chars trimmed",
        "3 backslashes",
        "1 lone %",
        "1 non-URL chars",
        "2 scheme // fixed",
    ] {
        assert!(line.contains(kind), "{kind}: {line}");
    }
}
