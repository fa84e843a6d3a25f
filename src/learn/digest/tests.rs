//! Tests of the digest learner, with the rules it writes and applies.

use super::*;
use crate::ladder::protocol::{ProtocolRules, Rules};
use crate::ladder::{Normalizer, Options};
use crate::learn::Learned;
use std::sync::Arc;

fn rec(url: &str, digest: &str, ts: &str) -> DigestRecord {
    DigestRecord::new(url, digest, (!ts.is_empty()).then_some(ts))
}

fn key_with(l: &Learned, url: &str) -> String {
    Normalizer::new(Options {
        level: Level::Protocol,
        ..Options::default()
    })
    .with_protocol(Arc::new(ProtocolRules::new(Rules::NONE, Some(l.clone()))))
    .key(url)
    .unwrap()
    .into_owned()
}

/// Pages of the hand-written crawl: enough merged pairs (two or more per
/// page) to show a rule safe.
const PAGES: usize = 10;

/// Hand-written crawl: `s` never changes content on `PAGES` pages; `id`
/// selects content.
fn crawl() -> Vec<DigestRecord> {
    let mut v = Vec::new();
    for i in 0..PAGES {
        let (page, d) = (format!("/p{i}"), format!("P{i}"));
        v.push(rec(
            &format!("http://h.example{page}?s=1"),
            &d,
            "20200101000000",
        ));
        v.push(rec(
            &format!("http://h.example{page}?s=2"),
            &d,
            "20200102000000",
        ));
        v.push(rec(
            &format!("http://h.example{page}"),
            &d,
            "20200103000000",
        ));
        // id selects content.
        v.push(rec(
            &format!("http://h.example{page}?id=1"),
            &format!("{d}-1"),
            "20200101000000",
        ));
        v.push(rec(
            &format!("http://h.example{page}?id=2"),
            &format!("{d}-2"),
            "20200101000000",
        ));
    }
    v
}

#[test]
fn planted_parameter_is_found_and_selecting_one_kept() {
    let rules = learn(&crawl(), &DigestOptions::default());
    assert_eq!(rules.record_counts(), (5 * PAGES, 0));
    let active: Vec<_> = rules
        .active()
        .map(|r| (r.kind, r.pattern.as_str(), r.support))
        .collect();
    assert_eq!(active, [(ContentKind::IgnoreParam, "s", PAGES)]);
    let id = rules.candidates().iter().find(|c| c.pattern == "id");
    assert!(id.is_none() || !id.unwrap().is_active());
    let l = Learned::default().with_content(rules);
    // Generalizes to a fresh value and a fresh page of that origin only.
    assert_eq!(
        key_with(&l, "http://h.example/new?x=1&s=999"),
        "http://h.example/new?x=1"
    );
    assert_eq!(
        key_with(&l, "http://h.example/new?s=9"),
        "http://h.example/new"
    );
    assert_eq!(
        key_with(&l, "http://h.example/a?id=7&s=1"),
        "http://h.example/a?id=7"
    );
    assert_eq!(
        key_with(&l, "https://h.example/a?s=1"),
        "https://h.example/a?s=1"
    );
    assert_eq!(
        key_with(&l, "http://g.example/a?s=1"),
        "http://g.example/a?s=1"
    );
}

#[test]
fn too_little_evidence_learns_nothing() {
    // Many agreeing pairs, but on two pages only.
    let mut recs = Vec::new();
    for page in ["/a", "/b"] {
        for s in 0..15 {
            recs.push(rec(&format!("http://h.example{page}?s={s}"), page, ""));
        }
    }
    assert_eq!(learn(&recs, &DigestOptions::default()).active().count(), 0);
    let o = DigestOptions {
        min_evidence: 2,
        ..DigestOptions::default()
    };
    assert_eq!(learn(&recs, &o).active().count(), 1);
    // Three pages, but too few merged pairs to show the rule safe.
    let few: Vec<_> = crawl()
        .into_iter()
        .filter(|r| ["/p0", "/p1", "/p2"].iter().any(|p| r.url.contains(p)))
        .collect();
    assert_eq!(learn(&few, &DigestOptions::default()).active().count(), 0);
}

