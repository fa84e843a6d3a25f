//! Host names as Common Crawl's host-level web graph names them
//! (`cc-pyspark`'s `ExtractHostLinksJob.get_surt_host`): lower case, a
//! trailing dot dropped, a leading `www` label dropped when two labels
//! remain, each label an LDH label (underscore allowed) of at most 63
//! octets or an IDN label written as its A-label (RFC 5890 §2.3.2.1), the
//! labels reversed (`www.example.com` → `com.example`). IP addresses and
//! names of one label have no host name: such links are left out of the
//! graph. Joinable with the published host graphs.

/// The graph's name of `host` (a URI's host, as parsed), or `None` where
/// the host graph leaves the host out.
pub fn graph_host(host: &str) -> Option<String> {
    let host = host.trim().to_ascii_lowercase();
    if host.is_empty() || host.len() > 253 || is_ipv4(&host) {
        return None;
    }
    let mut parts: Vec<&str> = host.split('.').collect();
    if parts.last() == Some(&"") {
        parts.pop();
    }
    if parts.len() <= 1 {
        return None;
    }
    if parts.len() > 2 && parts[0] == "www" {
        parts.remove(0);
    }
    let mut out: Vec<String> = Vec::with_capacity(parts.len());
    for part in parts.iter().rev() {
        if part.len() > 63 {
            return None;
        }
        if is_label(part) {
            out.push((*part).to_owned());
        } else {
            let a = idna_label(part)?;
            if !is_label(&a) {
                return None;
            }
            out.push(a);
        }
    }
    Some(out.join("."))
}

/// `^[a-z0-9]([a-z0-9_-]{0,61}[a-z0-9])?$` (the host is lower case).
fn is_label(p: &str) -> bool {
    let b = p.as_bytes();
    let ok = |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    !b.is_empty()
        && b.len() <= 63
        && ok(b[0])
        && ok(b[b.len() - 1])
        && b.iter().all(|&c| ok(c) || c == b'-' || c == b'_')
}

/// The A-label of one Unicode label (UTS #46 ToASCII of the label alone).
fn idna_label(p: &str) -> Option<String> {
    if p.is_empty() || p.contains('%') {
        return None;
    }
    let a = crate::domain_to_ascii(p).ok()?;
    (!a.is_empty() && !a.contains('.')).then(|| a.into_owned())
}

/// `^(?:www\.)?\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$`.
fn is_ipv4(h: &str) -> bool {
    let h = h.strip_prefix("www.").unwrap_or(h);
    let parts: Vec<&str> = h.split('.').collect();
    parts.len() == 4
        && parts
            .iter()
            .all(|p| (1..=3).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit()))
}
