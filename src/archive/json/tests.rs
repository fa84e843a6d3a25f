use std::borrow::Cow;

use super::scan;
use super::serde_wat;

/// The scanner never accepts what serde refuses, and reads what it accepts
/// as serde does.
fn same(json: &str) -> bool {
    let fast = scan(json);
    let slow = serde_wat(json);
    if let Some(f) = &fast {
        assert_eq!(Ok(f), slow.as_ref(), "{json}");
    }
    fast.is_some()
}

const PAGE: &str = r#"{"Container":{"Offset":"1","Gzip-Metadata":{"Deflate-Length":"9"}},"Envelope":{"Format":"WARC","WARC-Header-Metadata":{"WARC-Type":"response","WARC-Target-URI":"http://a.example/x/","Content-Length":"20"},"Payload-Metadata":{"Actual-Content-Type":"application/http","HTTP-Response-Metadata":{"Response-Message":{"Version":"HTTP/1.1","Status":"301"},"Headers":{"Location":"/y","Link":["</a>; rel=x","</b>"],"X-Empty":null,"X-Flag":true},"Entity-Length":"19600","HTML-Metadata":{"Head":{"Title":"T","Base":"/b/","Metas":[{"name":"thumbnail","content":"/t"},{"property":"og:url","content":"/o"}],"Link":[{"path":"LINK@/href","url":"/s.css","rel":"stylesheet"}],"Scripts":[{"path":"SCRIPT@/src","url":"/j.js"}]},"Links":[{"path":"A@/href","url":"z","text":"t"},{"path":"A@/href","href":"http://h/"},{"n":[1,-2.5e+3,0,-0,1E9,{"a":[true,false,null,{}]},[]]}]}}}}}"#;

#[test]
fn the_common_shape_is_read_by_the_scanner() {
    assert!(same(PAGE));
    assert!(same(
        r#" {"Envelope" : {"WARC-Header-Metadata":{"WARC-Type":"request"}}} "#
    ));
    let p = scan(PAGE).unwrap();
    let links = p
        .envelope
        .payload
        .unwrap()
        .http
        .unwrap()
        .html
        .unwrap()
        .links
        .unwrap();
    assert_eq!(links.0.len(), 2);
    assert_eq!((&*links.0[0].url, &*links.0[0].path), ("z", "A@/href"));
    assert!(matches!(links.0[0].url, Cow::Borrowed(_)));
    assert_eq!(&*links.0[1].url, "http://h/");
}

#[test]
fn escapes_are_unescaped_as_serde_does() {
    for s in [
        r#"http:\/\/a\/\u00e9\u20AC\ud83d\ude00"#,
        r#"\"\\\b\f\n\r\t"#,
        r#"plain"#,
        r#""#,
    ] {
        let json = format!(
            r#"{{"Envelope":{{"WARC-Header-Metadata":{{"WARC-Type":"response","WARC-Target-URI":"{s}"}}}}}}"#
        );
        assert!(same(&json), "{json}");
    }
    // Unescaped text is borrowed from the record.
    let w = scan(PAGE).unwrap().envelope.warc.unwrap();
    assert!(matches!(w.target, Some(std::borrow::Cow::Borrowed(_))));
}

