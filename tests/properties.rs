//! Property tests of the comparison ladder and the IRI↔URI conversions.
//!
//! References are generated from component strategies (schemes in mixed
//! case, optional authority with userinfo / reg-names of ASCII, Unicode,
//! percent-encoded and upper-case labels / IPv4 / IPv6 spellings / ports,
//! paths of dot, empty, ASCII, Unicode and `%XX` segments, queries and
//! fragments). Written level-generic over `Level::ALL`, so rules the
//! protocol rung may gain are covered too.

use irinorm::{
    equivalent, key, parse, remove_dot_segments, resolve, to_iri, to_uri, Form, Level, Normalizer,
    Options,
};
use proptest::prelude::*;
use proptest::sample::select;

const FORMS: [Form; 2] = [Form::Uri, Form::Iri];

fn key_in(input: &str, level: Level, form: Form) -> Option<String> {
    Normalizer::new(Options {
        level,
        form,
        nfc: false,
    })
    .key(input)
    .ok()
    .map(|k| k.into_owned())
}

// ---------------------------------------------------------------- generators

fn scheme() -> impl Strategy<Value = &'static str> {
    select(vec![
        "http", "HTTP", "Http", "https", "hTTps", "ftp", "FTP", "foo", "Foo", "urn", "mailto",
        "MailTo",
    ])
}

fn label() -> impl Strategy<Value = &'static str> {
    select(vec![
        "example",
        "EXAMPLE",
        "Www",
        "a-b",
        "münchen",
        "MÜNCHEN",
        "xn--mnchen-3ya",
        "XN--MNCHEN-3YA",
        "m%C3%BCnchen",
        "m%c3%bcnchen",
        "%61bc",
        "納豆",
        "пример",
        "com",
    ])
}

fn host() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::collection::vec(label(), 1..4).prop_map(|v| v.join(".")),
        1 => select(vec!["192.0.2.16", "127.0.0.1"]).prop_map(str::to_owned),
        1 => select(vec![
            "[2001:db8::1]",
            "[2001:DB8:0:0:0:0:0:1]",
            "[2001:0db8:0000:0000:0000:0000:0000:0001]",
            "[::1]",
            "[::ffff:192.0.2.1]",
            "[v1.fe80::a]",
        ])
        .prop_map(str::to_owned),
        1 => Just(String::new()),
    ]
}

fn authority() -> impl Strategy<Value = Option<String>> {
    let userinfo = prop::option::of(select(vec!["user", "us%65r", "üser", "a:b", "%7E"]));
    let port = prop::option::of(select(vec!["", "80", "080", "443", "8080", "0"]));
    prop::option::weighted(
        0.8,
        (userinfo, host(), port).prop_map(|(u, h, p)| {
            let mut a = String::new();
            if let Some(u) = u {
                a.push_str(u);
                a.push('@');
            }
            a.push_str(&h);
            if let Some(p) = p {
                a.push(':');
                a.push_str(p);
            }
            a
        }),
    )
}

const SEGMENTS: [&str; 26] = [
    ".",
    "..",
    "",
    "a",
    "Word",
    "x.y",
    "é",
    "ü",
    "納豆",
    "привет",
    "مرحبا",
    "%2F",
    "%2f",
    "%7E",
    "%7e",
    "%C3%A9",
    "%c3%a9",
    "%C0%AF",
    "%FC",
    "%41",
    "%2E",
    "%2e%2E",
    "~",
    "a;b=c",
    "%25",
    "%E2%80%AE",
];

fn segment() -> impl Strategy<Value = &'static str> {
    select(SEGMENTS.to_vec())
}

fn query_part() -> impl Strategy<Value = &'static str> {
    select(vec![
        "q=1", "%7e", "é", "\u{E000}", "a/b?c", "%2F", "%C3%A9", "x=%FC", "納豆", "",
    ])
}

fn fragment_part() -> impl Strategy<Value = &'static str> {
    select(vec!["top", "é", "%7E", "#", "a/b?c", "%23", ""])
}

/// An absolute IRI reference built from the parts above.
#[derive(Debug, Clone)]
struct Ref {
    scheme: &'static str,
    authority: Option<String>,
    segments: Vec<&'static str>,
    query: Option<String>,
    fragment: Option<String>,
}

