//! The learned rules the protocol rung applies (draft-ietf-iri-3987bis
//! §5.3.4): a compiled rule set ([`Learned`]: per-host redirect rules and
//! per-origin content rules), how it rewrites a key's parts, and its file
//! format (the rules TSV that `irinorm learn -o` writes and `--learned`
//! reads).
//!
//! The rules are *produced* in [`crate::learn`] (from redirect logs and
//! from content digests); this module only holds and applies them, so the
//! ladder never depends on the learner.
//!
//! A redirect rule (a [`Change`] for a host and a [`PathKind`]) maps both
//! spellings to the redirect target's spelling. A content rule
//! ([`ContentKind`] for an origin) removes what never changed the content.
//! Candidates with contradictions are kept in the file so a reader can see
//! why, and never applied.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;

use super::parts::{Parts, INDEX_NAMES};
use crate::iri::HostKind;

/// How a redirect's target differs from its source (scheme-rung keys).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Change {
    /// `/data` → `/data/`
    SlashAdded,
    /// `/data/` → `/data`
    SlashRemoved,
    /// `h.example` → `www.h.example`
    WwwAdded,
    /// `www.h.example` → `h.example`
    WwwRemoved,
    /// `http:` → `https:`, everything else equal (no explicit port).
    HttpsUpgrade,
    /// `https:` → `http:`; never learned, only contradicts an upgrade.
    HttpsDowngrade,
    /// `/d/` → `/d/index.html`
    IndexAdded,
    /// `/d/index.html` → `/d/`
    IndexRemoved,
    /// Anything else (several differences, no difference, unparsable).
    Other,
}

impl Change {
    pub fn name(self) -> &'static str {
        match self {
            Change::SlashAdded => "slash-added",
            Change::SlashRemoved => "slash-removed",
            Change::WwwAdded => "www-added",
            Change::WwwRemoved => "www-removed",
            Change::HttpsUpgrade => "https-upgrade",
            Change::HttpsDowngrade => "https-downgrade",
            Change::IndexAdded => "index-added",
            Change::IndexRemoved => "index-removed",
            Change::Other => "other",
        }
    }

    /// Changes of one family contradict each other.
    pub(crate) fn family(self) -> u8 {
        match self {
            Change::SlashAdded | Change::SlashRemoved => 0,
            Change::WwwAdded | Change::WwwRemoved => 1,
            Change::HttpsUpgrade | Change::HttpsDowngrade => 2,
            Change::IndexAdded | Change::IndexRemoved => 3,
            Change::Other => 4,
        }
    }
}

impl Change {
    /// The change of a [`Change::name`].
    pub fn from_name(s: &str) -> Option<Change> {
        [
            Change::SlashAdded,
            Change::SlashRemoved,
            Change::WwwAdded,
            Change::WwwRemoved,
            Change::HttpsUpgrade,
            Change::HttpsDowngrade,
            Change::IndexAdded,
            Change::IndexRemoved,
            Change::Other,
        ]
        .into_iter()
        .find(|c| c.name() == s)
    }
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which paths a learned rule covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PathKind {
    /// Every path (host and scheme rules).
    Any,
    /// Last segment (before a trailing slash, for slash-removed) has no `.`.
    NoExtension,
    /// Last segment has a `.`.
    Extension,
    /// The directory index of this name (one of [`INDEX_NAMES`]).
    Index(&'static str),
}

impl fmt::Display for PathKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PathKind::Any => f.write_str("any"),
            PathKind::NoExtension => f.write_str("no-extension"),
            PathKind::Extension => f.write_str("extension"),
            PathKind::Index(n) => write!(f, "index:{n}"),
        }
    }
}

/// One learned rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LearnedRule {
    /// Host (and `:port` if any) as in the scheme-rung key.
    pub host: String,
    pub change: Change,
    pub path_kind: PathKind,
    /// Agreeing observations.
    pub support: usize,
}

