//! Which short crawl lines the rewrite takes as one compaction, and its
//! plan for them: the syntax and scheme rungs (draft-ietf-iri-3987bis
//! §5.3.2–§5.3.3, RFC 3986 §6.2.2–§6.2.3) written as bit masks over the
//! line's bytes, then the bytes kept copied out in one instruction per 64
//! (AVX-512 VBMI2 `vpcompressb`, the kernel in `crate::simd::compact`).
//!
//! For a line of at most 256 bytes with an `http`, `https` or `file`
//! scheme and an ASCII reg-name host without `%`, every change the two
//! rungs make is either a byte replaced in place or a byte dropped, but
//! for the encoding of non-ASCII characters:
//!
//! | rung | change | here |
//! |---|---|---|
//! | §5.3.2.1 case | scheme and host lowercased | `+ 0x20` where a mask of uppercase letters before the host's end says |
//! | §5.3.2.1 hex case | `%3a` → `%3A` | `- 0x20` on the lowercase hex digits of the triplets |
//! | §5.3.2.3 unreserved | `%7E` → `~` | the decoded byte written over the `%`, its two hex digits dropped |
//! | §5.3.2.4 dot segments | `/a/./b/../c` → `/a/c` | the segments dropped, found in the masks of `/` and `.` |
//! | §5.3.3 ports | `:80`, `:`, `:0080` | the port, its `:` or its leading zeros dropped |
//!
//! The hex values of every byte are computed at once and moved under their
//! `%` with a byte permutation (`vpermb`), so a triplet costs no branch. A
//! dot segment is found by mask arithmetic in the line as written: decoding
//! turns three bytes into one and never into none, so it brings no `/` or
//! `.` next to another — except a decoded `%2E` itself, which is left to
//! the scalar rewrite of [`super::http`], as is every other shape (a
//! non-ASCII host, an IDN; a `%` in the host; a `#` in the fragment; an
//! empty path of `http(s)`, which becomes `/`). Non-ASCII characters after
//! the host grow the line (§3.3: each byte becomes a triplet): the
//! compacted bytes are then copied out once more, each such byte as its
//! triplet. The host is where it was in the line (nothing before its end is
//! dropped), so the DNS checks of the scheme rung run on the output.

use crate::iri::{flags, IriRef};
use crate::simd::compact::{Plan, MAX_LEN};
use crate::simd::detect::Compact;

/// The room the compaction needs for its output: the line, and when it is
/// not all ASCII, a triplet for each byte and 16 bytes to copy over.
#[inline]
pub(super) fn room(r: &IriRef<'_>) -> usize {
    let len = r.as_str().len();
    if r.flags() & flags::NON_ASCII != 0 {
        3 * len + 16
    } else {
        len
    }
}

/// The CPU has what the compaction needs: AVX-512 BW, VBMI (`vpermb`),
/// VBMI2 (`vpcompressb`), and the bit instructions (BMI1/2, LZCNT,
/// POPCNT). Detected once; then one load.
#[inline]
pub(super) fn available() -> Option<Compact> {
    crate::simd::features().compact()
}

/// The plan for `r`, when the line is one this module takes: at most
/// [`MAX_LEN`] bytes, its host ASCII and without `%`, no userinfo (the
/// caller has checked the scheme and the host kind). `port`: the port
/// as written, and as the rung writes it (a suffix of it, or `None` to
/// drop it with its `:`).
#[inline]
pub(super) fn plan(
    r: &IriRef<'_>,
    host_end: usize,
    port: Option<(&str, Option<&str>)>,
) -> Option<Plan> {
    let s = r.as_str();
    if s.len() > MAX_LEN || r.flags() & (flags::HOST_NON_ASCII | flags::HOST_PCT) != 0 {
        return None;
    }
    let port_drop = match port {
        Some((written, Some(kept))) => {
            let digits = host_end + 1;
            (digits, digits + written.len() - kept.len())
        }
        Some((written, None)) => (host_end, host_end + 1 + written.len()),
        None => (0, 0),
    };
    let fragment = r.fragment().map(|f| s.len() - f.len() - 1);
    Some(Plan {
        host_end,
        port_drop,
        path: r.path_range(),
        fragment,
        dots: r.flags() & flags::PATH_DOT != 0,
    })
}

#[cfg(test)]
mod tests {
    use super::super::http::both_ways;
    use super::available;
    use crate::iri::parse;

    /// The key of `s` written by the compaction and by the scalar rewrite
    /// at both rungs: the same, or the same error. Whether the compaction
    /// took the line.
    fn same_both_ways(s: &str) -> bool {
        let Ok(r) = parse(s) else { return false };
        let mut taken = false;
        for at_scheme in [false, true] {
            if let Some((Some(fast), slow)) = both_ways(&r, at_scheme) {
                assert_eq!(fast, slow, "{s:?} at_scheme {at_scheme}");
                taken = true;
            }
        }
        taken
    }

