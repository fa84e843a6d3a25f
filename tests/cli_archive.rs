//! Web-archive interop end to end through the binary: `--input-format
//! cdx|cdxj` for dedup and normalize, `--form surt-ia`, `learn --digests`,
//! `--learned`, and `irinorm rules`. Fixtures: `tests/archive/` (see its
//! README): 62 captures of `http://shop.example` in CDX11 (with a header)
//! and CDXJ, each file ending with one malformed line.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::{ok, run};

fn fixture(name: &str) -> String {
    format!("{}/tests/archive/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn csv_rows(text: &str) -> Vec<csv::StringRecord> {
    csv::Reader::from_reader(text.as_bytes())
        .records()
        .map(Result::unwrap)
        .collect()
}

#[test]
fn cdx_dedup_keys_the_original_url_and_shows_the_record() {
    let dir = tempfile::tempdir().unwrap();
    let rejects = dir.path().join("rejects.csv");
    let path = fixture("crawl.cdx");
    let o = run(
        &["dedup", &path, "--rejects", rejects.to_str().unwrap()],
        b"",
    );
    let out = ok(&o);
    let lines: Vec<String> = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    let rows = csv_rows(&out);
    assert_eq!(rows.len(), 62);
    for r in &rows {
        let line: usize = r[3].parse().unwrap();
        // The example is the record as written; the key is its field `a`.
        assert_eq!(&r[4], lines[line - 1]);
        let url = lines[line - 1].split(' ').nth(2).unwrap();
        assert_eq!(&r[0], url, "already canonical at the scheme rung");
    }
    assert_eq!(&rows[0][3], "2", "line 1 is the header");
    // 64 physical lines: the header, 62 records, one malformed.
    assert!(
        err(&o).contains("63 lines: 0 blank, 62 accepted, 1 rejected"),
        "{}",
        err(&o)
    );
    let rej = std::fs::read_to_string(&rejects).unwrap();
    let rej = csv_rows(&rej);
    assert_eq!(rej.len(), 1);
    assert_eq!(&rej[0][1], "64");
    assert_eq!(&rej[0][2], "malformed line");
    assert!(rej[0][3].contains("2 fields"), "{:?}", rej[0]);
}

#[test]
fn cdx_without_header_is_cdx11_and_a_header_may_reorder_fields() {
    let full = std::fs::read_to_string(fixture("crawl.cdx")).unwrap();
    let body: String = full.lines().skip(1).map(|l| format!("{l}\n")).collect();
    let with = ok(&run(&["dedup", "-q", &fixture("crawl.cdx")], b""));
    let without = ok(&run(
        &["dedup", "-q", "--input-format", "cdx", "-"],
        body.as_bytes(),
    ));
    let keys = |t: &str| {
        csv_rows(t)
            .iter()
            .map(|r| r[0].to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(keys(&with), keys(&without));
    assert_eq!(&csv_rows(&without)[0][3], "1");

    let custom = " CDX a k b\nHTTP://A.example:80/x D1 2024\n\nhttp://a.example/x D2 2024\nhttp://b.example/ D3 20x4\n";
    let o = run(&["dedup", "--input-format", "cdx", "-"], custom.as_bytes());
    let rows = csv_rows(&ok(&o));
    assert_eq!(rows.len(), 1);
    assert_eq!(
        (&rows[0][0], &rows[0][1], &rows[0][3], &rows[0][4]),
        (
            "http://a.example/x",
            "2",
            "2",
            "HTTP://A.example:80/x D1 2024"
        )
    );
    let e = err(&o);
    assert!(
        e.contains("4 lines: 1 blank, 2 accepted, 1 rejected"),
        "{e}"
    );
    assert!(e.contains("-:5: timestamp"), "{e}");

    // A header without the original URL: nothing of that input can be read.
    let o = run(
        &["dedup", "--input-format", "cdx", "-"],
        b" CDX N b k\nx 1 y\n",
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("no 'a'"), "{}", err(&o));
}

#[test]
fn each_input_has_its_own_layout() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.cdx", b" CDX b a\n2024 http://A.example/x\n");
    let b = write(
        dir.path(),
        "b.cdx",
        b"k 2024 http://a.example:80/x m 200 d - - 1 2 f\n",
    );
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let rows = csv_rows(&ok(&run(&["dedup", "-q", a, b], b"")));
    assert_eq!(rows.len(), 1);
    assert_eq!((&rows[0][0], &rows[0][1]), ("http://a.example/x", "2"));
    let out = ok(&run(&["normalize", "-q", a, b], b""));
    assert_eq!(
        out,
        " CDX b a A\n2024 http://A.example/x http://a.example/x\n\
         k 2024 http://a.example:80/x m 200 d - - 1 2 f http://a.example/x\n"
    );
    // learn reads stdin with a format.
    let cdxj = std::fs::read(fixture("crawl.cdxj")).unwrap();
    let r = ok(&run(
        &[
            "learn",
            "--digests",
            "-",
            "--input-format",
            "cdxj",
            "--window",
            "300d",
        ],
        &cdxj,
    ));
    assert!(r.contains("ignore-param,sid,10,0"), "{r}");
}

#[test]
fn normalize_writes_each_record_with_its_key() {
    // CDX: a last field, header letter A, `-` for a rejected record.
    let out = ok(&run(&["normalize", "-q", &fixture("crawl.cdx")], b""));
    let input = std::fs::read_to_string(fixture("crawl.cdx")).unwrap();
    let (o, i): (Vec<&str>, Vec<&str>) = (out.lines().collect(), input.lines().collect());
    assert_eq!(o.len(), i.len());
    assert_eq!(o[0], format!("{} A", i[0]));
    for (o, i) in o[1..21].iter().zip(&i[1..21]) {
        let url = i.split(' ').nth(2).unwrap();
        assert_eq!(*o, format!("{i} {url}"));
    }
    assert_eq!(o[63], "malformed line -");

    // CDXJ: a "canonical" member, null for a rejected record; blank lines
    // stay; order kept.
    let cdxj = "k 2024 {\"url\": \"HTTP://A.example:80/\"}\n\n\
                k 2024 {\"url\": \"http://a b/\"}\nk 2024 {oops\n";
    let o = run(
        &["normalize", "--input-format", "cdxj", "-"],
        cdxj.as_bytes(),
    );
    assert_eq!(
        ok(&o),
        "k 2024 {\"url\": \"HTTP://A.example:80/\", \"canonical\": \"http://a.example/\"}\n\n\
         k 2024 {\"url\": \"http://a b/\", \"canonical\": null}\nk 2024 {oops\n"
    );
    assert!(
        err(&o).contains("4 lines: 1 blank, 1 accepted, 2 rejected"),
        "{}",
        err(&o)
    );

    // --format csv: the usual line,input,output,error.
    let o = run(
        &[
            "normalize",
            "--input-format",
            "cdxj",
            "--format",
            "csv",
            "-q",
            "-",
        ],
        cdxj.as_bytes(),
    );
    let rows = csv_rows(&ok(&o));
    assert_eq!(&rows[0][2], "http://a.example/");
    assert!(rows[3][3].contains("invalid JSON"), "{:?}", rows[3]);
}

#[test]
fn compressed_cdx_is_recognised_by_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let data = std::fs::read(fixture("crawl.cdxj")).unwrap();
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut e, &data).unwrap();
    let gz = write(dir.path(), "crawl.cdxj.gz", &e.finish().unwrap());
    let zst = write(
        dir.path(),
        "crawl.cdxj.zst",
        &zstd::encode_all(&data[..], 3).unwrap(),
    );
    let want = ok(&run(&["normalize", "-q", &fixture("crawl.cdxj")], b""));
    assert!(want.contains("\"canonical\": \"http://shop.example/news/1\"}"));
    for p in [&gz, &zst] {
        assert_eq!(
            ok(&run(&["normalize", "-q", p.to_str().unwrap()], b"")),
            want
        );
    }
}

