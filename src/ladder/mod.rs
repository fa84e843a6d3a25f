//! The comparison ladder (draft-ietf-iri-3987bis §5.3).
//!
//! | rung | section | what it merges |
//! |---|---|---|
//! | [`Level::String`] | §5.3.1 | nothing: the characters as given |
//! | [`Level::Syntax`] | §5.3.2, RFC 3986 §6.2.2 | case of scheme/host/hex, `%7E`≡`~`, raw ≡ UTF-8 percent-encoded, dot segments |
//! | [`Level::Scheme`] | §5.3.3, RFC 3986 §6.2.3 | default/empty port, empty path → `/`, IDN ≡ punycode, RFC 5952 IPv6 |
//! | [`Level::Protocol`] | §5.3.4 | rules that need knowledge of the protocol (see the protocol module) |
//!
//! Each rung includes the ones below it. The *key* of a reference at a level
//! is its canonical form, in URI form by default.

#[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
mod compact;
mod http;
pub mod learned;
pub(crate) mod parts;
pub mod protocol;
pub mod scheme;
pub mod syntax;

pub use protocol::ProtocolRung;

use std::borrow::Cow;
use std::sync::Arc;

use crate::error::{Error, ErrorKind, Result};
use crate::iri::{flags, parse, HostKind, IriRef};
use crate::resolve::{has_dot_segments, remove_dot_segments, resolve};
use syntax::{lower, norm_pct, norm_reg_name, normalized_dot_segment, Out};

/// A rung of the comparison ladder (3987bis §5.3). Ordered: each rung
/// includes the ones below it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Level {
    /// §5.3.1 simple string comparison.
    String,
    /// §5.3.2 syntax-based normalization.
    Syntax,
    /// §5.3.3 scheme-based normalization (the default).
    #[default]
    Scheme,
    /// §5.3.4 protocol-based normalization.
    Protocol,
}

impl Level {
    /// All rungs, lowest first.
    pub const ALL: [Level; 4] = [Level::String, Level::Syntax, Level::Scheme, Level::Protocol];

    pub fn name(self) -> &'static str {
        match self {
            Level::String => "string",
            Level::Syntax => "syntax",
            Level::Scheme => "scheme",
            Level::Protocol => "protocol",
        }
    }
}

impl std::str::FromStr for Level {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        Level::ALL
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| format!("unknown level {s:?} (string|syntax|scheme|protocol)"))
    }
}

/// How a key is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Form {
    /// URI form: ASCII only (3987bis §3.6). The default.
    #[default]
    Uri,
    /// IRI form: percent-encoded UTF-8 shown as characters where safe (§3.7).
    Iri,
    /// SURT (Sort-friendly URI Reordering Transform) of the URI-form key:
    /// `com,example)/path?query`; see [`crate::surt`].
    Surt,
}

/// What [`Normalizer`] does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Options {
    pub level: Level,
    pub form: Form,
    /// Apply Unicode NFC to userinfo, path, query and fragment (off by
    /// default: §5.3.2.2 says IRIs already in Unicode MUST NOT be normalized).
    pub nfc: bool,
}

/// Computes keys: parse → resolve against the base (if any) → ladder → form.
#[derive(Clone, Default)]
pub struct Normalizer {
    opts: Options,
    base: Option<String>,
    protocol: Option<Arc<dyn ProtocolRung>>,
    /// How hosts are shown in the IRI form (3987bis §8.6).
    display: crate::host::DisplayPolicy,
}

impl std::fmt::Debug for Normalizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Normalizer")
            .field("opts", &self.opts)
            .field("base", &self.base)
            .field("protocol", &self.protocol.is_some())
            .finish()
    }
}

impl Normalizer {
    pub fn new(opts: Options) -> Self {
        Normalizer {
            opts,
            base: None,
            protocol: None,
            display: Default::default(),
        }
    }

    /// How hosts are shown in [`Form::Iri`] keys from the scheme rung up
    /// (3987bis §8.6; `high` by default): see [`crate::DisplayPolicy`].
    pub fn with_idn_display(mut self, policy: crate::host::DisplayPolicy) -> Self {
        self.display = policy;
        self
    }

    /// Resolve relative references against `base` (RFC 3986 §5.2) before
    /// normalizing. The base must be an absolute IRI.
    pub fn with_base(mut self, base: &str) -> Result<Self> {
        let parsed = parse(base)?;
        if !parsed.is_absolute() {
            return Err(Error::new(0, ErrorKind::BaseNotAbsolute));
        }
        self.base = Some(base.to_owned());
        Ok(self)
    }

