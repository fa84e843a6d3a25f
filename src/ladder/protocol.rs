//! The protocol rung (draft-ietf-iri-3987bis §5.3.4).
//!
//! §5.3.4: "Substantial effort to reduce the incidence of false negatives is
//! often cost-effective for web spiders. Consequently, they implement even
//! more aggressive techniques in IRI comparison." §5.1 adds the limit: the
//! comparison methods "are designed to minimize false negatives while
//! strictly avoiding false positives". Every rule here is therefore narrow,
//! named, and can be switched on or off on its own.
//!
//! The rung receives the scheme-rung key in URI form (§5.3.3: lowercase
//! scheme and host, punycode, no default port, `/` path for http(s),
//! uppercase `%XX`, unreserved characters decoded) and only *removes* or
//! *reorders* parts of it, so its output is again a canonical scheme-rung
//! key and applying the rung twice changes nothing.
//!
//! | rule | default | before | after |
//! |---|---|---|---|
//! | `fragment` | on | `http://h/a#top` | `http://h/a` |
//! | `tracking` | on | `http://h/?id=1&utm_source=x` | `http://h/?id=1` |
//! | `session` | on | `http://h/a;jsessionid=0AB1` | `http://h/a` |
//! | `empty-query` | on | `http://h/a?` | `http://h/a` |
//! | `sort-query` | off | `http://h/?b=1&a=2` | `http://h/?a=2&b=1` |
//! | `strip-www` | off | `http://www.h.example/` | `http://h.example/` |
//! | `strip-index` | off | `http://h/d/index.html` | `http://h/d/` |
//! | `collapse-slashes` | off | `http://h/a//b` | `http://h/a/b` |
//!
//! ## Every rule re-checks structure
//!
//! A rule that rewrites the path or the host (`session`'s path parameter,
//! `collapse-slashes`, `strip-index`, `strip-www`, and every learned rule)
//! goes through one guard (`guarded`): its change is kept only when the
//! result re-parses into exactly the intended parts (same scheme, authority,
//! host kind, path/query/fragment boundaries) with no dot segment left to
//! remove; otherwise the rule does not apply to that reference (3987bis §10:
//! `http:/;jsessionid=/evil.example/x` must never become
//! `http://evil.example/x`). The query and fragment rules cannot move a
//! boundary: they only remove text after the first `?` or `#`, which stays.
//!
//! ## Query parameters
//!
//! A query is cut into parameters at `&` only. A parameter's *name* is the
//! text up to its first `=` (the whole parameter when it has none). Names are
//! matched ASCII case-insensitively on their **raw** bytes: nothing is
//! decoded or re-encoded, so `utm%5Fsource` is not `utm_source`, and
//! `a=b%26c` never meets `a=b&c`. `;` is **not** a separator: HTML 4 once
//! recommended it, but today's servers (WHATWG `application/x-www-form-urlencoded`,
//! PHP, Go ≥ 1.17) treat it as data, so `a=1;utm_source=x` is one parameter
//! named `a` and is kept whole. Empty parameters (`a=1&&b=2`) are kept: they
//! are part of the raw query a server receives.
//!
//! The query and path rules only apply to `http`, `https`, `ws` and `wss`
//! (the conventions they encode are HTTP conventions); `fragment` applies to
//! every scheme, since a fragment is never part of a retrieval (RFC 3986
//! §3.5; 3987bis §5.1 leaves what "the same resource" means to the
//! application, and a fetch never sends it).
//!
//! Rules learned from redirect evidence (§5.3.4's trailing-slash example)
//! and from content digests are held in [`super::learned`] (learned by
//! [`crate::learn`]) and applied by [`ProtocolRules`] after the rules above.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use super::learned::Learned;
use super::parts::{guarded, Parts};
use crate::iri::{HostKind, IriRef};

pub use super::parts::INDEX_NAMES;

