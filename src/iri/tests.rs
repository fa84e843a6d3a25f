//! Tests of the parser: the spec's examples, its errors, and the component
//! scan, the whole-line split and every vector path held to the old parser
//! (`oracle`, 3987bis §2.2) on the bundled data and on generated lines.

mod oracle;

use super::flags::*;
use super::path::has_dot_segments;
use super::scan::parse_with;
use super::{line, parse, HostKind, IriRef};
use crate::chars;
use crate::error::{ErrorKind, Result};
use crate::simd::bits::{Shifts, U256};
use crate::simd::masks::{masks_scalar, MAX_LEN, MAX_LEN_256, MAX_LEN_WIDE};
use crate::simd::runs;

fn parts(s: &str) -> [Option<&str>; 7] {
    parse(s).unwrap().components()
}

#[test]
fn rfc3986_examples_split() {
    // RFC 3986 §1.1.2
    assert_eq!(
        parts("ldap://[2001:db8::7]/c=GB?objectClass?one"),
        [
            Some("ldap"),
            None,
            Some("[2001:db8::7]"),
            None,
            Some("/c=GB"),
            Some("objectClass?one"),
            None
        ]
    );
    assert_eq!(
        parts("mailto:John.Doe@example.com"),
        [
            Some("mailto"),
            None,
            None,
            None,
            Some("John.Doe@example.com"),
            None,
            None
        ]
    );
    assert_eq!(
        parts("telnet://192.0.2.16:80/"),
        [
            Some("telnet"),
            None,
            Some("192.0.2.16"),
            Some("80"),
            Some("/"),
            None,
            None
        ]
    );
    assert_eq!(
        parse("telnet://192.0.2.16:80/").unwrap().host_kind(),
        Some(HostKind::Ipv4)
    );
    assert_eq!(
        parts("urn:oasis:names:specification:docbook:dtd:xml:4.1.2")[4],
        Some("oasis:names:specification:docbook:dtd:xml:4.1.2")
    );
    assert_eq!(parts("//h:")[3], Some(""));
    assert_eq!(
        parts("?q#f#g"),
        [None, None, None, None, Some(""), Some("q"), Some("f#g")]
    );
    assert_eq!(parts("")[4], Some(""));
}

#[test]
fn iri_characters_where_the_abnf_allows_them() {
    // 3987bis §2.2: ucschar everywhere, iprivate only in the query.
    assert!(parse("http://résumé.example.org/Dürst?q=ü#ü").is_ok());
    assert!(parse("http://example.com/?\u{E000}").is_ok());
    let e = parse("http://example.com/\u{E000}").unwrap_err();
    assert!(
        matches!(e.kind, ErrorKind::PrivateUseOutsideQuery { .. }),
        "{e}"
    );
    assert!(parse("http://example.com/#\u{E000}").is_err());
    assert!(parse("http://example.com/\u{FDD0}").is_err());
    // §4.1
    let e = parse("http://example.com/\u{202E}").unwrap_err();
    assert_eq!(
        e.to_string(),
        "bidi formatting character U+202E not allowed at byte 19"
    );
    // No zone identifiers.
    assert!(parse("http://[::1%25eth0]/").is_err());
}

#[test]
fn errors_name_the_place() {
    assert_eq!(
        parse("http://a/b c").unwrap_err().to_string(),
        "space not allowed in path at byte 10"
    );
    assert_eq!(
        parse("http://a/%zz").unwrap_err().to_string(),
        "invalid percent-encoding at byte 9"
    );
    assert_eq!(
        parse("http://a/%4").unwrap_err().kind,
        ErrorKind::InvalidPercentEncoding
    );
    assert_eq!(
        parse("http://a?%4#").unwrap_err().kind,
        ErrorKind::InvalidPercentEncoding
    );
    assert_eq!(
        parse("http://[1::2::3]/").unwrap_err().to_string(),
        "invalid IPv6 literal at byte 7"
    );
    assert_eq!(
        parse("http://h:8x/").unwrap_err().kind,
        ErrorKind::InvalidPort
    );
    assert_eq!(parse("a:b/c:d").unwrap().scheme(), Some("a"));
    assert_eq!(
        parse("1a:b").unwrap_err().kind,
        ErrorKind::ColonInFirstSegment
    );
    assert!(parse("http://a@b@c/").is_err());
    assert!(parse("http://[::1]x/").is_err());
    assert!(parse("http://a/<").is_err());
    assert!(parse("http://a/\\").is_err());
    assert!(parse("http://a/\u{85}").is_err());
}

#[test]
fn never_panics_on_odd_input() {
    for s in [
        "%", "%%", "a:%", "//[", "//[]", "//@", "//:", "#%", "?%", "//[v]", "//[v1.]", "\u{e9}:",
    ] {
        let _ = parse(s);
    }
}

