//! `learn --digests` at scale: the rules file of a SURT-sorted index is the
//! same whatever the number of threads; an index not sorted by host is
//! said so and grouped, with the rules the grouping gives on any thread
//! count; stdin that is not sorted is refused with the reason.

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

fn learn(dir: &std::path::Path, name: &str, text: &str, threads: &str) -> (String, String) {
    let input = dir.join(name);
    std::fs::write(&input, text).unwrap();
    let out = dir.join(format!("{name}.{threads}.tsv"));
    let o = run(
        &[
            "learn",
            "--digests",
            input.to_str().unwrap(),
            "-j",
            threads,
            "-o",
            out.to_str().unwrap(),
        ],
        b"",
    );
    ok(&o);
    (
        std::fs::read_to_string(&out).unwrap(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn sorted_and_unsorted_indexes() {
    let dir = tempfile::tempdir().unwrap();
    let lines = crawl(300);
    let sorted = lines.join("\n") + "\n";
    let (one, err) = learn(dir.path(), "a.cdxj", &sorted, "1");
    assert!(one.lines().count() > 2, "{one}");
    assert!(!err.contains("not sorted"), "{err}");
    for threads in ["2", "4"] {
        assert_eq!(learn(dir.path(), "a.cdxj", &sorted, threads).0, one);
    }
    // A host's capture after the others: detected, grouped, same rules on
    // any thread count.
    let mut mixed = lines.clone();
    mixed.rotate_left(1);
    let mixed = mixed.join("\n") + "\n";
    let (grouped, err) = learn(dir.path(), "b.cdxj", &mixed, "1");
    assert!(
        err.contains("is not sorted by host") && err.contains("grouped by origin in memory"),
        "{err}"
    );
    assert_eq!(learn(dir.path(), "b.cdxj", &mixed, "3").0, grouped);
    // From stdin it cannot be read again: refused, with what to do.
    let o = run(
        &["learn", "--digests", "-", "--input-format", "cdxj"],
        mixed.as_bytes(),
    );
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("stdin is not sorted by host"), "{err}");
    // Sorted stdin streams.
    let o = run(
        &["learn", "--digests", "-", "--input-format", "cdxj"],
        sorted.as_bytes(),
    );
    let report = ok(&o);
    assert!(report.contains("on 300 origins"), "{report}");
}
