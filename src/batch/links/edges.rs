//! One record's line ([`super::stream`]) → its links resolved against the
//! page's base (RFC 3986 §5.2) and keyed on the ladder (3987bis §5.3) →
//! the edges, as the space-separated items the dedup engine counts one by
//! one (its `split_spaces`): `source,target` (CSV fields, quoted where CSV
//! needs it; a key never holds a space), `,path` appended when the path is
//! part of the edge. A link that cannot be keyed is a [`LinkReject`].

use std::borrow::Cow;
use std::sync::atomic::Ordering::Relaxed;

use super::shared::{unescape, Graph, LinkReject, Shared};
use crate::archive::{self, Link};
use crate::batch::{KeyFn, OwnHrefKeyFn, RejectReason};

/// What the line key function needs.
pub(super) struct Ctx<'a> {
    pub key: &'a KeyFn<'a>,
    /// `key` of a link already parsed and found to be its own `href`
    /// ([`super::Config::own_href_key`]).
    pub own_href_key: Option<&'a OwnHrefKeyFn<'a>>,
    /// Resolve by the URL Standard here, the base parsed once per page
    /// ([`super::Config::web_join`]).
    pub web_join: bool,
    /// Resolve by RFC 3986 §5.2 here, the base parsed once per page
    /// ([`super::Config::resolve_once`]).
    pub resolve_once: bool,
    pub graph: Graph,
    pub with_path: bool,
    pub shared: &'a Shared,
}

/// Where a record is, as its line says.
struct At {
    file: usize,
    record: u64,
    offset: u64,
}

/// The fields of a line after its kind: `n` fields, then the rest.
fn fields(rest: &str, n: usize) -> Option<(Vec<&str>, &str)> {
    let mut out = Vec::with_capacity(n);
    let mut s = rest;
    for _ in 0..n {
        let (f, r) = s.split_once('\t')?;
        out.push(f);
        s = r;
    }
    Some((out, s))
}

fn at_of(f: &[&str]) -> Option<At> {
    Some(At {
        file: f.first()?.parse().ok()?,
        record: f.get(1)?.parse().ok()?,
        offset: f.get(2)?.parse().ok()?,
    })
}

/// The file, record and offset a line names (for a reject of the whole
/// line by the engine).
pub(super) fn place_of(line: &str) -> Option<(u64, u64)> {
    let (kind, rest) = line.split_once('\t')?;
    let _ = kind;
    let (f, _) = fields(rest, 3)?;
    let at = at_of(&f)?;
    Some((at.record, at.offset))
}

/// The edges of one line, as items (see the module doc); `" "` for none.
pub(super) fn line_edges<'l>(line: &'l str, cx: &Ctx<'_>) -> Result<Cow<'l, str>, RejectReason> {
    let bad = || RejectReason::Other("not a line of the links reader".into());
    let (kind, rest) = line.split_once('\t').ok_or_else(bad)?;
    match kind {
        "W" => {
            let (f, json) = fields(rest, 3).ok_or_else(bad)?;
            let at = at_of(&f).ok_or_else(bad)?;
            let page = archive::wat_links(json).map_err(RejectReason::Other)?;
            Ok(match page {
                None => Cow::Borrowed(" "),
                Some(p) => Cow::Owned(edges(cx, &at, &p.url, p.base.as_deref(), &p.links)),
            })
        }
        "H" => {
            let (f, rest) = fields(rest, 5).ok_or_else(bad)?;
            let at = at_of(&f).ok_or_else(bad)?;
            let page = unescape(f[3]);
            let n: usize = f[4].parse().map_err(|_| bad())?;
            let (pairs, html) = fields(rest, 2 * n).ok_or_else(bad)?;
            let mut links: Vec<Link<'_>> = pairs
                .chunks(2)
                .map(|p| Link::new(unescape(p[1]), unescape(p[0])))
                .collect();
            let found = archive::html_links(html);
            links.extend(found.links);
            Ok(Cow::Owned(edges(
                cx,
                &at,
                &page,
                found.base.as_deref(),
                &links,
            )))
        }
        "C" => {
            let (f, rest) = fields(rest, 5).ok_or_else(bad)?;
            let at = at_of(&f).ok_or_else(bad)?;
            let (source, target, base) = (unescape(f[3]), unescape(f[4]), unescape(rest));
            let base = (!base.is_empty()).then_some(&*base);
            let links = [Link::new(target, "")];
            Ok(Cow::Owned(edges(cx, &at, &source, base, &links)))
        }
        _ => Err(bad()),
    }
}