/// The plug for the protocol rung (§5.3.4).
///
/// It receives the scheme-rung key in URI form, already parsed, and returns
/// the protocol-rung key in URI form: `Cow::Borrowed` when nothing changes.
/// The returned string must itself be a canonical scheme-rung key (rules
/// only remove or reorder parts), so that keys stay idempotent.
pub trait ProtocolRung: Send + Sync {
    fn apply<'a>(&self, key: &IriRef<'a>) -> Cow<'a, str>;
}

/// One named rule of the protocol rung. See the module docs for the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rule {
    /// Drop the fragment: a fetch never sends it (RFC 3986 §3.5).
    ///
    /// `http://h/a#top` → `http://h/a`
    Fragment,
    /// Remove tracking parameters ([`TRACKING_PARAMS`], [`TRACKING_PREFIXES`]).
    ///
    /// `http://h/?id=1&utm_source=x&gclid=y` → `http://h/?id=1`
    Tracking,
    /// Remove unambiguous session identifiers ([`SESSION_PARAMS`],
    /// [`SESSION_PREFIXES`], and the `;jsessionid=` path parameter).
    ///
    /// `http://h/a;jsessionid=0AB1?PHPSESSID=9f&x=1` → `http://h/a?x=1`
    Session,
    /// A query that is empty (given as `?`, or after removals) loses its `?`.
    ///
    /// `http://h/a?` → `http://h/a`
    EmptyQuery,
    /// Opt-in: stable sort of the `&`-separated parameters by name, then by
    /// the rest of the parameter; bytes untouched.
    ///
    /// `http://h/?b=1&a=2&a=1` → `http://h/?a=1&a=2&b=1`
    SortQuery,
    /// Opt-in: drop one leading `www.` label when what remains still has a
    /// dot (`www.com` stays; `www2.`, `www123.` are never touched).
    ///
    /// `http://www.h.example/` → `http://h.example/`
    StripWww,
    /// Opt-in: a last path segment in [`INDEX_NAMES`] is dropped, leaving
    /// the directory.
    ///
    /// `http://h/d/index.html` → `http://h/d/`
    StripIndex,
    /// Opt-in: runs of `/` in the path become one `/`.
    ///
    /// `http://h/a//b` → `http://h/a/b`
    CollapseSlashes,
}

/// Tracking parameter names (exact, ASCII case-insensitive), with origin:
///
/// | name | origin |
/// |---|---|
/// | `gclid` | Google Ads click identifier (auto-tagging) |
/// | `gbraid`, `wbraid` | Google Ads click identifiers for iOS app/web measurement |
/// | `dclid` | Google Display & Video 360 / Campaign Manager click identifier |
/// | `_ga`, `_gl` | Google Analytics cross-domain linker (analytics.js / gtag.js) |
/// | `fbclid` | Facebook outbound-link click identifier |
/// | `igshid` | Instagram share identifier |
/// | `msclkid` | Microsoft Advertising click identifier |
/// | `yclid` | Yandex.Direct click identifier |
/// | `mc_cid`, `mc_eid` | Mailchimp campaign and recipient identifiers |
/// | `_hsenc`, `_hsmi` | HubSpot e-mail tracking |
///
/// Each is added by the referrer, never read by the page's own server to
/// choose content, and specific enough not to collide with application
/// parameters.
pub const TRACKING_PARAMS: &[&str] = &[
    "gclid", "gbraid", "wbraid", "dclid", "_ga", "_gl", "fbclid", "igshid", "msclkid", "yclid",
    "mc_cid", "mc_eid", "_hsenc", "_hsmi",
];

/// Tracking parameter name prefixes: `utm_` (Urchin Tracking Module, Google
/// Analytics campaign parameters `utm_source`, `utm_medium`, …).
pub const TRACKING_PREFIXES: &[&str] = &["utm_"];