/// A host whose observations disagree, with every observation of the family.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contradiction {
    pub host: String,
    pub observations: Vec<(Change, PathKind, usize)>,
}

/// A compiled set of learned rules (from redirects and from content
/// digests); apply with
/// [`ProtocolRules::new`](crate::ladder::protocol::ProtocolRules::new), learn
/// with [`crate::learn`].
#[derive(Debug, Clone, Default)]
pub struct Learned {
    pub(crate) by_host: HashMap<String, Vec<LearnedRule>>,
    pub(crate) contradictions: Vec<Contradiction>,
    pub(crate) counts: BTreeMap<Change, usize>,
    pub(crate) rows: usize,
    /// Rules learned from content digests.
    pub(crate) content: ContentRules,
}

pub(crate) fn segment_kind(seg: &str) -> PathKind {
    if seg.contains('.') {
        PathKind::Extension
    } else {
        PathKind::NoExtension
    }
}

pub(crate) fn host_port(p: &Parts<'_>) -> String {
    format!("{}{}", p.host, p.port)
}

impl Learned {
    /// The learned rules, sorted by host.
    pub fn rules(&self) -> impl Iterator<Item = LearnedRule> + '_ {
        let mut hosts: Vec<&String> = self.by_host.keys().collect();
        hosts.sort();
        hosts
            .into_iter()
            .flat_map(move |h| self.by_host[h].iter().cloned())
    }

    /// Hosts set aside because their observations disagree.
    pub fn contradictions(&self) -> &[Contradiction] {
        &self.contradictions
    }

    /// Observations per change (including [`Change::Other`]).
    pub fn counts(&self) -> &BTreeMap<Change, usize> {
        &self.counts
    }

    /// Redirect pairs read.
    pub fn rows(&self) -> usize {
        self.rows
    }

    fn find(&self, host: &str, change: Change) -> Option<&LearnedRule> {
        self.by_host.get(host)?.iter().find(|r| r.change == change)
    }

    fn find_kind(&self, host: &str, change: Change, kind: PathKind) -> bool {
        self.by_host
            .get(host)
            .is_some_and(|v| v.iter().any(|r| r.change == change && r.path_kind == kind))
    }

    /// Apply the learned rules to the parts of a key; `true` if changed.
    /// Order: scheme (https), host (`www.`), then the path rules of the
    /// resulting host: removals (index, slash, and the origin's content
    /// aliases) until none applies, then additions (slash, index). The
    /// result is a fixed point: keying a key again leaves it as it is.
    pub(crate) fn apply(&self, p: &mut Parts<'_>) -> bool {
        if !p.has_authority {
            return false;
        }
        // Content rules first: they are keyed by the key's own origin.
        let mut changed = self.content.apply(p);
        if self.by_host.is_empty() {
            return changed;
        }
        let scheme_host = (p.scheme.len(), p.host.len());
        let upgrade = |p: &mut Parts<'_>| {
            let up = p.scheme == "http"
                && p.port.is_empty()
                && self.find(&host_port(p), Change::HttpsUpgrade).is_some();
            if up {
                p.scheme = "https".into();
            }
            up
        };
        changed |= upgrade(p);
        if p.host_kind == Some(HostKind::RegName) {
            // An empty host has no `www.` twin.
            if !p.host.is_empty()
                && !p.host.starts_with("www.")
                && self.find(&host_port(p), Change::WwwAdded).is_some()
            {
                p.host = format!("www.{}", p.host).into();
                changed = true;
            }
            // `www.` removal may chain (www.www.h → www.h → h); run it out.
            while self.find(&host_port(p), Change::WwwRemoved).is_some() {
                match p.host.strip_prefix("www.") {
                    Some(rest) if !rest.is_empty() => {
                        p.host = rest.to_owned().into();
                        changed = true;
                    }
                    _ => break,
                }
            }
        }
        // The host `www.` rules lead to may upgrade too.
        changed |= upgrade(p);
        // A scheme or host rewritten above is another origin: its content
        // rules apply too, or the key would change when keyed again.
        if (p.scheme.len(), p.host.len()) != scheme_host {
            changed |= self.content.apply(p);
        }
        let host = host_port(p);
        let Some(rules) = self.by_host.get(&host) else {
            return changed;
        };
        if !p.path.starts_with('/') {
            return changed;
        }
        // Removals, content aliases with them, until none applies: each
        // shortens the path, so this ends, and `/default.aspx/` loses its
        // slash and then its index name in one keying, not in two.
        loop {
            let before = p.path.len();
            for r in rules {
                if let (Change::IndexRemoved, PathKind::Index(n)) = (r.change, r.path_kind) {
                    if let Some(dir) = p.path.strip_suffix(n) {
                        if dir.ends_with('/') {
                            p.path = dir.to_owned().into();
                            break;
                        }
                    }
                }
            }
            if let Some(dir) = p.path.strip_suffix('/') {
                let seg = &dir[dir.rfind('/').map_or(0, |i| i + 1)..];
                if !seg.is_empty() && self.find_kind(&host, Change::SlashRemoved, segment_kind(seg))
                {
                    p.path = dir.to_owned().into();
                }
            }
            changed |= self.content.apply(p);
            if p.path.len() == before {
                break;
            }
            changed = true;
        }
        // Additions, once: a slash, then an index name after a slash. An
        // index name the host's rules add takes no slash after it, or
        // keying `/` again would give `/index.html/index.html`.
        let added: Vec<&str> = rules
            .iter()
            .filter_map(|r| match (r.change, r.path_kind) {
                (Change::IndexAdded, PathKind::Index(n)) => Some(n),
                _ => None,
            })
            .collect();
        let path = &*p.path;
        if !path.ends_with('/') {
            let seg = &path[path.rfind('/').map_or(0, |i| i + 1)..];
            if !seg.is_empty()
                && !added.contains(&seg)
                && self.find_kind(&host, Change::SlashAdded, segment_kind(seg))
            {
                p.path = format!("{path}/").into();
                changed = true;
            }
        }
        if let Some(n) = added.first() {
            if p.path.ends_with('/') {
                p.path = format!("{}{n}", p.path).into();
                changed = true;
            }
        }
        changed
    }
}

