//! Content rules shown safe by evidence pooled across origins
//! (draft-ietf-iri-3987bis §5.3.4 evidence, judged over a whole crawl): the
//! second pass of the digest learner, over the per-origin verdicts of
//! [`cluster`](super::cluster).
//!
//! **Why.** A sparse origin (a few hundred captures) gives a true rule a
//! few dozen merged pairs; with some of them drifting, that is too little
//! to show on its own that the rule's excess disagreement stays below
//! `max_excess`. But a crawl has many origins, and what a rule *is* — a
//! tracking or session parameter name, an alias kind, query order — recurs
//! across them. So candidates of one **kind and pattern** (`ignore-param
//! utm_source`, `alias-slash no-extension`, `query-order *`, …) are pooled.
//!
//! **Rule.** An empirical-Bayes use of the other origins (Efron and
//! Morris, *Stein's estimation rule and its competitors — an empirical
//! Bayes approach*, JASA 1973; Efron, *Large-Scale Inference*, 2010,
//! ch. 1): what a pattern is on most hosts is the prior for a host whose
//! own evidence is thin. For one kind and pattern, over the origins where
//! it is a candidate, the *deciding* origins are those whose own pairs
//! show it safe (cluster step 2) or show it *selecting* content: refused
//! by the crossing test, or disagreeing beyond drift plus `max_excess`
//! with a binomial tail below `significance`. Let `S` of them show it
//! selecting and `A` safe.
//! 1. *Most deciding origins show it selecting: refused everywhere.* An
//!    origin's own test lets a selecting rule through with probability up
//!    to `significance` (α), and a safe one with probability at most 1;
//!    with a share `π = S/(S+A)` of selecting origins as the prior, the
//!    chance that the pattern selects where its own test passed can reach
//!    `πα / (πα + 1 − π)`, which exceeds α when `S(1 − α) > A`. Such a
//!    pattern is refused on every origin, its own verdicts included.
//! 2. *Pooled only when few show it selecting:* `S ≤ pool_share·(S+A)`,
//!    and at least `pool_origins` origins (2 at least) have pairs.
//! 3. *The pooled pairs must show it safe*, as one origin's would be, a
//!    fixed-effect pooled test (Cochran, *The combination of estimates
//!    from different experiments*, Biometrics 1954): with `D` disagreeing
//!    among `N` pairs and `E` expected from each origin's own drift (its
//!    lower bound), the binomial head `P(X ≤ D)`, `X ~ Bin(N, (E +
//!    max_excess·N)/N)`, must be below `significance`.
//!
//! A candidate its origin refused for too little evidence — not selecting
//! on its own pairs — is then applied when its pattern passes 2–3. Its own
//! disagreeing pairs still count: they are in the pool, and they can show
//! the pattern selecting there (which refuses it on that origin and counts
//! in `S`). A name that selects content on many hosts (`view`, `page`,
//! `id`) gets no boost. The defaults (`pool_origins` 3, `pool_share` 0.25)
//! were chosen on seeds 1–10 of `examples/gen_crawl.rs` and reported on
//! 11–20 (BENCHMARKS.md). The report keeps, for a rule applied on pooled
//! evidence, its own figures and the pooled ones ([`Pooled`]).
//!
//! The pass reads only the verdict summaries (a few numbers per
//! candidate), sorted by kind, pattern and origin before anything is
//! summed, so the result does not depend on the order origins were learned
//! in.

use super::cluster::{binomial_head, Judgement, Thresholds};
use crate::ladder::learned::{ContentKind, ContentRule};

/// The pooled figures of one kind and pattern whose pooled verdict
/// changed the verdict of at least one origin.
#[derive(Debug, Clone, PartialEq)]
pub struct Pooled {
    pub kind: ContentKind,
    pub pattern: String,
    /// `true`: applied where its origin could not show it safe alone;
    /// `false`: refused everywhere (most deciding origins show it
    /// selecting), where its origin had shown it safe.
    pub applies: bool,
    /// Origins with pairs for the pattern, how many of them showed it safe
    /// on their own, and how many showed it selecting content.
    pub origins: usize,
    pub own_safe: usize,
    pub selecting: usize,
    /// Summed merged pairs, disagreeing pairs and drift-expected
    /// disagreements over those origins.
    pub pairs: usize,
    pub disagreeing: usize,
    pub expected: f64,
    /// The binomial head of the pooled test (below `significance` when
    /// `applies`).
    pub head: f64,
    /// The origins whose verdict the pooled one changed.
    pub changed: Vec<String>,
}

