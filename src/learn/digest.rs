//! The digest learner: protocol-rung rules learned from content digests
//! (draft-ietf-iri-3987bis §5.3.4). Its records are read in
//! [`super::records`]; the rules it makes are held, written to the rules
//! file and applied in `ladder::learned`.
//!
//! §5.3.4 allows protocol-based equivalence "only … when equivalence is
//! clearly indicated by both the result of accessing the resources and the
//! common conventions of their scheme's dereference algorithm". A crawl's
//! (URL, content digest[, timestamp]) records are the first kind of
//! evidence: two URLs that returned identical bytes. This is the "DUST"
//! problem (Bar-Yossef, Keidar, Schonfeld, *Do not crawl in the DUST*,
//! WWW 2007; Dasgupta, Kumar, Sasturkar, *De-duping URLs via rewrite rules*,
//! KDD 2008), restricted to rules that keep the key's
//! scheme/authority/path boundary.
//!
//! Every URL is first put in its scheme-rung key (fragment dropped); records
//! with user info or without an authority are not evidence. Rules are learned
//! per **origin** (`scheme://host[:port]`), so they never cross hosts or
//! schemes. Kinds ([`ContentKind`]):
//!
//! * `ignore-param NAME` — two captures that differ only in the presence or
//!   value of query parameter `NAME` (every other parameter and the path
//!   equal) are a *pair*; equal digests support the rule, different digests
//!   contradict it;
//! * `alias-slash KIND` — `/d/` and `/d` (same query); `KIND` is
//!   `no-extension` or `extension` of the last segment, as for redirects;
//!   applied by removing the slash;
//! * `alias-index NAME` — `/d/NAME` and `/d/` (NAME one of
//!   [`INDEX_NAMES`]); applied by removing NAME;
//! * `case-insensitive-path` — two spellings of a path that differ only in
//!   ASCII case; applied by lowercasing the path (not `%XX` escapes).
//!
//! A *pair* is only evidence when its two captures are at most `window`
//! seconds apart (default [`DEFAULT_WINDOW`], 2 days: one crawl pass);
//! content drifts, and two captures a year apart may differ for reasons that
//! are not the parameter. **Support** is the number of *independent* pages
//! with an agreeing pair: distinct (path, other parameters) for a parameter,
//! distinct paths for an alias; repeated captures of one page count once. A
//! page with a differing pair is a **contradiction** — unless one of the two
//! URLs itself returned other content within the window (its page changed
//! then: drift, not the parameter). A rule is active when support ≥
//! `min_evidence` (default [`MIN_EVIDENCE`], 3) and it has **zero**
//! contradicting pages. A capture without a timestamp is taken to be within
//! the window of every other capture, and never counts as drift (the
//! conservative choice). Candidates that reached the support but were
//! contradicted are kept (and written to the rules file) so a reader can
//! see why; they are never applied.
//!
//! Cost: pairs are formed inside groups of captures of one page, so time is
//! linear in the records plus quadratic in the captures of a single page.
//!
//! ```
//! use irinorm::learn::digest::{learn, DigestOptions, DigestRecord};
//! let recs: Vec<DigestRecord> = (0..3)
//!     .flat_map(|i| {
//!         [
//!             DigestRecord::new(format!("http://h.example/p{i}?sid=1"), format!("D{i}"), None),
//!             DigestRecord::new(format!("http://h.example/p{i}?sid=2"), format!("D{i}"), None),
//!         ]
//!     })
//!     .collect();
//! let rules = learn(&recs, &DigestOptions::default());
//! assert_eq!(rules.active().count(), 1);
//! ```

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::records::timestamp_secs;
use super::MIN_EVIDENCE;
use crate::iri::parse;
use crate::ladder::learned::{lowercase_path, origin, param_name, segment_kind};
use crate::ladder::parts::{Parts, INDEX_NAMES};
use crate::ladder::{key, Level};

pub use super::records::{read_records, DigestFormat, DigestRecord, ReadResult};
pub use crate::ladder::learned::{
    rule_kinds, ContentKind, ContentRule, ContentRules, RULES_HEADER,
};

