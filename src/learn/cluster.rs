//! The rules of one origin learned from clusters of same-content captures,
//! judged against the origin's own content drift (draft-ietf-iri-3987bis
//! §5.3.4: equivalence "clearly indicated by … the result of accessing the
//! resources").
//!
//! **Evidence.** The captures of one origin with one digest form a
//! *cluster*: URLs that returned identical content. A cluster is evidence
//! only when its URLs are spellings of *one page*: once every path alias
//! (ASCII case, any index name, a trailing slash) is applied, they share one
//! path. A digest shared by distinct paths — a soft 404, an empty page,
//! boilerplate — says nothing about spellings and is set aside (counted as
//! `shared`). Inside an evidence cluster, a query parameter whose fields
//! (presence or value) differ between the URLs is a candidate; the other
//! parameters stay put by construction, so if they appear in another order
//! the cluster supports *query order*; two paths that one alias maps
//! together support that alias. A candidate needs `min_evidence` distinct
//! pages (path and unvarying parameters) among its clusters.
//!
//! **Pairs.** A candidate is judged by the capture pairs it merges *given
//! the other candidates* (leave one out): captures whose keys are equal
//! under the whole candidate set but differ without this one. Within each
//! merged group the captures are taken in time order and each one is
//! paired with the next of another spelling, so a pair spans the gap a
//! crawler left. A pair disagrees (different digests) either because the
//! candidate selects content or because the page changed in between.
//!
//! **Drift is measured, not assumed.** The **baseline** is the share of
//! consecutive captures of *the same URL* (once the other candidates are
//! set aside) that differ, per time-gap bucket (powers of two in days),
//! fitted nondecreasing in the gap over all buckets (pool adjacent
//! violators: sparse buckets borrow from both neighbours). Each pooled
//! block is charged at the lower Wilson bound of its share, one-sided at
//! `significance`: a rule is excused only the drift its origin shows with
//! that confidence, so two same-URL pairs that happen to change do not
//! excuse a parameter's disagreements (a sparse origin's point estimate
//! can be anything from 0 to 1). A candidate's *expected* disagreements
//! are the baseline summed over its pairs' gaps.
//!
//! **Decision rule.**
//! 1. *Crossings refuse.* Drift moves a page forward to new versions and
//!    never back; a parameter that selects content alternates between its
//!    versions. A disagreeing pair *crosses* when one of its two contents
//!    occurs again on the other side of it in the merged group. A candidate
//!    whose crossings exceed the origin's own same-URL crossing rate with a
//!    Poisson tail below `significance` is refused (a monotone origin has
//!    rate 0: one crossing refuses). The candidate with the most excess
//!    crossings per pair leaves first, then the rest are judged again: a
//!    selecting parameter's crossings also appear in the pairs of every
//!    candidate whose pairs it co-merges, and it has fewer pairs of its own.
//! 2. *Disagreement must be shown to be drift.* A candidate that survives
//!    is applied only when its disagreements, zero included, are
//!    improbably few (binomial head below `significance`) for a mean of
//!    the expected drift plus `max_excess` per pair: its excess over drift
//!    is shown, with confidence `1 - significance`, to stay below
//!    `max_excess`. A rule whose few pairs all agree is not shown safe
//!    (0.85^18 > 0.05): a parameter that selects content on a few pages
//!    may have no disagreeing pair among them.
//!
//! Step 2 judges each survivor among all survivors, so refusing one does
//! not take the pairs of the others (captures carry several irrelevant
//! parameters at once); the applied set merges a subset of the pairs it
//! was judged on. Pairs farther apart than `window` (if any) are neither
//! evidence nor contradiction. The defaults (`significance` 0.05,
//! `max_excess` 0.15) are the measured ones in BENCHMARKS.md ("Rules
//! learned from content digests", `examples/gen_crawl.rs`, chosen on
//! seeds 1–10, 11–20 held out).
//!
//! **Order.** Keys hash the fields' text, ties between captures at one
//! second break by digest text and URL text, candidates sort by kind and
//! name: the rules do not depend on the order of the input.
//!
//! **Literature.** Evidence from clusters of same-content URLs follows
//! Dasgupta, Kumar and Sasturkar, *De-duping URLs via rewrite rules* (KDD
//! 2008) and Koppula et al., *Learning URL patterns for webpage
//! de-duplication* (WSDM 2010); DUSTER (Rodrigues et al., TKDE 2015)
//! aligns a cluster's URLs and filters rules by support and false-positive
//! rate, as steps 1–2 do. None of them meets content that changes over
//! time, which archives see everywhere; the drift baseline and the
//! crossing test are this module's answer.

