//! Web mode (`--mode web`): references read the way browsers read them.
//!
//! draft-ietf-iri-3987bis §7.2 ("Web Address processing") and
//! draft-weber-iri-guidelines §4 describe what browsers do with an `href`
//! before it is an IRI: trim, strip TAB/CR/LF, accept `\` as a path
//! separator, percent-encode what an IRI does not allow, keep a lone `%`.
//! Browsers have since written that behaviour down exactly, as the WHATWG URL
//! Standard (<https://url.spec.whatwg.org/>, §4.4 "URL parsing", the *basic
//! URL parser*), and test it with web-platform-tests' `urltestdata.json`
//! (copied in `tests/wpt/`, run by `tests/wpt.rs`). So in web mode the §7.2
//! steps 1–5 are that parser: [`WebParser::parse`] runs the `url` crate
//! (servo's implementation of the Standard) on the reference, with its base
//! (URL Standard §4.4 with *base*; not RFC 3986 §5.2), and the result is the
//! URL's serialization, its `href` (§4.5 "URL serializing").
//!
//! The `href` is where the comparison ladder starts: at the string rung it
//! *is* the key ([`Href::as_str`]); the higher rungs normalize
//! [`Href::to_uri_ref`], the same text with the few ASCII characters that the
//! Standard leaves raw but RFC 3986 does not allow (`|`, `^`, `` ` ``, `{`,
//! `}`, `\`, `"`, space in opaque paths, `[`/`]` outside an IP literal, a
//! second `#`, a `%` not followed by two hex digits) percent-encoded, which
//! is what §7.2 steps 3–4 do (an `href` is always ASCII: the Standard encodes
//! every non-ASCII character, and IDNA turns hosts into A-labels).
//!
//! What stays ours, in this order, before the parser sees the line (see
//! `crate::preprocess` and the CLI's `Prep`): `--split-spaces` (002 §4
//! step 2), character references (3987bis §5.2, "before anything else").
//! `--query-encoding` (§3.5, the *HRef-charset* of §7.2) is given to the
//! parser as the Standard's *encoding* (§4.4, query state): it applies to the
//! query of `http`, `https`, `ftp` and `file` URLs, and unmappable characters
//! become `&#N;` before percent-encoding, as in a browser.
//!
//! # Repairs
//!
//! What the parser changed is counted from its *validation errors* (URL
//! Standard §4.4; the `url` crate's `SyntaxViolation` callback), by kind, in
//! [`Repairs`], on the lines whose `href` differs from the input (a line that
//! comes out as it went in was not repaired). Leading/trailing C0-or-space,
//! TAB/CR/LF and backslashes are counted per character (the callback reports
//! them once per place). The callback costs the parser a check per
//! character, so a line is parsed without it first and again with it only
//! when its `href` differs, which keeps web mode close to the bare parser
//! (BENCHMARKS.md, decision log: "Web mode").
//!
//! # Errors
//!
//! A reference the Standard rejects is an [`ErrorKind::UrlStandard`] whose
//! text is the parser's reason (`empty host`, `invalid IPv4 address`, …). Its
//! offset, like that of an error the ladder finds later in the `href`
//! ([`map_offset`]), points into the reference *as written*: at the start of
//! the component at fault (the host for host errors, …), or at the first
//! character of the reference when that component came from the base.

use std::borrow::Cow;
use std::cell::Cell;

use url::{ParseError, SyntaxViolation, Url};

use crate::chars;
use crate::decode::Charset;
use crate::error::{Component, Error, ErrorKind, Result};
use crate::preprocess::Repairs;

mod fast;
mod hosts;
mod rewrite;
pub use fast::{is_own_href, is_own_href_parsed};
pub use rewrite::rewritten_href;

/// A configured WHATWG parser: the base and the query's charset.
///
/// Cheap to clone (the base is one `String` plus offsets); `Send + Sync`.
#[derive(Debug, Clone, Default)]
pub struct WebParser {
    base: Option<Url>,
    query: Option<Charset>,
}

/// The result of [`WebParser::parse`]: the URL Standard's serialization of a
/// reference (always absolute, always ASCII).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Href(String);

impl WebParser {
    /// No base, UTF-8 queries.
    pub fn new() -> Self {
        WebParser::default()
    }

