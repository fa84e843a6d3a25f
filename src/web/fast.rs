//! The web mode's fast path: a reference that is already its own WHATWG
//! serialization (URL Standard §4.4 "URL parsing" followed by §4.5 "URL
//! serializing" gives back the same string) is keyed as written, without
//! the `url` crate.
//!
//! [`is_own_href`] decides it in one left-to-right pass over the bytes,
//! with conditions that are each sufficient for one step of the basic URL
//! parser to leave the text as it stands. They are deliberately narrower
//! than the Standard (a line they refuse simply takes the full path):
//!
//! | condition | URL Standard section | what it rules out |
//! |---|---|---|
//! | every byte ASCII, no C0 control, space, TAB, LF, CR or `\` | §4.4 basic URL parser steps 1–3; path and authority states (`\` is `/` in special URLs) | trimming, tab/newline removal, backslash repair, percent-encoding of non-ASCII |
//! | starts with `http://`, `https://`, `file://`, `ws://`, `wss://` or `ftp://`, lowercase | §4.1 special scheme; §4.4 scheme state (lowercased), special authority slashes state, file state | scheme case, `http:x`, `http:/x`, `http:\\x` |
//! | `file`: no port, the host empty or not `localhost`; no empty path segment and none starting with a Windows drive letter (a letter and `:` or `\|`) | §4.4 file host state, path state; §4.2 Windows drive letter | `localhost` emptied, a host moved into the path |
//! | no `@` in the authority | §4.4 authority state; §1.3 userinfo percent-encode set | credentials re-encoded or an empty `@` dropped |
//! | host of lowercase `a-z`, `0-9`, `-`, `.`; non-empty labels; no trailing `.`; no label starting `xn--` | §3.5 host parsing, §3.3 domain to ASCII (UTS #46 ToASCII on lowercase ASCII labels without punycode is the identity) | uppercase, percent-decoding, IDNA, forbidden domain code points |
//! | the last label is not a number (all digits, or `0x…`), unless the whole host is a dotted-quad IPv4 address in its serialized form (four decimal parts 0–255 without leading zeros) | §3.5 "ends in a number checker", IPv4 parser; §3.6 host serializing | IPv4 shorthand, octal, hex, `a.1` failures |
//! | no port, or 1–5 digits without a leading zero, at most 65535, not the scheme's default port | §4.4 port state; §4.1 default port | `:80`, `:080`, `:`, ports out of range |
//! | the authority is followed by `/` | §4.4 path start state (an empty path of a special URL becomes `/`) | `http://h`, `http://h?q` |
//! | no path segment starting with `.` or `%2e` (any case) | §4.2 single-dot and double-dot URL path segments; §4.4 path state | dot segments removed or shortened |
//! | path, query and fragment bytes: unreserved, sub-delims, `:`, `@`, `/`, `?`, `%` followed by two hex digits, the first `#`; no `'` in the query | §1.3 path, query, special-query and fragment percent-encode sets | percent-encoding: the special-query set encodes `'`, which RFC 3986 allows raw |
//!
//! The last row also makes the reference a URI that
//! [`super::Href::to_uri_ref`] leaves borrowed, so the ladder's key of the
//! reference is the key web mode computes from its `href`, at every rung
//! and for every key function. `tests/web_fast.rs` and the `web_fast` fuzz
//! target hold the predicate to the `url` crate on generated inputs, the
//! WPT data, the bundled lists and the fuzz corpus.

/// Byte classes of the pass over the path, query and fragment.
const OK: u8 = 0;
const BAD: u8 = 1;
const SLASH: u8 = 2;
const QUESTION: u8 = 3;
const HASH: u8 = 4;
const PERCENT: u8 = 5;
const APOSTROPHE: u8 = 6;

/// RFC 3986 §2.2–2.3 `unreserved`, `sub-delims`, `:`, `@`: the bytes none
/// of the Standard's path, query and fragment percent-encode sets (§1.3)
/// contains, except `'` (special-query set), which has its own class.
static CLASS: [u8; 256] = {
    let mut t = [BAD; 256];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        if c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_' | b'~') {
            t[b] = OK;
        }
        if matches!(
            c,
            b'!' | b'$' | b'&' | b'(' | b')' | b'*' | b'+' | b',' | b';' | b'='
        ) {
            t[b] = OK;
        }
        if matches!(c, b':' | b'@') {
            t[b] = OK;
        }
        b += 1;
    }
    t[b'/' as usize] = SLASH;
    t[b'?' as usize] = QUESTION;
    t[b'#' as usize] = HASH;
    t[b'%' as usize] = PERCENT;
    t[b'\'' as usize] = APOSTROPHE;
    t
};

