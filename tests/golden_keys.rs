//! Keys do not move (issue 9): the key of every line of the bundled data and
//! of a sample of the generated corpus, at every level × form (and with NFC),
//! hashes to the digest recorded in `tests/data/golden_keys.txt`.
//!
//! The digests were written by the code *before* the single-pass rewrite of
//! `Normalizer::key` (commit 8b858c2), so any optimisation that changes one
//! key byte — or one error message, which is the reject reason users see —
//! fails here. Per corpus × level × form × nfc, the digest is the SHA-256 of
//! `key "\n"` (or `"!" error "\n"`) for every input line in order.
//!
//! Corpora (all in the repository):
//! * `kasztp`, `node_files`, `isaacs_files` — `data/*.txt`, split at `\n`,
//!   kasztp's BOM stripped, empty lines skipped;
//! * `cc_resolved` — `data/relative_urls_cc_10k.csv`: each `relative`
//!   resolved against its `base` (`Normalizer::with_base`), and each base on
//!   its own;
//! * `corpus_sample` — `tests/data/corpus_sample_10k.txt.gz`, every 500th
//!   line of `gen_corpus --lines 5000000 --seed 1` (see tests/data/README.md).
//!
//! After an *intended* change of keys, rewrite the file with
//! `IRINORM_GOLDEN_WRITE=1 cargo test --release --test golden_keys` and say
//! why in the commit.

use std::fmt::Write as _;
use std::io::Read;
use std::path::{Path, PathBuf};

use irinorm::{Form, Level, Normalizer, Options};

mod sha256 {
    //! FIPS 180-4 SHA-256, enough for test digests (no dependency).
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
    ];

    pub struct Sha256 {
        h: [u32; 8],
        buf: Vec<u8>,
        len: u64,
    }

    impl Sha256 {
        pub fn new() -> Self {
            Sha256 {
                h: [
                    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c,
                    0x1f83d9ab, 0x5be0cd19,
                ],
                buf: Vec::with_capacity(64),
                len: 0,
            }
        }

        pub fn update(&mut self, mut data: &[u8]) {
            self.len += data.len() as u64;
            while !data.is_empty() {
                let take = (64 - self.buf.len()).min(data.len());
                self.buf.extend_from_slice(&data[..take]);
                data = &data[take..];
                if self.buf.len() == 64 {
                    let block: [u8; 64] = self.buf[..].try_into().unwrap();
                    self.block(&block);
                    self.buf.clear();
                }
            }
        }

        fn block(&mut self, b: &[u8; 64]) {
            let mut w = [0u32; 64];
            for t in 0..16 {
                w[t] = u32::from_be_bytes(b[4 * t..4 * t + 4].try_into().unwrap());
            }
            for t in 16..64 {
                let s0 = w[t - 15].rotate_right(7) ^ w[t - 15].rotate_right(18) ^ (w[t - 15] >> 3);
                let s1 = w[t - 2].rotate_right(17) ^ w[t - 2].rotate_right(19) ^ (w[t - 2] >> 10);
                w[t] = w[t - 16]
                    .wrapping_add(s0)
                    .wrapping_add(w[t - 7])
                    .wrapping_add(s1);
            }
            let [mut a, mut b2, mut c, mut d, mut e, mut f, mut g, mut h] = self.h;
            for t in 0..64 {
                let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
                let ch = (e & f) ^ (!e & g);
                let t1 = h
                    .wrapping_add(s1)
                    .wrapping_add(ch)
                    .wrapping_add(K[t])
                    .wrapping_add(w[t]);
                let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
                let maj = (a & b2) ^ (a & c) ^ (b2 & c);
                let t2 = s0.wrapping_add(maj);
                h = g;
                g = f;
                f = e;
                e = d.wrapping_add(t1);
                d = c;
                c = b2;
                b2 = a;
                a = t1.wrapping_add(t2);
            }
            for (x, y) in self.h.iter_mut().zip([a, b2, c, d, e, f, g, h]) {
                *x = x.wrapping_add(y);
            }
        }

        pub fn hex(mut self) -> String {
            let bits = self.len * 8;
            self.update(&[0x80]);
            while self.buf.len() != 56 {
                self.update(&[0]);
            }
            self.update(&bits.to_be_bytes());
            self.h.iter().map(|x| format!("{x:08x}")).collect()
        }
    }
}

