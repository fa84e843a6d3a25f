//! Web-archive index records: CDX and CDXJ lines.
//!
//! **CDX** (the Wayback Machine / Heritrix index format): one capture per
//! line, fields separated by single spaces. An optional first line
//! ` CDX N b a m s k r M S V g` names the fields by letter; the letters read
//! here are `a` (original URL), `k` (content digest), `b` (14-digit
//! timestamp), `s` (HTTP status), `r` (redirect target) and `N` (massaged
//! URL / SURT key). Without a
//! header the common CDX11 order `N b a m s k r M S V g` is assumed
//! (urlkey, timestamp, original, mime, status, digest, redirect, meta,
//! length, offset, file). `-` means "no value".
//!
//! **CDXJ** (pywb, Common Crawl's URL index): `surtkey timestamp {json}`,
//! where the JSON object carries `url`, `digest`, `status` and, in Common
//! Crawl's index, `redirect`.
//!
//! The reference of a record is its *original* URL (`a` / `url`), never the
//! SURT key, which is already lossy. A malformed line is an `Err` with a
//! reason; nothing here panics on any input.
//!
//! ```
//! use irinorm::cdx::{CdxLayout, Format};
//! let mut l = CdxLayout::new(Format::Cdx);
//! assert!(l.header(" CDX a k b").unwrap());
//! let r = l.record("http://a.example/ sha1:AB 20200101000000").unwrap();
//! assert_eq!(r.url, "http://a.example/");
//! assert_eq!(r.digest.as_deref(), Some("sha1:AB"));
//! ```

use std::borrow::Cow;

/// Which index format a line is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Cdx,
    Cdxj,
}

/// The CDX11 field letters, the order assumed without a header.
pub const CDX11: &str = "N b a m s k r M S V g";

/// One capture: the original URL and, when the record has them, the
/// content digest, the timestamp and the HTTP status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record<'a> {
    pub url: Cow<'a, str>,
    pub urlkey: Option<Cow<'a, str>>,
    pub digest: Option<Cow<'a, str>>,
    /// `YYYY[MM[DD[hh[mm[ss]]]]]`, digits only (4 to 14).
    pub timestamp: Option<Cow<'a, str>>,
    /// Three digits.
    pub status: Option<Cow<'a, str>>,
    /// The `Location` of a redirect, as recorded (may be relative).
    pub redirect: Option<Cow<'a, str>>,
}

/// Field positions of a CDX file (from its header or CDX11), or CDXJ.
#[derive(Debug, Clone)]
pub struct CdxLayout {
    format: Format,
    letters: Vec<String>,
    url: Option<usize>,
    urlkey: Option<usize>,
    digest: Option<usize>,
    timestamp: Option<usize>,
    status: Option<usize>,
    redirect: Option<usize>,
}

fn dash(s: &str) -> Option<&str> {
    (!s.is_empty() && s != "-").then_some(s)
}

fn check_timestamp(t: &str) -> Result<(), String> {
    if (4..=14).contains(&t.len()) && t.bytes().all(|b| b.is_ascii_digit()) {
        Ok(())
    } else {
        Err(format!(
            "timestamp {:?} is not 4 to 14 digits",
            t.escape_debug().to_string()
        ))
    }
}

fn check_status(s: &str) -> Result<(), String> {
    if s.len() == 3 && s.bytes().all(|b| b.is_ascii_digit()) {
        Ok(())
    } else {
        Err(format!(
            "status {:?} is not three digits",
            s.escape_debug().to_string()
        ))
    }
}

impl CdxLayout {
    /// CDX11 order for [`Format::Cdx`]; the JSON fields for CDXJ.
    pub fn new(format: Format) -> Self {
        let mut l = CdxLayout {
            format,
            letters: Vec::new(),
            url: None,
            urlkey: None,
            digest: None,
            timestamp: None,
            status: None,
            redirect: None,
        };
        if format == Format::Cdx {
            l.set_letters(CDX11);
        }
        l
    }

    pub fn format(&self) -> Format {
        self.format
    }

    fn set_letters(&mut self, letters: &str) {
        self.letters = letters.split(' ').map(str::to_owned).collect();
        let at = |c: &str| self.letters.iter().position(|l| l == c);
        self.url = at("a");
        self.urlkey = at("N");
        self.digest = at("k");
        self.timestamp = at("b");
        self.status = at("s");
        self.redirect = at("r");
    }

