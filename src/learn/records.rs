//! Readers of crawl captures for the digest learner: (URL, content digest,
//! timestamp) records from CDX, CDXJ, CSV or TSV, with the lines they reject
//! and the redirects they name (evidence for 3987bis §5.3.4).

use std::io::BufRead;

use std::borrow::Cow;

use crate::cdx::{CdxLayout, Format, Record};
use crate::iri::parse;

/// One capture: URL, content digest, optional 4–14 digit timestamp.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DigestRecord {
    pub url: String,
    pub digest: String,
    pub timestamp: Option<String>,
}

impl DigestRecord {
    pub fn new(url: impl Into<String>, digest: impl Into<String>, ts: Option<&str>) -> Self {
        DigestRecord {
            url: url.into(),
            digest: digest.into(),
            timestamp: ts.map(str::to_owned),
        }
    }
}

/// Seconds since 1970 of a 4–14 digit `YYYYMMDDhhmmss` prefix (missing
/// parts are the start of the period).
pub fn timestamp_secs(ts: &str) -> Option<i64> {
    if !(4..=14).contains(&ts.len()) || !ts.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Missing parts are the start of the period: month and day 01.
    const START: &[u8; 14] = b"00000101000000";
    let b = ts.as_bytes();
    let digit = |i: usize| i64::from(b.get(i).copied().unwrap_or(START[i]) - b'0');
    let n = |a: usize, z: usize| (a..z).fold(0, |v, i| v * 10 + digit(i));
    let (y, m, d) = (n(0, 4), n(4, 6), n(6, 8));
    let (hh, mm, ss) = (n(8, 10), n(10, 12), n(12, 14));
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) || hh > 23 || mm > 59 || ss > 60 {
        return None;
    }
    // Days from civil (proleptic Gregorian).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + hh * 3600 + mm * 60 + ss)
}

/// Input layouts for [`read_records`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DigestFormat {
    Cdx,
    Cdxj,
    /// `url,digest[,timestamp]`; a first row starting `url` is a header.
    Csv,
    /// As CSV, tab-separated.
    Tsv,
}

impl DigestFormat {
    /// From a file name's extension (`.cdx`, `.cdxj`, `.csv`, `.tsv`,
    /// optionally followed by `.gz`/`.zst`).
    pub fn from_path(path: &str) -> Option<DigestFormat> {
        let p = path.to_ascii_lowercase();
        let p = p
            .strip_suffix(".gz")
            .or_else(|| p.strip_suffix(".zst"))
            .unwrap_or(&p);
        let ext = p.rsplit_once('.')?.1;
        DigestFormat::from_name(ext)
    }

    pub fn from_name(s: &str) -> Option<DigestFormat> {
        match s {
            "cdx" => Some(DigestFormat::Cdx),
            "cdxj" => Some(DigestFormat::Cdxj),
            "csv" => Some(DigestFormat::Csv),
            "tsv" => Some(DigestFormat::Tsv),
            _ => None,
        }
    }
}

/// Records read, lines rejected (1-based line number, reason), and
/// well-formed captures that are no content evidence.
#[derive(Debug, Default)]
pub struct ReadResult {
    pub records: Vec<DigestRecord>,
    pub rejected: Vec<(usize, String)>,
    /// CDX/CDXJ captures whose HTTP status is not 200 (redirects, errors,
    /// `204`, `206`): their digest is that of a redirect body or an error
    /// page shared by unrelated URLs, so they would support false rules.
    /// Revisit records without a status are kept.
    pub not_200: usize,
    /// `(from, to)` of the 3xx captures that name their target (CDX `r`,
    /// CDXJ `redirect`), the target resolved against the URL: evidence for
    /// [`Learned::from_pairs`](crate::learn::Learned::from_pairs).
    pub redirects: Vec<(String, String)>,
}

/// Read (URL, digest, timestamp) records. A line without a digest is
/// rejected with a reason, as is any malformed line; only I/O fails.
/// CSV/TSV fields may be quoted (`"http://a/?x=1,2"`); a first row whose
/// first field is `url` is a header.
pub fn read_records<R: BufRead>(r: R, format: DigestFormat) -> std::io::Result<ReadResult> {
    match format {
        DigestFormat::Cdx => read_index(r, CdxLayout::new(Format::Cdx)),
        DigestFormat::Cdxj => read_index(r, CdxLayout::new(Format::Cdxj)),
        DigestFormat::Csv => read_delimited(r, b','),
        DigestFormat::Tsv => read_delimited(r, b'\t'),
    }
}