/// `P(X >= k)` for `X ~ Binomial(n, p)`.
fn binomial_tail(k: usize, n: usize, p: f64) -> f64 {
    match k {
        0 => 1.0,
        _ => (1.0 - binomial_head(k - 1, n, p)).max(0.0),
    }
}

/// Whether `j`'s own pairs show it selecting content: refused by
/// crossings, or disagreeing beyond drift plus `max_excess` with a
/// binomial tail below `significance`.
fn selects(j: &Judgement, t: &Thresholds) -> bool {
    let e = &j.rule.evidence;
    if j.crossed {
        return true;
    }
    if e.pairs == 0 {
        return false;
    }
    let p = ((j.expected + t.max_excess * e.pairs as f64) / e.pairs as f64).min(1.0);
    binomial_tail(e.disagreeing, e.pairs, p) < t.significance
}

/// The second pass: the rules of every origin, with those refused for too
/// little evidence applied where their pattern's pooled evidence shows
/// them safe, and those of a pattern most origins show selecting refused;
/// and the pooled figures of each pattern that changed a verdict.
pub fn decide(mut judged: Vec<Judgement>, t: &Thresholds) -> (Vec<ContentRule>, Vec<Pooled>) {
    judged.sort_unstable_by(|a, b| {
        (a.rule.kind, &a.rule.pattern, &a.rule.origin).cmp(&(
            b.rule.kind,
            &b.rule.pattern,
            &b.rule.origin,
        ))
    });
    let mut pooled = Vec::new();
    if t.pool_origins > 0 {
        for group in judged
            .chunk_by_mut(|a, b| a.rule.kind == b.rule.kind && a.rule.pattern == b.rule.pattern)
        {
            if let Some(p) = pool(group, t) {
                pooled.push(p);
            }
        }
    }
    (judged.into_iter().map(|j| j.rule).collect(), pooled)
}

