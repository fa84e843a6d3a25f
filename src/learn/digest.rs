//! Protocol-rung rules learned from content digests
//! (draft-ietf-iri-3987bis §5.3.4), and the learned-rules file.
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
use std::fmt;
use std::io::BufRead;

use super::{
    host_port, segment_kind, Change, Contradiction, Learned, LearnedRule, PathKind, MIN_EVIDENCE,
};
use crate::cdx::{CdxLayout, Format};
use crate::iri::parse;
use crate::ladder::protocol::{Parts, INDEX_NAMES};
use crate::ladder::{key, Level};

/// Default window: 2 days, in seconds — the captures of one crawl pass.
pub const DEFAULT_WINDOW: i64 = 2 * 86_400;

/// One capture: URL, content digest, optional 4–14 digit timestamp.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DigestRecord {
    pub url: String,
    pub digest: String,
    pub timestamp: Option<String>,
}

impl DigestRecord {
    pub fn new(url: impl Into<String>, digest: impl Into<String>, ts: Option<&str>) -> Self {
        DigestRecord {
            url: url.into(),
            digest: digest.into(),
            timestamp: ts.map(str::to_owned),
        }
    }
}

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

/// What a content rule does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ContentKind {
    IgnoreParam,
    AliasSlash,
    AliasIndex,
    CaseInsensitivePath,
}

impl ContentKind {
    pub const ALL: [ContentKind; 4] = [
        ContentKind::IgnoreParam,
        ContentKind::AliasSlash,
        ContentKind::AliasIndex,
        ContentKind::CaseInsensitivePath,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ContentKind::IgnoreParam => "ignore-param",
            ContentKind::AliasSlash => "alias-slash",
            ContentKind::AliasIndex => "alias-index",
            ContentKind::CaseInsensitivePath => "case-insensitive-path",
        }
    }

    /// One line for `irinorm rules`.
    pub fn description(self) -> &'static str {
        match self {
            ContentKind::IgnoreParam => {
                "query parameter PATTERN never changed the digest on this origin; dropped"
            }
            ContentKind::AliasSlash => {
                "/d/ and /d returned the same content (PATTERN: last segment with or without a '.'); the slash is dropped"
            }
            ContentKind::AliasIndex => "/d/PATTERN and /d/ returned the same content; PATTERN is dropped",
            ContentKind::CaseInsensitivePath => {
                "paths differing only in ASCII case returned the same content; the path is lowercased (not %XX)"
            }
        }
    }

    fn from_name(s: &str) -> Option<ContentKind> {
        ContentKind::ALL.into_iter().find(|k| k.name() == s)
    }
}

impl fmt::Display for ContentKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A candidate rule with its evidence.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ContentRule {
    /// `scheme://host[:port]` as in the scheme-rung key.
    pub origin: String,
    pub kind: ContentKind,
    /// Parameter name, `no-extension`/`extension`, index name, or `*`.
    pub pattern: String,
    pub support: usize,
    pub contradictions: usize,
}

impl ContentRule {
    pub fn is_active(&self) -> bool {
        self.contradictions == 0
    }
}

#[derive(Debug, Clone, Default)]
struct OriginRules {
    params: BTreeSet<String>,
    slash: Vec<PathKind>,
    index: Vec<&'static str>,
    case: bool,
}

/// Rules learned from digests: every candidate, and the active ones indexed
/// by origin for application.
#[derive(Debug, Clone, Default)]
pub struct ContentRules {
    candidates: Vec<ContentRule>,
    by_origin: HashMap<String, OriginRules>,
    /// Records given to [`learn`], and those of them that were no evidence
    /// (URL not a valid reference, no authority, or user info).
    records: usize,
    unusable: usize,
}

