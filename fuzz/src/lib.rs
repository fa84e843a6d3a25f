//! Invariants shared by the fuzz targets (issues 13 and 14).
//!
//! A target turns its bytes into an input and an [`Opts`] (the first bytes
//! choose the options, so the fuzzer explores every level × form × NFC ×
//! protocol rule set × preprocessing mode), then calls a `check_*` function
//! here, which panics on the first broken promise. Each promise is the one
//! the README and the module docs make:
//!
//! * a key is a valid reference that re-parses with the input's scheme,
//!   authority, host kind, path boundary, query and fragment (the protocol
//!   rung may drop the fragment and an emptied query);
//! * `key(key(x)) == key(x)` at every level, form and option;
//! * `key(key(x, L1), L2) == key(x, L2)` for `L1 ≤ L2`;
//! * from the syntax rung up the scheme only changes case and the host only
//!   by case and percent-encoding (syntax), IDNA, RFC 5952 (scheme) and
//!   `strip-www` (protocol); port and userinfo never change at the protocol
//!   rung.

use std::borrow::Cow;
use std::sync::Arc;

use irinorm::{
    parse, Form, HostKind, IriRef, Level, Mode, Normalizer, Options, Preprocessor, ProtocolRules,
    Repairs, Rule, Rules,
};

/// The options of one fuzz case.
#[derive(Debug, Clone, Copy)]
pub struct Opts {
    pub mode: Mode,
    pub nfc: bool,
    pub form: Form,
    pub rules: Rules,
}

impl Opts {
    /// Two selector bytes: `a` picks mode (3), NFC (2), form (3); `b` is the
    /// protocol rule set, one bit per rule of [`Rule::ALL`] (so every rule
    /// alone, every combination, the defaults and none are reachable).
    pub fn from_bytes(a: u8, b: u8) -> Opts {
        let mode = [Mode::Strict, Mode::Leiri, Mode::Web][(a % 3) as usize];
        let nfc = (a / 3) % 2 == 1;
        let form = [Form::Uri, Form::Iri, Form::Surt][((a / 6) % 3) as usize];
        let mut rules = Rules::NONE;
        for (i, r) in Rule::ALL.into_iter().enumerate() {
            if b & (1 << i) != 0 {
                rules = rules.with(r);
            }
        }
        Opts {
            mode,
            nfc,
            form,
            rules,
        }
    }

    /// Split `data` into its options and the rest.
    pub fn split(data: &[u8]) -> Option<(Opts, &[u8])> {
        match data {
            [a, b, rest @ ..] => Some((Opts::from_bytes(*a, *b), rest)),
            _ => None,
        }
    }

    pub fn normalizer(&self, level: Level, form: Form) -> Normalizer {
        Normalizer::new(Options {
            level,
            form,
            nfc: self.nfc,
        })
        .with_protocol(Arc::new(ProtocolRules::new(self.rules, None)))
    }

    /// The preprocessor of the mode (`None` for strict, as the CLI does).
    pub fn preprocess<'a>(&self, s: &'a str) -> Cow<'a, str> {
        match self.mode {
            Mode::Strict => Cow::Borrowed(s),
            m => Preprocessor::new(m, false).apply(s, &mut Repairs::default()),
        }
    }
}

