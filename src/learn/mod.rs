//! Protocol-rung rules learned from redirect evidence
//! (draft-ietf-iri-3987bis §5.3.4).
//!
//! §5.3.4: "if they observe that an IRI such as `http://example.com/data`
//! redirects to an IRI differing only in the trailing slash
//! `http://example.com/data/` they will likely regard the two as equivalent
//! in the future. This kind of technique is only appropriate when
//! equivalence is clearly indicated by both the result of accessing the
//! resources and the common conventions of their scheme's dereference
//! algorithm."
//!
//! Input: a CSV of `from,to` redirects (a header row `from,to` is optional).
//! Each pair is put in scheme-rung keys (fragments dropped) and the
//! difference classified as one [`Change`]; anything that differs in more
//! than one way is [`Change::Other`] and ignored (but counted).
//!
//! A rule is learned for a host (host and port as in the key) when at least
//! `min_evidence` observations (default [`MIN_EVIDENCE`]) of one change and
//! path kind agree and **no** observation on that host contradicts it (the
//! opposite direction in the same family: slash added vs removed, `www.`
//! added vs removed, index added vs removed or a different index name,
//! https upgrade vs downgrade). Contradicted hosts are set aside and
//! reported. A learned rule maps both spellings to one key (the redirect
//! *target* spelling), for that host only, and for slash rules only for the
//! kind of last path segment that was observed (with or without a `.`).
//!
//! ```
//! use irinorm::learn::Learned;
//! let csv = "from,to\nhttp://a.example/x,http://a.example/x/\n\
//!            http://a.example/y,http://a.example/y/\nhttp://a.example/z,http://a.example/z/\n";
//! let l = Learned::from_csv(csv.as_bytes()).unwrap();
//! assert_eq!(l.rules().count(), 1);
//! ```
//!
//! The rules are applied by the ladder (`ladder::learned`); this
//! module and [`digest`] only produce them.

pub mod cluster;
pub mod digest;
pub mod group;
pub mod grouping;
pub mod pool;
pub mod records;
pub mod stream;

use std::collections::BTreeMap;
use std::io::Read;

use crate::iri::{parse, HostKind};
use crate::ladder::learned::{host_port, segment_kind, ContentRule, ContentRules};
use crate::ladder::parts::{Parts, INDEX_NAMES};
use crate::ladder::{key, Level};

pub use crate::ladder::learned::{Change, Contradiction, Learned, LearnedRule, PathKind};

/// Default number of agreeing observations needed to learn a rule.
pub const MIN_EVIDENCE: usize = 3;

/// Classify the redirect `from` → `to` (any spellings; compared as
/// scheme-rung keys without fragments). Returns the change, the path kind
/// and the host (with port) the change belongs to.
pub fn classify(from: &str, to: &str) -> (Change, PathKind, String) {
    let other = (Change::Other, PathKind::Any, String::new());
    let (Ok(f), Ok(t)) = (
        key(from.trim(), Level::Scheme),
        key(to.trim(), Level::Scheme),
    ) else {
        return other;
    };
    let (Ok(fr), Ok(tr)) = (parse(&f), parse(&t)) else {
        return other;
    };
    let (mut fp, mut tp) = (Parts::of(&fr), Parts::of(&tr));
    fp.fragment = None;
    tp.fragment = None;
    if !fp.has_authority || !tp.has_authority || fp.userinfo != tp.userinfo {
        return other;
    }
    let host = host_port(&fp);
    let same_path = fp.path == tp.path && fp.query == tp.query;
    let same_auth = fp.host == tp.host && fp.port == tp.port;
    if fp.scheme != tp.scheme {
        if same_auth && same_path && fp.port.is_empty() {
            match (&*fp.scheme, &*tp.scheme) {
                ("http", "https") => return (Change::HttpsUpgrade, PathKind::Any, host),
                ("https", "http") => return (Change::HttpsDowngrade, PathKind::Any, host),
                _ => {}
            }
        }
        return other;
    }
    if !same_auth {
        if same_path && fp.port == tp.port && fp.host_kind == Some(HostKind::RegName) {
            if tp.host.strip_prefix("www.") == Some(&*fp.host) && !fp.host.starts_with("www.") {
                return (Change::WwwAdded, PathKind::Any, host);
            }
            if fp.host.strip_prefix("www.") == Some(&*tp.host) {
                return (Change::WwwRemoved, PathKind::Any, host);
            }
        }
        return other;
    }
    if fp.query != tp.query || !fp.path.starts_with('/') {
        return other;
    }
    let (fpath, tpath) = (&*fp.path, &*tp.path);
    if let Some(added) = tpath.strip_prefix(fpath) {
        if added == "/" && !fpath.ends_with('/') {
            let seg = &fpath[fpath.rfind('/').map_or(0, |i| i + 1)..];
            return (Change::SlashAdded, segment_kind(seg), host);
        }
        if fpath.ends_with('/') {
            if let Some(n) = INDEX_NAMES.iter().find(|n| **n == added) {
                return (Change::IndexAdded, PathKind::Index(n), host);
            }
        }
    }
    if let Some(removed) = fpath.strip_prefix(tpath) {
        if removed == "/" && !tpath.ends_with('/') {
            let seg = &tpath[tpath.rfind('/').map_or(0, |i| i + 1)..];
            return (Change::SlashRemoved, segment_kind(seg), host);
        }
        if tpath.ends_with('/') {
            if let Some(n) = INDEX_NAMES.iter().find(|n| **n == removed) {
                return (Change::IndexRemoved, PathKind::Index(n), host);
            }
        }
    }
    other
}