    /// Relative references resolve against `base` (URL Standard §4.4 with a
    /// base URL). The base is itself parsed by the Standard; an error's
    /// offset points into `base`.
    pub fn with_base(mut self, base: &str) -> Result<Self> {
        let parsed = Url::parse(base).map_err(|e| standard_error(base, e))?;
        self.base = Some(parsed);
        Ok(self)
    }

    /// The same parser with another base (a `--base-column` row's).
    pub fn rebased(&self, base: &str) -> Result<Self> {
        self.clone().with_base(base)
    }

    /// Queries of `http`, `https`, `ftp` and `file` URLs are encoded in `cs`
    /// (3987bis §3.5 and §7.2 HRef-charset; URL Standard §4.4 *encoding*).
    pub fn with_query_encoding(mut self, cs: Option<Charset>) -> Self {
        self.query = cs.filter(|c| !c.is_unicode());
        self
    }

    /// The base, if any.
    pub fn base(&self) -> Option<&str> {
        self.base.as_ref().map(Url::as_str)
    }

    /// Parses `input` (one reference, without its line terminator) and adds
    /// what the parser repaired to `repairs`.
    pub fn parse(&self, input: &str, repairs: &mut Repairs) -> Result<Href> {
        // A reference that is its own `href` (see `fast`) is not parsed.
        if self.keys_own_hrefs() && is_own_href(input) {
            return Ok(Href(input.to_owned()));
        }
        self.parse_full(input, repairs)
    }

    /// [`WebParser::parse`] without the fast path: the `url` crate.
    fn parse_full(&self, input: &str, repairs: &mut Repairs) -> Result<Href> {
        // The fast path keys most lines that come out as they went in;
        // almost every other line is rewritten, and its repairs counted:
        // one run that logs them rather than a plain run and a logged one.
        let seen = Violations::default();
        let mut href = self.run(input, Some(&|v| seen.log(v)))?;
        // An `href` that is its own (the fast path's proven predicate) is
        // its own fixed point: no second run.
        if href.starts_with("file:") && !is_own_href(&href) {
            href = file_fixed_point(href);
        }
        if href != input {
            seen.add_to(input, repairs);
            repairs.lines_changed += 1;
        }
        Ok(Href(href))
    }

    /// One run of the basic URL parser, with this base and encoding.
    fn run(&self, input: &str, log: Option<&dyn Fn(SyntaxViolation)>) -> Result<String> {
        let encode;
        let mut opts = Url::options()
            .base_url(self.base.as_ref())
            .syntax_violation_callback(log);
        if let Some(cs) = self.query {
            encode = encoder(cs);
            opts = opts.encoding_override(Some(&encode));
        }
        match opts.parse(input) {
            Ok(url) => Ok(String::from(url)),
            Err(e) => Err(standard_error(input, e)),
        }
    }

    /// The key of `input` in web mode: [`WebParser::parse`], then `key` on
    /// [`Href::to_uri_ref`] — or, with `href_is_key` (the string rung,
    /// 3987bis §5.3.1), the `href` itself. An error's offset points into
    /// `input` ([`map_offset`]). Borrowed when `input` is its own `href`
    /// ([`is_own_href`]) and `key` borrows.
    pub fn key<'a, K>(
        &self,
        input: &'a str,
        href_is_key: bool,
        repairs: &mut Repairs,
        key: K,
    ) -> Result<Cow<'a, str>>
    where
        K: for<'x> Fn(&'x str) -> Result<Cow<'x, str>>,
    {
        if let Some(k) = self.key_fast(input, href_is_key, &key) {
            return Ok(k);
        }
        self.key_full(input, href_is_key, repairs, &key)
    }

    /// [`WebParser::key`] without the fast path (for a caller that tried
    /// it): the `url` crate's `href`, then `key`.
    pub(crate) fn key_full<'a>(
        &self,
        input: &'a str,
        href_is_key: bool,
        repairs: &mut Repairs,
        key: &dyn for<'x> Fn(&'x str) -> Result<Cow<'x, str>>,
    ) -> Result<Cow<'a, str>> {
        let href = self.parse_full(input, repairs)?;
        if href_is_key {
            return Ok(Cow::Owned(href.into_string()));
        }
        let uri = href.to_uri_ref();
        match key(&uri) {
            Ok(k) => Ok(Cow::Owned(k.into_owned())),
            Err(e) => Err(map_offset(input, &uri, e)),
        }
    }

    /// The fast path applies: no legacy query charset, whose bytes are
    /// left to the parser.
    pub(crate) fn keys_own_hrefs(&self) -> bool {
        self.query.is_none()
    }

    /// The fast path of [`WebParser::key`]: `input` keyed as written when
    /// it is its own `href` ([`is_own_href`]; then the parser has nothing
    /// to repair). `None` sends it through the parser: not its own `href`,
    /// a legacy query charset (whose bytes are left to the parser), or a
    /// key error (which the full path locates in the reference).
    fn key_fast<'a, K>(&self, input: &'a str, href_is_key: bool, key: &K) -> Option<Cow<'a, str>>
    where
        K: for<'x> Fn(&'x str) -> Result<Cow<'x, str>>,
    {
        if !self.keys_own_hrefs() || !is_own_href(input) {
            return None;
        }
        if href_is_key {
            return Some(Cow::Borrowed(input));
        }
        key(input).ok()
    }
}