/// `parse` keeps every byte: the components put back together are the input.
pub fn check_parse(s: &str) {
    // The vector paths (SSSE3 runs, the whole-line bit-mask parser) split
    // and reject exactly as the scalar component scan does.
    let parsed = parse(s);
    let scalar = irinorm::fuzzing::parse_scalar(s);
    match (&parsed, &scalar) {
        (Ok(a), Ok(b)) => assert_eq!(
            (a.components(), a.host_kind(), a.is_ascii(), a.has_pct()),
            (b.components(), b.host_kind(), b.is_ascii(), b.has_pct()),
            "vector and scalar parse of {s:?}"
        ),
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "errors for {s:?}"),
        (a, b) => panic!("{s:?}: vector {a:?}, scalar {b:?}"),
    }
    let Ok(r) = parsed else { return };
    assert_eq!(recompose(&r), s, "components do not recompose");
    if let Some(a) = r.authority() {
        let mut auth = String::new();
        if let Some(u) = r.userinfo() {
            auth.push_str(u);
            auth.push('@');
        }
        auth.push_str(r.host().expect("an authority has a host"));
        if let Some(p) = r.port() {
            auth.push(':');
            auth.push_str(p);
        }
        assert_eq!(auth, a, "authority parts of {s:?}");
        assert!(r.host_kind().is_some());
    } else {
        assert!(r.host().is_none() && r.host_kind().is_none() && r.port().is_none());
        assert!(
            !r.path().starts_with("//"),
            "path // without authority: {s:?}"
        );
    }
    assert_eq!(r.is_ascii(), s.is_ascii());
    assert_eq!(r.has_pct(), s.contains('%'));
    // A reference that parses is its own string-rung key.
    assert_eq!(
        irinorm::key(s, Level::String).ok().as_deref(),
        r.is_absolute().then_some(s)
    );
}

/// The reference from its components (RFC 3986 §5.3).
pub fn recompose(r: &IriRef<'_>) -> String {
    let mut out = String::new();
    if let Some(sc) = r.scheme() {
        out.push_str(sc);
        out.push(':');
    }
    if let Some(a) = r.authority() {
        out.push_str("//");
        out.push_str(a);
    }
    out.push_str(r.path());
    if let Some(q) = r.query() {
        out.push('?');
        out.push_str(q);
    }
    if let Some(f) = r.fragment() {
        out.push('#');
        out.push_str(f);
    }
    out
}

fn key_at(n: &Normalizer, s: &str) -> Option<String> {
    n.key(s).ok().map(Cow::into_owned)
}