/// Session-identifier parameter names (exact, ASCII case-insensitive):
///
/// | name | origin |
/// |---|---|
/// | `jsessionid` | Java Servlet containers (also as `;jsessionid=` path parameter) |
/// | `phpsessid` | PHP `session.name` default |
/// | `cfid`, `cftoken` | ColdFusion client variables |
///
/// Deliberately **not** `sid`, `session`, `s`, `token`: they are generic
/// names that many applications use for content (a story id, a search
/// term), so removing them would merge different resources (a false
/// positive, which §5.1 says to avoid strictly).
pub const SESSION_PARAMS: &[&str] = &["jsessionid", "phpsessid", "cfid", "cftoken"];

/// Session-identifier name prefixes: `aspsessionid` (classic ASP writes
/// `ASPSESSIONIDxxxxxxxx`, the suffix varying per worker process).
pub const SESSION_PREFIXES: &[&str] = &["aspsessionid"];

impl Rule {
    /// Every rule, in application order.
    pub const ALL: [Rule; 8] = [
        Rule::Fragment,
        Rule::Tracking,
        Rule::Session,
        Rule::EmptyQuery,
        Rule::SortQuery,
        Rule::StripWww,
        Rule::StripIndex,
        Rule::CollapseSlashes,
    ];

    /// The name used by `--rules`.
    pub fn name(self) -> &'static str {
        match self {
            Rule::Fragment => "fragment",
            Rule::Tracking => "tracking",
            Rule::Session => "session",
            Rule::EmptyQuery => "empty-query",
            Rule::SortQuery => "sort-query",
            Rule::StripWww => "strip-www",
            Rule::StripIndex => "strip-index",
            Rule::CollapseSlashes => "collapse-slashes",
        }
    }

    /// One line saying what the rule does.
    pub fn description(self) -> &'static str {
        match self {
            Rule::Fragment => "drop the fragment (a fetch never sends it)",
            Rule::Tracking => "remove tracking parameters (utm_*, gclid, fbclid, msclkid, ...)",
            Rule::Session => {
                "remove session ids (;jsessionid= path parameter; jsessionid, phpsessid, aspsessionid*, cfid, cftoken)"
            }
            Rule::EmptyQuery => "an empty query loses its '?'",
            Rule::SortQuery => "stable sort of '&'-separated parameters by name, then value",
            Rule::StripWww => "drop a single leading 'www.' label (not www2., www123.)",
            Rule::StripIndex => "drop a last path segment index.html, index.php, default.aspx, ...",
            Rule::CollapseSlashes => "collapse '//' to '/' in the path",
        }
    }

    /// An example input and its key with only this rule on (both already
    /// scheme-rung keys).
    pub fn example(self) -> (&'static str, &'static str) {
        match self {
            Rule::Fragment => ("http://h.example/a#top", "http://h.example/a"),
            Rule::Tracking => (
                "http://h.example/?id=1&utm_source=x&gclid=y",
                "http://h.example/?id=1",
            ),
            Rule::Session => (
                "http://h.example/a;jsessionid=0AB1?PHPSESSID=9f&x=1",
                "http://h.example/a?x=1",
            ),
            Rule::EmptyQuery => ("http://h.example/a?", "http://h.example/a"),
            Rule::SortQuery => (
                "http://h.example/?b=1&a=2&a=1",
                "http://h.example/?a=1&a=2&b=1",
            ),
            Rule::StripWww => ("http://www.h.example/", "http://h.example/"),
            Rule::StripIndex => ("http://h.example/d/index.html", "http://h.example/d/"),
            Rule::CollapseSlashes => ("http://h.example/a//b", "http://h.example/a/b"),
        }
    }

    /// On in [`Rules::DEFAULT`].
    pub fn default_on(self) -> bool {
        matches!(
            self,
            Rule::Fragment | Rule::Tracking | Rule::Session | Rule::EmptyQuery
        )
    }

    fn bit(self) -> u16 {
        1 << (self as u16)
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Rule {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Rule::ALL
            .into_iter()
            .find(|r| r.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| {
                let names: Vec<&str> = Rule::ALL.iter().map(|r| r.name()).collect();
                format!(
                    "unknown protocol rule {:?} (valid: {})",
                    s.trim(),
                    names.join(", ")
                )
            })
    }
}

