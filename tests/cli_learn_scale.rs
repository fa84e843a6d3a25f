//! `learn --digests` at scale: the rules file of a SURT-sorted index is the
//! same whatever the number of threads; an index not sorted by host (a
//! file or stdin) and CSV are grouped by origin within `--memory`, with
//! the rules and report of the sorted index on any thread count and
//! budget, and nothing left in `--temp-dir`.

mod common;

use common::{ok, run};

/// A SURT-sorted CDXJ of `hosts` hosts: `sid` never changes content, `id`
/// selects it, some pages drift.
fn crawl(hosts: usize) -> Vec<String> {
    let mut lines = Vec::new();
    for h in 0..hosts {
        let mut rows = Vec::new();
        for page in 0..5 {
            for cap in 0..6usize {
                let month = 1 + (h * 7 + page * 5 + cap * 3) % 12;
                let id = (h + page + cap) % 2;
                let version = usize::from(page == 0 && h % 3 == 0 && month > 6);
                let url = format!(
                    "http://h{h:03}.example/p{page}?id={id}&sid={}",
                    cap * 37 + h
                );
                let surt = format!("example,h{h:03})/p{page}?id={id}&sid={}", cap * 37 + h);
                rows.push(format!(
                    "{surt} 2021{month:02}1{cap}000000 {{\"url\": \"{url}\", \"status\": \"200\", \
                     \"digest\": \"D{h}-{page}-{id}-{version}\"}}"
                ));
            }
        }
        rows.sort();
        lines.extend(rows);
    }
    lines
}

/// `learn --digests FILE ARGS… -o OUT`: the rules file and stderr.
fn learn(dir: &std::path::Path, name: &str, text: &str, args: &[&str]) -> (String, String) {
    let input = dir.join(name);
    std::fs::write(&input, text).unwrap();
    let out = dir.join(format!("{name}.{}.tsv", args.join("_").replace('/', "_")));
    let mut all = vec!["learn", "--digests", input.to_str().unwrap()];
    all.extend_from_slice(args);
    all.extend_from_slice(&["-o", out.to_str().unwrap()]);
    let o = run(&all, b"");
    ok(&o);
    (
        std::fs::read_to_string(&out).unwrap(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The report on stdout of `learn --digests FILE`, the file's name
/// replaced by `INPUT`.
fn report(path: &std::path::Path, args: &[&str]) -> String {
    let mut all = vec!["learn", "--digests", path.to_str().unwrap()];
    all.extend_from_slice(args);
    ok(&run(&all, b"")).replace(path.to_str().unwrap(), "INPUT")
}

/// A deterministic shuffle.
fn shuffled(lines: &[String], mut seed: u64) -> Vec<String> {
    let mut v = lines.to_vec();
    for i in (1..v.len()).rev() {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        v.swap(i, (seed % (i as u64 + 1)) as usize);
    }
    v
}

#[test]
fn sorted_and_unsorted_indexes() {
    let dir = tempfile::tempdir().unwrap();
    let lines = crawl(300);
    let sorted = lines.join("\n") + "\n";
    let (one, err) = learn(dir.path(), "a.cdxj", &sorted, &["-j", "1"]);
    assert!(one.lines().count() > 2, "{one}");
    assert!(!err.contains("not sorted"), "{err}");
    for threads in ["2", "4"] {
        assert_eq!(
            learn(dir.path(), "a.cdxj", &sorted, &["-j", threads]).0,
            one
        );
    }
    // In any order: detected, grouped by origin, and the rules of the
    // sorted index on any thread count and memory budget (64 KiB: dozens
    // of runs, merged in passes), with nothing left in --temp-dir.
    let temp = tempfile::tempdir().unwrap();
    let temp_dir = temp.path().to_str().unwrap();
    for (seed, memory) in [(1, "1G"), (2, "64K"), (3, "300K")] {
        let mixed = shuffled(&lines, seed).join("\n") + "\n";
        for threads in ["1", "2"] {
            let args = ["-j", threads, "--memory", memory, "--temp-dir", temp_dir];
            let (grouped, err) = learn(dir.path(), "b.cdxj", &mixed, &args);
            assert!(
                err.contains("is not sorted by host") && err.contains("grouped by origin"),
                "{err}"
            );
            assert_eq!(grouped, one, "seed {seed}, --memory {memory}, -j {threads}");
            assert_eq!(err.contains("sorted run(s)"), memory != "1G", "{err}");
        }
        assert_eq!(std::fs::read_dir(temp.path()).unwrap().count(), 0);
    }
    // The report too, but for the note that the input was not sorted.
    let a = dir.path().join("a.cdxj");
    let b = dir.path().join("b.cdxj");
    assert_eq!(report(&b, &["--memory", "64K"]), report(&a, &[]));
    // Stdin is kept while it streams: unsorted stdin is grouped too.
    let mixed = shuffled(&lines, 4).join("\n") + "\n";
    let o = run(
        &[
            "learn",
            "--digests",
            "-",
            "--input-format",
            "cdxj",
            "--memory",
            "100K",
        ],
        mixed.as_bytes(),
    );
    let from_stdin = ok(&o);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("is not sorted by host"), "{err}");
    assert_eq!(from_stdin, report(&a, &[]).replace("INPUT", "-"));
    // Sorted stdin streams.
    let o = run(
        &["learn", "--digests", "-", "--input-format", "cdxj"],
        sorted.as_bytes(),
    );
    let report = ok(&o);
    assert!(report.contains("on 300 origins"), "{report}");
    assert!(!String::from_utf8_lossy(&o.stderr).contains("not sorted"));
}

#[test]
fn csv_in_any_order_within_any_budget() {
    let dir = tempfile::tempdir().unwrap();
    let rows: Vec<String> = crawl(120)
        .iter()
        .map(|l| {
            let field = |name: &str| {
                let at = l.find(&format!("\"{name}\": \"")).unwrap() + name.len() + 5;
                l[at..].split('"').next().unwrap().to_owned()
            };
            let ts = l.split(' ').nth(1).unwrap();
            format!("{},{},{ts}", field("url"), field("digest"))
        })
        .collect();
    let (want, _) = learn(dir.path(), "a.csv", &(rows.join("\n") + "\n"), &[]);
    assert!(want.lines().count() > 2, "{want}");
    let mixed = shuffled(&rows, 5).join("\n") + "\n";
    for memory in ["1G", "20K"] {
        let (got, _) = learn(
            dir.path(),
            "b.csv",
            &mixed,
            &["--memory", memory, "-j", "2"],
        );
        assert_eq!(got, want, "--memory {memory}");
    }
}
