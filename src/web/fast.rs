//! The web mode's fast path: a reference that is already its own WHATWG
//! serialization (URL Standard §4.4 "URL parsing" followed by §4.5 "URL
//! serializing" gives back the same string) is keyed as written, without
//! the `url` crate.
//!
//! [`is_own_href`] decides it from the one scan of [`crate::parse`] (RFC
//! 3987 §2.2, RFC 3986 §3: the same scan the strict key starts with) and
//! its flags, plus a look at the host, the port and, only where the flags
//! say so, the path: bit masks of their `.`, `/`, `:`, `%`, `-` 16 bytes
//! at a time ([`crate::simd::scan::byte_masks`]), exact byte checks only
//! where a mask shows a suspect. Each condition is sufficient for one step of the basic
//! URL parser to leave the text as it stands; together they are narrower
//! than the Standard (a line they refuse simply takes the full path):
//!
//! | condition | URL Standard section | what it rules out |
//! |---|---|---|
//! | the reference parses as an IRI (RFC 3987 §2.2) and is ASCII: no C0 control, space, `\`, `"`, `<`, `>`, `` ` ``, `^`, `{`, `}`, `\|`, no `[`/`]` outside an IP literal, every `%` followed by two hex digits | §4.4 basic URL parser steps 1–3 (trim C0 and space, remove TAB/LF/CR); §1.3 path, query and fragment percent-encode sets; `\` read as `/` in special URLs | trimming, tab/newline removal, backslash repair, percent-encoding |
//! | the scheme is `http`, `https`, `ws`, `wss`, `ftp` or `file`, in lowercase, followed by `//` (an authority) | §4.1 special scheme; §4.4 scheme state (lowercased), special authority slashes state, file state | scheme case, `http:x`, `http:/x` |
//! | no userinfo | §4.4 authority state; §1.3 userinfo percent-encode set | credentials re-encoded, an empty `@` dropped |
//! | the host is an IPv4 address as RFC 3986 writes one (dec-octets), or at most 64 bytes of labels of lowercase `a-z`, `0-9`, `-`: none empty (no trailing `.`), and one with an `xn--` label only if the host parser gives it back as it is (asked once per host of a thread) | §3.5 host parsing, §3.3 domain to ASCII (UTS #46 ToASCII is the identity on such labels), §3.6 host serializing | uppercase, percent-decoding, IDNA, IPv6 compression |
//! | a reg-name's last label is not a number (all digits, or `0x…`) | §3.5 "ends in a number checker" and IPv4 parser | IPv4 shorthand, octal, hex, `a.1` failures |
//! | no port, or 1–5 digits without a leading zero, at most 65535, not the scheme's default port | §4.4 port state; §4.1 default port | `:80`, `:080`, `:`, ports out of range |
//! | `file`: no port, the host empty or not `localhost`; no empty path segment (`//`), none starting with a Windows drive letter (a letter and `:` or `\|`) | §4.4 file host state, path state; §4.2 Windows drive letter | `localhost` emptied, a host moved into the path |
//! | the path is not empty | §4.4 path start state (a special URL's empty path becomes `/`) | `http://h`, `http://h?q` |
//! | no path segment that is `.`, `..` or one of their `%2e` forms (any case) | §4.2 single-dot and double-dot URL path segments; §4.4 path state | dot segments removed or shortened |
//! | no `'` in the query | §1.3 special-query percent-encode set (RFC 3986 allows `'` raw) | `'` → `%27` |
//! | no `#` in the fragment | RFC 3986 §3.5 (the URI form encodes a second `#`) | `#` → `%23` in [`super::Href::to_uri_ref`] |
//!
//! The bytes an IRI allows in a path, query or fragment (unreserved,
//! sub-delims, `:`, `@`, `/`, `?`, percent-encoded octets) are in none of
//! the Standard's path, query and fragment percent-encode sets but for the
//! `'` above, so the `href` is the reference and [`super::Href::to_uri_ref`]
//! leaves it borrowed: the ladder's key of the reference is the key web
//! mode computes from its `href`, at every rung and for every key function.
//! `tests/web_fast.rs` and the `web_fast` fuzz target hold the predicate to
//! the `url` crate on generated inputs, the WPT data, the bundled lists and
//! the fuzz corpus.