/// The host of a key (a URI or IRI), as the host graph names it.
fn graph_host_of(key: &str) -> Option<String> {
    let r = crate::parse(key).ok()?;
    archive::graph_host(r.host()?)
}

/// `base` resolved against `page` (RFC 3986 §5.2), if both parse and the
/// page is absolute; otherwise the page (as `urljoin` failing leaves it).
fn effective_base<'a>(page: &'a str, base: Option<&'a str>) -> Cow<'a, str> {
    let Some(b) = base.filter(|b| !b.is_empty()) else {
        return Cow::Borrowed(page);
    };
    match (crate::parse(page), crate::parse(b)) {
        (Ok(p), Ok(r)) if p.is_absolute() => Cow::Owned(crate::resolve(&p, &r)),
        _ => Cow::Borrowed(page),
    }
}

/// The edges of a page's links as items.
fn edges(cx: &Ctx<'_>, at: &At, page: &str, base: Option<&str>, links: &[Link<'_>]) -> String {
    let sh = cx.shared;
    sh.pages.fetch_add(1, Relaxed);
    sh.links.fetch_add(links.len() as u64, Relaxed);
    let source = match (cx.key)(page, None) {
        Ok(s) => s,
        Err(e) => {
            for (i, l) in links.iter().enumerate() {
                sh.reject(LinkReject::link(at, i, l, format!("source {page:?}: {e}")));
            }
            sh.rejected.fetch_add(links.len() as u64, Relaxed);
            return " ".into();
        }
    };
    let base = effective_base(page, base);
    // The URL Standard's join, the base parsed once for all the page's
    // links; the key function then keys an `href`, which its web mode
    // reads as it is (the same key as resolving there: an `href` is a
    // fixed point of the parser).
    let web_base = if cx.web_join {
        match url::Url::parse(&base) {
            Ok(u) => Some(u),
            Err(e) => {
                for (i, l) in links.iter().enumerate() {
                    sh.reject(LinkReject::link(
                        at,
                        i,
                        l,
                        format!("invalid base {base:?}: {e}"),
                    ));
                }
                sh.rejected.fetch_add(links.len() as u64, Relaxed);
                return " ".into();
            }
        }
    } else {
        None
    };
    let src_host = match cx.graph {
        Graph::Hosts => match graph_host_of(&source) {
            Some(h) => Some(h),
            None => {
                // No host name for the source: the graph has no node for it.
                sh.accepted.fetch_add(links.len() as u64, Relaxed);
                sh.dropped.fetch_add(links.len() as u64, Relaxed);
                return " ".into();
            }
        },
        Graph::Pages => None,
    };
    let ends = web_base.as_ref().and_then(base_ends);
    // A base that is not an absolute IRI: each link's key function says
    // why (`invalid base: …`).
    let parsed_base = (cx.resolve_once && !cx.web_join)
        .then(|| crate::parse(&base).ok().filter(|b| b.is_absolute()))
        .flatten()
        .map(StrictBase::new);
    // The source's field, quoted once for all the page's edges.
    let mut src_field = String::new();
    push_field(&mut src_field, src_host.as_deref().unwrap_or(&source));
    let mut out = String::with_capacity(links.len() * (source.len() + 48));
    let (mut ok, mut bad, mut dropped) = (0u64, 0u64, 0u64);
    let mut joined = String::new();
    for (i, l) in links.iter().enumerate() {
        let keyed = match (&web_base, &parsed_base) {
            (Some(b), _) => web_key(cx, b, ends, &l.url, &mut joined),
            (None, Some(bp)) => resolved_key(cx, bp, &l.url, &mut joined),
            (None, None) => (cx.key)(&l.url, Some(&base)),
        };
        let target = match keyed {
            Ok(t) => t,
            Err(e) => {
                bad += 1;
                sh.reject(LinkReject::link(at, i, l, e.to_string()));
                continue;
            }
        };
        ok += 1;
        let mark = out.len();
        if !out.is_empty() {
            out.push(' ');
        }
        match &src_host {
            Some(sh_name) => match graph_host_of(&target) {
                Some(t) if t != *sh_name => {
                    out.push_str(&src_field);
                    out.push(',');
                    push_field(&mut out, &t);
                }
                _ => {
                    dropped += 1;
                    out.truncate(mark);
                    continue;
                }
            },
            None => {
                out.push_str(&src_field);
                out.push(',');
                push_field(&mut out, &target);
            }
        }
        if cx.with_path {
            out.push(',');
            if l.path.as_bytes().contains(&b' ') {
                push_field(&mut out, &l.path.replace(' ', "%20"));
            } else {
                push_field(&mut out, &l.path);
            }
        }
    }
    sh.accepted.fetch_add(ok, Relaxed);
    sh.rejected.fetch_add(bad, Relaxed);
    sh.dropped.fetch_add(dropped, Relaxed);
    if out.is_empty() {
        out.push(' ');
    }
    out
}

