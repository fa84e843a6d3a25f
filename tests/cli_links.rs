//! `irinorm links` end to end through the binary: format inference from
//! `.wat.gz`/`.warc.gz`/`.csv`, `--hosts`, `--targets`, `--columns`, the
//! rejects file, `--strict`, and identical output across `--threads` and
//! a `--memory` that spills. Fixtures: tests/data/archive (SOURCES.md).

mod common;

use common::{ok, run};

fn data(name: &str) -> String {
    format!("{}/tests/data/archive/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn err(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_warc_gives_page_edges_and_its_summary() {
    let o = run(&["links", &data("whirlwind.warc.gz")], b"");
    let out = ok(&o);
    assert!(out.starts_with("source,target,count\n"));
    assert!(out.contains(
        "https://an.wikipedia.org/wiki/Escopete,https://an.m.wikipedia.org/wiki/Escopete,"
    ));
    let e = err(&o);
    assert!(
        e.contains("4 records (0 rejected), 1 pages: 257 links, 257 accepted, 0 rejected"),
        "{e}"
    );
}

#[test]
fn a_wat_is_recognised_by_its_name_and_the_host_graph_is_reversed() {
    let o = run(&["links", "--hosts", &data("pages.wat.gz")], b"");
    let out = ok(&o);
    let mut rows = out.lines();
    assert_eq!(rows.next(), Some("source,target,count"));
    for r in rows {
        let mut f = r.split(',');
        let (s, t) = (f.next().unwrap(), f.next().unwrap());
        assert_ne!(s, t, "no self-loop");
        assert!(!s.starts_with("www.") && !t.contains("192"), "{r}");
        assert!(
            s.starts_with("com.")
                || s.starts_with("org.")
                || s.starts_with("net.")
                || s.starts_with("uk.")
                || s.starts_with("example."),
            "{r}"
        );
    }
    assert!(err(&o).contains("left out of the host graph"));
}

#[test]
fn columns_targets_and_csv_edges() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("edges.csv");
    std::fs::write(
        &p,
        "page,href,base\nhttp://a.example/x/,y,\nhttp://b.example/,z,http://a.example/x/\nhttp://b.example/,http://[bad,\n",
    )
    .unwrap();
    let p = p.to_str().unwrap();
    let rejects = dir.path().join("rejects.csv");
    let o = run(
        &[
            "links",
            p,
            "--source-column",
            "page",
            "--column",
            "href",
            "--base-column",
            "base",
            "--columns",
            "source,target,path,count,first_file,first_record",
            "--rejects",
            rejects.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(
        ok(&o),
        format!(
            "source,target,path,count,first_file,first_record\n\
             http://a.example/x/,http://a.example/x/y,,1,{p},2\n\
             http://b.example/,http://a.example/x/z,,1,{p},3\n"
        )
    );
    let rej = std::fs::read_to_string(&rejects).unwrap();
    assert!(rej.starts_with("file,record,offset,link,path,input,error\n"));
    assert!(rej.contains(&format!("{p},4,0,1,,http://[bad,")), "{rej}");
    let o = run(
        &[
            "links",
            "--targets",
            p,
            "--column",
            "href",
            "--source-column",
            "1",
        ],
        b"",
    );
    assert_eq!(
        ok(&o),
        "target,count\nhttp://a.example/x/y,1\nhttp://b.example/z,1\n"
    );
    let o = run(&["links", "--strict", p, "--column", "2"], b"");
    assert_eq!(o.status.code(), Some(1), "--strict and a rejected link");
}

#[test]
fn threads_and_a_spilling_budget_give_the_same_bytes() {
    let mut outs = Vec::new();
    for args in [
        ["-j", "1", "--memory", "1G"],
        ["-j", "2", "--memory", "1G"],
        ["-j", "2", "--memory", "16K"],
    ] {
        let mut a = vec!["links", "--level", "protocol"];
        a.extend(args);
        let p = data("pages.wat.gz");
        a.push(&p);
        outs.push(ok(&run(&a, b"")));
    }
    assert!(outs.len() == 3 && outs[0] == outs[1] && outs[1] == outs[2]);
}

#[test]
fn bad_flags_are_usage_errors() {
    let o = run(
        &["links", "--hosts", "--form", "iri", &data("pages.wat.gz")],
        b"",
    );
    assert_eq!(o.status.code(), Some(2));
    let o = run(
        &["links", "--columns", "target,source", &data("pages.wat.gz")],
        b"",
    );
    assert_eq!(o.status.code(), Some(2));
    let o = run(&["links", "--column", "2", &data("pages.wat.gz")], b"");
    assert_eq!(o.status.code(), Some(2));
}