impl Href {
    /// An `href` obtained elsewhere (another WHATWG parser, a test's
    /// expectation), for [`Href::to_uri_ref`]. It must be a URL Standard
    /// serialization (ASCII, absolute) for that to give a URI.
    pub fn from_href(href: String) -> Self {
        Href(href)
    }

    /// The `href`: the key at the string rung (3987bis §5.3.1).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }

    /// The `href` as an RFC 3986 URI (3987bis §7.2 steps 3–4 on the
    /// Standard's output): the ASCII characters RFC 3986 does not allow
    /// where they stand percent-encoded, a `%` not followed by two hex
    /// digits written `%25`. Borrowed when the `href` already is a URI.
    pub fn to_uri_ref(&self) -> Cow<'_, str> {
        let s = self.0.as_bytes();
        let mut scan = UriScan::new(s);
        // One table lookup per byte while nothing needs encoding (the
        // common case: the `href` is already a URI).
        let mut first = 0;
        loop {
            if first == s.len() {
                return Cow::Borrowed(&self.0);
            }
            if chars::QUERY_OK[s[first] as usize] == 0 && scan.encode(first) {
                break;
            }
            first += 1;
        }
        let mut out = String::with_capacity(s.len() + 8);
        out.push_str(&self.0[..first]);
        chars::push_pct(&mut out, s[first]);
        for (i, &b) in s.iter().enumerate().skip(first + 1) {
            if scan.encode(i) {
                chars::push_pct(&mut out, b);
            } else {
                out.push(b as char);
            }
        }
        Cow::Owned(out)
    }
}

/// The state of a left-to-right walk over an `href`: whether the byte at
/// `i` must be percent-encoded to make it an RFC 3986 URI.
struct UriScan<'a> {
    s: &'a [u8],
    /// The authority, computed at the first bracket.
    auth: Option<Option<(usize, usize)>>,
    fragment: bool,
}

impl<'a> UriScan<'a> {
    fn new(s: &'a [u8]) -> Self {
        UriScan {
            s,
            auth: None,
            fragment: false,
        }
    }

    /// RFC 3986 §2: `unreserved`, `sub-delims`, `:`, `@`, `/`, `?` stay
    /// (`chars::QUERY_OK`); `%`, `[`, `]`, `#` depend on where they stand;
    /// anything else (an `href` is ASCII) is encoded.
    #[inline]
    fn encode(&mut self, i: usize) -> bool {
        let b = self.s[i];
        if chars::QUERY_OK[b as usize] == 1 {
            return false;
        }
        match b {
            b'%' => !hex2_at(self.s, i + 1),
            b'[' | b']' => {
                let auth = *self.auth.get_or_insert_with(|| authority_range(self.s));
                !auth.is_some_and(|(a, e)| a <= i && i < e)
            }
            // The first `#` starts the fragment; RFC 3986 allows no other.
            b'#' => std::mem::replace(&mut self.fragment, true),
            _ => true,
        }
    }
}

impl std::fmt::Display for Href {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The URL Standard's *encode* of a query piece in `cs` (unmappable
/// characters as `&#N;`, as encoding_rs and the Encoding Standard do).
fn encoder(cs: Charset) -> impl for<'q> Fn(&'q str) -> Cow<'q, [u8]> {
    move |q| cs.encoding().output_encoding().encode(q).0
}

fn hex2_at(b: &[u8], i: usize) -> bool {
    matches!(b.get(i..i + 2), Some(&[x, y]) if chars::is(x, chars::HEX) && chars::is(y, chars::HEX))
}