use crate::iri::flags::{HOST_NON_ASCII, HOST_PCT, HOST_UPPER, NON_ASCII, PATH_DOT, PCT};
use crate::simd::scan::byte_masks;
use crate::{HostKind, IriRef};

/// True when the URL Standard's `href` of `input` (no base needed: the
/// reference is absolute) is `input` itself and is an RFC 3986 URI, by the
/// sufficient conditions of this module's table. False says nothing: the
/// reference may still serialize to itself.
pub fn is_own_href(input: &str) -> bool {
    crate::parse(input).is_ok_and(|r| is_own_href_parsed(&r))
}

/// [`is_own_href`] of `r`, the [`crate::parse`] of the reference: the
/// parse vouches for the bytes, the rest is the table's other rows. The
/// components are looked at as byte ranges of the line.
pub fn is_own_href_parsed(r: &IriRef<'_>) -> bool {
    let b = r.as_str().as_bytes();
    let Some((host_start, host_end)) = r.host_range() else {
        return false;
    };
    // The parse has an authority, so a line starting `scheme://` has that
    // scheme (it ends at the first `:`) and its authority starts after the
    // `//`; the host starts there unless a userinfo comes first.
    let Some((auth_start, default_port)) = special_scheme(b) else {
        return false;
    };
    let (path_start, path_end) = r.path_range();
    // With an authority the path is empty or starts with `/` (RFC 3986
    // §3.3); §4.4 path start state makes an empty one `/`.
    if path_start == path_end || host_start != auth_start || r.flags() & NON_ASCII != 0 {
        return false;
    }
    // The port, without its `:`, when there is one.
    let port = (host_end < path_start).then(|| &b[host_end + 1..path_start]);
    let authority = match default_port {
        None => {
            port.is_none()
                && (host_start == host_end
                    || (&b[host_start..host_end] != b"localhost"
                        && host_is_own(r, b, host_start, host_end)))
        }
        Some(d) => {
            host_is_own(r, b, host_start, host_end) && port.is_none_or(|p| port_is_own(p, d))
        }
    };
    authority
        && path_is_own(b, path_start, path_end, default_port.is_none(), r.flags())
        && tail_is_own(b, path_end)
}

/// The scheme of a line that starts with a special scheme (§4.1) in
/// lowercase (§4.4 scheme state lowercases it) and `//`: where its
/// authority starts, and the scheme's default port (`None` for `file`,
/// which has no port).
fn special_scheme(b: &[u8]) -> Option<(usize, Option<u16>)> {
    const SPECIAL: [(&[u8], Option<u16>); 6] = [
        (b"https://", Some(443)),
        (b"http://", Some(80)),
        (b"file://", None),
        (b"wss://", Some(443)),
        (b"ws://", Some(80)),
        (b"ftp://", Some(21)),
    ];
    SPECIAL
        .iter()
        .find(|(prefix, _)| b.starts_with(prefix))
        .map(|&(prefix, port)| (prefix.len(), port))
}

/// The query and fragment (`b[from..]`: everything after the path) are
/// left as they are: no `'` in the query (§1.3 special-query
/// percent-encode set) and no `#` in the fragment (the URI form encodes
/// it). From a bit mask of the `'` and `#`, 64 bytes at a time.
#[inline(always)]
pub(super) fn tail_is_own(b: &[u8], from: usize) -> bool {
    let mut fragment = false;
    let mut at = from;
    while at < b.len() {
        let to = (at + 64).min(b.len());
        let [mut m] = byte_masks(b, at, to, [b"'#"]);
        while m != 0 {
            match (b[at + m.trailing_zeros() as usize], fragment) {
                (b'#', false) => fragment = true,
                (b'\'', true) => {}
                _ => return false,
            }
            m &= m - 1;
        }
        at = to;
    }
    true
}