    /// Install the protocol rung's rules (used at [`Level::Protocol`]).
    pub fn with_protocol(mut self, rung: Arc<dyn ProtocolRung>) -> Self {
        self.protocol = Some(rung);
        self
    }

    pub fn options(&self) -> &Options {
        &self.opts
    }

    /// The key of `input` at the configured level and form. Borrowed when the
    /// input already is its own key (the common case for clean ASCII URLs).
    pub fn key<'a>(&self, input: &'a str) -> Result<Cow<'a, str>> {
        // By reference: moving the parse result (a `Result` of some 60
        // bytes, just written field by field) into `key_of` makes the CPU
        // wait for its stores to drain (BENCHMARKS.md, decision log: "Store-to-load forwarding").
        let parsed = parse(input);
        let parsed = match &parsed {
            Ok(r) => r,
            Err(e) => return Err(e.clone()),
        };
        if parsed.is_absolute() {
            self.key_of(parsed)
        } else {
            let base = self
                .base
                .as_deref()
                .ok_or_else(|| Error::new(0, ErrorKind::RelativeWithoutBase))?;
            // The base was checked in `with_base`; RFC 3986 §5.2.2.
            let resolved = resolve(&parse(base)?, parsed);
            let key = self.key_of(&parse(&resolved)?)?.into_owned();
            Ok(Cow::Owned(key))
        }
    }

    /// [`Normalizer::key`] of `r.as_str()`, from `r`, its [`parse`]: for a
    /// caller that parsed the reference already (web mode's fast path,
    /// [`crate::web::is_own_href_parsed`]), so it is not parsed twice.
    pub fn key_parsed<'a>(&self, r: &IriRef<'a>) -> Result<Cow<'a, str>> {
        if r.is_absolute() {
            self.key_of(r)
        } else {
            self.key(r.as_str())
        }
    }

    /// Key of an absolute (or, from the library, relative) parsed reference.
    fn key_of<'a>(&self, r: &IriRef<'a>) -> Result<Cow<'a, str>> {
        let level = self.opts.level;
        if level == Level::String {
            // §5.3.1: the characters as given; any mapping would merge
            // strings that differ.
            return Ok(Cow::Borrowed(r.as_str()));
        }
        let mut key = canonical(r, level, self.opts.nfc)?;
        if level == Level::Protocol {
            // No rung installed: the default rules (protocol::Rules::DEFAULT,
            // nothing learned), so `Level::Protocol` always means §5.3.4.
            let default_rung;
            let rung: &dyn ProtocolRung = match &self.protocol {
                Some(rung) => rung.as_ref(),
                None => {
                    default_rung = protocol::ProtocolRules::default();
                    &default_rung
                }
            };
            key = match key {
                // Already canonical: reuse the parse instead of parsing again.
                Cow::Borrowed(k) if std::ptr::eq(k, r.as_str()) => rung.apply(r),
                Cow::Borrowed(k) => rung.apply(&parse(k)?),
                Cow::Owned(k) => Cow::Owned(rung.apply(&parse(&k)?).into_owned()),
            };
        }
        if self.opts.form == Form::Surt {
            // SURT is written from the final URI-form key.
            let surt = crate::surt::surt(&parse(&key)?, &crate::surt::SurtOptions::default());
            return Ok(Cow::Owned(surt));
        }
        if self.opts.form == Form::Iri {
            let idn = (level >= Level::Scheme).then_some(&self.display);
            key = match key {
                Cow::Borrowed(k) => crate::convert::uri_to_iri(&parse(k)?, idn),
                Cow::Owned(k) => {
                    Cow::Owned(crate::convert::uri_to_iri(&parse(&k)?, idn).into_owned())
                }
            };
        }
        Ok(key)
    }
}

/// The canonical URI form of `r` at the syntax or scheme rung: one pass over
/// the components, copying nothing while the text is already canonical.
#[inline]
fn canonical<'a>(r: &IriRef<'a>, level: Level, nfc: bool) -> Result<Cow<'a, str>> {
    if !nfc && is_canonical(r, level) {
        return Ok(Cow::Borrowed(r.as_str()));
    }
    rewrite(r, level, nfc)
}

