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
//! **Memory.** The pass reads only the verdict summaries (a few numbers per
//! candidate), and never holds them all: they go to a [`Grouping`] — in
//! memory, or the batch engine's sorted runs on disk within a budget
//! (`batch::SpillGroups`, as for captures not sorted by host) — and come
//! back in three streaming passes:
//! 1. sorted by (kind, pattern, origin), each pattern's totals are summed
//!    in that order (so the result does not depend on the order origins
//!    were learned in) and its verdict follows its summaries into a second
//!    grouping, sorted before them;
//! 2. there, each summary meets its pattern's verdict first and goes, as
//!    its final rule, to a third grouping sorted by (origin, kind, pattern);
//! 3. [`PooledRules::drain`] gives the rules in the order of the rules
//!    file.
//!
//! Memory is then the groupings' budget plus one summary and the origins
//! one pattern's verdict changed, whatever the size of the crawl. A
//! candidate is unique by (origin, kind, pattern), so records that sort
//! equal are equal and the order is total.

use std::fmt;
use std::io;

use super::cluster::{binomial_head, Judgement, Thresholds};
use super::grouping::{get_str, get_varint, in_memory, put_bytes, put_varint, Grouping};
use crate::ladder::learned::{ContentKind, ContentRule, ContentRules, Evidence};

/// Makes an empty [`Grouping`] for the pass to sort its summaries in (each
/// call a new one).
pub type NewGrouping<'a> = dyn Fn() -> Box<dyn Grouping + Send> + Sync + 'a;

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
    /// How many origins' verdicts the pooled one changed, and the first
    /// [`CHANGED_SHOWN`] of them in order (each changed rule is in the
    /// rules, with its own figures).
    pub changed_count: usize,
    pub changed: Vec<String>,
}

/// Why a rule is applied or refused, after the pooled pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    /// Applied: shown safe on its origin's own pairs.
    Safe,
    /// Applied: its origin's pairs were too few to show it safe, those of
    /// its kind and pattern pooled across origins show it safe.
    Pooled,
    /// Refused: its origin's pairs show it selecting content (crossings, or
    /// disagreement beyond drift plus `max_excess`).
    Selecting,
    /// Refused: too few pairs on its origin to show it safe, and no pooled
    /// verdict for it.
    TooFewPairs,
    /// Refused: no capture pairs to judge it on.
    NoPairs,
    /// Refused on every origin: most origins that decide its kind and
    /// pattern show it selecting content (rule 1), its own pairs aside.
    MostSelecting,
}

impl Why {
    const ALL: [Why; 6] = [
        Why::Safe,
        Why::Pooled,
        Why::Selecting,
        Why::TooFewPairs,
        Why::NoPairs,
        Why::MostSelecting,
    ];

    /// A few words for the report.
    pub fn name(self) -> &'static str {
        match self {
            Why::Safe => "safe",
            Why::Pooled => "pooled",
            Why::Selecting => "selecting",
            Why::TooFewPairs => "too few pairs",
            Why::NoPairs => "no pairs",
            Why::MostSelecting => "most origins selecting",
        }
    }
}

/// Origins a [`Pooled`] names among those it changed.
pub const CHANGED_SHOWN: usize = 10;

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

/// One pattern's figures, summed over its origins in origin order.
#[derive(Debug, Clone, Copy)]
struct Totals {
    selecting: usize,
    own_safe: usize,
    origins: usize,
    pairs: usize,
    disagreeing: usize,
    expected: f64,
}

impl Default for Totals {
    fn default() -> Self {
        Totals {
            selecting: 0,
            own_safe: 0,
            origins: 0,
            pairs: 0,
            disagreeing: 0,
            // What `Iterator::sum` starts from: an empty sum is -0.0.
            expected: -0.0,
        }
    }
}

impl Totals {
    fn add(&mut self, j: &Judgement, t: &Thresholds) {
        self.selecting += usize::from(selects(j, t));
        self.own_safe += usize::from(j.rule.is_active());
        let e = &j.rule.evidence;
        if e.pairs > 0 {
            self.origins += 1;
            self.pairs += e.pairs;
            self.disagreeing += e.disagreeing;
            self.expected += j.expected;
        }
    }