use std::collections::hash_map::Entry;
use std::collections::HashMap;

use crate::ladder::learned::{alias_path, ContentKind, ContentRule, Evidence, PathKind};
use crate::ladder::parts::INDEX_NAMES;

/// Thresholds of the cluster learner (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Thresholds {
    /// Distinct supporting pages a candidate needs (at least 1).
    pub min_evidence: usize,
    /// Poisson tail probability below which excess crossings refuse; one
    /// minus the confidence with which disagreement is shown to be drift.
    pub significance: f64,
    /// Capture pairs farther apart (seconds) are not compared.
    pub window: Option<i64>,
    /// Excess disagreement over drift (a share of the merged pairs) that a
    /// rule must be shown to stay below.
    pub max_excess: f64,
    /// Origins a pooled verdict needs (0: no pooling).
    pub pool_origins: usize,
    /// The largest share of a pattern's decisive origins that may show it
    /// selecting content for it to be pooled.
    pub pool_share: f64,
}

/// One candidate rule of an origin.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Cand {
    Param(u32),
    Order,
    Case,
    Slash(PathKind),
    Index(&'static str),
}

/// A set of candidates, as the key function sees it.
#[derive(Clone, Default)]
struct Set {
    drop: Vec<bool>,
    order: bool,
    case: bool,
    slash: Vec<PathKind>,
    index: Vec<&'static str>,
}

impl Set {
    fn of(cands: &[Cand], names: usize) -> Set {
        let mut s = Set {
            drop: vec![false; names],
            ..Set::default()
        };
        for c in cands {
            match *c {
                Cand::Param(n) => s.drop[n as usize] = true,
                Cand::Order => s.order = true,
                Cand::Case => s.case = true,
                Cand::Slash(k) => s.slash.push(k),
                Cand::Index(n) => s.index.push(n),
            }
        }
        // The order `ContentRules` applies index names in.
        s.index
            .sort_by_key(|n| INDEX_NAMES.iter().position(|x| x == n));
        s
    }

    /// Every path alias at once: the "one page" test of a cluster.
    fn all_aliases(names: usize) -> Set {
        Set {
            drop: vec![false; names],
            case: true,
            slash: vec![PathKind::NoExtension, PathKind::Extension],
            index: INDEX_NAMES.to_vec(),
            ..Set::default()
        }
    }
}

/// Strings numbered in the order they are first seen, each kept once (in
/// `strs`) and found by its hash.
#[derive(Default)]
struct Interner {
    /// The last id of each hash; `older` chains the ids of equal hashes.
    ids: HashTable,
    older: Vec<u32>,
    strs: Vec<String>,
}

/// No id: the end of a chain.
const NONE: u32 = u32::MAX;

/// A map from a hash to an id (the key is a hash already: not hashed again).
type HashTable = HashMap<u64, u32, std::hash::BuildHasherDefault<Prehashed>>;

/// The hasher of a key that is a hash.
#[derive(Default)]
struct Prehashed(u64);

impl std::hash::Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// The hash interned strings and URLs are found by.
fn str_hash(x: impl std::hash::Hash) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::with_seed(0x49_52_49).hash_one(x)
}

impl Interner {
    fn id(&mut self, s: &str) -> u32 {
        let next = self.strs.len() as u32;
        match self.ids.entry(str_hash(s)) {
            Entry::Occupied(mut e) => {
                let mut i = *e.get();
                while i != NONE {
                    if self.strs[i as usize] == s {
                        return i;
                    }
                    i = self.older[i as usize];
                }
                self.older.push(e.insert(next));
            }
            Entry::Vacant(e) => {
                e.insert(next);
                self.older.push(NONE);
            }
        }
        self.strs.push(s.to_owned());
        next
    }
}

/// Whether `url` is `path` and `query` (its fields are the query's
/// `&`-separated parts; no query, no field).
fn is_url(url: &Url, paths: &Interner, fields: &Interner, path: &str, query: Option<&str>) -> bool {
    if paths.strs[url.path as usize] != path {
        return false;
    }
    match query {
        None => url.fields.is_empty(),
        Some(q) => {
            let mut parts = q.split('&');
            url.fields
                .iter()
                .all(|f| parts.next() == Some(fields.strs[f.1 as usize].as_str()))
                && parts.next().is_none()
        }
    }
}

/// A distinct URL: its path and its query fields (`&`-separated, in
/// order) with their names.
struct Url {
    path: u32,
    fields: Vec<(u32, u32)>,
}

