//! Per-reference preparation between decoding and keying, shared by every
//! command: `--split-spaces` (002 §4 step 2), `--mode`/`--decode-entities`
//! ([`Preprocessor`], 3987bis §5.2, §7.1, §7.2) and `--query-encoding`
//! (§3.5).
//!
//! Order, per line: split into space-separated items (if asked), then per
//! item preprocess, then re-encode the query of an http(s) reference from the
//! legacy charset, then key. In web mode the middle steps are the URL
//! Standard's parser ([`crate::web`]: with the base and the query charset),
//! and the key starts from its `href`. The repairs are counted per worker thread (a
//! thread-local [`Repairs`], no locking on the hot path) and summed at the end
//! with [`collect_repairs`].

use std::borrow::Cow;
use std::cell::Cell;

use super::RejectReason;
use crate::decode::{encode_query, Charset};
use crate::preprocess::{split_spaces, Mode, Preprocessor, Repairs};
use crate::web::WebParser;

/// The key of one reference: any function of its text (`to_uri`, a
/// closure, …), or the ladder's [`Normalizer`](crate::Normalizer), which also keys a
/// reference parsed already: web mode's fast path parses each line to
/// decide it ([`crate::web::is_own_href_parsed`]), and the ladder keys that
/// parse instead of parsing the line again.
pub trait RefKey {
    /// The key of `s`.
    fn key<'x>(&self, s: &'x str) -> crate::Result<Cow<'x, str>>;

    /// The key of `r`, the [`crate::parse`] of `r.as_str()`: the same as
    /// `self.key(r.as_str())`.
    fn key_parsed<'x>(&self, r: &crate::IriRef<'x>) -> crate::Result<Cow<'x, str>> {
        self.key(r.as_str())
    }
}

impl<F> RefKey for F
where
    F: for<'x> Fn(&'x str) -> crate::Result<Cow<'x, str>>,
{
    fn key<'x>(&self, s: &'x str) -> crate::Result<Cow<'x, str>> {
        self(s)
    }
}

impl RefKey for crate::Normalizer {
    fn key<'x>(&self, s: &'x str) -> crate::Result<Cow<'x, str>> {
        crate::Normalizer::key(self, s)
    }

    fn key_parsed<'x>(&self, r: &crate::IriRef<'x>) -> crate::Result<Cow<'x, str>> {
        crate::Normalizer::key_parsed(self, r)
    }
}

thread_local! {
    static REPAIRS: Cell<Repairs> = const {
        Cell::new(Repairs::NONE)
    };
}

/// Takes (and resets) the repairs counted on every thread of `pool`.
pub fn collect_repairs(pool: &rayon::ThreadPool) -> Repairs {
    let mut total = Repairs::default();
    for r in pool.broadcast(|_| REPAIRS.with(|c| c.replace(Repairs::default()))) {
        total += r;
    }
    total += REPAIRS.with(|c| c.replace(Repairs::default()));
    total
}

/// What to prepare (the `--mode`, `--decode-entities`, `--query-encoding`
/// and `--split-spaces` of the CLI).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrepConfig {
    pub mode: Mode,
    pub decode_entities: bool,
    pub query_encoding: Option<Charset>,
    pub split_spaces: bool,
}

impl Default for PrepConfig {
    fn default() -> Self {
        PrepConfig {
            mode: Mode::Strict,
            decode_entities: false,
            query_encoding: None,
            split_spaces: false,
        }
    }
}

/// The configured preparation ([`Default`]: nothing to prepare).
#[derive(Debug, Clone, Default)]
pub struct Prep {
    pre: Option<Preprocessor>,
    query: Option<Charset>,
    split: bool,
    /// A relative reference is resolved against an http(s) base (so its
    /// query is re-encoded by `--query-encoding` too).
    base_http: bool,
    /// `--mode web`: the URL Standard's parser, with the base.
    web: Option<WebParser>,
    /// Web mode at the string rung: the `href` is the key (§5.3.1).
    href_is_key: bool,
}

/// True if `s` starts with a scheme (RFC 3986 §3.1) equal to `http` or
/// `https`, ASCII case-insensitively.
pub fn is_http(s: &str) -> bool {
    scheme_of(s).is_some_and(|sc| crate::scheme::get_ignore_case(sc).is_some_and(|r| r.http))
}