/// The key of a reference that is not its own key (or may not be): the
/// specialised rewrite of the usual web shape ([`http`]), else the general
/// one. Kept out of line, so the check of the common clean line stays
/// small where it is inlined.
#[inline(never)]
fn rewrite<'a>(r: &IriRef<'a>, level: Level, nfc: bool) -> Result<Cow<'a, str>> {
    if !nfc {
        if let Some(key) = http::rewrite(r, level >= Level::Scheme) {
            return key;
        }
    }
    canonical_rewrite(r, level, nfc)
}

/// `r` is its own key at `level` (syntax or scheme rung, no NFC), decided
/// from the flags of the scan and a few lengths, without visiting the
/// components: the common case of a crawl line. `false` only means "not
/// sure": [`canonical_rewrite`] decides,
/// also every error (a missing host, an overlong DNS label).
///
/// Each condition is a rewrite of `canonical_rewrite` ruled out: case
/// (§5.3.2.1), percent-encoding and non-ASCII (§5.3.2.3, §3.3), dot segments
/// (§5.3.2.4), a port (§5.3.3: default and empty ports), an empty path
/// (§5.3.3), IDNA (an `xn--` label; non-ASCII is ruled out above), IP
/// literals (RFC 5952), `mailto` (its own rules).
#[inline]
fn is_canonical(r: &IriRef<'_>, level: Level) -> bool {
    const REWRITES: u32 = flags::SCHEME_UPPER
        | flags::USERINFO_DIRTY
        | flags::HOST_UPPER
        | flags::HOST_PCT
        | flags::HOST_NON_ASCII
        | flags::PATH_DIRTY
        | flags::QUERY_DIRTY
        | flags::FRAGMENT_DIRTY;
    let f = r.flags();
    if f & REWRITES != 0 || r.port().is_some() {
        return false;
    }
    let Some(scheme) = r.scheme() else {
        return false;
    };
    let path = r.path();
    // A '.' the split saw after a '/' is nearly always a dot segment on
    // crawl lines: the rewrite that removes it decides,
    // rather than a search here first (a line without one comes out as it
    // went in). The component scan only assumes one: search.
    if f & flags::PATH_DOT != 0
        && path.starts_with('/')
        && (f & flags::PATH_DOT_SEEN != 0 || has_dot_segments(path))
    {
        return false;
    }
    let at_scheme = level >= Level::Scheme;
    if at_scheme && scheme == "mailto" {
        return false;
    }
    match r.host_kind() {
        // No authority: only the path, but http(s) and ws(s) need a host.
        None => !at_scheme || !crate::scheme::get(scheme).is_some_and(|r| r.host_required),
        Some(HostKind::Ipv4) => !path.is_empty() || !at_scheme,
        Some(HostKind::RegName) => {
            if !at_scheme {
                return true;
            }
            let host = r.host().unwrap_or_default();
            let dns = crate::scheme::get(scheme).is_some_and(|r| r.dns_host);
            // An empty path may become "/"; an empty host is an error for
            // some DNS schemes (`host_required`), and kept as it is by the
            // others (`file:///x`).
            if path.is_empty() || (host.is_empty() && dns) {
                return false;
            }
            // ToASCII keeps a lowercase ASCII name without an `xn--` label;
            // one with such a label, when the (memoized) ToASCII says so.
            !dns || ((f & flags::HOST_HYPHEN == 0
                || crate::host::is_plain_lower_ascii(host)
                || keeps_a_labels(host))
                && crate::host::verify_dns_length(host).is_ok())
        }
        Some(HostKind::Ipv6 | HostKind::IpvFuture) => false,
    }
}

/// ToASCII leaves `host` as it is. `host` is lowercase ASCII without `%`
/// but not plainly a DNS name (an `xn--` label, or a byte a plain name
/// does not have): asked of the per-thread memo of
/// [`crate::host::domain_to_ascii`], so a crawl's repeated IDN hosts skip
/// the rewrite.
#[inline(never)]
fn keeps_a_labels(host: &str) -> bool {
    matches!(crate::host::domain_to_ascii(host), Ok(Cow::Borrowed(_)))
}

