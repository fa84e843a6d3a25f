//! The streaming learner gives the rules of the in-memory one, whatever
//! the chunk size, the number of threads and the input order.

use super::*;
use crate::ladder::learned::ContentRules;
use crate::learn::digest::learn;
use crate::learn::group::{learn_unsorted, InMemory, Step};
use crate::learn::grouping::in_memory;
use crate::learn::records::read_records;
use crate::learn::records::DigestFormat;

/// A small crawl as a SURT-sorted CDXJ: per host, pages whose `sid` never
/// changes content, an `id` that selects it, case aliases, and content
/// that drifts over the months; plus a redirect, an error and a bad line.
fn crawl(hosts: usize) -> Vec<String> {
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut rnd = |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let mut lines = Vec::new();
    for h in 0..hosts {
        let host = format!("h{h:03}.example");
        let surt = format!("example,h{h:03})");
        let mut rows = Vec::new();
        for page in 0..6 {
            for cap in 0..5 {
                let month = 1 + rnd(12);
                let ts = format!("2021{month:02}{:02}120000", 1 + rnd(28));
                let version = if page == 0 && h % 4 == 0 {
                    month / 6
                } else {
                    0
                };
                let id = rnd(2);
                let digest = format!("D{h}p{page}i{id}v{version}");
                let path = if cap % 4 == 3 {
                    format!("/Page{page}")
                } else {
                    format!("/page{page}")
                };
                let url = format!("http://{host}{path}?id={id}&sid={}", rnd(1000));
                rows.push((format!("{surt}{}", path.to_lowercase()), ts, url, digest));
            }
        }
        if h % 5 == 0 {
            rows.push((
                format!("{surt}/old"),
                "2021".into(),
                format!("http://{host}/old"),
                String::new(),
            ));
        }
        rows.sort();
        for (k, ts, url, digest) in rows {
            lines.push(if digest.is_empty() {
                format!("{k} {ts} {{\"url\": \"{url}\", \"status\": \"301\", \"redirect\": \"/new\", \"digest\": \"R\"}}")
            } else {
                format!("{k} {ts} {{\"url\": \"{url}\", \"status\": \"200\", \"digest\": \"{digest}\"}}")
            });
        }
        if h % 7 == 0 {
            lines.push(format!("{surt}/bad 2021 {{\"url\": 7}}"));
        }
    }
    lines
}

fn learnt_in_memory(text: &str) -> (ContentRules, crate::learn::records::ReadResult) {
    let read = read_records(text.as_bytes(), DigestFormat::Cdxj).unwrap();
    (learn(&read.records, &DigestOptions::default()), read)
}

fn streamed(text: &str, chunk: usize, threads: usize) -> Result<Learnt, StreamError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let mut bytes = 0;
    let l = pool.install(|| {
        learn_sorted_with(
            text.as_bytes(),
            Format::Cdxj,
            &DigestOptions::default(),
            chunk,
            None,
            &in_memory,
            &mut |n| bytes += n,
        )
    });
    if l.is_ok() {
        assert_eq!(bytes, text.len() as u64);
    }
    l
}

/// A pass's rules drained into memory, with its record counts.
fn rules(l: &mut Learnt) -> ContentRules {
    let mut r = std::mem::take(&mut l.rules).collect().unwrap();
    (r.records, r.unusable) = (l.records, l.unusable);
    r
}

fn same(a: &ContentRules, b: &mut Learnt) {
    let b = rules(b);
    assert_eq!(a.candidates(), b.candidates());
    assert_eq!(a.record_counts(), b.record_counts());
}

#[test]
fn sorted_input_gives_the_rules_of_the_in_memory_learner() {
    let text = crawl(40).join("\n") + "\n";
    let (want, read) = learnt_in_memory(&text);
    // Each host alone shows some rules safe and not others; pooled over
    // the hosts, the others are applied too: the second pass sees every
    // chunk's verdicts.
    let alone = DigestOptions {
        pool_origins: 0,
        ..DigestOptions::default()
    };
    let own = learn(&read.records, &alone);
    let (own_active, all) = (own.active().count(), own.candidates().len());
    assert!(own_active > 0 && all > own_active, "{own_active} of {all}");
    assert!(want.active().count() > own_active);
    for (chunk, threads) in [(1, 1), (1, 3), (700, 2), (1 << 20, 1), (5_000, 4)] {
        let mut got = streamed(&text, chunk, threads).unwrap();
        same(&want, &mut got);
        assert!(!got.pooled.is_empty());
        assert_eq!(got.rejected, read.rejected);
        assert_eq!(got.not_200, read.not_200);
        assert_eq!(got.redirects, tally(&read.redirects));
        assert_eq!(got.origins, 40);
    }
}

#[test]
fn unsorted_input_is_detected_and_grouped_gives_the_same_rules() {
    let mut lines = crawl(12);
    // Move one host's first line to the end: its origin reappears.
    let at = lines.iter().position(|l| l.contains("\"200\"")).unwrap();
    let first = lines.remove(at);
    lines.push(first);
    let text = lines.join("\n") + "\n";
    let (want, read) = learnt_in_memory(&text);
    match streamed(&text, 1, 2) {
        Err(StreamError::Unsorted { origin, line }) => {
            assert_eq!(origin, "http://h000.example");
            assert!(line > 1);
        }
        other => panic!("not detected: {:?}", other.map(|l| l.origins)),
    }
    // One chunk holds everything: no host is split, nothing to detect.
    same(&want, &mut streamed(&text, usize::MAX, 2).unwrap());
    let got = grouped(&text, DigestFormat::Cdxj, 2);
    assert_eq!(got.rejected, read.rejected);
    assert_eq!(got.redirects, tally(&read.redirects));
}