/// The key of `link` resolved against `base` (RFC 3986 §5.2), as the key
/// function resolving it itself gives it when it prepares nothing.
fn resolved_key<'r>(
    cx: &Ctx<'_>,
    base: &StrictBase<'_>,
    link: &'r str,
    buf: &mut String,
) -> Result<Cow<'r, str>, RejectReason> {
    let r = crate::parse(link).map_err(RejectReason::Key)?;
    if r.is_absolute() {
        return (cx.key)(link, None);
    }
    if !base.append(&r, buf) {
        *buf = crate::resolve(&base.iri, &r);
    }
    (cx.key)(buf, None).map(|k| Cow::Owned(k.into_owned()))
}

/// A page's base for RFC 3986 §5.2 resolution, with where its parts end
/// in its serialization when it has an authority and a non-empty path
/// without dot segments: then a relative reference without dot segments
/// resolves to a prefix of the base followed by the reference as written
/// (§5.2.2 with §5.2.3 merge and §5.2.4 changing nothing, §5.3
/// recomposition), with no `resolve` and no allocation.
struct StrictBase<'a> {
    iri: crate::IriRef<'a>,
    /// `(scheme + ':', authority, directory, path, query)` ends.
    ends: Option<[usize; 5]>,
}

impl<'a> StrictBase<'a> {
    fn new(iri: crate::IriRef<'a>) -> Self {
        let (path_start, path_end) = iri.path_range();
        let path = iri.path();
        let ends = (iri.authority().is_some()
            && path.starts_with('/')
            && !crate::resolve::has_dot_segments(path))
        .then(|| {
            let dir = path_start + path.rfind('/').map_or(0, |i| i + 1);
            let query = path_end + iri.query().map_or(0, |q| q.len() + 1);
            let scheme = iri.scheme().map_or(0, |s| s.len() + 1);
            [scheme, path_start, dir, path_end, query]
        });
        StrictBase { iri, ends }
    }

    /// `r` (a relative reference) resolved into `buf` by appending it to
    /// the part of the base it keeps; `false` when that does not apply.
    fn append(&self, r: &crate::IriRef<'_>, buf: &mut String) -> bool {
        let Some([scheme, authority, dir, path, query]) = self.ends else {
            return false;
        };
        let p = r.path();
        let upto = if r.authority().is_some() {
            scheme
        } else if p.is_empty() {
            if r.query().is_some() {
                path
            } else {
                query
            }
        } else if p.starts_with('/') {
            authority
        } else {
            dir
        };
        if !p.is_empty() && crate::resolve::has_dot_segments(p) {
            return false;
        }
        buf.clear();
        buf.push_str(&self.iri.as_str()[..upto]);
        buf.push_str(r.as_str());
        true
    }
}

/// A CSV field (quoted where CSV needs it) onto `out`.
fn push_field(out: &mut String, s: &str) {
    if !crate::simd::bytes::csv_needs_quotes(s.as_bytes(), b',') {
        out.push_str(s);
        return;
    }
    out.push('"');
    out.push_str(&s.replace('"', "\"\""));
    out.push('"');
}

