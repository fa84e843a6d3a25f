//! Reproducible benchmark corpus generator for `irinorm dedup`.
//!
//! ```text
//! cargo run --release --example gen_corpus -- --lines 5000000 --seed 1 -o bench-data/corpus-5m.txt
//! ```
//!
//! Options: `--lines N` (default 5000000; `5M`, `500k` accepted), `--seed S`
//! (default 1), `-o PATH` (default stdout), `--data DIR` (default `data`),
//! `--repeat P` (default 0.60), `--invalid P` (default 0.005).
//! The same arguments always give byte-identical output (own splitmix64 PRNG,
//! no hash-map iteration order involved, no clock, no threads).
//!
//! # Recipe
//!
//! **Seeds** (≈110 k real URLs, read from `data/`): `kasztp.txt` (BOM
//! stripped), `node_files.txt`, `isaacs_files.txt`, the `base` column of
//! `relative_urls_cc_10k.csv`, and its `relative` column *resolved-ish*
//! against the base by plain string splicing (`//x` takes the scheme, `/x`
//! the authority, `?q` the path, `#f` the whole base, `x` the base's
//! directory), so `./` and `../` segments are kept as the web writes them.
//! Seed lines containing characters that are never valid in an IRI (space,
//! `\`, `"`, `<>`, `^`, `` ` ``, `{|}`, controls) are left out; invalid
//! lines are produced on purpose instead (below).
//!
//! **Fresh URLs** (new distinct URLs, ≈ 40 % of lines): a random seed, kept as
//! is (15 %) or changed by one or two realistic mutations: an id query
//! parameter (`?id=N`, `&page=N`), a path segment harvested from the seeds
//! (replace last / insert), a host graft (host of one http(s) seed, path of
//! another), a subdomain prefix (`www.`, `m.`, `en.` …), a raw-Unicode path
//! segment (`café`, `日本語`, `ঝালকাঠি` …) or an IDN host (`münchen.de`,
//! `пример.рф`, `例え.jp` …, written in Unicode or punycode). Fresh URLs are
//! distinct strings (checked with a 64-bit hash set).
//!
//! **Line mix** (per line, independent draws):
//! * 0.5 % invalid: a known URL with a space in the path, `\%C3\%A9`-style
//!   escaped percents (as in kasztp.txt), a bad escape `%zz`/`%G1`, or a
//!   dangling `%`;
//! * 2 % fragment: a known URL with a fragment added (`#top`, `#section-2`) —
//!   a *different* key at the scheme rung (fragments are compared), counted
//!   separately;
//! * `--repeat` (60 %) repeat of a known URL, picked Zipf-like (30 %
//!   log-uniform over the first-seen order, i.e. Zipf s≈1 with an early heavy
//!   head; 70 % `n·u²`, a long tail): half of them exact, half a *spelling
//!   variant*;
//! * otherwise a fresh URL, written as a spelling variant 10 % of the time
//!   (so the first-seen spelling is not always the canonical one).
//!
//! **Spelling variants** (1–3 of these, all equal at the scheme rung): scheme
//! case (`HTTP:`), host case (`Example.COM`, `MÜNCHEN.DE`), explicit default
//! port (`:80` http, `:443` https), empty port (`host:`), percent-encoded
//! unreserved characters (`%7E`, `%41`, upper or lower hex), hex case of
//! existing escapes (`%c3%a9` vs `%C3%A9`), dot segments (`/a/./b`,
//! `/a/x/../b`), IDN ↔ punycode host, raw UTF-8 ↔ percent-encoded UTF-8 in
//! the path, empty path ↔ `/` (http/https).
//!
//! The summary on stderr gives the number of fresh URLs, which is (up to
//! accidental equivalences between seeds) the number of distinct valid keys
//! at the scheme rung minus the fragment lines.

use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::{BufWriter, Write};

// ---------------------------------------------------------------- PRNG

struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        // splitmix64
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn below(&mut self, n: usize) -> usize {
        ((self.next_u64() as u128 * n as u128) >> 64) as usize
    }
    fn chance(&mut self, p: f64) -> bool {
        self.f64() < p
    }
    fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
}

// ---------------------------------------------------------------- URL parts