/// Judge one pattern's candidates on their pooled evidence (rules 1–3 of
/// the module documentation) and apply those it shows safe.
fn pool(group: &mut [Judgement], t: &Thresholds) -> Option<Pooled> {
    // Origins whose own pairs show the pattern selecting content, and
    // origins that show it safe on their own: the decisive ones.
    let selecting = group.iter().filter(|j| selects(j, t)).count();
    let own_safe = group.iter().filter(|j| j.rule.is_active()).count();
    let with_pairs = || group.iter().filter(|j| j.rule.evidence.pairs > 0);
    let origins = with_pairs().count();
    let pairs: usize = with_pairs().map(|j| j.rule.evidence.pairs).sum();
    let disagreeing: usize = with_pairs().map(|j| j.rule.evidence.disagreeing).sum();
    let expected: f64 = with_pairs().map(|j| j.expected).sum();
    let p = ((expected + t.max_excess * pairs as f64) / pairs.max(1) as f64).min(1.0);
    let head = binomial_head(disagreeing, pairs, p);
    // Rule 1: most deciding origins show it selecting.
    let refuses = selecting as f64 * (1.0 - t.significance) > own_safe as f64;
    let applies = !refuses
        && selecting as f64 <= t.pool_share * (selecting + own_safe) as f64
        && origins >= t.pool_origins.max(2)
        && head < t.significance;
    let mut changed = Vec::new();
    for j in group.iter_mut() {
        let flip = if refuses {
            j.rule.is_active()
        } else {
            applies && !j.rule.is_active() && j.rule.evidence.pairs > 0 && !selects(j, t)
        };
        if flip {
            j.rule.contradictions = usize::from(refuses);
            changed.push(j.rule.origin.clone());
        }
    }
    if changed.is_empty() {
        return None;
    }
    let first = &group[0].rule;
    Some(Pooled {
        kind: first.kind,
        pattern: first.pattern.clone(),
        applies: !refuses,
        origins,
        own_safe,
        selecting,
        pairs,
        disagreeing,
        expected,
        head,
        changed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ladder::learned::Evidence;

    /// The defaults: pooled over 3 origins at least, a share of 0.25.
    fn t() -> Thresholds {
        Thresholds::default()
    }

    /// A candidate `pattern` on `origin` with `pairs`, `disagreeing` and a
    /// drift of 5 %; `applied` on its own or not.
    fn cand(origin: &str, pattern: &str, pairs: usize, disagreeing: usize, own: bool) -> Judgement {
        Judgement {
            rule: ContentRule {
                origin: origin.to_owned(),
                kind: ContentKind::IgnoreParam,
                pattern: pattern.to_owned(),
                support: 5,
                contradictions: usize::from(!own),
                evidence: Evidence {
                    clusters: 5,
                    pairs,
                    disagreeing,
                    drift_ppm: 50_000,
                },
            },
            crossed: false,
            expected: pairs as f64 * 0.05,
        }
    }

    fn active(rules: &[ContentRule]) -> Vec<(&str, &str)> {
        let mut v: Vec<_> = rules
            .iter()
            .filter(|r| r.is_active())
            .map(|r| (r.origin.as_str(), r.pattern.as_str()))
            .collect();
        v.sort_unstable();
        v
    }

    /// Three origins show `sid` safe; four sparse ones cannot alone.
    fn crawl() -> Vec<Judgement> {
        let mut v: Vec<Judgement> = (0..3)
            .map(|i| cand(&format!("http://big{i}"), "sid", 60, 3, true))
            .collect();
        v.extend((0..4).map(|i| cand(&format!("http://small{i}"), "sid", 12, 1, false)));
        v
    }

    #[test]
    fn sparse_origins_borrow_the_pooled_evidence() {
        let (rules, pooled) = decide(crawl(), &t());
        assert_eq!(active(&rules).len(), 7);
        assert_eq!(pooled.len(), 1);
        let p = &pooled[0];
        assert_eq!(
            (p.applies, p.origins, p.own_safe, p.selecting),
            (true, 7, 3, 0)
        );
        assert_eq!((p.pairs, p.disagreeing), (228, 13));
        assert!(p.head < 0.05);
        assert_eq!(
            p.changed,
            [
                "http://small0",
                "http://small1",
                "http://small2",
                "http://small3"
            ]
        );
        // Judged alone (no pooling), or with too few origins, they are not.
        for o in [0, 8] {
            let (rules, pooled) = decide(
                crawl(),
                &Thresholds {
                    pool_origins: o,
                    ..t()
                },
            );
            assert_eq!(active(&rules).len(), 3, "pool_origins {o}");
            assert!(pooled.is_empty());
        }
    }

    #[test]
    fn an_origin_that_shows_the_pattern_selecting_blocks_or_refuses_it() {
        // One origin's crossings: 1 of 4 deciding origins (0.25) still pools …
        let mut v = crawl();
        v[3].crossed = true;
        let (rules, _) = decide(v.clone(), &t());
        assert_eq!(active(&rules).len(), 6);
        assert!(!active(&rules).contains(&("http://small0", "sid")));
        // … but not at a stricter share.
        let (rules, _) = decide(
            v,
            &Thresholds {
                pool_share: 0.2,
                ..t()
            },
        );
        assert_eq!(active(&rules).len(), 3);
        // Disagreements beyond drift plus max_excess, shown on one origin,
        // count as selecting: 12 of 12 pairs disagree.
        let mut v = crawl();
        v[4] = cand("http://small1", "sid", 12, 12, false);
        v[5].crossed = true;
        let (rules, pooled) = decide(v, &t());
        assert_eq!(active(&rules).len(), 3);
        assert!(pooled.is_empty());
        // A pattern most deciding origins show selecting is refused even
        // where an origin's own pairs passed.
        let mut v = crawl();
        for j in &mut v[3..] {
            j.crossed = true;
        }
        let (rules, pooled) = decide(v, &t());
        assert!(active(&rules).is_empty());
        assert_eq!(pooled.len(), 1);
        assert!(!pooled[0].applies);
        assert_eq!((pooled[0].own_safe, pooled[0].selecting), (3, 4));
        assert_eq!(
            pooled[0].changed,
            ["http://big0", "http://big1", "http://big2"]
        );
    }

    #[test]
    fn pooled_pairs_that_disagree_beyond_drift_show_nothing() {
        let mut v: Vec<Judgement> = (0..3)
            .map(|i| cand(&format!("http://big{i}"), "sid", 60, 3, true))
            .collect();
        // Eight sparse origins whose pairs disagree often (35 %), none
        // significantly beyond drift plus max_excess on its own: pooled,
        // 65 of 340 pairs disagree against 5 % drift plus 15 %.
        v.extend((0..8).map(|i| cand(&format!("http://small{i}"), "sid", 20, 7, false)));
        let (rules, pooled) = decide(v, &t());
        assert_eq!(active(&rules).len(), 3);
        assert!(pooled.is_empty());
    }

    #[test]
    fn the_verdicts_do_not_depend_on_the_order() {
        let mut v = crawl();
        v.extend((0..5).map(|i| cand(&format!("http://o{i}"), "ref", 25, 2, i < 2)));
        let want = decide(v.clone(), &t());
        v.reverse();
        v.rotate_left(3);
        assert_eq!(decide(v, &t()), want);
    }
}