/// True when the URL Standard's `href` of `input` (no base needed: the
/// reference is absolute) is `input` itself and is an RFC 3986 URI, by the
/// sufficient conditions in this module's table. False says nothing: the
/// reference may still serialize to itself.
pub fn is_own_href(input: &str) -> bool {
    let b = input.as_bytes();
    let Some((rest, default_port)) = special_prefix(b) else {
        return false;
    };
    let start = b.len() - rest.len();
    let auth_end = rest
        .iter()
        .position(|&c| matches!(c, b'/' | b'?' | b'#'))
        .map_or(b.len(), |p| start + p);
    // §4.4 path start state: an empty path becomes `/`.
    if b.get(auth_end) != Some(&b'/') {
        return false;
    }
    let auth = &b[start..auth_end];
    let tail = &b[auth_end..];
    let Some(default_port) = default_port else {
        // `file` (§4.4 file host state): no port, an empty host kept,
        // `localhost` emptied; a drive letter in the first segment
        // (§4.2 Windows drive letter) moves the host into the path.
        return (auth.is_empty() || (auth != b"localhost" && host_is_own(auth)))
            && file_path_is_own(tail)
            && tail_is_own(tail);
    };
    let (host, port) = match auth.iter().position(|&c| c == b':') {
        Some(p) => (&auth[..p], Some(&auth[p + 1..])),
        None => (auth, None),
    };
    if !host_is_own(host) || !port.is_none_or(|p| port_is_own(p, default_port)) {
        return false;
    }
    tail_is_own(tail)
}

/// A `file` path (from its first `/` to the query or fragment) with no
/// empty segment and no segment starting with a Windows drive letter (§4.2:
/// an ASCII letter followed by `:` or `|`): §4.4's file and path states
/// move or drop those, and the `url` crate, which lags the Standard there
/// (`tests/wpt/expected_failures.txt`), rewrites them in its own ways.
fn file_path_is_own(tail: &[u8]) -> bool {
    let end = tail
        .iter()
        .position(|&c| matches!(c, b'?' | b'#'))
        .unwrap_or(tail.len());
    tail[..end].split(|&c| c == b'/').skip(1).all(|seg| {
        !seg.is_empty() && !matches!(seg, [a, b':' | b'|', ..] if a.is_ascii_alphabetic())
    }) || end == 1
}

/// The special schemes (§4.1), lowercase, with `//`; the rest of the
/// reference and the scheme's default port (`None`: `file`, which has no
/// port).
fn special_prefix(b: &[u8]) -> Option<(&[u8], Option<u16>)> {
    [
        (&b"http://"[..], Some(80)),
        (b"https://", Some(443)),
        (b"file://", None),
        (b"ws://", Some(80)),
        (b"wss://", Some(443)),
        (b"ftp://", Some(21)),
    ]
    .into_iter()
    .find_map(|(p, port)| b.strip_prefix(p).map(|r| (r, port)))
}

