//! `learn --digests` with evidence pooled across origins: a sparse host's
//! rule, too thin to show safe alone, is applied when the same parameter's
//! pairs over several hosts show it safe, and the report says what it
//! rested on; `--pool-origins 0` judges each host alone. Past `--memory`
//! the pooled pass sorts its summaries on disk, with the same rules file
//! and report, and nothing left behind.

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
    // A rule the pooled pass applied says so in the rules table.
    assert!(
        report.contains("digests,http://h3.example,ignore-param,utm_source,8,0 (pooled),"),
        "{report}"
    );
    assert!(report.contains("digests,http://h0.example,ignore-param,utm_source,25,0,"));
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

/// Many sparse hosts, each with its own tracking parameter besides the
/// shared `utm_source`, so that the pooled pass has many summaries.
fn many_hosts(hosts: usize) -> String {
    let mut lines = Vec::new();
    for h in 0..hosts {
        let mut rows = Vec::new();
        for page in 0..(4 + h % 20) {
            for cap in 0..3 {
                let q = format!("utm_source={}&t{}={cap}", h * 1000 + page * 10 + cap, h % 7);
                let url = format!("http://h{h:04}.example/p{page}?{q}");
                rows.push(format!(
                    "example,h{h:04})/p{page}?{q} 20210{}0{}120000 \
                     {{\"url\": \"{url}\", \"status\": \"200\", \"digest\": \"D{h}-{page}-{}\"}}",
                    cap + 1,
                    1 + page % 9,
                    usize::from(h % 11 == 0 && cap == 2 && page % 2 == 0)
                ));
            }
        }
        rows.sort();
        lines.extend(rows);
    }
    lines.join("\n") + "\n"
}

#[test]
fn the_pooled_pass_past_memory_gives_the_in_memory_result() {
    let dir = tempfile::tempdir().unwrap();
    let temp = tempfile::tempdir().unwrap();
    let input = dir.path().join("c.cdxj");
    std::fs::write(&input, many_hosts(300)).unwrap();
    let input = input.to_str().unwrap();
    let learn = |args: &[&str]| {
        let out = dir.path().join("rules.tsv");
        let mut all = vec!["learn", "--digests", input, "-o", out.to_str().unwrap()];
        all.extend_from_slice(args);
        let o = run(&all, b"");
        ok(&o);
        let mut report = vec!["learn", "--digests", input];
        report.extend_from_slice(args);
        (
            std::fs::read_to_string(out).unwrap(),
            ok(&run(&report, b"")),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let (want, want_report, err) = learn(&[]);
    assert!(
        !err.contains("pooling across origins past --memory"),
        "{err}"
    );
    assert!(applied(&want).len() > 300, "{}", applied(&want).len());
    assert!(want_report.contains("verdicts on pooled evidence"));
    let t = temp.path().to_str().unwrap();
    for (memory, threads) in [("8K", "1"), ("8K", "2"), ("40K", "2")] {
        let (got, report, err) = learn(&["--memory", memory, "-j", threads, "--temp-dir", t]);
        assert!(
            err.contains("pooling across origins past --memory"),
            "--memory {memory}: {err}"
        );
        assert_eq!(got, want, "--memory {memory} -j {threads}");
        assert_eq!(report, want_report, "--memory {memory} -j {threads}");
        assert_eq!(std::fs::read_dir(temp.path()).unwrap().count(), 0);
    }
}
