//! `learn --digests` with evidence pooled across origins: a sparse host's
//! rule, too thin to show safe alone, is applied when the same parameter's
//! pairs over several hosts show it safe, and the report says what it
//! rested on; `--pool-origins 0` judges each host alone.

mod common;

use common::{ok, run};

/// A SURT-sorted CDXJ: hosts 0–2 have 25 pages, hosts 3–7 have 8; every
/// page is captured 3 times with a fresh `utm_source` and never changes.
fn crawl() -> String {
    let mut lines = Vec::new();
    for h in 0..8 {
        let pages = if h < 3 { 25 } else { 8 };
        let mut rows = Vec::new();
        for page in 0..pages {
            for cap in 0..3 {
                let utm = h * 1000 + page * 10 + cap;
                let url = format!("http://h{h}.example/p{page}?utm_source={utm}");
                rows.push(format!(
                    "example,h{h})/p{page}?utm_source={utm} 20210{}0{}120000 \
                     {{\"url\": \"{url}\", \"status\": \"200\", \"digest\": \"D{h}-{page}\"}}",
                    cap + 1,
                    1 + page % 9
                ));
            }
        }
        rows.sort();
        lines.extend(rows);
    }
    lines.join("\n") + "\n"
}

/// The applied rules of a rules file: (host, pattern).
fn applied(tsv: &str) -> Vec<(String, String)> {
    tsv.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .filter(|f| f.len() > 4 && f[4] == "0")
        .map(|f| (f[0].to_owned(), f[2].to_owned()))
        .collect()
}

#[test]
fn sparse_hosts_borrow_the_evidence_of_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("c.cdxj");
    std::fs::write(&input, crawl()).unwrap();
    let input = input.to_str().unwrap();
    let rules = |args: &[&str]| {
        let out = dir.path().join(format!("{}.tsv", args.join("_")));
        let mut all = vec!["learn", "--digests", input, "-o", out.to_str().unwrap()];
        all.extend_from_slice(args);
        ok(&run(&all, b""));
        applied(&std::fs::read_to_string(out).unwrap())
    };
    let alone = rules(&["--pool-origins", "0"]);
    let hosts: Vec<&str> = alone.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(
        hosts,
        [
            "http://h0.example",
            "http://h1.example",
            "http://h2.example"
        ]
    );
    let pooled = rules(&[]);
    assert_eq!(pooled.len(), 8, "{pooled:?}");
    assert!(pooled.iter().all(|r| r.1 == "utm_source"));
    // Pooled over more origins than there are: each host alone.
    assert_eq!(rules(&["--pool-origins", "9"]), alone);
    // The same with threads and the report: what the sparse rules rested on.
    assert_eq!(rules(&["-j", "1"]), pooled);
    let report = ok(&run(&["learn", "--digests", input], b""));
    assert!(report.contains("--max-excess 0.15"), "{report}");
    let table = report
        .split("verdicts on pooled evidence")
        .nth(1)
        .unwrap_or_else(|| panic!("{report}"));
    let row = table.lines().nth(2).unwrap();
    assert!(
        row.starts_with("applied,ignore-param,utm_source,8,3,0,230,0 (0.0%),0.0%,"),
        "{row}"
    );
    assert!(row.ends_with(
        ",http://h3.example http://h4.example http://h5.example http://h6.example http://h7.example"
    ));
    let alone = ok(&run(
        &["learn", "--digests", input, "--pool-origins", "0"],
        b"",
    ));
    assert!(!alone.contains("pooled evidence"), "{alone}");
}
