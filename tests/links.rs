//! The links job (`irinorm::batch::links`) and the web-archive readers
//! (`irinorm::archive`): the real Common Crawl WARC of tests/data/archive
//! yields every link of its page; on WAT fixtures every listed link is an
//! edge; host names follow Common Crawl's host-graph rules; malformed
//! records are rejects with reason, record and offset; the output is the
//! same whatever the threads and memory budget.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use irinorm::archive::{graph_host, Next, WarcReader};
use irinorm::batch::links::{self, Graph, Kind, LinkField, LinkReject};
use irinorm::batch::{self, Column, Input, Prep, PrepConfig, Quiet};
use irinorm::{Level, Mode, Normalizer, Options};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/archive")
        .join(name)
}

/// Key functions of `mode` at `level` (web mode: references read as a
/// browser reads an href).
fn with_key_in<R>(mode: Mode, level: Level, f: impl FnOnce(&batch::KeyFn<'_>) -> R) -> R {
    let n = Normalizer::new(Options {
        level,
        ..Options::default()
    });
    let prep = Prep::new(
        &PrepConfig {
            mode,
            decode_entities: false,
            query_encoding: None,
            split_spaces: false,
        },
        None,
    )
    .unwrap()
    .href_is_key(level == Level::String && mode == Mode::Web);
    let key = batch::key_fn(prep, |s: &str| n.key(s));
    f(&key)
}

/// [`batch::ladder_own_href_key_fn`] of web mode at `level`, as
/// [`with_key_in`] prepares it.
fn own_href_key(level: Level) -> links::OwnHrefKey {
    let n = Normalizer::new(Options {
        level,
        ..Options::default()
    });
    let prep = Prep::new(
        &PrepConfig {
            mode: Mode::Web,
            ..PrepConfig::default()
        },
        None,
    )
    .unwrap()
    .href_is_key(level == Level::String);
    let f = batch::ladder_own_href_key_fn(prep, n).expect("web mode alone");
    links::OwnHrefKey(f.into())
}

struct Run {
    csv: String,
    rejects: Vec<LinkReject>,
    summary: links::Summary,
}

fn run(inputs: &[PathBuf], level: Level, cfg: &links::Config) -> Run {
    run_in(Mode::Web, inputs, level, cfg)
}

fn run_in(mode: Mode, inputs: &[PathBuf], level: Level, cfg: &links::Config) -> Run {
    let inputs: Vec<Input> = inputs.iter().map(|p| Input::Path(p.clone())).collect();
    let mut csv = Vec::new();
    let mut rejects = Vec::new();
    let summary = with_key_in(mode, level, |key| {
        links::run(
            &inputs,
            key,
            cfg,
            &mut Quiet,
            &mut |b: &[u8]| {
                csv.extend_from_slice(b);
                Ok(())
            },
            &mut |r: &LinkReject| {
                rejects.push(r.clone());
                Ok(())
            },
        )
        .unwrap()
    });
    let s = &summary;
    assert_eq!(
        s.accepted + s.rejected,
        s.links,
        "every link counted: {s:?}"
    );
    Run {
        csv: String::from_utf8(csv).unwrap(),
        rejects,
        summary,
    }
}

fn rows(csv: &str) -> Vec<Vec<String>> {
    let mut r = csv::ReaderBuilder::new().from_reader(csv.as_bytes());
    r.records()
        .map(|x| x.unwrap().iter().map(str::to_owned).collect())
        .collect()
}

fn with_columns(list: &str) -> links::Config {
    links::Config {
        columns: LinkField::parse_list(list).unwrap(),
        ..links::Config::default()
    }
}

#[test]
fn the_real_warc_yields_every_link_of_its_page_resolved_and_keyed() {
    let r = run(
        &[data("whirlwind.warc.gz")],
        Level::Scheme,
        &with_columns("source,target,path,count"),
    );
    let s = r.summary;
    // warcinfo, request, response, metadata; one page.
    assert_eq!((s.records, s.records_rejected, s.pages), (4, 0, 1));
    assert_eq!((s.rejected, s.accepted), (0, s.links));
    let mut by_path: BTreeMap<String, u64> = BTreeMap::new();
    for row in rows(&r.csv) {
        assert_eq!(row[0], "https://an.wikipedia.org/wiki/Escopete");
        *by_path.entry(row[2].clone()).or_default() += row[3].parse::<u64>().unwrap();
    }
    // The page's URL-valued attributes as tests/data/archive/SOURCES.md
    // counts them (Python's html.parser): 207 A, 14 LINK, 13 IMG src, 1
    // SCRIPT, 1 FORM (one IMG is in a `<noscript>`: markup to a crawler);
    // 9 srcset attributes of 2 candidates each; 3 og:image metas.
    let want: BTreeMap<String, u64> = [
        ("A@/href", 207),
        ("LINK@/href", 14),
        ("IMG@/src", 13),
        ("IMG@/srcset", 18),
        ("SCRIPT@/src", 1),
        ("FORM@/action", 1),
        ("META@/content", 3),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    assert_eq!(by_path, want);
    assert_eq!(s.links, want.values().sum::<u64>());
    let targets: BTreeSet<&str> = r.csv.lines().filter_map(|l| l.split(',').nth(1)).collect();
    for t in [
        // `/wiki/Especial:Pachina_a_l%27azar`: an absolute path.
        "https://an.wikipedia.org/wiki/Especial:Pachina_a_l%27azar",
        // `//an.m.wikipedia.org/wiki/Escopete`: a network path.
        "https://an.m.wikipedia.org/wiki/Escopete",
        // `#Cheografía`: a fragment, in URI form.
        "https://an.wikipedia.org/wiki/Escopete#Cheograf%C3%ADa",
        "https://ru.wikipedia.org/wiki/%D0%AD%D1%81%D0%BA%D0%BE%D0%BF%D0%B5%D1%82%D0%B5",
    ] {
        assert!(targets.contains(t), "{t} is a target");
    }
}

#[test]
fn the_wat_of_a_request_has_no_links() {
    let r = run(
        &[data("whirlwind.warc.wat.gz")],
        Level::Scheme,
        &links::Config::default(),
    );
    assert_eq!(
        (r.summary.records, r.summary.pages, r.summary.links),
        (2, 0, 0)
    );
    assert_eq!(r.csv, "source,target,count\n");
}

/// The links a WAT fixture lists, read here with serde_json and the `url`
/// crate (the URL Standard's join): (page, target, path).
fn listed_links(path: &Path) -> Vec<(String, String)> {
    let mut text = String::new();
    flate2::read::MultiGzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    let mut out = Vec::new();
    for line in text.lines().filter(|l| l.starts_with('{')) {
        let j: serde_json::Value = serde_json::from_str(line).unwrap();
        let env = &j["Envelope"];
        if env["WARC-Header-Metadata"]["WARC-Type"] != "response" {
            continue;
        }
        let page = url::Url::parse(
            env["WARC-Header-Metadata"]["WARC-Target-URI"]
                .as_str()
                .unwrap(),
        )
        .unwrap();
        let http = &env["Payload-Metadata"]["HTTP-Response-Metadata"];
        let html = &http["HTML-Metadata"];
        let base = match html["Head"]["Base"].as_str() {
            Some(b) => page.join(b).unwrap(),
            None => page.clone(),
        };
        let mut refs: Vec<(&str, &url::Url)> = Vec::new();
        if let Some(l) = http["Headers"]["Link"].as_str() {
            let t = &l[l.find('<').unwrap() + 1..l.find('>').unwrap()];
            refs.push((t, &page));
        }
        if http["Response-Message"]["Status"]
            .as_str()
            .unwrap()
            .starts_with('3')
        {
            refs.push((http["Headers"]["Location"].as_str().unwrap(), &page));
        }
        for l in html["Head"]["Link"].as_array().into_iter().flatten() {
            refs.push((l["url"].as_str().unwrap(), &base));
        }
        for m in html["Head"]["Metas"].as_array().into_iter().flatten() {
            if m["property"] == "og:url" {
                refs.push((m["content"].as_str().unwrap(), &base));
            }
        }
        for l in html["Links"].as_array().into_iter().flatten() {
            refs.push((l["url"].as_str().unwrap(), &base));
        }
        for (r, b) in refs {
            out.push((
                page.as_str().to_owned(),
                b.join(r).unwrap().as_str().to_owned(),
            ));
        }
    }
    out
}

#[test]
fn on_a_wat_fixture_every_listed_link_is_an_edge() {
    let path = data("pages.wat.gz");
    let listed = listed_links(&path);
    assert!(listed.len() > 50, "the fixture lists links");
    let r = run(
        std::slice::from_ref(&path),
        Level::String,
        &links::Config::default(),
    );
    // Joined by the URL Standard here, the base parsed once per page: the
    // same edges.
    let joined = links::Config {
        web_join: true,
        ..links::Config::default()
    };
    assert_eq!(run(&[path], Level::String, &joined).csv, r.csv);
    let s = r.summary;
    assert_eq!(
        (s.links, s.accepted, s.rejected),
        (listed.len() as u64, listed.len() as u64, 0)
    );
    let mut want: BTreeMap<(String, String), u64> = BTreeMap::new();
    for e in listed {
        *want.entry(e).or_default() += 1;
    }
    let got: BTreeMap<(String, String), u64> = rows(&r.csv)
        .into_iter()
        .map(|r| ((r[0].clone(), r[1].clone()), r[2].parse().unwrap()))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn host_names_follow_common_crawls_host_graph_rules() {
    // host → the name in cc-pyspark's host graph (ExtractHostLinksJob.
    // get_surt_host); "" where it leaves the host out. Written from its
    // rules: lower case, trailing dot dropped, one-label and IPv4 hosts
    // (also behind `www.`) dropped, `www` dropped while two labels remain,
    // labels of [a-z0-9_-] (not starting or ending with - or _) up to 63
    // octets, other labels as IDNA A-labels, reversed.
    let table = [
        ("example.com", "com.example"),
        ("www.example.com", "com.example"),
        ("WWW.Example.COM", "com.example"),
        ("www.com", "com.www"),
        ("www.www.example.com", "com.example.www"),
        ("a.b.example.co.uk", "uk.co.example.b.a"),
        ("example.com.", "com.example"),
        ("localhost", ""),
        ("192.0.2.7", ""),
        ("www.192.0.2.7", ""),
        ("1.2.3.4.5", "5.4.3.2.1"),
        ("[2001:db8::1]", ""),
        ("münchen.example", "example.xn--mnchen-3ya"),
        ("xn--mnchen-3ya.example", "example.xn--mnchen-3ya"),
        ("under_score.example.com", "com.example.under_score"),
        ("-lead.example.com", ""),
        ("trail-.example.com", ""),
        ("a..example.com", ""),
        (&"x".repeat(64), ""),
        ("", ""),
    ];
    for (host, want) in table {
        let want = (!want.is_empty()).then(|| want.to_owned());
        let label = format!("{host}.com");
        let host = if host.len() == 64 {
            label.as_str()
        } else {
            host
        };
        assert_eq!(graph_host(host), want, "{host}");
    }
}

#[test]
fn the_host_graph_names_hosts_and_drops_self_loops_and_ip_hosts() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("e.csv");
    std::fs::write(
        &p,
        "s,t\n\
         http://www.example.com/a,https://Example.com/b\n\
         http://www.example.com/a,http://blog.example.net/x\n\
         http://example.com/c,//blog.example.net/y\n\
         http://example.com/c,http://192.0.2.1/\n\
         http://example.com/c,http://münchen.example/\n",
    )
    .unwrap();
    let cfg = links::Config {
        kind: Kind::Delimited {
            delimiter: b',',
            header: true,
            source: Column::Index(0),
            target: Column::Index(1),
            base: None,
        },
        graph: Graph::Hosts,
        ..links::Config::default()
    };
    let r = run(&[p], Level::Scheme, &cfg);
    assert_eq!(
        r.csv,
        "source,target,count\ncom.example,net.example.blog,2\ncom.example,example.xn--mnchen-3ya,1\n"
    );
    assert_eq!((r.summary.accepted, r.summary.dropped), (5, 2));
}

#[test]
fn targets_count_distinct_sources() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("e.tsv");
    std::fs::write(
        &p,
        "page\thref\n\
         http://a.example/\t/t\n\
         http://a.example/\t/t\n\
         http://b.example/\thttp://a.example/t\n\
         http://b.example/\thttp://a.example/u\n",
    )
    .unwrap();
    let cfg = links::Config {
        kind: Kind::Delimited {
            delimiter: b'\t',
            header: true,
            source: Column::Name("page".into()),
            target: Column::Name("href".into()),
            base: None,
        },
        targets: true,
        ..links::Config::default()
    };
    let r = run(&[p], Level::Scheme, &cfg);
    assert_eq!(
        r.csv,
        "target,count\nhttp://a.example/t,2\nhttp://a.example/u,1\n"
    );
    assert_eq!(r.summary.edges, 3);
}

fn gz_member(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn warc(kind: &str, ctype: &str, block: &[u8], length: Option<usize>) -> Vec<u8> {
    let mut r = format!(
        "WARC/1.0\r\nWARC-Type: {kind}\r\nWARC-Target-URI: http://a.example/p\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\n\r\n",
        length.unwrap_or(block.len())
    )
    .into_bytes();
    r.extend_from_slice(block);
    r.extend_from_slice(b"\r\n\r\n");
    r
}

fn wat(links: &[&str]) -> Vec<u8> {
    let links: Vec<String> = links
        .iter()
        .map(|u| format!(r#"{{"path":"A@/href","url":{u:?}}}"#))
        .collect();
    format!(
        r#"{{"Envelope":{{"WARC-Header-Metadata":{{"WARC-Type":"response","WARC-Target-URI":"http://a.example/p"}},"Payload-Metadata":{{"HTTP-Response-Metadata":{{"HTML-Metadata":{{"Links":[{}]}}}}}}}}}}"#,
        links.join(",")
    )
    .into_bytes()
}

#[test]
fn malformed_records_are_rejects_with_reason_record_and_offset() {
    let json = "application/json";
    let members = [
        gz_member(&warc(
            "metadata",
            json,
            &wat(&["/ok", "http://[bad/"]),
            None,
        )),
        gz_member(&warc("metadata", json, b"{\"Envelope\": [", None)),
        gz_member(b"not a warc record\r\n\r\n"),
        // A Content-Length that lies: the block is not followed by CRLF CRLF.
        gz_member(&warc("metadata", json, &wat(&["/x"]), Some(20))),
        gz_member(&warc("metadata", json, &wat(&["/y"]), None)),
    ];
    let mut file = Vec::new();
    let mut offsets = Vec::new();
    for m in &members {
        offsets.push(file.len() as u64);
        file.extend_from_slice(m);
    }
    // A truncated last member.
    let last = gz_member(&warc("metadata", json, &wat(&["/z"]), None));
    offsets.push(file.len() as u64);
    file.extend_from_slice(&last[..last.len() / 2]);
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("bad.wat.gz");
    std::fs::write(&p, &file).unwrap();
    let r = run(&[p], Level::Scheme, &links::Config::default());
    assert_eq!(
        r.csv,
        "source,target,count\nhttp://a.example/p,http://a.example/ok,1\nhttp://a.example/p,http://a.example/y,1\n"
    );
    let got: Vec<(u64, u64, u64)> = r
        .rejects
        .iter()
        .map(|x| (x.record, x.offset, x.link))
        .collect();
    assert_eq!(
        got,
        [
            (1, offsets[0], 2),
            (2, offsets[1], 0),
            (3, offsets[2], 0),
            (4, offsets[3], 0),
            (6, offsets[5], 0)
        ]
    );
    let reasons: Vec<&str> = r.rejects.iter().map(|x| x.reason.as_str()).collect();
    assert!(reasons[1].starts_with("WAT JSON"), "{reasons:?}");
    assert!(reasons[2].starts_with("not a WARC record"), "{reasons:?}");
    assert!(
        reasons[3].contains("Content-Length 20 is wrong"),
        "{reasons:?}"
    );
    assert!(
        reasons[4].contains("truncated") || reasons[4].contains("error"),
        "{reasons:?}"
    );
    assert_eq!(r.summary.records_rejected, 4);
    assert_eq!(
        (r.summary.links, r.summary.accepted, r.summary.rejected),
        (3, 2, 1)
    );
}

#[test]
fn a_record_over_the_limit_is_skipped_unread() {
    let big = warc(
        "metadata",
        "application/json",
        &wat(&[&"/a".repeat(5000)]),
        None,
    );
    let small = warc("metadata", "application/json", &wat(&["/b"]), None);
    let mut file = big.clone();
    file.extend_from_slice(&small);
    let mut r = WarcReader::new(&file[..], 1000).unwrap();
    match r.next_record() {
        Next::Reject { place, reason } => {
            assert_eq!((place.number, place.offset), (1, 0));
            assert!(reason.contains("more than the limit"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    match r.next_record() {
        Next::Record(rec) => assert_eq!(rec.place.offset, big.len() as u64),
        other => panic!("{other:?}"),
    }
    assert!(matches!(r.next_record(), Next::End));
}

#[test]
fn output_is_identical_across_threads_and_spilling_budgets() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("gen.wat.gz");
    let status = std::process::Command::new("python3")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/gen_wat.py"))
        .args(["--pages", "300", "--links", "40", "-o"])
        .arg(&p)
        .status()
        .expect("python3 runs scripts/gen_wat.py");
    assert!(status.success());
    let mut outs = Vec::new();
    for (threads, memory, graph) in [
        (1, 1 << 30, Graph::Pages),
        (2, 1 << 30, Graph::Pages),
        (2, 64 << 10, Graph::Pages),
        (1, 64 << 10, Graph::Pages),
        (1, 1 << 30, Graph::Hosts),
        (2, 32 << 10, Graph::Hosts),
    ] {
        let mut cfg = with_columns("source,target,count,first_file,first_record");
        cfg.graph = graph;
        cfg.dedup.memory = memory;
        cfg.dedup.pool = Some(std::sync::Arc::new(
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap(),
        ));
        cfg.dedup.chunk_size = 64 << 10;
        let r = run(std::slice::from_ref(&p), Level::Protocol, &cfg);
        if memory < 1 << 20 {
            assert!(r.summary.dedup.spills > 0, "the budget forces a spill");
        }
        outs.push((graph, r.csv, r.summary.links, r.summary.edges));
    }
    for o in &outs[1..] {
        let first = outs.iter().find(|x| x.0 == o.0).unwrap();
        assert!(o.1 == first.1, "same output for {:?}", o.0);
        assert_eq!(o.2, first.2);
    }
    assert!(outs[0].3 < outs[0].2, "keys merge some links");
}

/// Web mode joins each link to its page's base once parsed, appending a
/// relative link to the part of the base it keeps, and strict mode
/// resolves against the base parsed once (RFC 3986 §5.2): the same edges
/// and rejects as the key function resolving each link itself, for links
/// of every shape the URL Standard's parser tells apart (§4.4).
#[test]
fn the_join_per_page_equals_resolving_each_link() {
    let pages = [
        "http://u:p@h.example:8080/d/e/f?q=1#frag",
        "https://h.example",
        "http://h.example/d/",
        "https://H.EXAMPLE/a/../b/c",
        "http://h.example/d/%7Ex;p?a&b",
        "https://münchen.example/d/",
    ];
    let hrefs = [
        "",
        "#",
        "#f",
        "?",
        "?q=1&r",
        "/",
        "/p/q",
        "//x.example/p",
        "\\\\x.example/p",
        "/\\x.example",
        "\\p",
        "a",
        "a/b",
        "a/b:c",
        "a:b",
        "a b",
        "http:x",
        "http:/x",
        "HTTP://X.EXAMPLE/Y/./Z",
        "https://x.example:443/",
        "ftp://x.example/",
        "mailto:a@b",
        "./a",
        "../a",
        "../../../../a",
        ".",
        "..",
        "%2e%2e/a",
        "%2E/b",
        "~u",
        "-a",
        "_b",
        "1a",
        "1:2",
        "a+b.c-d:e",
        "münchen",
        "/münchen/ä?ö#ü",
        " a",
        "a ",
        "\ta",
        "a\nb",
        "h\ttp://x.example/",
        "//",
        "///x",
        "?a=%zz",
        "/%",
        "[",
        "a#b#c",
        "a?b?c",
        "javascript:void(0)",
        "data:,x",
        "//[::1]/",
        "//x.example:99999/",
        "http://[x/",
        "//MÜNCHEN.example/p",
        "//WWW.Example.COM:80/a/./b",
        "\\\\x.example:0080/a/../b",
        "HTTPS://X.EXAMPLE:0443/a/%2E%2e/b/.",
        "Http://xn--mnchen-3ya.example:8080",
        "https://xn--a.example/",
        "http://0x7f.1/a",
        "http://a.1/",
        "http://ex%41mple.com/a/..",
        "/a/t:/../b",
        "../t:/../b",
        "http://faß.de/?q#f",
        "http://a.example/%7Euser/%41",
    ];
    let mut csv = String::from("s,t\n");
    for p in pages {
        for h in hrefs {
            csv.push_str(&format!("\"{p}\",\"{}\"\n", h.replace('"', "\"\"")));
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("e.csv");
    std::fs::write(&path, csv).unwrap();
    for (mode, level) in [
        (Mode::Web, Level::String),
        (Mode::Web, Level::Syntax),
        (Mode::Strict, Level::String),
        (Mode::Strict, Level::Syntax),
    ] {
        let cfg = |once| links::Config {
            kind: Kind::Delimited {
                delimiter: b',',
                header: true,
                source: Column::Index(0),
                target: Column::Index(1),
                base: None,
            },
            web_join: once && mode == Mode::Web,
            resolve_once: once && mode == Mode::Strict,
            ..with_columns("source,target,count,first_record")
        };
        let each = run_in(mode, std::slice::from_ref(&path), level, &cfg(false));
        let joined = run_in(mode, std::slice::from_ref(&path), level, &cfg(true));
        assert_eq!(joined.csv, each.csv, "{mode:?} {level:?}");
        if mode == Mode::Web {
            // Own `href`s keyed from the join's parse: the same edges.
            let parsed = links::Config {
                own_href_key: Some(own_href_key(level)),
                ..cfg(true)
            };
            let from_parse = run_in(mode, std::slice::from_ref(&path), level, &parsed);
            assert_eq!(from_parse.csv, each.csv, "{level:?}");
            assert_eq!(from_parse.rejects, joined.rejects, "{level:?}");
        }
        let at =
            |r: &Run| -> Vec<(u64, u64)> { r.rejects.iter().map(|r| (r.record, r.link)).collect() };
        assert_eq!(at(&joined), at(&each), "{mode:?} {level:?}");
        let reasons =
            |r: &Run| -> Vec<String> { r.rejects.iter().map(|r| r.reason.clone()).collect() };
        if mode == Mode::Strict {
            assert_eq!(reasons(&joined), reasons(&each), "{level:?}");
        }
        assert!(each.summary.accepted > 100, "{mode:?} {:?}", each.summary);
    }
}

/// Link rejects beyond the held limit are spilled and merged back: the
/// same rejects, in input order, whether none or most were spilled.
#[test]
fn spilled_link_rejects_come_back_in_input_order() {
    let json = "application/json";
    let mut file = Vec::new();
    for i in 0..40 {
        let bad: Vec<String> = (0..1 + i % 4)
            .map(|j| format!("http://[bad{i}-{j}/\t\\\n"))
            .collect();
        let mut links: Vec<&str> = bad.iter().map(|s| s.as_str()).collect();
        links.insert(1, "/ok");
        file.extend(gz_member(&warc("metadata", json, &wat(&links), None)));
        if i % 7 == 0 {
            file.extend(gz_member(b"not a warc record\r\n\r\n"));
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.wat.gz");
    std::fs::write(&path, file).unwrap();
    let held = run(
        std::slice::from_ref(&path),
        Level::Syntax,
        &links::Config::default(),
    );
    assert!(held.rejects.len() > 100, "{}", held.rejects.len());
    for (limit, threads) in [(1, 1), (3, 2), (17, 2)] {
        let mut cfg = links::Config {
            rejects_held: limit,
            ..links::Config::default()
        };
        cfg.dedup.pool = Some(std::sync::Arc::new(
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap(),
        ));
        cfg.dedup.chunk_size = 256;
        cfg.dedup.temp_dir = Some(dir.path().to_path_buf());
        let spilled = run(std::slice::from_ref(&path), Level::Syntax, &cfg);
        assert_eq!(spilled.rejects, held.rejects, "limit {limit}");
        assert_eq!(spilled.csv, held.csv);
    }
    // The spills were unlinked temporary files: nothing is left.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}