impl ContentRules {
    /// Build from candidates; only those without contradictions (and with a
    /// valid pattern) are applied.
    pub fn from_candidates(mut candidates: Vec<ContentRule>) -> Self {
        candidates.sort();
        let mut by_origin: HashMap<String, OriginRules> = HashMap::new();
        for c in candidates.iter().filter(|c| c.is_active()) {
            let o = by_origin.entry(c.origin.clone()).or_default();
            match c.kind {
                ContentKind::IgnoreParam => {
                    o.params.insert(c.pattern.clone());
                }
                ContentKind::AliasSlash => o.slash.extend(path_kind(&c.pattern)),
                ContentKind::AliasIndex => o
                    .index
                    .extend(INDEX_NAMES.iter().find(|n| **n == c.pattern)),
                ContentKind::CaseInsensitivePath => o.case = true,
            }
        }
        ContentRules {
            candidates,
            by_origin,
            records: 0,
            unusable: 0,
        }
    }

    /// (records given to [`learn`], records that were no evidence).
    pub fn record_counts(&self) -> (usize, usize) {
        (self.records, self.unusable)
    }

    /// Every candidate, active or contradicted, sorted.
    pub fn candidates(&self) -> &[ContentRule] {
        &self.candidates
    }

    /// The candidates that are applied.
    pub fn active(&self) -> impl Iterator<Item = &ContentRule> {
        self.candidates.iter().filter(|c| c.is_active())
    }

    pub fn is_empty(&self) -> bool {
        self.by_origin.is_empty()
    }

    /// Apply to the parts of a scheme-rung key; `true` if changed. Only the
    /// query and the path below its first `/` change; the scheme, authority
    /// and the path's leading `/` are never touched.
    pub(crate) fn apply(&self, p: &mut Parts<'_>) -> bool {
        if self.by_origin.is_empty() || !p.has_authority || !p.userinfo.is_empty() {
            return false;
        }
        let Some(o) = self.by_origin.get(&origin(p)) else {
            return false;
        };
        let mut changed = false;
        if !o.params.is_empty() {
            if let Some(q) = &p.query {
                let kept: Vec<&str> = q
                    .split('&')
                    .filter(|kv| !o.params.contains(param_name(kv)))
                    .collect();
                if kept.len() != q.split('&').count() {
                    p.query = (!kept.is_empty()).then(|| kept.join("&").into());
                    changed = true;
                }
            }
        }
        if !p.path.starts_with('/') {
            return changed;
        }
        if o.case {
            let lower = lowercase_path(&p.path);
            if lower != *p.path {
                p.path = lower.into();
                changed = true;
            }
        }
        for n in &o.index {
            if let Some(dir) = p.path.strip_suffix(n) {
                if dir.ends_with('/') {
                    p.path = dir.to_owned().into();
                    changed = true;
                    break;
                }
            }
        }
        if let Some(dir) = p.path.strip_suffix('/') {
            let seg = &dir[dir.rfind('/').map_or(0, |i| i + 1)..];
            if !seg.is_empty() && o.slash.contains(&segment_kind(seg)) {
                p.path = dir.to_owned().into();
                changed = true;
            }
        }
        changed
    }
}

fn path_kind(s: &str) -> Option<PathKind> {
    match s {
        "no-extension" => Some(PathKind::NoExtension),
        "extension" => Some(PathKind::Extension),
        "any" => Some(PathKind::Any),
        _ => INDEX_NAMES
            .iter()
            .find(|n| s.strip_prefix("index:") == Some(**n))
            .map(|n| PathKind::Index(n)),
    }
}

fn param_name(kv: &str) -> &str {
    kv.split_once('=').map_or(kv, |(k, _)| k)
}

/// ASCII-lowercase a path, leaving `%XX` escapes (uppercase in keys) alone.
fn lowercase_path(path: &str) -> String {
    let b = path.as_bytes();
    let mut out = String::with_capacity(path.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            out.push_str(&path[i..i + 3]);
            i += 3;
            continue;
        }
        let c = path[i..].chars().next().unwrap_or('\u{FFFD}');
        out.push(c.to_ascii_lowercase());
        i += c.len_utf8().max(1);
    }
    out
}

fn origin(p: &Parts<'_>) -> String {
    format!("{}://{}", p.scheme, host_port(p))
}