/// §3.5 host parsing and §3.6 serializing leave the host `b[start..end]`
/// as it is: an IPv4 address as RFC 3986 writes one (dec-octets, which is
/// §3.6's form), or a reg-name of at most 64 bytes (longer ones take the
/// full path) with no uppercase letter, `%` or non-ASCII character (the
/// parse's flags), no empty label, and a last label that is no number (all digits, or `0x…`, which §3.5's "ends in a number
/// checker" sends to the IPv4 parser). The other bytes RFC 3986 allows in
/// a reg-name (`a-z`, digits, `-._~!$&'()*+,;=`) are no forbidden domain
/// code point (§3.1) and UTS #46 ToASCII (§3.3, *UseSTD3ASCIIRules* false)
/// maps none of them; a host with an `xn--` label is asked of the host
/// parser (whose Punycode checks are not repeated here). The labels are read from bit masks of the host's
/// `.` and `-`.
#[inline(always)]
pub(super) fn host_is_own(r: &IriRef<'_>, b: &[u8], start: usize, end: usize) -> bool {
    match r.host_kind() {
        Some(HostKind::Ipv4) => return true,
        Some(HostKind::RegName) if start < end && end - start <= 64 => {}
        _ => return false,
    }
    if r.flags() & (HOST_UPPER | HOST_PCT | HOST_NON_ASCII) != 0 {
        return false;
    }
    let h = &b[start..end];
    let n = h.len();
    let [dot, hyphen] = byte_masks(b, start, end, [b".", b"-"]);
    // An empty label: a `.` first, last or after another.
    if dot & ((dot << 1) | 1 | (1 << (n - 1))) != 0 {
        return false;
    }
    // An `xn--` label: a label start with `-` two and three bytes on.
    // ToASCII checks its Punycode: the host parser decides, once per host
    // of the thread (`super::hosts`).
    let mut xn = ((dot << 1) | 1) & (hyphen >> 2) & (hyphen >> 3);
    while xn != 0 {
        if h[xn.trailing_zeros() as usize..].starts_with(b"xn") {
            return super::hosts::host_parses_to_itself(&r.as_str()[start..end]);
        }
        xn &= xn - 1;
    }
    // A number (all digits, or `0x` and hex digits; no uppercase here)
    // ends in a hex digit or `x`; most names end in another letter.
    let last_byte = h[n - 1];
    if !(last_byte.is_ascii_hexdigit() || last_byte == b'x') {
        return true;
    }
    let last = &h[(64 - dot.leading_zeros()) as usize..];
    !(last.iter().all(u8::is_ascii_digit) || last.starts_with(b"0x"))
}

/// §4.4 port state: the digits are kept as written when they are the
/// shortest decimal of a port that is not the scheme's default.
fn port_is_own(p: &[u8], default: u16) -> bool {
    if p.is_empty() || p.len() > 5 || p[0] == b'0' {
        return false;
    }
    let n = p.iter().fold(0u32, |n, &c| n * 10 + u32::from(c - b'0'));
    n <= 65535 && n != u32::from(default)
}

/// The path `b[start..end]` is left as it is: no dot segment
/// ([`is_dot_segment`]) and, for `file`, no empty segment but a last one
/// and no segment starting with a Windows drive letter (§4.2: an ASCII
/// letter followed by `:` or `|`; an IRI has no raw `|`): §4.4's file and
/// path states move or drop those, and the `url` crate, which lags the
/// Standard there (`tests/wpt/expected_failures.txt`), rewrites them in
/// its own ways. Decided from the parse's flags where they settle it (no
/// `.` after a `/`, no `%`, not `file`), else from bit masks of the path's
/// `/`, `:` and `.`/`%`, 64 bytes at a time: a `/` after a `/` and a `:`
/// after a segment's first byte are looked at, and each segment starting
/// with `.` or `%` (`%2e`).
#[inline(always)]
pub(super) fn path_is_own(b: &[u8], start: usize, end: usize, file: bool, flags: u32) -> bool {
    if flags & (PATH_DOT | PCT) == 0 && !file {
        return true;
    }
    let path = &b[start..end];
    // Bit 0 of each: the last byte of the piece before is a `/`, or a
    // segment's first byte.
    let (mut slash_before, mut first_before) = (0, 0);
    let mut at = start;
    while at < end {
        let to = (at + 64).min(end);
        let [slash, colon, dot_pct] = byte_masks(b, at, to, [b"/", b":", b".%"]);
        let first = (slash << 1) | slash_before;
        // An empty segment, or a `:` second in a segment.
        if file && (first & slash != 0 || ((first << 1) | first_before) & colon != 0) {
            // A `:` second in a segment after a letter is a drive letter.
            if first & slash != 0 {
                return false;
            }
            let mut c = ((first << 1) | first_before) & colon;
            while c != 0 {
                let i = at - start + c.trailing_zeros() as usize;
                if path[i - 1].is_ascii_alphabetic() {
                    return false;
                }
                c &= c - 1;
            }
        }
        let mut dots = first & dot_pct;
        while dots != 0 {
            if is_dot_segment(segment_at(
                path,
                at - start + dots.trailing_zeros() as usize,
            )) {
                return false;
            }
            dots &= dots - 1;
        }
        let top = to - at - 1;
        (slash_before, first_before) = ((slash >> top) & 1, (first >> top) & 1);
        at = to;
    }
    true
}