/// Everything a caller can see of a parse: the split, the host kind, the
/// flags the old parser also had, or the error message.
fn observe(r: Result<IriRef<'_>>) -> String {
    match r {
        Ok(r) => format!(
            "{:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {} {}",
            r.scheme(),
            r.authority(),
            r.userinfo(),
            r.host(),
            r.port(),
            r.path(),
            r.query(),
            r.fragment(),
            r.host_kind(),
            r.is_ascii(),
            r.has_pct()
        ),
        Err(e) => format!("error {e} {:?}", e.kind),
    }
}

/// [`observe`] of [`parse`], whose result (offsets, flags, error) must
/// be the same with the scalar runs as with the vector ones this CPU
/// uses.
fn parsed(s: &str) -> String {
    let best = parse(s);
    #[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
    {
        let f = crate::simd::features();
        if let (Some(avx2), Some(t), Some(bmi2)) = (f.avx2(), f.ssse3(), f.bmi2()) {
            // The AVX2 masks, also on a CPU whose `parse` takes AVX-512's
            // (which take longer lines, so may know of no dot segment).
            // SAFETY: the tokens say the CPU has AVX2, SSSE3 and BMI2.
            let avx2 = unsafe { super::scan::parse_avx2(s, t, bmi2, avx2) };
            assert_eq!(dotless(&avx2), dotless(&best), "{s:?}");
        }
    }
    let scalar = parse_with(s, runs::Scalar);
    assert_eq!(dotless(&best), dotless(&scalar), "{s:?}");
    if let (Ok(r), Ok(slow)) = (&best, &scalar) {
        // The whole-line parser may know there is no dot segment; the
        // component scan never claims to.
        assert!(slow.flags() & PATH_DOT != 0, "{s:?}");
        if r.flags() & PATH_DOT == 0 {
            assert!(!has_dot_segments(r.path()), "{s:?}");
        }
    }
    observe(best)
}

/// `r` without [`PATH_DOT`] and [`PATH_DOT_SEEN`], the flags the two
/// parsers may differ in.
fn without_dot(mut r: IriRef<'_>) -> IriRef<'_> {
    r.flags &= !(PATH_DOT | PATH_DOT_SEEN);
    r
}

/// A parse result without [`PATH_DOT`], as text to compare.
fn dotless(r: &Result<IriRef<'_>>) -> String {
    format!("{:?}", r.as_ref().map(|&r| without_dot(r)))
}

#[test]
fn same_as_the_old_parser_on_the_bundled_data() {
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/data/");
    let mut n = 0;
    for f in [
        "kasztp.txt",
        "node_files.txt",
        "isaacs_files.txt",
        "relative_urls_cc_10k.csv",
    ] {
        let text =
            String::from_utf8_lossy(&std::fs::read(format!("{data}{f}")).unwrap()).into_owned();
        for line in text.lines() {
            for s in std::iter::once(line).chain(line.split(',')) {
                assert_eq!(parsed(s), observe(oracle::parse(s)), "{s}");
                n += 1;
            }
        }
    }
    assert!(n > 100_000);
}

/// The whole-line split of `s` with scalar-built masks of the AVX-512
/// width that holds it (`u128`, or [`U256`] past 128 bytes);
/// `None` for a line longer than any.
fn split_wide(s: &str) -> Option<Option<IriRef<'_>>> {
    let b = s.as_bytes();
    if b.len() <= MAX_LEN_WIDE {
        Some(line::split(s, &masks_scalar::<u128>(b), Shifts))
    } else if b.len() <= MAX_LEN_256 {
        Some(line::split(s, &masks_scalar::<U256>(b), Shifts))
    } else {
        None
    }
}