/// Seconds since 1970 of a 4–14 digit `YYYYMMDDhhmmss` prefix (missing
/// parts are the start of the period).
pub fn timestamp_secs(ts: &str) -> Option<i64> {
    if !(4..=14).contains(&ts.len()) || !ts.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut full = ts.to_owned();
    full.push_str(&"00000101000000"[ts.len()..]);
    let n = |a: usize, b: usize| full[a..b].parse::<i64>().ok();
    let (y, m, d) = (n(0, 4)?, n(4, 6)?, n(6, 8)?);
    let (hh, mm, ss) = (n(8, 10)?, n(10, 12)?, n(12, 14)?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) || hh > 23 || mm > 59 || ss > 60 {
        return None;
    }
    // Days from civil (proleptic Gregorian).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + hh * 3600 + mm * 60 + ss)
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

/// Input layouts for [`read_records`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DigestFormat {
    Cdx,
    Cdxj,
    /// `url,digest[,timestamp]`; a first row starting `url` is a header.
    Csv,
    /// As CSV, tab-separated.
    Tsv,
}

impl DigestFormat {
    /// From a file name's extension (`.cdx`, `.cdxj`, `.csv`, `.tsv`,
    /// optionally followed by `.gz`/`.zst`).
    pub fn from_path(path: &str) -> Option<DigestFormat> {
        let p = path.to_ascii_lowercase();
        let p = p
            .strip_suffix(".gz")
            .or_else(|| p.strip_suffix(".zst"))
            .unwrap_or(&p);
        let ext = p.rsplit_once('.')?.1;
        DigestFormat::from_name(ext)
    }

    pub fn from_name(s: &str) -> Option<DigestFormat> {
        match s {
            "cdx" => Some(DigestFormat::Cdx),
            "cdxj" => Some(DigestFormat::Cdxj),
            "csv" => Some(DigestFormat::Csv),
            "tsv" => Some(DigestFormat::Tsv),
            _ => None,
        }
    }
}

/// Records read, lines rejected (1-based line number, reason), and
/// well-formed captures that are no content evidence.
#[derive(Debug, Default)]
pub struct ReadResult {
    pub records: Vec<DigestRecord>,
    pub rejected: Vec<(usize, String)>,
    /// CDX/CDXJ captures whose HTTP status is not 200 (redirects, errors,
    /// `204`, `206`): their digest is that of a redirect body or an error
    /// page shared by unrelated URLs, so they would support false rules.
    /// Revisit records without a status are kept.
    pub not_200: usize,
    /// `(from, to)` of the 3xx captures that name their target (CDX `r`,
    /// CDXJ `redirect`), the target resolved against the URL: evidence for
    /// [`Learned::from_pairs`].
    pub redirects: Vec<(String, String)>,
}

/// Read (URL, digest, timestamp) records. A line without a digest is
/// rejected with a reason, as is any malformed line; only I/O fails.
/// CSV/TSV fields may be quoted (`"http://a/?x=1,2"`); a first row whose
/// first field is `url` is a header.
pub fn read_records<R: BufRead>(r: R, format: DigestFormat) -> std::io::Result<ReadResult> {
    match format {
        DigestFormat::Cdx => read_index(r, CdxLayout::new(Format::Cdx)),
        DigestFormat::Cdxj => read_index(r, CdxLayout::new(Format::Cdxj)),
        DigestFormat::Csv => read_delimited(r, b','),
        DigestFormat::Tsv => read_delimited(r, b'\t'),
    }
}

