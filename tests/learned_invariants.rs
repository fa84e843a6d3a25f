//! Learned rules keep the key's promises (3987bis §5.3.4 rules are still
//! a key function): for rules files of every kind `irinorm rules` lists,
//! generated for the host of the reference being keyed, the protocol-rung
//! key with `--learned` is idempotent, and its scheme, user info, port and
//! host are those of the key without the rules — except the changes a
//! redirect rule names (`www-added`/`www-removed` on the host,
//! `https-upgrade` on the scheme).

use std::sync::Arc;

use irinorm::learn::digest::rule_kinds;
use irinorm::learn::Learned;
use irinorm::{parse, Form, Level, Normalizer, Options, ProtocolRules, Rules};
use proptest::prelude::*;
use proptest::sample::select;

/// Every kind of row, with the patterns generated for it.
const KINDS: &[(&str, &[&str])] = &[
    ("slash-added", &["no-extension", "extension"]),
    ("slash-removed", &["no-extension", "extension"]),
    ("www-added", &["any"]),
    ("www-removed", &["any"]),
    ("https-upgrade", &["any"]),
    (
        "index-added",
        &["index:index.html", "index:index.php", "index:default.aspx"],
    ),
    (
        "index-removed",
        &["index:index.html", "index:index.php", "index:default.aspx"],
    ),
    (
        "ignore-param",
        &[
            "sid",
            "id",
            "Sid",
            "utm_source",
            "a%20b",
            "é",
            "x=",
            "=",
            ";",
        ],
    ),
    ("alias-slash", &["no-extension", "extension"]),
    (
        "alias-index",
        &["index.html", "index.php", "default.aspx", "index.htm"],
    ),
    ("case-insensitive-path", &["*"]),
    ("query-order", &["*"]),
];

#[test]
fn every_kind_irinorm_rules_lists_is_generated() {
    let mut listed: Vec<&str> = rule_kinds().iter().map(|k| k.1).collect();
    let mut ours: Vec<&str> = KINDS.iter().map(|k| k.0).collect();
    listed.sort_unstable();
    ours.sort_unstable();
    assert_eq!(listed, ours);
}

fn url() -> impl Strategy<Value = String> {
    let scheme = select(&["http", "https", "HTTP", "ftp", "ws"][..]);
    let host = select(
        &[
            "a.example",
            "www.a.example",
            "A.Example",
            "www.www.a.example",
            "b%2Dc.example",
            "bücher.example",
            "127.0.0.1",
            "[::1]",
            "",
        ][..],
    );
    let port = select(&["", ":80", ":443", ":8080", ":"][..]);
    let seg = select(
        &[
            "",
            "a",
            "A",
            "d",
            "x.y",
            "index.html",
            "INDEX.HTML",
            "index.php",
            "default.aspx",
            "%41",
            "é",
            ".",
            "..",
            "a%2Fb",
        ][..],
    );
    let param = (
        select(&["sid", "id", "Sid", "utm_source", "a%20b", "é", "x", "", ";"][..]),
        select(&["", "=", "=1", "=2", "=a=b", "=%26"][..]),
    );
    (
        scheme,
        host,
        port,
        prop::collection::vec(seg, 0..4),
        any::<bool>(),
        prop::option::of(prop::collection::vec(param, 0..5)),
        prop::option::of(select(&["", "f", "a?b"][..])),
    )
        .prop_map(|(s, h, p, segs, slash, query, frag)| {
            let mut u = format!("{s}://{h}{p}");
            for seg in segs {
                u.push('/');
                u.push_str(seg);
            }
            if slash {
                u.push('/');
            }
            if let Some(q) = query {
                let q: Vec<String> = q.iter().map(|(n, v)| format!("{n}{v}")).collect();
                u.push('?');
                u.push_str(&q.join("&"));
            }
            if let Some(f) = frag {
                u.push('#');
                u.push_str(f);
            }
            u
        })
}