    /// If `line` is a CDX header (` CDX a b …`), take its field letters and
    /// return `Ok(true)`; `Ok(false)` for any other line. A header without
    /// an `a` (original URL) field is an error. CDXJ has no header.
    pub fn header(&mut self, line: &str) -> Result<bool, String> {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let Some(rest) = line.strip_prefix(" CDX ") else {
            return Ok(false);
        };
        if self.format != Format::Cdx {
            return Ok(false);
        }
        let letters = rest.trim();
        if letters.split(' ').any(|l| l.chars().count() != 1) {
            return Err(format!(
                "CDX header {:?}: fields must be single letters separated by single spaces",
                line.escape_debug().to_string()
            ));
        }
        self.set_letters(letters);
        if self.url.is_none() {
            return Err("CDX header has no 'a' (original URL) field".into());
        }
        Ok(true)
    }

    /// Parse one record line (without its line end).
    pub fn record<'a>(&self, line: &'a str) -> Result<Record<'a>, String> {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            return Err("empty line".into());
        }
        match self.format {
            Format::Cdx => self.cdx(line),
            Format::Cdxj => cdxj(line),
        }
    }

    fn cdx<'a>(&self, line: &'a str) -> Result<Record<'a>, String> {
        // One pass over the fields, keeping only those read (no Vec per
        // record: this runs once per line of a large index).
        let wanted = [
            self.url,
            self.urlkey,
            self.digest,
            self.timestamp,
            self.status,
            self.redirect,
        ];
        let mut got: [Option<&str>; 6] = [None; 6];
        let mut n = 0;
        for (i, f) in line.split(' ').enumerate() {
            for (w, g) in wanted.iter().zip(got.iter_mut()) {
                if *w == Some(i) {
                    *g = dash(f);
                }
            }
            n = i + 1;
        }
        if n != self.letters.len() {
            return Err(format!(
                "{n} fields, the layout `{}` has {}",
                self.letters.join(" "),
                self.letters.len()
            ));
        }
        let [url, urlkey, digest, timestamp, status, redirect] = got;
        let url = url.ok_or("no original URL (field 'a')")?;
        if let Some(t) = timestamp {
            check_timestamp(t)?;
        }
        if let Some(s) = status {
            check_status(s)?;
        }
        Ok(Record {
            url: Cow::Borrowed(url),
            urlkey: urlkey.map(Cow::Borrowed),
            digest: digest.map(Cow::Borrowed),
            timestamp: timestamp.map(Cow::Borrowed),
            status: status.map(Cow::Borrowed),
            redirect: redirect.map(Cow::Borrowed),
        })
    }
}

impl CdxLayout {
    /// The output line of `normalize`: the record with the key next to its
    /// fields. CDX: the key appended as a last field (`-` for none), and a
    /// header line gets the letter `A` (CDX "canonized URL"); CDXJ: a
    /// `"canonical"` member appended to the JSON object (`null` for none).
    /// The key must not contain a space (keys never do: they are URIs or
    /// SURTs of URIs).
    pub fn with_key(&self, line: &str, key: Option<&str>) -> Result<String, String> {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if key.is_some_and(|k| k.is_empty() || k.contains([' ', '\n', '\r'])) {
            return Err(
                "an empty key or one with a space or line break cannot be a CDX field".into(),
            );
        }
        match self.format {
            Format::Cdx => Ok(format!("{line} {}", key.unwrap_or("-"))),
            Format::Cdxj => {
                let body = line.trim_end();
                let Some(open) = body.find('{') else {
                    return Err("CDXJ: no JSON object".into());
                };
                let Some(inner) = body[open + 1..].strip_suffix('}') else {
                    return Err("CDXJ: the JSON object is not closed".into());
                };
                let quoted = serde_json::to_string(&key).map_err(|e| e.to_string())?;
                let sep = if inner.trim().is_empty() { "" } else { ", " };
                Ok(format!(
                    "{}{{{}{sep}\"canonical\": {quoted}}}",
                    &body[..open],
                    inner.trim_end()
                ))
            }
        }
    }

    /// The header line `normalize` writes for a CDX header it read.
    pub fn header_with_key(line: &str) -> String {
        let line = line.strip_suffix('\r').unwrap_or(line);
        // `header` accepts surrounding spaces; the header written back must
        // be one it accepts again (found by the `cdx` fuzz target).
        match line.strip_prefix(" CDX ") {
            Some(rest) => format!(" CDX {} A", rest.trim()),
            None => format!("{line} A"),
        }
    }
}

