//! Hosts: IPv4address, IPv6 text forms (RFC 3986 §3.2.2, RFC 5952), and the
//! IDNA wrapper for reg-names of DNS schemes (3987bis §3.4, §5.3.3).
//!
//! PROVISIONAL minimal version; replaced by the full module.

use std::borrow::Cow;

pub fn is_ipv4address(s: &str) -> bool {
    let parts: Vec<&str> = s.split('.').collect();
    parts.len() == 4
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.len() <= 3
                && p.bytes().all(|c| c.is_ascii_digit())
                && (p.len() == 1 || !p.starts_with('0'))
                && p.parse::<u16>().map(|v| v <= 255).unwrap_or(false)
        })
}

pub fn parse_ipv6(s: &str) -> Option<[u16; 8]> {
    let a: std::net::Ipv6Addr = s.parse().ok()?;
    Some(a.segments())
}

pub fn write_ipv6(addr: &[u16; 8], out: &mut String) {
    out.push_str(&std::net::Ipv6Addr::from(*addr).to_string());
}

pub fn is_ipv_future(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 4 || !(b[0] == b'v' || b[0] == b'V') {
        return false;
    }
    let Some(dot) = s.find('.') else { return false };
    dot > 1
        && b[1..dot].iter().all(|c| c.is_ascii_hexdigit())
        && dot + 1 < b.len()
        && b[dot + 1..]
            .iter()
            .all(|&c| crate::chars::is(c, crate::chars::IPV_FUTURE))
}

pub fn is_dns_scheme(scheme: &str) -> bool {
    matches!(scheme, "http" | "https" | "ws" | "wss" | "ftp")
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdnaError(pub String);

pub fn domain_to_ascii(host: &str) -> Result<Cow<'_, str>, IdnaError> {
    if host
        .bytes()
        .all(|c| c.is_ascii() && !c.is_ascii_uppercase() && c != b'%')
        && !host.contains("xn--")
    {
        return Ok(Cow::Borrowed(host));
    }
    let mut bytes = Vec::new();
    let b = host.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() + 0 && i + 2 <= b.len() - 1 {
            let h = crate::chars::hex_val(b[i + 1]).unwrap_or(0) * 16
                + crate::chars::hex_val(b[i + 2]).unwrap_or(0);
            bytes.push(h);
            i += 3;
        } else {
            bytes.push(b[i]);
            i += 1;
        }
    }
    let decoded = String::from_utf8(bytes)
        .map_err(|_| IdnaError("percent-encoded bytes are not UTF-8".into()))?;
    let a = idna::domain_to_ascii(&decoded).map_err(|e| IdnaError(format!("{e:?}")))?;
    if a.bytes().any(|c| {
        matches!(
            c,
            b'/' | b'?' | b'#' | b'@' | b':' | b'[' | b']' | b' ' | b'%'
        )
    }) {
        return Err(IdnaError("forbidden character".into()));
    }
    Ok(Cow::Owned(a))
}

pub fn domain_to_unicode(host: &str) -> Cow<'_, str> {
    if !host.contains("xn--") {
        return Cow::Borrowed(host);
    }
    let (u, r) = idna::domain_to_unicode(host);
    if r.is_ok() {
        Cow::Owned(u)
    } else {
        Cow::Borrowed(host)
    }
}