/// [`canonical`] the long way: one pass over the components, copying
/// nothing while the text is already canonical.
fn canonical_rewrite<'a>(r: &IriRef<'a>, level: Level, nfc: bool) -> Result<Cow<'a, str>> {
    let s = r.as_str();
    let f = r.flags();
    let mut out = Out::new(s);
    if f & flags::NON_ASCII != 0 {
        out = out.non_ascii();
    }
    let at_scheme = level >= Level::Scheme;
    // The scheme, lowercased (§5.3.2.1) into the output; what the scheme
    // rung needs of it is decided here, from the output.
    let scheme = match r.scheme() {
        Some(raw) if f & flags::SCHEME_UPPER != 0 => {
            out.emit_lower(raw.len());
            Some(out.tail(0))
        }
        Some(raw) => {
            out.keep(raw.len());
            Some(raw)
        }
        None => None,
    };
    let rules = scheme.filter(|_| at_scheme).and_then(scheme::rules);
    let dns = rules.is_some_and(|r| r.dns_host);
    let host_required = rules.filter(|r| r.host_required).map(|r| r.name);
    let mailto = at_scheme && scheme == Some("mailto");
    if let Some(scheme) = host_required {
        if r.host().is_none_or(str::is_empty) {
            return Err(Error::new(0, ErrorKind::HostRequired { scheme }));
        }
    }
    let offset = |part: &str| part.as_ptr() as usize - s.as_ptr() as usize;
    // A component that only percent-encoding normalization (and NFC, when
    // asked) changes, written straight into the output. One the scan found
    // clean (no '%' to fix, no non-ASCII, no '#' in the fragment) is kept.
    let component = |out: &mut Out<'a>, c: &'a str, dirty: u32, hash: bool| {
        let start = offset(c);
        out.keep(start);
        let end = start + c.len();
        if nfc {
            out.emit(end, &nfc_pct(c, hash));
        } else if f & dirty != 0 {
            out.emit_pct(end, hash);
        } else {
            out.keep(end);
        }
    };

    if let (Some((hs, he)), Some(kind)) = (r.host_range(), r.host_kind()) {
        if let Some(ui) = r.userinfo() {
            component(&mut out, ui, flags::USERINFO_DIRTY, false);
        }
        out.keep(hs);
        let host = &s[hs..he];
        match kind {
            HostKind::RegName => {
                let mark = out.mark();
                let idna = |e: crate::host::IdnaError| Error::new(hs, ErrorKind::Idna(e.0));
                // An IDN host of a DNS scheme: the syntax rung's
                // percent-encoding (§5.3.2.1) and ToASCII (§5.3.3) at once,
                // remembered per thread by the host as written.
                let idn = dns && f & flags::HOST_NON_ASCII != 0;
                if idn {
                    crate::host::idn_to_ascii(host, norm_reg_name, &mut |a| out.emit(he, a))
                        .map_err(idna)?;
                } else if f & (flags::HOST_PCT | flags::HOST_NON_ASCII) != 0 {
                    // Syntax rung (§5.3.2.1), straight into the output: an
                    // ASCII host without '%' is only lowercased; otherwise
                    // `norm_reg_name` also normalizes its percent-encoding.
                    out.emit(he, &norm_reg_name(host));
                } else if f & flags::HOST_UPPER != 0 {
                    out.emit_lower(he);
                } else {
                    out.keep(he);
                }
                if dns {
                    // ToASCII (§5.3.3) can change only non-ASCII (done above,
                    // `idn`) or an A-label (`xn--`: a '-', perhaps decoded
                    // from `%2D`).
                    if !idn && f & (flags::HOST_HYPHEN | flags::HOST_PCT) != 0 {
                        let a = crate::host::domain_to_ascii(out.tail(mark)).map_err(idna)?;
                        if let Cow::Owned(a) = a {
                            out.rewrite_tail(mark, |_, buf| buf.push_str(&a));
                        }
                    }
                    let h = out.tail(mark);
                    crate::host::verify_dns_length(h).map_err(idna)?;
                    if let (Some(scheme), true) = (host_required, h.is_empty()) {
                        return Err(Error::new(hs, ErrorKind::HostRequired { scheme }));
                    }
                }
            }
            HostKind::Ipv4 => out.keep(he),
            HostKind::Ipv6 if at_scheme => out.emit(he, &scheme::ipv6_literal(&lower(host))),
            HostKind::Ipv6 | HostKind::IpvFuture => out.emit(he, &lower(host)),
        }
        if let Some(port) = r.port() {
            let end = he + 1 + port.len();
            if !at_scheme {
                out.keep(end);
            } else if let Some(p) = scheme::port(rules, port) {
                out.keep(he + 1);
                out.emit(end, p);
            } else {
                out.emit(end, "");
            }
        }
    }

    let (ps, pe) = r.path_range();
    out.keep(ps);
    let raw_path = r.path();
    if !nfc && !mailto && r.authority().is_some() {
        // The usual path, written straight into the output: percent-encoding
        // normalized, then its dot segments removed (§5.3.2.4; a decoded
        // `%2E` can make one). After an authority a non-empty path starts
        // with '/', so neither "//" nor an empty path can come of it.
        let mark = out.mark();
        let decoded_dot = if f & flags::PATH_DIRTY != 0 {
            out.emit_pct(pe, false)
        } else {
            out.keep(pe);
            false
        };
        if let Some(first) = normalized_dot_segment(out.tail(mark), f, decoded_dot) {
            out.remove_dot_segments(mark, first);
        } else if raw_path.is_empty() && rules.is_some_and(|r| r.empty_path_is_slash) {
            out.emit(pe, "/");
        }
    } else {
        general_path(&mut out, r, pe, mailto, rules, nfc);
    }

    if let Some(q) = r.query() {
        component(&mut out, q, flags::QUERY_DIRTY, false);
    }
    if let Some(frag) = r.fragment() {
        component(&mut out, frag, flags::FRAGMENT_DIRTY, true);
    }
    Ok(out.finish())
}