/// The segment of `path` that starts at `i`: up to the next `/`.
fn segment_at(path: &[u8], i: usize) -> &[u8] {
    let rest = &path[i..];
    &rest[..memchr::memchr(b'/', rest).unwrap_or(rest.len())]
}

/// §4.2 single-dot URL path segment (`.`, `%2e`, any case) or double-dot
/// one (two of them): §4.4 path state removes it (and the one before).
fn is_dot_segment(seg: &[u8]) -> bool {
    let single = |s: &[u8]| s == b"." || s.eq_ignore_ascii_case(b"%2e");
    seg.len() <= 6
        && (single(seg) || (1..seg.len()).any(|k| single(&seg[..k]) && single(&seg[k..])))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// [`path_is_own`] a byte at a time.
    fn path_is_own_bytes(path: &[u8], file: bool) -> bool {
        let mut seg = 0; // start of the current segment
        for (i, &c) in path.iter().enumerate() {
            match c {
                b'/' if file && i > 0 && seg == i => return false,
                b'/' => seg = i + 1,
                b':' if file && i == seg + 1 && path[seg].is_ascii_alphabetic() => return false,
                _ => {}
            }
        }
        !(0..path.len())
            .any(|i| (i == 0 || path[i - 1] == b'/') && is_dot_segment(segment_at(path, i)))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(5_000))]
        /// The mask checks of the path are its byte loop, at every length
        /// and offset in the line (pieces of 64 bytes, the last one short).
        #[test]
        fn path_checks_are_their_byte_loop(
            pre in proptest::collection::vec(prop::sample::select(b"/.a:".to_vec()), 0..20),
            p in proptest::collection::vec(
                prop_oneof![
                    prop::sample::select(b"/.%2eEa:B".to_vec()),
                    Just(b'/'),
                    Just(b'a'),
                ],
                1..150,
            ),
            post in proptest::collection::vec(prop::sample::select(b"?#a".to_vec()), 0..20),
            file: bool,
        ) {
            let mut p = p;
            p[0] = b'/';
            let b = [&pre[..], &p[..], &post[..]].concat();
            let (start, end) = (pre.len(), pre.len() + p.len());
            prop_assert_eq!(path_is_own(&b, start, end, file, u32::MAX), path_is_own_bytes(&p, file));
        }

        /// The host's mask checks are the byte loops they stand for.
        #[test]
        fn host_checks_are_their_byte_loops(labels in proptest::collection::vec("(xn--|x|0x)?[a-f0-9x-]{0,5}", 1..8)) {
            let h = labels.join(".");
            let line = format!("http://{h}/");
            let Ok(r) = crate::parse(&line) else { return Ok(()) };
            let want = r.host_kind() == Some(HostKind::Ipv4)
                || (!h.is_empty()
                    && h.len() <= 64
                    && h.split('.').all(|l| !l.is_empty())
                    && if h.split('.').any(|l| l.starts_with("xn--")) {
                        // The host parser decides a Punycode label.
                        url::Host::parse(&h).is_ok_and(|p| p.to_string() == h)
                    } else { h.rsplit('.').next().is_some_and(|l| {
                        // No number: one ends in a hex digit or `x`.
                        let end = l.bytes().last().unwrap_or(b'.');
                        !(end.is_ascii_hexdigit() || end == b'x')
                            || !(l.bytes().all(|c| c.is_ascii_digit()) || l.starts_with("0x"))
                    }) });
            let (s, e) = r.host_range().unwrap();
            prop_assert_eq!(host_is_own(&r, line.as_bytes(), s, e), want, "{}", h);
        }
    }

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
            "http://xn--mnchen-3ya.de/",
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
            "http://xn--a.de/",
            "http://xn--55555577.de/",
            "http://xn--mnchen-3ya.xn--a/",
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
            "http://h/a/..",
            "http://h/a/.",
            "http://h/a/%2e",
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
            "file://h/a//b",
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