impl Ref {
    fn path(&self) -> String {
        let joined = self.segments.join("/");
        if self.authority.is_some() {
            if self.segments.is_empty() {
                String::new()
            } else {
                format!("/{joined}")
            }
        } else if self.segments.first().is_some_and(|s| s.is_empty()) {
            // "//x" would read as an authority; keep it a rooted path.
            format!("/.{joined}")
        } else {
            joined
        }
    }

    fn with_path(&self, path: &str) -> String {
        let mut s = format!("{}:", self.scheme);
        if let Some(a) = &self.authority {
            s.push_str("//");
            s.push_str(a);
        }
        s.push_str(path);
        if let Some(q) = &self.query {
            s.push('?');
            s.push_str(q);
        }
        if let Some(f) = &self.fragment {
            s.push('#');
            s.push_str(f);
        }
        s
    }

    fn text(&self) -> String {
        self.with_path(&self.path())
    }
}

fn reference() -> impl Strategy<Value = Ref> {
    (
        scheme(),
        authority(),
        prop::collection::vec(segment(), 0..5),
        prop::option::of(prop::collection::vec(query_part(), 1..3).prop_map(|v| v.join("&"))),
        prop::option::of(prop::collection::vec(fragment_part(), 1..3).prop_map(|v| v.concat())),
    )
        .prop_map(|(scheme, authority, segments, query, fragment)| Ref {
            scheme,
            authority,
            segments,
            query,
            fragment,
        })
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

// ---------------------------------------------------------------- properties

proptest! {
    #![proptest_config(config(3000))]

    /// key(key(a)) == key(a) at every level and form; the key re-parses,
    /// and keeps the delimiters (authority, query, fragment) of the input.
    #[test]
    fn keys_are_idempotent_and_reparse(r in reference()) {
        let a = r.text();
        let Ok(p) = parse(&a) else { return Ok(()) };
        let (has_auth, has_q, has_f) =
            (p.authority().is_some(), p.query().is_some(), p.fragment().is_some());
        for level in Level::ALL {
            for form in FORMS {
                let Some(k) = key_in(&a, level, form) else { continue };
                let kp = parse(&k);
                prop_assert!(kp.is_ok(), "{level:?}/{form:?} key {k:?} of {a:?} does not parse");
                let kp = kp.unwrap();
                prop_assert_eq!(kp.authority().is_some(), has_auth, "authority of {:?}", k);
                if level < Level::Protocol {
                    prop_assert_eq!(kp.query().is_some(), has_q, "query of {:?}", k);
                    prop_assert_eq!(kp.fragment().is_some(), has_f, "fragment of {:?}", k);
                } else {
                    // The protocol rung's default rules drop the fragment
                    // (000 §5.1) and may drop an emptied query.
                    prop_assert!(kp.fragment().is_none(), "fragment kept at protocol: {:?}", k);
                    prop_assert!(has_q || kp.query().is_none(), "query appeared: {:?}", k);
                }
                let kk = key_in(&k, level, form);
                prop_assert_eq!(kk.as_deref(), Some(k.as_str()),
                    "not idempotent at {:?}/{:?}: input {:?}", level, form, a);
                if form == Form::Uri && level > Level::String {
                    prop_assert!(k.is_ascii(), "URI-form key not ASCII: {:?}", k);
                }
            }
        }
    }

    /// Variants of a reference are equivalent at the rung they belong to and
    /// (where that holds by definition) not at the rung below; equivalence
    /// is monotone up the ladder.
    #[test]
    fn variants_land_on_their_rung(r in reference(), which in 0usize..7, pick in any::<prop::sample::Index>()) {
        let a = r.text();
        prop_assume!(parse(&a).is_ok());
        let Some((b, rung)) = variant(&r, which, pick) else { return Ok(()) };
        prop_assume!(b != a);
        prop_assert!(parse(&b).is_ok(), "variant {b:?} of {a:?} does not parse");
        let eq = |l| equivalent(&a, &b, l).ok();
        // A key may be an error (e.g. a host that fails IDNA); then the
        // variant's must be too.
        prop_assert!(eq(rung) == Some(true) || key(&a, rung).is_err() && key(&b, rung).is_err(),
            "{a:?} and variant {b:?} not equivalent at {rung:?}: {:?} vs {:?}",
            key(&a, rung), key(&b, rung));
        let below = Level::ALL[rung as usize - 1];
        prop_assert_eq!(eq(below), Some(false),
            "{:?} and {:?} already equivalent at {:?}", a, b, below);
        monotone(&a, &b)?;
    }

    /// Equivalence of two independent references is monotone too.
    #[test]
    fn equivalence_is_monotone(r in reference(), s in reference()) {
        monotone(&r.text(), &s.text())?;
    }

    /// to_uri: idempotent, ASCII, the identity on a URI; to_uri(to_iri(u))
    /// is u up to syntax normalization (scheme normalization when a DNS
    /// host was percent-encoded).
    #[test]
    fn conversions(r in reference()) {
        let a = r.text();
        let Ok(u) = to_uri(&a) else { return Ok(()) };
        let u = u.into_owned();
        prop_assert!(u.is_ascii(), "to_uri({a:?}) = {u:?} not ASCII");
        prop_assert!(parse(&u).is_ok(), "to_uri({a:?}) = {u:?} does not parse");
        let again = to_uri(&u).map(|x| x.into_owned()).ok();
        prop_assert_eq!(again.as_deref(), Some(u.as_str()), "to_uri not idempotent");
        if a.is_ascii() && !r.fragment.as_deref().is_some_and(|f| f.contains('#')) {
            prop_assert_eq!(&u, &a, "to_uri not the identity on an ASCII URI");
        }
        let i = to_iri(&u);
        prop_assert!(i.is_ok(), "to_iri({u:?}) failed: {i:?}");
        let i = i.unwrap().into_owned();
        let back = to_uri(&i);
        prop_assert!(back.is_ok(), "to_uri(to_iri({u:?})) = to_uri({i:?}) failed: {back:?}");
        let back = back.unwrap().into_owned();
        // A DNS host's percent-encoded UTF-8 is shown as characters (§3.7)
        // and comes back as punycode (§3.4.2): equal from the scheme rung.
        let pct_dns_host = parse(&u).ok().is_some_and(|p| {
            p.host().is_some_and(|h| h.contains('%'))
                && p.scheme().is_some_and(|s| irinorm::is_dns_scheme(&s.to_ascii_lowercase()))
        });
        let level = if pct_dns_host { Level::Scheme } else { Level::Syntax };
        prop_assert_eq!(key(&back, level).ok(), key(&u, level).ok(),
            "round trip {:?} -> {:?} -> {:?}", u, i, back);
    }

    /// Decoding never creates a delimiter: a path that is one segment with
    /// no raw '/' (but `%2F`, `%C0%AF`, dots, …) keeps exactly one '/'.
    #[test]
    fn decoding_creates_no_slash(parts in prop::collection::vec(
        select(vec!["%2F", "%2f", "%C0%AF", "%c0%af", "%2E", ".", "..", "a", "%3F", "%23", "%40", "%3A", "é", "%E2%88%95"]), 1..6),
        sch in select(vec!["http", "foo"])) {
        let seg = parts.concat();
        prop_assume!(seg != "." && seg != ".." && seg != "%2E" && seg != "%2E." && seg != ".%2E"
            && seg != "%2E%2E");
        let a = format!("{sch}://h/{seg}");
        for level in Level::ALL {
            for form in FORMS {
                let Some(k) = key_in(&a, level, form) else { continue };
                let p = parse(&k).unwrap();
                prop_assert_eq!(p.path().matches('/').count(), 1, "{:?} -> {:?}", a, k);
                prop_assert!(p.query().is_none() && p.fragment().is_none(), "{:?} -> {:?}", a, k);
                prop_assert_eq!(p.host(), Some("h"));
            }
        }
    }
}

proptest! {
    #![proptest_config(config(6000))]

    /// No panic on arbitrary strings and bytes.
    #[test]
    fn no_panic_on_arbitrary_input(bytes in prop::collection::vec(any::<u8>(), 0..64), text in any::<String>(),
        uriish in "[a-zA-Z%:/?#\\[\\]@!$&'()*+,;=.0-9éü納\u{E000}\u{202E}\u{FF0E} -]{0,40}") {
        let lossy = String::from_utf8_lossy(&bytes).into_owned();
        let base = parse("http://a/b/c/d;p?q").unwrap();
        for input in [lossy.as_str(), text.as_str(), uriish.as_str(), &format!("http://{uriish}"),
            &format!("http://h/{text}")] {
            for level in Level::ALL {
                for form in FORMS {
                    let _ = key_in(input, level, form);
                }
            }
            let _ = to_uri(input);
            let _ = to_iri(input);
            if let Ok(r) = parse(input) {
                let _ = resolve(&base, &r);
                let _ = remove_dot_segments(r.path());
            }
        }
    }
}

fn monotone(a: &str, b: &str) -> Result<(), TestCaseError> {
    let mut seen = false;
    for level in Level::ALL {
        match equivalent(a, b, level) {
            Ok(true) => seen = true,
            Ok(false) => prop_assert!(!seen, "{a:?} ≡ {b:?} below {level:?} but not at it"),
            Err(_) => return Ok(()),
        }
    }
    Ok(())
}

/// A variant of `r` and the rung that merges it with `r`.
fn variant(r: &Ref, which: usize, pick: prop::sample::Index) -> Option<(String, Level)> {
    let path = r.path();
    match which {
        // Scheme case.
        0 => {
            let mut v = r.clone();
            let up = r.scheme.to_ascii_uppercase();
            v.scheme = Box::leak(up.into_boxed_str());
            Some((v.text(), Level::Syntax))
        }
        // ASCII host case (reg-name hosts only, not inside %XX).
        1 => {
            let auth = r.authority.as_ref()?;
            let (ui, rest) = match auth.rsplit_once('@') {
                Some((u, h)) => (format!("{u}@"), h),
                None => (String::new(), auth.as_str()),
            };
            if rest.starts_with('[') || rest.contains('%') {
                return None;
            }
            let mut v = r.clone();
            v.authority = Some(format!("{ui}{}", rest.to_ascii_uppercase()));
            Some((v.text(), Level::Syntax))
        }
        // Percent-encode one unreserved ASCII letter of the path.
        2 => {
            let spots = unencoded_positions(&path, |c| c.is_ascii_alphanumeric() || c == '~');
            let i = *spots.get(pick.index(spots.len().max(1)))?;
            let c = path.as_bytes()[i];
            let hex = if pick.index(2) == 0 {
                format!("%{c:02X}")
            } else {
                format!("%{c:02x}")
            };
            Some((
                r.with_path(&format!("{}{hex}{}", &path[..i], &path[i + 1..])),
                Level::Syntax,
            ))
        }
        // Raw non-ASCII character ↔ its percent-encoded UTF-8.
        3 => {
            let (i, ch) = path.char_indices().find(|(_, c)| !c.is_ascii())?;
            let mut enc = String::new();
            for b in ch.to_string().bytes() {
                enc.push_str(&format!("%{b:02X}"));
            }
            Some((
                r.with_path(&format!(
                    "{}{enc}{}",
                    &path[..i],
                    &path[i + ch.len_utf8()..]
                )),
                Level::Syntax,
            ))
        }
        // Add "/." in front of a hierarchical path.
        4 => {
            if !path.starts_with('/') || path.starts_with("//") {
                return None;
            }
            Some((r.with_path(&format!("/.{path}")), Level::Syntax))
        }
        // Add the default port of http/https.
        5 => {
            let port = match r.scheme.to_ascii_lowercase().as_str() {
                "http" => "80",
                "https" => "443",
                _ => return None,
            };
            let auth = r.authority.as_ref()?;
            let host_end = auth.rsplit_once(']').map_or(auth.as_str(), |(h, _)| h);
            if auth[host_end.len()..].contains(':')
                || (!auth.contains('[') && auth.rsplit('@').next()?.contains(':'))
            {
                return None;
            }
            let mut v = r.clone();
            v.authority = Some(format!("{auth}:{port}"));
            Some((v.text(), Level::Scheme))
        }
        // Empty path → "/" for http/https.
        _ => {
            if !matches!(r.scheme.to_ascii_lowercase().as_str(), "http" | "https")
                || r.authority.is_none()
                || !path.is_empty()
            {
                return None;
            }
            Some((r.with_path("/"), Level::Scheme))
        }
    }
}

/// Byte positions of characters matching `f` that are not part of a `%XX`.
fn unencoded_positions(s: &str, f: impl Fn(char) -> bool) -> Vec<usize> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            i += 3;
            continue;
        }
        if f(b[i] as char) && b[i].is_ascii() {
            out.push(i);
        }
        i += 1;
    }
    out
}