/// Default window: 2 days, in seconds — the captures of one crawl pass.
pub const DEFAULT_WINDOW: i64 = 2 * 86_400;

/// Thresholds of [`learn`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DigestOptions {
    /// Independent agreeing pages needed (at least 1).
    pub min_evidence: usize,
    /// Contradictions count only between captures at most this many
    /// seconds apart.
    pub window: i64,
}

impl Default for DigestOptions {
    fn default() -> Self {
        DigestOptions {
            min_evidence: MIN_EVIDENCE,
            window: DEFAULT_WINDOW,
        }
    }
}

/// A window length such as `2d`, `36h`, `90m`, `3600s` or `1w`, in
/// seconds. A unit is required (a bare number would be ambiguous).
///
/// ```
/// use irinorm::learn::digest::parse_window;
/// assert_eq!(parse_window("2d"), Ok(172_800));
/// assert!(parse_window("2").is_err());
/// ```
pub fn parse_window(s: &str) -> Result<i64, String> {
    let t = s.trim();
    let unit = t.chars().last().filter(|c| c.is_ascii_alphabetic());
    let secs = match unit {
        Some('s') => 1,
        Some('m') => 60,
        Some('h') => 3_600,
        Some('d') => 86_400,
        Some('w') => 7 * 86_400,
        _ => {
            return Err(format!(
                "window {:?}: give a number and a unit s, m, h, d or w (2d, 36h, 3600s)",
                s.escape_debug().to_string()
            ))
        }
    };
    let n: i64 = t[..t.len() - 1].parse().map_err(|_| {
        format!(
            "window {:?}: not a whole number before the unit",
            s.escape_debug().to_string()
        )
    })?;
    if n < 0 {
        return Err(format!("window {s:?} is negative"));
    }
    n.checked_mul(secs)
        .ok_or_else(|| format!("window {s:?} is too long"))
}

/// A capture reduced to evidence: interned digest and time.
#[derive(Debug, Clone, Copy)]
struct Cap {
    digest: u32,
    time: Option<i64>,
}

/// Evidence of one page: its captures grouped by spelling (the URL, or the
/// parameter's own part of it), compared across spellings.
///
/// A pair of captures of two spellings counts only within the window (a
/// capture without a timestamp is within every window). Equal digests:
/// agreement. Different digests: a contradiction unless one side is
/// *unstable* — its own URL returned other content within the window (both
/// timestamps known): drift, not the spelling. Returns (agree, contradict).
///
/// Cost: sorting plus the pairs inside one window, with an early exit; when
/// every stable capture has one digest no contradiction is possible and the
/// scan stops at the first agreement.
fn compare_group(spellings: &[&[Cap]], window: i64) -> (bool, bool) {
    // (time, digest, spelling, unstable)
    let mut timed: Vec<(i64, u32, usize, bool)> = Vec::new();
    let mut untimed: Vec<(u32, usize)> = Vec::new();
    for (s, caps) in spellings.iter().enumerate() {
        let mut t: Vec<(i64, u32)> = caps
            .iter()
            .filter_map(|c| c.time.map(|t| (t, c.digest)))
            .collect();
        t.sort_unstable();
        // In time order, the nearest capture with another digest is just
        // outside the run of equal digests.
        let n = t.len();
        let mut i = 0;
        while i < n {
            let mut e = i;
            while e < n && t[e].1 == t[i].1 {
                e += 1;
            }
            for k in i..e {
                let unstable = (i > 0 && t[k].0 - t[i - 1].0 <= window)
                    || (e < n && t[e].0 - t[k].0 <= window);
                timed.push((t[k].0, t[k].1, s, unstable));
            }
            i = e;
        }
        untimed.extend(
            caps.iter()
                .filter(|c| c.time.is_none())
                .map(|c| (c.digest, s)),
        );
    }
    let stable_digests: BTreeSet<u32> = timed
        .iter()
        .filter(|x| !x.3)
        .map(|x| x.1)
        .chain(untimed.iter().map(|x| x.0))
        .collect();
    // A contradiction needs two stable captures with different digests.
    let contra_possible = stable_digests.len() >= 2;
    let mut v = Verdict {
        agree: false,
        contra: false,
        contra_possible,
    };
    timed.sort_unstable_by_key(|x| x.0);
    'scan: for i in 0..timed.len() {
        for j in i + 1..timed.len() {
            if timed[j].0 - timed[i].0 > window {
                break;
            }
            let (a, b) = (timed[i], timed[j]);
            if v.pair((a.1, a.2, a.3), (b.1, b.2, b.3)) {
                break 'scan;
            }
        }
    }
    if !untimed.is_empty() && !v.contra {
        if timed.is_empty() {
            // Only untimed captures: every pair is compared.
            let mut spellings_of: HashMap<u32, BTreeSet<usize>> = HashMap::new();
            for &(d, s) in &untimed {
                spellings_of.entry(d).or_default().insert(s);
            }
            v.agree |= spellings_of.values().any(|s| s.len() >= 2);
            let spellings: BTreeSet<usize> = untimed.iter().map(|x| x.1).collect();
            v.contra = spellings.len() >= 2 && spellings_of.len() >= 2;
        } else {
            'mixed: for (i, &(d, s)) in untimed.iter().enumerate() {
                let others = untimed[i + 1..]
                    .iter()
                    .map(|&(d2, s2)| (d2, s2, false))
                    .chain(timed.iter().map(|x| (x.1, x.2, x.3)));
                for b in others {
                    if v.pair((d, s, false), b) {
                        break 'mixed;
                    }
                }
            }
        }
    }
    (v.agree, v.contra)
}