/// A set of [`Rule`]s (a bitset).
///
/// Parsed from a `--rules LIST`: comma-separated items, each `name`
/// (start from the empty set: the list *replaces* the defaults) or
/// `+name` / `-name` (adjust the defaults). Mixing is allowed: if any item
/// is a bare name the start is empty, otherwise the defaults.
///
/// ```
/// use irinorm::{Rule, Rules};
/// let r: Rules = "+sort-query,-tracking".parse().unwrap();
/// assert!(r.contains(Rule::SortQuery) && !r.contains(Rule::Tracking));
/// assert!(r.contains(Rule::Fragment));
/// let only: Rules = "fragment".parse().unwrap();
/// assert_eq!(only.iter().count(), 1);
/// assert!("bogus".parse::<Rules>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rules(u16);

impl Default for Rules {
    fn default() -> Self {
        Rules::DEFAULT
    }
}

impl Rules {
    /// No rule: the protocol rung equals the scheme rung.
    pub const NONE: Rules = Rules(0);
    /// `fragment`, `tracking`, `session`, `empty-query`.
    pub const DEFAULT: Rules = Rules(1 | 2 | 4 | 8);

    pub fn contains(self, r: Rule) -> bool {
        self.0 & r.bit() != 0
    }
    pub fn with(self, r: Rule) -> Rules {
        Rules(self.0 | r.bit())
    }
    pub fn without(self, r: Rule) -> Rules {
        Rules(self.0 & !r.bit())
    }
    /// The rules in the set, in application order.
    pub fn iter(self) -> impl Iterator<Item = Rule> {
        Rule::ALL.into_iter().filter(move |r| self.contains(*r))
    }

    /// Parse a `--rules` list (see the type docs). Errors name the unknown
    /// item and list the valid names.
    pub fn parse_list(list: &str) -> Result<Rules, String> {
        let items: Vec<&str> = list
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        let replace = items
            .iter()
            .any(|i| !i.starts_with('+') && !i.starts_with('-'));
        let mut rules = if replace { Rules::NONE } else { Rules::DEFAULT };
        for item in items {
            if let Some(n) = item.strip_prefix('+') {
                rules = rules.with(n.parse()?);
            } else if let Some(n) = item.strip_prefix('-') {
                rules = rules.without(n.parse()?);
            } else {
                rules = rules.with(item.parse()?);
            }
        }
        Ok(rules)
    }

    /// For `irinorm rules`: `(name, description, example before, example
    /// after, on by default)` for every rule.
    pub fn describe() -> Vec<(&'static str, &'static str, &'static str, &'static str, bool)> {
        Rule::ALL
            .into_iter()
            .map(|r| {
                let (b, a) = r.example();
                (r.name(), r.description(), b, a, r.default_on())
            })
            .collect()
    }
}

impl FromStr for Rules {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Rules::parse_list(s)
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.iter().map(Rule::name).collect();
        f.write_str(&names.join(","))
    }
}

/// The protocol rung: a [`Rules`] set plus, optionally, per-host rules
/// learned from redirect evidence. Install with
/// [`Normalizer::with_protocol`](super::Normalizer::with_protocol);
/// [`Level::Protocol`](super::Level::Protocol) without one installed uses
/// `ProtocolRules::default()` ([`Rules::DEFAULT`], nothing learned).
#[derive(Debug, Clone, Default)]
pub struct ProtocolRules {
    rules: Rules,
    learned: Option<Learned>,
}

impl ProtocolRules {
    pub fn new(rules: Rules, learned: Option<Learned>) -> Self {
        ProtocolRules { rules, learned }
    }
    pub fn rules(&self) -> Rules {
        self.rules
    }
    pub fn learned(&self) -> Option<&Learned> {
        self.learned.as_ref()
    }
}