/// The scheme of `s`, if it has one: `ALPHA *( ALPHA / DIGIT / "+" / "-" /
/// "." )` followed by `:`.
pub fn scheme_of(s: &str) -> Option<&str> {
    let colon = s.find(':')?;
    let sc = &s[..colon];
    let mut b = sc.bytes();
    let first = b.next()?;
    (first.is_ascii_alphabetic() && b.all(|c| c.is_ascii_alphanumeric() || b"+-.".contains(&c)))
        .then_some(sc)
}

impl Prep {
    /// `base` is the run's base IRI (if any). Fails only in web mode, when
    /// the URL Standard rejects the base.
    pub fn new(a: &PrepConfig, base: Option<&str>) -> crate::Result<Self> {
        let web = match (a.mode, base) {
            (Mode::Web, Some(b)) => Some(WebParser::new().with_base(b)?),
            (Mode::Web, None) => Some(WebParser::new()),
            _ => None,
        }
        .map(|w| w.with_query_encoding(a.query_encoding));
        let pre = (a.mode == Mode::Leiri || a.decode_entities)
            .then(|| Preprocessor::new(a.mode, a.decode_entities));
        Ok(Prep {
            pre,
            query: a.query_encoding,
            split: a.split_spaces,
            base_http: base.is_some_and(is_http),
            web,
            href_is_key: false,
        })
    }

    /// Nothing to do: the key function can be used as is.
    pub fn is_noop(&self) -> bool {
        self.pre.is_none() && self.query.is_none() && !self.split && self.web.is_none()
    }

    /// Web mode: the key is the `href` itself, the key function is not
    /// called. Set it for the string rung (3987bis §5.3.1 compares the
    /// characters, here the browser's serialization); the higher rungs get
    /// the `href` as a URI ([`crate::web::Href::to_uri_ref`]).
    pub fn href_is_key(mut self, yes: bool) -> Self {
        self.href_is_key = yes;
        self
    }

    /// Web mode with nothing to do before the URL Standard's parser (no
    /// `--decode-entities`, `--split-spaces` or `--query-encoding`): a line
    /// goes straight to [`Prep::key_web_line`].
    pub(crate) fn is_web_only(&self) -> bool {
        self.pre.is_none() && !self.split && self.web.as_ref().is_some_and(|w| w.keys_own_hrefs())
    }

