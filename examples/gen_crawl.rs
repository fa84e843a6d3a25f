//! A generated web-archive crawl with planted rules and drift, and the
//! evaluation of rules learned from its content digests
//! (`irinorm::learn::digest`, draft-ietf-iri-3987bis §5.3.4).
//!
//! ```text
//! cargo run --release --example gen_crawl -- eval [SEED ...] [-v] [--significance P]
//!     [--max-excess X] [--pool-origins N] [--pool-share S] [--min-evidence N]
//! cargo run --release --example gen_crawl -- cdxj SEED CAPTURES OUT.cdxj [SMALLER]
//! ```
//!
//! The crawl: 60 origins, about 14,500 status-200 captures spread over a
//! year (plus 404s and redirects). Each origin has pages whose URLs carry
//!
//! * **irrelevant parameters** (0–4 per origin: session ids, click ids,
//!   cache busters, tracking), several at once, each with a fresh value every
//!   time, in shuffled order — the origin ignores parameter order;
//! * **relevant parameters** on some origins (`id`, `page`) that select
//!   content, nonexistent ids answering a shared "not found" page (a soft
//!   404, status 200);
//! * **path aliases** (trailing slash, an index name, ASCII case) on about
//!   half of the origins;
//! * on a third of the origins a **mixed parameter** (`view`) that changes
//!   the content on 15 % of the pages and is ignored on the others;
//! * **drift**: 20 % of the pages change their content every 30–180 days.
//!
//! A third of the captures use the page's plain spelling (crawlers revisit
//! the same URL), the others a fresh spelling. `eval` learns from the crawl
//! and scores keys on **held-out URLs**: fresh spellings of the same pages
//! (new parameter values and orders; none of them in the crawl). A pair of
//! held-out URLs of one origin is *truly duplicate* when the planted truth
//! gives them the same content (time aside) and *merged* when their
//! protocol-rung keys are equal. The **oracle** applies exactly the planted
//! rules that hold on every page of an origin (the mixed parameter is not
//! one of them), so its recall is the most any per-origin rule set reaches.
//!
//! `cdxj` writes a SURT-sorted CDXJ of about CAPTURES captures of the same
//! shape (more origins, same captures per origin), for scale runs; with
//! SMALLER, each origin has that many times fewer captures (at least 12),
//! so the same captures are spread over that many times more origins.

use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

use irinorm::learn::digest::{learn, DigestOptions, DigestRecord};
use irinorm::learn::Learned;
use irinorm::{Level, Normalizer, Options, ProtocolRules, Rules};

/// splitmix64: small and deterministic.
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
        ((self.next() >> 11) as f64 / (1u64 << 53) as f64) < p
    }
    fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            v.swap(i, self.below(i as u64 + 1) as usize);
        }
    }
}

fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

const DAY: u64 = 86_400;
/// 2021-01-01T00:00:00Z
const T0: u64 = 1_609_459_200;
const NOISE_POOL: &[&str] = &[
    "sid",
    "clk",
    "vw",
    "ref",
    "cb",
    "trk",
    "src",
    "utm_source",
    "fbclid",
    "ts",
    "from",
    "_",
];
const INDEX: &[&str] = &["index.html", "index.php", "default.aspx"];