/// The authority of a serialized URL (`scheme://authority`), if any.
fn authority_range(s: &[u8]) -> Option<(usize, usize)> {
    let colon = s.iter().position(|&b| b == b':')?;
    let start = colon + 3;
    if !s[colon + 1..].starts_with(b"//") {
        return None;
    }
    let end = s[start..]
        .iter()
        .position(|&b| matches!(b, b'/' | b'?' | b'#'))
        .map_or(s.len(), |p| start + p);
    Some((start, end))
}

/// Validation errors seen during one parse.
#[derive(Default)]
struct Violations {
    backslash: Cell<u64>,
    c0_space: Cell<bool>,
    tab_newline: Cell<bool>,
    double_slash: Cell<u64>,
    non_url: Cell<u64>,
    percent: Cell<u64>,
    at_sign: Cell<u64>,
    dropped: Cell<u64>,
}

impl Violations {
    fn log(&self, v: SyntaxViolation) {
        let bump = |c: &Cell<u64>| c.set(c.get() + 1);
        match v {
            SyntaxViolation::Backslash => bump(&self.backslash),
            SyntaxViolation::C0SpaceIgnored => self.c0_space.set(true),
            SyntaxViolation::TabOrNewlineIgnored => self.tab_newline.set(true),
            SyntaxViolation::ExpectedDoubleSlash | SyntaxViolation::ExpectedFileDoubleSlash => {
                bump(&self.double_slash)
            }
            SyntaxViolation::NonUrlCodePoint => bump(&self.non_url),
            SyntaxViolation::PercentDecode => bump(&self.percent),
            SyntaxViolation::UnencodedAtSign => bump(&self.at_sign),
            SyntaxViolation::NullInFragment | SyntaxViolation::FileWithHostAndWindowsDrive => {
                bump(&self.dropped)
            }
            // Credentials are kept as written: nothing was repaired.
            SyntaxViolation::EmbeddedCredentials => {}
            // `SyntaxViolation` is non-exhaustive.
            _ => bump(&self.dropped),
        }
    }

    fn add_to(&self, input: &str, r: &mut Repairs) {
        // The parser trims C0 controls and space (<= U+0020) at both ends,
        // then removes every TAB/CR/LF left inside.
        let t = input.trim_matches(|c: char| c <= ' ');
        if self.c0_space.get() {
            r.trimmed += (input.len() - t.len()) as u64;
        }
        if self.tab_newline.get() {
            r.removed_tab_cr_lf += t.bytes().filter(is_tab_newline).count() as u64;
        }
        if self.backslash.get() > 0 {
            // Reported once per place; in a special URL every `\` before
            // the query or fragment is read as `/`.
            let end = t.find(['?', '#']).unwrap_or(t.len());
            r.backslashes += t[..end].bytes().filter(|&b| b == b'\\').count() as u64;
        }
        r.slashes_fixed += self.double_slash.get();
        r.non_url_chars += self.non_url.get();
        r.lone_percent += self.percent.get();
        r.at_signs_encoded += self.at_sign.get();
        r.other_fixes += self.dropped.get();
    }
}

fn is_tab_newline(b: &u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\r')
}

/// A rejection by the Standard, located in `input`.
#[cold]
fn standard_error(input: &str, e: ParseError) -> Error {
    let spans = Spans::of(input);
    let at = match e {
        ParseError::EmptyHost
        | ParseError::IdnaError
        | ParseError::InvalidIpv4Address
        | ParseError::InvalidIpv6Address
        | ParseError::InvalidDomainCharacter => spans.host.unwrap_or(spans.start),
        ParseError::InvalidPort => spans.port.or(spans.host).unwrap_or(spans.start),
        _ => spans.start,
    };
    Error::new(at, ErrorKind::UrlStandard(e.to_string()))
}

/// A `file:` href parsed again until it no longer changes (at most three
/// times). The `url` crate lags the Standard on `file:` hosts and Windows
/// drive letters (tests/wpt/expected_failures.txt), and there its output can
/// parse to something else (`file://h//v|/x` → `file://h/v|/x` →
/// `file:///v:/x`, found by the `preprocess` fuzz target): a key must be a
/// fixed point, so the last spelling is kept.
fn file_fixed_point(mut href: String) -> String {
    for _ in 0..3 {
        match Url::parse(&href) {
            Ok(u) if u.as_str() != href => href = String::from(u),
            _ => break,
        }
    }
    href
}

