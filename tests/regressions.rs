//! Regression tests for the defects of issues 13, 14 (core rows) and the
//! core fixes of issue 11: each reproducer as filed, at library level.
//!
//! "Every rung re-checks structure" (issue 13): a rule whose output would
//! re-parse with a different scheme, authority or path boundary does not
//! apply; `guard_*` tests feed each path/host rule a reference on which
//! applying it would break the structure, straight to the protocol rung.

use std::sync::Arc;

use irinorm::{
    key, parse, to_iri, to_uri, ErrorKind, Form, Level, Normalizer, Options, ProtocolRules, Rule,
    Rules,
};

fn norm(level: Level, form: Form, nfc: bool, rules: Rules) -> Normalizer {
    Normalizer::new(Options { level, form, nfc })
        .with_protocol(Arc::new(ProtocolRules::new(rules, None)))
}

fn k(n: &Normalizer, s: &str) -> Result<String, irinorm::Error> {
    n.key(s).map(|c| c.into_owned())
}

/// The rung alone on a parsed reference (bypassing the scheme rung).
fn rung(rules: Rules, s: &str) -> String {
    let r = parse(s).unwrap();
    ProtocolRules::new(rules, None).apply_key(&r).into_owned()
}

fn only(rule: Rule) -> Rules {
    Rules::NONE.with(rule)
}

/// Same scheme, authority, path boundary, query and fragment presence.
fn same_structure(a: &str, b: &str) {
    let (p, q) = (parse(a).unwrap(), parse(b).unwrap());
    assert_eq!(p.scheme(), q.scheme(), "{a} vs {b}");
    assert_eq!(p.authority(), q.authority(), "{a} vs {b}");
    assert_eq!(p.host_kind(), q.host_kind(), "{a} vs {b}");
}

#[test]
fn jsessionid_false_merge_with_host_change() {
    // Issue 13: `session` cut `;jsessionid=` out of `/;jsessionid=/evil…`,
    // leaving `//evil.example/x`, which re-parses as an authority.
    let n = norm(Level::Protocol, Form::Uri, false, Rules::DEFAULT);
    let evil = "http:/;jsessionid=/evil.example/x";
    // From the scheme rung up an http URI needs a host (RFC 9110 §4.2.1).
    assert!(matches!(
        n.key(evil).unwrap_err().kind,
        ErrorKind::HostRequired { scheme: "http" }
    ));
    assert_eq!(
        k(&n, "http://evil.example/x").unwrap(),
        "http://evil.example/x"
    );
    // And the rung itself refuses the change.
    let out = rung(Rules::DEFAULT, evil);
    assert_eq!(out, evil);
}

#[test]
fn guard_session() {
    for s in [
        "http:/;jsessionid=/evil.example/x",
        "http://h/a/..;jsessionid=1/b",
    ] {
        let out = rung(only(Rule::Session), s);
        same_structure(s, &out);
        assert_eq!(out, s);
    }
    // Where it is safe the rule still applies.
    assert_eq!(
        rung(only(Rule::Session), "http://h/a;jsessionid=1/b"),
        "http://h/a/b"
    );
}

#[test]
fn guard_collapse_slashes() {
    // Issue 14: `http:/.//` became `http:/./`, whose own key is `http:/`.
    let s = "http:/.//";
    let out = rung(only(Rule::CollapseSlashes), s);
    assert_eq!(out, s);
    assert_eq!(rung(only(Rule::CollapseSlashes), &out), out);
    let s = "http:/.//a//b";
    assert_eq!(rung(only(Rule::CollapseSlashes), s), s);
    assert_eq!(
        rung(only(Rule::CollapseSlashes), "http://h/a//b"),
        "http://h/a/b"
    );
}

#[test]
fn guard_strip_index() {
    // Stripping would leave a dot segment the scheme rung would remove.
    let s = "http://h/./index.html";
    assert_eq!(rung(only(Rule::StripIndex), s), s);
    assert_eq!(
        rung(only(Rule::StripIndex), "http://h/d/index.html"),
        "http://h/d/"
    );
}

#[test]
fn guard_strip_www_never_makes_an_address() {
    // Issue 14: a host name became an IPv4 address.
    let n = norm(
        Level::Protocol,
        Form::Uri,
        false,
        Rules::DEFAULT.with(Rule::StripWww),
    );
    assert_eq!(k(&n, "http://www.1.2.3.4/").unwrap(), "http://www.1.2.3.4/");
    assert_ne!(
        k(&n, "http://www.1.2.3.4/").unwrap(),
        k(&n, "http://1.2.3.4/").unwrap()
    );
    for s in [
        "http://www.0x7f.1/",
        "http://www.10.0.0.1./",
        "http://www.a.123/",
    ] {
        assert_eq!(k(&n, s).unwrap(), s);
        same_structure(s, &rung(only(Rule::StripWww), s));
    }
    assert_eq!(
        k(&n, "http://www.a1.example/").unwrap(),
        "http://a1.example/"
    );
}

