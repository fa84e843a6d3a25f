//! End-to-end tests of the protocol rung's CLI (3987bis §5.3.4): `--rules`,
//! `--redirects`, `irinorm rules`, `irinorm learn`, `--form surt`.

use std::process::Output;

mod common;
use common::run;

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

const REDIRECTS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/redirects_sample.csv"
);

#[test]
fn rules_lists_every_rule_with_an_example() {
    let o = run(&["rules"], b"");
    assert!(o.status.success());
    let t = stdout(&o);
    for name in [
        "fragment",
        "tracking",
        "session",
        "empty-query",
        "sort-query",
        "strip-www",
        "strip-index",
        "collapse-slashes",
    ] {
        assert!(t.contains(name), "{name} missing from:\n{t}");
    }
    assert!(t.contains("* fragment") && t.contains("  sort-query"));
}

#[test]
fn default_rules_and_adjustments() {
    let input = b"http://a.example/x?utm_source=z&b=1#f\nhttp://a.example/x?b=1\nhttp://www.a.example/x?b=1\n";
    let o = run(&["normalize", "--level", "protocol", "-q"], input);
    assert_eq!(
        stdout(&o),
        "http://a.example/x?b=1\nhttp://a.example/x?b=1\nhttp://www.a.example/x?b=1\n"
    );
    let o = run(
        &[
            "normalize",
            "--level",
            "protocol",
            "--rules",
            "+strip-www,-fragment",
            "-q",
        ],
        input,
    );
    assert_eq!(
        stdout(&o),
        "http://a.example/x?b=1#f\nhttp://a.example/x?b=1\nhttp://a.example/x?b=1\n"
    );
    // Reserved characters are never decoded: a=b%26c and a=b&c stay apart.
    let o = run(
        &["normalize", "--level", "protocol", "-q"],
        b"http://h/?a=b%26c\nhttp://h/?a=b&c\n",
    );
    assert_eq!(stdout(&o), "http://h/?a=b%26c\nhttp://h/?a=b&c\n");
}

#[test]
fn bad_rules_are_usage_errors() {
    let o = run(
        &["normalize", "--level", "protocol", "--rules", "nope"],
        b"",
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("nope"));
    let o = run(&["normalize", "--rules", "fragment"], b"");
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn learn_reports_rules_and_contradictions() {
    let o = run(&["learn", "--redirects", REDIRECTS], b"");
    assert!(o.status.success());
    let t = stdout(&o);
    assert!(t.contains("a.example,slash-added,no-extension,3"), "{t}");
    assert!(!t.contains("b.example,"), "{t}");
    // c.example contradicts itself: its rows are set aside, with the
    // other observations of that family counted as contradictions.
    let aside = t.split("contradicted (set aside, never applied):").nth(1);
    assert!(
        aside.is_some_and(|a| a.contains("redirects,c.example,")),
        "{t}"
    );
}

/// The check: host A always adds the slash (3 times), host B has one
/// observation, host C contradicts itself: only A's URLs merge.
#[test]
fn only_the_host_with_consistent_evidence_merges() {
    let input = b"http://a.example/page\nhttp://a.example/page/\n\
        http://b.example/page\nhttp://b.example/page/\n\
        http://c.example/page\nhttp://c.example/page/\n\
        http://a.example/file.html\nhttp://a.example/file.html/\n";
    let o = run(
        &[
            "dedup",
            "--level",
            "protocol",
            "--redirects",
            REDIRECTS,
            "-q",
        ],
        input,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows: Vec<String> = stdout(&o).lines().skip(1).map(str::to_owned).collect();
    assert_eq!(rows.len(), 7, "{rows:#?}");
    assert!(
        rows[0].starts_with("http://a.example/page/,2,"),
        "{rows:#?}"
    );
    // Without the evidence nothing merges.
    let o = run(&["dedup", "--level", "protocol", "-q"], input);
    assert_eq!(stdout(&o).lines().count(), 1 + 8);
}

#[test]
fn surt_form() {
    let o = run(
        &["normalize", "--form", "surt", "-q"],
        b"http://www.Example.com:80/a?b\nhttps://example.com/a?b\n",
    );
    assert_eq!(stdout(&o), "com,example,www)/a?b\ncom,example)/a?b\n");
}

/// SURT omits the scheme; dedup must still group by the URI-form key, so
/// http and https never merge (no false merge through a display form).
#[test]
fn surt_dedup_never_merges_schemes() {
    let o = run(
        &["dedup", "--form", "surt", "--sort", "surt", "-q"],
        b"https://b.example/x\nhttp://a.example/\nhttps://a.example/\nhttp://A.example:80\n",
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows: Vec<String> = stdout(&o).lines().skip(1).map(str::to_owned).collect();
    assert_eq!(rows.len(), 3, "{rows:#?}");
    // The SURT has a comma, so the CSV quotes it.
    assert!(
        rows[0].starts_with("\"example,a)/\",2,-,2,http://"),
        "{rows:#?}"
    );
    assert!(
        rows[1].starts_with("\"example,a)/\",1,-,3,https://"),
        "{rows:#?}"
    );
    assert!(rows[2].starts_with("\"example,b)/x\",1,-,1,"), "{rows:#?}");
}
