//! Tests of the cluster learner's decision rule: crossings, the drift
//! baseline and the safety margin, on small crawls built by hand.

use super::*;

const DAY: i64 = 86_400;

/// The defaults: `--min-evidence 3 --significance 0.05 --max-excess 0.15`,
/// no window.
fn thresholds() -> Thresholds {
    Thresholds::default()
}

/// The verdicts of `o`, as `(pattern, applied, contradictions)`.
fn verdicts(o: &Origin) -> Vec<(String, bool, usize)> {
    let (rules, _) = o.learn(&thresholds());
    let mut v: Vec<_> = rules
        .into_iter()
        .map(|r| (r.pattern, r.contradictions == 0, r.contradictions))
        .collect();
    v.sort();
    v
}

fn applied(o: &Origin, pattern: &str) -> bool {
    verdicts(o).iter().any(|(p, ok, _)| p == pattern && *ok)
}

/// A year of captures of `pages` pages on one origin, one every 30 days
/// per page: even ones of the plain URL `/pN`, odd ones with a fresh
/// `sid`, and, when `view` is set, a `view` parameter that alternates
/// every two captures and selects content on pages below `view`. Pages
/// below `drifting` change content every 90 days.
fn crawl(pages: usize, drifting: usize, view: Option<usize>) -> Origin {
    let mut o = Origin::new("http://h.example".into());
    let mut fresh = 0x9e37_79b9_u64;
    for p in 0..pages {
        for k in 0..12i64 {
            let t = 1_600_000_000 + k * 30 * DAY + p as i64 * 3_600;
            // Each page changes at its own phase.
            let version = if p < drifting {
                (t + p as i64 * 17 * DAY) / (90 * DAY)
            } else {
                0
            };
            let mut query: Vec<String> = Vec::new();
            let mut content = format!("{p}@{version}");
            if let Some(selects) = view {
                let v = ["list", "grid"][(k / 2 % 2) as usize];
                query.push(format!("view={v}"));
                if p < selects {
                    content.push_str(v);
                }
            }
            if k % 2 == 1 {
                fresh = fresh
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1);
                query.push(format!("sid={:x}", fresh >> 24));
            }
            let q = query.join("&");
            o.push(
                &format!("/p{p}"),
                (!q.is_empty()).then_some(q.as_str()),
                &content,
                Some(t),
            );
        }
    }
    o
}

#[test]
fn a_noise_parameter_on_a_drifting_origin_is_accepted() {
    // A fifth of the pages drift: a third of the sid pairs (30 days apart)
    // on them disagree, within what the plain URLs (60 days apart) show.
    let o = crawl(40, 8, None);
    assert!(applied(&o, "sid"), "{:?}", verdicts(&o));
}

#[test]
fn disagreement_is_judged_against_the_origins_drift() {
    // Twenty more pages whose two spellings 30 days apart differ: beyond
    // any tolerance on an origin whose plain URLs never change, within
    // the drift of one whose plain URLs change every 90 days.
    let with_pages = |drifting| {
        let mut o = crawl(10, drifting, None);
        for p in 0..20 {
            let t = 1_600_000_000 + p * 3_600;
            o.push(&format!("/q{p}"), Some("sid=a"), "Qa", Some(t));
            o.push(&format!("/q{p}"), Some("sid=b"), "Qb", Some(t + 30 * DAY));
        }
        o
    };
    let o = with_pages(0);
    assert!(!applied(&o, "sid"), "{:?}", verdicts(&o));
    let o = with_pages(10);
    assert!(applied(&o, "sid"), "{:?}", verdicts(&o));
}

