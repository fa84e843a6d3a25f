//! The URL Standard's `href` of an absolute reference to a special,
//! non-`file` URL (§4.1) that differs from its serialization only in the
//! scheme's case, the host, the port and dot segments, written here
//! without the `url` crate's parser: §4.4 scheme state (lowercase), host
//! state (the host parser §3.5, through [`HostCache`]), port state (the
//! default port dropped, leading zeros gone) and path state (§4.2 single-
//! and double-dot segments removed), §4.5 serializing.
//!
//! Every other part must be what [`super::fast`] asks of an own `href`
//! (ASCII outside the host, no userinfo, no `'` in the query, no `#` in
//! the fragment); a reference that is not such a URL gives `None` and
//! goes to the parser. The host parser itself is the `url` crate's
//! ([`url::Host::parse`], UTS #46 ToASCII and the IPv4 parser), run once
//! per distinct host of a thread and remembered ([`super::hosts`]): the
//! links of a page name a few hosts many times.

use super::fast::{host_is_own, path_is_own, tail_is_own};
use super::hosts::HostCache;
use crate::iri::flags::NON_ASCII;
use crate::{HostKind, IriRef};

/// Special schemes other than `file` (§4.1) and their default ports.
const SPECIAL: [(&str, u16); 5] = [
    ("http", 80),
    ("https", 443),
    ("ws", 80),
    ("wss", 443),
    ("ftp", 21),
];

/// The `href` of `r` (an IRI parse of an absolute reference) when it is
/// not its own but only its scheme case, host, port or dot segments
/// change, as the module doc says; `None` when the parser must decide
/// (or rejects it).
pub fn rewritten_href(r: &IriRef<'_>) -> Option<String> {
    let b = r.as_str().as_bytes();
    let scheme = r.scheme()?;
    let &(name, default) = SPECIAL
        .iter()
        .find(|(s, _)| s.eq_ignore_ascii_case(scheme))?;
    let auth = scheme.len() + 3;
    if !b[scheme.len()..].starts_with(b"://") {
        return None;
    }
    let (host_start, host_end) = r.host_range()?;
    if host_start != auth || !matches!(r.host_kind(), Some(HostKind::RegName | HostKind::Ipv4)) {
        return None;
    }
    let (path_start, path_end) = r.path_range();
    if r.flags() & NON_ASCII != 0 && !(b[..host_start].is_ascii() && b[host_end..].is_ascii()) {
        return None;
    }
    if !tail_is_own(b, path_end) {
        return None;
    }
    let port = match (host_end < path_start).then(|| &b[host_end + 1..path_start]) {
        None => None,
        Some(p) => port_of(p)?.filter(|&n| n != default),
    };
    let mut out = String::with_capacity(b.len() + 8);
    out.push_str(name);
    out.push_str("://");
    if host_is_own(r, b, host_start, host_end) {
        out.push_str(&r.as_str()[host_start..host_end]);
    } else if !HostCache::with(&r.as_str()[host_start..host_end], |h| {
        h.map(|h| out.push_str(h)).is_some()
    }) {
        return None;
    }
    if let Some(n) = port {
        out.push(':');
        out.push_str(&n.to_string());
    }
    let path = &r.as_str()[path_start..path_end];
    if !path.is_empty() && path_is_own(b, path_start, path_end, false, r.flags()) {
        out.push_str(path);
    } else if has_drive_letter_segment(path) {
        return None;
    } else {
        push_path(&mut out, path);
    }
    out.push_str(&r.as_str()[path_end..]);
    Some(out)
}

/// §4.4 port state: the port of the digits `p` (`Some(None)` when there
/// are none), `None` when it is out of range (the parser's failure).
fn port_of(p: &[u8]) -> Option<Option<u16>> {
    let digits = &p[p.iter().position(|&c| c != b'0').unwrap_or(p.len())..];
    if p.is_empty() {
        return Some(None);
    }
    if digits.len() > 5 || !p.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let n = digits
        .iter()
        .fold(0u32, |n, &c| n * 10 + u32::from(c - b'0'));
    u16::try_from(n).ok().map(Some)
}

/// A segment of `path` starts like a Windows drive letter (§4.2: an ASCII
/// letter, then `:`). The `url` crate keeps such a segment (and the `/`
/// before it) when a `..` follows, in every scheme, where the Standard
/// removes it for all but `file`; web mode's keys are the crate's, so the
/// crate decides.
fn has_drive_letter_segment(path: &str) -> bool {
    memchr::memchr(b':', path.as_bytes()).is_some()
        && path.split('/').any(|s| {
            s.len() >= 2 && s.as_bytes()[0].is_ascii_alphabetic() && s.as_bytes()[1] == b':'
        })
}

/// §4.2 single-dot URL path segment: `.` or `%2e` (any case).
fn single_dot(s: &str) -> bool {
    single_dot_bytes(s.as_bytes())
}