/// `http`, `https`, `ws`, `wss`: the schemes whose query/path conventions
/// the query and path rules encode (the scheme table's `web_rules`).
fn is_web(scheme: &str) -> bool {
    crate::scheme::get(scheme).is_some_and(|r| r.web_rules)
}

fn name_of(param: &str) -> &str {
    match param.find('=') {
        Some(i) => &param[..i],
        None => param,
    }
}

fn name_in(name: &str, exact: &[&str], prefixes: &[&str]) -> bool {
    exact.iter().any(|e| name.eq_ignore_ascii_case(e))
        || prefixes.iter().any(|p| {
            name.len() >= p.len() && name.as_bytes()[..p.len()].eq_ignore_ascii_case(p.as_bytes())
        })
}

/// `true` when the parameter (raw text between `&`s) is a tracking parameter.
pub fn is_tracking_param(param: &str) -> bool {
    name_in(name_of(param), TRACKING_PARAMS, TRACKING_PREFIXES)
}

/// `true` when the parameter (raw text between `&`s) is a session id.
pub fn is_session_param(param: &str) -> bool {
    name_in(name_of(param), SESSION_PARAMS, SESSION_PREFIXES)
}

/// Remove the parameters for which `drop` holds; Borrowed when none.
pub fn filter_query<'q>(query: &'q str, drop: impl Fn(&str) -> bool) -> Cow<'q, str> {
    if !query.split('&').any(&drop) {
        return Cow::Borrowed(query);
    }
    let kept: Vec<&str> = query.split('&').filter(|p| !drop(p)).collect();
    Cow::Owned(kept.join("&"))
}

/// Stable sort of the `&`-separated parameters by name, then by the rest of
/// the parameter (from its `=`), comparing raw bytes; Borrowed when already
/// sorted. `b=1&a=2&a=1` → `a=1&a=2&b=1`; `a=1&` → `&a=1`.
pub fn sort_query(query: &str) -> Cow<'_, str> {
    fn key<'p>(p: &&'p str) -> (&'p [u8], &'p [u8]) {
        let p: &'p str = p;
        let n = name_of(p);
        (n.as_bytes(), &p.as_bytes()[n.len()..])
    }
    let mut params: Vec<&str> = query.split('&').collect();
    if params.windows(2).all(|w| key(&w[0]) <= key(&w[1])) {
        return Cow::Borrowed(query);
    }
    params.sort_by(|a, b| key(a).cmp(&key(b)));
    Cow::Owned(params.join("&"))
}

/// Remove `;jsessionid=…` path parameters (name ASCII case-insensitive; the
/// value runs to the next `;` or `/`). `/a;jsessionid=0AB1/b` → `/a/b`.
pub fn strip_path_session(path: &str) -> Cow<'_, str> {
    const P: &[u8] = b";jsessionid=";
    let b = path.as_bytes();
    let is_at = |i: usize| b.len() >= i + P.len() && b[i..i + P.len()].eq_ignore_ascii_case(P);
    if !(0..b.len()).any(|i| b[i] == b';' && is_at(i)) {
        return Cow::Borrowed(path);
    }
    let mut out = String::with_capacity(path.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b';' && is_at(i) {
            let mut j = i + P.len();
            while j < b.len() && b[j] != b';' && b[j] != b'/' {
                j += 1;
            }
            i = j;
        } else {
            let next = path[i + 1..].find(';').map_or(b.len(), |k| i + 1 + k);
            out.push_str(&path[i..next]);
            i = next;
        }
    }
    Cow::Owned(out)
}

