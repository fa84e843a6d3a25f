//! Web mode's fast path against its full path ([`irinorm::web::is_own_href`]
//! against the `url` crate, the WHATWG URL Standard's parser web mode runs).
//!
//! The fast path keys a reference as written when `is_own_href` says the
//! Standard serializes it to itself. For every input here: if it says so,
//! the `url` crate's `href` is the input, the `href` is a URI as it stands,
//! and web mode's key equals the ladder's key of the input at every rung.
//! Inputs: generated references built from the pieces the conditions are
//! about, the WPT `urltestdata.json` inputs, the bundled lists `data/`, and
//! every line of the fuzz corpus `fuzz/corpus.tar.gz`.

use std::borrow::Cow;
use std::io::Read;
use std::path::Path;

use irinorm::web::{is_own_href, rewritten_href, Href, WebParser};
use irinorm::{Level, Normalizer, Options, Repairs};
use proptest::prelude::*;
use proptest::strategy::ValueTree;

/// Checks the fast path's promise on `s`; returns whether `s` took it.
/// Also [`rewritten_href`]'s: when it gives an `href`, it is the `url`
/// crate's.
fn check(s: &str, ladders: &[(Level, Normalizer)]) -> bool {
    check_rewrite(s);
    if !is_own_href(s) {
        return false;
    }
    let href = match url::Url::parse(s) {
        Ok(u) => String::from(u),
        Err(e) => panic!("{s:?}: fast path, but the URL Standard rejects it: {e}"),
    };
    assert_eq!(href, s, "fast path, but the href differs");
    let h = Href::from_href(href);
    assert!(
        matches!(h.to_uri_ref(), Cow::Borrowed(_)),
        "{s:?}: not a URI"
    );
    let web = WebParser::new();
    for (level, n) in ladders {
        let string = *level == Level::String;
        let fast = web.key(s, string, &mut Repairs::default(), |t| n.key(t));
        let full = if string {
            Ok(s.to_owned())
        } else {
            n.key(&h.to_uri_ref()).map(Cow::into_owned)
        };
        match (fast, full) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{s:?} at {level:?}"),
            // A key error is left to the full path, which locates it.
            (Err(_), Err(_)) => {}
            (a, b) => panic!("{s:?} at {level:?}: fast {a:?}, full {b:?}"),
        }
    }
    true
}

/// [`rewritten_href`] of `s` is the `url` crate's `href`; returns whether
/// it gave one.
fn check_rewrite(s: &str) -> bool {
    let Ok(r) = irinorm::parse(s) else {
        return false;
    };
    let Some(h) = rewritten_href(&r) else {
        return false;
    };
    match url::Url::parse(s) {
        Ok(u) => assert_eq!(u.as_str(), h, "{s:?}: rewritten, but the href differs"),
        Err(e) => panic!("{s:?}: rewritten to {h:?}, but the URL Standard rejects it: {e}"),
    }
    true
}