/// Lower-case, percent-decoded (lossy) host: what the syntax rung may not
/// change.
fn fold_host(h: &str) -> String {
    let b = h.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = |c: u8| (c as char).to_digit(16);
            if let (Some(x), Some(y)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((x * 16 + y) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).to_lowercase()
}

/// Every key promise for `input` under `o` (the input is preprocessed by
/// the mode first, as the CLI does).
pub fn check_key(o: &Opts, raw: &str) {
    let pre = o.preprocess(raw);
    let input: &str = &pre;
    let Ok(orig) = parse(input) else {
        // Nothing parses, nothing keys.
        for level in Level::ALL {
            assert!(o.normalizer(level, o.form).key(input).is_err());
        }
        return;
    };
    let forms: &[Form] = match o.form {
        Form::Surt => &[Form::Uri, Form::Surt],
        Form::Iri => &[Form::Uri, Form::Iri],
        Form::Uri => &[Form::Uri],
    };
    // URI-form keys per level, for the cross-level checks.
    let mut uri_keys: Vec<(Level, Option<String>)> = Vec::new();
    for &form in forms {
        for level in Level::ALL {
            let n = o.normalizer(level, form);
            let Some(k) = key_at(&n, input) else { continue };
            if form == Form::Uri {
                uri_keys.push((level, Some(k.clone())));
            }
            if form == Form::Surt {
                // SURT is written from the URI-form key.
                let u = key_at(&o.normalizer(level, Form::Uri), input)
                    .expect("a SURT key without a URI key");
                assert_eq!(
                    key_at(&n, &u).as_deref(),
                    Some(k.as_str()),
                    "SURT of {input:?} at {level:?} differs from the SURT of its URI key {u:?}"
                );
                continue;
            }
            check_one_key(o, level, form, &orig, &k);
            // Idempotent.
            let kk = key_at(&n, &k);
            assert_eq!(
                kk.as_deref(),
                Some(k.as_str()),
                "not idempotent at {level:?}/{form:?} {o:?}: {input:?} -> {k:?}"
            );
            // key(key(x, L1), L2) == key(x, L2), L1 ≤ L2, same form.
            for l2 in Level::ALL.into_iter().filter(|l2| *l2 > level) {
                let n2 = o.normalizer(l2, form);
                let direct = key_at(&n2, input);
                let via = key_at(&n2, &k);
                if let Some(d) = direct {
                    assert_eq!(
                        via.as_deref(),
                        Some(d.as_str()),
                        "key(key(x,{level:?}),{l2:?}) != key(x,{l2:?}) {form:?} {o:?}: {input:?} -> {k:?}"
                    );
                }
            }
        }
    }
    // Scheme and host from the syntax rung up, on URI-form keys.
    let get = |l: Level| {
        uri_keys
            .iter()
            .find(|(x, _)| *x == l)
            .and_then(|(_, k)| k.clone())
    };
    if let (Some(syn), Some(sch)) = (get(Level::Syntax), get(Level::Scheme)) {
        let (ps, pc) = (parse(&syn).unwrap(), parse(&sch).unwrap());
        let scheme = ps.scheme().unwrap_or_default();
        let dns = irinorm::is_dns_scheme(scheme);
        if ps.host_kind() == Some(HostKind::RegName) && !dns {
            assert_eq!(
                ps.host().map(fold_host),
                pc.host().map(fold_host),
                "host of a non-DNS scheme changed at the scheme rung: {syn:?} -> {sch:?}"
            );
        }
        assert_eq!(
            ps.userinfo(),
            pc.userinfo(),
            "userinfo changed: {syn:?} -> {sch:?}"
        );
        if let Some(pro) = get(Level::Protocol) {
            let pp = parse(&pro).unwrap();
            assert_eq!(pc.scheme(), pp.scheme());
            assert_eq!(pc.userinfo(), pp.userinfo(), "{sch:?} -> {pro:?}");
            assert_eq!(pc.port(), pp.port(), "{sch:?} -> {pro:?}");
            assert_eq!(pc.host_kind(), pp.host_kind(), "{sch:?} -> {pro:?}");
            let (hc, hp) = (pc.host(), pp.host());
            let www_stripped = o.rules.contains(Rule::StripWww)
                && hc
                    .zip(hp)
                    .is_some_and(|(c, p)| c.strip_prefix("www.") == Some(p));
            assert!(
                hc == hp || www_stripped,
                "host changed at the protocol rung: {sch:?} -> {pro:?}"
            );
        }
    }
}

/// The promises of one key `k` of `orig` at `level` in `form` (URI or IRI).
fn check_one_key(o: &Opts, level: Level, form: Form, orig: &IriRef<'_>, k: &str) {
    let input = orig.as_str();
    let kp = parse(k).unwrap_or_else(|e| {
        panic!("{level:?}/{form:?} {o:?}: key {k:?} of {input:?} does not parse: {e}")
    });
    let ctx = || format!("{level:?}/{form:?} {o:?}: {input:?} -> {k:?}");
    if form == Form::Uri && level > Level::String {
        assert!(k.is_ascii(), "URI-form key not ASCII: {}", ctx());
    }
    assert!(kp.is_absolute(), "{}", ctx());
    // Scheme: only its case changes.
    if level > Level::String {
        assert_eq!(
            kp.scheme().map(str::to_owned),
            orig.scheme().map(str::to_ascii_lowercase),
            "scheme changed: {}",
            ctx()
        );
    }
    assert_eq!(
        kp.authority().is_some(),
        orig.authority().is_some(),
        "authority appeared or vanished: {}",
        ctx()
    );
    assert_eq!(
        kp.host_kind(),
        orig.host_kind(),
        "host kind changed: {}",
        ctx()
    );
    if level == Level::Syntax && form == Form::Uri {
        if orig.host_kind() == Some(HostKind::RegName) {
            let o_host = orig.host().map(fold_host);
            let k_host = kp.host().map(fold_host);
            // Raw non-ASCII becomes its UTF-8 percent-encoding, which folds
            // back to the same characters.
            assert_eq!(k_host, o_host, "host changed at the syntax rung: {}", ctx());
        }
        assert_eq!(
            kp.port(),
            orig.port(),
            "port changed at the syntax rung: {}",
            ctx()
        );
    }
    // The path keeps its boundary: rooted stays rooted, rootless stays
    // rootless (an empty path may become "/" from the scheme rung).
    let (op, kp_path) = (orig.path(), kp.path());
    if op.starts_with('/') {
        assert!(kp_path.starts_with('/'), "path lost its root: {}", ctx());
    } else if !op.is_empty() {
        assert!(
            !kp_path.starts_with('/') && !kp_path.is_empty() || level == Level::Protocol,
            "rootless path changed its boundary: {}",
            ctx()
        );
    }
    if level < Level::Protocol {
        assert_eq!(
            kp.query().is_some(),
            orig.query().is_some(),
            "query: {}",
            ctx()
        );
        assert_eq!(
            kp.fragment().is_some(),
            orig.fragment().is_some(),
            "fragment: {}",
            ctx()
        );
    } else {
        assert!(
            orig.query().is_some() || kp.query().is_none(),
            "query appeared: {}",
            ctx()
        );
        assert!(
            orig.fragment().is_some() || kp.fragment().is_none(),
            "fragment appeared: {}",
            ctx()
        );
        if o.rules.contains(Rule::Fragment) {
            assert!(kp.fragment().is_none(), "fragment kept: {}", ctx());
        }
    }
}

/// `to_uri` / `to_iri` as documented in `src/convert.rs`: `to_uri` is
/// ASCII, valid, idempotent and the identity on an ASCII reference without
/// `#` in its fragment; `to_iri` of a URI succeeds and `to_uri(to_iri(u))`
/// succeeds and equals `u` up to syntax normalization (scheme normalization
/// when a DNS host was percent-encoded).
pub fn check_convert(a: &str) {
    use irinorm::{key, to_iri, to_uri};
    if let Ok(i) = to_iri(a) {
        assert!(parse(&i).is_ok(), "to_iri({a:?}) = {i:?} does not parse");
    }
    let Ok(u) = to_uri(a) else { return };
    let u = u.into_owned();
    assert!(u.is_ascii(), "to_uri({a:?}) = {u:?} not ASCII");
    let up = parse(&u).unwrap_or_else(|e| panic!("to_uri({a:?}) = {u:?} does not parse: {e}"));
    let ap = parse(a).expect("to_uri succeeded on an unparsable input");
    assert_eq!(
        up.authority().is_some(),
        ap.authority().is_some(),
        "{a:?} -> {u:?}"
    );
    assert_eq!(up.query().is_some(), ap.query().is_some(), "{a:?} -> {u:?}");
    assert_eq!(
        up.fragment().is_some(),
        ap.fragment().is_some(),
        "{a:?} -> {u:?}"
    );
    let again = to_uri(&u).map(Cow::into_owned).ok();
    assert_eq!(
        again.as_deref(),
        Some(u.as_str()),
        "to_uri not idempotent on {a:?}"
    );
    if a.is_ascii() && ap.fragment().is_none_or(|f| !f.contains('#')) {
        assert_eq!(u, a, "to_uri not the identity on an ASCII reference");
    }
    let i = to_iri(&u).unwrap_or_else(|e| panic!("to_iri({u:?}) failed: {e}"));
    let back = to_uri(&i)
        .unwrap_or_else(|e| panic!("to_uri(to_iri({u:?})) = to_uri({i:?}) failed: {e}"))
        .into_owned();
    if !up.is_absolute() {
        assert!(parse(&back).is_ok());
        return;
    }
    let pct_dns_host = up.host().is_some_and(|h| h.contains('%'))
        && up
            .scheme()
            .is_some_and(|s| irinorm::is_dns_scheme(&s.to_ascii_lowercase()));
    let level = if pct_dns_host {
        Level::Scheme
    } else {
        Level::Syntax
    };
    assert_eq!(
        key(&back, level).ok(),
        key(&u, level).ok(),
        "round trip {u:?} -> {i:?} -> {back:?}"
    );
}

/// RFC 3986 §5.2 on a base and a reference: the target parses, is absolute,
/// takes its scheme and authority where §5.2.2 says, and resolving it again
/// gives it back; keying through [`Normalizer::with_base`] keeps the key
/// promises.
pub fn check_resolve(o: &Opts, base: &str, reference: &str) {
    let (Ok(b), Ok(r)) = (parse(base), parse(reference)) else {
        return;
    };
    if !b.is_absolute() {
        return;
    }
    let t = irinorm::resolve(&b, &r);
    let tp = parse(&t)
        .unwrap_or_else(|e| panic!("resolve({base:?}, {reference:?}) = {t:?} does not parse: {e}"));
    assert!(tp.is_absolute());
    let want_scheme = r.scheme().or(b.scheme());
    assert_eq!(tp.scheme(), want_scheme, "{base:?} + {reference:?} = {t:?}");
    let want_auth = if r.scheme().is_some() || r.authority().is_some() {
        r.authority()
    } else {
        b.authority()
    };
    assert_eq!(
        tp.authority(),
        want_auth,
        "{base:?} + {reference:?} = {t:?}"
    );
    assert_eq!(
        tp.fragment(),
        r.fragment(),
        "{base:?} + {reference:?} = {t:?}"
    );
    // Resolving the target again gives it back — unless the base's own path
    // has dot segments: a fragment- or query-only reference keeps the base
    // path as it is (§5.2.2), while the absolute target has them removed.
    if !irinorm::fuzzing::has_dot_segments(b.path()) {
        let t2 = irinorm::resolve(&b, &tp);
        assert_eq!(
            t2, t,
            "resolving the target again: {base:?} + {reference:?}"
        );
    }
    // The ladder with a base.
    for level in [Level::Syntax, Level::Scheme, Level::Protocol] {
        let Ok(n) = o.normalizer(level, Form::Uri).with_base(base) else {
            return;
        };
        if let Ok(k) = n.key(reference) {
            let kp = parse(&k).unwrap_or_else(|e| panic!("key {k:?} does not parse: {e}"));
            assert!(kp.is_absolute());
            assert_eq!(
                n.key(&k).ok().as_deref(),
                Some(&*k),
                "not idempotent with base {base:?} at {level:?}: {reference:?} -> {k:?}"
            );
            // `with_base` resolves *relative* references (that is its
            // contract, and the CLI's `--base`); an absolute one is keyed as
            // it is — §5.2.2 would also remove dot segments from a rootless
            // path, which the ladder deliberately leaves alone.
            if r.scheme().is_none() {
                assert_eq!(
                    key_at(&o.normalizer(level, Form::Uri), &t).as_deref(),
                    Some(&*k),
                    "key with base differs from the key of the target {t:?}"
                );
            } else {
                assert_eq!(
                    key_at(&o.normalizer(level, Form::Uri), reference).as_deref(),
                    Some(&*k)
                );
            }
        }
    }
}

/// The preprocessor: never panics; without entity decoding idempotent; Web
/// output has no TAB/CR/LF and no surrounding spaces; the identity on a
/// valid IRI reference (LEIRI and Web only change what an IRI cannot hold).
pub fn check_preprocess(mode: Mode, entities: bool, s: &str) {
    let p = Preprocessor::new(mode, entities);
    let mut rep = Repairs::default();
    let once = p.apply(s, &mut rep).into_owned();
    assert_eq!(rep.lines_changed > 0, once != s, "lines_changed for {s:?}");
    if !entities {
        let twice = p.apply(&once, &mut Repairs::default());
        assert_eq!(twice, once, "{mode:?} not idempotent on {s:?}");
        if parse(s).is_ok() {
            assert_eq!(once, s, "{mode:?} changed a valid IRI reference");
        }
    }
    if mode == Mode::Web {
        // In web mode the preprocessor only decodes character references;
        // the URL Standard's parser does the rest (trim, TAB/CR/LF, `\`):
        // its `href` holds none of them and is a fixed point.
        let web = irinorm::web::WebParser::new();
        if let Ok(href) = web.parse(&once, &mut Repairs::default()) {
            let h = href.as_str();
            assert!(
                !h.contains(['\t', '\r', '\n']),
                "href keeps TAB/CR/LF: {s:?} -> {h:?}"
            );
            assert_eq!(h.trim_matches(' '), h, "href not trimmed: {s:?}");
            let again = web
                .parse(h, &mut Repairs::default())
                .map(|x| x.into_string());
            assert_eq!(again.as_deref(), Ok(h), "href is not a fixed point: {s:?}");
        }
    }
}