fn read_index<R: BufRead>(r: R, mut layout: CdxLayout) -> std::io::Result<ReadResult> {
    let mut out = ReadResult::default();
    for (i, line) in r.split(b'\n').enumerate() {
        let line = line?;
        let line = String::from_utf8_lossy(&line);
        let line = line.strip_suffix('\r').unwrap_or(&line);
        let line = if i == 0 {
            line.strip_prefix('\u{FEFF}').unwrap_or(line)
        } else {
            line
        };
        if line.trim().is_empty() {
            continue;
        }
        match layout.header(line) {
            Ok(true) => continue,
            Ok(false) => {}
            Err(e) => {
                out.rejected.push((i + 1, e));
                continue;
            }
        }
        match layout.record(line) {
            Ok(rec) if rec.status.as_deref().is_some_and(|s| s != "200") => {
                out.not_200 += 1;
                if let (Some(s), Some(to)) = (rec.status.as_deref(), rec.redirect.as_deref()) {
                    if s.starts_with('3') {
                        if let Some(to) = redirect_target(&rec.url, to) {
                            out.redirects.push((rec.url.into_owned(), to));
                        }
                    }
                }
            }
            Ok(rec) => match rec.digest {
                Some(d) => out.records.push(DigestRecord {
                    url: rec.url.into_owned(),
                    digest: d.into_owned(),
                    timestamp: rec.timestamp.map(|t| t.into_owned()),
                }),
                None => out.rejected.push((i + 1, "no digest".into())),
            },
            Err(e) => out.rejected.push((i + 1, e)),
        }
    }
    Ok(out)
}

/// A redirect's target resolved against the URL it came from.
fn redirect_target(from: &str, to: &str) -> Option<String> {
    let base = parse(from.trim()).ok()?;
    let r = parse(to.trim()).ok()?;
    base.scheme()?;
    Some(crate::resolve::resolve(&base, &r))
}

fn read_delimited<R: BufRead>(r: R, sep: u8) -> std::io::Result<ReadResult> {
    let mut out = ReadResult::default();
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(sep)
        .from_reader(r);
    let sep_name = if sep == b'\t' { "TAB" } else { "," };
    let mut rec = csv::ByteRecord::new();
    let mut first = true;
    loop {
        match rdr.read_byte_record(&mut rec) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => match e.into_kind() {
                csv::ErrorKind::Io(e) => return Err(e),
                other => {
                    // Not reached with flexible byte records; kept so that
                    // a future csv error is a rejected line, not a panic.
                    let line = rdr.position().line() as usize;
                    out.rejected.push((line, format!("{other:?}")));
                    continue;
                }
            },
        }
        let line = rec.position().map_or(0, |p| p.line() as usize);
        let mut f: Vec<String> = rec
            .iter()
            .map(|b| String::from_utf8_lossy(b).trim().to_owned())
            .collect();
        let is_first = std::mem::replace(&mut first, false);
        if is_first {
            if let Some(u) = f.first_mut() {
                *u = u.trim_start_matches('\u{FEFF}').to_owned();
                if u.eq_ignore_ascii_case("url") {
                    continue;
                }
            }
        }
        let f: Vec<&str> = f.iter().map(String::as_str).collect();
        if f.iter().all(|x| x.is_empty()) {
            continue;
        }
        let got = match f.as_slice() {
            [u, d] | [u, d, ""] if !u.is_empty() && !d.is_empty() => {
                Ok(DigestRecord::new(*u, *d, None))
            }
            [u, d, t] if !u.is_empty() && !d.is_empty() => {
                if timestamp_secs(t).is_some() {
                    Ok(DigestRecord::new(*u, *d, Some(t)))
                } else {
                    Err(format!(
                        "timestamp {:?} is not 4 to 14 digits",
                        t.escape_debug().to_string()
                    ))
                }
            }
            _ => Err(format!(
                "want url{sep_name}digest[{sep_name}timestamp], got {} field(s)",
                f.len()
            )),
        };
        match got {
            Ok(r) => out.records.push(r),
            Err(e) => out.rejected.push((line, e)),
        }
    }
    Ok(out)
}