/// Pages where `s=1` and `s=2` differ, added to [`crawl`]: about half of
/// the merged pairs then disagree, more than one changed URL's drift bound
/// (0.27 at the default significance) plus `max_excess` excuses.
const CONTRADICTING: usize = 20;

/// `crawl()` plus `CONTRADICTING` pages whose `s=1` and `s=2` captures
/// (at `t1` and `t2`) differ; with `changed`, the first page's `s=1` also
/// changes once.
fn contradicted(t1: &str, t2: &str, changed: bool) -> Vec<DigestRecord> {
    let mut recs = crawl();
    for k in 0..CONTRADICTING {
        let page = format!("http://h.example/d{k}");
        recs.push(rec(&format!("{page}?s=1"), &format!("X{k}"), t1));
        if changed && k == 0 {
            recs.push(rec(
                &format!("{page}?s=1"),
                &format!("Z{k}"),
                "20200101120000",
            ));
        }
        recs.push(rec(&format!("{page}?s=2"), &format!("Y{k}"), t2));
    }
    recs
}

#[test]
fn contradiction_blocks_and_window_is_honoured() {
    // s=1 and s=2 a day apart with different content.
    let recs = contradicted("20200101000000", "20200102000000", false);
    let rules = learn(&recs, &DigestOptions::default());
    assert_eq!(rules.active().count(), 0);
    let s = rules
        .candidates()
        .iter()
        .find(|c| c.pattern == "s")
        .unwrap();
    assert_eq!((s.support, s.contradictions), (PAGES, CONTRADICTING));
    // With no window (the default) a disagreement a year apart counts too:
    // the origin shows no drift of its own to explain it ...
    let recs = contradicted("20190101000000", "20200102000000", false);
    assert_eq!(learn(&recs, &DigestOptions::default()).active().count(), 0);
    // ... unless the window leaves pairs that far apart out.
    let o = DigestOptions {
        window: Some(30 * 86_400),
        ..DigestOptions::default()
    };
    assert_eq!(learn(&recs, &o).active().count(), 1);
    // One change of one URL does not excuse the differences: drift is
    // charged at the lower confidence bound of what the origin's same-URL
    // pairs show, and one pair (changed) leaves that bound low.
    let recs = contradicted("20200101000000", "20200102000000", true);
    assert_eq!(learn(&recs, &DigestOptions::default()).active().count(), 0);
    // Without timestamps, every pair is within the window.
    let recs = contradicted("", "20300101000000", false);
    assert_eq!(learn(&recs, &DigestOptions::default()).active().count(), 0);
}

#[test]
fn path_aliases() {
    let mut v = Vec::new();
    // One merged pair per directory and rule: 25 show each safe.
    for i in 0..25 {
        let (d, dg) = (format!("d{i}"), format!("D{i}"));
        v.push(rec(&format!("http://p.example/{d}/"), &dg, ""));
        v.push(rec(&format!("http://p.example/{d}"), &dg, ""));
        v.push(rec(&format!("http://p.example/{d}/index.html"), &dg, ""));
        v.push(rec(&format!("http://q.example/{d}/File.HTML"), &dg, ""));
        v.push(rec(&format!("http://q.example/{d}/file.html"), &dg, ""));
    }
    let rules = learn(&v, &DigestOptions::default());
    let mut got: Vec<_> = rules
        .active()
        .map(|r| format!("{} {} {}", r.origin, r.kind, r.pattern))
        .collect();
    got.sort();
    assert_eq!(
        got,
        [
            "http://p.example alias-index index.html",
            "http://p.example alias-slash no-extension",
            "http://q.example case-insensitive-path *",
        ]
    );
    let l = Learned::default().with_content(rules);
    assert_eq!(
        key_with(&l, "http://p.example/new/index.html"),
        "http://p.example/new"
    );
    assert_eq!(key_with(&l, "http://p.example/"), "http://p.example/");
    assert_eq!(
        key_with(&l, "http://q.example/A%2Fb/C"),
        "http://q.example/a%2Fb/c"
    );
    assert_eq!(key_with(&l, "http://p.example/A"), "http://p.example/A");
}

