//! `Normalizer::key` at every level, under the options chosen by the first
//! two bytes (mode, NFC, form, protocol rule set): every key promise. Then
//! the same reference keyed at the protocol rung with learned rules built
//! from the next bytes (a rules file of every kind `irinorm rules` lists,
//! for the reference's host or its `www.` twin): the key is idempotent and
//! keeps its scheme, user info, port and host, but for the changes a
//! redirect rule names (`www.` on the host, `https-upgrade`).
#![no_main]
use std::sync::Arc;

use irinorm::learn::Learned;
use irinorm::{parse, Form, Level, Normalizer, Options, ProtocolRules};
use libfuzzer_sys::fuzz_target;

/// Kinds of rows and their patterns (redirect kinds first).
const KINDS: &[(&str, &[&str])] = &[
    ("slash-added", &["no-extension", "extension"]),
    ("slash-removed", &["no-extension", "extension"]),
    ("www-added", &["any"]),
    ("www-removed", &["any"]),
    ("https-upgrade", &["any"]),
    ("index-added", &["index:index.html", "index:default.aspx"]),
    ("index-removed", &["index:index.html", "index:default.aspx"]),
    ("ignore-param", &["sid", "id", "a%20b", "é", "x=", ";"]),
    ("alias-slash", &["no-extension", "extension"]),
    ("alias-index", &["index.html", "default.aspx"]),
    ("case-insensitive-path", &["*"]),
    ("query-order", &["*"]),
];
const REDIRECT_KINDS: usize = 7;

/// A rules file for the origin of the scheme-rung key `key`: one row per
/// selector byte pair.
fn rules_file(key: &str, sel: &[u8]) -> Option<String> {
    let r = parse(key).ok()?;
    let host = r.host()?;
    let port = r.port().map(|p| format!(":{p}")).unwrap_or_default();
    let scheme = r.scheme()?;
    let rows: Vec<(usize, u8)> = sel
        .chunks_exact(2)
        .map(|c| (usize::from(c[0]) % KINDS.len(), c[1]))
        .collect();
    let mut t = String::from("#host\tkind\tpattern\tsupport\tcontradictions\n");
    for (k, b) in rows {
        let (kind, patterns) = KINDS[k];
        let pattern = patterns[usize::from(b >> 2) % patterns.len()];
        let host = match (b & 1 == 1, host.strip_prefix("www.")) {
            (false, _) => host.to_owned(),
            (true, Some(h)) => h.to_owned(),
            (true, None) => format!("www.{host}"),
        };
        let scheme = match (b & 2 == 2, scheme) {
            (false, s) => s,
            (true, "https") => "http",
            (true, _) => "https",
        };
        if k < REDIRECT_KINDS {
            t.push_str(&format!("{host}{port}\t{kind}\t{pattern}\t3\t0\n"));
        } else {
            t.push_str(&format!(
                "{scheme}://{host}{port}\t{kind}\t{pattern}\t3\t0\t3\t5\t0\t0.000000\n"
            ));
        }
    }
    Some(t)
}

fn keyer(opts: &irinorm_fuzz::Opts, learned: Option<Learned>) -> Normalizer {
    Normalizer::new(Options {
        level: Level::Protocol,
        form: Form::Uri,
        nfc: opts.nfc,
    })
    .with_protocol(Arc::new(ProtocolRules::new(opts.rules, learned)))
}

/// Without `www.` prefixes (removal chains: www.www.h → h).
fn bare(mut h: &str) -> &str {
    while let Some(r) = h.strip_prefix("www.").filter(|r| !r.is_empty()) {
        h = r;
    }
    h
}

fn check_learned(opts: &irinorm_fuzz::Opts, data: &[u8]) {
    let Some((&n, rest)) = data.split_first() else {
        return;
    };
    let n = 2 * usize::from(n % 8);
    if rest.len() < n {
        return;
    }
    let (sel, url) = rest.split_at(n);
    let url = String::from_utf8_lossy(url);
    let url = opts.preprocess(&url);
    let Ok(scheme_key) = irinorm::key(&url, Level::Scheme) else {
        return;
    };
    let Some(file) = rules_file(&scheme_key, sel) else {
        return;
    };
    let learned = Learned::from_tsv(&file)
        .unwrap_or_else(|e| panic!("generated rules file refused: {e}\n{file}"))
        .merge(Learned::default());
    let (with, without) = (keyer(opts, Some(learned)), keyer(opts, None));
    let (Ok(k), Ok(plain)) = (with.key(&url), without.key(&url)) else {
        assert!(
            with.key(&url).is_err() && without.key(&url).is_err(),
            "learned rules changed whether {url:?} has a key\n{file}"
        );
        return;
    };
    let again = with.key(&k).expect("a key keys");
    assert_eq!(
        again, k,
        "not idempotent with learned rules: {url:?}\n{file}"
    );
    let (a, b) = (parse(&k).unwrap(), parse(&plain).unwrap());
    let ctx = || format!("{url:?} -> {k:?}, without the rules {plain:?}\n{file}");
    assert_eq!(a.userinfo(), b.userinfo(), "{}", ctx());
    assert_eq!(a.port(), b.port(), "{}", ctx());
    let upgraded = file.contains("\thttps-upgrade\t")
        && b.scheme() == Some("http")
        && a.scheme() == Some("https");
    assert!(a.scheme() == b.scheme() || upgraded, "scheme: {}", ctx());
    let (ha, hb) = (a.host().unwrap_or(""), b.host().unwrap_or(""));
    let www = file.contains("\twww-");
    assert!(ha == hb || (www && bare(ha) == bare(hb)), "host: {}", ctx());
}

fuzz_target!(|data: &[u8]| {
    let Some((opts, rest)) = irinorm_fuzz::Opts::split(data) else {
        return;
    };
    let s = String::from_utf8_lossy(rest);
    irinorm_fuzz::check_key(&opts, &s);
    check_learned(&opts, rest);
});