/// Where the parts of an `http:` or `https:` base end in its
/// serialization: what a relative reference is appended to.
#[derive(Clone, Copy)]
struct BaseEnds {
    /// After the scheme's `:`.
    scheme: usize,
    /// Before the path (`scheme://authority`).
    origin: usize,
    /// After the last `/` of the path.
    dir: usize,
    path: usize,
    query: usize,
}

fn base_ends(b: &url::Url) -> Option<BaseEnds> {
    if !matches!(b.scheme(), "http" | "https") {
        return None;
    }
    let origin = b[..url::Position::BeforePath].len();
    let path = b[..url::Position::AfterPath].len();
    let dir = origin + b.as_str()[origin..path].rfind('/')? + 1;
    Some(BaseEnds {
        scheme: b.scheme().len() + 1,
        origin,
        dir,
        path,
        query: b[..url::Position::AfterQuery].len(),
    })
}

/// How the URL Standard reads a reference against a special base (§4.4:
/// scheme start, no scheme and relative states).
enum RefShape {
    /// `scheme://…`: the base plays no part.
    Authority,
    /// A reference the parser reads as the base's serialization up to a
    /// point, then the reference: `//` (or `\\`, `/\`, `\/`: the
    /// base's scheme), a path segment (its directory), `/` and a segment
    /// (its origin), `?…` (its path), `#…` or nothing (its query).
    Append(fn(&BaseEnds) -> usize),
    /// Anything else (`scheme:…` without `//`, leading spaces or
    /// controls, tabs or newlines): the full join.
    Other,
}

fn ref_shape(r: &str) -> RefShape {
    let b = r.as_bytes();
    // The parser drops tabs and newlines anywhere first (§4.4).
    if has_tab_or_newline(b) {
        return RefShape::Other;
    }
    let Some(&first) = b.first() else {
        return RefShape::Append(|e| e.query);
    };
    if first.is_ascii_alphabetic() {
        let n = b
            .iter()
            .position(|c| !(c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.')))
            .unwrap_or(b.len());
        return match &b[n..] {
            [b':', b'/', b'/', ..] => RefShape::Authority,
            [b':', ..] => RefShape::Other,
            _ => RefShape::Append(|e| e.dir),
        };
    }
    match (first, b.get(1)) {
        // A special scheme reads `\` as `/`; two of them start an
        // authority (§4.4 relative slash state).
        (b'/' | b'\\', Some(b'/' | b'\\')) => RefShape::Append(|e| e.scheme),
        (b'/' | b'\\', _) => RefShape::Append(|e| e.origin),
        (b'?', _) => RefShape::Append(|e| e.path),
        (b'#', _) => RefShape::Append(|e| e.query),
        (b'0'..=b'9' | b'.' | b'-' | b'_' | b'~' | b'%' | 0x80.., _) => RefShape::Append(|e| e.dir),
        _ => RefShape::Other,
    }
}

/// `b` holds a tab, LF or CR. Links are short, so eight bytes at a time
/// without a call: a word with no byte below 0x0E has none of them.
fn has_tab_or_newline(b: &[u8]) -> bool {
    let is = |c: u8| matches!(c, b'\t' | b'\n' | b'\r');
    let mut words = b.chunks_exact(8);
    for w in &mut words {
        let x = u64::from_le_bytes(w.try_into().expect("eight bytes"));
        if crate::simd::bytes::bytes_below(x, 0x0e) != 0 && w.iter().any(|&c| is(c)) {
            return true;
        }
    }
    words.remainder().iter().any(|&c| is(c))
}

/// The key of `href` joined to `base` by the URL Standard./// The key of `href` joined to `base` by the URL Standard. An absolute
/// `scheme://` reference is keyed as it is, a relative one appended to
/// the part of the base it keeps (in `buf`): the key function's web mode
/// parses both as the join would, without building the joined URL. A key
/// error takes the full join, whose error is the one reported.
fn web_key<'r>(
    cx: &Ctx<'_>,
    base: &url::Url,
    ends: Option<BaseEnds>,
    href: &'r str,
    buf: &mut String,
) -> Result<Cow<'r, str>, RejectReason> {
    let quick = match (ref_shape(href), ends) {
        (RefShape::Authority, _) => href_key(cx, href),
        (RefShape::Append(upto), Some(e)) => {
            buf.clear();
            buf.push_str(&base.as_str()[..upto(&e)]);
            buf.push_str(href);
            href_key(cx, buf).map(|k| Cow::Owned(k.into_owned()))
        }
        _ => None,
    };
    if let Some(k) = quick {
        return Ok(k);
    }
    match base.join(href) {
        Ok(u) => (cx.key)(u.as_str(), None).map(|k| Cow::Owned(k.into_owned())),
        Err(e) => Err(RejectReason::Key(crate::Error::new(
            0,
            crate::ErrorKind::UrlStandard(e.to_string()),
        ))),
    }
}