    /// The examples of RFC 3986 §6.2.2 (3987bis §5.3.2) and §6.2.3
    /// (§5.3.3), and of §5.2.4 under a host: each taken by the compaction,
    /// with the key the RFC gives.
    #[test]
    fn spec_examples() {
        if available().is_none() {
            eprintln!("no AVX-512 VBMI2 here: the compaction is not run");
            return;
        }
        for (input, want) in [
            ("HTTP://www.EXAMPLE.com/", "http://www.example.com/"),
            ("http://example.com/%7Esmith/", "http://example.com/~smith/"),
            ("http://example.com/%7esmith/", "http://example.com/~smith/"),
            (
                "http://example.com/a%2fb%3a?%3d%41#%7e",
                "http://example.com/a%2Fb%3A?%3DA#~",
            ),
            ("http://example.com:80/", "http://example.com/"),
            ("http://example.com:/", "http://example.com/"),
            ("https://example.com:0443/x", "https://example.com/x"),
            ("http://example.com:08080/x", "http://example.com:8080/x"),
            ("http://a/a/b/c/./../../g", "http://a/a/g"),
            ("http://a/b/c/.", "http://a/b/c/"),
            ("http://a/b/c/..", "http://a/b/"),
            ("http://a/..", "http://a/"),
            ("http://a/../../g", "http://a/g"),
            ("http://a/b//../c", "http://a/b/c"),
            (
                "http://a/b/.x/..y/.../c?./..#/..",
                "http://a/b/.x/..y/.../c?./..#/..",
            ),
            ("FILE://Host/A/./B", "file://host/A/B"),
            // §3.3: the URI form of the IRI (3987bis §3.1 example).
            (
                "http://example.org/r\u{E9}sum\u{E9}/./x?\u{5317}#%7e",
                "http://example.org/r%C3%A9sum%C3%A9/x?%E5%8C%97#~",
            ),
        ] {
            let r = parse(input).unwrap();
            let (fast, _) = both_ways(&r, true).unwrap();
            assert_eq!(fast.expect(input).unwrap(), want, "{input}");
            assert!(same_both_ways(input), "{input}");
        }
    }

    /// What the compaction leaves to the scalar rewrite: a decoded `%2E`
    /// in the path, a `#` in the fragment, an empty http(s) path, a
    /// non-ASCII host (an IDN), a `%` in the host, a line over 256 bytes.
    #[test]
    fn what_it_leaves_alone() {
        let long = format!("http://a/{}", "b".repeat(248));
        for input in [
            "http://a/b/%2E%2E/c",
            "http://a/b#c#d",
            "http://a?q",
            "http://é/a",
            "http://%41/b",
            long.as_str(),
        ] {
            let r = parse(input).unwrap();
            let (fast, _) = both_ways(&r, true).unwrap();
            assert!(fast.is_none(), "{input}");
        }
        // `%2E` outside the path is decoded here.
        assert!(available().is_none() || same_both_ways("http://a/b?%2E%2e#%2E"));
    }

    /// Every change of the rungs at every offset of a line up to 256
    /// bytes, so that each falls across every registers' boundary: taken,
    /// and keyed as the scalar rewrite keys it.
    #[test]
    fn every_change_across_every_boundary() {
        if available().is_none() {
            return;
        }
        let tail = "/%7e/./x/../%2f%c3y\u{E9}/..?q=%41\u{FC}#%7E";
        for pad in 0..240 {
            let input = format!("HTTP://Example.COM:0080/{}{tail}", "a".repeat(pad));
            if input.len() > super::MAX_LEN {
                break;
            }
            assert!(same_both_ways(&input), "{pad}: {input}");
        }
    }

    /// Every line of the bundled data the compaction takes is keyed as the
    /// scalar rewrite keys it.
    #[test]
    fn same_keys_on_the_bundled_data() {
        let data = concat!(env!("CARGO_MANIFEST_DIR"), "/data/");
        let mut taken = 0;
        for f in ["kasztp.txt", "node_files.txt", "isaacs_files.txt"] {
            let text = std::fs::read_to_string(format!("{data}{f}")).unwrap();
            taken += text.lines().filter(|l| same_both_ways(l)).count();
        }
        assert!(available().is_none() || taken > 1_000, "{taken}");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(20_000))]
        /// Lines of 40 to 300 bytes, so that triplets, dot segments,
        /// ports and non-ASCII characters fall on both sides of the
        /// registers' boundaries, and past the longest line taken.
        #[test]
        fn same_keys_as_the_scalar_rewrite(
            s in "(http|HTTP|https|HtTpS|file|FILE)://[a-zA-Z0-9.-]{0,24}(|:|:80|:0080|:443|:8080|:00|:0)(/(|\\.|\\.\\.|%2[eE]|%7[eE]|%41|%2[fF]|%3a|%[0-9a-fA-F]{2}|[a-zA-Z0-9._~-]{1,7}|é|北京|\\.é)){0,40}(\\?([a-zA-Z0-9/.=&]|%[0-9a-fA-F]{2}|ü|\u{E000}){0,16})?(#([a-zA-Z0-9/.?]|%[0-9a-fA-F]{2}|ß){0,8})?",
        ) {
            same_both_ways(&s);
        }
    }
}