/// Observations: host → family → (change, kind) → count.
type Observations = BTreeMap<String, BTreeMap<u8, BTreeMap<(Change, PathKind), usize>>>;

fn observe(obs: &mut Observations, host: String, change: Change, kind: PathKind, n: usize) {
    *obs.entry(host)
        .or_default()
        .entry(change.family())
        .or_default()
        .entry((change, kind))
        .or_default() += n;
}

/// Redirect evidence tallied pair by pair: what [`Learned::from_pairs`]
/// keeps of each `(from, to)` — its [`Change`] counted per host — so the
/// redirects of a crawl need not be held. Tallies add up in any order.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct RedirectTally {
    rows: usize,
    counts: BTreeMap<Change, usize>,
    obs: Observations,
}

impl RedirectTally {
    /// One redirect, classified ([`classify`]).
    pub fn add(&mut self, from: &str, to: &str) {
        self.rows += 1;
        let (change, kind, host) = classify(from, to);
        *self.counts.entry(change).or_default() += 1;
        if change != Change::Other {
            observe(&mut self.obs, host, change, kind, 1);
        }
    }

    /// The redirects of a `from,to` CSV ([`for_each_pair`]), tallied as
    /// they are read.
    pub fn from_csv<R: Read>(r: R) -> Result<RedirectTally, String> {
        let mut t = RedirectTally::default();
        for_each_pair(r, |from, to| t.add(from, to))?;
        Ok(t)
    }

    /// Another tally's redirects added to this one's.
    pub fn merge(&mut self, other: &RedirectTally) {
        self.rows += other.rows;
        for (&c, n) in &other.counts {
            *self.counts.entry(c).or_default() += n;
        }
        for (host, families) in &other.obs {
            let mine = self.obs.entry(host.clone()).or_default();
            for (&family, seen) in families {
                let mine = mine.entry(family).or_default();
                for (&k, n) in seen {
                    *mine.entry(k).or_default() += n;
                }
            }
        }
    }

    /// Redirects tallied.
    pub fn len(&self) -> usize {
        self.rows
    }

    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }
}

/// Each `(from, to)` pair of a redirect CSV given to `f` as it is read (a
/// first row `from,to` is a header); a record without two fields is an
/// error naming it.
pub fn for_each_pair<R: Read>(r: R, mut f: impl FnMut(&str, &str)) -> Result<(), String> {
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(r);
    let mut rec = csv::StringRecord::new();
    let mut i = 0;
    while rdr
        .read_record(&mut rec)
        .map_err(|e| format!("redirect CSV: {e}"))?
    {
        i += 1;
        let (Some(from), Some(to)) = (rec.get(0), rec.get(1)) else {
            return Err(format!(
                "redirect CSV: record {i} has {} field(s), want 2 (from,to)",
                rec.len()
            ));
        };
        if i == 1 && from.trim() == "from" && to.trim() == "to" {
            continue;
        }
        f(from, to);
    }
    Ok(())
}