    /// The key of a line in web mode when [`Prep::is_web_only`]: the same
    /// as [`Prep::key_by`], without its layers.
    pub(crate) fn key_web_line<'k, K>(&self, s: &'k str, key: &K) -> crate::Result<Cow<'k, str>>
    where
        K: RefKey + ?Sized,
    {
        debug_assert!(self.is_web_only());
        match &self.web {
            Some(web) => self.key_web(web, s, key),
            None => self.key_by(s, key),
        }
    }

    /// The key of `r`, a parsed reference that is its own `href`
    /// ([`crate::web::is_own_href_parsed`]), when [`Prep::is_web_only`]:
    /// what [`Prep::key_web_line`] gives for `r.as_str()`, from the parse.
    /// `None` on a key error, which the full path locates.
    pub(crate) fn key_own_href<'k, K>(&self, r: &crate::IriRef<'k>, key: &K) -> Option<Cow<'k, str>>
    where
        K: RefKey + ?Sized,
    {
        if self.href_is_key {
            return Some(Cow::Borrowed(r.as_str()));
        }
        key.key_parsed(r).ok()
    }

    /// Web mode: the URL Standard's parser, if that is the mode.
    pub fn web(&self) -> Option<&WebParser> {
        self.web.as_ref()
    }

    /// The same, with a row's own base (`--base-column`): in web mode the
    /// base is parsed by the URL Standard (an error if it rejects it).
    pub fn with_row_base(&self, base: &str) -> crate::Result<Self> {
        let mut p = self.clone().with_base_http(is_http(base));
        if let Some(w) = &p.web {
            p.web = Some(w.rebased(base)?);
        }
        Ok(p)
    }

    /// The same, with another answer to "is the base http(s)?" (per-row
    /// bases of CSV input).
    pub fn with_base_http(mut self, base_http: bool) -> Self {
        self.base_http = base_http;
        self
    }

    /// One reference string, preprocessed and with its query re-encoded.
    pub fn one<'a>(&self, s: &'a str) -> Cow<'a, str> {
        let s = match &self.pre {
            Some(p) => REPAIRS.with(|c| {
                let mut r = c.get();
                let out = p.apply(s, &mut r);
                c.set(r);
                out
            }),
            None => Cow::Borrowed(s),
        };
        match self.query {
            Some(cs) => match requery(&s, cs, self.base_http) {
                Some(q) => Cow::Owned(q),
                None => s,
            },
            None => s,
        }
    }

    /// The key of a line: prepared, then `key`; with `--split-spaces` the
    /// keys of the items joined by one space (an error if any item fails).
    pub fn key<'k, K>(&self, s: &'k str, key: &K) -> crate::Result<Cow<'k, str>>
    where
        K: for<'x> Fn(&'x str) -> crate::Result<Cow<'x, str>>,
    {
        self.key_by(s, key)
    }

    /// [`Prep::key`] with any [`RefKey`] (the ladder keys web mode's fast
    /// path from its parse).
    pub(crate) fn key_by<'k, K>(&self, s: &'k str, key: &K) -> crate::Result<Cow<'k, str>>
    where
        K: RefKey + ?Sized,
    {
        if !self.split {
            return self.key_one(s, key);
        }
        let mut items = split_spaces(s);
        let Some(first) = items.next() else {
            return self.key_one(s, key);
        };
        let mut out = match self.key_one(first, key)? {
            // A single item that is the whole line: keep the borrow.
            Cow::Borrowed(k) if first.len() == s.len() => return Ok(Cow::Borrowed(k)),
            k => k.into_owned(),
        };
        for item in items {
            out.push(' ');
            out.push_str(&self.key_one(item, key)?);
        }
        Ok(Cow::Owned(out))
    }

    fn key_one<'k, K>(&self, s: &'k str, key: &K) -> crate::Result<Cow<'k, str>>
    where
        K: RefKey + ?Sized,
    {
        if let Some(web) = &self.web {
            return self.key_web(web, s, key);
        }
        match self.one(s) {
            Cow::Borrowed(p) => key.key(p),
            Cow::Owned(p) => Ok(Cow::Owned(key.key(&p)?.into_owned())),
        }
    }
}