fn sha256_hex(data: &[u8]) -> String {
    let mut h = sha256::Sha256::new();
    h.update(data);
    h.hex()
}

#[test]
fn sha256_known_answers() {
    // FIPS 180-4 examples.
    assert_eq!(
        sha256_hex(b"abc"),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    assert_eq!(
        sha256_hex(b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    );
    assert_eq!(
        sha256_hex(b""),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// One input: a line, and the base it is resolved against (if any).
type Input = (String, Option<String>);

fn lines_of(text: &str) -> Vec<Input> {
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    text.split('\n')
        .filter(|l| !l.is_empty())
        .map(|l| (l.to_owned(), None))
        .collect()
}

fn corpora() -> Vec<(&'static str, Vec<Input>)> {
    let data = root().join("data");
    let read = |p: &Path| String::from_utf8_lossy(&std::fs::read(p).unwrap()).into_owned();
    let mut out = Vec::new();
    for name in ["kasztp", "node_files", "isaacs_files"] {
        out.push((name, lines_of(&read(&data.join(format!("{name}.txt"))))));
    }
    let mut cc = Vec::new();
    for row in read(&data.join("relative_urls_cc_10k.csv")).lines().skip(1) {
        let (base, rel) = row.split_once(',').unwrap();
        cc.push((base.to_owned(), None));
        cc.push((rel.to_owned(), Some(base.to_owned())));
    }
    out.push(("cc_resolved", cc));
    let gz = std::fs::read(root().join("tests/data/corpus_sample_10k.txt.gz")).unwrap();
    let mut text = String::new();
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_string(&mut text)
        .unwrap();
    out.push(("corpus_sample", lines_of(&text)));
    out
}

fn form_name(f: Form) -> &'static str {
    match f {
        Form::Uri => "uri",
        Form::Iri => "iri",
        Form::Surt => "surt",
    }
}

/// `corpus level form nfc ok errors sha256` for every combination.
fn digests() -> String {
    let mut table = String::new();
    for (name, inputs) in corpora() {
        for level in Level::ALL {
            for form in [Form::Uri, Form::Iri, Form::Surt] {
                for nfc in [false, true] {
                    let n = Normalizer::new(Options { level, form, nfc });
                    let mut h = sha256::Sha256::new();
                    let (mut ok, mut err) = (0usize, 0usize);
                    for (line, base) in &inputs {
                        let k = match base {
                            None => n.key(line).map(|k| k.into_owned()),
                            Some(b) => match n.clone().with_base(b) {
                                Ok(nb) => nb.key(line).map(|k| k.into_owned()),
                                Err(e) => Err(e),
                            },
                        };
                        match k {
                            Ok(k) => {
                                ok += 1;
                                h.update(k.as_bytes());
                            }
                            Err(e) => {
                                err += 1;
                                h.update(format!("!{e}").as_bytes());
                            }
                        }
                        h.update(b"\n");
                    }
                    writeln!(
                        table,
                        "{name} {} {} {nfc} {ok} {err} {}",
                        level.name(),
                        form_name(form),
                        h.hex()
                    )
                    .unwrap();
                }
            }
        }
    }
    table
}

#[test]
fn keys_match_the_golden_digests() {
    let path = root().join("tests/data/golden_keys.txt");
    let got = digests();
    if std::env::var_os("IRINORM_GOLDEN_WRITE").is_some() {
        std::fs::write(&path, &got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap();
    let mut diff = Vec::new();
    for (w, g) in want.lines().zip(got.lines()) {
        if w != g {
            diff.push(format!("want {w}\n got {g}"));
        }
    }
    assert_eq!(want.lines().count(), got.lines().count());
    assert!(
        diff.is_empty(),
        "{} of {} digests differ:\n{}",
        diff.len(),
        got.lines().count(),
        diff.join("\n")
    );
}