/// The `(from, to)` pairs of a redirect CSV ([`for_each_pair`]).
pub fn read_pairs<R: Read>(r: R) -> Result<Vec<(String, String)>, String> {
    let mut pairs = Vec::new();
    for_each_pair(r, |from, to| pairs.push((from.to_owned(), to.to_owned())))?;
    Ok(pairs)
}

impl Learned {
    /// Learn from a `from,to` CSV with [`MIN_EVIDENCE`].
    pub fn from_csv<R: Read>(r: R) -> Result<Learned, String> {
        Learned::from_csv_with(r, MIN_EVIDENCE)
    }

    /// Learn from a `from,to` CSV; a rule needs `min_evidence` (at least 1)
    /// agreeing observations.
    pub fn from_csv_with<R: Read>(r: R, min_evidence: usize) -> Result<Learned, String> {
        Ok(Learned::from_tally(
            RedirectTally::from_csv(r)?,
            min_evidence,
        ))
    }

    /// Learn from `(from, to)` pairs.
    pub fn from_pairs<'s>(
        pairs: impl IntoIterator<Item = (&'s str, &'s str)>,
        min_evidence: usize,
    ) -> Learned {
        let mut tally = RedirectTally::default();
        for (from, to) in pairs {
            tally.add(from, to);
        }
        Learned::from_tally(tally, min_evidence)
    }

    /// Learn from redirects tallied as they were read.
    pub fn from_tally(tally: RedirectTally, min_evidence: usize) -> Learned {
        let mut learned = Learned {
            rows: tally.rows,
            counts: tally.counts,
            ..Learned::default()
        };
        learned.decide(tally.obs, min_evidence);
        learned
    }

    /// Both sets of rules in one (`--redirects` with `--learned`, or two
    /// rules files). The redirect rules are judged again on the
    /// observations of both sides — each rule with its support, each
    /// observation set aside — with a threshold of 1 (each side passed its
    /// own): a host where one side learned `slash-added` and the other
    /// `slash-removed` becomes a contradiction, and the cross-rule
    /// conflicts (a `www.` cycle, an index rule with a slash rule) are
    /// checked on the union. Content candidates of both are kept; one
    /// contradicted on either side is never applied.
    pub fn merge(self, other: Learned) -> Learned {
        let mut obs = Observations::new();
        let mut counts = self.counts;
        for (c, n) in other.counts {
            *counts.entry(c).or_default() += n;
        }
        for side in [&self.by_host, &other.by_host] {
            for r in side.values().flatten() {
                observe(&mut obs, r.host.clone(), r.change, r.path_kind, r.support);
            }
        }
        for c in self.contradictions.iter().chain(&other.contradictions) {
            for &(change, kind, n) in &c.observations {
                observe(&mut obs, c.host.clone(), change, kind, n);
            }
        }
        // One candidate on both sides: support and contradictions add up.
        let mut content: BTreeMap<_, ContentRule> = BTreeMap::new();
        for c in self
            .content
            .candidates()
            .iter()
            .chain(other.content.candidates())
        {
            let k = (c.origin.clone(), c.kind, c.pattern.clone());
            match content.get_mut(&k) {
                Some(m) => {
                    m.support += c.support;
                    m.contradictions += c.contradictions;
                    m.evidence.clusters += c.evidence.clusters;
                    m.evidence.pairs += c.evidence.pairs;
                    m.evidence.disagreeing += c.evidence.disagreeing;
                    m.evidence.drift_ppm = m.evidence.drift_ppm.max(c.evidence.drift_ppm);
                }
                None => {
                    content.insert(k, c.clone());
                }
            }
        }
        let content: Vec<_> = content.into_values().collect();
        let mut learned = Learned {
            counts,
            rows: self.rows + other.rows,
            content: ContentRules::from_candidates(content),
            ..Learned::default()
        };
        learned.decide(obs, 1);
        learned
    }

    /// Rules from counted observations: a family of changes on a host that
    /// disagrees is set aside; `min_evidence` agreeing observations make a
    /// rule; then cross-rule conflicts are set aside too.
    fn decide(&mut self, obs: Observations, min_evidence: usize) {
        let min_evidence = min_evidence.max(1);
        let learned = self;
        let mut rules: BTreeMap<String, Vec<LearnedRule>> = BTreeMap::new();
        for (host, families) in obs {
            for (_, seen) in families {
                let changes: Vec<Change> = seen.keys().map(|(c, _)| *c).collect();
                let indexes_added = seen
                    .keys()
                    .filter(|(c, _)| *c == Change::IndexAdded)
                    .count();
                if changes.iter().any(|c| *c != changes[0]) || indexes_added > 1 {
                    learned.contradictions.push(Contradiction {
                        host: host.clone(),
                        observations: seen.iter().map(|((c, k), n)| (*c, *k, *n)).collect(),
                    });
                    continue;
                }
                for ((change, path_kind), support) in seen {
                    if support >= min_evidence && change != Change::HttpsDowngrade {
                        rules.entry(host.clone()).or_default().push(LearnedRule {
                            host: host.clone(),
                            change,
                            path_kind,
                            support,
                        });
                    }
                }
            }
        }
        // Cross-rule conflicts that would make keys depend on the order of
        // application: `www.` added on h and removed on www.h (a cycle), and
        // an index added on a host that also has a slash rule.
        let has = |rules: &BTreeMap<String, Vec<LearnedRule>>, h: &str, c: Change| {
            rules
                .get(h)
                .is_some_and(|v| v.iter().any(|r| r.change == c))
        };
        let mut drop: Vec<(String, Change)> = Vec::new();
        for h in rules.keys() {
            if has(&rules, h, Change::WwwAdded)
                && has(&rules, &format!("www.{h}"), Change::WwwRemoved)
            {
                drop.push((h.clone(), Change::WwwAdded));
                drop.push((format!("www.{h}"), Change::WwwRemoved));
            }
            if has(&rules, h, Change::IndexAdded)
                && (has(&rules, h, Change::SlashAdded) || has(&rules, h, Change::SlashRemoved))
            {
                drop.push((h.clone(), Change::IndexAdded));
                drop.push((h.clone(), Change::SlashAdded));
                drop.push((h.clone(), Change::SlashRemoved));
            }
        }
        for (h, c) in drop {
            if let Some(v) = rules.get_mut(&h) {
                let (gone, kept): (Vec<_>, Vec<_>) = v.drain(..).partition(|r| r.change == c);
                *v = kept;
                if !gone.is_empty() {
                    learned.contradictions.push(Contradiction {
                        host: h.clone(),
                        observations: gone
                            .iter()
                            .map(|r| (r.change, r.path_kind, r.support))
                            .collect(),
                    });
                }
            }
        }
        learned.by_host = rules.into_iter().filter(|(_, v)| !v.is_empty()).collect();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classification() {
        let c = |a, b| {
            let (c, k, _) = classify(a, b);
            (c, k)
        };
        assert_eq!(
            c("http://h/a", "http://h/a/"),
            (Change::SlashAdded, PathKind::NoExtension)
        );
        assert_eq!(
            c("http://h/a.b/", "http://h/a.b"),
            (Change::SlashRemoved, PathKind::Extension)
        );
        assert_eq!(
            c("http://h/", "http://www.h/"),
            (Change::WwwAdded, PathKind::Any)
        );
        assert_eq!(
            c("http://www.h/", "HTTP://h"),
            (Change::WwwRemoved, PathKind::Any)
        );
        assert_eq!(
            c("http://h/x", "https://h/x"),
            (Change::HttpsUpgrade, PathKind::Any)
        );
        assert_eq!(
            c("http://h/d/", "http://h/d/index.html"),
            (Change::IndexAdded, PathKind::Index("index.html"))
        );
        assert_eq!(
            c("http://h/d/index.php", "http://h/d/"),
            (Change::IndexRemoved, PathKind::Index("index.php"))
        );
        assert_eq!(c("http://h/a", "https://h/a/").0, Change::Other);
        assert_eq!(c("http://h/a", "http://h/a").0, Change::Other);
        assert_eq!(c("not a url", "http://h/").0, Change::Other);
        assert_eq!(c("http://h/a?x", "http://h/a/?y").0, Change::Other);
    }

    fn pairs(rows: &[(&str, &str)]) -> Learned {
        Learned::from_pairs(rows.iter().copied(), 1)
    }

    #[test]
    fn merged_rules_are_judged_together() {
        let a = pairs(&[
            ("http://h.example/a", "http://h.example/a/"),
            ("http://g.example/", "http://www.g.example/"),
        ]);
        let b = pairs(&[("http://h.example/b/", "http://h.example/b")]);
        assert_eq!(b.rules().count(), 1);
        let m = a.clone().merge(b);
        // h: slash-added on one side, slash-removed on the other.
        let rules: Vec<_> = m.rules().map(|r| (r.host, r.change)).collect();
        assert_eq!(rules, vec![("g.example".to_owned(), Change::WwwAdded)]);
        assert_eq!(m.contradictions().len(), 1);
        assert_eq!(m.contradictions()[0].host, "h.example");
        assert_eq!(m.rows(), 3);
        // Agreeing sides add their support; the rules file round trip
        // keeps the contradiction set aside.
        let again = a.clone().merge(a.clone());
        assert!(again.rules().all(|r| r.support == 2));
        let back = Learned::from_tsv(&m.to_tsv())
            .unwrap()
            .merge(Learned::default());
        assert_eq!(back.rules().count(), 1);
        assert_eq!(back.contradictions().len(), 1);
    }

    #[test]
    fn a_content_rule_contradicted_on_either_side_is_not_applied() {
        let row = |c: usize| {
            Learned::from_tsv(&format!("http://h.example\tignore-param\tsid\t3\t{c}\n")).unwrap()
        };
        assert_eq!(row(0).merge(row(0)).content().active().count(), 1);
        let m = row(0).merge(row(1));
        assert_eq!(m.content().active().count(), 0);
        assert_eq!(m.content().candidates()[0].support, 6);
        assert_eq!(m.content().candidates()[0].contradictions, 1);
    }

    /// Tallies added up in any order learn what the pairs learn at once.
    #[test]
    fn tallies_merged_in_any_order_learn_as_the_pairs_do() {
        let mut pairs = Vec::new();
        for i in 0..40 {
            let h = format!("h{}.example", i % 4);
            pairs.push((format!("http://{h}/p{i}"), format!("http://{h}/p{i}/")));
            pairs.push((format!("http://{h}/q{i}"), format!("https://{h}/q{i}")));
            pairs.push((format!("http://{h}/r{i}/"), format!("http://x{i}.example/")));
        }
        pairs.push(("http://h0.example/a/".into(), "http://h0.example/a".into()));
        let pairs: Vec<(&str, &str)> = pairs.iter().map(|(a, b)| (&**a, &**b)).collect();
        let whole = Learned::from_pairs(pairs.iter().copied(), 3);
        let tally = |part: &[(&str, &str)]| {
            let mut t = RedirectTally::default();
            part.iter().for_each(|(a, b)| t.add(a, b));
            t
        };
        let (a, b) = pairs.split_at(47);
        let (mut ab, mut ba) = (tally(a), tally(b));
        ab.merge(&tally(b));
        ba.merge(&tally(a));
        assert_eq!(ab, ba);
        assert_eq!(ab.len(), pairs.len());
        let merged = Learned::from_tally(ab, 3);
        assert_eq!(merged.rows(), whole.rows());
        assert_eq!(merged.counts(), whole.counts());
        assert_eq!(merged.redirects_tsv(), whole.redirects_tsv());
        assert!(merged.rules().count() > 0 && merged.contradictions().len() == 1);
    }

    #[test]
    fn bad_csv_is_an_error_not_a_panic() {
        assert!(Learned::from_csv("only-one-field\n".as_bytes()).is_err());
        let l = Learned::from_csv("\u{0}\u{1},\u{2}\n,\n".as_bytes()).unwrap();
        assert_eq!(l.rules().count(), 0);
        assert_eq!(l.counts()[&Change::Other], 2);
    }
}
