//! Web-archive interop end to end through the library: CDX / CDXJ files →
//! rules learned from digests → rules file → keys at the protocol rung.
//! Fixtures: `tests/archive/` (hand-written, see its README).

use std::sync::Arc;

use irinorm::learn::digest::{learn, read_records, DigestFormat, DigestOptions};
use irinorm::learn::Learned;
use irinorm::{Level, Normalizer, Options, ProtocolRules, Rules};

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/tests/archive/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn rules_from(name: &str) -> Learned {
    rules_with(name, &DigestOptions::default())
}

fn rules_with(name: &str, opts: &DigestOptions) -> Learned {
    let format = DigestFormat::from_path(name).unwrap();
    let read = read_records(&fixture(name)[..], format).unwrap();
    assert_eq!(read.records.len(), 62, "{name}");
    assert_eq!(read.rejected.len(), 1, "{name}: {:?}", read.rejected);
    assert_eq!(
        read.rejected[0].0,
        63 + usize::from(format == DigestFormat::Cdx)
    );
    Learned::default().with_content(learn(&read.records, opts))
}

#[test]
fn cdx_and_cdxj_learn_the_same_rules_and_they_survive_the_rules_file() {
    let cdx = rules_from("crawl.cdx");
    let cdxj = rules_from("crawl.cdxj");
    assert_eq!(cdx.to_tsv(), cdxj.to_tsv());
    // `sid`'s merged pairs include the last page's, a year apart and
    // different; this origin shows no drift of its own (no URL captured
    // twice), so that disagreement refuses `sid`.
    let tsv = cdx.to_tsv();
    assert!(
        tsv.contains("http://shop.example\tignore-param\tsid\t10\t1\t"),
        "{tsv}"
    );
    assert!(
        tsv.contains("http://shop.example\tignore-param\tutm_source\t10\t0\t"),
        "{tsv}"
    );
    // Pairs more than 300 days apart are not compared: `sid` holds.
    let opts = DigestOptions {
        window: Some(300 * 86_400),
        ..DigestOptions::default()
    };
    let tsv = rules_with("crawl.cdx", &opts).to_tsv();
    assert!(
        tsv.contains("http://shop.example\tignore-param\tsid\t10\t0\t"),
        "{tsv}"
    );
    assert!(!tsv.contains("\tid\t"), "{tsv}");

    let back = Learned::from_tsv(&tsv).unwrap();
    let n = Normalizer::new(Options {
        level: Level::Protocol,
        ..Options::default()
    })
    .with_protocol(Arc::new(ProtocolRules::new(Rules::NONE, Some(back))));
    // Fresh values on a page not in the crawl.
    assert_eq!(
        n.key("http://shop.example/news/99?id=5&sid=123&utm_source=mail")
            .unwrap(),
        "http://shop.example/news/99?id=5"
    );
    assert_eq!(
        n.key("http://shop.example/news/99?id=6").unwrap(),
        "http://shop.example/news/99?id=6"
    );
    assert_eq!(
        n.key("https://shop.example/news/99?sid=1").unwrap(),
        "https://shop.example/news/99?sid=1"
    );
}