/// NFC (§5.3.2.2, when asked), then percent-encoding normalization.
fn nfc_pct(c: &str, encode_hash: bool) -> Cow<'_, str> {
    match syntax::nfc(c) {
        Cow::Borrowed(c) => norm_pct(c, encode_hash),
        Cow::Owned(c) => Cow::Owned(norm_pct(&c, encode_hash).into_owned()),
    }
}

/// The path of [`canonical_rewrite`] without an authority, with NFC or of
/// `mailto` at the scheme rung (also `mailto://host/…`): normalized, its
/// dot segments removed, kept a path (no leading "//"), `mailto` rules.
fn general_path<'a>(
    out: &mut Out<'a>,
    r: &IriRef<'a>,
    pe: usize,
    mailto: bool,
    rules: Option<&crate::scheme::Scheme>,
    nfc: bool,
) {
    let raw_path = r.path();
    let mut path = if nfc {
        nfc_pct(raw_path, false)
    } else if r.flags() & flags::PATH_DIRTY == 0 {
        Cow::Borrowed(raw_path)
    } else {
        norm_pct(raw_path, false)
    };
    // §5.3.2.4: only hierarchical (absolute) paths; a rootless path such as
    // `urn:a/../b` or a relative `../x` is opaque here (removing its dot
    // segments would change what it means).
    if path.starts_with('/') && has_dot_segments(&path) {
        path = Cow::Owned(remove_dot_segments(&path));
    }
    if r.authority().is_none() && path.starts_with("//") {
        // Keep a path a path: without an authority it may not start with "//".
        path = Cow::Owned(format!("/.{path}"));
    }
    if mailto {
        if let Cow::Owned(p) = scheme::mailto_path(&path) {
            path = Cow::Owned(p);
        }
    }
    if path.is_empty() && r.authority().is_some() && rules.is_some_and(|r| r.empty_path_is_slash) {
        path = Cow::Borrowed("/");
    }
    out.emit(pe, &path);
}

/// The key of `input` at `level`, URI form, no base.
pub fn key(input: &str, level: Level) -> Result<String> {
    Normalizer::new(Options {
        level,
        ..Options::default()
    })
    .key(input)
    .map(Cow::into_owned)
}

/// `a` and `b` are equivalent at `level` (3987bis §5.3).
pub fn equivalent(a: &str, b: &str, level: Level) -> Result<bool> {
    Ok(key(a, level)? == key(b, level)?)
}