#[derive(Clone, Debug)]
struct Url {
    scheme: String,
    /// `Some` when there is an authority (`//`).
    userinfo: Option<String>,
    host: Option<String>,
    /// `Some("")` is an empty port (`host:`).
    port: Option<String>,
    path: String,
    query: Option<String>,
    fragment: Option<String>,
}

impl Url {
    fn split(s: &str) -> Option<Url> {
        let colon = s.find(':')?;
        let scheme = &s[..colon];
        let mut it = scheme.bytes();
        if !it.next()?.is_ascii_alphabetic()
            || !it.all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
        {
            return None;
        }
        let mut rest = &s[colon + 1..];
        let (mut userinfo, mut host, mut port) = (None, None, None);
        if let Some(r) = rest.strip_prefix("//") {
            let end = r.find(['/', '?', '#']).unwrap_or(r.len());
            let auth = &r[..end];
            rest = &r[end..];
            let hostport = match auth.rfind('@') {
                Some(at) => {
                    userinfo = Some(auth[..at].to_string());
                    &auth[at + 1..]
                }
                None => auth,
            };
            let after_bracket = hostport.rfind(']').map_or(0, |i| i + 1);
            match hostport[after_bracket..].rfind(':') {
                Some(c) => {
                    host = Some(hostport[..after_bracket + c].to_string());
                    port = Some(hostport[after_bracket + c + 1..].to_string());
                }
                None => host = Some(hostport.to_string()),
            }
        }
        let (before_frag, fragment) = match rest.find('#') {
            Some(i) => (&rest[..i], Some(rest[i + 1..].to_string())),
            None => (rest, None),
        };
        let (path, query) = match before_frag.find('?') {
            Some(i) => (&before_frag[..i], Some(before_frag[i + 1..].to_string())),
            None => (before_frag, None),
        };
        Some(Url {
            scheme: scheme.to_string(),
            userinfo,
            host,
            port,
            path: path.to_string(),
            query,
            fragment,
        })
    }

    fn write(&self, out: &mut String) {
        out.push_str(&self.scheme);
        out.push(':');
        if let Some(h) = &self.host {
            out.push_str("//");
            if let Some(u) = &self.userinfo {
                out.push_str(u);
                out.push('@');
            }
            out.push_str(h);
            if let Some(p) = &self.port {
                out.push(':');
                out.push_str(p);
            }
        }
        out.push_str(&self.path);
        if let Some(q) = &self.query {
            out.push('?');
            out.push_str(q);
        }
        if let Some(f) = &self.fragment {
            out.push('#');
            out.push_str(f);
        }
    }

    fn to_text(&self) -> String {
        let mut s = String::with_capacity(96);
        self.write(&mut s);
        s
    }

    fn is_http(&self) -> bool {
        self.scheme.eq_ignore_ascii_case("http") || self.scheme.eq_ignore_ascii_case("https")
    }
}

fn never_valid(s: &str) -> bool {
    s.bytes()
        .any(|b| b <= 0x20 || b == 0x7F || b"\\\"<>^`{|}".contains(&b))
}

// ---------------------------------------------------------------- tables

const IDN_HOSTS: &[&str] = &[
    "münchen.de",
    "bücher.de",
    "köln.de",
    "zürich.ch",
    "société.fr",
    "españa.example",
    "пример.рф",
    "москва.рф",
    "例え.jp",
    "日本語.jp",
    "ελληνικά.gr",
    "中国.cn",
    "bibliothèque.example",
    "çağrı.com.tr",
    "ঝালকাঠি.bd",
    "häuser.at",
];

const UNICODE_SEGMENTS: &[&str] = &[
    "café",
    "straße",
    "日本語",
    "Москва",
    "ঝালকাঠি_সদর_উপজেলা",
    "Ελλάδα",
    "naïve",
    "über-uns",
    "北京",
    "Высокое_качество",
    "São_Paulo",
    "Gröbner_basis",
];

const SUBDOMAINS: &[&str] = &[
    "www", "m", "en", "de", "blog", "shop", "api", "static", "cdn", "mail",
];
const QUERY_KEYS: &[&str] = &["id", "page", "p", "ref", "utm_source", "s", "lang", "v"];
const FRAGMENTS: &[&str] = &["top", "section-2", "comments", "main", "", "intro", "p1"];
const DOT_SEGMENTS: &[&str] = &["./", "x/../", "a/./../", "tmp/../", "././"];