/// Every kind of row in the rules file, for `irinorm rules`:
/// (source, kind, pattern column, what applying it does).
pub fn rule_kinds() -> Vec<(&'static str, &'static str, &'static str, &'static str)> {
    let mut v = vec![
        (
            "redirects",
            "slash-added",
            "no-extension|extension",
            "/d redirected to /d/: the slash is added",
        ),
        (
            "redirects",
            "slash-removed",
            "no-extension|extension",
            "/d/ redirected to /d: the slash is removed",
        ),
        (
            "redirects",
            "www-added",
            "any",
            "h redirected to www.h: www. is added",
        ),
        (
            "redirects",
            "www-removed",
            "any",
            "www.h redirected to h: www. is removed",
        ),
        (
            "redirects",
            "https-upgrade",
            "any",
            "http: redirected to https: (no port): the scheme becomes https",
        ),
        (
            "redirects",
            "index-added",
            "index:NAME",
            "/d/ redirected to /d/NAME: NAME is added",
        ),
        (
            "redirects",
            "index-removed",
            "index:NAME",
            "/d/NAME redirected to /d/: NAME is removed",
        ),
    ];
    for k in ContentKind::ALL {
        let pattern = match k {
            ContentKind::IgnoreParam => "NAME",
            ContentKind::AliasSlash => "no-extension|extension",
            ContentKind::AliasIndex => "NAME",
            ContentKind::CaseInsensitivePath => "*",
        };
        v.push(("digests", k.name(), pattern, k.description()));
    }
    v
}

/// Header of the rules file.
pub const RULES_HEADER: &str = "#host\tkind\tpattern\tsupport\tcontradictions";

impl Learned {
    /// Add rules learned from digests (replacing earlier ones).
    pub fn with_content(mut self, content: ContentRules) -> Learned {
        self.content = content;
        self
    }

    /// The rules learned from digests.
    pub fn content(&self) -> &ContentRules {
        &self.content
    }

    /// The rules file: one TSV row per rule — redirect rules
    /// (`host[:port]`, change, path kind, support, 0), then the redirect
    /// observations set aside as contradicted (same columns; contradictions
    /// = the other observations of that host and family, or 1 for a rule
    /// dropped because it conflicts with another learned rule), then every
    /// content candidate (`scheme://host[:port]`, kind, pattern, support,
    /// contradictions). Rows with contradictions are never applied.
    pub fn to_tsv(&self) -> String {
        let mut out = String::from(RULES_HEADER);
        out.push('\n');
        for r in self.rules() {
            out.push_str(&format!(
                "{}\t{}\t{}\t{}\t0\n",
                r.host, r.change, r.path_kind, r.support
            ));
        }
        for c in &self.contradictions {
            let total: usize = c.observations.iter().map(|o| o.2).sum();
            for &(change, kind, n) in &c.observations {
                out.push_str(&format!(
                    "{}\t{change}\t{kind}\t{n}\t{}\n",
                    c.host,
                    (total - n).max(1)
                ));
            }
        }
        for c in self.content.candidates() {
            out.push_str(&format!(
                "{}\t{}\t{}\t{}\t{}\n",
                c.origin, c.kind, c.pattern, c.support, c.contradictions
            ));
        }
        out
    }

