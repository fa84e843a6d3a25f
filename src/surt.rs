//! SURT: the Sort-friendly URI Reordering Transform web archives index by.
//!
//! A SURT writes the host's labels reversed and comma-joined, so that all
//! of a domain's URLs sort together: `http://www.example.com/a?b` →
//! `com,example,www)/a?b` (the CDX form used by Wayback indexes). It is a
//! *form* of a key (draft-ietf-iri-3987bis §5.3: a key is compared as a
//! string; SURT only reorders it), computed from the final URI-form key, so
//! all the ladder's merging has already happened.
//!
//! Formats (matching Internet Archive urlcanon / Heritrix where our
//! canonical input allows; see `tests/protocol.rs` for the differences):
//!
//! | options | `http://u@www.example.com:81/p?q` |
//! |---|---|
//! | default (CDX) | `com,example,www:81@u)/p?q` |
//! | `with_scheme` + `trailing_comma` (Heritrix) | `http://(com,example,www,:81@u)/p?q` |
//! | `strip_www` | `com,example:81@u)/p?q` |
//! | `with_userinfo: false` (urlcanon) | `com,example,www:81)/p?q` |
//! | [`ssurt`] | `com,example,www,//81:http@u:/p?q` |
//!
//! IP hosts are never reversed; a reference without an authority is
//! returned as it is (`mailto:a@b`, `dns:example.com`).
//!
//! Note: the default (CDX) form omits the scheme, as Wayback indexes do, so
//! `http://h/` and `https://h/` share a SURT. Use `with_scheme` when the
//! SURT is the identity of a key.

use crate::iri::{HostKind, IriRef};

/// How [`surt`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SurtOptions {
    /// Start with `scheme://(`.
    pub with_scheme: bool,
    /// End the reversed host with `,` (`com,example,`).
    pub trailing_comma: bool,
    /// Drop one leading `www` label (only `www`; never `www2`).
    pub strip_www: bool,
    /// Keep the userinfo, as `@userinfo` before `)` (Heritrix). urlcanon
    /// drops it, which would merge `http://u@h/` with `http://h/`.
    pub with_userinfo: bool,
}

impl Default for SurtOptions {
    /// The CDX form: `com,example)/path?query`.
    fn default() -> Self {
        SurtOptions {
            with_scheme: false,
            trailing_comma: false,
            strip_www: false,
            with_userinfo: true,
        }
    }
}

/// Host labels reversed and comma-joined, with a trailing comma:
/// `x.y.z` → `z,y,x,`; `x.y.z.` → `,z,y,x,`; `` → `,`.
pub fn reverse_host(host: &str) -> String {
    let mut out = String::with_capacity(host.len() + 1);
    for (i, label) in host.rsplit('.').enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(label);
    }
    out.push(',');
    out
}

fn host_part(key: &IriRef<'_>, strip_www: bool, trailing_comma: bool) -> String {
    let host = key.host().unwrap_or("");
    match key.host_kind() {
        Some(HostKind::RegName) | None => {
            let host = match host.strip_prefix("www.") {
                Some(rest) if strip_www && !rest.is_empty() => rest,
                _ => host,
            };
            let mut r = reverse_host(host);
            if !trailing_comma {
                r.pop();
            }
            r
        }
        // IP literals are not reversed.
        Some(_) => host.to_owned(),
    }
}

/// Path, query and fragment of `key`, as written.
fn rest<'a>(key: &IriRef<'a>) -> &'a str {
    let s = key.as_str();
    &s[key.path().as_ptr() as usize - s.as_ptr() as usize..]
}

/// The SURT (CDX form, default options) of a key given as bytes; the key
/// itself if it is not a reference (a key always is).
pub fn surt_of_key(key: &[u8]) -> Vec<u8> {
    std::str::from_utf8(key)
        .ok()
        .and_then(|k| crate::parse(k).ok())
        .map(|r| surt(&r, &SurtOptions::default()).into_bytes())
        .unwrap_or_else(|| key.to_vec())
}

/// The SURT of a (canonical, URI-form) key. See the module docs.
///
/// ```
/// use irinorm::{parse, surt::{surt, SurtOptions}};
/// let k = parse("http://www.example.com/a?b=1").unwrap();
/// assert_eq!(surt(&k, &SurtOptions::default()), "com,example,www)/a?b=1");
/// let o = SurtOptions { with_scheme: true, trailing_comma: true, ..Default::default() };
/// assert_eq!(surt(&k, &o), "http://(com,example,www,)/a?b=1");
/// ```
pub fn surt(key: &IriRef<'_>, opts: &SurtOptions) -> String {
    if key.authority().is_none() {
        return key.as_str().to_owned();
    }
    let mut out = String::with_capacity(key.as_str().len() + 8);
    if opts.with_scheme {
        out.push_str(key.scheme().unwrap_or(""));
        out.push_str("://(");
    }
    out.push_str(&host_part(key, opts.strip_www, opts.trailing_comma));
    if let Some(p) = key.port() {
        out.push(':');
        out.push_str(p);
    }
    if let (true, Some(u)) = (opts.with_userinfo, key.userinfo()) {
        out.push('@');
        out.push_str(u);
    }
    out.push(')');
    out.push_str(rest(key));
    out
}

/// SSURT (urlcanon's "scheme-less sort-friendly" variant):
/// `reversed,host,//port:scheme@userinfo:path?query#fragment`.
///
/// ```
/// use irinorm::{parse, surt::ssurt};
/// let k = parse("http://user@foo.example.org:81/path?q#f").unwrap();
/// assert_eq!(ssurt(&k), "org,example,foo,//81:http@user:/path?q#f");
/// ```
pub fn ssurt(key: &IriRef<'_>) -> String {
    if key.authority().is_none() {
        return key.as_str().to_owned();
    }
    let mut out = host_part(key, false, true);
    if key.host_kind().is_some_and(|k| k != HostKind::RegName) {
        // urlcanon: IP hosts are written as they are, without a comma.
        out.pop();
        out = key.host().unwrap_or("").to_owned();
    }
    out.push_str("//");
    if let Some(p) = key.port() {
        out.push_str(p);
        out.push(':');
    }
    out.push_str(key.scheme().unwrap_or(""));
    if let Some(u) = key.userinfo() {
        out.push('@');
        out.push_str(u);
    }
    out.push(':');
    out.push_str(rest(key));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse;

    #[test]
    fn shapes() {
        let k = parse("http://u@www.example.com:81/p?q").unwrap();
        let d = SurtOptions::default();
        assert_eq!(surt(&k, &d), "com,example,www:81@u)/p?q");
        let h = SurtOptions {
            with_scheme: true,
            trailing_comma: true,
            ..d
        };
        assert_eq!(surt(&k, &h), "http://(com,example,www,:81@u)/p?q");
        let w = SurtOptions {
            strip_www: true,
            ..d
        };
        assert_eq!(surt(&k, &w), "com,example:81@u)/p?q");
        assert_eq!(ssurt(&k), "com,example,www,//81:http@u:/p?q");
        let ip = parse("http://[::1]:8/x").unwrap();
        assert_eq!(surt(&ip, &d), "[::1]:8)/x");
        assert_eq!(ssurt(&ip), "[::1]//8:http:/x");
        let m = parse("mailto:a@b.example").unwrap();
        assert_eq!(surt(&m, &d), "mailto:a@b.example");
        assert_eq!(reverse_host(""), ",");
        assert_eq!(reverse_host("x.y.z."), ",z,y,x,");
        let www = parse("http://www/").unwrap();
        assert_eq!(surt(&www, &w), "www)/");
    }
}