// ---------------------------------------------------------------- generator

struct Gen {
    rng: Rng,
    seeds: Vec<Url>,
    http_hosts: Vec<String>,
    segments: Vec<String>,
    /// First-seen (canonical) spellings, in order: one arena + end offsets.
    arena: String,
    ends: Vec<usize>,
    seen: HashSet<u64>,
}

fn h64(s: &str) -> u64 {
    let mut h = DefaultHasher::new();
    s.hash(&mut h);
    h.finish()
}

impl Gen {
    fn history(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.arena[start..self.ends[i]]
    }

    /// Zipf-like pick of an earlier URL.
    fn pick_known(&mut self) -> String {
        let n = self.ends.len();
        let i = if self.rng.chance(0.3) {
            ((n as f64).powf(self.rng.f64()) as usize).saturating_sub(1)
        } else {
            let u = self.rng.f64();
            (n as f64 * u * u) as usize
        };
        self.history(i.min(n - 1)).to_string()
    }

    fn fresh(&mut self) -> String {
        loop {
            let mut u = self.rng.pick(&self.seeds).clone();
            if !self.rng.chance(0.15) {
                let k = 1 + self.rng.below(2);
                for _ in 0..k {
                    self.mutate(&mut u);
                }
            }
            let s = u.to_text();
            if self.seen.insert(h64(&s)) {
                self.arena.push_str(&s);
                self.ends.push(self.arena.len());
                return s;
            }
        }
    }

    fn mutate(&mut self, u: &mut Url) {
        let r = self.rng.below(100);
        match r {
            0..=29 if u.is_http() || u.query.is_some() => {
                let key = *self.rng.pick(QUERY_KEYS);
                let n = (1e6f64).powf(self.rng.f64()) as u64;
                match &mut u.query {
                    Some(q) if self.rng.chance(0.5) => {
                        if !q.is_empty() {
                            q.push('&');
                        }
                        q.push_str(&format!("{key}={n}"));
                    }
                    q => *q = Some(format!("{key}={n}")),
                }
            }
            30..=54 => {
                if self.segments.is_empty() {
                    return;
                }
                let seg = self.rng.pick(&self.segments).clone();
                if !u.path.starts_with('/') {
                    u.path = format!("/{seg}");
                    return;
                }
                let last = u.path.rfind('/').unwrap();
                if self.rng.chance(0.5) {
                    u.path.truncate(last + 1);
                    u.path.push_str(&seg);
                } else {
                    u.path.insert_str(last + 1, &format!("{seg}/"));
                }
            }
            55..=74 if u.is_http() && !self.http_hosts.is_empty() => {
                u.host = Some(self.rng.pick(&self.http_hosts).clone());
                u.port = None;
                u.userinfo = None;
            }
            75..=84 if u.is_http() => {
                let sub = self.rng.pick(SUBDOMAINS);
                let h = u.host.take().unwrap_or_default();
                let h = h.strip_prefix("www.").unwrap_or(&h).to_string();
                u.host = Some(format!("{sub}.{h}"));
            }
            85..=92 => {
                let seg = self.rng.pick(UNICODE_SEGMENTS);
                if !u.path.starts_with('/') {
                    u.path = format!("/{seg}");
                } else {
                    let last = u.path.rfind('/').unwrap();
                    u.path.truncate(last + 1);
                    u.path.push_str(seg);
                }
            }
            93..=99 if u.is_http() => {
                let h = *self.rng.pick(IDN_HOSTS);
                let h = if self.rng.chance(0.3) {
                    format!("www.{h}")
                } else {
                    h.to_string()
                };
                u.host = Some(if self.rng.chance(0.5) {
                    idna::domain_to_ascii(&h).unwrap_or(h)
                } else {
                    h
                });
                u.port = None;
                u.userinfo = None;
            }
            _ => {}
        }
    }

    /// A spelling of `s` that is equal at the scheme rung.
    fn variant(&mut self, s: &str) -> String {
        let Some(mut u) = Url::split(s) else {
            return s.to_string();
        };
        let k = 1 + self.rng.below(3);
        let mut used = [false; V_COUNT];
        for _ in 0..k {
            let ops: Vec<V> = V::ALL
                .iter()
                .copied()
                .filter(|&op| !used[op as usize] && applicable(&u, op))
                .collect();
            if ops.is_empty() {
                break;
            }
            let op = *self.rng.pick(&ops);
            used[op as usize] = true;
            self.apply(&mut u, op);
        }
        let mut out = u.to_text();
        if out == s {
            self.apply(&mut u, V::SchemeCase);
            out = u.to_text();
        }
        out
    }