    /// Read a rules file written by [`Learned::to_tsv`]. Lines starting
    /// with `#` and blank lines are skipped; anything else malformed is an
    /// error naming the line.
    pub fn from_tsv(text: &str) -> Result<Learned, String> {
        let mut learned = Learned::default();
        let mut content = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let bad = |why: &str| {
                format!(
                    "rules file line {}: {why}: {:?}",
                    i + 1,
                    line.escape_debug().to_string()
                )
            };
            let f: Vec<&str> = line.split('\t').collect();
            let [host, kind, pattern, support, contra] = f.as_slice() else {
                return Err(bad("want 5 tab-separated fields"));
            };
            let support: usize = support
                .parse()
                .map_err(|_| bad("support is not a number"))?;
            let contradictions: usize = contra
                .parse()
                .map_err(|_| bad("contradictions is not a number"))?;
            if let Some(kind) = ContentKind::from_name(kind) {
                let ok = match kind {
                    ContentKind::IgnoreParam => !pattern.is_empty() && !pattern.contains('&'),
                    ContentKind::AliasSlash => {
                        matches!(*pattern, "no-extension" | "extension")
                    }
                    ContentKind::AliasIndex => INDEX_NAMES.contains(pattern),
                    ContentKind::CaseInsensitivePath => *pattern == "*",
                };
                if !ok || !host.contains("://") {
                    return Err(bad("bad origin or pattern for this kind"));
                }
                content.push(ContentRule {
                    origin: (*host).to_owned(),
                    kind,
                    pattern: (*pattern).to_owned(),
                    support,
                    contradictions,
                });
            } else {
                let change = Change::from_name(kind).ok_or_else(|| bad("unknown rule kind"))?;
                let path_kind = path_kind(pattern).ok_or_else(|| bad("unknown path kind"))?;
                if change == Change::Other {
                    return Err(bad("'other' is not a rule"));
                }
                if contradictions > 0 {
                    // Rows of one host and family form one contradiction.
                    let obs = (change, path_kind, support);
                    match learned.contradictions.last_mut() {
                        Some(c)
                            if c.host == *host
                                && c.observations[0].0.family() == change.family() =>
                        {
                            c.observations.push(obs)
                        }
                        _ => learned.contradictions.push(Contradiction {
                            host: (*host).to_owned(),
                            observations: vec![obs],
                        }),
                    }
                    continue;
                }
                if change == Change::HttpsDowngrade {
                    return Err(bad(
                        "https-downgrade is never applied; it can only contradict",
                    ));
                }
                learned
                    .by_host
                    .entry((*host).to_owned())
                    .or_default()
                    .push(LearnedRule {
                        host: (*host).to_owned(),
                        change,
                        path_kind,
                        support,
                    });
            }
        }
        learned.content = ContentRules::from_candidates(content);
        Ok(learned)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ladder::protocol::{ProtocolRules, Rules};
    use crate::ladder::{Normalizer, Options};
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

