//! The web mode's fast path: a reference that is already its own WHATWG
//! serialization (URL Standard §4.4 "URL parsing" followed by §4.5 "URL
//! serializing" gives back the same string) is keyed as written, without
//! the `url` crate.
//!
//! [`is_own_href`] decides it from the one scan of [`crate::parse`] (RFC
//! 3987 §2.2, RFC 3986 §3: the same scan the strict key starts with) and
//! its flags, plus a look at the host, the port and, only where the flags
//! say so, the path. Each condition is sufficient for one step of the basic
//! URL parser to leave the text as it stands; together they are narrower
//! than the Standard (a line they refuse simply takes the full path):
//!
//! | condition | URL Standard section | what it rules out |
//! |---|---|---|
//! | the reference parses as an IRI (RFC 3987 §2.2) and is ASCII: no C0 control, space, `\`, `"`, `<`, `>`, `` ` ``, `^`, `{`, `}`, `\|`, no `[`/`]` outside an IP literal, every `%` followed by two hex digits | §4.4 basic URL parser steps 1–3 (trim C0 and space, remove TAB/LF/CR); §1.3 path, query and fragment percent-encode sets; `\` read as `/` in special URLs | trimming, tab/newline removal, backslash repair, percent-encoding |
//! | the scheme is `http`, `https`, `ws`, `wss`, `ftp` or `file`, in lowercase, followed by `//` (an authority) | §4.1 special scheme; §4.4 scheme state (lowercased), special authority slashes state, file state | scheme case, `http:x`, `http:/x` |
//! | no userinfo | §4.4 authority state; §1.3 userinfo percent-encode set | credentials re-encoded, an empty `@` dropped |
//! | the host is an IPv4 address as RFC 3986 writes one (dec-octets), or labels of lowercase `a-z`, `0-9`, `-`: none empty (no trailing `.`), none starting `xn--` | §3.5 host parsing, §3.3 domain to ASCII (UTS #46 ToASCII is the identity on such labels), §3.6 host serializing | uppercase, percent-decoding, IDNA, IPv6 compression |
//! | a reg-name's last label is not a number (all digits, or `0x…`) | §3.5 "ends in a number checker" and IPv4 parser | IPv4 shorthand, octal, hex, `a.1` failures |
//! | no port, or 1–5 digits without a leading zero, at most 65535, not the scheme's default port | §4.4 port state; §4.1 default port | `:80`, `:080`, `:`, ports out of range |
//! | `file`: no port, the host empty or not `localhost`; no empty path segment (`//`), none starting with a Windows drive letter (a letter and `:` or `\|`) | §4.4 file host state, path state; §4.2 Windows drive letter | `localhost` emptied, a host moved into the path |
//! | the path is not empty | §4.4 path start state (a special URL's empty path becomes `/`) | `http://h`, `http://h?q` |
//! | no path segment starting with `.` or `%2e` (any case) | §4.2 single-dot and double-dot URL path segments; §4.4 path state | dot segments removed or shortened |
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

use crate::iri::flags::{
    HOST_HYPHEN, HOST_NON_ASCII, HOST_PCT, HOST_UPPER, NON_ASCII, PATH_DOT, PATH_DOT_SEEN, PCT,
};
use crate::{HostKind, IriRef};

/// True when the URL Standard's `href` of `input` (no base needed: the
/// reference is absolute) is `input` itself and is an RFC 3986 URI, by the
/// sufficient conditions of this module's table. False says nothing: the
/// reference may still serialize to itself.
pub fn is_own_href(input: &str) -> bool {
    crate::parse(input).is_ok_and(|r| is_own_href_parsed(&r))
}

/// [`is_own_href`] of `r`, the [`crate::parse`] of the reference: the
/// parse vouches for the bytes, the rest is the table's other rows.
pub fn is_own_href_parsed(r: &IriRef<'_>) -> bool {
    let (Some(scheme), Some(host)) = (r.scheme(), r.host()) else {
        return false;
    };
    let Some(default_port) = special_port(scheme.as_bytes()) else {
        return false;
    };
    // With an authority the path is empty or starts with `/` (RFC 3986
    // §3.3); §4.4 path start state makes an empty one `/`.
    let path = r.path().as_bytes();
    if path.is_empty() || r.userinfo().is_some() || r.flags() & NON_ASCII != 0 {
        return false;
    }
    let authority = match default_port {
        None => {
            r.port().is_none() && (host.is_empty() || (host != "localhost" && host_is_own(r, host)))
        }
        Some(d) => host_is_own(r, host) && r.port().is_none_or(|p| port_is_own(p.as_bytes(), d)),
    };
    authority
        && path_is_own(path, default_port.is_none(), r.flags())
        && r.query().is_none_or(|q| !q.as_bytes().contains(&b'\''))
        && r.fragment().is_none_or(|f| !f.as_bytes().contains(&b'#'))
}

