//! Evaluation of rules learned from content digests (`irinorm::learn::digest`)
//! on a generated crawl with planted rules.
//!
//! ```text
//! cargo run --release --example dust_eval [-- SEED [CAPTURES_PER_HOST [WINDOW_DAYS [MIN_EVIDENCE]]]]
//! ```
//!
//! Every host has a ground truth: which query parameters select content,
//! which are noise (session ids, tracking, cache busters, a `sort` the
//! server ignores), and which path spellings are aliases (trailing slash,
//! `index.html`, ASCII case). Content changes over time (a page's digest
//! changes every `period` days), captures come from 24 monthly crawl passes
//! of two days each, and
//! some hosts have few captures. The crawl is learned from; the evaluation
//! set is *fresh* URLs of the same pages (noise parameters take values never
//! seen in the crawl; no evaluation URL is in the crawl; evaluation URLs are
//! distinct, so equal strings never count as a merge). A pair of
//! evaluation URLs on one origin is *truly duplicate* when the ground truth
//! gives the same content; it is *merged* when the protocol-rung keys are
//! equal. Precision = truly duplicate merged pairs / merged pairs; recall =
//! truly duplicate merged pairs / truly duplicate pairs.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Instant;

use irinorm::learn::digest::{learn, DigestOptions, DigestRecord};
use irinorm::learn::Learned;
use irinorm::{Level, Normalizer, Options, ProtocolRules, Rules};

/// splitmix64: small, deterministic.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }
}

fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

#[derive(Clone, Copy, PartialEq)]
enum Alias {
    None,
    Slash,
    Index,
    Case,
}

struct Host {
    origin: &'static str,
    pages: u64,
    /// Parameters that select content, with their value range.
    relevant: &'static [(&'static str, u64)],
    /// Parameters the server ignores.
    noise: &'static [&'static str],
    alias: Alias,
    captures: usize,
    /// Days between content changes of a page.
    period: u64,
}

const DAY: u64 = 86_400;
/// 2020-01-01T00:00:00Z
const T0: u64 = 1_577_836_800;

struct Url {
    url: String,
    /// Ground truth of the content, without time.
    identity: String,
    page: u64,
}

fn page_name(h: &Host, page: u64, rng: &mut Rng) -> String {
    match h.alias {
        Alias::Slash => {
            if rng.chance(0.5) {
                format!("/docs/p{page}/")
            } else {
                format!("/docs/p{page}")
            }
        }
        Alias::Index => {
            if rng.chance(0.5) {
                format!("/d{page}/index.html")
            } else {
                format!("/d{page}/")
            }
        }
        Alias::Case => {
            let base = format!("/Archive/Item{page}.ASP");
            base.chars()
                .map(|c| {
                    if rng.chance(0.5) {
                        c.to_ascii_lowercase()
                    } else {
                        c
                    }
                })
                .collect()
        }
        Alias::None => format!("/item/{page}"),
    }
}

/// One URL of host `h`; noise values drawn from `noise_base..noise_base+1e6`.
fn make_url(h: &Host, rng: &mut Rng, noise_base: u64) -> Url {
    let page = rng.below(h.pages);
    let path = page_name(h, page, rng);
    let mut params: Vec<(String, String)> = Vec::new();
    let mut identity = format!("{}#{page}", h.origin);
    for (name, range) in h.relevant {
        if rng.chance(0.7) {
            let v = rng.below(*range);
            params.push(((*name).into(), v.to_string()));
            identity.push_str(&format!("&{name}={v}"));
        }
    }
    for name in h.noise {
        if rng.chance(0.5) {
            params.push((
                (*name).into(),
                (noise_base + rng.below(1_000_000)).to_string(),
            ));
        }
    }
    params.sort();
    let q: Vec<String> = params.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let url = if q.is_empty() {
        format!("{}{path}", h.origin)
    } else {
        format!("{}{path}?{}", h.origin, q.join("&"))
    };
    Url {
        url,
        identity,
        page,
    }
}