fn read_index<R: BufRead>(r: R, mut layout: CdxLayout) -> std::io::Result<ReadResult> {
    let mut out = ReadResult::default();
    for (i, line) in r.split(b'\n').enumerate() {
        let line = line?;
        let line = String::from_utf8_lossy(&line);
        let kind = index_line(&mut layout, i, &line);
        if let Some(rec) = kind.capture(i, &mut out.rejected, &mut out.not_200, &mut out.redirects)
        {
            out.records.push(DigestRecord {
                url: rec.url.into_owned(),
                digest: rec.digest.unwrap_or_default().into_owned(),
                timestamp: rec.timestamp.map(|t| t.into_owned()),
            });
        }
    }
    Ok(out)
}

/// What one CDX/CDXJ line is to the learner.
pub(crate) enum IndexLine<'a> {
    /// Blank, or a ` CDX …` header (read into the layout).
    Skip,
    Rejected(String),
    /// A capture whose status is not 200, with the redirect it names.
    Not200(Option<(String, String)>),
    /// A status-200 (or status-less) capture; its digest is `Some`.
    Capture(Record<'a>),
}

impl<'a> IndexLine<'a> {
    /// The capture of the `i`-th (0-based) line, if it is one; any other
    /// line is tallied where it belongs: a reject under its 1-based line
    /// number, a status other than 200 with the redirect it names.
    pub(crate) fn capture(
        self,
        i: usize,
        rejected: &mut Vec<(usize, String)>,
        not_200: &mut usize,
        redirects: &mut Vec<(String, String)>,
    ) -> Option<Record<'a>> {
        match self {
            IndexLine::Skip => None,
            IndexLine::Rejected(e) => {
                rejected.push((i + 1, e));
                None
            }
            IndexLine::Not200(redirect) => {
                *not_200 += 1;
                redirects.extend(redirect);
                None
            }
            IndexLine::Capture(rec) => Some(rec),
        }
    }
}

/// Classify the `i`-th (0-based) line of an index (without its `\n`);
/// a header line updates `layout`.
pub(crate) fn index_line<'a>(layout: &mut CdxLayout, i: usize, line: &'a str) -> IndexLine<'a> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    let line = if i == 0 {
        line.strip_prefix('\u{FEFF}').unwrap_or(line)
    } else {
        line
    };
    if line.trim().is_empty() {
        return IndexLine::Skip;
    }
    match layout.header(line) {
        Ok(true) => return IndexLine::Skip,
        Ok(false) => {}
        Err(e) => return IndexLine::Rejected(e),
    }
    match record(layout, line) {
        Ok(rec) if rec.status.as_deref().is_some_and(|s| s != "200") => {
            let mut redirect = None;
            if let (Some(s), Some(to)) = (rec.status.as_deref(), rec.redirect.as_deref()) {
                if s.starts_with('3') {
                    redirect = redirect_target(&rec.url, to).map(|to| (rec.url.into_owned(), to));
                }
            }
            IndexLine::Not200(redirect)
        }
        Ok(rec) if rec.digest.is_some() => IndexLine::Capture(rec),
        Ok(_) => IndexLine::Rejected("no digest".into()),
        Err(e) => IndexLine::Rejected(e),
    }
}

/// [`CdxLayout::record`], with a fast path for the usual CDXJ line (string
/// or absent fields, no duplicate names) that gives the same record
/// without building a JSON tree; anything else takes the general path,
/// which also words the errors.
fn record<'a>(layout: &CdxLayout, line: &'a str) -> Result<Record<'a>, String> {
    if layout.format() == Format::Cdxj {
        if let Some(r) = cdxj_fast(line) {
            return Ok(r);
        }
    }
    layout.record(line)
}