#[test]
fn surt_ia_keys_join_with_the_index() {
    // The fixture's urlkey (field N) is what the IA's `surt` writes.
    let path = fixture("crawl.cdx");
    let out = ok(&run(&["dedup", "-q", "--form", "surt-ia", &path], b""));
    let rows = csv_rows(&out);
    assert!(!rows.is_empty());
    for r in &rows {
        assert_eq!(&r[0], r[4].split(' ').next().unwrap(), "{r:?}");
    }
    // http and https, www and case: one IA key (the ladder keeps them apart).
    let o = run(
        &["dedup", "-q", "--form", "surt-ia", "--sort", "surt"],
        b"http://www.archive.org/goo/?b&a\nhttps://archive.org/GOO?a&b\n",
    );
    assert_eq!(
        ok(&o),
        "canonical,count,first_file,first_line,example\n\
         \"org,archive)/goo?a&b\",2,-,1,http://www.archive.org/goo/?b&a\n"
    );
    let o = run(
        &["normalize", "--form", "surt-ia", "--level", "protocol"],
        b"http://a/\n",
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("not a rung"), "{}", err(&o));
    let o = run(
        &["compare", "--form", "surt-ia", "http://a/", "http://a/"],
        b"",
    );
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn learn_from_digests_report_and_rules_file() {
    let dir = tempfile::tempdir().unwrap();
    // `/news/old`'s `sid` pair, a year apart and different, refuses
    // `sid` on an origin with no measured drift unless --window leaves it out.
    let o = run(&["learn", "--digests", &fixture("crawl.cdx")], b"");
    let report = ok(&o);
    assert!(
        report.contains("http://shop.example,ignore-param,sid,10,1,")
            && report.contains("http://shop.example,ignore-param,utm_source,10,0,"),
        "{report}"
    );
    let o = run(
        &[
            "learn",
            "--digests",
            &fixture("crawl.cdx"),
            "--window",
            "300d",
        ],
        b"",
    );
    let report = ok(&o);
    assert!(
        report.contains("http://shop.example,ignore-param,sid,10,0,")
            && report.contains("http://shop.example,ignore-param,utm_source,10,0,"),
        "{report}"
    );
    assert!(!report.contains(",id,"), "{report}");
    assert!(err(&o).contains("crawl.cdx:64"), "{}", err(&o));

    // The same rules from CDX and CDXJ, written atomically.
    let a = dir.path().join("a.tsv");
    let b = dir.path().join("b.tsv");
    ok(&run(
        &[
            "learn",
            "--digests",
            &fixture("crawl.cdx"),
            "--window",
            "300d",
            "-o",
            a.to_str().unwrap(),
        ],
        b"",
    ));
    ok(&run(
        &[
            "learn",
            "--digests",
            &fixture("crawl.cdxj"),
            "--window",
            "300d",
            "-o",
            b.to_str().unwrap(),
        ],
        b"",
    ));
    let tsv = std::fs::read_to_string(&a).unwrap();
    assert_eq!(tsv, std::fs::read_to_string(&b).unwrap());
    assert!(tsv.starts_with(
        "#host\tkind\tpattern\tsupport\tcontradictions\tclusters\tpairs\tdisagreeing\tdrift\n"
    ));
    assert_eq!(tsv.lines().count(), 3, "{tsv}");

    // --min-evidence above the support, or a window too short for the
    // pairs (captures an hour apart and more): nothing applied.
    let cdxj = fixture("crawl.cdxj");
    for extra in [&["--min-evidence", "11"][..], &["--window", "30m"][..]] {
        let mut args = vec!["learn", "--digests", &cdxj[..]];
        args.extend(extra);
        let r = ok(&run(&args, b""));
        assert!(r.contains("no rules learned"), "{extra:?}: {r}");
    }
}

#[test]
fn digests_as_csv_and_tsv_and_format_errors() {
    let dir = tempfile::tempdir().unwrap();
    let (mut csv, mut tsv) = (String::from("url,digest,timestamp\n"), String::new());
    // One merged pair per page: 20 pages show `ref` safe.
    for p in 0..20 {
        for v in ["a", "b"] {
            // Quoted: the URL holds the separator.
            csv.push_str(&format!(
                "\"http://h.example/p{p}?ref={v}&x=1,2\",D{p},20240101\n"
            ));
            tsv.push_str(&format!(
                "http://h.example/p{p}?ref={v}&x=1,2\tD{p}\t20240101\n"
            ));
        }
    }
    let c = write(dir.path(), "caps.csv", csv.as_bytes());
    let t = write(dir.path(), "caps.txt", tsv.as_bytes());
    let r = ok(&run(&["learn", "--digests", c.to_str().unwrap()], b""));
    assert!(r.contains("http://h.example,ignore-param,ref,20,0"), "{r}");
    // A name that says nothing: refused unless --input-format says it.
    let o = run(&["learn", "--digests", t.to_str().unwrap()], b"");
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("--input-format"), "{}", err(&o));
    let r = ok(&run(
        &[
            "learn",
            "--digests",
            t.to_str().unwrap(),
            "--input-format",
            "tsv",
        ],
        b"",
    ));
    assert!(r.contains("ignore-param,ref,20,0"), "{r}");
    let o = run(&["learn"], b"");
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn redirects_from_3xx_captures_and_a_redirect_log_in_one_rules_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut cdx = String::from(" CDX a b s k r\n");
    for p in 0..3 {
        cdx.push_str(&format!(
            "http://r.example/d{p} 20240101 301 REDIR /d{p}/\n"
        ));
    }
    let c = write(dir.path(), "caps.cdx", cdx.as_bytes());
    let log = write(
        dir.path(),
        "redirects.csv",
        b"from,to\nhttp://w.example/,http://www.w.example/\nhttp://w.example/a,http://www.w.example/a\nhttp://w.example/b,http://www.w.example/b\n",
    );
    let rules = dir.path().join("rules.tsv");
    let o = run(
        &[
            "learn",
            "--digests",
            c.to_str().unwrap(),
            "--redirects",
            log.to_str().unwrap(),
            "-o",
            rules.to_str().unwrap(),
        ],
        b"",
    );
    ok(&o);
    let tsv = std::fs::read_to_string(&rules).unwrap();
    assert!(
        tsv.contains("r.example\tslash-added\tno-extension\t3\t0\n"),
        "{tsv}"
    );
    assert!(tsv.contains("w.example\twww-added\tany\t3\t0\n"), "{tsv}");
    // Applied at the protocol rung.
    let r = rules.to_str().unwrap();
    let out = ok(&run(
        &["normalize", "--level", "protocol", "--learned", r],
        b"http://r.example/new\nhttp://w.example/x\n",
    ));
    assert_eq!(out, "http://r.example/new/\nhttp://www.w.example/x\n");
}