#[test]
fn nfc_never_creates_or_destroys_reserved_ascii() {
    // Issue 14: U+1FEF → '`', U+037E → ';', '=' + U+0338 → '≠'.
    for level in [Level::Syntax, Level::Scheme, Level::Protocol] {
        for form in [Form::Uri, Form::Iri] {
            let n = norm(level, form, true, Rules::DEFAULT);
            for s in [
                "http://a/x\u{1FEF}y",
                "http://a/x\u{37E}jsessionid=1",
                "http://a/x=\u{338}y",
                "http://a/?q=\u{338}",
            ] {
                let out = k(&n, s).unwrap();
                let p = parse(&out).unwrap_or_else(|e| panic!("{s} → {out}: {e}"));
                let orig = parse(s).unwrap();
                assert_eq!(p.query().is_some(), orig.query().is_some(), "{out}");
                let count = |t: &str, c: char| t.matches(c).count();
                for c in ['`', ';', '='] {
                    assert_eq!(
                        count(&out, c),
                        count(s, c),
                        "{s} → {out} ({level:?}/{form:?})"
                    );
                }
                assert_eq!(k(&n, &out).unwrap(), out, "idempotent {s}");
            }
        }
    }
    let n = norm(Level::Syntax, Form::Uri, true, Rules::DEFAULT);
    assert_eq!(
        k(&n, "http://a/x\u{1FEF}y").unwrap(),
        "http://a/x%E1%BF%AFy"
    );
    assert_eq!(k(&n, "http://a/x=\u{338}y").unwrap(), "http://a/x=%CC%B8y");
    // Ordinary composition still happens.
    assert_eq!(k(&n, "http://a/e\u{301}").unwrap(), "http://a/%C3%A9");
}

#[test]
fn to_iri_keeps_labels_that_fail_to_unicode() {
    // Issue 14: `http://xn--.xn--4le` gave `http://xn--.ᕃ`, then to_uri failed.
    let i = to_iri("http://xn--.xn--4le").unwrap();
    assert_eq!(i, "http://xn--.xn--4le");
    assert_eq!(to_uri(&i).unwrap(), "http://xn--.xn--4le");
}

#[test]
fn dns_length_limits_at_the_scheme_rung() {
    // Issue 14: labels over 63 octets, names over 253 (UTS #46
    // VerifyDnsLength) for DNS schemes, with the length reason.
    let long_label = format!("http://{}.com/", "a".repeat(64));
    let long_name = format!("http://{}com/", "a.".repeat(126));
    let e = key(&long_label, Level::Scheme).unwrap_err().to_string();
    assert!(e.contains("longer than 63"), "{e}");
    let e = key(&long_name, Level::Scheme).unwrap_err().to_string();
    assert!(e.contains("longer than 253"), "{e}");
    // The limits themselves are fine.
    assert!(key(&format!("http://{}.com/", "a".repeat(63)), Level::Scheme).is_ok());
    assert!(key(&format!("http://{}com/", "a.".repeat(125)), Level::Scheme).is_ok());
    assert!(key("http://example.com./", Level::Scheme).is_ok());
    // A 2,000-character label: the length reason, not "leading combining mark".
    let e = key(&format!("http://{}.com/", "é".repeat(2000)), Level::Scheme)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("longer than 63") && !e.contains("combining"),
        "{e}"
    );
    // Below the scheme rung and for non-DNS schemes no limit applies.
    assert!(key(&long_label, Level::Syntax).is_ok());
    assert!(key(&format!("foo://{}.com/", "a".repeat(64)), Level::Scheme).is_ok());
}

#[test]
fn iri_form_of_a_percent_encoded_host() {
    // Issue 11: §3.7 maps percent-encoded UTF-8 to characters in the host
    // (a label the default display policy shows: Greek `α` alone is a
    // whole-script confusable of `a` under `.com`, issue 48).
    assert_eq!(to_iri("http://%CE%B1.gr/").unwrap(), "http://α.gr/");
    let n = norm(Level::Syntax, Form::Iri, false, Rules::DEFAULT);
    assert_eq!(k(&n, "http://user@α.CoM/").unwrap(), "http://user@α.com/");
    let n = norm(Level::Scheme, Form::Iri, false, Rules::DEFAULT);
    assert_eq!(k(&n, "http://%C3%BC.com/").unwrap(), "http://ü.com/");
    assert_eq!(k(&n, "http://xn--tda.com/").unwrap(), "http://ü.com/");
    assert_eq!(k(&n, "http://xn--mxa.com/").unwrap(), "http://xn--mxa.com/");
}