struct Verdict {
    agree: bool,
    contra: bool,
    /// Some stable captures differ: a contradiction may still be found.
    contra_possible: bool,
}

impl Verdict {
    /// Record the pair (digest, spelling, unstable) × …; `true` when the
    /// verdict can no longer change.
    fn pair(&mut self, a: (u32, usize, bool), b: (u32, usize, bool)) -> bool {
        if a.1 != b.1 {
            if a.0 == b.0 {
                self.agree = true;
            } else if !a.2 && !b.2 {
                self.contra = true;
            }
        }
        self.contra || (self.agree && !self.contra_possible)
    }
}

#[derive(Default)]
struct Tally {
    support: usize,
    contradictions: usize,
}

impl Tally {
    fn add(&mut self, (agree, contra): (bool, bool)) {
        if contra {
            self.contradictions += 1;
        } else if agree {
            self.support += 1;
        }
    }
}

struct Capture {
    origin: String,
    path: String,
    query: Option<String>,
    cap: Cap,
}

/// Learn content rules from captures (see the module documentation).
/// Records whose URL does not parse, or without an authority, are skipped.
pub fn learn(records: &[DigestRecord], opts: &DigestOptions) -> ContentRules {
    let min = opts.min_evidence.max(1);
    let mut digests: HashMap<&str, u32> = HashMap::new();
    let mut caps: Vec<Capture> = Vec::with_capacity(records.len());
    for r in records {
        let Ok(k) = key(r.url.trim(), Level::Scheme) else {
            continue;
        };
        let Ok(iri) = parse(&k) else { continue };
        let p = Parts::of(&iri);
        if !p.has_authority || !p.userinfo.is_empty() || !p.path.starts_with('/') {
            continue;
        }
        let n = digests.len() as u32;
        let digest = *digests.entry(r.digest.as_str()).or_insert(n);
        caps.push(Capture {
            origin: origin(&p),
            path: p.path.to_string(),
            query: p
                .query
                .as_deref()
                .filter(|q| !q.is_empty())
                .map(str::to_owned),
            cap: Cap {
                digest,
                time: r.timestamp.as_deref().and_then(timestamp_secs),
            },
        });
    }
    let mut tallies: BTreeMap<(String, ContentKind, String), Tally> = BTreeMap::new();
    let w = opts.window;

    // Parameters: group by (origin, name, path + other params); the
    // spelling is the parameter's own part (absent = "").
    {
        // (origin, path?query) → captures; used for "parameter absent".
        let mut exact: HashMap<(&str, String), Vec<Cap>> = HashMap::new();
        for c in &caps {
            let full = match &c.query {
                Some(q) => format!("{}?{q}", c.path),
                None => c.path.clone(),
            };
            exact.entry((&c.origin, full)).or_default().push(c.cap);
        }
        type Groups<'a> = BTreeMap<(&'a str, &'a str, String), BTreeMap<String, Vec<Cap>>>;
        let mut groups: Groups = BTreeMap::new();
        for c in &caps {
            let Some(q) = &c.query else { continue };
            let params: Vec<&str> = q.split('&').collect();
            let names: BTreeSet<&str> = params.iter().map(|kv| param_name(kv)).collect();
            for name in names {
                let (mine, rest): (Vec<&str>, Vec<&str>) =
                    params.iter().partition(|kv| param_name(kv) == name);
                let rest = if rest.is_empty() {
                    c.path.clone()
                } else {
                    format!("{}?{}", c.path, rest.join("&"))
                };
                groups
                    .entry((&c.origin, name, rest))
                    .or_default()
                    .entry(mine.join("&"))
                    .or_default()
                    .push(c.cap);
            }
        }
        for ((origin, name, rest), mut spellings) in groups {
            if let Some(absent) = exact.get(&(origin, rest.clone())) {
                spellings.insert(String::new(), absent.clone());
            }
            if spellings.len() < 2 {
                continue;
            }
            let s: Vec<&[Cap]> = spellings.values().map(Vec::as_slice).collect();
            tallies
                .entry((origin.to_owned(), ContentKind::IgnoreParam, name.to_owned()))
                .or_default()
                .add(compare_group(&s, w));
        }
    }

    // Path aliases: slash and index, between exact (path, query) groups.
    let mut by_page: HashMap<(&str, &str, Option<&str>), Vec<Cap>> = HashMap::new();
    for c in &caps {
        by_page
            .entry((&c.origin, &c.path, c.query.as_deref()))
            .or_default()
            .push(c.cap);
    }
    let mut pages: Vec<_> = by_page.keys().copied().collect();
    pages.sort();
    for &(origin, path, query) in &pages {
        let here = &by_page[&(origin, path, query)];
        if let Some(dir) = path.strip_suffix('/') {
            let seg = &dir[dir.rfind('/').map_or(0, |i| i + 1)..];
            if !seg.is_empty() {
                if let Some(other) = by_page.get(&(origin, dir, query)) {
                    let kind = segment_kind(seg);
                    tallies
                        .entry((origin.to_owned(), ContentKind::AliasSlash, kind.to_string()))
                        .or_default()
                        .add(compare_group(&[here, other], w));
                }
            }
        }
        for n in INDEX_NAMES {
            if let Some(dir) = path.strip_suffix(n).filter(|d| d.ends_with('/')) {
                if let Some(other) = by_page.get(&(origin, dir, query)) {
                    tallies
                        .entry((origin.to_owned(), ContentKind::AliasIndex, (*n).to_owned()))
                        .or_default()
                        .add(compare_group(&[here, other], w));
                }
            }
        }
    }
    // Case: group by lowercased path (same query).
    type BySpelling<'a> = BTreeMap<&'a str, &'a [Cap]>;
    let mut by_lower: BTreeMap<(&str, String, Option<&str>), BySpelling> = BTreeMap::new();
    for &(origin, path, query) in &pages {
        by_lower
            .entry((origin, lowercase_path(path), query))
            .or_default()
            .insert(path, by_page[&(origin, path, query)].as_slice());
    }
    for ((origin, _, _), spellings) in by_lower {
        if spellings.len() >= 2 {
            tallies
                .entry((
                    origin.to_owned(),
                    ContentKind::CaseInsensitivePath,
                    "*".into(),
                ))
                .or_default()
                .add(compare_group(
                    &spellings.into_values().collect::<Vec<_>>(),
                    w,
                ));
        }
    }

    let candidates = tallies
        .into_iter()
        .filter(|(_, t)| t.support >= min)
        .map(|((origin, kind, pattern), t)| ContentRule {
            origin,
            kind,
            pattern,
            support: t.support,
            contradictions: t.contradictions,
        })
        .collect();
    let mut rules = ContentRules::from_candidates(candidates);
    rules.records = records.len();
    rules.unusable = records.len() - caps.len();
    rules
}

#[cfg(test)]
mod tests;