    fn apply(&mut self, u: &mut Url, op: V) {
        match op {
            V::SchemeCase => {
                let s: String = u.scheme.to_ascii_uppercase();
                // Mixed or full upper case, never all lower.
                u.scheme = if self.rng.chance(0.5) {
                    s
                } else {
                    let mut m: String = u.scheme.to_ascii_lowercase();
                    m.replace_range(0..1, &s[0..1]);
                    m
                };
            }
            V::HostCase => {
                let h = u.host.as_mut().unwrap();
                if !h.is_ascii() || self.rng.chance(0.5) {
                    *h = h.to_uppercase();
                } else {
                    // Capitalize each label: Example.Com
                    let mut cap = true;
                    *h = h
                        .chars()
                        .map(|c| {
                            let c2 = if cap { c.to_ascii_uppercase() } else { c };
                            cap = c == '.';
                            c2
                        })
                        .collect();
                }
            }
            V::DefaultPort => {
                let https = u.scheme.eq_ignore_ascii_case("https");
                u.port = Some(if https { "443" } else { "80" }.into());
            }
            V::EmptyPort => u.port = Some(String::new()),
            V::PctUnreserved => {
                let pos = encodable_positions(&u.path);
                let i = *self.rng.pick(&pos);
                let b = u.path.as_bytes()[i];
                let enc = if self.rng.chance(0.7) {
                    format!("%{b:02X}")
                } else {
                    format!("%{b:02x}")
                };
                u.path.replace_range(i..i + 1, &enc);
            }
            V::HexCase => {
                flip_hex_case(&mut u.path);
                if let Some(q) = &mut u.query {
                    flip_hex_case(q);
                }
                if let Some(f) = &mut u.fragment {
                    flip_hex_case(f);
                }
            }
            V::DotSegments => {
                let slashes: Vec<usize> = u.path.match_indices('/').map(|(i, _)| i).collect();
                let at = *self.rng.pick(&slashes) + 1;
                let d = *self.rng.pick(DOT_SEGMENTS);
                u.path.insert_str(at, d);
            }
            V::Idn => {
                let h = u.host.as_mut().unwrap();
                if h.is_ascii() {
                    let (uni, r) = idna::domain_to_unicode(h);
                    if r.is_ok() {
                        *h = uni;
                    }
                } else if let Ok(a) = idna::domain_to_ascii(h) {
                    *h = a;
                }
            }
            V::Utf8Path => {
                if u.path.is_ascii() {
                    u.path = decode_utf8_escapes(&u.path);
                } else {
                    let mut o = String::with_capacity(u.path.len() * 3);
                    for c in u.path.chars() {
                        if c.is_ascii() {
                            o.push(c);
                        } else {
                            let mut buf = [0; 4];
                            for b in c.encode_utf8(&mut buf).bytes() {
                                o.push_str(&format!("%{b:02X}"));
                            }
                        }
                    }
                    u.path = o;
                }
            }
            V::EmptyPath => {
                if u.path.is_empty() {
                    u.path.push('/');
                } else {
                    u.path.clear();
                }
            }
        }
    }

