//! Parsing IRI references (draft-ietf-iri-3987bis §2.2, RFC 3986 §3, §4).
//!
//! [`parse`] reads an `IRI-reference` in one pass and returns an [`IriRef`]:
//! the borrowed text plus `u32` offsets of the component boundaries, so it is
//! `Copy` and slicing a component allocates nothing. The split follows the
//! "first-match-wins" reading of the ABNF (RFC 3986 §3, Appendix B); each
//! component is then checked against its rule:
//!
//! | component | rule (3987bis §2.2) |
//! |---|---|
//! | scheme | `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )` |
//! | userinfo | `*( iunreserved / pct-form / sub-delims / ":" )` |
//! | host | `IP-literal / IPv4address / ireg-name` |
//! | port | `*DIGIT` |
//! | path | `ipchar` and `/`; the first segment of a relative path has no `:` |
//! | query | `*( ipchar / iprivate / "/" / "?" )` |
//! | fragment | `*( ipchar / "/" / "?" / "#" )` |
//!
//! Beyond the ABNF, bidi formatting characters are rejected everywhere
//! (§4.1: "IRIs MUST NOT contain bidirectional formatting characters").

use crate::chars::{self, hex_val};
use crate::error::{Component, Error, ErrorKind, Result};
use crate::host;

/// What kind of `ihost` (§2.2) an authority has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HostKind {
    /// `ireg-name` (may be empty).
    RegName,
    /// `IPv4address`.
    Ipv4,
    /// `IP-literal` with an `IPv6address`.
    Ipv6,
    /// `IP-literal` with an `IPvFuture`.
    IpvFuture,
}

const NONE: u32 = u32::MAX;

/// A parsed IRI reference borrowing its text.
///
/// Offsets are byte positions in `s`; `NONE` marks an absent component.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IriRef<'a> {
    s: &'a str,
    /// Position of the `:` ending the scheme.
    scheme_end: u32,
    /// Start of the authority (after `//`).
    auth_start: u32,
    /// Position of the `@` ending the userinfo.
    userinfo_end: u32,
    /// End of the host (a `:` before the port, or the path start).
    host_end: u32,
    path_start: u32,
    /// Position of `?`.
    query_start: u32,
    /// Position of `#`.
    fragment_start: u32,
    host_kind: Option<HostKind>,
    ascii: bool,
    pct: bool,
}

impl<'a> IriRef<'a> {
    /// The whole reference as parsed.
    #[inline]
    pub fn as_str(&self) -> &'a str {
        self.s
    }

    /// The scheme, without `:`; `None` for a relative reference.
    #[inline]
    pub fn scheme(&self) -> Option<&'a str> {
        (self.scheme_end != NONE).then(|| &self.s[..self.scheme_end as usize])
    }

    /// The authority without `//`; `None` when there is no `//`.
    #[inline]
    pub fn authority(&self) -> Option<&'a str> {
        (self.auth_start != NONE)
            .then(|| &self.s[self.auth_start as usize..self.path_start as usize])
    }

    /// The userinfo without `@`.
    #[inline]
    pub fn userinfo(&self) -> Option<&'a str> {
        (self.userinfo_end != NONE)
            .then(|| &self.s[self.auth_start as usize..self.userinfo_end as usize])
    }

    fn host_start(&self) -> usize {
        if self.userinfo_end != NONE {
            self.userinfo_end as usize + 1
        } else {
            self.auth_start as usize
        }
    }

    /// The host as written (IP literals with their brackets); `None` without
    /// an authority.
    #[inline]
    pub fn host(&self) -> Option<&'a str> {
        (self.auth_start != NONE).then(|| &self.s[self.host_start()..self.host_end as usize])
    }

    /// The kind of host; `None` without an authority.
    #[inline]
    pub fn host_kind(&self) -> Option<HostKind> {
        self.host_kind
    }

    /// The port without `:`; `Some("")` for `host:`.
    #[inline]
    pub fn port(&self) -> Option<&'a str> {
        (self.auth_start != NONE && self.host_end < self.path_start)
            .then(|| &self.s[self.host_end as usize + 1..self.path_start as usize])
    }

    fn path_end(&self) -> usize {
        if self.query_start != NONE {
            self.query_start as usize
        } else if self.fragment_start != NONE {
            self.fragment_start as usize
        } else {
            self.s.len()
        }
    }

    /// The path (possibly empty).
    #[inline]
    pub fn path(&self) -> &'a str {
        &self.s[self.path_start as usize..self.path_end()]
    }

    fn query_end(&self) -> usize {
        if self.fragment_start != NONE {
            self.fragment_start as usize
        } else {
            self.s.len()
        }
    }

    /// The query without `?`.
    #[inline]
    pub fn query(&self) -> Option<&'a str> {
        (self.query_start != NONE).then(|| &self.s[self.query_start as usize + 1..self.query_end()])
    }

    /// The fragment without `#`.
    #[inline]
    pub fn fragment(&self) -> Option<&'a str> {
        (self.fragment_start != NONE).then(|| &self.s[self.fragment_start as usize + 1..])
    }

    /// Everything before `#` (or the whole reference).
    #[inline]
    pub fn without_fragment(&self) -> &'a str {
        &self.s[..self.query_end()]
    }

    /// An absolute reference has a scheme (RFC 3986 §4.3).
    #[inline]
    pub fn is_absolute(&self) -> bool {
        self.scheme_end != NONE
    }

    /// The reference is pure ASCII.
    #[inline]
    pub fn is_ascii(&self) -> bool {
        self.ascii
    }

    /// The reference contains a `%` (a percent-encoding).
    #[inline]
    pub fn has_pct(&self) -> bool {
        self.pct
    }

    /// Byte range (start, end) of the path, for code that rewrites a
    /// reference piece by piece.
    pub(crate) fn path_range(&self) -> (usize, usize) {
        (self.path_start as usize, self.path_end())
    }

    /// Byte range (start, end) of the host; `None` without an authority.
    pub(crate) fn host_range(&self) -> Option<(usize, usize)> {
        (self.auth_start != NONE).then(|| (self.host_start(), self.host_end as usize))
    }
}