/// What a content rule does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ContentKind {
    IgnoreParam,
    AliasSlash,
    AliasIndex,
    CaseInsensitivePath,
    /// The origin ignores the order of query parameters.
    QueryOrder,
}

impl ContentKind {
    pub const ALL: [ContentKind; 5] = [
        ContentKind::IgnoreParam,
        ContentKind::AliasSlash,
        ContentKind::AliasIndex,
        ContentKind::CaseInsensitivePath,
        ContentKind::QueryOrder,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ContentKind::IgnoreParam => "ignore-param",
            ContentKind::AliasSlash => "alias-slash",
            ContentKind::AliasIndex => "alias-index",
            ContentKind::CaseInsensitivePath => "case-insensitive-path",
            ContentKind::QueryOrder => "query-order",
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
            ContentKind::QueryOrder => {
                "the same parameters in another order returned the same content; parameters are sorted by name, then value"
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
    /// Independent pages whose same-content captures support the rule.
    pub support: usize,
    /// 0 when applied; for a refused candidate, the disagreeing merged
    /// pairs beyond the drift baseline (at least 1). Never applied when > 0.
    pub contradictions: usize,
    /// The evidence behind the verdict (0 when unknown, as in files written
    /// before these columns).
    pub evidence: Evidence,
}

/// What a content rule was judged on: its clusters, the capture pairs it
/// merges, how many of those disagree, and how many would by drift alone.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Evidence {
    /// Same-digest clusters in which the rule's part varies.
    pub clusters: usize,
    /// Pairs of captures (nearest in time) the rule merges.
    pub pairs: usize,
    /// Of those, pairs with different digests.
    pub disagreeing: usize,
    /// The origin's drift baseline: the share of same-URL capture pairs at
    /// the same time gaps that differ, in millionths.
    pub drift_ppm: u32,
}

impl Evidence {
    /// The drift baseline as a rate.
    pub fn drift(&self) -> f64 {
        f64::from(self.drift_ppm) / 1e6
    }