/// The usual CDXJ line, `surtkey timestamp {json}` whose object has only
/// string members without escapes or control characters, read without
/// building a JSON tree; `None` for anything else (the general path reads
/// it, or words its error). A record read here is the one the general path
/// reads: members other than `url`, `digest`, `status` and `redirect` are
/// skipped, and a line naming one of those twice is left to it.
fn cdxj_fast(line: &str) -> Option<Record<'_>> {
    let (urlkey, rest) = line.split_once(' ')?;
    let (timestamp, json) = rest.split_once(' ')?;
    if !(4..=14).contains(&timestamp.len()) || !timestamp.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let b = json.as_bytes();
    let ws = |i: &mut usize| {
        while b
            .get(*i)
            .is_some_and(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
        {
            *i += 1;
        }
    };
    // A string without escapes or control characters starting at `i`.
    let string = |i: &mut usize| -> Option<&str> {
        if b.get(*i) != Some(&b'"') {
            return None;
        }
        let start = *i + 1;
        let len = memchr::memchr2(b'"', b'\\', &b[start..])?;
        let s = &b[start..start + len];
        // Any control character (the fold has no branch: vectorised).
        if b[start + len] != b'"' || s.iter().fold(0u8, |a, &c| a | u8::from(c < 0x20)) != 0 {
            return None;
        }
        *i = start + len + 1;
        json.get(start..start + len)
    };
    let mut i = 0;
    ws(&mut i);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i += 1;
    let mut got: [Option<&str>; 4] = [None; 4];
    ws(&mut i);
    if b.get(i) == Some(&b'}') {
        return None;
    }
    loop {
        ws(&mut i);
        let name = string(&mut i)?;
        ws(&mut i);
        if b.get(i) != Some(&b':') {
            return None;
        }
        i += 1;
        ws(&mut i);
        let value = string(&mut i)?;
        let slot = match name {
            "url" => 0,
            "digest" => 1,
            "status" => 2,
            "redirect" => 3,
            _ => usize::MAX,
        };
        if let Some(g) = got.get_mut(slot) {
            if g.replace(value).is_some() {
                return None;
            }
        }
        ws(&mut i);
        match b.get(i) {
            Some(b',') => i += 1,
            Some(b'}') => break,
            _ => return None,
        }
    }
    i += 1;
    ws(&mut i);
    if i != b.len() {
        return None;
    }
    fn dash(s: Option<&str>) -> Option<&str> {
        s.filter(|s| !s.is_empty() && *s != "-")
    }
    let [url, digest, status, redirect] = got;
    let status = dash(status);
    if status.is_some_and(|s| s.len() != 3 || !s.bytes().all(|b| b.is_ascii_digit())) {
        return None;
    }
    Some(Record {
        url: Cow::Borrowed(dash(url)?),
        urlkey: Some(urlkey)
            .filter(|k| !k.is_empty() && *k != "-")
            .map(Cow::Borrowed),
        digest: dash(digest).map(Cow::Borrowed),
        timestamp: Some(Cow::Borrowed(timestamp)),
        status: status.map(Cow::Borrowed),
        redirect: dash(redirect).map(Cow::Borrowed),
    })
}

/// A redirect's target resolved against the URL it came from.
fn redirect_target(from: &str, to: &str) -> Option<String> {
    let base = parse(from.trim()).ok()?;
    let r = parse(to.trim()).ok()?;
    base.scheme()?;
    Some(crate::resolve::resolve(&base, &r))
}

fn read_delimited<R: BufRead>(r: R, sep: u8) -> std::io::Result<ReadResult> {
    let mut out = ReadResult::default();
    let mut records = Vec::new();
    for_each_delimited(r, sep, &mut out.rejected, |rec| records.push(rec))?;
    out.records = records;
    Ok(out)
}

