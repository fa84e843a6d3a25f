//! DNS facts about a host: which schemes' reg-names are DNS names (so
//! 3987bis §3.4's punycode mapping and §5.3.3's IDN equivalence apply),
//! which schemes need a host (RFC 9110 §4.2.1, RFC 6455 §3), and UTS #46
//! VerifyDnsLength (RFC 1035 §2.3.4).

use super::errors::{length_error, IdnaError};

/// Whether a scheme's reg-name is certainly a DNS domain name, so that the
/// punycode mapping of draft -13 §3.4.2 (and the IDN ↔ punycode equivalence
/// of 3987bis §5.3.3) applies. `scheme` must already be lowercase.
///
/// | scheme | why the host is a DNS name |
/// | --- | --- |
/// | `http`, `https` | RFC 9110 §4.2 (host resolved via DNS or IP literal) |
/// | `ws`, `wss` | RFC 6455 §3 (same host rules as http) |
/// | `ftp` | RFC 1738 §3.1 / §3.2 (fully qualified domain name) |
///
/// Deliberately **not** included: `ssh`, `sftp`, `git` (provisional or
/// unregistered; their hosts are commonly client-side aliases such as
/// `~/.ssh/config` entries, not DNS names), `ftps` (not IANA-registered),
/// `file` (host is a local machine name), `mailto`/`urn` etc. (no authority).
/// For every other scheme a non-ASCII reg-name is percent-encoded instead
/// (§3.4.1), which is always safe.
pub fn is_dns_scheme(scheme: &str) -> bool {
    matches!(scheme, "http" | "https" | "ws" | "wss" | "ftp")
}

/// The schemes whose URIs must have a non-empty host, as the `&'static`
/// name: `http` and `https` (RFC 9110 §4.2.1–4.2.2: "A sender MUST NOT
/// generate an "http" URI with an empty host identifier. A recipient that
/// processes such a URI reference MUST reject it as invalid."), `ws` and
/// `wss` (RFC 6455 §3: `"ws:" "//" host [ ":" port ] path [ "?" query ]`).
/// `scheme` must already be lowercase.
pub fn host_required(scheme: &str) -> Option<&'static str> {
    ["http", "https", "ws", "wss"]
        .into_iter()
        .find(|s| *s == scheme)
}

/// UTS #46 VerifyDnsLength on the ASCII form of a DNS host: no label longer
/// than 63 octets, and the name (without one trailing root dot) at most 253
/// octets (RFC 1035 §2.3.4; the 255-octet wire limit). Empty labels are not
/// checked here (`a..b`, a trailing dot stay as they are: they are spellings
/// the syntax allows, compared as written).
pub fn verify_dns_length(ascii: &str) -> Result<(), IdnaError> {
    if ascii.len() <= 63 {
        return Ok(());
    }
    let name = ascii.strip_suffix('.').unwrap_or(ascii);
    if let Some(label) = name.split('.').find(|l| l.len() > 63) {
        return Err(length_error(label));
    }
    if name.len() > 253 {
        return Err(IdnaError(format!(
            "domain name of {} octets is longer than 253 (UTS #46 VerifyDnsLength)",
            name.len()
        )));
    }
    Ok(())
}