    /// Rules 1–3 of the module documentation on these totals.
    fn verdict(&self, t: &Thresholds) -> Verdict {
        let p = ((self.expected + t.max_excess * self.pairs as f64) / self.pairs.max(1) as f64)
            .min(1.0);
        let head = binomial_head(self.disagreeing, self.pairs, p);
        // Rule 1: most deciding origins show it selecting.
        let refuses = self.selecting as f64 * (1.0 - t.significance) > self.own_safe as f64;
        let applies = !refuses
            && self.selecting as f64 <= t.pool_share * (self.selecting + self.own_safe) as f64
            && self.origins >= t.pool_origins.max(2)
            && head < t.significance;
        Verdict {
            pooling: t.pool_origins > 0,
            refuses,
            applies,
            head,
            totals: *self,
        }
    }
}

/// A pattern's pooled verdict and what it rests on.
#[derive(Debug, Clone, Copy)]
struct Verdict {
    /// `false` when origins are judged alone: nothing changes.
    pooling: bool,
    refuses: bool,
    applies: bool,
    head: f64,
    totals: Totals,
}

impl Verdict {
    /// Whether the verdict changes `j`'s own; `selecting`: whether `j`'s
    /// own pairs show it selecting ([`selects`], asked of refused rules
    /// only).
    fn flips(&self, j: &Judgement, selecting: bool) -> bool {
        if !self.pooling {
            return false;
        }
        if self.refuses {
            j.rule.is_active()
        } else {
            self.applies && !j.rule.is_active() && j.rule.evidence.pairs > 0 && !selecting
        }
    }

    fn pooled(&self, kind: ContentKind, pattern: String, changed: (usize, Vec<String>)) -> Pooled {
        let s = &self.totals;
        Pooled {
            kind,
            pattern,
            applies: !self.refuses,
            origins: s.origins,
            own_safe: s.own_safe,
            selecting: s.selecting,
            pairs: s.pairs,
            disagreeing: s.disagreeing,
            expected: s.expected,
            head: self.head,
            changed_count: changed.0,
            changed: changed.1,
        }
    }
}

/// The second pass, streaming: push every origin's [`Judgement`]s, then
/// [`finish`](Self::finish) (see the module documentation).
pub struct PoolPass<'n> {
    t: Thresholds,
    new: &'n NewGrouping<'n>,
    by_pattern: Box<dyn Grouping + Send>,
    buf: Vec<u8>,
    group: Vec<u8>,
    /// Runs the groupings wrote to disk and their bytes.
    spilled: (usize, u64),
}

impl<'n> PoolPass<'n> {
    pub fn new(t: &Thresholds, new: &'n NewGrouping<'n>) -> Self {
        PoolPass {
            t: *t,
            new,
            by_pattern: new(),
            buf: Vec::new(),
            group: Vec::new(),
            spilled: (0, 0),
        }
    }

    pub fn push(&mut self, j: &Judgement) -> io::Result<()> {
        pattern_group(&mut self.group, j.rule.kind, &j.rule.pattern);
        self.buf.clear();
        put_judgement(&mut self.buf, j);
        self.by_pattern
            .push(&self.group, j.rule.origin.as_bytes(), &self.buf)
    }