#[test]
fn web_schemes_need_a_host() {
    // Issue 11: RFC 9110 §4.2.1–4.2.2, RFC 6455 §3.
    for s in [
        "https:///",
        "http://user@/x",
        "ws://",
        "wss://:443/",
        "http:/x",
        "http:x",
    ] {
        for level in [Level::Scheme, Level::Protocol] {
            let e = key(s, level).unwrap_err();
            assert!(matches!(e.kind, ErrorKind::HostRequired { .. }), "{s}: {e}");
            assert!(e.to_string().contains("without a host"), "{e}");
        }
        // The lower rungs compare the text; they do not judge the scheme.
        assert!(key(s, Level::Syntax).is_ok(), "{s}");
    }
    assert!(key("file:///etc/passwd", Level::Scheme).is_ok());
    assert!(key("foo:///x", Level::Scheme).is_ok());
}

/// Found by the `resolve` fuzz target (the harness's invariant was too
/// strong, not the library): `--base` resolves *relative* references only.
/// An absolute reference keeps its rootless path's dot segments, as it does
/// without a base (RFC 3986 §5.2.2 would remove them, and could turn
/// `foo:a/../..//b` into an authority).
#[test]
fn base_leaves_absolute_references_alone() {
    let reference = "foo:@//h.example/a/x.ht01../../b/";
    let plain = Normalizer::new(Options::default());
    let based = Normalizer::new(Options::default())
        .with_base("http://a/b/c/d;p?q")
        .unwrap();
    assert_eq!(k(&based, reference).unwrap(), k(&plain, reference).unwrap());
    assert!(k(&based, reference).unwrap().contains("x.ht01../../b/"));
    // A relative reference is resolved, dot segments and all.
    assert_eq!(k(&based, "../g/./h").unwrap(), "http://a/b/g/h");
}

/// Found by the `cdx` fuzz target: a CDX header with trailing spaces was
/// accepted, but the header `normalize` wrote back (with its `A` field) was
/// not.
#[test]
fn cdx_header_with_key_is_a_header_again() {
    use irinorm::cdx::{CdxLayout, Format};
    let mut l = CdxLayout::new(Format::Cdx);
    assert_eq!(l.header(" CDX a  "), Ok(true));
    let h = CdxLayout::header_with_key(" CDX a  ");
    assert_eq!(h, " CDX a A");
    assert_eq!(CdxLayout::new(Format::Cdx).header(&h), Ok(true));
}

/// Found by the `preprocess` fuzz target: in web mode a `file:` href of the
/// `url` crate could parse to another href, so the key was not idempotent.
#[test]
fn web_file_href_is_a_fixed_point() {
    use irinorm::web::WebParser;
    use irinorm::Repairs;
    let w = WebParser::new();
    let h = w
        .parse("file://dpv//v|/ld", &mut Repairs::default())
        .unwrap()
        .into_string();
    let again = w.parse(&h, &mut Repairs::default()).unwrap().into_string();
    assert_eq!(again, h);
}

/// Found by CI's fuzz smoke run (`preprocess`): LEIRI preprocessing
/// percent-encoded private-use characters in the query, where §2.2's
/// `iprivate` allows them, so it changed a valid IRI reference.
#[test]
fn leiri_keeps_iprivate_in_the_query() {
    use irinorm::{Mode, Preprocessor, Repairs};
    let p = Preprocessor::new(Mode::Leiri, false);
    let valid = "o\u{edb6d}t?omom\u{fdb6d}/\u{fdb6d}/b";
    assert!(parse(valid).is_ok());
    assert_eq!(p.apply(valid, &mut Repairs::default()), valid);
    // Outside the query it is still encoded (not allowed there).
    assert_eq!(
        p.apply("a/\u{e000}?\u{e000}#\u{e000}", &mut Repairs::default()),
        "a/%EE%80%80?\u{e000}#%EE%80%80"
    );
}

/// Found by the campaign (`decode`, 2026-11-23): with `--encoding
/// iso-2022-jp` a line that is only an escape sequence (`ESC ( J`) decodes
/// to no text at all, and went on to the key as an empty reference (a
/// reject) instead of being counted as blank.
#[test]
fn a_line_a_charset_decodes_to_nothing_is_blank() {
    use irinorm::batch::{process_line, Outcome};
    use irinorm::Charset;
    use std::borrow::Cow;
    let jis: Charset = "iso-2022-jp".parse().unwrap();
    // The engine's per-line step with a key function that keeps the text
    // as it is: `Blank`, or the decoded text as its key.
    let line = |bytes: &'static [u8], charset| {
        process_line(bytes, 64, charset, &|s: &str, _: Option<&str>| {
            Ok(Cow::Borrowed(s))
        })
    };
    assert!(matches!(line(b"\x1b(J", Some(jis)), Outcome::Blank));
    assert!(matches!(line(b"\x1b(J \t\r", Some(jis)), Outcome::Blank));
    // A character after the escape is text; without a charset the bytes
    // are not blank (ESC is not a space).
    assert!(matches!(line(b"\x1b(Ja", Some(jis)), Outcome::Key(_)));
    assert!(!matches!(line(b"\x1b(J", None), Outcome::Blank));
}
