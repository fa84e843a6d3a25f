//! The parser as it was before the one-pass scan (one memchr per
//! delimiter, then a check per component, 3987bis §2.2), kept only as a
//! test oracle: the single-pass `crate::iri::parse` must give the same
//! split and the same errors (the differential tests in `super`).

use crate::chars::{self, hex_val};
use crate::error::{Component, Error, ErrorKind, Result};
use crate::host;
use crate::iri::flags::*;
use crate::iri::scan::char_error;
use crate::iri::{HostKind, IriRef, NONE};

/// Parse an IRI reference, the old way (`IRI-reference`, 3987bis §2.2).
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
pub(crate) fn parse(input: &str) -> Result<IriRef<'_>> {
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
        flags: if input.is_ascii() { 0 } else { NON_ASCII }
            | if memchr::memchr(b'%', b).is_some() {
                PCT
            } else {
                0
            },
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