/// The records of a CSV (`sep` `,`) or TSV (`\t`) file, one at a time, in
/// order; rejected lines are added to `rejected`.
pub(crate) fn for_each_delimited<R: BufRead>(
    r: R,
    sep: u8,
    rejected: &mut Vec<(usize, String)>,
    mut each: impl FnMut(DigestRecord),
) -> std::io::Result<()> {
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(sep)
        .from_reader(r);
    let sep_name = if sep == b'\t' { "TAB" } else { "," };
    let mut rec = csv::ByteRecord::new();
    let mut first = true;
    loop {
        match rdr.read_byte_record(&mut rec) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => match e.into_kind() {
                csv::ErrorKind::Io(e) => return Err(e),
                other => {
                    // Not reached with flexible byte records; kept so that
                    // a future csv error is a rejected line, not a panic.
                    let line = rdr.position().line() as usize;
                    rejected.push((line, format!("{other:?}")));
                    continue;
                }
            },
        }
        let line = rec.position().map_or(0, |p| p.line() as usize);
        let mut f: Vec<String> = rec
            .iter()
            .map(|b| String::from_utf8_lossy(b).trim().to_owned())
            .collect();
        let is_first = std::mem::replace(&mut first, false);
        if is_first {
            if let Some(u) = f.first_mut() {
                *u = u.trim_start_matches('\u{FEFF}').to_owned();
                if u.eq_ignore_ascii_case("url") {
                    continue;
                }
            }
        }
        let f: Vec<&str> = f.iter().map(String::as_str).collect();
        if f.iter().all(|x| x.is_empty()) {
            continue;
        }
        let got = match f.as_slice() {
            [u, d] | [u, d, ""] if !u.is_empty() && !d.is_empty() => {
                Ok(DigestRecord::new(*u, *d, None))
            }
            [u, d, t] if !u.is_empty() && !d.is_empty() => {
                if timestamp_secs(t).is_some() {
                    Ok(DigestRecord::new(*u, *d, Some(t)))
                } else {
                    Err(format!(
                        "timestamp {:?} is not 4 to 14 digits",
                        t.escape_debug().to_string()
                    ))
                }
            }
            _ => Err(format!(
                "want url{sep_name}digest[{sep_name}timestamp], got {} field(s)",
                f.len()
            )),
        };
        match got {
            Ok(r) => each(r),
            Err(e) => rejected.push((line, e)),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(url: &str, digest: &str, ts: &str) -> DigestRecord {
        DigestRecord::new(url, digest, (!ts.is_empty()).then_some(ts))
    }

    #[test]
    fn reading_records() {
        let cdx = " CDX N b a m s k r M S V g\n\
                   com,h)/ 20200101000000 http://h.com/ text/html 200 AAA - - 1 2 f\n\
                   com,h)/ 20200101000000 http://h.com/ text/html 200 - - - 1 2 f\n\
                   garbage\n";
        let r = read_records(cdx.as_bytes(), DigestFormat::Cdx).unwrap();
        assert_eq!(r.records, [rec("http://h.com/", "AAA", "20200101000000")]);
        assert_eq!(r.rejected.len(), 2);
        assert_eq!(r.rejected[0], (3, "no digest".to_owned()));
        let csv = "url,digest,timestamp\nhttp://a/,D,2020\nhttp://b/,E\nhttp://c/,F,x\nhttp://d/\n";
        let r = read_records(csv.as_bytes(), DigestFormat::Csv).unwrap();
        assert_eq!(
            r.records,
            [rec("http://a/", "D", "2020"), rec("http://b/", "E", "")]
        );
        assert_eq!(r.rejected.iter().map(|x| x.0).collect::<Vec<_>>(), [4, 5]);
        // Quoted fields keep their commas; a BOM before the header is not
        // part of it.
        let csv = "\u{FEFF}url,digest\n\"http://a/?x=1,2\",D\n\"http://b/?\"\"q\"\"\",E,\n";
        let r = read_records(csv.as_bytes(), DigestFormat::Csv).unwrap();
        assert_eq!(
            r.records,
            [
                rec("http://a/?x=1,2", "D", ""),
                rec("http://b/?\"q\"", "E", "")
            ]
        );
        assert!(r.rejected.is_empty(), "{:?}", r.rejected);
        let tsv = "http://a/\tD\nhttp://b/,E\n";
        let r = read_records(tsv.as_bytes(), DigestFormat::Tsv).unwrap();
        assert_eq!(r.records.len(), 1);
        assert_eq!(
            r.rejected,
            [(
                2,
                "want urlTABdigest[TABtimestamp], got 1 field(s)".to_owned()
            )]
        );
        // Only status 200 (or no status) is content evidence: redirects and
        // error pages share digests across unrelated URLs.
        let cdxj = r#"h)/a 2020 {"url": "http://h/a?id=1", "digest": "EMPTY", "status": "302"}
h)/a 2020 {"url": "http://h/a?id=2", "digest": "EMPTY", "status": "404"}
h)/a 2020 {"url": "http://h/a?id=3", "digest": "A", "status": "200"}
h)/a 2020 {"url": "http://h/a?id=4", "digest": "A", "mime": "warc/revisit"}
"#;
        let r = read_records(cdxj.as_bytes(), DigestFormat::Cdxj).unwrap();
        assert_eq!(r.records.len(), 2);
        assert_eq!(r.not_200, 2);
        assert!(r.rejected.is_empty());
        assert!(r.redirects.is_empty());
        // 3xx records naming their target are redirect evidence.
        let cdx = "h)/a 2020 http://h/a text/html 301 D /a/ - 1 2 f\n\
                   h)/b 2020 http://h/b text/html 302 D https://h/b - 1 2 f\n\
                   h)/c 2020 http://h/c text/html 301 D - - 1 2 f\n\
                   h)/d 2020 http://h/d text/html 404 D /x - 1 2 f\n";
        let r = read_records(cdx.as_bytes(), DigestFormat::Cdx).unwrap();
        assert_eq!(r.not_200, 4);
        assert_eq!(
            r.redirects,
            [
                ("http://h/a".to_owned(), "http://h/a/".to_owned()),
                ("http://h/b".to_owned(), "https://h/b".to_owned())
            ]
        );
        assert_eq!(
            DigestFormat::from_path("x/crawl.CDXJ.gz"),
            Some(DigestFormat::Cdxj)
        );
        assert_eq!(DigestFormat::from_path("crawl.txt"), None);
    }

    #[test]
    fn the_fast_cdxj_path_reads_what_the_general_one_reads() {
        let layout = CdxLayout::new(Format::Cdxj);
        let lines = [
            r#"a)/ 2020 {"url": "http://a/", "digest": "D", "status": "200"}"#,
            r#"a)/ 2020 {"url":"http://a/","digest":"D"}  "#,
            "a)/ 2020 {\t\"url\" :\r\"http://a/\" ,\"mime\": \"x\"}",
            r#"a)/ 2020 {"url": "http://a/", "status": "-", "digest": ""}"#,
            r#"a)/ 2020 {"url": "http://a/", "redirect": "/b", "status": "301"}"#,
            r#"a)/ 2020 {"url": "http://a/", "url": "http://b/"}"#,
            r#"a)/ 2020 {"url": "http://a/\u0041", "digest": "D"}"#,
            r#"a)/ 2020 {"url": "http://a/", "status": 200}"#,
            r#"a)/ 2020 {"url": "http://a/", "length": 7, "digest": "D"}"#,
            r#"a)/ 2020 {"url": "http://a/", "x": {"y": 1}}"#,
            r#"a)/ 2020 ["http://a/", "D"]"#,
            r#"a)/ 2020 {"url": "http://a/"} x"#,
            r#"a)/ 2020 {"url": "http://a/",}"#,
            r#"a)/ 2020 {"url": "http://a/", "status": "20"}"#,
            r#"a)/ 2020 {"url": "-"}"#,
            r#"a)/ 2020 {}"#,
            r#"a)/ 20x0 {"url": "http://a/"}"#,
            r#"- 2020 {"url": "http://é/", "digest": "é"}"#,
            "a)/ 2020 {\"url\": \"http://a/\u{1}\"}",
        ];
        let mut fast = 0;
        for l in lines {
            if let Some(r) = cdxj_fast(l) {
                fast += 1;
                assert_eq!(layout.record(l), Ok(r), "{l}");
            }
            assert_eq!(record(&layout, l), layout.record(l), "{l}");
        }
        assert_eq!(fast, 6);
    }

    #[test]
    fn timestamps() {
        assert_eq!(timestamp_secs("19700101000000"), Some(0));
        assert_eq!(timestamp_secs("1970"), Some(0));
        assert_eq!(timestamp_secs("20000301"), Some(951_868_800));
        assert_eq!(timestamp_secs("2000130100"), None);
        assert_eq!(timestamp_secs("abc"), None);
    }
}