/// Parse an IRI reference (`IRI-reference`, 3987bis §2.2).
///
/// ```
/// let r = irinorm::parse("http://user@example.com:8080/a/b?q#f").unwrap();
/// assert_eq!(r.scheme(), Some("http"));
/// assert_eq!(r.userinfo(), Some("user"));
/// assert_eq!(r.host(), Some("example.com"));
/// assert_eq!(r.port(), Some("8080"));
/// assert_eq!(r.path(), "/a/b");
/// assert_eq!(r.query(), Some("q"));
/// assert_eq!(r.fragment(), Some("f"));
/// assert!(irinorm::parse("http://a/b c").is_err());
/// ```
pub fn parse(input: &str) -> Result<IriRef<'_>> {
    if input.len() >= NONE as usize {
        return Err(Error::new(
            0,
            ErrorKind::Other("reference longer than 4 GiB".into()),
        ));
    }
    let b = input.as_bytes();
    let mut r = IriRef {
        s: input,
        scheme_end: NONE,
        auth_start: NONE,
        userinfo_end: NONE,
        host_end: NONE,
        path_start: 0,
        query_start: NONE,
        fragment_start: NONE,
        host_kind: None,
        ascii: input.is_ascii(),
        pct: memchr::memchr(b'%', b).is_some(),
    };

    // scheme ":" — a scheme is ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
    // followed by ':'; otherwise the reference is relative (RFC 3986 §4.2).
    let mut i = 0;
    if b.first().is_some_and(|c| c.is_ascii_alphabetic()) {
        let mut j = 1;
        while j < b.len() && chars::is(b[j], chars::SCHEME) {
            j += 1;
        }
        if j < b.len() && b[j] == b':' {
            r.scheme_end = j as u32;
            i = j + 1;
        }
    }

    // "//" iauthority
    if b[i..].starts_with(b"//") {
        let start = i + 2;
        let end = start + find_any3(&b[start..], b'/', b'?', b'#').unwrap_or(b.len() - start);
        r.auth_start = start as u32;
        parse_authority(input, start, end, &mut r)?;
        i = end;
    }

    // path, up to '?' or '#'
    r.path_start = i as u32;
    let path_end = i + find_any2(&b[i..], b'?', b'#').unwrap_or(b.len() - i);
    check_component(input, i, path_end, &chars::PATH_OK, Component::Path)?;
    if r.scheme_end == NONE && r.auth_start == NONE {
        // ipath-noscheme: the first segment may not contain ':' (RFC 3986 §4.2).
        let first_seg_end = i + memchr::memchr(b'/', &b[i..path_end]).unwrap_or(path_end - i);
        if let Some(c) = memchr::memchr(b':', &b[i..first_seg_end]) {
            return Err(Error::new(i + c, ErrorKind::ColonInFirstSegment));
        }
    }
    i = path_end;

    if i < b.len() && b[i] == b'?' {
        r.query_start = i as u32;
        let end = i + 1 + memchr::memchr(b'#', &b[i + 1..]).unwrap_or(b.len() - i - 1);
        check_component(input, i + 1, end, &chars::QUERY_OK, Component::Query)?;
        i = end;
    }
    if i < b.len() && b[i] == b'#' {
        r.fragment_start = i as u32;
        check_component(
            input,
            i + 1,
            b.len(),
            &chars::FRAGMENT_OK,
            Component::Fragment,
        )?;
    }
    Ok(r)
}