fn hosts(captures: usize) -> Vec<Host> {
    let c = captures;
    vec![
        // Session id and tracking noise; `id` selects the product.
        Host {
            origin: "http://shop.example",
            pages: 40,
            relevant: &[("id", 30)],
            noise: &["sid", "utm_source"],
            alias: Alias::None,
            captures: c,
            period: 180,
        },
        // Same-looking `sid` selects content here (site id), on the https origin of shop.
        Host {
            origin: "https://shop.example",
            pages: 40,
            relevant: &[("sid", 4)],
            noise: &[],
            alias: Alias::None,
            captures: c,
            period: 180,
        },
        // `sort` ignored by this server, `ref` tracking; `page` selects.
        Host {
            origin: "http://news.example",
            pages: 60,
            relevant: &[("page", 5)],
            noise: &["ref", "sort"],
            alias: Alias::None,
            captures: c,
            period: 120,
        },
        // `sort` and `sid` select content here.
        Host {
            origin: "http://forum.example",
            pages: 60,
            relevant: &[("sort", 2), ("sid", 4)],
            noise: &[],
            alias: Alias::None,
            captures: c,
            period: 120,
        },
        // Trailing-slash aliases and a cache buster.
        Host {
            origin: "http://docs.example",
            pages: 50,
            relevant: &[],
            noise: &["v"],
            alias: Alias::Slash,
            captures: c,
            period: 365,
        },
        // index.html aliases.
        Host {
            origin: "http://static.example",
            pages: 400,
            relevant: &[],
            noise: &[],
            alias: Alias::Index,
            captures: c,
            period: 365,
        },
        // Case-insensitive server (IIS).
        Host {
            origin: "http://legacy.example",
            pages: 50,
            relevant: &[("q", 3)],
            noise: &[],
            alias: Alias::Case,
            captures: c,
            period: 365,
        },
        // Too few captures to learn anything.
        Host {
            origin: "http://tiny.example",
            pages: 40,
            relevant: &[],
            noise: &["sid"],
            alias: Alias::None,
            captures: 8,
            period: 365,
        },
        // Content changes every 5 days: drift within the window.
        Host {
            origin: "http://drift.example",
            pages: 40,
            relevant: &[],
            noise: &["sid"],
            alias: Alias::None,
            captures: c,
            period: 5,
        },
    ]
}

fn keys(n: &Normalizer, urls: &[Url]) -> Vec<String> {
    urls.iter()
        .map(|u| n.key(&u.url).map(|k| k.into_owned()).unwrap_or_default())
        .collect()
}

struct Score {
    merged: usize,
    true_merged: usize,
    dup: usize,
}