#[derive(Clone, Copy)]
struct Cap {
    url: u32,
    digest: u32,
    time: Option<i64>,
}

/// The captures of one origin, interned.
#[derive(Default)]
pub struct Origin {
    pub origin: String,
    paths: Interner,
    names: Interner,
    fields: Interner,
    digests: Interner,
    /// The last URL of each hash of (path, query); `older_urls` chains
    /// the URLs of equal hashes.
    url_ids: HashTable,
    older_urls: Vec<u32>,
    urls: Vec<Url>,
    caps: Vec<Cap>,
}

fn mix(h: u64, x: u64) -> u64 {
    (h.rotate_left(5) ^ x).wrapping_mul(0x517c_c1b7_2722_0a95)
}

fn hash_str(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

/// Time-gap buckets: under a day, then powers of two in days.
const BUCKETS: usize = 12;

fn bucket(gap: i64) -> usize {
    let days = gap / 86_400;
    if days < 1 {
        0
    } else {
        (1 + (63 - days.leading_zeros()) as usize).min(BUCKETS - 1)
    }
}

/// Drift per gap bucket, and how often a page returns to an earlier
/// version: both measured on consecutive captures of one URL.
struct Baseline {
    rate: [f64; BUCKETS],
    /// Share of those pairs that are crossings (see [`Pair`]).
    crossing: f64,
}

impl Baseline {
    /// A bucket's rate is the weighted least-squares nondecreasing fit of
    /// the buckets' disagreement shares (pool adjacent violators): drift
    /// can only grow with the gap, so sparse buckets borrow from their
    /// neighbours on both sides instead of from shorter gaps alone. An
    /// empty bucket takes the rate of the nearest shorter one (or longer,
    /// if none is shorter).
    ///
    /// Each pooled block's rate is the lower Wilson bound of its share at
    /// `z` standard deviations: a rule is charged with the least drift its
    /// origin's pairs make plausible, so a few same-URL pairs that happen
    /// to disagree do not excuse a parameter's disagreements.
    fn new(pairs: &[(usize, usize); BUCKETS], crossing: (usize, usize), z: f64) -> Baseline {
        // Blocks of pooled buckets: (first bucket, pairs, disagreeing).
        let mut blocks: Vec<(usize, usize, usize)> = Vec::new();
        for (b, &(n, d)) in pairs.iter().enumerate() {
            if n == 0 {
                continue;
            }
            blocks.push((b, n, d));
            while blocks.len() >= 2 {
                let (_, n1, d1) = blocks[blocks.len() - 2];
                let (_, n2, d2) = blocks[blocks.len() - 1];
                // d1/n1 > d2/n2: a violation; pool.
                if d1 * n2 <= d2 * n1 {
                    break;
                }
                blocks.pop();
                let last = blocks.len() - 1;
                blocks[last].1 += n2;
                blocks[last].2 += d2;
            }
        }
        let mut rate = [0.0; BUCKETS];
        for (b, r) in rate.iter_mut().enumerate() {
            let block = blocks
                .iter()
                .rev()
                .find(|x| x.0 <= b)
                .or_else(|| blocks.first());
            *r = block.map_or(0.0, |x| wilson_lower(x.2, x.1, z));
        }
        Baseline {
            rate,
            crossing: crossing.1 as f64 / crossing.0.max(1) as f64,
        }
    }
}

/// A capture as the pair passes sort them: by group key, time, digest
/// (its rank among the origin's digest strings) and `tie` (a hash of the
/// URL's text), so the order never depends on the input's order.
#[derive(Debug, Clone, Copy)]
struct Row {
    key: u64,
    time: Option<i64>,
    digest: u32,
    tie: u64,
    url: u32,
}

impl Row {
    fn order(&self) -> (u64, Option<i64>, u32, u64) {
        (self.key, self.time, self.digest, self.tie)
    }
}

/// Where each digest first and last occurs in one group of rows.
#[derive(Default)]
struct Spans {
    at: HashMap<u32, (usize, usize)>,
}

impl Spans {
    /// Calls `f(a, b, crosses)` for every two rows of one group that are
    /// neighbours in time. A disagreeing pair *crosses* when `a`'s digest
    /// occurs again in the group after `b`, or `b`'s before `a`: the two
    /// contents interleave in time. Drift moves a page forward to new
    /// versions and never back, so under a rule that holds crossings are
    /// as rare as they are for one URL; a parameter that selects content
    /// alternates between its versions and crosses.
    fn each_pair(&mut self, rows: &[Row], mut f: impl FnMut(&Row, &Row, bool)) {
        for group in rows.chunk_by(|a, b| a.key == b.key) {
            if group.len() < 2 {
                continue;
            }
            self.at.clear();
            for (i, r) in group.iter().enumerate() {
                self.at.entry(r.digest).or_insert((i, i)).1 = i;
            }
            for (i, w) in group.windows(2).enumerate() {
                let (a, b) = (&w[0], &w[1]);
                let crosses = a.digest != b.digest
                    && (self.at[&a.digest].1 > i + 1 || self.at[&b.digest].0 < i);
                f(a, b, crosses);
            }
        }
    }
}

/// Pair counts of a grouping: per gap bucket (pairs, disagreeing), and
/// (pairs, crossing).
#[derive(Clone, Copy, Default)]
struct Counts {
    buckets: [(usize, usize); BUCKETS],
    crossing: (usize, usize),
}

/// Two captures that are neighbours in time in one group of the merged
/// key: their URLs, gap bucket, and whether they disagree and cross.
struct Merged {
    a: u32,
    b: u32,
    bucket: u8,
    disagree: bool,
    crosses: bool,
}

/// What makes the learner independent of the input's order: per field a
/// hash of its text, per digest its rank among the digest strings, per
/// URL a hash of its text.
struct Order {
    field: Vec<u64>,
    digest: Vec<u32>,
    url: Vec<u64>,
}

/// The lower Wilson score bound of `d` successes in `n` trials at `z`.
fn wilson_lower(d: usize, n: usize, z: f64) -> f64 {
    let (n, p) = (n as f64, d as f64 / n as f64);
    let centre = p + z * z / (2.0 * n);
    let margin = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    ((centre - margin) / (1.0 + z * z / n)).max(0.0)
}

/// The `z` with `P(Z > z) = p` for a standard normal `Z` (bisection).
fn normal_quantile_upper(p: f64) -> f64 {
    let (mut lo, mut hi) = (-10.0f64, 10.0f64);
    for _ in 0..80 {
        let mid = (lo + hi) / 2.0;
        if 0.5 * erfc(mid / std::f64::consts::SQRT_2) > p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo + hi) / 2.0
}

/// `P(X <= k)` for `X ~ Binomial(n, p)`.
pub(super) fn binomial_head(k: usize, n: usize, p: f64) -> f64 {
    if p >= 1.0 {
        return if k >= n { 1.0 } else { 0.0 };
    }
    if p <= 0.0 || k >= n {
        return 1.0;
    }
    // Terms from i = 0 upward, in logs: C(n, i) p^i (1-p)^(n-i).
    let (lp, lq) = (p.ln(), (1.0 - p).ln());
    let mut log_term = n as f64 * lq;
    let mut sum = 0.0;
    for i in 0..=k {
        sum += log_term.exp();
        log_term += ((n - i) as f64 / (i + 1) as f64).ln() + lp - lq;
    }
    sum.min(1.0)
}

/// `P(X >= k)` for `X ~ Poisson(mean)`.
fn poisson_tail(k: usize, mean: f64) -> f64 {
    if k == 0 {
        return 1.0;
    }
    if mean <= 0.0 {
        return 0.0;
    }
    if mean > 200.0 {
        // Normal approximation with continuity correction.
        let z = (k as f64 - 0.5 - mean) / mean.sqrt();
        return 0.5 * erfc(z / std::f64::consts::SQRT_2);
    }
    let mut term = (-mean).exp();
    let mut below = 0.0;
    for i in 0..k {
        below += term;
        term *= mean / (i + 1) as f64;
    }
    (1.0 - below).max(0.0)
}

/// Complementary error function (Numerical Recipes `erfcc`, |error| < 1.2e-7).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let r = t
        * (-z * z - 1.265_512_23
            + t * (1.000_023_68
                + t * (0.374_091_96
                    + t * (0.096_784_18
                        + t * (-0.186_288_06
                            + t * (0.278_868_07
                                + t * (-1.135_203_98
                                    + t * (1.488_515_87
                                        + t * (-0.822_152_23 + t * 0.170_872_77)))))))))
            .exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

/// What the learner found on an origin, besides the rules.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct OriginStats {
    pub captures: usize,
    /// Digests seen on two or more distinct URLs.
    pub clusters: usize,
    /// Of those, digests shared by distinct paths (not evidence).
    pub shared: usize,
}