#[test]
fn a_parameter_selecting_content_on_15_percent_of_pages_is_refused() {
    // `view` selects content on 6 of 40 pages; those pages return to an
    // earlier content (list, grid, list): crossings, which drift never
    // makes. `sid` stays accepted once `view` has left.
    let o = crawl(40, 8, Some(6));
    let v = verdicts(&o);
    let view = v
        .iter()
        .find(|x| x.0 == "view")
        .expect("view is a candidate");
    assert!(!view.1 && view.2 > 0, "{v:?}");
    assert!(applied(&o, "sid"), "{v:?}");
    // Ignored everywhere, `view` is a rule like `sid`.
    let o = crawl(40, 8, Some(0));
    assert!(
        applied(&o, "view") && applied(&o, "sid"),
        "{:?}",
        verdicts(&o)
    );
}

#[test]
fn query_order_is_learned_with_the_parameters_it_needs() {
    let mut o = Origin::new("http://h.example".into());
    for p in 0..25 {
        let d = format!("D{p}");
        let path = format!("/p{p}");
        o.push(&path, Some(&format!("a={p}&b=1")), &d, None);
        o.push(&path, Some(&format!("b=1&a={p}&sid=x{p}")), &d, None);
        o.push(&path, Some(&format!("sid=y{p}&a={p}&b=1")), &d, None);
    }
    let v = verdicts(&o);
    assert!(applied(&o, "*") && applied(&o, "sid"), "{v:?}");
    assert!(v.iter().all(|x| x.0 != "a" && x.0 != "b"), "{v:?}");
}

#[test]
fn path_aliases_on_a_drifting_origin() {
    let mut o = Origin::new("http://h.example".into());
    for p in 0..30i64 {
        for k in 0..8i64 {
            let t = 1_600_000_000 + k * 45 * DAY + p * 3_600;
            let version = if p < 6 {
                (t + p * 23 * DAY) / (120 * DAY)
            } else {
                0
            };
            let path = match k % 3 {
                0 => format!("/d{p}/"),
                1 => format!("/d{p}/index.html"),
                _ => format!("/d{p}"),
            };
            o.push(&path, None, &format!("{p}@{version}"), Some(t));
        }
    }
    let v = verdicts(&o);
    assert!(applied(&o, "index.html"), "{v:?}");
    assert!(applied(&o, "no-extension"), "{v:?}");
}

/// Captures whose order the learner must not depend on: two at the same
/// second per page and month (one plain, one with a fresh `sid` and a
/// `ref`), a `view` that selects content on a few pages, and drift.
fn same_second_captures() -> Vec<(String, String, String, i64)> {
    let mut v = Vec::new();
    let mut fresh = 7u64;
    for p in 0..30u64 {
        for k in 0..12u64 {
            let t = 1_600_000_000 + (k / 2) as i64 * 30 * DAY;
            let version = if p % 4 == 0 { (k + p) / 5 } else { 0 };
            let view = ["list", "grid", "full"][((k * 7 + p) % 3) as usize];
            let mut content = format!("{p}@{version}");
            if p % 7 == 0 {
                content.push_str(view);
            }
            let mut query = format!("view={view}");
            if k % 2 == 1 {
                fresh = fresh
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1);
                query = format!("sid={:x}&{query}&ref={}", fresh >> 40, fresh % 5);
            }
            v.push((format!("/p{p}"), query, content, t));
        }
    }
    v
}

fn learned_from(caps: &[(String, String, String, i64)]) -> Vec<ContentRule> {
    let mut o = Origin::new("http://h.example".into());
    for (path, query, digest, t) in caps {
        o.push(path, Some(query), digest, Some(*t));
    }
    let (mut rules, _) = o.learn(&thresholds());
    rules.sort();
    rules
}

#[test]
fn the_rules_do_not_depend_on_the_input_order() {
    let caps = same_second_captures();
    let want = learned_from(&caps);
    assert!(want.len() >= 3, "{want:?}");
    let mut rng = 0x2545_f491_4f6c_dd1d_u64;
    for _ in 0..20 {
        let mut shuffled = caps.clone();
        for i in (1..shuffled.len()).rev() {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            shuffled.swap(i, (rng % (i as u64 + 1)) as usize);
        }
        assert_eq!(learned_from(&shuffled), want);
    }
    let mut reversed = caps;
    reversed.reverse();
    assert_eq!(learned_from(&reversed), want);
}