#[inline]
fn find_any3(hay: &[u8], a: u8, b: u8, c: u8) -> Option<usize> {
    memchr::memchr3(a, b, c, hay)
}

#[inline]
fn find_any2(hay: &[u8], a: u8, b: u8) -> Option<usize> {
    memchr::memchr2(a, b, hay)
}

/// `iauthority = [ iuserinfo "@" ] ihost [ ":" port ]` over `s[start..end]`.
fn parse_authority(s: &str, start: usize, end: usize, r: &mut IriRef<'_>) -> Result<()> {
    let b = s.as_bytes();
    let mut host_start = start;
    if let Some(at) = memchr::memchr(b'@', &b[start..end]) {
        check_component(
            s,
            start,
            start + at,
            &chars::USERINFO_OK,
            Component::Userinfo,
        )?;
        r.userinfo_end = (start + at) as u32;
        host_start = start + at + 1;
    }
    let host_end;
    if b.get(host_start) == Some(&b'[') {
        // IP-literal = "[" ( IPv6address / IPvFuture ) "]"
        let close = memchr::memchr(b']', &b[host_start..end])
            .map(|c| host_start + c)
            .ok_or_else(|| Error::new(host_start, ErrorKind::InvalidIpv6))?;
        let inner = &s[host_start + 1..close];
        if inner.starts_with(['v', 'V']) {
            if !host::is_ipv_future(inner) {
                return Err(Error::new(host_start, ErrorKind::InvalidIpvFuture));
            }
            r.host_kind = Some(HostKind::IpvFuture);
        } else if host::parse_ipv6(inner).is_some() {
            r.host_kind = Some(HostKind::Ipv6);
        } else {
            return Err(Error::new(host_start, ErrorKind::InvalidIpv6));
        }
        host_end = close + 1;
        if host_end < end && b[host_end] != b':' {
            return Err(Error::new(
                host_end,
                char_error(s, host_end, Component::Host),
            ));
        }
    } else {
        host_end =
            host_start + memchr::memchr(b':', &b[host_start..end]).unwrap_or(end - host_start);
        check_component(
            s,
            host_start,
            host_end,
            &chars::REG_NAME_OK,
            Component::Host,
        )?;
        r.host_kind = Some(if host::is_ipv4address(&s[host_start..host_end]) {
            HostKind::Ipv4
        } else {
            HostKind::RegName
        });
    }
    r.host_end = host_end as u32;
    if host_end < end {
        // ":" port, port = *DIGIT (RFC 3986 §3.2.3)
        if let Some(p) = b[host_end + 1..end]
            .iter()
            .position(|c| !c.is_ascii_digit())
        {
            return Err(Error::new(host_end + 1 + p, ErrorKind::InvalidPort));
        }
    }
    Ok(())
}

/// Check `s[start..end]` against a component rule: ASCII bytes must be
/// allowed by `ok` (one of the `chars::*_OK` tables) or be a valid
/// `pct-encoded`; non-ASCII characters must be `ucschar` (or `iprivate` in
/// the query) and not bidi formatting characters.
#[inline]
fn check_component(
    s: &str,
    start: usize,
    end: usize,
    ok: &[u8; 256],
    comp: Component,
) -> Result<()> {
    let b = s.as_bytes();
    let mut i = start;
    while i < end {
        // Eight plain bytes per branch: the common case.
        while i + 8 <= end {
            let w = &b[i..i + 8];
            let all = ok[w[0] as usize]
                & ok[w[1] as usize]
                & ok[w[2] as usize]
                & ok[w[3] as usize]
                & ok[w[4] as usize]
                & ok[w[5] as usize]
                & ok[w[6] as usize]
                & ok[w[7] as usize];
            if all == 0 {
                break;
            }
            i += 8;
        }
        if i >= end {
            break;
        }
        let c = b[i];
        if ok[c as usize] != 0 {
            i += 1;
        } else if c == b'%' {
            match (b.get(i + 1), b.get(i + 2)) {
                (Some(&h), Some(&l))
                    if i + 2 < end && hex_val(h).is_some() && hex_val(l).is_some() =>
                {
                    i += 3
                }
                _ => return Err(Error::new(i, ErrorKind::InvalidPercentEncoding)),
            }
        } else if c < 0x80 {
            return Err(Error::new(i, char_error(s, i, comp)));
        } else {
            let ch = s[i..].chars().next().unwrap_or('\u{FFFD}');
            if chars::is_bidi_format(ch) {
                return Err(Error::new(i, ErrorKind::BidiFormatting { ch }));
            }
            if !chars::is_ucschar(ch) {
                if chars::is_iprivate(ch) {
                    if comp != Component::Query {
                        return Err(Error::new(
                            i,
                            ErrorKind::PrivateUseOutsideQuery {
                                ch,
                                component: comp,
                            },
                        ));
                    }
                } else {
                    return Err(Error::new(
                        i,
                        ErrorKind::CharNotAllowed {
                            ch,
                            component: comp,
                        },
                    ));
                }
            }
            i += ch.len_utf8();
        }
    }
    Ok(())
}