#[test]
fn learned_rules_apply_at_the_protocol_rung_only() {
    let dir = tempfile::tempdir().unwrap();
    let rules = dir.path().join("rules.tsv");
    ok(&run(
        &[
            "learn",
            "--digests",
            &fixture("crawl.cdx"),
            "--window",
            "300d",
            "-o",
            rules.to_str().unwrap(),
        ],
        b"",
    ));
    let r = rules.to_str().unwrap();
    // Fresh values on a page that was not in the crawl; `--rules fragment`
    // turns off the named tracking/session rules, so only the learned ones
    // act.
    let input = b"http://shop.example/news/99?id=5&sid=123&utm_source=mail\n\
                  http://shop.example/news/99?id=5\nhttp://other.example/?sid=1\n";
    let base = ["--level", "protocol", "--rules", "fragment"];
    let mut with = vec!["dedup", "-q", "--learned", r];
    with.extend(base);
    let rows = csv_rows(&ok(&run(&with, input)));
    let got: Vec<(&str, &str)> = rows.iter().map(|r| (&r[0], &r[1])).collect();
    assert_eq!(
        got,
        [
            ("http://shop.example/news/99?id=5", "2"),
            ("http://other.example/?sid=1", "1")
        ]
    );
    let mut without = vec!["dedup", "-q"];
    without.extend(base);
    assert_eq!(csv_rows(&ok(&run(&without, input))).len(), 3);

    // compare takes it too.
    let o = run(
        &[
            "compare",
            "--level",
            "protocol",
            "--rules",
            "fragment",
            "--learned",
            r,
            "http://shop.example/a?sid=9",
            "http://shop.example/a",
        ],
        b"",
    );
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));

    // Not at another rung; a broken rules file is one clear error.
    let o = run(&["normalize", "--learned", r], b"http://a/\n");
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("need --level protocol"), "{}", err(&o));
    let bad = write(dir.path(), "bad.tsv", b"h\tignore-param\n");
    let o = run(
        &[
            "normalize",
            "--level",
            "protocol",
            "--learned",
            bad.to_str().unwrap(),
        ],
        b"http://a/\n",
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("line 1"), "{}", err(&o));
}

