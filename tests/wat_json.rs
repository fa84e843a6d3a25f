//! The WAT JSON scanner (`src/archive/json.rs`) against `serde_json`: on
//! every input — the WAT fixtures' records, odd records, their prefixes and
//! byte mutations, and generated WAT-shaped documents with broken parts —
//! `wat_links` (scanner, serde for what it leaves) gives exactly what
//! `wat_links_serde` (serde alone) gives: the same page and links, or the
//! same error message.

use std::io::Read;

use irinorm::archive::{wat_links, wat_links_serde};

fn agree(json: &str) -> bool {
    let fast = wat_links(json);
    assert_eq!(fast, wat_links_serde(json), "{json:?}");
    matches!(fast, Ok(Some(_)))
}

fn fixture_records() -> Vec<String> {
    let mut out = Vec::new();
    for f in ["pages.wat.gz", "whirlwind.warc.wat.gz"] {
        let path = format!("{}/tests/data/archive/{f}", env!("CARGO_MANIFEST_DIR"));
        let mut text = String::new();
        flate2::read::MultiGzDecoder::new(std::fs::File::open(path).unwrap())
            .read_to_string(&mut text)
            .unwrap();
        out.extend(
            text.lines()
                .filter(|l| l.starts_with('{'))
                .map(String::from),
        );
    }
    out
}

const ODD: &[&str] = &[
    r#"{"Envelope":{"WARC-Header-Metadata":{"WARC-Type":"response","WARC-Target-URI":"http:\/\/e.example\/\u00e9"},"Payload-Metadata":{"HTTP-Response-Metadata":{"HTML-Metadata":{"Links":[{"path":"A@\/href","url":"\ud83d\ude00\/x"}]}}}}}"#,
    r#"{"Envelope":[{"WARC-Type":"response","WARC-Target-URI":"http://arr.example/"},{"HTTP-Response-Metadata":{"HTML-Metadata":{"Links":[["A@/href","/arr"]]}}}]}"#,
    r#"{"Envelope":{"WARC-Header-Metadata":{"WARC-Type":"response","WARC-Type":"response","WARC-Target-URI":"http://d.example/"}}}"#,
    r#"{"Envelope":{"WARC-Header-Metadata":null}}"#,
    r#"{"Envelope":{"WARC-Header-Metadata":{"WARC-Type":"response","WARC-Target-URI":null}}}"#,
    r#"{"Envelope":{"WARC-Header-Metadata":{"WARC-Type":"response","WARC-Target-URI":"http://n/"},"Payload-Metadata":{"HTTP-Response-Metadata":{"Response-Message":{"Status":"302"},"Headers":{"location":["/l1","/l2"],"Link":"</a>, </b>","content-location":"/c","X":[],"Y":false},"HTML-Metadata":{"Head":null,"Links":null}}}}}"#,
    r#"{"Envelope":{"WARC-Header-Metadata":{"WARC-Type":"response","WARC-Target-URI":"http://n/"},"Payload-Metadata":{"HTTP-Response-Metadata":{"Headers":{"Link":1e400}}}}}"#,
    r#"{"Envelope":{"WARC-Header-Metadata":{"WARC-Type":"response","WARC-Target-URI":"http://n/"},"Payload-Metadata":{"HTTP-Response-Metadata":{"HTML-Metadata":{"Links":[{"url":"/a","n":1e400,"s":"\udc00"}]}}}}}"#,
];

#[test]
fn fixtures_odd_records_and_their_mutations_agree() {
    let mut records = fixture_records();
    assert!(records.len() >= 4);
    records.extend(ODD.iter().map(|s| s.to_string()));
    let mut accepted = 0;
    for r in &records {
        accepted += usize::from(agree(r));
        let b = r.as_bytes();
        // Prefixes and single-byte mutations, at most ~300 places a record.
        let step = (b.len() / 300).max(1);
        for i in (0..b.len()).step_by(step) {
            if r.is_char_boundary(i) {
                agree(&r[..i]);
            }
            for &c in b"\"\\{}[],:0-. n\x1f" {
                let mut m = b.to_vec();
                m[i] = c;
                if let Ok(s) = std::str::from_utf8(&m) {
                    accepted += usize::from(agree(s));
                }
            }
        }
    }
    assert!(accepted > 1000, "{accepted}");
}

