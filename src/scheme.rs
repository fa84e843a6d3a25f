//! The scheme table: one row of facts per scheme that some rule knows
//! (default port and empty path of RFC 3986 §6.2.3 and 3987bis §5.3.3, DNS
//! hosts, required hosts, the web's conventions, the URL Standard's special
//! schemes), so every caller asks the same table. Unknown schemes get only
//! the generic rules: we never guess.
//!
//! | scheme | default port | empty path → `/` | host is a DNS name | host required | web rules | HTTP | special | defined in |
//! |---|---|---|---|---|---|---|---|---|
//! | http | 80 | yes | yes | yes | yes | yes | yes | RFC 9110 §4.2.1 |
//! | https | 443 | yes | yes | yes | yes | yes | yes | RFC 9110 §4.2.2 |
//! | ws | 80 | yes | yes | yes | yes | no | yes | RFC 6455 §3 |
//! | wss | 443 | yes | yes | yes | yes | no | yes | RFC 6455 §3 |
//! | ftp | 21 | yes | yes | no | no | no | yes | RFC 1738 §3.2 |
//! | file | — | no | no | no | no | no | yes | RFC 8089 §2 |
//!
//! The bottom layer: it depends on nothing else in the crate.

/// One row of the scheme table (see the module docs). Names are lowercase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scheme {
    pub name: &'static str,
    /// The port the scheme rung drops (RFC 3986 §6.2.3), as written in a
    /// key; `None` when the scheme has none.
    pub default_port: Option<&'static str>,
    /// An empty path with an authority is `/` (RFC 3986 §6.2.3).
    pub empty_path_is_slash: bool,
    /// The host is a DNS name, so IDNA applies to it (3987bis §5.3.3,
    /// 003 §3.4.2). Deliberately not `ssh`, `sftp`, `git` (their hosts are
    /// often client-side aliases), `ftps` (not registered), `file` (a local
    /// machine name): for every other scheme a non-ASCII reg-name is
    /// percent-encoded instead (§3.4.1), which is always safe.
    pub dns_host: bool,
    /// A URI of the scheme must have a non-empty host (RFC 9110 §4.2.1:
    /// "A sender MUST NOT generate an "http" URI with an empty host
    /// identifier"; RFC 6455 §3 for `ws`/`wss`).
    pub host_required: bool,
    /// The web's conventions about query parameters, session ids and
    /// directory index files hold, so the protocol rung's query and path
    /// rules apply (3987bis §5.3.4).
    pub web_rules: bool,
    /// HTTP itself (RFC 9110): a query sent in a document's charset
    /// (`--query-encoding`), the Internet Archive's default-port rule.
    pub http: bool,
    /// A special scheme of the URL Standard (WHATWG URL §4.1), whose
    /// parser treats `\` as `/` (`--mode web`).
    pub special: bool,
}

const fn web(name: &'static str, port: &'static str, http: bool) -> Scheme {
    Scheme {
        name,
        default_port: Some(port),
        empty_path_is_slash: true,
        dns_host: true,
        host_required: true,
        web_rules: true,
        http,
        special: true,
    }
}

pub const HTTP: Scheme = web("http", "80", true);
pub const HTTPS: Scheme = web("https", "443", true);
pub const WS: Scheme = web("ws", "80", false);
pub const WSS: Scheme = web("wss", "443", false);
pub const FTP: Scheme = Scheme {
    name: "ftp",
    default_port: Some("21"),
    empty_path_is_slash: true,
    dns_host: true,
    host_required: false,
    web_rules: false,
    http: false,
    special: true,
};
pub const FILE: Scheme = Scheme {
    name: "file",
    default_port: None,
    empty_path_is_slash: false,
    dns_host: false,
    host_required: false,
    web_rules: false,
    http: false,
    special: true,
};

/// Every row of the table.
pub const SCHEMES: &[Scheme] = &[HTTP, HTTPS, WS, WSS, FTP, FILE];

/// The row of a lowercase scheme name.
#[inline]
pub fn get(scheme: &str) -> Option<&'static Scheme> {
    match scheme {
        "http" => Some(&HTTP),
        "https" => Some(&HTTPS),
        "ws" => Some(&WS),
        "wss" => Some(&WSS),
        "ftp" => Some(&FTP),
        "file" => Some(&FILE),
        _ => None,
    }
}

/// The row of a scheme name in any case.
pub fn get_ignore_case(scheme: &str) -> Option<&'static Scheme> {
    SCHEMES.iter().find(|r| r.name.eq_ignore_ascii_case(scheme))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups_agree_with_the_table() {
        for row in SCHEMES {
            assert_eq!(get(row.name), Some(row));
            assert_eq!(get_ignore_case(&row.name.to_ascii_uppercase()), Some(row));
        }
        for other in [
            "", "HTTP", "mailto", "urn", "ssh", "git", "sftp", "ftps", "httpx",
        ] {
            assert_eq!(get(other), None, "{other}");
        }
        assert_eq!(get_ignore_case("mailto"), None);
    }
}