    /// Passes 1 and 2: the final rules, to be drained in the order of the
    /// rules file, and the patterns whose pooled verdict changed a rule,
    /// by kind and pattern.
    pub fn finish(mut self) -> io::Result<(PooledRules, Vec<Pooled>)> {
        let t = self.t;
        // Pass 1: each pattern's totals; its summaries and then its verdict
        // to `verdicts`, where the verdict (empty key) sorts first.
        let mut verdicts = (self.new)();
        let mut cur: Option<(Vec<u8>, Totals)> = None;
        let mut buf = Vec::new();
        let mut end = |cur: &mut Option<(Vec<u8>, Totals)>,
                       verdicts: &mut Box<dyn Grouping + Send>|
         -> io::Result<()> {
            if let Some((g, totals)) = cur.take() {
                buf.clear();
                put_verdict(&mut buf, &totals.verdict(&t));
                verdicts.push(&g, b"", &buf)?;
            }
            Ok(())
        };
        self.by_pattern.drain(&mut |g, payload| {
            if cur.as_ref().is_none_or(|c| c.0 != g) {
                end(&mut cur, &mut verdicts)?;
                cur = Some((g.to_vec(), Totals::default()));
            }
            let j = get_judgement(&mut &payload[1..])?;
            if let Some(c) = &mut cur {
                c.1.add(&j, &t);
            }
            verdicts.push(g, j.rule.origin.as_bytes(), payload)
        })?;
        end(&mut cur, &mut verdicts)?;
        add(&mut self.spilled, self.by_pattern.spilled());
        drop(self.by_pattern);
        // Pass 2: each summary after its verdict, to its final rule.
        let mut by_origin = (self.new)();
        let mut pooled = Vec::new();
        let mut at: Option<(Verdict, (usize, Vec<String>))> = None;
        let mut enc = Vec::new();
        let mut last = Judgement {
            rule: ContentRule {
                origin: String::new(),
                kind: ContentKind::IgnoreParam,
                pattern: String::new(),
                support: 0,
                contradictions: 0,
                evidence: Evidence::default(),
            },
            crossed: false,
            expected: 0.0,
        };
        let mut changed_of = |at: &mut Option<(Verdict, (usize, Vec<String>))>,
                              last: &Judgement| {
            if let Some((v, changed)) = at.take() {
                if changed.0 > 0 {
                    let (k, p) = (last.rule.kind, last.rule.pattern.clone());
                    pooled.push(v.pooled(k, p, changed));
                }
            }
        };
        verdicts.drain(&mut |_, payload| {
            let mut rest = payload;
            match rest.split_first() {
                Some((&VERDICT, r)) => {
                    changed_of(&mut at, &last);
                    at = Some((get_verdict(&mut &r[..])?, (0, Vec::new())));
                    return Ok(());
                }
                Some((&JUDGEMENT, r)) => rest = r,
                _ => return Err(bad()),
            }
            last = get_judgement(&mut rest)?;
            let Some((v, changed)) = &mut at else {
                return Err(bad());
            };
            let active = last.rule.is_active();
            let selecting = !active && selects(&last, &t);
            let why = if v.flips(&last, selecting) {
                last.rule.contradictions = usize::from(v.refuses);
                changed.0 += 1;
                if changed.1.len() < CHANGED_SHOWN {
                    changed.1.push(last.rule.origin.clone());
                }
                if v.refuses {
                    Why::MostSelecting
                } else {
                    Why::Pooled
                }
            } else if active {
                Why::Safe
            } else if selecting {
                Why::Selecting
            } else if last.rule.evidence.pairs == 0 {
                Why::NoPairs
            } else {
                Why::TooFewPairs
            };
            pattern_group(&mut buf, last.rule.kind, &last.rule.pattern);
            enc.clear();
            put_judgement(&mut enc, &last);
            enc.push(why as u8);
            by_origin.push(last.rule.origin.as_bytes(), &buf, &enc)
        })?;
        changed_of(&mut at, &last);
        add(&mut self.spilled, verdicts.spilled());
        drop(verdicts);
        add(&mut self.spilled, by_origin.spilled());
        let rules = PooledRules {
            by_origin,
            spilled: self.spilled,
        };
        Ok((rules, pooled))
    }
}

/// The final rules of a [`PoolPass`], sorted by (origin, kind, pattern) in
/// its last grouping.
pub struct PooledRules {
    by_origin: Box<dyn Grouping + Send>,
    /// Runs the pass's groupings wrote to disk and their bytes, until
    /// [`PoolPass::finish`].
    pub spilled: (usize, u64),
}

impl fmt::Debug for PooledRules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PooledRules")
            .field("spilled", &self.spilled)
            .finish_non_exhaustive()
    }
}

impl Default for PooledRules {
    /// No rules.
    fn default() -> Self {
        PooledRules {
            by_origin: in_memory(),
            spilled: (0, 0),
        }
    }
}

impl PooledRules {
    /// Every rule, applied or refused, in the order of
    /// [`ContentRules::candidates`] (the rules file's).
    /// Each comes with why it is applied or refused.
    pub fn drain(
        mut self,
        each: &mut dyn FnMut(ContentRule, Why) -> io::Result<()>,
    ) -> io::Result<()> {
        self.by_origin.drain(&mut |_, payload| {
            let mut rest = &payload[1..];
            let j = get_judgement(&mut rest)?;
            let why = Why::ALL.get(usize::from(get_byte(&mut rest)?));
            each(j.rule, *why.ok_or_else(bad)?)
        })
    }

