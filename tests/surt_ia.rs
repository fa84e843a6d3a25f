//! `--form surt-ia` against the `surt` Python package 0.3.1 on the bundled
//! real samples (`data/*.txt`); expected values and their provenance in
//! `tests/surt_ia/` (README.md, gen.py).

use std::collections::BTreeMap;
use std::io::Read;

use irinorm::surt_ia_bytes;

const SAMPLES: [&str; 4] = [
    "data/kasztp.txt",
    "data/node_files.txt",
    "data/isaacs_files.txt",
    "tests/surt_ia/edge_cases.txt",
];

/// Lines as `gen.py` splits them.
fn lines(data: &[u8]) -> Vec<&[u8]> {
    let data = data.strip_prefix(b"\xef\xbb\xbf").unwrap_or(data);
    let mut v: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
    if v.last() == Some(&&b""[..]) {
        v.pop();
    }
    v
}

fn root(p: &str) -> String {
    format!("{}/{p}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn agrees_with_surt_0_3_1_on_the_samples() {
    let listed: BTreeMap<String, String> =
        std::fs::read_to_string(root("tests/surt_ia/expected_differences.txt"))
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .map(|l| {
                let (case, why) = l.split_once('\t').expect("CASE<TAB>reason");
                (case.to_owned(), why.to_owned())
            })
            .collect();
    let mut found = BTreeMap::new();
    let mut total = 0;
    for path in SAMPLES {
        let name = &path[path.rfind('/').unwrap() + 1..path.len() - 4];
        let data = std::fs::read(root(path)).unwrap();
        let mut gz = Vec::new();
        flate2::read::GzDecoder::new(
            std::fs::File::open(root(&format!("tests/surt_ia/{name}.out.gz"))).unwrap(),
        )
        .read_to_end(&mut gz)
        .unwrap();
        let inputs = lines(&data);
        let expected = lines(&gz);
        assert_eq!(inputs.len(), expected.len(), "{name}");
        for (i, (input, want)) in inputs.iter().zip(&expected).enumerate() {
            total += 1;
            let got = surt_ia_bytes(input);
            let ok = match &got {
                Ok(k) => k == want,
                Err(_) => want.starts_with(b"!ERR "),
            };
            if !ok {
                found.insert(
                    format!("{name}:{}", i + 1),
                    format!(
                        "{:?} → ours {:?}, surt {:?}",
                        String::from_utf8_lossy(input),
                        got.map(|k| String::from_utf8_lossy(&k).into_owned()),
                        String::from_utf8_lossy(want)
                    ),
                );
            }
        }
    }
    let unlisted: Vec<_> = found
        .iter()
        .filter(|(k, _)| !listed.contains_key(*k))
        .collect();
    let now_passing: Vec<_> = listed.keys().filter(|k| !found.contains_key(*k)).collect();
    assert!(
        unlisted.is_empty() && now_passing.is_empty(),
        "{total} lines; {} unlisted differences (first 20: {:#?}); listed but now agreeing: {now_passing:?}",
        unlisted.len(),
        unlisted.iter().take(20).collect::<Vec<_>>()
    );
    assert!(total > 97_000);
}