/// [`learn_unsorted`] grouping in memory on `threads` workers.
fn grouped(text: &str, format: DigestFormat, threads: usize) -> Learnt {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let (mut bytes, mut grouped, mut learned) = (0, None, 0);
    let l = pool
        .install(|| {
            learn_unsorted(
                text.as_bytes(),
                format,
                &DigestOptions::default(),
                &mut InMemory::default(),
                &in_memory,
                &mut |s| match s {
                    Step::Read(n) => bytes += n,
                    Step::Grouped(n) => grouped = Some(n),
                    Step::Learned(n) => learned += n,
                },
            )
        })
        .unwrap();
    assert_eq!(bytes, text.len() as u64);
    let usable = (l.records - l.unusable) as u64;
    assert_eq!((grouped, learned), (Some(usable), usable));
    l
}

/// The tally of `pairs`, as the streaming passes keep their redirects.
fn tally(pairs: &[(String, String)]) -> RedirectTally {
    let mut t = RedirectTally::default();
    for (from, to) in pairs {
        t.add(from, to);
    }
    t
}

/// Everything a run reports but the line numbers of its rejects.
fn summary(mut l: Learnt) -> String {
    let redirects = l.redirects.clone();
    let r = rules(&mut l);
    format!(
        "{:?} {:?} {:?} {} {} {:?} {:?} {}",
        r.candidates(),
        r.record_counts(),
        l.pooled,
        l.origins,
        l.not_200,
        l.stats,
        redirects,
        l.rejected.len()
    )
}

/// The lines in an order given by a seeded hash of each.
fn shuffled(lines: &[String], seed: u64) -> Vec<String> {
    use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
    let key = |l: &String| BuildHasherDefault::<DefaultHasher>::default().hash_one((seed, l));
    let mut v = lines.to_vec();
    v.sort_by_cached_key(key);
    v
}

#[test]
fn grouped_captures_give_the_rules_of_the_sorted_index_in_any_order() {
    let mut lines = crawl(30);
    lines.sort();
    let sorted = lines.join("\n") + "\n";
    let want = summary(streamed(&sorted, 3_000, 2).unwrap());
    assert!(want.contains("IgnoreParam"), "{want}");
    for seed in [1, 2, 3] {
        let text = shuffled(&lines, seed).join("\n") + "\n";
        assert_ne!(text, sorted);
        assert!(streamed(&text, 3_000, 2).is_err());
        for threads in [1, 2] {
            assert_eq!(summary(grouped(&text, DigestFormat::Cdxj, threads)), want);
        }
    }
    // CSV in any order: the same rules too.
    let csv = |lines: &[String]| -> String {
        let recs = read_records((lines.join("\n") + "\n").as_bytes(), DigestFormat::Cdxj)
            .unwrap()
            .records;
        let rows: Vec<String> = recs
            .iter()
            .map(|r| {
                format!(
                    "{},{},{}",
                    r.url,
                    r.digest,
                    r.timestamp.as_deref().unwrap_or("")
                )
            })
            .collect();
        rows.join("\n") + "\n"
    };
    let want = rules(&mut grouped(&csv(&lines), DigestFormat::Csv, 1));
    assert!(want.active().count() > 0);
    let got = rules(&mut grouped(
        &csv(&shuffled(&lines, 9)),
        DigestFormat::Csv,
        2,
    ));
    assert_eq!(got.candidates(), want.candidates());
}

#[test]
fn csv_and_cdx_headers() {
    let csv =
        "url,digest,timestamp\nhttp://a.example/x?s=1,D,2020\nhttp://a.example/x?s=2,D,2021\n\
               http://a.example/y?s=1,E\nhttp://a.example/y?s=3,E,20\n";
    let read = read_records(csv.as_bytes(), DigestFormat::Csv).unwrap();
    let want = learn(&read.records, &DigestOptions::default());
    let mut got = grouped(csv, DigestFormat::Csv, 1);
    same(&want, &mut got);
    assert_eq!(got.rejected, read.rejected);
    // A header (after a BOM) sets the layout of every chunk after it.
    let cdx = "\u{FEFF} CDX a k b s\nhttp://a.example/x?s=1 D 2020 200\nhttp://a.example/x?s=2 D 2021 200\n\
               http://b.example/ E 2021 200\n";
    let read = read_records(cdx.as_bytes(), DigestFormat::Cdx).unwrap();
    assert!(read.rejected.is_empty());
    let mut got = learn_sorted_with(
        cdx.as_bytes(),
        Format::Cdx,
        &DigestOptions::default(),
        1,
        None,
        &in_memory,
        &mut |_| {},
    )
    .unwrap();
    assert!(got.rejected.is_empty(), "{:?}", got.rejected);
    same(&learn(&read.records, &DigestOptions::default()), &mut got);
    assert_eq!(got.origins, 2);
}

#[test]
fn hosts_of_lines() {
    assert_eq!(host_of(b"com,example)/a?b 2020 {}"), b"com,example)");
    assert_eq!(host_of(b"http://a.example:8/x?y D 2020"), b"a.example:8");
    assert_eq!(host_of(b"weird"), b"weird");
    // A URL in a SURT key's path or query is not its host.
    assert_eq!(
        host_of(b"com,example)/go?to=http://b.example/ 2020"),
        b"com,example)"
    );
    assert_eq!(host_of(b"http://(com,example,)/a 2020"), b"(com,example,)");
    assert_eq!(host_of(b""), b"");
}