/// The key of the absolute reference `s` in web mode, when it is its own
/// `href` ([`crate::web::is_own_href_parsed`]) or only its scheme case,
/// host, port or dot segments change ([`crate::web::rewritten_href`]):
/// the key function then keys an `href`, which takes its fast path.
/// `None` leaves `s` to the full join (and a key error to it too).
fn href_key<'s>(cx: &Ctx<'_>, s: &'s str) -> Option<Cow<'s, str>> {
    let r = crate::parse(s).ok()?;
    if crate::web::is_own_href_parsed(&r) {
        if let Some(k) = cx.own_href_key.and_then(|f| f(&r)) {
            return Some(k);
        }
        return (cx.key)(s, None).ok();
    }
    let href = crate::web::rewritten_href(&r)?;
    // An `href` as the parser writes it is its own: keyed from its parse.
    if let Some(f) = cx.own_href_key {
        if let Ok(h) = crate::parse(&href) {
            if crate::web::is_own_href_parsed(&h) {
                if let Some(k) = f(&h) {
                    return Some(Cow::Owned(k.into_owned()));
                }
            }
        }
    }
    (cx.key)(&href, None)
        .ok()
        .map(|k| Cow::Owned(k.into_owned()))
}

impl LinkReject {
    fn link(at: &At, i: usize, l: &Link<'_>, reason: String) -> LinkReject {
        LinkReject {
            file: at.file,
            record: at.record,
            offset: at.offset,
            link: i as u64 + 1,
            path: l.path.to_string(),
            input: l.url.to_string(),
            reason,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{has_tab_or_newline, StrictBase};

    /// Appending to the base's prefix is RFC 3986 §5.2 resolution
    /// wherever it applies, and it applies to the usual links.
    #[test]
    fn appended_references_are_resolved_ones() {
        let bases = [
            "http://a/b/c/d;p?q",
            "http://a/b/c/d;p?q#f",
            "HTTP://A:80/b/",
            "http://a/b",
            "http://a/",
            "http://a",
            "http://a?q",
            "http://a/b/./c",
            "http://a/b/../c/d",
            "http://u@a/x%2E/y?",
            "urn:x:y",
            "mailto:a@b",
            "file:///c:/d/e",
            "http://a//b//c",
        ];
        // And the empty reference.
        let refs = "g ./g g/ /g //g //g/h?y#s ?y g?y #s g#s g?y#s ;x g;x g;x?y#s . ./ .. ../ \
                    ../g ../.. g/./h g/../h /./g /../g g. .g g.. ..g %2e/g //g/./h //g/.. \
                    a:b/c ? # ?# g//h /g//./h // ///g é/ü?ç#ñ";
        let refs = refs.split_whitespace().chain([""]);
        let mut appended = 0;
        for b in bases {
            let base = StrictBase::new(crate::parse(b).unwrap());
            for r in refs.clone() {
                let rr = crate::parse(r).unwrap();
                if rr.is_absolute() {
                    continue;
                }
                let mut buf = String::from("junk");
                if base.append(&rr, &mut buf) {
                    appended += 1;
                    assert_eq!(buf, crate::resolve(&base.iri, &rr), "{b} + {r}");
                }
            }
        }
        assert!(appended > 200, "{appended}");
    }

    #[test]
    fn tab_or_newline_anywhere_in_any_length() {
        for len in 0..40 {
            for at in 0..=len {
                for bad in 0u8..=255 {
                    let mut b = vec![b'a'; len];
                    if at < len {
                        b[at] = bad;
                    }
                    let want = memchr::memchr3(b'\t', b'\n', b'\r', &b).is_some();
                    assert_eq!(has_tab_or_newline(&b), want, "{b:?}");
                }
            }
        }
    }
}