#[derive(Clone, Copy, PartialEq)]
enum Alias {
    Slash,
    Index(&'static str),
    Case,
}

/// One origin's planted truth.
struct Host {
    origin: String,
    pages: u64,
    /// Pages are `/view?id=N` (id selects content) instead of paths.
    by_id: bool,
    /// `page` selects content (1..=3) when present.
    paged: bool,
    noise: Vec<&'static str>,
    alias: Option<Alias>,
    /// `view` changes the content of the pages [`selects`] picks.
    mixed: bool,
    captures: usize,
}

fn make_host(rng: &mut Rng, i: usize, captures: usize) -> Host {
    let scheme = if rng.chance(0.3) { "https" } else { "http" };
    let mut pool = NOISE_POOL.to_vec();
    rng.shuffle(&mut pool);
    let n_noise = [0, 1, 2, 2, 3, 3, 4][rng.below(7) as usize];
    let by_id = rng.chance(0.3);
    let alias = if by_id {
        None
    } else {
        match rng.below(6) {
            0 | 1 => Some(Alias::Slash),
            2 => Some(Alias::Index(INDEX[rng.below(3) as usize])),
            3 => Some(Alias::Case),
            _ => None,
        }
    };
    Host {
        origin: format!("{scheme}://h{i:05}.example"),
        pages: 20 + rng.below(100),
        by_id,
        paged: rng.chance(0.3),
        noise: pool[..n_noise].to_vec(),
        alias,
        mixed: rng.chance(0.33),
        captures,
    }
}

/// Whether `view` selects the content of `page` on a mixed origin: on the
/// first 15 % of its pages (rounded up), whatever the origin's size.
fn selects(h: &Host, page: u64) -> bool {
    page * 100 < 15 * h.pages
}

/// A spelling of a page and what it shows.
struct Url {
    url: String,
    /// Planted content identity (time aside).
    identity: String,
    /// Page identity for drift (the content identity's page part).
    page_key: String,
}

/// A URL of `page` on `h`. `plain`: the page's one fixed spelling (no
/// irrelevant parameters, canonical path, fixed order); else a fresh
/// spelling whose noise values come from `salt`'s value space.
fn make_url(h: &Host, rng: &mut Rng, page: u64, plain: bool, salt: u64) -> Url {
    let mut params: Vec<String> = Vec::new();
    let mut identity = format!("{}#{page}", h.origin);
    let path = if h.by_id {
        params.push(format!("id={page}"));
        "/view".to_owned()
    } else {
        let stem = format!("/Docs/Item{page}");
        match h.alias {
            Some(Alias::Slash) if !plain && rng.chance(0.5) => format!("{stem}/"),
            Some(Alias::Index(n)) if !plain && rng.chance(0.5) => format!("{stem}/{n}"),
            Some(Alias::Index(_)) => format!("{stem}/"),
            Some(Alias::Case) if !plain => stem
                .chars()
                .map(|c| {
                    if rng.chance(0.5) {
                        c.to_ascii_lowercase()
                    } else {
                        c
                    }
                })
                .collect(),
            _ => stem,
        }
    };
    if h.paged && page.is_multiple_of(3) {
        let p = 1 + rng.below(3);
        params.push(format!("page={p}"));
        identity.push_str(&format!("&page={p}"));
    }
    if h.mixed && (plain || rng.chance(0.6)) {
        let v = ["list", "grid", "full"][rng.below(3) as usize];
        params.push(format!("view={v}"));
        if selects(h, page) {
            identity.push_str(&format!("&view={v}"));
        }
    }
    let page_key = identity.clone();
    if !plain {
        for n in &h.noise {
            if rng.chance(0.6) {
                params.push(format!("{n}={:x}", salt + rng.below(1 << 40)));
            }
        }
        rng.shuffle(&mut params);
    }
    let url = if params.is_empty() {
        format!("{}{path}", h.origin)
    } else {
        format!("{}{path}?{}", h.origin, params.join("&"))
    };
    Url {
        url,
        identity,
        page_key,
    }
}

/// One capture line's fields.
struct Capture {
    url: String,
    digest: String,
    time: u64,
    status: u16,
}

/// The captures of `h`: status-200 captures of its pages (drifting pages
/// change content every 30–180 days), soft 404s, 404s and redirects.
fn crawl_host(h: &Host, rng: &mut Rng) -> Vec<Capture> {
    let mut out = Vec::with_capacity(h.captures + h.captures / 10);
    let soft404 = format!("{:032X}", fnv(&format!("{}#404", h.origin)));
    for _ in 0..h.captures {
        let t = T0 + rng.below(365 * DAY);
        let r = rng.below(100);
        if r < 3 {
            // A soft 404: a nonexistent page answered with one shared page.
            let page = 1_000 + rng.below(1_000_000);
            let u = make_url(h, rng, page, false, 0);
            out.push(Capture {
                url: u.url,
                digest: soft404.clone(),
                time: t,
                status: 200,
            });
            continue;
        }
        let page = rng.below(h.pages);
        let plain = rng.chance(0.33);
        let u = make_url(h, rng, page, plain, 0);
        if r < 6 {
            let status = if r < 5 { 404 } else { 301 };
            out.push(Capture {
                url: u.url,
                digest: "3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ".into(),
                time: t,
                status,
            });
            continue;
        }
        let phase = fnv(&u.page_key);
        let version = if phase.is_multiple_of(5) {
            let period = (30 + phase / 5 % 151) * DAY;
            (t + phase % period) / period
        } else {
            0
        };
        out.push(Capture {
            url: u.url,
            digest: format!("{:032X}", fnv(&format!("{}@{version}", u.identity))),
            time: t,
            status: 200,
        });
    }
    out
}

/// The rules the oracle knows: those that hold on every page of `h`.
fn oracle_rules(h: &Host) -> String {
    let mut t = String::new();
    let mut row = |kind: &str, pattern: &str| {
        t.push_str(&format!("{}\t{kind}\t{pattern}\t1\t0\n", h.origin));
    };
    for n in &h.noise {
        row("ignore-param", n);
    }
    row("query-order", "*");
    match h.alias {
        Some(Alias::Slash) => row("alias-slash", "no-extension"),
        Some(Alias::Index(n)) => row("alias-index", n),
        Some(Alias::Case) => row("case-insensitive-path", "*"),
        None => {}
    }
    t
}

/// `YYYYMMDDhhmmss` of a Unix time.
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

/// Captures per origin: most small, a few large (as crawls are).
fn captures_of(rng: &mut Rng) -> usize {
    match rng.below(10) {
        0..=5 => 60 + rng.below(140) as usize,
        6..=8 => 200 + rng.below(300) as usize,
        _ => 500 + rng.below(700) as usize,
    }
}

struct Score {
    merged: usize,
    true_merged: usize,
    dup: usize,
}

fn score(eval: &[Vec<Url>], n: &Normalizer) -> Score {
    let mut s = Score {
        merged: 0,
        true_merged: 0,
        dup: 0,
    };
    for urls in eval {
        let k: Vec<String> = urls
            .iter()
            .map(|u| n.key(&u.url).map(|k| k.into_owned()).unwrap_or_default())
            .collect();
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

fn normalizer(rules: Rules, learned: Option<Learned>) -> Normalizer {
    Normalizer::new(Options {
        level: Level::Protocol,
        ..Options::default()
    })
    .with_protocol(Arc::new(ProtocolRules::new(rules, learned)))
}

fn eval(seed: u64, opts: &DigestOptions, verbose: bool) {
    let mut rng = Rng(seed);
    let hosts: Vec<Host> = (0..60)
        .map(|i| {
            let c = captures_of(&mut rng);
            make_host(&mut rng, i, c)
        })
        .collect();
    let mut records = Vec::new();
    let mut not_200 = 0;
    for h in &hosts {
        for c in crawl_host(h, &mut rng) {
            if c.status == 200 {
                records.push(DigestRecord::new(c.url, c.digest, Some(&civil(c.time))));
            } else {
                not_200 += 1;
            }
        }
    }
    // Held-out URLs: 120 fresh spellings per origin, none in the crawl.
    let seen: HashSet<&str> = records.iter().map(|r| r.url.as_str()).collect();
    let eval: Vec<Vec<Url>> = hosts
        .iter()
        .map(|h| {
            let mut v = Vec::new();
            let mut mine = HashSet::new();
            // Origins with few spellings (no irrelevant parameters) have
            // fewer held-out URLs.
            for _ in 0..20_000 {
                if v.len() == 120 {
                    break;
                }
                let page = rng.below(h.pages);
                let u = make_url(h, &mut rng, page, false, 1 << 50);
                if !seen.contains(u.url.as_str()) && mine.insert(u.url.clone()) {
                    v.push(u);
                }
            }
            v
        })
        .collect();
    let start = Instant::now();
    let rules = learn(&records, opts);
    let took = start.elapsed();
    let oracle_tsv: String = hosts.iter().map(oracle_rules).collect();
    let oracle = Learned::from_tsv(&oracle_tsv).expect("oracle rules");
    if verbose {
        for h in &hosts {
            println!(
                "{} pages {} by_id {} paged {} noise {:?} mixed {} captures {}",
                h.origin, h.pages, h.by_id, h.paged, h.noise, h.mixed, h.captures
            );
        }
        let planted: BTreeMap<&str, &Host> = hosts.iter().map(|h| (h.origin.as_str(), h)).collect();
        for c in rules.candidates() {
            let h = planted[c.origin.as_str()];
            let truth = oracle_rules(h).contains(&format!("\t{}\t{}\t", c.kind, c.pattern));
            println!(
                "{}\t{}\t{}\tsupport {}\tcontradictions {}\tclusters {} pairs {} disagreeing {} drift {:.3}\t{}{}",
                c.origin,
                c.kind,
                c.pattern,
                c.support,
                c.contradictions,
                c.evidence.clusters,
                c.evidence.pairs,
                c.evidence.disagreeing,
                c.evidence.drift(),
                if c.is_active() { "applied" } else { "refused" },
                if truth { "" } else { "\t(not planted)" }
            );
        }
    }
    let planted: usize = oracle_tsv.lines().count();
    let learned_ok = rules
        .active()
        .filter(|c| oracle_tsv.contains(&format!("{}\t{}\t{}\t", c.origin, c.kind, c.pattern)))
        .count();
    println!(
        "seed {seed}: {} status-200 captures ({not_200} others) on {} origins, learned in {:.0} ms; \
         {} rules applied ({learned_ok} of {planted} planted), {} refused",
        records.len(),
        hosts.len(),
        took.as_secs_f64() * 1e3,
        rules.active().count(),
        rules.candidates().len() - rules.active().count(),
    );
    let learned = Learned::default().with_content(rules);
    let configs = [
        ("scheme rung", normalizer(Rules::NONE, None)),
        (
            "protocol rung, default rules",
            normalizer(Rules::DEFAULT, None),
        ),
        (
            "protocol + learned",
            normalizer(Rules::DEFAULT, Some(learned)),
        ),
        (
            "protocol + oracle",
            normalizer(Rules::DEFAULT, Some(oracle)),
        ),
    ];
    if verbose {
        // Where the recall goes: per origin, same-content held-out pairs,
        // and how many the learned rules and the oracle merge.
        let (l, o) = (&configs[2].1, &configs[3].1);
        for (h, urls) in hosts.iter().zip(&eval) {
            let one = std::slice::from_ref(urls);
            let (sl, so) = (score(one, l), score(one, o));
            println!(
                "recall {}	captures {}	pages {}	mixed {}	noise {}	dup {}	learned {} (false {})	oracle {}",
                h.origin,
                h.captures,
                h.pages,
                h.mixed,
                h.noise.len(),
                sl.dup,
                sl.true_merged,
                sl.merged - sl.true_merged,
                so.true_merged
            );
        }
    }
    println!("| keys | merged pairs | falsely merged | precision | recall |");
    println!("|---|---|---|---|---|");
    for (name, n) in &configs {
        let s = score(&eval, n);
        println!(
            "| {name} | {} | {} | {:.4} | {:.3} ({} of {}) |",
            s.merged,
            s.merged - s.true_merged,
            s.true_merged as f64 / s.merged.max(1) as f64,
            s.true_merged as f64 / s.dup.max(1) as f64,
            s.true_merged,
            s.dup
        );
    }
}

/// A SURT-ish CDXJ key: reversed host labels, `)`, path and query
/// lowercased (enough for grouping and sorting by host).
fn surt_key(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |x| x.1);
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let mut labels: Vec<&str> = host.split('.').collect();
    labels.reverse();
    format!("{}){}", labels.join(","), path.to_ascii_lowercase())
}

fn cdxj(seed: u64, total: usize, smaller: usize, out: &str) -> std::io::Result<()> {
    let mut rng = Rng(seed);
    let f = std::fs::File::create(out)?;
    let mut w = std::io::BufWriter::with_capacity(1 << 20, f);
    let mut written = 0;
    let mut i = 0;
    // Host names h00000.example … sort as SURT keys in this order.
    while written < total {
        let c = (captures_of(&mut rng) / smaller.max(1)).max(12);
        let h = make_host(&mut rng, i, c);
        i += 1;
        let mut lines: Vec<(String, String)> = crawl_host(&h, &mut rng)
            .into_iter()
            .map(|c| {
                let ts = civil(c.time);
                let json = format!(
                    "{{\"url\": \"{}\", \"mime\": \"text/html\", \"status\": \"{}\", \"digest\": \"{}\"}}",
                    c.url, c.status, c.digest
                );
                (format!("{} {ts}", surt_key(&c.url)), json)
            })
            .collect();
        lines.sort();
        for (k, json) in &lines {
            writeln!(w, "{k} {json}")?;
        }
        written += lines.len();
    }
    w.flush()?;
    eprintln!("{written} captures on {i} origins written to {out}");
    Ok(())
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("cdxj") if matches!(args.len(), 4 | 5) => {
            let seed = args[1].parse().expect("SEED");
            let n = args[2].parse().expect("CAPTURES");
            let smaller = args.get(4).map_or(1, |s| s.parse().expect("SMALLER"));
            cdxj(seed, n, smaller, &args[3])
        }
        Some("eval") => {
            let mut opts = DigestOptions::default();
            let (mut seeds, mut verbose) = (Vec::new(), false);
            let mut it = args[1..].iter();
            while let Some(a) = it.next() {
                let mut value = || it.next().and_then(|v| v.parse().ok()).expect(a);
                match a.as_str() {
                    "-v" => verbose = true,
                    "--significance" => opts.significance = value(),
                    "--max-excess" => opts.max_excess = value(),
                    "--pool-origins" => opts.pool_origins = value() as usize,
                    "--pool-share" => opts.pool_share = value(),
                    "--min-evidence" => opts.min_evidence = value() as usize,
                    s => seeds.push(s.parse().expect("SEED")),
                }
            }
            for s in if seeds.is_empty() { vec![1] } else { seeds } {
                eval(s, &opts, verbose);
            }
            Ok(())
        }
        _ => {
            eprintln!(
                "usage: gen_crawl eval [SEED ...] [-v] [--significance P] [--max-excess X] \
                 [--pool-origins N] [--pool-share S] [--min-evidence N] | gen_crawl cdxj SEED CAPTURES OUT.cdxj [SMALLER]"
            );
            std::process::exit(2)
        }
    }
}