    /// Every rule, in memory.
    pub fn collect(self) -> io::Result<ContentRules> {
        let mut v = Vec::new();
        self.drain(&mut |r, _| {
            v.push(r);
            Ok(())
        })?;
        Ok(ContentRules::from_candidates(v))
    }
}

fn add(a: &mut (usize, u64), b: (usize, u64)) {
    a.0 += b.0;
    a.1 += b.1;
}

/// The pass on summaries held in memory: the rules of every origin, with
/// those refused for too little evidence applied where their pattern's
/// pooled evidence shows them safe, and those of a pattern most origins
/// show selecting refused; and the pooled figures of each pattern that
/// changed a verdict.
pub fn decide(judged: Vec<Judgement>, t: &Thresholds) -> (Vec<ContentRule>, Vec<Pooled>) {
    let mut pass = PoolPass::new(t, &in_memory);
    let run = || -> io::Result<(Vec<ContentRule>, Vec<Pooled>)> {
        for j in &judged {
            pass.push(j)?;
        }
        let (rules, pooled) = pass.finish()?;
        let mut v = Vec::with_capacity(judged.len());
        rules.drain(&mut |r, _| {
            v.push(r);
            Ok(())
        })?;
        Ok((v, pooled))
    };
    // An in-memory grouping gives back what it was given.
    run().expect("summaries held in memory read back")
}

/// A summary's grouping key: its kind, then its pattern.
fn pattern_group(b: &mut Vec<u8>, kind: ContentKind, pattern: &str) {
    b.clear();
    b.push(kind_code(kind));
    b.extend_from_slice(pattern.as_bytes());
}

/// Tags of the records of pass 2.
const VERDICT: u8 = 0;
const JUDGEMENT: u8 = 1;

fn kind_code(kind: ContentKind) -> u8 {
    ContentKind::ALL
        .iter()
        .position(|&k| k == kind)
        .unwrap_or(0) as u8
}

fn bad() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        "a pooled summary could not be decoded",
    )
}

/// A summary, tagged: origin, pattern, kind, support, contradictions, the
/// evidence, crossed, and the drift-expected disagreements (f64 bits).
fn put_judgement(b: &mut Vec<u8>, j: &Judgement) {
    let r = &j.rule;
    b.push(JUDGEMENT);
    put_bytes(b, r.origin.as_bytes());
    put_bytes(b, r.pattern.as_bytes());
    b.push(kind_code(r.kind));
    let e = &r.evidence;
    for v in [
        r.support,
        r.contradictions,
        e.clusters,
        e.pairs,
        e.disagreeing,
    ] {
        put_varint(b, v as u64);
    }
    put_varint(b, u64::from(e.drift_ppm));
    b.push(u8::from(j.crossed));
    b.extend_from_slice(&j.expected.to_bits().to_le_bytes());
}

fn get_usize(b: &mut &[u8]) -> io::Result<usize> {
    get_varint(b)
        .and_then(|v| usize::try_from(v).ok())
        .ok_or_else(bad)
}

fn get_f64(b: &mut &[u8]) -> io::Result<f64> {
    let (bits, rest) = b.split_first_chunk::<8>().ok_or_else(bad)?;
    *b = rest;
    Ok(f64::from_bits(u64::from_le_bytes(*bits)))
}

fn get_byte(b: &mut &[u8]) -> io::Result<u8> {
    let (&x, rest) = b.split_first().ok_or_else(bad)?;
    *b = rest;
    Ok(x)
}

