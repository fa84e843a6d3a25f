//! DNS facts about a host: which schemes' reg-names are DNS names (so
//! 3987bis §3.4's punycode mapping and §5.3.3's IDN equivalence apply), and
//! UTS #46 VerifyDnsLength (RFC 1035 §2.3.4).

use super::errors::{length_error, IdnaError};

/// Whether a scheme's reg-name is certainly a DNS domain name, so that the
/// punycode mapping of draft -13 §3.4.2 (and the IDN ↔ punycode equivalence
/// of 3987bis §5.3.3) applies: `http`, `https`, `ws`, `wss`, `ftp` (the
/// scheme table, `crate::scheme`, says why each and why not others).
/// `scheme` must already be lowercase.
pub fn is_dns_scheme(scheme: &str) -> bool {
    crate::scheme::get(scheme).is_some_and(|r| r.dns_host)
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