    /// The merged pairs' disagreement rate.
    pub fn disagreement(&self) -> f64 {
        self.disagreeing as f64 / self.pairs.max(1) as f64
    }
}

impl ContentRule {
    pub fn is_active(&self) -> bool {
        self.contradictions == 0
    }

    /// Append the rule's row of the rules file ([`Learned::to_tsv`]).
    pub fn push_tsv_row(&self, out: &mut String) {
        let e = &self.evidence;
        out.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{:.6}\n",
            self.origin,
            self.kind,
            self.pattern,
            self.support,
            self.contradictions,
            e.clusters,
            e.pairs,
            e.disagreeing,
            e.drift()
        ));
    }
}

#[derive(Debug, Clone, Default)]
struct OriginRules {
    params: BTreeSet<String>,
    slash: Vec<PathKind>,
    index: Vec<&'static str>,
    case: bool,
    order: bool,
}

/// Rules learned from digests: every candidate, and the active ones indexed
/// by origin for application.
#[derive(Debug, Clone, Default)]
pub struct ContentRules {
    candidates: Vec<ContentRule>,
    by_origin: HashMap<String, OriginRules>,
    /// Records given to the learner, and those of them that were no evidence
    /// (URL not a valid reference, no authority, or user info).
    pub(crate) records: usize,
    pub(crate) unusable: usize,
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
                ContentKind::QueryOrder => o.order = true,
            }
        }
        ContentRules {
            candidates,
            by_origin,
            records: 0,
            unusable: 0,
        }
    }

    /// (records given to the learner, records that were no evidence).
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
                let ignored = |kv: &&str| o.params.contains(param_name(kv));
                if q.split('&').any(|kv| ignored(&kv)) {
                    // Empty fields go with the ignored ones, so that what is
                    // left is a fixed point (`?a&` without `a` is no query).
                    let kept: Vec<&str> = q
                        .split('&')
                        .filter(|kv| !kv.is_empty() && !ignored(kv))
                        .collect();
                    p.query = (!kept.is_empty()).then(|| kept.join("&").into());
                    changed = true;
                }
            }
        }
        if o.order {
            if let Some(q) = &p.query {
                if let Cow::Owned(sorted) = sort_query(q) {
                    p.query = Some(sorted.into());
                    changed = true;
                }
            }
        }
        if !p.path.starts_with('/') {
            return changed;
        }
        if let Cow::Owned(path) = alias_path(&p.path, o.case, &o.index, &o.slash) {
            p.path = path.into();
            changed = true;
        }
        changed
    }
}

/// A path (starting with `/`) under the path rules of a content rule set,
/// in the order [`ContentRules`] applies them: lowercase (`case`), then, as
/// long as one applies, drop the first matching index name and drop a
/// trailing slash after a last segment of a kind in `slash`. Repeating the
/// two until neither applies makes the result a fixed point (each drop
/// shortens the path): `/index.html/` loses its slash, then its index name.
/// The learner keys candidate sets with this same code.
pub(crate) fn alias_path<'p>(
    path: &'p str,
    case: bool,
    index: &[&str],
    slash: &[PathKind],
) -> Cow<'p, str> {
    let mut out = Cow::Borrowed(path);
    if case {
        let lower = lowercase_path(&out);
        if lower != *out {
            out = Cow::Owned(lower);
        }
    }
    loop {
        let before = out.len();
        if let Some(dir) = index
            .iter()
            .filter_map(|n| out.strip_suffix(n))
            .find(|dir| dir.ends_with('/'))
        {
            out = Cow::Owned(dir.to_owned());
        }
        if let Some(dir) = out.strip_suffix('/') {
            let seg = &dir[dir.rfind('/').map_or(0, |i| i + 1)..];
            if !seg.is_empty() && slash.contains(&segment_kind(seg)) {
                out = Cow::Owned(dir.to_owned());
            }
        }
        if out.len() == before {
            return out;
        }
    }
}