impl OriginStats {
    pub fn plus(self, o: OriginStats) -> OriginStats {
        OriginStats {
            captures: self.captures + o.captures,
            clusters: self.clusters + o.clusters,
            shared: self.shared + o.shared,
        }
    }
}

impl Origin {
    pub fn new(origin: String) -> Origin {
        Origin {
            origin,
            ..Origin::default()
        }
    }

    pub fn len(&self) -> usize {
        self.caps.len()
    }

    pub fn is_empty(&self) -> bool {
        self.caps.is_empty()
    }

    /// Add a capture of `path` (starting with `/`) and `query`.
    pub fn push(&mut self, path: &str, query: Option<&str>, digest: &str, time: Option<i64>) {
        let url = self.url_id(path, query);
        let digest = self.digests.id(digest);
        self.caps.push(Cap { url, digest, time });
    }

    /// The id of the URL `path` and `query`, a new one if it was not seen.
    fn url_id(&mut self, path: &str, query: Option<&str>) -> u32 {
        let next = self.urls.len() as u32;
        let mut older = NONE;
        match self.url_ids.entry(str_hash((path, query))) {
            Entry::Occupied(mut e) => {
                let mut u = *e.get();
                while u != NONE {
                    if is_url(
                        &self.urls[u as usize],
                        &self.paths,
                        &self.fields,
                        path,
                        query,
                    ) {
                        return u;
                    }
                    u = self.older_urls[u as usize];
                }
                older = e.insert(next);
            }
            Entry::Vacant(e) => {
                e.insert(next);
            }
        }
        self.older_urls.push(older);
        let fields = query
            .map(|q| {
                q.split('&')
                    .map(|kv| {
                        let name = kv.split_once('=').map_or(kv, |x| x.0);
                        (self.names.id(name), self.fields.id(kv))
                    })
                    .collect()
            })
            .unwrap_or_default();
        let path = self.paths.id(path);
        self.urls.push(Url { path, fields });
        next
    }