/// A line of the shape the whole-line parser takes: its split (with
/// the masks built a byte at a time, so on any CPU, in every width
/// that holds the line) is the component scan's, it does not give up
/// on a line of up to 256 bytes, it marks every path with a dot
/// segment, and [`parse`] agrees with the old parser.
fn whole_line_split(s: &str) -> std::result::Result<(), proptest::test_runner::TestCaseError> {
    proptest::prop_assert_eq!(parsed(s), observe(oracle::parse(s)), "{}", s);
    let scan = parse_with(s, runs::Scalar).map(without_dot).ok();
    if s.len() <= MAX_LEN {
        let r = line::split(s, &masks_scalar::<u64>(s.as_bytes()), Shifts);
        proptest::prop_assert_eq!(r.map(without_dot), scan, "{}", s);
    }
    let Some(r) = split_wide(s) else {
        return Ok(());
    };
    proptest::prop_assert!(r.is_some(), "{}", s);
    proptest::prop_assert_eq!(r.map(without_dot), scan, "{}", s);
    let dots = has_dot_segments(r.unwrap().path());
    proptest::prop_assert!(r.unwrap().flags() & PATH_DOT != 0 || !dots, "{}", s);
    Ok(())
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(20_000))]
    #[test]
    fn same_as_the_old_parser(
        s in "([a-zA-Z][a-zA-Z0-9+.-]{0,3}:)?(//([a-zA-Z0-9:%@.\\[\\]v_~!-]|é|\u{E000}){0,12})?([a-zA-Z0-9/?#:%.@ \\[\\]<é\u{E000}\u{202E}\u{FDD0}-]|%[0-9a-fA-F]{2}|%[0-9a-zA-Z]?){0,16}"
    ) {
        proptest::prop_assert_eq!(parsed(&s), observe(oracle::parse(&s)), "{}", s);
    }

    /// The 8-byte `http://` / `https://` test, at and around its edges
    /// (7 and 8 bytes, `http:/`, uppercase, a longer scheme).
    #[test]
    fn same_as_the_old_parser_after_http(
        s in "(https?|HTTPS?|hTtp|httpx|http:/)(:|://|:/)[a-z/.:@?#%]{0,12}"
    ) {
        proptest::prop_assert_eq!(parsed(&s), observe(oracle::parse(&s)), "{}", s);
        if let (Ok(r), Some(c)) = (parse(&s), s.find(':')) {
            let upper = s[..c].bytes().any(|b| b.is_ascii_uppercase());
            proptest::prop_assert_eq!(r.flags() & SCHEME_UPPER != 0, upper, "{}", s);
        }
    }

    /// Lines of the shape the whole-line parser takes, up to and past
    /// its 64- and 128-byte limits ([`whole_line_split`]).
    #[test]
    fn whole_line_split_is_the_component_scan(
        s in "(https?|file|HTTP|sVn\\+ssh)://([a-zA-Z0-9.-]|%[0-9a-fA-F]{2}){0,12}(:[0-9]{0,5})?(/([a-zA-Z0-9._~!$&'()*+,;=:@-]|%[0-9a-fA-F]{2}){0,6}){0,8}(\\?([a-z0-9=&/?:@.]|%[0-9a-fA-F]{2}){0,20})?(#([a-z0-9#/?.]|%[0-9a-fA-F]{2}){0,6})?"
    ) {
        whole_line_split(&s)?;
    }

    /// The same around 256 bytes, the limit of four registers.
    #[test]
    fn whole_line_split_of_long_lines_is_the_component_scan(
        s in "(https?|HTTP)://([a-zA-Z0-9.-]|%[0-9a-fA-F]{2}){1,12}(:[0-9]{0,5})?(/([a-zA-Z0-9._~!$&'()*+,;=:@-]|%[0-9a-fA-F]{2}){0,10}){6,16}(\\?([a-z0-9=&/?:@.]|%[0-9a-fA-F]{2}){0,60})?(#([a-z0-9#/?.]|%[0-9a-fA-F]{2}){0,10})?"
    ) {
        whole_line_split(&s)?;
    }

    /// Non-ASCII characters in every component, `ucschar` or not
    /// (C1 control, bidi formatting, private use, non-characters, the
    /// bounds of the `ucschar` ranges, 2-, 3- and 4-byte UTF-8): where
    /// the whole-line split takes a line it splits it as the component
    /// scan does, and it takes every line whose only non-ASCII
    /// characters are `ucschar`s (an IDN host's too).
    #[test]
    fn whole_line_split_of_non_ascii_is_the_component_scan(
        s in "(https?|HTTP)://([a-zA-Z0-9.-]|é|Ü|ß|迪|😀|\u{0085}|\u{202E}){0,8}(:[0-9]{0,3})?(/([a-zA-Z0-9._~-]|%[0-9a-fA-F]{2}|é|ß|迪|М|😀|\u{00A0}|\u{0085}|\u{200E}|\u{202E}|\u{D7FF}|\u{E000}|\u{F900}|\u{FDD0}|\u{FFEF}|\u{FFFE}|\u{1FFFD}|\u{1FFFE}|\u{E0001}|\u{E1000}|\u{10FFFD}){0,6}){0,5}(\\?([a-z0-9=&]|é|迪|\u{E000}|\u{202A}){0,10})?(#([a-z0-9/]|ü|😀|\u{FDEF}){0,6})?"
    ) {
        proptest::prop_assert_eq!(parsed(&s), observe(oracle::parse(&s)), "{}", s);
        let scan = parse_with(&s, runs::Scalar).map(without_dot).ok();
        let takes = s.chars().all(|c| {
            c.is_ascii() || (chars::is_ucschar(c) && !chars::is_bidi_format(c))
        }) && scan.is_some();
        if s.len() <= MAX_LEN {
            let r = line::split(&s, &masks_scalar::<u64>(s.as_bytes()), Shifts);
            if r.is_some() || takes {
                proptest::prop_assert_eq!(r.map(without_dot), scan, "{}", s);
            }
        }
        let Some(r) = split_wide(&s) else {
            return Ok(());
        };
        if r.is_some() || takes {
            proptest::prop_assert_eq!(r.map(without_dot), scan, "{}", s);
        }
        if let Some(r) = r {
            proptest::prop_assert_eq!(r.flags() & NON_ASCII != 0, !s.is_ascii(), "{}", s);
        }
    }

    #[test]
    fn same_as_the_old_parser_any_string(s in "\\PC{0,24}") {
        proptest::prop_assert_eq!(parsed(&s), observe(oracle::parse(&s)), "{}", s);
    }
}