/// How a slot's value is made.
type Slot = fn(&mut Gen, u32) -> String;

/// A small deterministic generator of WAT-shaped JSON: each slot gets the
/// shape the WAT layout has most of the time, otherwise any value; strings
/// carry escapes (some invalid), numbers some invalid forms.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[(self.next() % xs.len() as u64) as usize]
    }
    fn one_in(&mut self, n: u64) -> bool {
        self.next().is_multiple_of(n)
    }
    fn ws(&mut self) -> &'static str {
        if self.one_in(4) {
            self.pick(&["", " ", "\n", "\t\r "])
        } else {
            ""
        }
    }
    fn string(&mut self) -> String {
        let mut s = String::from("\"");
        for _ in 0..self.next() % 5 {
            s += if self.one_in(40) {
                self.pick(&[
                    r"\ud800",
                    r"\udc00x",
                    r"\x",
                    r"\u12",
                    "\u{1}",
                    r"\ud800\u0041",
                ])
            } else {
                self.pick(&[
                    "http://a.example/",
                    "/p",
                    "x",
                    "é",
                    r"\u00e9",
                    r"\/",
                    r#"\""#,
                    r"\\",
                    r"\n",
                    r"\ud83d\ude00",
                    "A@/href",
                    "og:url",
                    "thumbnail",
                    "//h/",
                    " ",
                ])
            };
        }
        s + "\""
    }
    fn any(&mut self, depth: u32) -> String {
        match self.next() % if depth > 3 { 4 } else { 6 } {
            0 => self.string(),
            1 => self
                .pick(&[
                    "0", "-1", "1.5", "1e5", "-0.0E-3", "01", "1.", "1e400", "-", "2e+1",
                ])
                .into(),
            2 => self.pick(&["null", "true", "false", "nul", "tru"]).into(),
            3 => self.string(),
            4 => {
                let items: Vec<String> =
                    (0..self.next() % 4).map(|_| self.any(depth + 1)).collect();
                format!("[{}]", items.join(","))
            }
            _ => {
                let items: Vec<String> = (0..self.next() % 4)
                    .map(|_| format!("{}:{}", self.string(), self.any(depth + 1)))
                    .collect();
                format!("{{{}}}", items.join(","))
            }
        }
    }
    /// An object of the given fields, each present or not, some twice,
    /// with unknown members between.
    fn object(&mut self, fields: &[(&str, Slot)], depth: u32) -> String {
        if self.one_in(40) {
            return self.pick(&["null", "[]", "\"s\"", "1"]).into();
        }
        let mut members = Vec::new();
        for (name, value) in fields {
            for _ in 0..(if self.one_in(30) { 2 } else { 1 }) {
                if !self.one_in(8) {
                    let v = value(self, depth + 1);
                    // Now and then the name with an escape (the same key
                    // to serde, not to a reader matching raw bytes).
                    let name = if self.one_in(25) {
                        format!("\\u{:04x}{}", u32::from(name.as_bytes()[0]), &name[1..])
                    } else {
                        name.to_string()
                    };
                    members.push(format!("\"{name}\"{}:{}{v}", self.ws(), self.ws()));
                }
            }
            if self.one_in(4) {
                let (k, v) = (self.string(), self.any(depth + 1));
                members.push(format!("{k}:{v}"));
            }
        }
        format!(
            "{{{}{}}}",
            self.ws(),
            members.join(&format!(",{}", self.ws()))
        )
    }
    fn text(&mut self, _: u32) -> String {
        if self.one_in(10) {
            self.any(3)
        } else {
            self.string()
        }
    }
    fn list(&mut self, item: fn(&mut Gen, u32) -> String, depth: u32) -> String {
        if self.one_in(40) {
            return self.any(depth);
        }
        let items: Vec<String> = (0..self.next() % 4).map(|_| item(self, depth)).collect();
        format!("[{}]", items.join(","))
    }
    fn link(&mut self, d: u32) -> String {
        self.object(
            &[
                ("path", Gen::text),
                ("url", Gen::text),
                ("text", Gen::text),
                ("href", Gen::text),
            ],
            d,
        )
    }
    fn meta(&mut self, d: u32) -> String {
        self.object(
            &[
                ("name", Gen::text),
                ("property", Gen::text),
                ("content", Gen::text),
            ],
            d,
        )
    }
    fn header(&mut self, d: u32) -> String {
        match self.next() % 8 {
            0 => format!("[{},{}]", self.string(), self.string()),
            1 => self.any(d),
            _ => self.string(),
        }
    }
    fn headers(&mut self, d: u32) -> String {
        let fields: [(&str, Slot); 4] = [
            ("Link", Gen::header),
            ("Location", Gen::header),
            ("content-location", Gen::header),
            ("Link", Gen::header),
        ];
        self.object(&fields, d)
    }
    fn head(&mut self, d: u32) -> String {
        self.object(
            &[
                ("Base", Gen::text),
                ("Link", |g, d| g.list(Gen::link, d)),
                ("Metas", |g, d| g.list(Gen::meta, d)),
                ("Scripts", |g, d| g.list(Gen::link, d)),
            ],
            d,
        )
    }
    fn html(&mut self, d: u32) -> String {
        self.object(
            &[("Head", Gen::head), ("Links", |g, d| g.list(Gen::link, d))],
            d,
        )
    }
    fn message(&mut self, d: u32) -> String {
        self.object(
            &[("Status", |g, _| {
                g.pick(&["\"200\"", "\"301\"", "301"]).into()
            })],
            d,
        )
    }
    fn http(&mut self, d: u32) -> String {
        self.object(
            &[
                ("Response-Message", Gen::message),
                ("Headers", Gen::headers),
                ("HTML-Metadata", Gen::html),
            ],
            d,
        )
    }
    fn payload(&mut self, d: u32) -> String {
        self.object(&[("HTTP-Response-Metadata", Gen::http)], d)
    }
    fn warc(&mut self, d: u32) -> String {
        self.object(
            &[
                ("WARC-Type", |g, _| {
                    g.pick(&["\"response\"", "\"response\"", "\"request\""])
                        .into()
                }),
                ("WARC-Target-URI", Gen::text),
            ],
            d,
        )
    }
    fn envelope(&mut self, d: u32) -> String {
        self.object(
            &[
                ("WARC-Header-Metadata", Gen::warc),
                ("Payload-Metadata", Gen::payload),
            ],
            d,
        )
    }
    fn document(&mut self) -> String {
        let doc = self.object(&[("Envelope", Gen::envelope)], 0);
        match self.next() % 20 {
            0 => {
                let mut cut = self.next() as usize % (doc.len() + 1);
                while !doc.is_char_boundary(cut) {
                    cut -= 1;
                }
                doc[..cut].to_string()
            }
            1 => doc + self.pick(&[" x", "}", " ", ",{}"]),
            _ => doc,
        }
    }
}