    /// A key hash per URL under `set`, from the fields' text hashes
    /// (`field`), so equal keys do not depend on the order strings were
    /// first seen in.
    fn keys(&self, set: &Set, field: &[u64]) -> Vec<u64> {
        let paths: Vec<u64> = self
            .paths
            .strs
            .iter()
            .map(|p| hash_str(&alias_path(p, set.case, &set.index, &set.slash)))
            .collect();
        let mut kept: Vec<u64> = Vec::new();
        self.urls
            .iter()
            .map(|u| {
                kept.clear();
                kept.extend(
                    u.fields
                        .iter()
                        .filter(|(n, _)| !set.drop[*n as usize])
                        .map(|x| field[x.1 as usize]),
                );
                if set.order {
                    kept.sort_unstable();
                }
                kept.iter().fold(paths[u.path as usize], |h, f| mix(h, *f))
            })
            .collect()
    }

    /// Candidates with their clusters and pages, and the stats.
    fn candidates(&self, min_evidence: usize) -> (Vec<(Cand, usize, usize)>, OriginStats) {
        let mut stats = OriginStats {
            captures: self.caps.len(),
            ..OriginStats::default()
        };
        let mut by_digest: HashMap<u32, Vec<u32>> = HashMap::new();
        for c in &self.caps {
            by_digest.entry(c.digest).or_default().push(c.url);
        }
        let one_page = Set::all_aliases(self.names.strs.len());
        let page_of: Vec<u64> = self
            .paths
            .strs
            .iter()
            .map(|p| {
                hash_str(&alias_path(
                    p,
                    one_page.case,
                    &one_page.index,
                    &one_page.slash,
                ))
            })
            .collect();
        let mut aliases: Vec<Cand> = vec![
            Cand::Case,
            Cand::Slash(PathKind::NoExtension),
            Cand::Slash(PathKind::Extension),
        ];
        aliases.extend(INDEX_NAMES.iter().map(|n| Cand::Index(n)));
        // candidate → (clusters, pages)
        let mut support: HashMap<Cand, (usize, Vec<u64>)> = HashMap::new();
        let mut digests: Vec<_> = by_digest.into_iter().collect();
        digests.sort_unstable_by_key(|x| x.0);
        for (_, mut urls) in digests {
            urls.sort_unstable();
            urls.dedup();
            if urls.len() < 2 {
                continue;
            }
            stats.clusters += 1;
            let page = page_of[self.urls[urls[0] as usize].path as usize];
            if urls
                .iter()
                .any(|u| page_of[self.urls[*u as usize].path as usize] != page)
            {
                stats.shared += 1;
                continue;
            }
            let mut found: Vec<Cand> = Vec::new();
            // Path aliases: distinct paths that one alias maps together.
            let mut paths: Vec<u32> = urls.iter().map(|u| self.urls[*u as usize].path).collect();
            paths.sort_unstable();
            paths.dedup();
            if paths.len() >= 2 {
                for a in &aliases {
                    let s = Set::of(&[*a], 0);
                    let mut mapped: Vec<u64> = paths
                        .iter()
                        .map(|p| {
                            hash_str(&alias_path(
                                &self.paths.strs[*p as usize],
                                s.case,
                                &s.index,
                                &s.slash,
                            ))
                        })
                        .collect();
                    mapped.sort_unstable();
                    mapped.dedup();
                    if mapped.len() < paths.len() {
                        found.push(*a);
                    }
                }
            }
            // Parameters whose fields differ between the cluster's URLs.
            let sorted_fields = |u: u32| {
                let mut f = self.urls[u as usize].fields.clone();
                f.sort_unstable();
                f
            };
            let first = sorted_fields(urls[0]);
            let mut varying: Vec<u32> = Vec::new();
            for &u in &urls[1..] {
                let f = sorted_fields(u);
                if f == first {
                    continue;
                }
                let names = first.iter().chain(&f).map(|x| x.0);
                for n in names {
                    let of = |v: &[(u32, u32)]| -> Vec<u32> {
                        v.iter().filter(|x| x.0 == n).map(|x| x.1).collect()
                    };
                    if of(&first) != of(&f) && !varying.contains(&n) {
                        varying.push(n);
                    }
                }
            }
            found.extend(varying.iter().map(|n| Cand::Param(*n)));
            // Query order: the other parameters in another order.
            let rest = |u: u32| -> Vec<u32> {
                self.urls[u as usize]
                    .fields
                    .iter()
                    .filter(|x| !varying.contains(&x.0))
                    .map(|x| x.1)
                    .collect()
            };
            let r0 = rest(urls[0]);
            if urls[1..].iter().any(|u| rest(*u) != r0) {
                found.push(Cand::Order);
            }
            let page_key = first
                .iter()
                .filter(|x| !varying.contains(&x.0))
                .fold(page, |h, x| mix(h, u64::from(x.1) + 1));
            for c in found {
                let e = support.entry(c).or_default();
                e.0 += 1;
                e.1.push(page_key);
            }
        }
        let mut out: Vec<(Cand, usize, usize)> = support
            .into_iter()
            .map(|(c, (clusters, mut pages))| {
                pages.sort_unstable();
                pages.dedup();
                (c, clusters, pages.len())
            })
            .filter(|x| x.2 >= min_evidence.max(1))
            .collect();
        // Most pages first, then by kind and name (text, not interned id).
        let name = |c: &Cand| match c {
            Cand::Param(n) => self.names.strs[*n as usize].as_str(),
            _ => "",
        };
        out.sort_unstable_by(|a, b| {
            b.2.cmp(&a.2)
                .then(name(&a.0).cmp(name(&b.0)))
                .then(a.0.cmp(&b.0))
        });
        (out, stats)
    }