#[test]
fn what_serde_refuses_or_reads_otherwise_is_left_to_serde() {
    let env = |inner: &str| format!(r#"{{"Envelope":{inner}}}"#);
    let refused_or_deferred = [
        // Broken JSON in a skipped value.
        env(r#"{"X":01}"#),
        env(r#"{"X":1.}"#),
        env(r#"{"X":-}"#),
        env(r#"{"X":1e}"#),
        env(r#"{"X":.5}"#),
        env(r#"{"X":tru}"#),
        env(r#"{"X":nulll}"#),
        env(r#"{"X":[1,]}"#),
        env(r#"{"X":{"a":1,}}"#),
        env(r#"{"X":{"a"}}"#),
        env(r#"{"X":{1:2}}"#),
        env(r#"{"X":[}"#),
        env(r#"{"X":"\x"}"#),
        env(r#"{"X":"\u12G4"}"#),
        env("{\"X\":\"tab\there\"}"),
        env(r#"{"X":"open}"#),
        env(r#"{"X":1,}"#),
        env(r#"{,}"#),
        // Trailing bytes, a missing Envelope, a non-object document.
        format!("{} x", env("{}")),
        r#"{}"#.into(),
        r#"[]"#.into(),
        r#""#.into(),
        // Duplicates of read fields, read fields of other types.
        r#"{"Envelope":{},"Envelope":{}}"#.into(),
        env(r#"{"WARC-Header-Metadata":{"WARC-Type":"a","WARC-Type":"b"}}"#),
        env(r#"{"WARC-Header-Metadata":{"WARC-Type":1}}"#),
        env(r#"{"WARC-Header-Metadata":"x"}"#),
        // Structs as arrays (serde reads them), escaped keys, surrogates.
        env(r#"[{"WARC-Type":"response","WARC-Target-URI":"http://a/"}]"#),
        env(r#"{"WARC-Header-Metadat\u0061":{}}"#),
        env(r#"{"WARC-Header-Metadata":{"WARC-Target-URI":"\ud800"}}"#),
        env(r#"{"WARC-Header-Metadata":{"WARC-Target-URI":"\udc00"}}"#),
        env(r#"{"WARC-Header-Metadata":{"WARC-Target-URI":"\ud800\u0041"}}"#),
        // Header values serde reads with deserialize_any.
        env(r#"{"Payload-Metadata":{"HTTP-Response-Metadata":{"Headers":{"A":1e400}}}}"#),
        env(r#"{"Payload-Metadata":{"HTTP-Response-Metadata":{"Headers":{"A":[["x"]]}}}}"#),
        // Deeper than the skip's stack.
        env(&format!(
            r#"{{"X":{}{}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        )),
    ];
    for json in &refused_or_deferred {
        assert!(!same(json), "{json}");
    }
    // Skipped strings may hold lone surrogates (serde ignores them too).
    assert!(same(&env(r#"{"X":"\ud800","Y":{"\udc00":1}}"#)));
    assert!(same(&env(&format!(
        r#"{{"X":{}{}}}"#,
        "[".repeat(100),
        "]".repeat(100)
    ))));
}

/// Every prefix, and every byte replaced by a byte JSON cares about, of the
/// page above: the scanner agrees with serde on each.
#[test]
fn mutations_of_a_page_agree_with_serde() {
    let mut accepted = 0;
    for n in 0..PAGE.len() {
        if PAGE.is_char_boundary(n) {
            accepted += usize::from(same(&PAGE[..n]));
        }
    }
    assert_eq!(accepted, 0, "no prefix is a whole document");
    let b = PAGE.as_bytes();
    for i in 0..b.len() {
        for &c in b"\"\\{}[],: \t0-eE.nul/x\x01" {
            let mut m = b.to_vec();
            m[i] = c;
            if let Ok(s) = std::str::from_utf8(&m) {
                accepted += usize::from(same(s));
            }
        }
    }
    assert!(accepted > 1000, "{accepted}");
}

/// The word search finds the first `"`, `\` or control character of a
/// word, as a byte loop does, for every byte at every place.
#[test]
fn the_word_search_stops_where_a_byte_loop_stops() {
    let special = |b: u8| matches!(b, b'"' | b'\\' | 0..=0x1f);
    for b in 0..=255u8 {
        for at in 0..8 {
            for after in [b'a', b'"', 0x80, 0x1f, b'\\', 0xff] {
                let mut w = [b'a'; 8];
                w[at] = b;
                if at < 7 {
                    w[at + 1] = after;
                }
                let first = w.iter().position(|&c| special(c));
                let m = super::stops(u64::from_le_bytes(w));
                let found = (m != 0).then(|| (m.trailing_zeros() / 8) as usize);
                assert_eq!(found, first, "{w:?}");
            }
        }
    }
}