/// §3.5 host parsing and §3.6 serializing leave `host` as it is: labels of
/// `a-z0-9-` without `xn--`, no empty label, and a last label that is no
/// number unless the host is an IPv4 address written as §3.6 writes one.
fn host_is_own(host: &[u8]) -> bool {
    if host.is_empty() {
        return false;
    }
    let mut numeric_labels = 0;
    let mut labels = 0;
    let mut last_numeric = false;
    for label in host.split(|&c| c == b'.') {
        labels += 1;
        if label.is_empty()
            || label.starts_with(b"xn--")
            || !label
                .iter()
                .all(|&c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')
        {
            return false;
        }
        last_numeric = label.iter().all(u8::is_ascii_digit) || label.starts_with(b"0x");
        if label.iter().all(u8::is_ascii_digit) && is_dec_octet(label) {
            numeric_labels += 1;
        }
    }
    !last_numeric || (labels == 4 && numeric_labels == 4)
}

/// RFC 3986 §3.2.2 `dec-octet`: 0–255 without leading zeros, which is how
/// §3.6 serializes an IPv4 address's parts.
fn is_dec_octet(d: &[u8]) -> bool {
    !d.is_empty()
        && d.len() <= 3
        && (d.len() == 1 || d[0] != b'0')
        && d.iter().fold(0u32, |n, &c| n * 10 + u32::from(c - b'0')) <= 255
}

/// §4.4 port state: the digits are kept as written when they are the
/// shortest decimal of a port that is not the scheme's default.
fn port_is_own(p: &[u8], default: u16) -> bool {
    if p.is_empty() || p.len() > 5 || p[0] == b'0' || !p.iter().all(u8::is_ascii_digit) {
        return false;
    }
    let n = p.iter().fold(0u32, |n, &c| n * 10 + u32::from(c - b'0'));
    n <= 65535 && n != u32::from(default)
}

/// The path (starting at its `/`), query and fragment need no change by
/// §4.4's path, query and fragment states and are already a URI.
fn tail_is_own(t: &[u8]) -> bool {
    let mut query = false;
    let mut fragment = false;
    let mut i = 0;
    while i < t.len() {
        match CLASS[t[i] as usize] {
            OK => {}
            SLASH => {
                // §4.2: a segment `.`, `..`, `%2e`, `.%2e`, … starts with
                // `.` or `%2e`; any segment starting so is refused.
                if !query && !fragment {
                    match t.get(i + 1) {
                        Some(b'.') => return false,
                        Some(b'%') if matches!(t.get(i + 2..i + 4), Some(b"2e" | b"2E")) => {
                            return false
                        }
                        _ => {}
                    }
                }
            }
            QUESTION => query |= !fragment,
            HASH if !fragment => fragment = true,
            PERCENT => {
                if !matches!(t.get(i + 1..i + 3), Some(&[x, y]) if x.is_ascii_hexdigit() && y.is_ascii_hexdigit())
                {
                    return false;
                }
            }
            APOSTROPHE if !query || fragment => {}
            _ => return false,
        }
        i += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_crawl_lines_are_their_own_href() {
        for s in [
            "http://example.com/",
            "https://www.example.com/a/b.html?x=1&y=%2F#top",
            "http://192.168.0.1/",
            "http://h:8080/x",
            "ftp://ftp.example.org/pub/",
            "file:///etc/hosts",
            "file://deps/v8/a.js",
            "https://a-b.c/it's?q#it's",
            "http://h/a?b/..#c/./d",
        ] {
            assert!(is_own_href(s), "{s}");
        }
    }

    #[test]
    fn what_the_standard_rewrites_is_refused() {
        for s in [
            "HTTP://example.com/",
            "http://Example.com/",
            "http://example.com",
            "http://example.com?q",
            "http:/example.com/",
            "http:\\\\example.com/",
            " http://example.com/",
            "http://exa\tmple.com/",
            "http://example.com./",
            "http://a..b/",
            "http://0x7f.1/",
            "http://1.2.3/",
            "http://a.1/",
            "http://01.2.3.4/",
            "http://256.2.3.4/",
            "http://a.0x1/",
            "http://xn--mnchen-3ya.de/",
            "http://ex%41mple.com/",
            "http://u@h/",
            "http://h:80/",
            "https://h:443/",
            "ftp://h:21/",
            "http://h:080/",
            "http://h:/",
            "http://h:65536/",
            "http://h/./a",
            "http://h/a/../b",
            "http://h/%2e/a",
            "http://h/%2E%2e/a",
            "http://h/a?it's",
            "http://h/a b",
            "http://h/a|b",
            "http://h/a%zz",
            "http://h/a#b#c",
            "http://h/ä",
            "http://h/a\\b",
            "http://[::1]/",
            "file://localhost/x",
            "file://h/c:/x",
            "file:///c:/x",
            "file://h:1/x",
            "file://h",
            "file:////",
            "file://h//x",
            "file://h/a/h:",
            "sc://h/",
        ] {
            assert!(!is_own_href(s), "{s}");
        }
    }

    #[test]
    fn accepted_lines_are_what_url_serializes() {
        for s in [
            "http://example.com/",
            "https://a-b.c/it's?q#it's",
            "http://h/a?b/..#c/./d",
            "http://192.168.0.1/",
            "wss://h:1/",
            "file:///etc/hosts",
            "file://deps/v8/a.js",
        ] {
            assert_eq!(url::Url::parse(s).unwrap().as_str(), s);
        }
    }
}