/// The default port of a special scheme (§4.1) written in lowercase
/// (§4.4 scheme state lowercases it); `Some(None)` for `file`, which has
/// no port.
fn special_port(scheme: &[u8]) -> Option<Option<u16>> {
    Some(match scheme {
        b"http" | b"ws" => Some(80),
        b"https" | b"wss" => Some(443),
        b"ftp" => Some(21),
        b"file" => None,
        _ => return None,
    })
}

/// §3.5 host parsing and §3.6 serializing leave the host as it is: an
/// IPv4 address as RFC 3986 writes one (dec-octets, which is §3.6's form),
/// or a reg-name with no uppercase letter, `%` or non-ASCII character (the
/// parse's flags), no empty label, no `xn--` label, and a last label that
/// is no number (all digits, or `0x…`, which §3.5's "ends in a number
/// checker" sends to the IPv4 parser). The other bytes RFC 3986 allows in
/// a reg-name (`a-z`, digits, `-._~!$&'()*+,;=`) are no forbidden domain
/// code point (§3.1) and UTS #46 ToASCII (§3.3, *UseSTD3ASCIIRules* false)
/// maps none of them.
fn host_is_own(r: &IriRef<'_>, host: &str) -> bool {
    let h = host.as_bytes();
    match r.host_kind() {
        Some(HostKind::Ipv4) => return true,
        Some(HostKind::RegName) if !h.is_empty() => {}
        _ => return false,
    }
    if r.flags() & (HOST_UPPER | HOST_PCT | HOST_NON_ASCII) != 0 {
        return false;
    }
    // An empty label: a `.` first, last or after another.
    if h[0] == b'.'
        || h[h.len() - 1] == b'.'
        || any_mark(h, |w| {
            let dot = eq(w, b'.');
            (dot, dot, 0)
        })
    {
        return false;
    }
    if r.flags() & HOST_HYPHEN != 0 && h.split(|&c| c == b'.').any(|l| l.starts_with(b"xn--")) {
        return false;
    }
    // A number (all digits, or `0x` and hex digits; no uppercase here)
    // ends in a hex digit or `x`; most names end in another letter.
    let end = h[h.len() - 1];
    if !(end.is_ascii_hexdigit() || end == b'x') {
        return true;
    }
    let last = h
        .iter()
        .rposition(|&c| c == b'.')
        .map_or(h, |i| &h[i + 1..]);
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

/// The path is left as it is: no dot segment ([`has_dot_segment`]) and, for
/// `file`, [`file_path_is_own`]. A word at a time, each condition a byte
/// that follows a `/` (or, for `file`, any `:`); the exact checks run only
/// on a path where such a byte turns up.
fn path_is_own(path: &[u8], file: bool, flags: u32) -> bool {
    if flags & PATH_DOT_SEEN != 0 {
        return false;
    }
    let dots = flags & (PATH_DOT | PCT) != 0;
    if !dots && !file {
        return true;
    }
    let suspect = match (dots, file) {
        (true, true) => path_marks::<true, true>(path),
        (true, false) => path_marks::<true, false>(path),
        _ => path_marks::<false, true>(path),
    };
    !suspect || !((dots && has_dot_segment(path)) || (file && !file_path_is_own(path)))
}

/// A byte of `path` that may make it not its own: after a `/`, a `.` or
/// `%` (`DOTS`: a dot segment) or a `/` (`FILE`: an empty segment); a `:`
/// anywhere (`FILE`: a drive letter).
fn path_marks<const DOTS: bool, const FILE: bool>(path: &[u8]) -> bool {
    any_mark(path, |w| {
        let slash = eq(w, b'/');
        let mut after = 0;
        let mut alone = 0;
        if DOTS {
            after |= eq(w, b'.') | eq(w, b'%');
        }
        if FILE {
            after |= slash;
            alone = eq(w, b':');
        }
        (slash, after, alone)
    })
}

/// A `file` path with no empty segment but a last one (`//`) and no
/// segment starting with a Windows drive letter (§4.2: an ASCII letter
/// followed by `:` or `|`; an IRI has no raw `|`): §4.4's file and path
/// states move or drop those, and the `url` crate, which lags the Standard
/// there (`tests/wpt/expected_failures.txt`), rewrites them in its own ways.
fn file_path_is_own(path: &[u8]) -> bool {
    let mut seg = 0; // start of the current segment
    for (i, &c) in path.iter().enumerate() {
        match c {
            b'/' if i > 0 && seg == i => return false,
            b'/' => seg = i + 1,
            b':' if i == seg + 1 && path[seg].is_ascii_alphabetic() => return false,
            _ => {}
        }
    }
    true
}

/// §4.2 single-dot and double-dot URL path segments (`.`, `%2e`, `..`,
/// `.%2e`, `%2e.`, `%2e%2e`, any case) all start with `.` or `%2e`: a path
/// with no segment starting so has none.
fn has_dot_segment(path: &[u8]) -> bool {
    (0..path.len()).any(|i| {
        path[i] == b'/'
            && match path.get(i + 1) {
                Some(b'.') => true,
                Some(b'%') => matches!(path.get(i + 2..i + 4), Some(b"2e" | b"2E")),
                _ => false,
            }
    })
}

const LOW: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The bytes of `w` equal to `c`, each as its high bit (exact: the sum
/// never carries from one byte into the next).
#[inline(always)]
fn eq(w: u64, c: u8) -> u64 {
    let x = w ^ (LOW * u64::from(c));
    !(((x & !HIGH) + !HIGH) | x) & HIGH
}

/// True if `f` marks some byte of `b` alone, or as following a byte it
/// marks first. `f` maps eight bytes (little-endian) to three masks
/// `(first, second, alone)`, a byte's mark its high bit; a byte is
/// reported when its `alone` mark is set, or its `second` mark and the
/// byte before it has its `first` mark. Eight bytes at a time, the last
/// word overlapping the one before it; a `b` shorter than eight bytes is
/// padded with zero bytes, which `f` must not mark.
#[inline(always)]
fn any_mark(b: &[u8], f: impl Fn(u64) -> (u64, u64, u64)) -> bool {
    let n = b.len();
    let hit = |w: u64, before: u64| {
        let (first, second, alone) = f(w);
        (
            ((((first << 8) | before) & second) | alone) != 0,
            first >> 56,
        )
    };
    if n < 8 {
        let w = b.iter().rev().fold(0, |w, &c| (w << 8) | u64::from(c));
        return hit(w, 0).0;
    }
    let mut at = 0;
    // The `first` mark of the byte before the word, as byte 0's high bit.
    let mut before = 0;
    loop {
        let start = at.min(n - 8);
        if start < at {
            // The last word overlaps the one before it.
            before = f(u64::from(b[start - 1])).0;
        }
        let (found, last) = hit(
            u64::from_le_bytes(b[start..start + 8].try_into().unwrap()),
            before,
        );
        if found {
            return true;
        }
        if start + 8 == n {
            return false;
        }
        before = last;
        at = start + 8;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(5_000))]
        /// The word-at-a-time checks are their byte loops, at every length
        /// (the short word, whole words, the overlapping last one).
        #[test]
        fn word_checks_are_their_byte_loops(
            b in proptest::collection::vec(
                prop_oneof![any::<u8>(), prop::sample::select(b"/.%:a0\0\x80".to_vec())],
                0..40,
            ),
        ) {
            let pairs = |x: u8, y: u8| b.windows(2).any(|p| p[0] == x && p[1] == y);
            let dot_start = pairs(b'/', b'.') || pairs(b'/', b'%');
            let file = pairs(b'/', b'/') || b.contains(&b':');
            prop_assert_eq!(path_marks::<true, false>(&b), dot_start);
            prop_assert_eq!(path_marks::<false, true>(&b), file);
            prop_assert_eq!(path_marks::<true, true>(&b), dot_start || file);
            prop_assert_eq!(any_mark(&b, |w| (eq(w, b'.'), eq(w, b'.'), 0)), pairs(b'.', b'.'));
            for c in 0..=255u8 {
                let w = u64::from_le_bytes([c, b'/', 0, 0x80, c ^ 1, 0x7f, 0xff, c]);
                let want = (0..8).fold(0, |m, i| m | u64::from(w.to_le_bytes()[i] == c) << (8 * i + 7));
                prop_assert_eq!(eq(w, c), want);
            }
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