fn single_dot_bytes(b: &[u8]) -> bool {
    match b {
        [b'.'] => true,
        [b'%', b'2', e] => e | 0x20 == b'e',
        _ => false,
    }
}

/// §4.2 double-dot URL path segment: two single dots (`..`, `.%2e`,
/// `%2e.`, `%2e%2e`, any case).
fn double_dot(s: &str) -> bool {
    let b = s.as_bytes();
    match b.len() {
        2 => b == b"..",
        4 => {
            (b[0] == b'.' && single_dot_bytes(&b[1..]))
                || (single_dot_bytes(&b[..3]) && b[3] == b'.')
        }
        6 => single_dot_bytes(&b[..3]) && single_dot_bytes(&b[3..]),
        _ => false,
    }
}

/// §4.4 path start and path states of a special URL for `path` (empty or
/// starting with `/`; ASCII, no `\`: every byte stays as written), the
/// result serialized (§4.5: `/` before each segment) onto `out`.
fn push_path(out: &mut String, path: &str) {
    let start = out.len();
    let b = path.as_bytes();
    let mut from = usize::from(b.first() == Some(&b'/'));
    loop {
        let end = b[from..]
            .iter()
            .position(|&c| c == b'/')
            .map_or(b.len(), |k| from + k);
        let seg = &path[from..end];
        let last = end == b.len();
        if double_dot(seg) {
            // Shorten the path: drop its last segment.
            if out.len() > start {
                let cut = start + out[start..].rfind('/').unwrap_or(0);
                out.truncate(cut);
            }
            if last {
                out.push('/');
            }
        } else if single_dot(seg) {
            if last {
                out.push('/');
            }
        } else {
            out.push('/');
            out.push_str(seg);
        }
        if last {
            return;
        }
        from = end + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn via_url(s: &str) -> Option<String> {
        url::Url::parse(s).ok().map(String::from)
    }

    #[test]
    fn rewrites_are_what_the_parser_serializes() {
        for s in [
            "HTTP://WWW.EXAMPLE.ORG:80/a/./b/1",
            "http://münchen.example/p/1",
            "https://MÜNCHEN.example:443/../x/%2E%2e/y/.",
            "http://Ex%41mple.com/a/b/..",
            "http://0x7f.1:0080/",
            "http://h:/a/%2e",
            "https://h:00443/",
            "https://h:8443/a/..",
            "http://xn--mnchen-3ya.example/",
            "http://faß.de/a?b#c",
            "http://h.example/a/b/../../../c",
            "http://h.example",
            "Ftp://h.example:21/x/./",
            "wss://ＡＢＣ.com/",
            "HTTP://H/a/./b/1",
            "http://H/a/b/../c/./d/..",
            "http://H/..",
            "http://H/../a",
            "http://H/a//../b",
            "http://H/./",
            "http://H/.",
            "http://H/a/%2E%2e/b/%2e",
            "http://H/a/.%2E/b/..%2f/c",
            "http://H/a/b/c/../../../../d/./",
            "http://H:80//./..//x",
        ] {
            let r = crate::parse(s).unwrap();
            assert_eq!(rewritten_href(&r), via_url(s), "{s}");
        }
    }

    /// The §4.2 definitions as written: a single dot is `.` or `%2e`, a
    /// double dot two of them.
    #[test]
    fn dot_segments_are_the_standards() {
        fn single(s: &str) -> bool {
            s == "." || s.eq_ignore_ascii_case("%2e")
        }
        fn double(s: &str) -> bool {
            (1..s.len()).any(|k| s.is_char_boundary(k) && single(&s[..k]) && single(&s[k..]))
        }
        let alphabet = [".", "%", "2", "e", "E", "f", "é", "3"];
        let mut all = vec![String::new()];
        for _ in 0..6 {
            let longer: Vec<String> = all
                .iter()
                .filter(|s| s.chars().count() == all.last().unwrap().chars().count())
                .flat_map(|s| alphabet.iter().map(move |c| format!("{s}{c}")))
                .collect();
            all.extend(longer);
        }
        assert_eq!(all.len(), (0..=6).map(|k| 8usize.pow(k)).sum::<usize>());
        for s in &all {
            assert_eq!(single_dot(s), single(s), "{s:?}");
            assert_eq!(double_dot(s), double(s), "{s:?}");
        }
    }

    #[test]
    fn what_the_parser_must_decide_is_left_to_it() {
        for s in [
            "http://h:65536/",
            "http://u@h/",
            "file:///a/../b",
            "http://h/ä",
            "http://h/a?it's",
            "http://h/a#b#c",
            "http:h/a",
            "http://[::1]/",
            "http://a%zz/",
            "https://h/p/t:/../x",
            "sc://h/",
        ] {
            let r = crate::parse(s);
            assert!(r.is_err() || rewritten_href(&r.unwrap()).is_none(), "{s}");
        }
        // The parser rejects the host: no rewrite.
        let r = crate::parse("http://a.1/").unwrap();
        assert_eq!(rewritten_href(&r), None);
    }
}