/// A summary written by [`put_judgement`], after its tag.
fn get_judgement(b: &mut &[u8]) -> io::Result<Judgement> {
    let origin = get_str(b).ok_or_else(bad)?.to_owned();
    let pattern = get_str(b).ok_or_else(bad)?.to_owned();
    let kind = *ContentKind::ALL
        .get(usize::from(get_byte(b)?))
        .ok_or_else(bad)?;
    let support = get_usize(b)?;
    let contradictions = get_usize(b)?;
    let clusters = get_usize(b)?;
    let pairs = get_usize(b)?;
    let disagreeing = get_usize(b)?;
    let drift_ppm = u32::try_from(get_usize(b)?).map_err(|_| bad())?;
    let crossed = get_byte(b)? != 0;
    let expected = get_f64(b)?;
    Ok(Judgement {
        rule: ContentRule {
            origin,
            kind,
            pattern,
            support,
            contradictions,
            evidence: Evidence {
                clusters,
                pairs,
                disagreeing,
                drift_ppm,
            },
        },
        crossed,
        expected,
    })
}

/// A pattern's verdict, tagged: pooling, refuses, applies, the head, and
/// the totals.
fn put_verdict(b: &mut Vec<u8>, v: &Verdict) {
    b.push(VERDICT);
    b.extend([
        u8::from(v.pooling),
        u8::from(v.refuses),
        u8::from(v.applies),
    ]);
    b.extend_from_slice(&v.head.to_bits().to_le_bytes());
    let s = &v.totals;
    for x in [s.selecting, s.own_safe, s.origins, s.pairs, s.disagreeing] {
        put_varint(b, x as u64);
    }
    b.extend_from_slice(&s.expected.to_bits().to_le_bytes());
}

/// A verdict written by [`put_verdict`], after its tag.
fn get_verdict(b: &mut &[u8]) -> io::Result<Verdict> {
    let pooling = get_byte(b)? != 0;
    let refuses = get_byte(b)? != 0;
    let applies = get_byte(b)? != 0;
    let head = get_f64(b)?;
    let selecting = get_usize(b)?;
    let own_safe = get_usize(b)?;
    let origins = get_usize(b)?;
    let pairs = get_usize(b)?;
    let disagreeing = get_usize(b)?;
    let expected = get_f64(b)?;
    Ok(Verdict {
        pooling,
        refuses,
        applies,
        head,
        totals: Totals {
            selecting,
            own_safe,
            origins,
            pairs,
            disagreeing,
            expected,
        },
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
    fn a_pooled_verdict_names_the_first_origins_it_changed_and_counts_all() {
        let mut v = crawl();
        v.extend((4..15).map(|i| cand(&format!("http://small{i:02}"), "sid", 12, 1, false)));
        let (rules, pooled) = decide(v, &t());
        assert_eq!(active(&rules).len(), 18);
        assert_eq!(pooled[0].changed_count, 15);
        assert_eq!(pooled[0].changed.len(), CHANGED_SHOWN);
        assert_eq!(pooled[0].changed[0], "http://small0");
    }

    /// Each origin's rule and why, from the streaming pass.
    fn whys(v: &[Judgement]) -> Vec<(String, Why)> {
        let mut pass = PoolPass::new(&t(), &in_memory);
        for j in v {
            pass.push(j).unwrap();
        }
        let mut out = Vec::new();
        let (rules, _) = pass.finish().unwrap();
        rules
            .drain(&mut |r, why| {
                out.push((r.origin, why));
                Ok(())
            })
            .unwrap();
        out
    }

    #[test]
    fn each_rule_says_why_it_is_applied_or_refused() {
        let mut v = crawl();
        v.push(cand("http://small9", "sid", 0, 0, false));
        let got = whys(&v);
        let of = |o: &str| got.iter().find(|x| x.0 == o).unwrap().1;
        assert_eq!(of("http://big0"), Why::Safe);
        assert_eq!(of("http://small0"), Why::Pooled);
        assert_eq!(of("http://small9"), Why::NoPairs);
        // Most deciding origins show it selecting: refused everywhere.
        for j in &mut v[3..7] {
            j.crossed = true;
        }
        let got = whys(&v);
        let of = |o: &str| got.iter().find(|x| x.0 == o).unwrap().1;
        assert_eq!(of("http://big0"), Why::MostSelecting);
        assert_eq!(of("http://small0"), Why::Selecting);
        // Too few pairs, and too few origins to pool.
        let got = whys(&v[5..]);
        assert_eq!(got[0], ("http://small2".to_owned(), Why::Selecting));
        let got = whys(&[cand("http://a", "sid", 12, 1, false)]);
        assert_eq!(got[0].1, Why::TooFewPairs);
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