/// Parameters in a stable sort by name, then the rest (the order the
/// protocol rung's `sort-query` uses); Borrowed when already sorted.
fn sort_query(query: &str) -> Cow<'_, str> {
    fn key<'p>(p: &&'p str) -> (&'p [u8], &'p [u8]) {
        let p: &'p str = p;
        let n = param_name(p).len();
        (&p.as_bytes()[..n], &p.as_bytes()[n..])
    }
    let mut params: Vec<&str> = query.split('&').collect();
    if params.windows(2).all(|w| key(&w[0]) <= key(&w[1])) {
        return Cow::Borrowed(query);
    }
    params.sort_by(|a, b| key(a).cmp(&key(b)));
    Cow::Owned(params.join("&"))
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

pub(crate) fn param_name(kv: &str) -> &str {
    kv.split_once('=').map_or(kv, |(k, _)| k)
}

/// ASCII-lowercase a path, leaving `%XX` escapes (uppercase in keys) alone.
pub(crate) fn lowercase_path(path: &str) -> String {
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

pub(crate) fn origin(p: &Parts<'_>) -> String {
    format!("{}://{}", p.scheme, host_port(p))
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
            ContentKind::CaseInsensitivePath | ContentKind::QueryOrder => "*",
        };
        v.push(("digests", k.name(), pattern, k.description()));
    }
    v
}

/// Header of the rules file.
pub const RULES_HEADER: &str =
    "#host\tkind\tpattern\tsupport\tcontradictions\tclusters\tpairs\tdisagreeing\tdrift";

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
        let mut out = self.redirects_tsv();
        for c in self.content.candidates() {
            c.push_tsv_row(&mut out);
        }
        out
    }

    /// The start of [`to_tsv`](Self::to_tsv): the header, the redirect
    /// rules and the redirect observations set aside, without the content
    /// candidates (for a writer that streams those, each by
    /// [`ContentRule::push_tsv_row`], in the order of
    /// [`ContentRules::candidates`]).
    pub fn redirects_tsv(&self) -> String {
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
            let (fixed, more) = f.split_at(f.len().min(5));
            let [host, kind, pattern, support, contra] = fixed else {
                return Err(bad("want 5 or 9 tab-separated fields"));
            };
            let evidence = match more {
                [] => Evidence::default(),
                [clusters, pairs, disagreeing, drift] => {
                    let n = |s: &str| s.parse::<usize>().ok();
                    let drift = drift
                        .parse::<f64>()
                        .ok()
                        .filter(|d| (0.0..=1.0).contains(d));
                    match (n(clusters), n(pairs), n(disagreeing), drift) {
                        (Some(clusters), Some(pairs), Some(disagreeing), Some(d)) => Evidence {
                            clusters,
                            pairs,
                            disagreeing,
                            drift_ppm: (d * 1e6).round() as u32,
                        },
                        _ => {
                            return Err(bad(
                                "clusters, pairs, disagreeing or drift is not a number",
                            ))
                        }
                    }
                }
                _ => return Err(bad("want 5 or 9 tab-separated fields")),
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
                    ContentKind::CaseInsensitivePath | ContentKind::QueryOrder => *pattern == "*",
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
                    evidence,
                });
            } else {
                if !more.is_empty() {
                    return Err(bad("a redirect rule has 5 fields"));
                }
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
}