/// [`Rule::StripWww`] on a canonical host: `www.h.example` → `h.example`.
/// `www.www.h.example` is left alone (stripping one label would leave a
/// `www.` host and the rule would not be idempotent). The rest must be a
/// registered name of at least two labels: not an IPv4 address, nor a name
/// whose last label is a number (`www.1.2.3.4`, `www.0x7f.1`: the WHATWG
/// host parser reads those as IPv4, so stripping would turn a name into an
/// address).
pub fn strip_www(host: &str) -> &str {
    match host.strip_prefix("www.") {
        Some(rest)
            if rest.contains('.')
                && !rest.starts_with('.')
                && !rest.starts_with("www.")
                && !ends_in_number(rest) =>
        {
            rest
        }
        _ => host,
    }
}

/// The last label (before an optional trailing dot) is decimal digits or
/// `0x` hex: the WHATWG URL Standard's "ends in a number" (IPv4 parser).
fn ends_in_number(host: &str) -> bool {
    let h = host.strip_suffix('.').unwrap_or(host);
    let last = &h[h.rfind('.').map_or(0, |i| i + 1)..];
    let hex = last
        .strip_prefix("0x")
        .or_else(|| last.strip_prefix("0X"))
        .is_some_and(|x| x.bytes().all(|c| c.is_ascii_hexdigit()));
    hex || (!last.is_empty() && last.bytes().all(|c| c.is_ascii_digit()))
}

/// [`Rule::StripIndex`]: `/d/index.html` → `/d/`.
pub fn strip_index(path: &str) -> &str {
    match path.rfind('/') {
        Some(i) if INDEX_NAMES.contains(&&path[i + 1..]) => &path[..=i],
        _ => path,
    }
}

/// [`Rule::CollapseSlashes`]: `/a//b///c` → `/a/b/c`.
pub fn collapse_slashes(path: &str) -> Cow<'_, str> {
    if !path.contains("//") {
        return Cow::Borrowed(path);
    }
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        if !(c == '/' && out.ends_with('/')) {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

impl ProtocolRules {
    /// The default rules with no learned evidence; what `Level::Protocol`
    /// uses when no rung was installed.
    pub fn apply_key<'a>(&self, key: &IriRef<'a>) -> Cow<'a, str> {
        let s = key.as_str();
        let rules = self.rules;
        let opt_in = Rules(
            Rule::SortQuery.bit()
                | Rule::StripWww.bit()
                | Rule::StripIndex.bit()
                | Rule::CollapseSlashes.bit(),
        );
        // Fast path: nothing any rule could touch.
        if rules.0 & opt_in.0 == 0
            && self.learned.is_none()
            && key.fragment().is_none()
            && key.query().is_none()
            && !key.path().contains(';')
        {
            return Cow::Borrowed(s);
        }
        let mut p = Parts::of(key);
        let mut changed = false;
        if rules.contains(Rule::Fragment) && p.fragment.is_some() {
            p.fragment = None;
            changed = true;
        }
        if is_web(&p.scheme) {
            if let Some(q) = p.query.take() {
                let mut q = q;
                if rules.contains(Rule::Tracking) {
                    if let Cow::Owned(n) = filter_query(&q, is_tracking_param) {
                        q = Cow::Owned(n);
                        changed = true;
                    }
                }
                if rules.contains(Rule::Session) {
                    if let Cow::Owned(n) = filter_query(&q, is_session_param) {
                        q = Cow::Owned(n);
                        changed = true;
                    }
                }
                if rules.contains(Rule::SortQuery) {
                    if let Cow::Owned(n) = sort_query(&q) {
                        q = Cow::Owned(n);
                        changed = true;
                    }
                }
                if rules.contains(Rule::EmptyQuery) && q.is_empty() {
                    changed = true;
                } else {
                    p.query = Some(q);
                }
            }
            if rules.contains(Rule::Session) {
                changed |= guarded(&mut p, |p| match strip_path_session(&p.path) {
                    Cow::Owned(n) => {
                        p.path = Cow::Owned(n);
                        true
                    }
                    Cow::Borrowed(_) => false,
                });
            }
            if rules.contains(Rule::CollapseSlashes) {
                changed |= guarded(&mut p, |p| match collapse_slashes(&p.path) {
                    Cow::Owned(n) => {
                        p.path = Cow::Owned(n);
                        true
                    }
                    Cow::Borrowed(_) => false,
                });
            }
            if rules.contains(Rule::StripIndex) {
                changed |= guarded(&mut p, |p| {
                    let cut = strip_index(&p.path).len();
                    let cut_off = cut < p.path.len();
                    if cut_off {
                        p.path = Cow::Owned(p.path[..cut].to_owned());
                    }
                    cut_off
                });
            }
            if rules.contains(Rule::StripWww) && p.host_kind == Some(HostKind::RegName) {
                changed |= guarded(&mut p, |p| {
                    let h = strip_www(&p.host);
                    let cut_off = h.len() < p.host.len();
                    if cut_off {
                        p.host = Cow::Owned(h.to_owned());
                    }
                    cut_off
                });
            }
        }
        if let Some(learned) = &self.learned {
            changed |= guarded(&mut p, |p| learned.apply(p));
        }
        if changed {
            Cow::Owned(p.write())
        } else {
            Cow::Borrowed(s)
        }
    }
}