fn ladders() -> Vec<(Level, Normalizer)> {
    Level::ALL
        .into_iter()
        .map(|level| {
            (
                level,
                Normalizer::new(Options {
                    level,
                    ..Options::default()
                }),
            )
        })
        .collect()
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Checks every line of `text`; returns (lines, fast-path lines).
fn check_lines(text: &str, ladders: &[(Level, Normalizer)]) -> (usize, usize) {
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let mut n = (0, 0);
    for line in text.lines() {
        n.0 += 1;
        n.1 += usize::from(check(line, ladders));
    }
    n
}

#[test]
fn bundled_lists() {
    let l = ladders();
    for f in ["kasztp.txt", "node_files.txt", "isaacs_files.txt"] {
        let text = std::fs::read_to_string(root().join("data").join(f)).unwrap();
        let (lines, fast) = check_lines(&text, &l);
        // The real lists are mostly clean: the fast path must be the rule.
        assert!(fast * 10 > lines * 7, "{f}: {fast} of {lines}");
    }
    // The CC pairs: the bases are absolute, the references mostly relative.
    let csv = std::fs::read_to_string(root().join("data/relative_urls_cc_10k.csv")).unwrap();
    for row in csv.lines().skip(1) {
        for field in row.split(',') {
            check(field, &l);
        }
    }
}

#[test]
fn wpt_inputs() {
    let text = std::fs::read_to_string(root().join("tests/wpt/urltestdata.json")).unwrap();
    let cases: serde_json::Value = serde_json::from_str(&text).unwrap();
    let l = ladders();
    let mut fast = 0;
    for case in cases.as_array().unwrap() {
        for field in ["input", "href"] {
            if let Some(s) = case.get(field).and_then(|v| v.as_str()) {
                fast += usize::from(check(s, &l));
            }
        }
    }
    assert!(fast > 50, "{fast}");
}

/// The files of a ustar archive (POSIX.1-1988: 512-byte headers, the size
/// in octal at bytes 124–135, data padded to 512).
fn tar_files(tar: &[u8]) -> Vec<&[u8]> {
    let mut files = Vec::new();
    let mut at = 0;
    while at + 512 <= tar.len() && tar[at] != 0 {
        let h = &tar[at..at + 512];
        let size = std::str::from_utf8(&h[124..136])
            .unwrap()
            .trim_matches(|c: char| c == '\0' || c == ' ');
        let size = usize::from_str_radix(size, 8).unwrap_or(0);
        if h[156] == b'0' || h[156] == 0 {
            files.push(&tar[at + 512..at + 512 + size]);
        }
        at += 512 + size.div_ceil(512) * 512;
    }
    files
}

#[test]
fn fuzz_corpus() {
    let gz = std::fs::read(root().join("fuzz/corpus.tar.gz")).unwrap();
    let mut tar = Vec::new();
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_end(&mut tar)
        .unwrap();
    let l = ladders();
    let (mut files, mut fast) = (0, 0);
    for f in tar_files(&tar) {
        files += 1;
        let text = String::from_utf8_lossy(f);
        fast += check_lines(&text, &l).1;
        // A target's input often starts with a selector byte.
        if let Some(rest) = text.get(1..) {
            fast += usize::from(check(rest, &l));
        }
    }
    assert!(files > 10_000 && fast > 100, "{files} files, {fast} fast");
}

/// References built from what the conditions look at: scheme and its
/// case, slashes, credentials, hosts (numbers, `0x`, `xn--`, dots,
/// uppercase, `%`), ports, dot segments (also `%2e`), and bytes of every
/// percent-encode set.
fn reference() -> impl Strategy<Value = String> {
    let scheme = prop::sample::select(vec![
        "http://",
        "https://",
        "file://",
        "ws://",
        "wss://",
        "ftp://",
        "HTTP://",
        "Https://",
        "WSS://",
        "fTp://",
        "http:/",
        "http:",
        "http:\\\\",
        "sc://",
        "file:///",
        " http://",
        "blob:",
    ]);
    let user = prop::sample::select(vec!["", "", "", "u@", ":@", "u:p@", "@"]);
    let odd = prop::sample::select(vec![
        "1",
        "0",
        "00",
        "255",
        "256",
        "0x1f",
        "0X",
        "xn--mnchen-3ya",
        "xn--a",
        "A",
        "WWW",
        "M\u{dc}NCHEN",
        "fa\u{df}",
        "\u{ff21}",
        "xn--MNCHEN-3YA",
        "ex%41",
        "localhost",
        "",
        "-",
        "a_b",
        "\u{e9}",
        "c:",
        "[::1]",
    ]);
    let label = prop_oneof![3 => "[a-z0-9-]{1,5}", 1 => odd.prop_map(String::from)];
    let host = prop::collection::vec(label, 1..5).prop_map(|v| v.join("."));
    let dot = prop::sample::select(vec!["", "", "."]);
    let port = prop::sample::select(vec![
        "",
        "",
        "",
        ":",
        ":80",
        ":443",
        ":21",
        ":8080",
        ":080",
        ":65535",
        ":65536",
        ":1",
        ":0080",
        ":00000000443",
        ":",
    ]);
    let noisy = "[a-z0-9/?#%.'`\\\\|{}<> \t^\"\\[\\]@:;=!$&()*+,~_éE2e-]{0,24}";
    let clean = "(/[a-z0-9._~'C:-]{0,6}(%2[eE])?){1,4}([?][a-z0-9'=&/.]{0,8})?(#[a-z#'?]{0,4})?";
    let tail = prop_oneof![1 => noisy, 3 => clean];
    (scheme, user, host, dot, port, tail)
        .prop_map(|(s, u, h, d, p, t)| format!("{s}{u}{h}{d}{p}{t}"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8_000))]

    #[test]
    fn generated(s in reference()) {
        check(&s, &ladders());
    }
}

#[test]
fn generated_inputs_reach_the_fast_path() {
    // The strategy above must exercise both sides of the predicate.
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = reference();
    let l = ladders();
    let fast = (0..5000)
        .filter(|_| check(&strategy.new_tree(&mut runner).unwrap().current(), &l))
        .count();
    assert!((100..4900).contains(&fast), "{fast} of 5000");
    let rewritten = (0..5000)
        .filter(|_| check_rewrite(&strategy.new_tree(&mut runner).unwrap().current()))
        .count();
    assert!((100..4900).contains(&rewritten), "{rewritten} of 5000");
}