    /// The order-free tie breakers (see [`Order`]).
    fn order(&self) -> Order {
        let field = self.fields.strs.iter().map(|f| hash_str(f)).collect();
        let mut by_text: Vec<u32> = (0..self.digests.strs.len() as u32).collect();
        by_text.sort_unstable_by_key(|d| self.digests.strs[*d as usize].as_str());
        let mut digest = vec![0; by_text.len()];
        for (rank, d) in by_text.into_iter().enumerate() {
            digest[d as usize] = rank as u32;
        }
        let mut o = Order {
            field,
            digest,
            url: Vec::new(),
        };
        o.url = self.keys(&Set::of(&[], self.names.strs.len()), &o.field);
        o
    }

    /// The captures as rows grouped by `key`, sorted.
    fn rows(&self, key: &[u64], order: &Order, rows: &mut Vec<Row>) {
        rows.clear();
        rows.extend(self.caps.iter().map(|c| Row {
            key: key[c.url as usize],
            time: c.time,
            digest: order.digest[c.digest as usize],
            tie: order.url[c.url as usize],
            url: c.url,
        }));
        rows.sort_unstable_by_key(Row::order);
    }

    /// Drift counts of the grouping `key`: its neighbours in time.
    fn counts(
        &self,
        key: &[u64],
        order: &Order,
        rows: &mut Vec<Row>,
        span: &mut Spans,
        window: Option<i64>,
    ) -> Counts {
        self.rows(key, order, rows);
        let mut c = Counts::default();
        span.each_pair(rows, |a, b, crosses| {
            let gap = gap(a.time, b.time);
            if far(gap, window) {
                return;
            }
            let bk = &mut c.buckets[bucket(gap)];
            bk.0 += 1;
            bk.1 += usize::from(a.digest != b.digest);
            c.crossing.0 += 1;
            c.crossing.1 += usize::from(crosses);
        });
        c
    }