    fn invalid(&mut self) -> String {
        let s = self.pick_known();
        let Some(mut u) = Url::split(&s) else {
            return format!("{s} x");
        };
        let insert_at = |u: &Url, rng: &mut Rng| -> usize {
            let idx: Vec<usize> = u
                .path
                .char_indices()
                .map(|(i, _)| i)
                .chain([u.path.len()])
                .collect();
            *rng.pick(&idx)
        };
        match self.rng.below(4) {
            0 => {
                let at = insert_at(&u, &mut self.rng);
                u.path.insert_str(at, if at == 0 { "/a b" } else { " x" });
            }
            1 => {
                if u.path.contains('%') {
                    u.path = u.path.replace('%', "\\%");
                } else {
                    u.path.push_str("/Gr\\%C3\\%B6bner");
                }
            }
            2 => {
                let at = insert_at(&u, &mut self.rng);
                u.path
                    .insert_str(at, if self.rng.chance(0.5) { "%zz" } else { "%G1" });
            }
            _ => {
                u.query = None;
                u.fragment = None;
                u.path.push('%');
            }
        }
        u.to_text()
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum V {
    SchemeCase,
    HostCase,
    DefaultPort,
    EmptyPort,
    PctUnreserved,
    HexCase,
    DotSegments,
    Idn,
    Utf8Path,
    EmptyPath,
}
const V_COUNT: usize = 10;

impl V {
    const ALL: [V; V_COUNT] = [
        V::SchemeCase,
        V::HostCase,
        V::DefaultPort,
        V::EmptyPort,
        V::PctUnreserved,
        V::HexCase,
        V::DotSegments,
        V::Idn,
        V::Utf8Path,
        V::EmptyPath,
    ];
}

fn applicable(u: &Url, op: V) -> bool {
    let host = u.host.as_deref().unwrap_or("");
    match op {
        V::SchemeCase => true,
        V::HostCase => host.chars().any(|c| c.is_lowercase()),
        V::DefaultPort | V::EmptyPort => u.is_http() && u.port.is_none() && !host.is_empty(),
        V::PctUnreserved => !encodable_positions(&u.path).is_empty(),
        V::HexCase => [Some(&u.path), u.query.as_ref(), u.fragment.as_ref()]
            .into_iter()
            .flatten()
            .any(|s| has_hex_letter_escape(s)),
        V::DotSegments => u.path.starts_with('/'),
        V::Idn => {
            u.is_http()
                && ((!host.is_ascii() && idna::domain_to_ascii(host).is_ok())
                    || host.split('.').any(|l| l.starts_with("xn--")))
        }
        V::Utf8Path => !u.path.is_ascii() || decode_utf8_escapes(&u.path) != u.path,
        V::EmptyPath => u.is_http() && !host.is_empty() && (u.path.is_empty() || u.path == "/"),
    }
}

/// Byte positions of unreserved ASCII characters (not `.`, not inside a
/// `%HH` triplet) in `path`.
fn encodable_positions(path: &str) -> Vec<usize> {
    let b = path.as_bytes();
    let mut v = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            i += 3;
            continue;
        }
        if b[i].is_ascii_alphanumeric() || b"-_~".contains(&b[i]) {
            v.push(i);
        }
        i += 1;
    }
    v
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

fn has_hex_letter_escape(s: &str) -> bool {
    let b = s.as_bytes();
    (0..b.len().saturating_sub(2)).any(|i| {
        b[i] == b'%'
            && hex(b[i + 1]).is_some()
            && hex(b[i + 2]).is_some()
            && (b[i + 1].is_ascii_alphabetic() || b[i + 2].is_ascii_alphabetic())
    })
}

/// `%c3%a9` ⇄ `%C3%A9` for every valid triplet.
fn flip_hex_case(s: &mut String) {
    let mut b = std::mem::take(s).into_bytes();
    let mut i = 0;
    while i + 2 < b.len() {
        if b[i] == b'%' && hex(b[i + 1]).is_some() && hex(b[i + 2]).is_some() {
            for j in [i + 1, i + 2] {
                if b[j].is_ascii_uppercase() {
                    b[j] = b[j].to_ascii_lowercase();
                } else {
                    b[j] = b[j].to_ascii_uppercase();
                }
            }
            i += 3;
        } else {
            i += 1;
        }
    }
    *s = String::from_utf8(b).expect("ASCII-only change");
}

fn is_ucschar(c: char) -> bool {
    let c = c as u32;
    c >= 0xA0
        && !(0xD800..=0xF8FF).contains(&c)
        && !(0xFDD0..=0xFDEF).contains(&c)
        && (c & 0xFFFE) != 0xFFFE
        && c < 0xE0000
}

/// Decode runs of `%HH` (all ≥ 0x80) that form valid UTF-8 of ucschars.
fn decode_utf8_escapes(path: &str) -> String {
    let b = path.as_bytes();
    let mut out = String::with_capacity(path.len());
    let mut i = 0;
    let mut copied = 0;
    while i < b.len() {
        let mut j = i;
        let mut bytes = Vec::new();
        while j + 2 < b.len() && b[j] == b'%' {
            match (hex(b[j + 1]), hex(b[j + 2])) {
                (Some(h), Some(l)) if h * 16 + l >= 0x80 => {
                    bytes.push(h * 16 + l);
                    j += 3;
                }
                _ => break,
            }
        }
        if !bytes.is_empty() {
            if let Ok(t) = std::str::from_utf8(&bytes) {
                if t.chars().all(is_ucschar) {
                    out.push_str(&path[copied..i]);
                    out.push_str(t);
                    copied = j;
                }
            }
            i = j;
        } else {
            i += 1;
        }
    }
    out.push_str(&path[copied..]);
    out
}

// ---------------------------------------------------------------- seeds

fn read(dir: &str, name: &str) -> String {
    let p = format!("{dir}/{name}");
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

/// Splice a relative reference onto its base without dot-segment removal.
fn resolve_ish(base: &Url, rel: &str) -> Option<String> {
    let mut b = base.clone();
    if rel.is_empty() || rel == "#" {
        return None;
    }
    if let Some(r) = rel.strip_prefix("//") {
        return Some(format!("{}://{r}", base.scheme));
    }
    b.fragment = None;
    if let Some(f) = rel.strip_prefix('#') {
        b.fragment = Some(f.to_string());
    } else if let Some(q) = rel.strip_prefix('?') {
        b.query = Some(q.to_string());
    } else {
        b.query = None;
        let (path, query) = match rel.split_once('?') {
            Some((p, q)) => (p, Some(q.to_string())),
            None => (rel, None),
        };
        let (path, frag) = match path.split_once('#') {
            Some((p, f)) => (p.to_string(), Some(f.to_string())),
            None => (path.to_string(), None),
        };
        if path.starts_with('/') {
            b.path = path;
        } else {
            let dir = b.path.rfind('/').map_or("/", |i| &b.path[..=i]).to_string();
            b.path = dir + &path;
        }
        b.query = query;
        b.fragment = frag;
    }
    Some(b.to_text())
}

fn load_seeds(dir: &str) -> Vec<Url> {
    let mut lines: Vec<String> = Vec::new();
    for name in ["kasztp.txt", "node_files.txt", "isaacs_files.txt"] {
        let t = read(dir, name);
        let t = t.strip_prefix('\u{FEFF}').unwrap_or(&t);
        lines.extend(t.lines().map(str::to_string));
    }
    let csv = read(dir, "relative_urls_cc_10k.csv");
    for row in csv.lines().skip(1) {
        let Some((base, rel)) = row.split_once(',') else {
            continue;
        };
        lines.push(base.to_string());
        if let Some(bu) = Url::split(base) {
            if let Some(r) = resolve_ish(&bu, rel) {
                lines.push(r);
            }
        }
    }
    lines
        .iter()
        .filter(|l| !l.is_empty() && !never_valid(l))
        .filter_map(|l| Url::split(l))
        .collect()
}

// ---------------------------------------------------------------- main

fn parse_count(s: &str) -> u64 {
    let s = s.replace('_', "");
    let (num, mul) = match s.chars().last() {
        Some('k' | 'K') => (&s[..s.len() - 1], 1e3),
        Some('m' | 'M') => (&s[..s.len() - 1], 1e6),
        Some('g' | 'G') => (&s[..s.len() - 1], 1e9),
        _ => (&s[..], 1.0),
    };
    let v: f64 = num.parse().unwrap_or_else(|_| panic!("bad count {s:?}"));
    (v * mul) as u64
}

fn main() -> std::io::Result<()> {
    let mut lines = 5_000_000u64;
    let mut seed = 1u64;
    let mut out_path: Option<String> = None;
    let mut dir = "data".to_string();
    let mut p_repeat = 0.60;
    let mut p_invalid = 0.005;
    let p_fragment = 0.02;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().unwrap_or_else(|| panic!("{a} needs a value"));
        match a.as_str() {
            "--lines" | "-n" => lines = parse_count(&val()),
            "--seed" => seed = val().parse().expect("--seed: integer"),
            "-o" | "--output" => out_path = Some(val()),
            "--data" => dir = val(),
            "--repeat" => p_repeat = val().parse().expect("--repeat: float"),
            "--invalid" => p_invalid = val().parse().expect("--invalid: float"),
            "-h" | "--help" => {
                eprintln!(
                    "gen_corpus [--lines N] [--seed S] [-o PATH] [--data DIR] [--repeat P] [--invalid P]"
                );
                return Ok(());
            }
            _ => panic!("unknown argument {a:?}"),
        }
    }

    let seeds = load_seeds(&dir);
    let mut http_hosts = Vec::new();
    let mut segments = Vec::new();
    for u in &seeds {
        if u.is_http() {
            if let Some(h) = &u.host {
                if h.is_ascii() && !h.is_empty() {
                    http_hosts.push(h.clone());
                }
            }
        }
        for seg in u.path.split('/') {
            if (1..=40).contains(&seg.len()) && seg.is_ascii() && seg != "." && seg != ".." {
                segments.push(seg.to_string());
            }
        }
    }
    let mut g = Gen {
        rng: Rng(seed),
        seeds,
        http_hosts,
        segments,
        arena: String::new(),
        ends: Vec::new(),
        seen: HashSet::new(),
    };

    let sink: Box<dyn Write> = match &out_path {
        Some(p) => {
            if let Some(parent) = std::path::Path::new(p).parent() {
                if !parent.as_os_str().is_empty() {
                    std::fs::create_dir_all(parent)?;
                }
            }
            Box::new(std::fs::File::create(p)?)
        }
        None => Box::new(std::io::stdout().lock()),
    };
    let mut w = BufWriter::with_capacity(1 << 20, sink);

    let (mut n_fresh, mut n_fresh_var, mut n_exact, mut n_var, mut n_frag, mut n_inv) =
        (0u64, 0u64, 0u64, 0u64, 0u64, 0u64);
    let mut bytes = 0u64;
    let mut distinct_lines: HashSet<u64> = HashSet::new();
    for _ in 0..lines {
        let r = g.rng.f64();
        let have = !g.ends.is_empty();
        let line = if have && r < p_invalid {
            n_inv += 1;
            g.invalid()
        } else if have && r < p_invalid + p_fragment {
            n_frag += 1;
            let s = g.pick_known();
            let f = *g.rng.pick(FRAGMENTS);
            match s.split_once('#') {
                Some((a, _)) => format!("{a}#{f}"),
                None => format!("{s}#{f}"),
            }
        } else if have && r < p_invalid + p_fragment + p_repeat {
            let s = g.pick_known();
            if g.rng.chance(0.5) {
                n_exact += 1;
                s
            } else {
                n_var += 1;
                g.variant(&s)
            }
        } else {
            n_fresh += 1;
            let s = g.fresh();
            if g.rng.chance(0.10) {
                n_fresh_var += 1;
                g.variant(&s)
            } else {
                s
            }
        };
        bytes += line.len() as u64 + 1;
        distinct_lines.insert(h64(&line));
        w.write_all(line.as_bytes())?;
        w.write_all(b"\n")?;
    }
    w.flush()?;

    let pct = |x: u64| 100.0 * x as f64 / lines.max(1) as f64;
    eprintln!(
        "gen_corpus: seed {seed}, {} seeds from {dir}/ -> {}",
        g.seeds.len(),
        out_path.as_deref().unwrap_or("<stdout>")
    );
    eprintln!("  lines              {lines}");
    eprintln!(
        "  bytes              {bytes} ({:.1} MB, avg {:.1} B/line)",
        bytes as f64 / 1e6,
        bytes as f64 / lines.max(1) as f64
    );
    eprintln!(
        "  distinct lines     {} ({:.1}%)",
        distinct_lines.len(),
        pct(distinct_lines.len() as u64)
    );
    eprintln!(
        "  fresh URLs         {n_fresh} ({:.1}%), of which written as a variant: {n_fresh_var}",
        pct(n_fresh)
    );
    eprintln!("  exact repeats      {n_exact} ({:.1}%)", pct(n_exact));
    eprintln!("  variant repeats    {n_var} ({:.1}%)", pct(n_var));
    eprintln!(
        "  all variants       {} ({:.1}%)",
        n_var + n_fresh_var,
        pct(n_var + n_fresh_var)
    );
    eprintln!(
        "  fragment added     {n_frag} ({:.1}%)  (distinct keys at the scheme rung)",
        pct(n_frag)
    );
    eprintln!("  invalid            {n_inv} ({:.2}%)", pct(n_inv));
    Ok(())
}