#[test]
fn generated_documents_agree() {
    let (mut accepted, n) = (0, 10_000u64);
    for seed in 1..=n {
        let doc = Gen(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15)).document();
        accepted += usize::from(agree(&doc));
    }
    // Enough of them are pages with links for the comparison to mean much.
    assert!(accepted > n as usize / 20, "{accepted}");
}

/// `Links` arrays of generated link objects (keys in any order, with
/// whitespace, escapes, duplicates and unknown members; values of any
/// type) in a page that is otherwise plain: the scanner's `Links` reader
/// against serde, on many links.
#[test]
fn generated_links_agree() {
    let (mut links, n) = (0, 12_000u64);
    for seed in 1..=n {
        let mut g = Gen(seed.wrapping_mul(0xD1B5_4A32_D192_ED03));
        let items: Vec<String> = (0..g.next() % 6).map(|_| g.link(1)).collect();
        let doc = format!(
            r#"{{"Envelope":{{"WARC-Header-Metadata":{{"WARC-Type":"response","WARC-Target-URI":"http://a.example/"}},"Payload-Metadata":{{"HTTP-Response-Metadata":{{"HTML-Metadata":{{"Links":[{}]}}}}}}}}}}"#,
            items.join(",")
        );
        if agree(&doc) {
            links += wat_links(&doc).unwrap().unwrap().links.len();
        }
    }
    assert!(links > 2_000, "{links}");
}