    /// The neighbours in time of the groups of `with` (of distinct URLs).
    fn merged(
        &self,
        with: &[u64],
        order: &Order,
        rows: &mut Vec<Row>,
        span: &mut Spans,
        window: Option<i64>,
    ) -> Vec<Merged> {
        self.rows(with, order, rows);
        let mut out = Vec::new();
        span.each_pair(rows, |a, b, crosses| {
            let gap = gap(a.time, b.time);
            if a.url == b.url || far(gap, window) {
                return;
            }
            out.push(Merged {
                a: a.url,
                b: b.url,
                bucket: bucket(gap) as u8,
                disagree: a.digest != b.digest,
                crosses,
            });
        });
        out
    }

    /// Learn this origin's rules on its own evidence: every candidate with
    /// its verdict.
    pub fn learn(&self, t: &Thresholds) -> (Vec<ContentRule>, OriginStats) {
        let (judged, stats) = self.judge_all(t);
        (judged.into_iter().map(|j| j.rule).collect(), stats)
    }

    /// Every candidate with its verdict on this origin's own evidence and
    /// what the pooled pass ([`pool`](super::pool)) needs besides.
    pub fn judge_all(&self, t: &Thresholds) -> (Vec<Judgement>, OriginStats) {
        let (cands, stats) = self.candidates(t.min_evidence);
        if cands.is_empty() {
            return (Vec::new(), stats);
        }
        let names = self.names.strs.len();
        let order = self.order();
        let z = normal_quantile_upper(t.significance).max(0.0);
        let (mut rows, mut span) = (Vec::new(), Spans::default());
        let mut alive: Vec<bool> = vec![true; cands.len()];
        let mut verdicts: Vec<Judged> = vec![Judged::default(); cands.len()];
        loop {
            let set: Vec<Cand> = cands
                .iter()
                .zip(&alive)
                .filter(|x| *x.1)
                .map(|x| x.0 .0)
                .collect();
            let with = self.keys(&Set::of(&set, names), &order.field);
            let merged = self.merged(&with, &order, &mut rows, &mut span, t.window);
            // The most significant refusal leaves first: its disagreeing
            // pairs may be all that refuses the others.
            let mut worst: Option<(usize, (f64, f64))> = None;
            for (i, (c, _, _)) in cands.iter().enumerate() {
                if !alive[i] {
                    continue;
                }
                let others: Vec<Cand> = set.iter().copied().filter(|x| x != c).collect();
                let without = self.keys(&Set::of(&others, names), &order.field);
                let counts = self.counts(&without, &order, &mut rows, &mut span, t.window);
                let base = Baseline::new(&counts.buckets, counts.crossing, z);
                let j = judge(&merged, &without, &base);
                if j.refuses(t) {
                    let p = j.severity();
                    if worst.is_none_or(|(_, q)| p > q) {
                        worst = Some((i, p));
                    }
                }
                verdicts[i] = j;
            }
            match worst {
                Some((i, _)) => alive[i] = false,
                None => break,
            }
        }
        let rules = cands
            .iter()
            .zip(alive.iter().zip(&verdicts))
            .map(|(&(c, clusters, pages), (&alive, j))| {
                let ok = alive && j.safe(t);
                let (kind, pattern) = match c {
                    Cand::Param(n) => (
                        ContentKind::IgnoreParam,
                        self.names.strs[n as usize].clone(),
                    ),
                    Cand::Order => (ContentKind::QueryOrder, "*".to_owned()),
                    Cand::Case => (ContentKind::CaseInsensitivePath, "*".to_owned()),
                    Cand::Slash(k) => (ContentKind::AliasSlash, k.to_string()),
                    Cand::Index(n) => (ContentKind::AliasIndex, n.to_owned()),
                };
                // Refused: its crossings, or else the disagreements beyond
                // drift that keep it from being shown safe (at least 1).
                let excess = if j.crossing > 0 {
                    j.crossing
                } else {
                    (j.disagreeing as f64 - j.expected).ceil().max(1.0) as usize
                };
                let rule = ContentRule {
                    origin: self.origin.clone(),
                    kind,
                    pattern,
                    support: pages,
                    contradictions: if ok { 0 } else { excess },
                    evidence: Evidence {
                        clusters,
                        pairs: j.pairs,
                        disagreeing: j.disagreeing,
                        drift_ppm: (j.expected / j.pairs.max(1) as f64 * 1e6).round() as u32,
                    },
                };
                Judgement {
                    rule,
                    crossed: !alive,
                    expected: j.expected,
                }
            })
            // A parameter name the rules file cannot hold is never a rule.
            .filter(|j| j.rule.kind != ContentKind::IgnoreParam || valid_param(&j.rule.pattern))
            .collect();
        (rules, stats)
    }
}