#[test]
fn rules_never_move_the_scheme_authority_path_boundary() {
    let tsv = "http://h.example\tignore-param\ts\t3\t0\n\
               http://h.example\tignore-param\t\u{e9}\t3\t0\n\
               http://h.example\talias-slash\tno-extension\t3\t0\n\
               http://h.example\talias-slash\textension\t3\t0\n\
               http://h.example\talias-index\tindex.html\t3\t0\n\
               http://h.example\tcase-insensitive-path\t*\t3\t0\n";
    let l = Learned::from_tsv(tsv).unwrap();
    for u in [
        "http://h.example",
        "http://h.example/",
        "http://h.example//",
        "http://h.example//X/",
        "http://h.example/index.html",
        "http://h.example/A/Index.html",
        "http://h.example/?s=1",
        "http://h.example?s",
        "http://h.example/%2F/",
        "http://h.example/a%2f?s=1&s=2#F",
        "http://h.example/.../",
        "http://h.example/x?%C3%A9=1&s",
        "http://h.example/x?&&s=&",
        "http://h.example:8080/A/",
        "http://u@h.example/A/",
        "http://h.example/ü/Ä/?s=ö",
    ] {
        let before = key(u, Level::Scheme).unwrap();
        let after = key_with(&l, u);
        let (b, a) = (parse(&before).unwrap(), parse(&after).unwrap());
        assert_eq!(a.scheme(), b.scheme(), "{u}");
        assert_eq!(a.authority(), b.authority(), "{u}");
        assert!(
            a.path().starts_with('/') || a.path() == b.path(),
            "{u} → {after}"
        );
        // Still a scheme-rung key: normalizing it again changes nothing.
        assert_eq!(key(&after, Level::Scheme).unwrap(), after, "{u}");
        // And applying the rules again is stable.
        assert_eq!(key_with(&l, &after), after, "{u}");
    }
}

#[test]
fn rules_file_round_trip() {
    let redirects = "http://r.example/a,http://r.example/a/\n\
                     http://r.example/b,http://r.example/b/\n\
                     http://r.example/c,http://r.example/c/\n\
                     http://c.example/a,http://c.example/a/\n\
                     http://c.example/b,http://c.example/b/\n\
                     http://c.example/d,http://c.example/d/\n\
                     http://c.example/e/,http://c.example/e\n\
                     http://c.example/x,https://c.example/x\n\
                     http://c.example/y,https://c.example/y\n\
                     http://c.example/z,https://c.example/z\n\
                     http://c.example/i/,http://c.example/i/index.html\n\
                     http://c.example/j/,http://c.example/j/index.html\n\
                     http://c.example/k/,http://c.example/k/index.html\n";
    let mut recs = crawl();
    recs.push(rec("not a url", "Q", ""));
    recs.push(rec("http://u@h.example/", "Q", ""));
    recs.push(rec("http://h.example/d?id=1", "Q", ""));
    recs.push(rec("http://h.example/d?id=1&s=3", "Q", ""));
    let l = Learned::from_csv(redirects.as_bytes())
        .unwrap()
        .with_content(learn(&recs, &DigestOptions::default()));
    assert_eq!(l.content().record_counts(), (5 * PAGES + 4, 2));
    let tsv = l.to_tsv();
    assert!(tsv.starts_with(RULES_HEADER));
    assert!(
        tsv.contains("r.example\tslash-added\tno-extension\t3\t0\n"),
        "{tsv}"
    );
    assert!(
        tsv.contains(&format!(
            "http://h.example\tignore-param\ts\t{}\t0\t",
            PAGES + 1
        )),
        "{tsv}"
    );
    // Redirect observations set aside are in the file, with their
    // contradictions, and are not applied after reading it back.
    assert!(
        tsv.contains(
            "c.example\tslash-added\tno-extension\t3\t1\n\
             c.example\tslash-removed\tno-extension\t1\t3\n"
        ),
        "{tsv}"
    );
    assert!(
        tsv.contains("c.example\thttps-upgrade\tany\t3\t0\n"),
        "{tsv}"
    );
    assert!(
        tsv.contains("c.example\tindex-added\tindex:index.html\t3\t0\n"),
        "{tsv}"
    );
    let back = Learned::from_tsv(&tsv).unwrap();
    assert_eq!(back.to_tsv(), tsv);
    assert_eq!(back.contradictions(), l.contradictions());
    assert_eq!(key_with(&back, "http://c.example/n"), "https://c.example/n");
    assert_eq!(
        key_with(&back, "http://c.example/n/"),
        "https://c.example/n/index.html"
    );
    for u in [
        "http://r.example/q",
        "http://h.example/z?s=1&t=2",
        "http://h.example/z?id=1",
    ] {
        assert_eq!(key_with(&back, u), key_with(&l, u), "{u}");
    }
    // A contradicted row is kept in the file but not applied.
    let t = "http://h.example\tignore-param\tid\t5\t1\n";
    let l = Learned::from_tsv(t).unwrap();
    assert_eq!(
        key_with(&l, "http://h.example/a?id=1"),
        "http://h.example/a?id=1"
    );
    // A row of the older five columns reads; it is written back with its
    // evidence unknown (zeros).
    assert_eq!(
        l.to_tsv(),
        format!("{RULES_HEADER}\nhttp://h.example\tignore-param\tid\t5\t1\t0\t0\t0\t0.000000\n")
    );
    for bad in [
        "h\tslash-added\tno-extension\t3\n",
        "h\tnope\tx\t3\t0\n",
        "h\tslash-added\tweird\t3\t0\n",
        "http://h\tignore-param\ta&b\t3\t0\n",
        "h\tignore-param\ts\t3\t0\n",
        "h\tslash-added\tno-extension\tx\t0\n",
        "h\tother\tany\t3\t0\n",
        "h\thttps-downgrade\tany\t3\t0\n",
    ] {
        assert!(
            Learned::from_tsv(bad).unwrap_err().contains("line 1"),
            "{bad}"
        );
    }
}

