//! Content rules learned from crawl captures with content digests
//! (draft-ietf-iri-3987bis §5.3.4): which query parameters, parameter
//! orders and path spellings never change what an origin returns.
//!
//! Input: (URL, digest, timestamp) records, status 200 only (the readers in
//! [`records`](super::records) drop the others: a redirect's or an error
//! page's digest is shared by unrelated URLs). Each origin
//! (`scheme://host[:port]` of the scheme-rung key; rules never cross hosts
//! or schemes) is learned on its own by [`cluster`](super::cluster): evidence
//! from clusters of same-digest captures, each candidate judged by the
//! capture pairs it would merge against the origin's drift baseline (the
//! same URL's captures over the same time gaps); then
//! [`pool`] applies, on a sparse origin, a rule whose kind and
//! pattern the pairs of many origins show safe. [`learn`] takes the
//! records in memory; origins are learned in parallel.
//!
//! ```
//! use irinorm::learn::digest::{learn, DigestOptions, DigestRecord};
//! // One merged pair per page: 20 pages show that `sid` is safe.
//! let recs: Vec<DigestRecord> = (0..20)
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

use std::collections::HashMap;

use rayon::prelude::*;

use super::cluster::{Judgement, Origin, OriginStats, Thresholds};
use super::pool;
use super::records::timestamp_secs;
use super::MIN_EVIDENCE;
use crate::iri::parse;
use crate::ladder::parts::Parts;
use crate::ladder::{key, Level};

pub use super::records::{read_records, DigestFormat, DigestRecord, ReadResult};
pub use crate::ladder::learned::{
    rule_kinds, ContentKind, ContentRule, ContentRules, Evidence, RULES_HEADER,
};

/// Default significance: a candidate whose merged pairs cross (return to an
/// earlier content) more often than the origin's own URLs do, with a
/// Poisson tail probability below this, is refused; a rule is shown safe
/// with confidence one minus this, against the drift its origin shows at
/// that confidence (a lower bound).
pub const DEFAULT_SIGNIFICANCE: f64 = 0.05;

/// Default largest excess disagreement over drift, as a share of a rule's
/// merged pairs, that a rule must be shown to stay below.
pub const DEFAULT_MAX_EXCESS: f64 = 0.15;

/// Default number of origins a pooled verdict needs.
pub const DEFAULT_POOL_ORIGINS: usize = 3;

/// Default largest share of a pattern's decisive origins (those that show
/// it safe or selecting on their own) that may show it selecting content
/// for its pooled evidence to be used.
pub const DEFAULT_POOL_SHARE: f64 = 0.25;

/// Thresholds of [`learn`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DigestOptions {
    /// Independent supporting pages needed (at least 1).
    pub min_evidence: usize,
    /// See [`DEFAULT_SIGNIFICANCE`].
    pub significance: f64,
    /// Capture pairs farther apart than this many seconds are neither
    /// evidence nor contradiction; `None`: every pair counts.
    pub window: Option<i64>,
    /// See [`DEFAULT_MAX_EXCESS`].
    pub max_excess: f64,
    /// See [`DEFAULT_POOL_ORIGINS`]; 0 judges each origin alone.
    pub pool_origins: usize,
    /// See [`DEFAULT_POOL_SHARE`].
    pub pool_share: f64,
}

impl Default for DigestOptions {
    fn default() -> Self {
        DigestOptions {
            min_evidence: MIN_EVIDENCE,
            significance: DEFAULT_SIGNIFICANCE,
            window: None,
            max_excess: DEFAULT_MAX_EXCESS,
            pool_origins: DEFAULT_POOL_ORIGINS,
            pool_share: DEFAULT_POOL_SHARE,
        }
    }
}

impl Default for Thresholds {
    /// The defaults of [`DigestOptions`].
    fn default() -> Self {
        DigestOptions::default().thresholds()
    }
}

impl DigestOptions {
    pub(crate) fn thresholds(&self) -> Thresholds {
        Thresholds {
            min_evidence: self.min_evidence.max(1),
            significance: self.significance,
            window: self.window,
            max_excess: self.max_excess,
            pool_origins: self.pool_origins,
            pool_share: self.pool_share,
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

/// A capture's URL as the learner sees it: the parts of its scheme-rung
/// key, borrowed from that key.
pub(crate) struct KeyParts<'k> {
    scheme: &'k str,
    /// Host and port (`:port` or empty), as in the key.
    host: &'k str,
    port: &'k str,
    pub path: &'k str,
    pub query: Option<&'k str>,
}

impl KeyParts<'_> {
    /// `scheme://host[:port]`, the origin rules belong to.
    pub fn origin(&self) -> String {
        format!("{}://{}{}", self.scheme, self.host, self.port)
    }

    /// Whether [`origin`](Self::origin) would be `o` (no allocation).
    pub fn is_origin(&self, o: &str) -> bool {
        o.strip_prefix(self.scheme)
            .and_then(|r| r.strip_prefix("://"))
            .and_then(|r| r.strip_prefix(self.host))
            .is_some_and(|r| r == self.port)
    }
}

/// The scheme-rung key of `url`, for [`split_key`]; `None` for a URL that
/// is not a valid reference.
pub(crate) fn url_key(url: &str) -> Option<String> {
    key(url.trim(), Level::Scheme).ok()
}

/// The parts of a scheme-rung key; `None` for a URL that is no evidence
/// (no authority, user info, or a path not starting with `/`).
pub(crate) fn split_key(k: &str) -> Option<KeyParts<'_>> {
    let iri = parse(k).ok()?;
    let p = Parts::of(&iri);
    if !p.has_authority || !p.userinfo.is_empty() || !p.path.starts_with('/') {
        return None;
    }
    Some(KeyParts {
        scheme: iri.scheme().unwrap_or(""),
        host: iri.host().unwrap_or(""),
        port: p.port,
        path: iri.path(),
        query: iri.query(),
    })
}

/// Learn content rules from captures held in memory (see the module
/// documentation), origins in parallel. Records whose URL is no evidence
/// are skipped and counted.
pub fn learn(records: &[DigestRecord], opts: &DigestOptions) -> ContentRules {
    let mut origins: HashMap<String, Origin> = HashMap::new();
    let mut unusable = 0;
    for r in records {
        let k = url_key(&r.url);
        let Some(parts) = k.as_deref().and_then(split_key) else {
            unusable += 1;
            continue;
        };
        let time = r.timestamp.as_deref().and_then(timestamp_secs);
        origins
            .entry(parts.origin())
            .or_insert_with_key(|o| Origin::new(o.clone()))
            .push(parts.path, parts.query, &r.digest, time);
    }
    let origins: Vec<Origin> = origins.into_values().collect();
    let (judged, _) = learn_origins(&origins, opts);
    let (rules, _) = pool::decide(judged, &opts.thresholds());
    let mut rules = ContentRules::from_candidates(rules);
    rules.records = records.len();
    rules.unusable = unusable;
    rules
}

/// Judge several origins on the rayon pool, each on its own evidence:
/// their candidates and summed statistics.
pub(crate) fn learn_origins(
    origins: &[Origin],
    opts: &DigestOptions,
) -> (Vec<Judgement>, OriginStats) {
    let t = opts.thresholds();
    origins.par_iter().map(|o| o.judge_all(&t)).reduce(
        || (Vec::new(), OriginStats::default()),
        |(mut a, sa), (b, sb)| {
            a.extend(b);
            (a, sa.plus(sb))
        },
    )
}

#[cfg(test)]
mod tests;