fn score(per_host: &[Vec<Url>], key_of: &dyn Fn(&[Url]) -> Vec<String>) -> Score {
    let mut s = Score {
        merged: 0,
        true_merged: 0,
        dup: 0,
    };
    for urls in per_host {
        let k = key_of(urls);
        for i in 0..urls.len() {
            for j in i + 1..urls.len() {
                let same = urls[i].identity == urls[j].identity;
                let merged = k[i] == k[j];
                s.dup += usize::from(same);
                s.merged += usize::from(merged);
                s.true_merged += usize::from(same && merged);
            }
        }
    }
    s
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let seed: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(12);
    let captures: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(400);
    let mut rng = Rng(seed);
    let hosts = hosts(captures);
    let mut crawl: Vec<DigestRecord> = Vec::new();
    for h in &hosts {
        for _ in 0..h.captures {
            let u = make_url(h, &mut rng, 0);
            // Monthly crawl passes of two days each, over two years.
            let t = T0 + rng.below(24) * 30 * DAY + rng.below(2 * DAY);
            // The page's content version: changes every `period` days,
            // with a per-page phase.
            let version =
                (t + fnv(&format!("{}{}", h.origin, u.page)) % (h.period * DAY)) / (h.period * DAY);
            let digest = format!("{:016X}", fnv(&format!("{}@{version}", u.identity)));
            let ts = civil(t);
            crawl.push(DigestRecord::new(u.url, digest, Some(&ts)));
        }
    }
    let seen: HashSet<&str> = crawl.iter().map(|r| r.url.as_str()).collect();
    let mut eval: Vec<Vec<Url>> = Vec::new();
    for h in &hosts {
        let mut v: Vec<Url> = Vec::new();
        let mut mine: HashSet<String> = HashSet::new();
        let mut tries = 0;
        while v.len() < 150 && tries < 100_000 {
            tries += 1;
            let u = make_url(h, &mut rng, 10_000_000);
            if !seen.contains(u.url.as_str()) && mine.insert(u.url.clone()) {
                v.push(u);
            }
        }
        eval.push(v);
    }

    let mut opts = DigestOptions::default();
    if let Some(w) = args.get(3).and_then(|s| s.parse::<i64>().ok()) {
        opts.window = w * 86_400;
    }
    if let Some(m) = args.get(4).and_then(|s| s.parse().ok()) {
        opts.min_evidence = m;
    }
    let start = Instant::now();
    let rules = learn(&crawl, &opts);
    let learn_time = start.elapsed();
    println!(
        "seed {seed}, {} captures on {} origins, min_evidence {}, window {} days",
        crawl.len(),
        hosts.len(),
        opts.min_evidence,
        opts.window / 86_400
    );
    println!("learned in {:.1} ms:", learn_time.as_secs_f64() * 1e3);
    for c in rules.candidates() {
        println!(
            "  {}\t{}\t{}\tsupport {}\tcontradictions {}{}",
            c.origin,
            c.kind,
            c.pattern,
            c.support,
            c.contradictions,
            if c.is_active() { "" } else { "\t(not applied)" }
        );
    }
    let learned = Learned::default().with_content(rules);
    let norm = |rules: Rules, learned: Option<Learned>| {
        Normalizer::new(Options {
            level: Level::Protocol,
            ..Options::default()
        })
        .with_protocol(Arc::new(ProtocolRules::new(rules, learned)))
    };
    let configs: [(&str, Normalizer); 4] = [
        ("no rules (scheme-rung keys)", norm(Rules::NONE, None)),
        ("default protocol rules", norm(Rules::DEFAULT, None)),
        ("learned only", norm(Rules::NONE, Some(learned.clone()))),
        ("default + learned", norm(Rules::DEFAULT, Some(learned))),
    ];
    println!(
        "\nfresh evaluation URLs: {} distinct, none in the crawl; pairs within an origin",
        eval.iter().map(Vec::len).sum::<usize>()
    );
    let (_, full) = &configs[3];
    println!("\nper origin, default + learned (merged / truly duplicate pairs):");
    for (h, urls) in hosts.iter().zip(&eval) {
        let s = score(std::slice::from_ref(urls), &|u| keys(full, u));
        println!(
            "  {}\t{} / {}{}",
            h.origin,
            s.true_merged,
            s.dup,
            if s.merged > s.true_merged {
                "\tFALSE MERGES"
            } else {
                ""
            }
        );
    }
    println!("\n| keys | merged pairs | truly duplicate merged | precision | recall | key time |");
    println!("|---|---|---|---|---|---|");
    for (name, n) in &configs {
        let t = Instant::now();
        let s = score(&eval, &|u| keys(n, u));
        let el = t.elapsed();
        let dup = s.dup;
        println!(
            "| {name} | {} | {} | {:.2}% | {:.2}% ({} of {dup}) | {:.1} ms |",
            s.merged,
            s.true_merged,
            100.0 * s.true_merged as f64 / s.merged.max(1) as f64,
            100.0 * s.true_merged as f64 / dup.max(1) as f64,
            s.true_merged,
            el.as_secs_f64() * 1e3
        );
    }
}

/// `YYYYMMDDhhmmss` of a Unix time (civil from days).
fn civil(t: u64) -> String {
    let days = (t / DAY) as i64;
    let secs = t % DAY;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!(
        "{y:04}{m:02}{d:02}{:02}{:02}{:02}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}