/// The lowest rung at which `a` and `b` become equivalent, or `None` when they
/// differ even at the protocol rung (with its default rules,
/// [`protocol::Rules::DEFAULT`]).
pub fn lowest_equal_level(a: &str, b: &str) -> Result<Option<Level>> {
    for level in Level::ALL {
        if equivalent(a, b, level)? {
            return Ok(Some(level));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(s: &str, level: Level) -> String {
        key(s, level).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    fn iri(s: &str, level: Level) -> String {
        let n = Normalizer::new(Options {
            level,
            form: Form::Iri,
            nfc: false,
        });
        n.key(s).unwrap().into_owned()
    }

    #[test]
    fn string_rung_is_the_input() {
        assert_eq!(
            k("HTTP://Example.COM/%7e", Level::String),
            "HTTP://Example.COM/%7e"
        );
    }

    #[test]
    fn syntax_rung_rfc3986_6_2_2() {
        assert_eq!(
            k("eXAMPLE://a/./b/../b/%63/%7bfoo%7d", Level::Syntax),
            "example://a/b/c/%7Bfoo%7D"
        );
        assert_eq!(
            k("HTTP://www.EXAMPLE.com/", Level::Syntax),
            "http://www.example.com/"
        );
        for s in [
            "http://example.org/~user",
            "http://example.org/%7euser",
            "http://example.org/%7Euser",
        ] {
            assert_eq!(k(s, Level::Syntax), "http://example.org/~user");
        }
        // 3987bis §5.3.2: raw and percent-encoded UTF-8 align through the URI form.
        assert_eq!(
            k(
                "eXAMPLE://a/./b/../b/%63/%7bfoo%7d/ros%C3%A9",
                Level::Syntax
            ),
            k("example://a/b/c/%7Bfoo%7D/rosé", Level::Syntax)
        );
        // Not merged at this rung.
        assert_ne!(
            k("http://example.com", Level::Syntax),
            k("http://example.com/", Level::Syntax)
        );
        assert_ne!(
            k("http://a/%2F", Level::Syntax),
            k("http://a//", Level::Syntax)
        );
        assert_ne!(
            k("http://a/About", Level::Syntax),
            k("http://a/about", Level::Syntax)
        );
        // §5.3.2.2: no NFC by default.
        assert_ne!(
            k(
                "http://www.example.org/re\u{301}sume\u{301}.html",
                Level::Syntax
            ),
            k("http://www.example.org/résumé.html", Level::Syntax)
        );
    }

    #[test]
    fn nfc_option() {
        let n = Normalizer::new(Options {
            level: Level::Syntax,
            form: Form::Iri,
            nfc: true,
        });
        assert_eq!(
            n.key("http://www.example.org/re\u{301}sume\u{301}.html")
                .unwrap(),
            "http://www.example.org/résumé.html"
        );
    }

    #[test]
    fn dot_segments_keep_the_structure() {
        assert_eq!(k("foo:/a/..//b", Level::Syntax), "foo:/.//b");
        assert_eq!(k("foo:/.//b", Level::Syntax), "foo:/.//b");
        assert_eq!(k("foo:a/../..//b", Level::Syntax), "foo:a/../..//b");
        assert_eq!(k("foo:.//x", Level::Syntax), "foo:.//x");
        assert_eq!(k("http://h/a/%2E%2E/b", Level::Syntax), "http://h/b");
        assert_eq!(k("http://h/..//x", Level::Syntax), "http://h//x");
    }

    #[test]
    fn scheme_rung_rfc3986_6_2_3() {
        for s in [
            "http://example.com",
            "http://example.com/",
            "http://example.com:/",
            "http://example.com:80/",
        ] {
            assert_eq!(k(s, Level::Scheme), "http://example.com/");
        }
        assert_eq!(
            k("http://example.com/?", Level::Scheme),
            "http://example.com/?"
        );
        assert_eq!(
            k("http://example.com/#", Level::Scheme),
            "http://example.com/#"
        );
        assert_eq!(
            k("HTTP://Example.COM:80/a/./b", Level::Scheme),
            "http://example.com/a/b"
        );
        assert_eq!(k("https://h:443", Level::Scheme), "https://h/");
        assert_eq!(k("https://h:80", Level::Scheme), "https://h:80/");
        assert_eq!(k("foo://h:/x", Level::Scheme), "foo://h/x");
        assert_eq!(k("foo://h", Level::Scheme), "foo://h");
        assert_ne!(
            k("http://h/", Level::Scheme),
            k("https://h/", Level::Scheme)
        );
    }

    #[test]
    fn idn_spellings_are_one_key() {
        let want = "http://xn--mnchen-3ya.de/";
        for s in [
            "http://münchen.de",
            "http://MÜNCHEN.DE/",
            "http://münchen\u{FF0E}de/",
            "http://xn--mnchen-3ya.de/",
            "http://XN--MNCHEN-3YA.de",
            "http://m%C3%BCnchen.de/",
            "http://M%c3%bcnchen.de/",
        ] {
            assert_eq!(k(s, Level::Scheme), want, "{s}");
        }
        assert_eq!(
            k("http://résumé.example.org", Level::Scheme),
            "http://xn--rsum-bpad.example.org/"
        );
        assert_eq!(
            iri("http://xn--mnchen-3ya.de", Level::Scheme),
            "http://münchen.de/"
        );
        assert!(key("http://a%2Fb.com/", Level::Scheme).is_err());
        // Non-DNS schemes are never put through IDNA.
        assert_eq!(
            k("foo://MÜNCHEN.de/", Level::Scheme),
            "foo://m%C3%9Cnchen.de/"
        );
    }

    #[test]
    fn ipv6_rfc5952() {
        assert_eq!(
            k("http://[2001:DB8:0:0:0:0:0:1]:80", Level::Scheme),
            "http://[2001:db8::1]/"
        );
        assert_eq!(
            k("http://[2001:DB8:0:0:0:0:0:1]/", Level::Syntax),
            "http://[2001:db8:0:0:0:0:0:1]/"
        );
    }

    #[test]
    fn relative_references_need_a_base() {
        assert_eq!(
            key("/a", Level::Scheme).unwrap_err().kind,
            ErrorKind::RelativeWithoutBase
        );
        let n = Normalizer::new(Options::default())
            .with_base("http://a/b/c/d;p?q")
            .unwrap();
        assert_eq!(n.key("../g").unwrap(), "http://a/b/g");
        assert_eq!(n.key("//G").unwrap(), "http://g/");
        assert!(Normalizer::new(Options::default())
            .with_base("/rel")
            .is_err());
    }

    #[test]
    fn canonical_ascii_is_borrowed() {
        let n = Normalizer::new(Options::default());
        for s in [
            "http://example.com/a/b?q=1#f",
            "https://x.org/",
            "file:///usr/share/x%20y",
            // Component scan (userinfo; over 256 bytes), which assumes
            // every path may hold a dot segment: searched, none found.
            "http://user@example.com/a/b.html",
            &format!("http://example.com/{}index.html", "a/".repeat(130)),
        ] {
            assert!(matches!(n.key(s).unwrap(), Cow::Borrowed(_)), "{s}");
        }
    }

    #[test]
    fn lowest_level() {
        assert_eq!(
            lowest_equal_level("http://a/", "http://a/").unwrap(),
            Some(Level::String)
        );
        assert_eq!(
            lowest_equal_level("HTTP://a/", "http://a/").unwrap(),
            Some(Level::Syntax)
        );
        assert_eq!(
            lowest_equal_level("http://a", "http://a/").unwrap(),
            Some(Level::Scheme)
        );
        assert_eq!(
            lowest_equal_level("http://a/x", "http://a/y").unwrap(),
            None
        );
    }

    /// The shortcut of [`is_canonical`] against the rewrite, on every
    /// combination of the parts each of its conditions is about.
    #[test]
    fn is_canonical_only_where_the_rewrite_changes_nothing() {
        let long = format!("//{}.com", "a".repeat(64));
        let schemes = [
            "http", "HTTP", "https", "ws", "ftp", "mailto", "urn", "foo", "file",
        ];
        let authorities = [
            "",
            "//",
            "//a.b",
            "//A.b",
            "//xn--mnchen-3ya.de",
            "//xn--a.de",
            "//a-b.c",
            "//1.2.3.4",
            "//[::1]",
            "//[v1.x]",
            "//u@h",
            "//U%41@h",
            "//h:80",
            "//h:",
            "//h:8080",
            &long,
            "//%41.com",
            "//münchen.de",
        ];
        let paths = [
            "", "/", "/a/./b", "/a/../b", "/.", "/%7e", "/%2F", "/ä", "a", "a/../b", "U@B.c",
        ];
        let queries = ["", "?q", "?%7e", "?ä"];
        let fragments = ["", "#f", "#a#b", "#%7E"];
        let mut shortcuts = 0;
        for scheme in schemes {
            for auth in authorities {
                for path in paths {
                    for q in queries {
                        for frag in fragments {
                            let s = format!("{scheme}:{auth}{path}{q}{frag}");
                            let Ok(r) = parse(&s) else { continue };
                            for level in [Level::Syntax, Level::Scheme] {
                                if !is_canonical(&r, level) {
                                    continue;
                                }
                                shortcuts += 1;
                                let full = canonical_rewrite(&r, level, false);
                                assert!(
                                    matches!(&full, Ok(Cow::Borrowed(k)) if *k == s),
                                    "{s} at {level:?}: {full:?}"
                                );
                            }
                        }
                    }
                }
            }
        }
        // The shortcut is taken (a test of nothing would pass too).
        assert!(shortcuts > 1000, "{shortcuts}");
    }

    /// The specialised rewrite of `http(s)` and `file` gives the general
    /// rewrite's key, or its error (same kind, same place), for every
    /// spelling variant of each component.
    #[test]
    fn http_rewrite_is_the_general_rewrite() {
        let long = format!("{}.example", "a".repeat(64));
        let hosts = [
            "example.com",
            "Example.COM",
            "",
            "xn--mnchen-3ya.de",
            "XN--MNCHEN-3YA.de",
            "münchen.de",
            "M%C3%BCnchen.de",
            "%41b.c",
            "a-b.c",
            "xn--a.c",
            "xn--zz",
            "xn--%7A",
            "a..b",
            "ex%2Dample",
            "%2e",
            ".",
            long.as_str(),
            "Ü.example",
            "a%2",
        ];
        let mut taken = 0;
        for scheme in [
            "http", "HTTP", "hTtPs", "https", "file", "FILE", "httpx", "htt", "ws",
        ] {
            for host in hosts {
                for port in ["", ":", ":80", ":0080", ":443", ":8080", ":0", ":00"] {
                    for path in [
                        "",
                        "/",
                        "/a/./b/../c",
                        "/%7e%2E%2e/x",
                        "/ü/%c3%bc",
                        "/.",
                        "/a/..",
                    ] {
                        for tail in ["", "?q=%7E&x=ü", "#f%2e#g", "?#", "?a/../b#/./"] {
                            let s = format!("{scheme}://{host}{port}{path}{tail}");
                            let Ok(r) = parse(&s) else { continue };
                            for level in [Level::Syntax, Level::Scheme, Level::Protocol] {
                                let at = level >= Level::Scheme;
                                let Some(fast) = http::rewrite(&r, at) else {
                                    continue;
                                };
                                taken += 1;
                                let fast = fast.map(Cow::into_owned);
                                let full = canonical_rewrite(&r, level, false).map(Cow::into_owned);
                                assert_eq!(fast, full, "{s} at {level:?}");
                            }
                        }
                    }
                }
            }
        }
        // The specialised rewrite is taken (a test of nothing would pass).
        assert!(taken > 30_000, "{taken}");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(20_000))]
        /// Random references, their flags as the scan left them and all set:
        /// the specialised rewrite agrees with the general one.
        #[test]
        fn http_rewrite_agrees_on_random_references(
            s in "(HTTP|http|https|Https|file|File|htt):(//([a-zA-Z0-9.:@%-]|é|xn--|%[0-9a-fA-F]{2}){0,12})?([a-zA-Z0-9/?#.%~;-]|%[0-9a-fA-F]{2}|é|\u{E000}){0,16}",
            level in proptest::sample::select(vec![Level::Syntax, Level::Scheme, Level::Protocol]),
        ) {
            if let Ok(r) = parse(&s) {
                for r in [r, r.with_all_flags()] {
                    if let Some(fast) = http::rewrite(&r, level >= Level::Scheme) {
                        let full = canonical_rewrite(&r, level, false).map(Cow::into_owned);
                        proptest::prop_assert_eq!(fast.map(Cow::into_owned), full, "{}", s);
                    }
                }
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(20_000))]
        /// The rungs skip what the scan's flags call clean: the keys are the
        /// same as when every component is looked at.
        #[test]
        fn flags_only_skip_what_would_not_change(
            s in "(HTTP|http|https|Foo|ftp|mailto):(//([a-zA-Z0-9.:@%-]|é|xn--){0,10})?([a-zA-Z0-9/?#.%~;-]|%[0-9a-fA-F]{2}|é|\u{E000}){0,16}",
            level in proptest::sample::select(vec![Level::Syntax, Level::Scheme]),
            nfc in proptest::bool::ANY,
        ) {
            if let Ok(r) = parse(&s) {
                let fast = canonical(&r, level, nfc).map_err(|e| e.to_string());
                let full = canonical(&r.with_all_flags(), level, nfc).map_err(|e| e.to_string());
                proptest::prop_assert_eq!(fast, full, "{}", s);
            }
        }
    }
}