#[cold]
fn char_error(s: &str, i: usize, component: Component) -> ErrorKind {
    let ch = s[i..].chars().next().unwrap_or('\u{FFFD}');
    ErrorKind::CharNotAllowed { ch, component }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(s: &str) -> [Option<&str>; 7] {
        let r = parse(s).unwrap();
        [
            r.scheme(),
            r.userinfo(),
            r.host(),
            r.port(),
            Some(r.path()),
            r.query(),
            r.fragment(),
        ]
    }

    #[test]
    fn rfc3986_examples_split() {
        // RFC 3986 §1.1.2
        assert_eq!(
            parts("ldap://[2001:db8::7]/c=GB?objectClass?one"),
            [
                Some("ldap"),
                None,
                Some("[2001:db8::7]"),
                None,
                Some("/c=GB"),
                Some("objectClass?one"),
                None
            ]
        );
        assert_eq!(
            parts("mailto:John.Doe@example.com"),
            [
                Some("mailto"),
                None,
                None,
                None,
                Some("John.Doe@example.com"),
                None,
                None
            ]
        );
        assert_eq!(
            parts("telnet://192.0.2.16:80/"),
            [
                Some("telnet"),
                None,
                Some("192.0.2.16"),
                Some("80"),
                Some("/"),
                None,
                None
            ]
        );
        assert_eq!(
            parse("telnet://192.0.2.16:80/").unwrap().host_kind(),
            Some(HostKind::Ipv4)
        );
        assert_eq!(
            parts("urn:oasis:names:specification:docbook:dtd:xml:4.1.2")[4],
            Some("oasis:names:specification:docbook:dtd:xml:4.1.2")
        );
        assert_eq!(parts("//h:")[3], Some(""));
        assert_eq!(
            parts("?q#f#g"),
            [None, None, None, None, Some(""), Some("q"), Some("f#g")]
        );
        assert_eq!(parts("")[4], Some(""));
    }

    #[test]
    fn iri_characters_where_the_abnf_allows_them() {
        // 3987bis §2.2: ucschar everywhere, iprivate only in the query.
        assert!(parse("http://résumé.example.org/Dürst?q=ü#ü").is_ok());
        assert!(parse("http://example.com/?\u{E000}").is_ok());
        let e = parse("http://example.com/\u{E000}").unwrap_err();
        assert!(
            matches!(e.kind, ErrorKind::PrivateUseOutsideQuery { .. }),
            "{e}"
        );
        assert!(parse("http://example.com/#\u{E000}").is_err());
        assert!(parse("http://example.com/\u{FDD0}").is_err());
        // §4.1
        let e = parse("http://example.com/\u{202E}").unwrap_err();
        assert_eq!(
            e.to_string(),
            "bidi formatting character U+202E not allowed at byte 19"
        );
        // No zone identifiers.
        assert!(parse("http://[::1%25eth0]/").is_err());
    }

    #[test]
    fn errors_name_the_place() {
        assert_eq!(
            parse("http://a/b c").unwrap_err().to_string(),
            "space not allowed in path at byte 10"
        );
        assert_eq!(
            parse("http://a/%zz").unwrap_err().to_string(),
            "invalid percent-encoding at byte 9"
        );
        assert_eq!(
            parse("http://a/%4").unwrap_err().kind,
            ErrorKind::InvalidPercentEncoding
        );
        assert_eq!(
            parse("http://a?%4#").unwrap_err().kind,
            ErrorKind::InvalidPercentEncoding
        );
        assert_eq!(
            parse("http://[1::2::3]/").unwrap_err().to_string(),
            "invalid IPv6 literal at byte 7"
        );
        assert_eq!(
            parse("http://h:8x/").unwrap_err().kind,
            ErrorKind::InvalidPort
        );
        assert_eq!(parse("a:b/c:d").unwrap().scheme(), Some("a"));
        assert_eq!(
            parse("1a:b").unwrap_err().kind,
            ErrorKind::ColonInFirstSegment
        );
        assert!(parse("http://a@b@c/").is_err());
        assert!(parse("http://[::1]x/").is_err());
        assert!(parse("http://a/<").is_err());
        assert!(parse("http://a/\\").is_err());
        assert!(parse("http://a/\u{85}").is_err());
    }

    #[test]
    fn never_panics_on_odd_input() {
        for s in [
            "%", "%%", "a:%", "//[", "//[]", "//@", "//:", "#%", "?%", "//[v]", "//[v1.]",
            "\u{e9}:",
        ] {
            let _ = parse(s);
        }
    }
}