#[test]
fn windows() {
    assert_eq!(parse_window("3600s"), Ok(3600));
    assert_eq!(parse_window("90m"), Ok(5400));
    assert_eq!(parse_window(" 36h "), Ok(129_600));
    assert_eq!(parse_window("1w"), Ok(604_800));
    assert_eq!(parse_window("0d"), Ok(0));
    for bad in [
        "",
        "d",
        "2",
        "2y",
        "-1d",
        "1.5d",
        "99999999999999999999d",
        "9223372036854775807w",
    ] {
        assert!(parse_window(bad).is_err(), "{bad}");
    }
}

#[test]
fn every_content_kind_keeps_the_key_invariants() {
    // One active rule of every kind on one origin, read as a rules file.
    let t = "http://h.example\tignore-param\ts\t3\t0\n\
             http://h.example\talias-slash\tno-extension\t3\t0\n\
             http://h.example\talias-index\tindex.html\t3\t0\n\
             http://h.example\tcase-insensitive-path\t*\t3\t0\n\
             http://h.example\tquery-order\t*\t3\t0\n";
    let l = Learned::from_tsv(t).unwrap();
    assert_eq!(l.content().active().count(), 5);
    assert_eq!(
        key_with(&l, "http://h.example/A/B/?z=1&s=9&b=2&a=3"),
        "http://h.example/a/b?a=3&b=2&z=1"
    );
    for u in [
        "http://h.example/A/B/?z=1&s=9&b=2&a=3",
        "http://h.example/Dir/index.html?b=1&a=1&a=0",
        "http://h.example/?s=1",
        "http://h.example/%41/x.HTML?b&a=#F",
        "http://other.example/A/?b=1&a=2",
        "https://h.example/A/?b=1&a=2",
    ] {
        let k = key_with(&l, u);
        // Idempotent, and scheme and host are never touched.
        assert_eq!(key_with(&l, &k), k, "{u}");
        let plain = key_with(&Learned::default(), u);
        let head = |s: &str| s.split('/').take(3).collect::<Vec<_>>().join("/");
        assert_eq!(head(&k), head(&plain), "{u}");
    }
    // Other origins and schemes are left alone.
    assert_eq!(
        key_with(&l, "http://other.example/A/?b=1&a=2"),
        key_with(&Learned::default(), "http://other.example/A/?b=1&a=2")
    );
}