/// A candidate judged on its origin's own evidence.
#[derive(Debug, Clone)]
pub struct Judgement {
    /// The candidate with its own verdict (`contradictions` 0: applied).
    pub rule: ContentRule,
    /// Refused by the crossing test (step 1): its merged pairs return to
    /// earlier contents more often than the origin's own URLs do.
    pub crossed: bool,
    /// Disagreements the origin's drift baseline explains among its pairs.
    pub expected: f64,
}

/// A parameter name the rules file and `ContentRules` can hold.
fn valid_param(name: &str) -> bool {
    !name.is_empty() && !name.contains(['&', '\t', '\n', '\r'])
}

/// The pairs of `merged` that `without` keeps apart, against `base`.
fn judge(merged: &[Merged], without: &[u64], base: &Baseline) -> Judged {
    let mut j = Judged {
        drift_crossing: base.crossing,
        ..Judged::default()
    };
    for m in merged {
        if without[m.a as usize] == without[m.b as usize] {
            continue;
        }
        j.pairs += 1;
        j.disagreeing += usize::from(m.disagree);
        j.crossing += usize::from(m.crosses);
        j.expected += base.rate[usize::from(m.bucket)];
    }
    j
}

fn far(gap: i64, window: Option<i64>) -> bool {
    window.is_some_and(|win| gap > win)
}

fn gap(a: Option<i64>, b: Option<i64>) -> i64 {
    match (a, b) {
        (Some(a), Some(b)) => (a - b).abs(),
        // Untimed: the shortest gap, where drift explains the least.
        _ => 0,
    }
}

#[derive(Debug, Default, Clone, Copy)]
struct Judged {
    pairs: usize,
    disagreeing: usize,
    /// Disagreements drift explains: the baseline summed over the gaps.
    expected: f64,
    /// Disagreeing pairs that cross (see [`Spans::each_pair`]).
    crossing: usize,
    /// The share of same-URL pairs that cross.
    drift_crossing: f64,
}

impl Judged {
    /// Refused outright: its merged pairs cross significantly more often
    /// than the origin's own URLs do (see [`Spans::each_pair`]).
    fn refuses(&self, t: &Thresholds) -> bool {
        self.pairs > 0 && self.tail() < t.significance
    }

    /// Accepted: not refused, and its disagreement beyond drift is shown
    /// to stay below `max_excess` of its pairs with confidence
    /// `1 - significance`: the observed disagreements are improbably few
    /// (binomial head, [`Judged::head`]) for a mean of drift plus
    /// `max_excess` per pair. Zero disagreements are judged the same way,
    /// so a rule needs enough merged pairs to show it (at least 19 at the
    /// defaults, with no drift); with no pair nothing is shown.
    fn safe(&self, t: &Thresholds) -> bool {
        let bound = self.expected + t.max_excess * self.pairs as f64;
        self.pairs > 0 && !self.refuses(t) && self.head(bound) < t.significance
    }

    /// `P(X <= disagreeing)` for disagreements with mean `bound` over the
    /// pairs: binomial with the mean share per pair, which bounds the lower
    /// tail of the pairs' own unequal shares (Hoeffding, *On the
    /// distribution of the number of successes in independent trials*,
    /// 1956) and is tighter than the Poisson with the same mean.
    fn head(&self, bound: f64) -> f64 {
        binomial_head(self.disagreeing, self.pairs, bound / self.pairs as f64)
    }

    /// How likely the origin's own crossing rate crosses this often.
    fn tail(&self) -> f64 {
        poisson_tail(self.crossing, self.drift_crossing * self.pairs as f64)
    }

    /// The order in which refusals leave: crossings beyond the baseline
    /// per pair, then the smaller tail. Every crossing a selecting
    /// candidate causes in another's pairs is also one of its own, and its
    /// pairs are fewer, so it leaves first.
    fn severity(&self) -> (f64, f64) {
        let excess = self.crossing as f64 - self.drift_crossing * self.pairs as f64;
        (excess / self.pairs.max(1) as f64, -self.tail())
    }
}

#[cfg(test)]
mod tests;