impl ProtocolRung for ProtocolRules {
    fn apply<'a>(&self, key: &IriRef<'a>) -> Cow<'a, str> {
        self.apply_key(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ladder::{key, Level, Normalizer, Options};
    use std::sync::Arc;

    fn with(rules: &str, s: &str) -> String {
        let r: Rules = rules.parse().unwrap();
        Normalizer::new(Options {
            level: Level::Protocol,
            ..Options::default()
        })
        .with_protocol(Arc::new(ProtocolRules::new(r, None)))
        .key(s)
        .unwrap()
        .into_owned()
    }

    #[test]
    fn each_rule_alone_matches_its_example() {
        for r in Rule::ALL {
            let (before, after) = r.example();
            assert_eq!(with(r.name(), before), after, "{r}");
            // Alone: the scheme rung leaves the example untouched.
            assert_eq!(key(before, Level::Scheme).unwrap(), before, "{r}");
        }
    }

    #[test]
    fn default_level_protocol_uses_default_rules() {
        assert_eq!(
            key("HTTP://H.example/a?utm_source=x#f", Level::Protocol).unwrap(),
            "http://h.example/a"
        );
        assert_eq!(
            crate::ladder::lowest_equal_level("http://h/a#x", "http://h/a").unwrap(),
            Some(Level::Protocol)
        );
    }

    #[test]
    fn rules_parsing() {
        assert_eq!("".parse::<Rules>().unwrap(), Rules::DEFAULT);
        assert_eq!(
            "+sort-query".parse::<Rules>().unwrap(),
            Rules::DEFAULT.with(Rule::SortQuery)
        );
        assert_eq!(
            "fragment, tracking".parse::<Rules>().unwrap(),
            Rules::NONE.with(Rule::Fragment).with(Rule::Tracking)
        );
        let e = "+nope".parse::<Rules>().unwrap_err();
        assert!(e.contains("nope") && e.contains("collapse-slashes"), "{e}");
        assert_eq!(Rules::describe().len(), Rule::ALL.len());
        assert_eq!(
            Rules::DEFAULT.to_string(),
            "fragment,tracking,session,empty-query"
        );
    }

    #[test]
    fn raw_bytes_only() {
        let d = "";
        assert_eq!(with(d, "http://h/?a=b%26c"), "http://h/?a=b%26c");
        assert_ne!(with(d, "http://h/?a=b%26c"), with(d, "http://h/?a=b&c"));
        assert_ne!(with(d, "http://h/?a%3Db"), with(d, "http://h/?a=b"));
        // `%5F` is unreserved, so the scheme rung already decoded it…
        assert_eq!(with(d, "http://h/?utm%5Fsource=1"), "http://h/");
        // …but an encoded `=` is data: the name is `gclid%3Dx`, kept.
        assert_eq!(with(d, "http://h/?gclid%3Dx"), "http://h/?gclid%3Dx");
        // ';' is data, not a separator.
        assert_eq!(
            with(d, "http://h/?a=1;utm_source=x"),
            "http://h/?a=1;utm_source=x"
        );
        assert_eq!(with(d, "http://h/?UTM_Source=1&GCLID=2&x"), "http://h/?x");
        assert_eq!(with(d, "http://h/?a=1&&b=2"), "http://h/?a=1&&b=2");
    }

    #[test]
    fn session_ids() {
        let d = "";
        assert_eq!(
            with(d, "http://h/a;JSESSIONID=1/b;x=1;jsessionid=2?ASPSESSIONIDQQ=1&CFID=1&cftoken=2&sid=3"),
            "http://h/a/b;x=1?sid=3"
        );
        assert_eq!(with(d, "http://h/?PHPSESSID=1"), "http://h/");
        // Only in web schemes.
        assert_eq!(with(d, "foo://h/?PHPSESSID=1"), "foo://h/?PHPSESSID=1");
        assert_eq!(with(d, "foo://h/x#f"), "foo://h/x");
    }

    #[test]
    fn empty_query() {
        assert_eq!(with("", "http://h/a?"), "http://h/a");
        assert_eq!(with("", "http://h/a?&"), "http://h/a?&");
        assert_eq!(with("-empty-query", "http://h/a?utm_x=1"), "http://h/a?");
    }

    #[test]
    fn opt_in_rules() {
        let all = "+sort-query,+strip-www,+strip-index,+collapse-slashes";
        assert_eq!(
            with(all, "http://www2.h.example/"),
            "http://www2.h.example/"
        );
        assert_eq!(
            with(all, "http://www123.h.example/"),
            "http://www123.h.example/"
        );
        assert_eq!(with(all, "http://www.com/"), "http://www.com/");
        // Only a single `www.`: stripping one of two would not be idempotent.
        assert_eq!(
            with(all, "http://www.www.h.example/"),
            "http://www.www.h.example/"
        );
        assert_eq!(
            with(all, "http://192.168.0.1/index.php"),
            "http://192.168.0.1/"
        );
        assert_eq!(with(all, "http://h/d/Default.aspx?b&a"), "http://h/d/?a&b");
        assert_eq!(
            with(all, "http://h/d/index.html/x"),
            "http://h/d/index.html/x"
        );
        assert_eq!(with(all, "http://h//a///b"), "http://h/a/b");
        assert_eq!(with(all, "http://h/?a=2&a=1&a"), "http://h/?a&a=1&a=2");
        assert_eq!(sort_query("a=1&"), "&a=1");
    }

    #[test]
    fn idempotent_and_canonical() {
        let all = "+sort-query,+strip-www,+strip-index,+collapse-slashes";
        for s in [
            "http://www.H.example:80/a//b/index.html;jsessionid=1?utm_a=1&b=2&a=1#f",
            "http://h/?&utm_source=1",
            "https://www.www.x.y/Default.aspx?",
            "http://h/a;jsessionid=;jsessionid=x",
            "foo:bar#x",
            "http://h/a/..;jsessionid=1/b",
            "http://h/.;jsessionid=1",
            "http://h/;jsessionid=1/;jsessionid=2//x",
        ] {
            for rules in ["", all] {
                let once = with(rules, s);
                assert_eq!(with(rules, &once), once, "{s} {rules}");
                assert_eq!(key(&once, Level::Scheme).unwrap(), once, "{s} {rules}");
            }
        }
    }

    #[test]
    fn fast_path_borrows() {
        let n = Normalizer::new(Options {
            level: Level::Protocol,
            ..Options::default()
        });
        assert!(matches!(
            n.key("http://h.example/a/b").unwrap(),
            Cow::Borrowed(_)
        ));
        assert!(matches!(
            n.key("http://h.example/a/b?x=1").unwrap(),
            Cow::Borrowed(_)
        ));
    }
}