fn json_str<'a>(
    obj: &serde_json::Map<String, serde_json::Value>,
    name: &str,
) -> Result<Option<Cow<'a, str>>, String> {
    match obj.get(name) {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(serde_json::Value::String(s)) => Ok(dash(s).map(|s| Cow::Owned(s.to_owned()))),
        Some(serde_json::Value::Number(n)) => Ok(Some(Cow::Owned(n.to_string()))),
        Some(_) => Err(format!("JSON field {name:?} is not a string")),
    }
}

fn cdxj(line: &str) -> Result<Record<'_>, String> {
    let (urlkey, rest) = line
        .split_once(' ')
        .ok_or("CDXJ: expected `surtkey timestamp {json}`")?;
    let (timestamp, json) = rest
        .split_once(' ')
        .ok_or("CDXJ: expected `surtkey timestamp {json}`")?;
    check_timestamp(timestamp)?;
    let value: serde_json::Value =
        serde_json::from_str(json).map_err(|e| format!("CDXJ: invalid JSON ({e})"))?;
    let obj = value.as_object().ok_or("CDXJ: the JSON is not an object")?;
    let url = json_str(obj, "url")?.ok_or("CDXJ: no \"url\" in the JSON")?;
    let status = json_str(obj, "status")?;
    if let Some(s) = &status {
        check_status(s)?;
    }
    Ok(Record {
        url,
        urlkey: dash(urlkey).map(Cow::Borrowed),
        digest: json_str(obj, "digest")?,
        timestamp: Some(Cow::Borrowed(timestamp)),
        status,
        redirect: json_str(obj, "redirect")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // pywb documentation's classic CDX example.
    const CDX: &str = " CDX N b a m s k r M S V g\n\
        com,example)/ 20160225042329 http://example.com/ text/html 200 \
        37cf167c2672a4a64af901d9484e75eee0e2c98a - - 1286 363 example2.warc.gz";

    #[test]
    fn cdx_with_header() {
        let mut l = CdxLayout::new(Format::Cdx);
        let mut lines = CDX.lines();
        assert!(l.header(lines.next().unwrap()).unwrap());
        let r = l.record(lines.next().unwrap()).unwrap();
        assert_eq!(r.url, "http://example.com/");
        assert_eq!(r.urlkey.as_deref(), Some("com,example)/"));
        assert_eq!(
            r.digest.as_deref(),
            Some("37cf167c2672a4a64af901d9484e75eee0e2c98a")
        );
        assert_eq!(r.timestamp.as_deref(), Some("20160225042329"));
        assert_eq!(r.status.as_deref(), Some("200"));
        assert_eq!(r.redirect, None);
        let r = l
            .record("com,example)/a 2016 http://example.com/a text/html 301 D /a/ - 1 2 f")
            .unwrap();
        assert_eq!(r.redirect.as_deref(), Some("/a/"));
    }

    #[test]
    fn cdx_without_header_is_cdx11() {
        let l = CdxLayout::new(Format::Cdx);
        let r = l.record(CDX.lines().nth(1).unwrap()).unwrap();
        assert_eq!(r.url, "http://example.com/");
        assert_eq!(r.status.as_deref(), Some("200"));
        assert!(!CdxLayout::new(Format::Cdx).header("com,x)/ 1").unwrap());
    }

    #[test]
    fn custom_header_order_and_dashes() {
        let mut l = CdxLayout::new(Format::Cdx);
        assert!(l.header(" CDX b k a s\r").unwrap());
        let r = l.record("2020 - http://h.example/x -").unwrap();
        assert_eq!(r.url, "http://h.example/x");
        assert_eq!(r.digest, None);
        assert_eq!(r.status, None);
        assert_eq!(r.urlkey, None);
    }

    #[test]
    fn cdxj_pywb_and_common_crawl() {
        let l = CdxLayout::new(Format::Cdxj);
        let line = r#"com,example)/ 20140127171200 {"url": "http://example.com", "mime": "text/html", "status": "200", "digest": "B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A", "length": "1046", "offset": "334", "filename": "dupes.warc.gz"}"#;
        let r = l.record(line).unwrap();
        assert_eq!(r.url, "http://example.com");
        assert_eq!(
            r.digest.as_deref(),
            Some("B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A")
        );
        assert_eq!(r.timestamp.as_deref(), Some("20140127171200"));
        assert_eq!(r.status.as_deref(), Some("200"));
        assert_eq!(r.redirect, None);
        let cc = r#"org,example)/a 20240101000000 {"url": "http://example.org/a", "status": "301", "redirect": "https://example.org/a"}"#;
        assert_eq!(
            l.record(cc).unwrap().redirect.as_deref(),
            Some("https://example.org/a")
        );
        // Escaped JSON strings are decoded; numeric status accepted.
        let r = l
            .record(r#"a)/ 2020 {"url":"http://a/\u00e9?x=\"1\"","status":301}"#)
            .unwrap();
        assert_eq!(r.url, "http://a/é?x=\"1\"");
        assert_eq!(r.status.as_deref(), Some("301"));
    }

    #[test]
    fn key_next_to_the_fields() {
        let cdx = CdxLayout::new(Format::Cdx);
        assert_eq!(
            cdx.with_key("k 1 http://a/ m\r", Some("http://a/"))
                .unwrap(),
            "k 1 http://a/ m http://a/"
        );
        assert_eq!(cdx.with_key("k 1 x m", None).unwrap(), "k 1 x m -");
        assert_eq!(CdxLayout::header_with_key(" CDX N b a"), " CDX N b a A");
        assert!(cdx.with_key("x", Some("a b")).is_err());
        assert!(cdx.with_key("x", Some("")).is_err());
        let j = CdxLayout::new(Format::Cdxj);
        let line = r#"com,a)/ 2020 {"url": "http://A/"}"#;
        let out = j.with_key(line, Some("http://a/\"")).unwrap();
        assert_eq!(
            out,
            r#"com,a)/ 2020 {"url": "http://A/", "canonical": "http://a/\""}"#
        );
        // Still a valid CDXJ record with the same URL.
        assert_eq!(j.record(&out).unwrap().url, "http://A/");
        assert_eq!(
            j.with_key("k 1 {}", Some("x")).unwrap(),
            r#"k 1 {"canonical": "x"}"#
        );
        assert_eq!(
            j.with_key("k 1 {\"url\": \"%\"}", None).unwrap(),
            r#"k 1 {"url": "%", "canonical": null}"#
        );
        assert!(j.with_key("k 1 {", Some("x")).is_err());
    }

    proptest::proptest! {
        #[test]
        fn never_panics(s in "\\PC{0,80}") {
            let _ = CdxLayout::new(Format::Cdx).record(&s);
            let _ = CdxLayout::new(Format::Cdxj).record(&s);
            let _ = CdxLayout::new(Format::Cdx).header(&s);
        }
    }

    #[test]
    fn malformed_records_have_reasons() {
        let cdx = CdxLayout::new(Format::Cdx);
        let cdxj = CdxLayout::new(Format::Cdxj);
        let cases: &[(&CdxLayout, &str, &str)] = &[
            (&cdx, "", "empty line"),
            (&cdx, "a b c", "3 fields"),
            (&cdx, "k 2016 - m 200 d - - 1 2 f", "no original URL"),
            (&cdx, "k 20x6 http://a/ m 200 d - - 1 2 f", "timestamp"),
            (&cdx, "k 2016 http://a/ m 2000 d - - 1 2 f", "status"),
            (&cdxj, "com,a)/", "expected `surtkey"),
            (&cdxj, "com,a)/ 2016 {", "invalid JSON"),
            (&cdxj, "com,a)/ 2016 [1]", "not an object"),
            (&cdxj, r#"com,a)/ 2016 {"digest":"x"}"#, "no \"url\""),
            (&cdxj, r#"com,a)/ 2016 {"url":["x"]}"#, "not a string"),
            (&cdxj, r#"com,a)/ 16 {"url":"x"}"#, "timestamp"),
        ];
        for (l, line, why) in cases {
            let e = l.record(line).unwrap_err();
            assert!(e.contains(why), "{line:?}: {e}");
        }
        let mut l = CdxLayout::new(Format::Cdx);
        assert!(l.header(" CDX N b k").unwrap_err().contains("'a'"));
        assert!(l.header(" CDX N bb a").unwrap_err().contains("single"));
    }
}