/// Maps an error the ladder found in [`Href::to_uri_ref`] of `input` to the
/// reference as written: its offset moves to the start of the same component
/// in `input` (the reference's first character when `input` has no such
/// component, e.g. a path-only reference whose host came from the base).
#[cold]
pub fn map_offset(input: &str, uri: &str, mut e: Error) -> Error {
    let from = crate::parse(uri).map_or_else(|_| Spans::of(uri), |r| Spans::of_parsed(&r));
    let to = Spans::of(input);
    e.offset = match from.component_at(e.offset) {
        Some(c) => to.start_of(c).unwrap_or(to.start),
        None => to.start,
    };
    e
}

/// Where the components of a reference start, read leniently the way the
/// basic URL parser reads them (leading C0/space skipped, TAB/CR/LF ignored,
/// `\` a separator in special URLs). Offsets are into the text as written.
#[derive(Debug, Default)]
struct Spans {
    start: usize,
    scheme: Option<usize>,
    userinfo: Option<usize>,
    host: Option<usize>,
    port: Option<usize>,
    path: Option<usize>,
    query: Option<usize>,
    fragment: Option<usize>,
}

impl Spans {
    fn of(text: &str) -> Spans {
        // Positions of the characters the parser sees.
        let t = text.trim_matches(|c: char| c <= ' ');
        let lead = t.as_ptr() as usize - text.as_ptr() as usize;
        let seen: Vec<(usize, u8)> = t
            .bytes()
            .enumerate()
            .filter(|(_, b)| !is_tab_newline(b))
            .map(|(i, b)| (lead + i, b))
            .collect();
        let b: Vec<u8> = seen.iter().map(|&(_, c)| c).collect();
        let at = |i: usize| seen.get(i).map_or(lead + t.len(), |&(o, _)| o);
        let mut sp = Spans {
            start: at(0),
            ..Spans::default()
        };
        let mut i = 0;
        let mut special = true; // a relative reference: decided by the base
        let mut file = false;
        if b.first().is_some_and(u8::is_ascii_alphabetic) {
            if let Some(n) = b
                .iter()
                .position(|&c| !(c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.')))
            {
                if b[n] == b':' {
                    let scheme = String::from_utf8_lossy(&b[..n]).to_ascii_lowercase();
                    file = scheme == "file";
                    special = crate::scheme::get(&scheme).is_some_and(|r| r.special);
                    sp.scheme = Some(at(0));
                    i = n + 1;
                }
            }
        }
        let sep = |c: u8| c == b'/' || (special && c == b'\\');
        let slashes = b[i..].iter().take_while(|&&c| sep(c)).count();
        // Special schemes but `file` read a host after any number of
        // slashes, even none (`http:h`); others after exactly two.
        let skip_all = sp.scheme.is_some() && special && !file;
        if skip_all || slashes >= 2 {
            i += if skip_all { slashes } else { 2 };
            let end = b[i..]
                .iter()
                .position(|&c| sep(c) || c == b'?' || c == b'#')
                .map_or(b.len(), |p| i + p);
            let mut h = i;
            if let Some(atp) = b[i..end].iter().rposition(|&c| c == b'@') {
                sp.userinfo = Some(at(i));
                h = i + atp + 1;
            }
            sp.host = Some(at(h));
            let mut in_brackets = false;
            for (k, &c) in b.iter().enumerate().take(end).skip(h) {
                match c {
                    b'[' => in_brackets = true,
                    b']' => in_brackets = false,
                    b':' if !in_brackets => {
                        sp.port = Some(at(k + 1));
                        break;
                    }
                    _ => {}
                }
            }
            i = end;
        }
        let q = b[i..].iter().position(|&c| c == b'?' || c == b'#');
        let path_end = q.map_or(b.len(), |p| i + p);
        if path_end > i {
            sp.path = Some(at(i));
        }
        if let Some(f) = b[i..].iter().position(|&c| c == b'#') {
            sp.fragment = Some(at(i + f + 1));
        }
        if b.get(path_end) == Some(&b'?') {
            sp.query = Some(at(path_end + 1));
        }
        sp
    }

    /// The exact spans of a parsed reference.
    fn of_parsed(r: &crate::IriRef<'_>) -> Spans {
        let s = r.as_str();
        let at = |part: &str| part.as_ptr() as usize - s.as_ptr() as usize;
        let (ps, pe) = r.path_range();
        Spans {
            start: 0,
            scheme: r.scheme().map(|_| 0),
            userinfo: r.userinfo().map(at),
            host: r.host_range().map(|(hs, _)| hs),
            port: r.port().map(at),
            path: (pe > ps).then_some(ps),
            query: r.query().map(at),
            fragment: r.fragment().map(at),
        }
    }

    /// The component that contains offset `o` (the last one starting at or
    /// before it).
    fn component_at(&self, o: usize) -> Option<Component> {
        [
            (self.scheme, Component::Scheme),
            (self.userinfo, Component::Userinfo),
            (self.host, Component::Host),
            (self.port, Component::Port),
            (self.path, Component::Path),
            (self.query, Component::Query),
            (self.fragment, Component::Fragment),
        ]
        .into_iter()
        .filter_map(|(s, c)| s.filter(|&s| s <= o).map(|s| (s, c)))
        .max_by_key(|&(s, _)| s)
        .map(|(_, c)| c)
    }

    fn start_of(&self, c: Component) -> Option<usize> {
        match c {
            Component::Scheme => self.scheme,
            Component::Userinfo => self.userinfo,
            Component::Host => self.host,
            Component::Port => self.port,
            Component::Path => self.path,
            Component::Query => self.query,
            Component::Fragment => self.fragment,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Level, Normalizer, Options};

    fn href(s: &str) -> String {
        WebParser::new()
            .parse(s, &mut Repairs::default())
            .unwrap()
            .into_string()
    }

    #[test]
    fn browsers_merge_these() {
        // The misses listed in issue 11: what a browser fetches.
        for (input, want) in [
            ("http:/example.com/", "http://example.com/"),
            ("http:example.com/", "http://example.com/"),
            ("http://0xc0.0250.01", "http://192.168.0.1/"),
            ("http://999999999", "http://59.154.201.255/"),
            ("http://:@www.example.com", "http://www.example.com/"),
            ("http://example.com/foo%", "http://example.com/foo%"),
            ("ht\ttp://exa\r\nmple.com/p\tq", "http://example.com/pq"),
            ("http://us\\er@h/", "http://us/er@h/"),
            (" \u{1}http:\\\\h\\a\\..\\b c ", "http://h/b%20c"),
            ("HTTP://EXAMPLE.com:80/./a", "http://example.com/a"),
        ] {
            assert_eq!(href(input), want, "{input:?}");
        }
    }

    #[test]
    fn base_is_resolved_by_the_standard() {
        let p = WebParser::new().with_base("http://h/a/b?q").unwrap();
        let mut r = Repairs::default();
        let at = |s: &str, r: &mut Repairs| p.parse(s, r).unwrap().into_string();
        assert_eq!(at("../c", &mut r), "http://h/c");
        assert_eq!(at("\\\\x\\y", &mut r), "http://x/y");
        assert_eq!(at("?z", &mut r), "http://h/a/b?z");
        assert_eq!(at("", &mut r), "http://h/a/b?q");
        let e = WebParser::new().parse("../c", &mut r).unwrap_err();
        assert_eq!(
            e.kind,
            ErrorKind::UrlStandard("relative URL without a base".into())
        );
        let e = WebParser::new().with_base("http://[::1/").unwrap_err();
        assert_eq!(e.offset, 7);
    }

    #[test]
    fn repairs_by_kind() {
        let mut r = Repairs::default();
        let h = WebParser::new()
            .parse(" \thttp:\\\\e\nx.com\\a b%zz?<#\u{0}x\t", &mut r)
            .unwrap();
        assert_eq!(h.as_str(), "http://ex.com/a%20b%zz?%3C#%00x");
        assert_eq!(r.trimmed, 3);
        assert_eq!(r.removed_tab_cr_lf, 1);
        assert_eq!(r.backslashes, 3);
        assert_eq!(r.lone_percent, 1);
        // Space and `<` (the `url` crate reports no error for a NUL in a
        // fragment, which it percent-encodes).
        assert_eq!(r.non_url_chars, 2);
        assert_eq!(r.lines_changed, 1);
        let mut r = Repairs::default();
        WebParser::new().parse("http:h/", &mut r).unwrap();
        assert_eq!((r.slashes_fixed, r.lines_changed), (1, 1));
        let mut r = Repairs::default();
        WebParser::new().parse("http://a@b@h/", &mut r).unwrap();
        assert_eq!(r.at_signs_encoded, 1);
        let mut r = Repairs::default();
        WebParser::new().parse("http://h/x", &mut r).unwrap();
        assert!(r.is_empty(), "{r:?}");
    }

    #[test]
    fn rejections_point_into_the_line_as_written() {
        let err = |s: &str| {
            WebParser::new()
                .parse(s, &mut Repairs::default())
                .unwrap_err()
        };
        let e = err("  http://us er@exa mple.com/");
        assert_eq!(e.offset, 15, "{e}");
        assert_eq!(
            e.to_string(),
            "not a URL (URL Standard): invalid international domain name at byte 15"
        );
        assert_eq!(err("http://h:99999/").offset, 9);
        assert_eq!(err("ht\ttp://h:x/").offset, 10);
        assert_eq!(err("http://[1::2::3]/").offset, 7);
        assert_eq!(err("http://").offset, 7);
        assert_eq!(err("\t/rel").offset, 1);
        // `file:` reads a host after exactly two slashes, other special
        // schemes after any number.
        assert_eq!(err("file://[::1/x").offset, 7);
        assert_eq!(err("http:\\\\\\[::1/x").offset, 8);
    }

    #[test]
    fn uri_form_of_an_href() {
        for (h, want) in [
            (
                "http://h/a?b|c{d}`e^f\\g#h#i",
                "http://h/a?b%7Cc%7Bd%7D%60e%5Ef%5Cg#h%23i",
            ),
            ("http://h/foo%", "http://h/foo%25"),
            ("http://[::1]/a[b]", "http://[::1]/a%5Bb%5D"),
            ("sc:\\../", "sc:%5C../"),
            ("sc://%/", "sc://%25/"),
            ("non-special:opaque  x", "non-special:opaque%20%20x"),
            ("http://h/%41", "http://h/%41"),
        ] {
            assert_eq!(Href(h.into()).to_uri_ref(), want);
            crate::parse(&Href(h.into()).to_uri_ref()).unwrap();
        }
        assert!(matches!(
            Href("http://h/a".into()).to_uri_ref(),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn key_starts_from_the_href() {
        let n = |level| {
            Normalizer::new(Options {
                level,
                ..Options::default()
            })
        };
        let w = WebParser::new();
        let key = |s: &str, level: Level| {
            let n = n(level);
            w.key(s, level == Level::String, &mut Repairs::default(), |t| {
                n.key(t)
            })
            .map(Cow::into_owned)
        };
        assert_eq!(
            key("http://h/a?b|c", Level::String).unwrap(),
            "http://h/a?b|c"
        );
        assert_eq!(
            key("http://h/a?b|c", Level::Syntax).unwrap(),
            "http://h/a?b%7Cc"
        );
        assert_eq!(key("HTTP://h/%7e", Level::Scheme).unwrap(), "http://h/~");
        // The ladder's error, located in the line as written.
        // A 64-letter label: the Standard does not check DNS lengths
        // (VerifyDnsLength false), the scheme rung does (3987bis §3.4).
        let long = format!("  http://{}.com/", "a".repeat(64));
        assert_eq!(key(&long, Level::Syntax).unwrap(), long.trim());
        let e = key(&long, Level::Scheme).unwrap_err();
        assert!(matches!(e.kind, ErrorKind::Idna(_)), "{e}");
        assert_eq!(e.offset, 9);
    }

    #[test]
    fn query_encoding_is_the_standards_encoding() {
        let sjis: Charset = "shift_jis".parse().unwrap();
        let w = WebParser::new().with_query_encoding(Some(sjis));
        let mut r = Repairs::default();
        let h = |s: &str, r: &mut Repairs| w.parse(s, r).unwrap().into_string();
        assert_eq!(
            h("http://a/検?q=検#検", &mut r),
            "http://a/%E6%A4%9C?q=%8C%9F#%E6%A4%9C"
        );
        // Not for non-special schemes (URL Standard §4.4); unmappable
        // characters become a numeric character reference first.
        assert_eq!(h("sc://a/?検", &mut r), "sc://a/?%E6%A4%9C");
        assert_eq!(h("http://a/?\u{1F600}", &mut r), "http://a/?&%23128512;");
    }
}