#[test]
fn learned_and_redirects_are_judged_together() {
    let dir = tempfile::tempdir().unwrap();
    let rules = write(
        dir.path(),
        "rules.tsv",
        b"#host\tkind\tpattern\tsupport\tcontradictions\nh.example\tslash-added\tno-extension\t3\t0\n",
    );
    let agree = write(
        dir.path(),
        "agree.csv",
        b"http://g.example/,http://www.g.example/\n",
    );
    let disagree = write(
        dir.path(),
        "disagree.csv",
        b"http://h.example/a/,http://h.example/a\n",
    );
    let input = b"http://h.example/x\nhttp://g.example/\n";
    let key = |log: &Path| {
        ok(&run(
            &[
                "normalize",
                "--level",
                "protocol",
                "--learned",
                rules.to_str().unwrap(),
                "--redirects",
                log.to_str().unwrap(),
                "--min-evidence",
                "1",
            ],
            input,
        ))
    };
    assert_eq!(key(&agree), "http://h.example/x/\nhttp://www.g.example/\n");
    // One side adds the slash, the other removes it: neither is applied.
    assert_eq!(key(&disagree), "http://h.example/x\nhttp://g.example/\n");
}

#[test]
fn rules_lists_the_learned_kinds() {
    let out = ok(&run(&["rules"], b""));
    for kind in [
        "ignore-param",
        "alias-slash",
        "alias-index",
        "case-insensitive-path",
        "slash-added",
        "www-removed",
        "https-upgrade",
    ] {
        assert!(out.contains(kind), "{kind}: {out}");
    }
    assert!(out.contains("--learned"), "{out}");
}

#[test]
fn convert_refuses_cdx() {
    let o = run(&["convert", "--to", "uri", &fixture("crawl.cdx")], b"");
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("use normalize"), "{}", err(&o));
}