#[test]
fn crossings_are_returns_to_an_earlier_content() {
    let rows = |digests: &[u32]| -> Vec<Row> {
        digests
            .iter()
            .enumerate()
            .map(|(i, d)| Row {
                key: 1,
                time: Some(i as i64),
                digest: *d,
                tie: 0,
                url: i as u32,
            })
            .collect()
    };
    let mut spans = Spans::default();
    let mut got = Vec::new();
    spans.each_pair(&rows(&[1, 1, 2, 2, 3]), |_, _, c| got.push(c));
    assert_eq!(got, [false, false, false, false]);
    got.clear();
    spans.each_pair(&rows(&[1, 2, 1, 3]), |_, _, c| got.push(c));
    assert_eq!(got, [true, true, false]);
}

#[test]
fn the_drift_baseline_is_a_nondecreasing_fit() {
    let mut pairs = [(0, 0); BUCKETS];
    pairs[2] = (10, 5);
    pairs[3] = (10, 1);
    pairs[5] = (20, 10);
    let b = Baseline::new(&pairs, (40, 0), 0.0);
    // Buckets 2 and 3 pool (0.5 then 0.1 is a violation); 4 is empty and
    // takes the shorter gaps' rate; 0 and 1 take the first block's.
    assert_eq!(b.rate[0], 0.3);
    assert_eq!(b.rate[2], 0.3);
    assert_eq!(b.rate[4], 0.3);
    assert_eq!(b.rate[5], 0.5);
    assert_eq!(b.rate[BUCKETS - 1], 0.5);
    assert_eq!(b.crossing, 0.0);
    // At z = 1 each block is charged with its lower Wilson bound: the
    // sparse first block (0.3 of 20) lower than the larger second.
    let b = Baseline::new(&pairs, (40, 0), 1.0);
    assert!((b.rate[2] - wilson_lower(6, 20, 1.0)).abs() < 1e-12);
    assert!(b.rate[2] > 0.2 && b.rate[2] < 0.3, "{}", b.rate[2]);
    assert!(b.rate[5] > 0.38 && b.rate[5] < 0.5, "{}", b.rate[5]);
    assert!((normal_quantile_upper(0.05) - 1.6449).abs() < 1e-3);
    assert!(normal_quantile_upper(0.5).abs() < 1e-6);
}

#[test]
fn binomial_heads() {
    assert!((binomial_head(0, 20, 0.15) - 0.85f64.powi(20)).abs() < 1e-12);
    let exact = 0.5f64.powi(10) * (1.0 + 10.0 + 45.0);
    assert!((binomial_head(2, 10, 0.5) - exact).abs() < 1e-12);
    assert_eq!(binomial_head(10, 10, 0.3), 1.0);
    assert_eq!(binomial_head(3, 10, 0.0), 1.0);
    assert_eq!(binomial_head(3, 10, 1.0), 0.0);
    // Tighter than the Poisson head with the same mean.
    assert!(binomial_head(10, 72, 17.6 / 72.0) < 1.0 - poisson_tail(11, 17.6));
}

#[test]
fn buckets_and_tails() {
    assert_eq!(bucket(0), 0);
    assert_eq!(bucket(86_399), 0);
    assert_eq!(bucket(86_400), 1);
    assert_eq!(bucket(3 * 86_400), 2);
    assert_eq!(bucket(400 * 86_400), 9);
    assert_eq!(bucket(i64::MAX), BUCKETS - 1);
    assert_eq!(poisson_tail(0, 0.0), 1.0);
    assert_eq!(poisson_tail(1, 0.0), 0.0);
    assert!((poisson_tail(1, 1.0) - (1.0 - (-1.0f64).exp())).abs() < 1e-12);
    assert!(poisson_tail(30, 10.0) < 1e-5);
    assert!(poisson_tail(10, 10.0) > 0.4);
    assert!((poisson_tail(1000, 1000.0) - 0.5).abs() < 0.02);
    assert!(poisson_tail(1200, 1000.0) < 1e-8);
}