    /// Hand-written crawl: `s` never changes content on three pages; `id`
    /// selects content; `/About` etc. are case aliases.
    fn crawl() -> Vec<DigestRecord> {
        let mut v = Vec::new();
        for (i, page) in ["/a", "/b", "/c"].iter().enumerate() {
            let d = format!("P{i}");
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
        assert_eq!(rules.record_counts(), (15, 0));
        let active: Vec<_> = rules
            .active()
            .map(|r| (r.kind, r.pattern.as_str(), r.support))
            .collect();
        assert_eq!(active, [(ContentKind::IgnoreParam, "s", 3)]);
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
        let recs: Vec<_> = crawl()
            .into_iter()
            .filter(|r| !r.url.contains("/c"))
            .collect();
        assert_eq!(learn(&recs, &DigestOptions::default()).active().count(), 0);
        let o = DigestOptions {
            min_evidence: 2,
            ..DigestOptions::default()
        };
        assert_eq!(learn(&recs, &o).active().count(), 1);
    }

    #[test]
    fn contradiction_blocks_and_window_is_honoured() {
        let mut recs = crawl();
        // Page /d: s=1 and s=2 a day apart with different content.
        recs.push(rec("http://h.example/d?s=1", "X", "20200101000000"));
        recs.push(rec("http://h.example/d?s=2", "Y", "20200102000000"));
        let rules = learn(&recs, &DigestOptions::default());
        assert_eq!(rules.active().count(), 0);
        let s = rules
            .candidates()
            .iter()
            .find(|c| c.pattern == "s")
            .unwrap();
        assert_eq!((s.support, s.contradictions), (3, 1));
        // The same disagreement a year apart is not evidence.
        let mut recs = crawl();
        recs.push(rec("http://h.example/d?s=1", "X", "20190101000000"));
        recs.push(rec("http://h.example/d?s=2", "Y", "20200102000000"));
        assert_eq!(learn(&recs, &DigestOptions::default()).active().count(), 1);
        // ... unless the window is widened.
        let o = DigestOptions {
            window: 400 * 86_400,
            ..DigestOptions::default()
        };
        assert_eq!(learn(&recs, &o).active().count(), 0);
        // A URL that itself changed within the window explains the
        // difference: drift, not a contradiction.
        let mut recs = crawl();
        recs.push(rec("http://h.example/d?s=1", "X", "20200101000000"));
        recs.push(rec("http://h.example/d?s=1", "Z", "20200101120000"));
        recs.push(rec("http://h.example/d?s=2", "Y", "20200102000000"));
        assert_eq!(learn(&recs, &DigestOptions::default()).active().count(), 1);
        // Without timestamps, every pair is within the window.
        let mut recs = crawl();
        recs.push(rec("http://h.example/d?s=1", "X", ""));
        recs.push(rec("http://h.example/d?s=2", "Y", "20300101000000"));
        assert_eq!(learn(&recs, &DigestOptions::default()).active().count(), 0);
    }

    #[test]
    fn path_aliases() {
        let mut v = Vec::new();
        for (i, d) in ["x", "y", "z"].iter().enumerate() {
            let dg = format!("D{i}");
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
        assert_eq!(l.content().record_counts(), (19, 2));
        let tsv = l.to_tsv();
        assert!(tsv.starts_with(RULES_HEADER));
        assert!(
            tsv.contains("r.example\tslash-added\tno-extension\t3\t0\n"),
            "{tsv}"
        );
        assert!(
            tsv.contains("http://h.example\tignore-param\ts\t4\t0\n"),
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
        assert_eq!(l.to_tsv(), format!("{RULES_HEADER}\n{t}"));
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
    fn reading_records() {
        let cdx = " CDX N b a m s k r M S V g\n\
                   com,h)/ 20200101000000 http://h.com/ text/html 200 AAA - - 1 2 f\n\
                   com,h)/ 20200101000000 http://h.com/ text/html 200 - - - 1 2 f\n\
                   garbage\n";
        let r = read_records(cdx.as_bytes(), DigestFormat::Cdx).unwrap();
        assert_eq!(r.records, [rec("http://h.com/", "AAA", "20200101000000")]);
        assert_eq!(r.rejected.len(), 2);
        assert_eq!(r.rejected[0], (3, "no digest".to_owned()));
        let csv = "url,digest,timestamp\nhttp://a/,D,2020\nhttp://b/,E\nhttp://c/,F,x\nhttp://d/\n";
        let r = read_records(csv.as_bytes(), DigestFormat::Csv).unwrap();
        assert_eq!(
            r.records,
            [rec("http://a/", "D", "2020"), rec("http://b/", "E", "")]
        );
        assert_eq!(r.rejected.iter().map(|x| x.0).collect::<Vec<_>>(), [4, 5]);
        // Quoted fields keep their commas; a BOM before the header is not
        // part of it.
        let csv = "\u{FEFF}url,digest\n\"http://a/?x=1,2\",D\n\"http://b/?\"\"q\"\"\",E,\n";
        let r = read_records(csv.as_bytes(), DigestFormat::Csv).unwrap();
        assert_eq!(
            r.records,
            [
                rec("http://a/?x=1,2", "D", ""),
                rec("http://b/?\"q\"", "E", "")
            ]
        );
        assert!(r.rejected.is_empty(), "{:?}", r.rejected);
        let tsv = "http://a/\tD\nhttp://b/,E\n";
        let r = read_records(tsv.as_bytes(), DigestFormat::Tsv).unwrap();
        assert_eq!(r.records.len(), 1);
        assert_eq!(
            r.rejected,
            [(
                2,
                "want urlTABdigest[TABtimestamp], got 1 field(s)".to_owned()
            )]
        );
        // Only status 200 (or no status) is content evidence: redirects and
        // error pages share digests across unrelated URLs.
        let cdxj = r#"h)/a 2020 {"url": "http://h/a?id=1", "digest": "EMPTY", "status": "302"}
h)/a 2020 {"url": "http://h/a?id=2", "digest": "EMPTY", "status": "404"}
h)/a 2020 {"url": "http://h/a?id=3", "digest": "A", "status": "200"}
h)/a 2020 {"url": "http://h/a?id=4", "digest": "A", "mime": "warc/revisit"}
"#;
        let r = read_records(cdxj.as_bytes(), DigestFormat::Cdxj).unwrap();
        assert_eq!(r.records.len(), 2);
        assert_eq!(r.not_200, 2);
        assert!(r.rejected.is_empty());
        assert!(r.redirects.is_empty());
        // 3xx records naming their target are redirect evidence.
        let cdx = "h)/a 2020 http://h/a text/html 301 D /a/ - 1 2 f\n\
                   h)/b 2020 http://h/b text/html 302 D https://h/b - 1 2 f\n\
                   h)/c 2020 http://h/c text/html 301 D - - 1 2 f\n\
                   h)/d 2020 http://h/d text/html 404 D /x - 1 2 f\n";
        let r = read_records(cdx.as_bytes(), DigestFormat::Cdx).unwrap();
        assert_eq!(r.not_200, 4);
        assert_eq!(
            r.redirects,
            [
                ("http://h/a".to_owned(), "http://h/a/".to_owned()),
                ("http://h/b".to_owned(), "https://h/b".to_owned())
            ]
        );
        assert_eq!(
            DigestFormat::from_path("x/crawl.CDXJ.gz"),
            Some(DigestFormat::Cdxj)
        );
        assert_eq!(DigestFormat::from_path("crawl.txt"), None);
    }

    #[test]
    fn every_kind_is_documented_and_readable() {
        let kinds = rule_kinds();
        assert_eq!(kinds.len(), 7 + ContentKind::ALL.len());
        for (_, kind, _, what) in kinds {
            assert!(!what.is_empty());
            assert!(
                ContentKind::from_name(kind).is_some() || Change::from_name(kind).is_some(),
                "{kind}"
            );
        }
    }

    /// The definition, pair by pair (quadratic): the oracle of
    /// `compare_group`.
    fn naive(spellings: &[&[Cap]], w: i64) -> (bool, bool) {
        let near = |a: Option<i64>, b: Option<i64>| match (a, b) {
            (Some(x), Some(y)) => (x - y).abs() <= w,
            _ => true,
        };
        let unstable = |x: Cap, own: &[Cap]| {
            own.iter().any(|z| {
                z.digest != x.digest
                    && matches!((x.time, z.time), (Some(a), Some(b)) if (a - b).abs() <= w)
            })
        };
        let (mut agree, mut contra) = (false, false);
        for (i, a) in spellings.iter().enumerate() {
            for b in &spellings[i + 1..] {
                for &x in *a {
                    for &y in *b {
                        if !near(x.time, y.time) {
                            continue;
                        }
                        if x.digest == y.digest {
                            agree = true;
                        } else if !unstable(x, a) && !unstable(y, b) {
                            contra = true;
                        }
                    }
                }
            }
        }
        (agree, contra)
    }

    proptest::proptest! {
        #[test]
        fn compare_group_matches_the_definition(
            groups in proptest::collection::vec(
                proptest::collection::vec((0u32..3, proptest::option::of(0i64..10)), 1..6),
                1..4,
            ),
            w in 0i64..4,
        ) {
            let caps: Vec<Vec<Cap>> = groups
                .iter()
                .map(|g| g.iter().map(|&(digest, time)| Cap { digest, time }).collect())
                .collect();
            let slices: Vec<&[Cap]> = caps.iter().map(Vec::as_slice).collect();
            let fast = compare_group(&slices, w);
            let slow = naive(&slices, w);
            // With a contradiction the agreement flag may be left unset
            // (early exit); the verdict (Tally::add) is the same.
            proptest::prop_assert_eq!(fast.1, slow.1);
            if !slow.1 {
                proptest::prop_assert_eq!(fast.0, slow.0);
            }
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
    fn timestamps() {
        assert_eq!(timestamp_secs("19700101000000"), Some(0));
        assert_eq!(timestamp_secs("1970"), Some(0));
        assert_eq!(timestamp_secs("20000301"), Some(951_868_800));
        assert_eq!(timestamp_secs("2000130100"), None);
        assert_eq!(timestamp_secs("abc"), None);
    }
}