/// A rules file for the origin of `key` (the scheme-rung key of the
/// reference): each row one kind and pattern, for that host or its `www.`
/// twin, that scheme or the other.
fn rules_file(key: &str, rows: &[(usize, usize, bool, bool)]) -> String {
    let r = parse(key).expect("keys parse");
    let host = r.host().unwrap_or("");
    let port = r.port().map(|p| format!(":{p}")).unwrap_or_default();
    let scheme = r.scheme().unwrap_or("http");
    let mut t = String::from("#host\tkind\tpattern\tsupport\tcontradictions\n");
    for &(kind, pattern, twin, other_scheme) in rows {
        let (kind, patterns) = KINDS[kind % KINDS.len()];
        let pattern = patterns[pattern % patterns.len()];
        let host = match (twin, host.strip_prefix("www.")) {
            (false, _) => host.to_owned(),
            (true, Some(h)) => h.to_owned(),
            (true, None) => format!("www.{host}"),
        };
        let scheme = match (other_scheme, scheme) {
            (false, s) => s,
            (true, "https") => "http",
            (true, _) => "https",
        };
        let redirect = KINDS.iter().position(|k| k.0 == kind).unwrap() < 7;
        if redirect {
            t.push_str(&format!("{host}{port}\t{kind}\t{pattern}\t3\t0\n"));
        } else {
            t.push_str(&format!(
                "{scheme}://{host}{port}\t{kind}\t{pattern}\t3\t0\t3\t5\t0\t0.000000\n"
            ));
        }
    }
    t
}

fn keyer(rules: Rules, learned: Option<Learned>, form: Form) -> Normalizer {
    Normalizer::new(Options {
        level: Level::Protocol,
        form,
        nfc: false,
    })
    .with_protocol(Arc::new(ProtocolRules::new(rules, learned)))
}

fn check(
    url: &str,
    rows: &[(usize, usize, bool, bool)],
    rules: Rules,
) -> Result<(), TestCaseError> {
    let Ok(scheme_key) = irinorm::key(url, Level::Scheme) else {
        return Ok(());
    };
    let file = rules_file(&scheme_key, rows);
    // Rows are judged together as `--learned` does (`merge`): rows that
    // contradict each other are set aside, never applied.
    let learned = Learned::from_tsv(&file)
        .map_err(|e| TestCaseError::fail(format!("{e}\n{file}")))?
        .merge(Learned::default());
    let names: Vec<&str> = file
        .lines()
        .skip(1)
        .map(|l| l.split('\t').nth(1).unwrap())
        .collect();
    for form in [Form::Uri, Form::Iri] {
        let with = keyer(rules, Some(learned.clone()), form);
        let without = keyer(rules, None, form);
        let (Ok(k), Ok(plain)) = (with.key(url), without.key(url)) else {
            prop_assert!(
                with.key(url).is_err() && without.key(url).is_err(),
                "{url}\n{file}"
            );
            continue;
        };
        let again = with
            .key(&k)
            .map_err(|e| TestCaseError::fail(format!("{k}: {e}")))?;
        prop_assert_eq!(&again, &k, "not idempotent: {} {:?}\n{}", url, form, file);
        let (a, b) = (parse(&k).unwrap(), parse(&plain).unwrap());
        prop_assert_eq!(a.userinfo(), b.userinfo(), "{} -> {} / {}", url, k, plain);
        prop_assert_eq!(a.port(), b.port(), "{} -> {} / {}", url, k, plain);
        let upgraded = names.contains(&"https-upgrade")
            && b.scheme() == Some("http")
            && a.scheme() == Some("https");
        prop_assert!(
            a.scheme() == b.scheme() || upgraded,
            "scheme: {url} -> {k} / {plain}\n{file}"
        );
        let www = names.iter().any(|n| n.starts_with("www-"));
        let (ha, hb) = (a.host().unwrap_or(""), b.host().unwrap_or(""));
        // `www.` removal chains (www.www.h → www.h → h).
        let bare = |h: &str| {
            let mut h = h.to_owned();
            while let Some(r) = h.strip_prefix("www.").filter(|r| !r.is_empty()) {
                h = r.to_owned();
            }
            h
        };
        let twins = bare(ha) == bare(hb);
        prop_assert!(
            ha == hb || (www && twins),
            "host: {url} -> {k} / {plain}\n{file}"
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn learned_rules_keep_the_key_invariants(
        u in url(),
        rows in prop::collection::vec((any::<usize>(), any::<usize>(), any::<bool>(), any::<bool>()), 0..8),
        defaults in any::<bool>(),
    ) {
        let rules = if defaults { Rules::default() } else { Rules::NONE };
        check(&u, &rows, rules)?;
    }
}

/// Each kind alone, on a reference it applies to.
#[test]
fn each_kind_alone() {
    let url = "http://www.a.example/d/Index.html?b=2&sid=1&a=1#f";
    for (kind, (_, patterns)) in KINDS.iter().enumerate() {
        for pattern in 0..patterns.len() {
            for twin in [false, true] {
                check(url, &[(kind, pattern, twin, false)], Rules::NONE).unwrap();
                check(url, &[(kind, pattern, twin, false)], Rules::default()).unwrap();
            }
        }
    }
}
