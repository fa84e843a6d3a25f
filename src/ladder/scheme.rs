//! The scheme rung (draft-ietf-iri-3987bis §5.3.3, RFC 3986 §6.2.3).
//!
//! What merges here, on top of the syntax rung:
//!
//! | rule | before | after |
//! |---|---|---|
//! | default port (table below) | `http://a.example:80/` | `http://a.example/` |
//! | empty port (RFC 3986 §3.2.3, every scheme) | `foo://h:/x` | `foo://h/x` |
//! | port leading zeros (table schemes) | `http://h:0080/` | `http://h/` |
//! | empty path with authority → `/` (table, `/` column) | `http://a.example` | `http://a.example/` |
//! | IDN ≡ punycode (DNS schemes, UTS #46) | `http://MÜNCHEN．de/` | `http://xn--mnchen-3ya.de/` |
//! | IPv6 in RFC 5952 text | `http://[2001:DB8:0::1]/` | `http://[2001:db8::1]/` |
//!
//! What never merges: `http` and `https`; `http://h/?` and `http://h/` (an
//! empty query keeps its delimiter: §5.3.3 "Normalization should not remove
//! delimiters when their associated component is empty"); `#` and no
//! fragment. Unknown schemes get only the generic rules: we never guess.
//!
//! | scheme | default port | empty path → `/` | host is a DNS name | defined in |
//! |---|---|---|---|---|
//! | http | 80 | yes | yes | RFC 9110 §4.2.1 |
//! | https | 443 | yes | yes | RFC 9110 §4.2.2 |
//! | ws | 80 | yes | yes | RFC 6455 §3 |
//! | wss | 443 | yes | yes | RFC 6455 §3 |
//! | ftp | 21 | yes | yes | RFC 1738 §3.2 |
//!
//! These facts come from the crate's one scheme table (`crate::scheme`).
//!
//! One scheme has a case-insensitive part inside its path: in `mailto:`
//! (RFC 6068 §2, RFC 5321 §2.4) the domain after the last `@` of each
//! address is case-insensitive, the local part is not:
//! `mailto:Joe@Example.COM` → `mailto:Joe@example.com`.

use std::borrow::Cow;

use crate::scheme::Scheme;

/// The table row for a lowercase scheme (`crate::scheme::get`).
#[inline]
pub fn rules(scheme: &str) -> Option<&'static Scheme> {
    crate::scheme::get(scheme)
}

/// The port as the scheme rung writes it: `None` to drop it (with its `:`).
/// Empty ports are dropped for every scheme (RFC 3986 §3.2.3); numeric rules
/// only for schemes with a default port in the table.
pub(crate) fn port<'p>(rules: Option<&Scheme>, port: &'p str) -> Option<&'p str> {
    if port.is_empty() {
        return None;
    }
    let Some(default_port) = rules.and_then(|r| r.default_port) else {
        return Some(port);
    };
    let trimmed = port.trim_start_matches('0');
    let value = if trimmed.is_empty() { "0" } else { trimmed };
    if value == default_port {
        None
    } else {
        Some(value)
    }
}

/// `mailto:` path (RFC 6068 §2): lowercase the ASCII letters of the domain
/// of each comma-separated address (after its last raw `@`), outside
/// percent-encodings. The local part keeps its case.
pub(crate) fn mailto_path(path: &str) -> Cow<'_, str> {
    let mut out = String::new();
    let mut changed = false;
    for (n, addr) in path.split(',').enumerate() {
        if n > 0 {
            out.push(',');
        }
        match addr.rfind('@') {
            Some(at) => {
                out.push_str(&addr[..=at]);
                let mut rest = &addr[at + 1..];
                while !rest.is_empty() {
                    if rest.starts_with('%') && rest.len() >= 3 {
                        out.push_str(&rest[..3]);
                        rest = &rest[3..];
                    } else {
                        let c = rest.chars().next().unwrap_or(' ');
                        changed |= c.is_ascii_uppercase();
                        out.push(c.to_ascii_lowercase());
                        rest = &rest[c.len_utf8()..];
                    }
                }
            }
            None => out.push_str(addr),
        }
    }
    if changed {
        Cow::Owned(out)
    } else {
        Cow::Borrowed(path)
    }
}

/// RFC 5952 text of an IPv6 literal (with brackets), borrowed if unchanged.
pub(crate) fn ipv6_literal(lit: &str) -> Cow<'_, str> {
    let inner = &lit[1..lit.len() - 1];
    match crate::host::parse_ipv6(inner) {
        Some(addr) => {
            let mut s = String::with_capacity(lit.len());
            s.push('[');
            crate::host::write_ipv6(&addr, &mut s);
            s.push(']');
            if s == lit {
                Cow::Borrowed(lit)
            } else {
                Cow::Owned(s)
            }
        }
        None => Cow::Borrowed(lit),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports() {
        let http = rules("http");
        assert_eq!(port(http, "80"), None);
        assert_eq!(port(http, "0080"), None);
        assert_eq!(port(http, ""), None);
        assert_eq!(port(http, "8080"), Some("8080"));
        assert_eq!(port(http, "000"), Some("0"));
        assert_eq!(port(None, "080"), Some("080"));
        assert_eq!(port(None, ""), None);
        assert_eq!(port(rules("https"), "443"), None);
        assert_eq!(port(rules("https"), "80"), Some("80"));
    }

    #[test]
    fn mailto_domains() {
        assert_eq!(mailto_path("Joe@Example.COM"), "Joe@example.com");
        assert_eq!(mailto_path("A@B.C,D@E%2Ef"), "A@b.c,D@e%2Ef");
        assert!(matches!(mailto_path("Joe@example.com"), Cow::Borrowed(_)));
        assert!(matches!(mailto_path("NoDomain"), Cow::Borrowed(_)));
    }

    #[test]
    fn ipv6_text() {
        assert_eq!(ipv6_literal("[2001:DB8:0:0:0:0:0:1]"), "[2001:db8::1]");
        assert!(matches!(ipv6_literal("[::1]"), Cow::Borrowed(_)));
    }
}