impl Prep {
    /// Web mode: character references (if asked), then the URL Standard's
    /// parser, then `key` on the `href` (or the `href` itself, see
    /// [`Prep::href_is_key`]). RunError offsets point into `s` as written.
    #[inline]
    fn key_web<'k, K>(&self, web: &WebParser, s: &'k str, key: &K) -> crate::Result<Cow<'k, str>>
    where
        K: RefKey + ?Sized,
    {
        // A reference that is its own `href` has nothing to repair (no
        // visit to the thread's counters) and is keyed from the parse that
        // decided it. A key error goes the full way, which locates it.
        if self.pre.is_none() && web.keys_own_hrefs() {
            let parsed = crate::parse(s);
            if let Ok(r) = &parsed {
                if crate::web::is_own_href_parsed(r) {
                    if let Some(k) = self.key_own_href(r, key) {
                        return Ok(k);
                    }
                }
            }
        }
        self.key_web_full(web, s, key)
    }

    /// [`Prep::key_web`] through the `url` crate: every line the fast path
    /// did not key.
    #[inline(never)]
    fn key_web_full<'k, K>(
        &self,
        web: &WebParser,
        s: &'k str,
        key: &K,
    ) -> crate::Result<Cow<'k, str>>
    where
        K: RefKey + ?Sized,
    {
        REPAIRS.with(|c| {
            let mut r = c.get();
            let input = match &self.pre {
                Some(p) => p.apply(s, &mut r),
                None => Cow::Borrowed(s),
            };
            // Without character references the fast path was tried above.
            let k = match &self.pre {
                Some(_) => web.key(&input, self.href_is_key, &mut r, |t| key.key(t)),
                None => web.key_full(&input, self.href_is_key, &mut r, &|t| key.key(t)),
            }
            .map(|k| Cow::Owned(k.into_owned()));
            c.set(r);
            k.map_err(|e| locate(s, &input, e))
        })
    }

    /// The key of a reference `s` of a CSV/TSV row whose base column holds
    /// `base` (RFC 3986 §5.2; `None`: no base column, `key` alone decides),
    /// prepared as [`Prep::key`] does. A base that is not an absolute IRI
    /// rejects the row with `invalid base: …`. In web mode the URL Standard
    /// parses the base and resolves against it instead.
    pub fn key_with_base<'k, K>(
        &self,
        s: &'k str,
        base: Option<&str>,
        key: &K,
    ) -> Result<Cow<'k, str>, RejectReason>
    where
        K: for<'x> Fn(&'x str) -> crate::Result<Cow<'x, str>>,
    {
        self.key_with_base_by(s, base, key)
    }

    /// [`Prep::key_with_base`] with any [`RefKey`].
    pub(crate) fn key_with_base_by<'k>(
        &self,
        s: &'k str,
        base: Option<&str>,
        key: &(impl RefKey + ?Sized),
    ) -> Result<Cow<'k, str>, RejectReason> {
        let Some(b) = base else {
            return self.key_by(s, key).map_err(RejectReason::Key);
        };
        if self.web.is_some() {
            // Web mode: the URL Standard parses the base and resolves.
            return self
                .with_row_base(b)
                .map_err(|e| RejectReason::Other(format!("invalid base: {e}")))?
                .key_by(s, key)
                .map(|k| Cow::Owned(k.into_owned()))
                .map_err(RejectReason::Key);
        }
        let bp = crate::parse(b).map_err(|e| RejectReason::Other(format!("invalid base: {e}")))?;
        if !bp.is_absolute() {
            return Err(RejectReason::Other(format!(
                "invalid base: {}",
                crate::Error::new(0, crate::ErrorKind::BaseNotAbsolute)
            )));
        }
        self.clone()
            .with_base_http(is_http(b))
            .key(s, &|t| {
                let r = crate::parse(t)?;
                if r.is_absolute() {
                    key.key(t)
                } else {
                    Ok(Cow::Owned(key.key(&crate::resolve(&bp, &r))?.into_owned()))
                }
            })
            .map(|k| Cow::Owned(k.into_owned()))
            .map_err(RejectReason::Key)
    }
}

/// An error located in `input` (`s` after character references were
/// decoded), moved to `s`, the line as written.
#[cold]
fn locate(s: &str, input: &str, mut e: crate::Error) -> crate::Error {
    if input.len() != s.len() {
        e.offset = crate::preprocess::offset_before_decoding(s, e.offset);
    }
    e
}

/// §3.5: `s` with its query percent-encoded from `cs`, if `s` is an http(s)
/// reference (or a relative one with an http(s) base) whose query has
/// non-ASCII characters; `None` when nothing changes.
///
/// The query starts at the first `?` and ends at the first `#`: neither
/// character can occur earlier in a reference (scheme, authority and path
/// exclude both), and a `?` after the first `#` belongs to the fragment.
fn requery(s: &str, cs: Charset, base_http: bool) -> Option<String> {
    let http = match scheme_of(s) {
        Some(_) => is_http(s),
        None => base_http,
    };
    if !http {
        return None;
    }
    let end = s.find('#').unwrap_or(s.len());
    let q = s[..end].find('?')? + 1;
    match encode_query(&s[q..end], cs) {
        Cow::Borrowed(_) => None,
        Cow::Owned(enc) => {
            let mut out = String::with_capacity(s.len() + enc.len());
            out.push_str(&s[..q]);
            out.push_str(&enc);
            out.push_str(&s[end..]);
            Some(out)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_reencoded_only_for_http() {
        let sjis: Charset = "shift_jis".parse().unwrap();
        assert_eq!(
            requery("http://a/p?q=検索#frag?x", sjis, false).as_deref(),
            Some("http://a/p?q=%8C%9F%8D%F5#frag?x")
        );
        assert_eq!(requery("http://a/検?x#検", sjis, false), None);
        assert_eq!(requery("mailto:x?subject=検", sjis, false), None);
        assert_eq!(requery("p?検", sjis, true).as_deref(), Some("p?%8C%9F"));
        assert_eq!(requery("p?検", sjis, false), None);
        assert_eq!(scheme_of("HTTPS://x"), Some("HTTPS"));
        assert_eq!(scheme_of("a/b:c"), None);
        assert_eq!(scheme_of("1a:b"), None);
    }
}
