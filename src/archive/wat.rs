//! WAT metadata records: the JSON that Common Crawl's and the Internet
//! Archive's `ia-web-commons` writes for each WARC record, read for the
//! links of an HTML response — `Envelope` → `Payload-Metadata` →
//! `HTTP-Response-Metadata` → `HTML-Metadata` → `Head.Base`, `Head.Link`,
//! `Head.Metas`, `Head.Scripts` and `Links`, each link with its `path`
//! (`A@/href`, `IMG@/src`, …) — and of the response's HTTP headers.
//!
//! Which links are taken follows `cc-pyspark`'s `ExtractLinksJob` (the
//! pipeline of Common Crawl's web graphs): `Link` and `Content-Location`
//! headers, the head's links, scripts and URL-valued metas (`og:url`, …),
//! and `Links` (their `url`, or an absolute `href`); a 3xx response's
//! `Location` is a redirect edge as in the WARC. The JSON is read by
//! `json.rs`.

use std::borrow::Cow;

pub use super::json::is_abs_http;
use super::json::Wat;
use super::Link;

/// The links of one WAT record of an HTTP response.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct WatPage<'a> {
    /// The page (`WARC-Target-URI` of the response).
    pub url: Cow<'a, str>,
    /// `Head.Base` as written (to be resolved against the page).
    pub base: Option<Cow<'a, str>>,
    pub links: Vec<Link<'a>>,
}

/// The page and links of a WAT JSON record; `Ok(None)` for a record that
/// is not of a response (request, metadata, warcinfo); an error for JSON
/// that is broken or not of the WAT shape.
///
/// The record is read by the scanner of `json.rs`; what it leaves
/// undecided (broken JSON, unusual shapes) is read by `serde_json`, which
/// gives the same fields or the error message.
pub fn wat_links(json: &str) -> Result<Option<WatPage<'_>>, String> {
    match super::json::scan(json) {
        Some(wat) => page_of(wat),
        None => wat_links_serde(json),
    }
}

/// [`wat_links`] read by `serde_json` alone: the reference the scanner is
/// tested against (`tests/wat_json.rs`, the `wat` fuzz target).
#[doc(hidden)]
pub fn wat_links_serde(json: &str) -> Result<Option<WatPage<'_>>, String> {
    page_of(super::json::serde_wat(json)?)
}

fn page_of(wat: Wat<'_>) -> Result<Option<WatPage<'_>>, String> {
    let env = wat.envelope;
    let Some(warc) = env.warc else {
        return Err("WAT JSON: no Envelope.WARC-Header-Metadata".into());
    };
    if warc.warc_type.as_deref() != Some("response") {
        return Ok(None);
    }
    let Some(url) = warc.target else {
        return Err("WAT JSON: a response without WARC-Target-URI".into());
    };
    let mut page = WatPage {
        url,
        ..WatPage::default()
    };
    let Some(http) = env.payload.and_then(|p| p.http) else {
        return Ok(Some(page));
    };
    let links = &mut page.links;
    let status = http.message.and_then(|m| m.status);
    let redirect = status
        .as_deref()
        .is_some_and(|s| s.len() == 3 && s.starts_with('3'));
    for (name, values) in http.headers.map(|h| h.0).unwrap_or_default() {
        if name.eq_ignore_ascii_case("link") {
            for v in values {
                header_link_targets(&v, |t| links.push(Link::owned(t, "HTTP@/Link")));
            }
        } else if name.eq_ignore_ascii_case("content-location") {
            for v in values {
                links.push(Link::new(v, "HTTP@/Content-Location"));
            }
        } else if redirect && name.eq_ignore_ascii_case("location") {
            if let Some(v) = values.into_iter().next() {
                links.push(Link::new(v, "HTTP@/Location"));
            }
        }
    }
    let Some(html) = http.html else {
        return Ok(Some(page));
    };
    if let Some(head) = html.head {
        page.base = head.base;
        for l in head.link.unwrap_or_default() {
            if let Some(u) = l.url {
                links.push(Link::new(u, l.path.unwrap_or(Cow::Borrowed("LINK@/href"))));
            }
        }
        for m in head.metas.unwrap_or_default() {
            let Some(content) = m.content else { continue };
            let wanted = m
                .property
                .as_deref()
                .is_some_and(|p| META_PROPERTY_LINKS.contains(&p))
                || m.name
                    .as_deref()
                    .is_some_and(|n| META_NAME_LINKS.contains(&n))
                || is_abs_http(&content);
            if wanted {
                links.push(Link::new(content, "META@/content"));
            }
        }
        for s in head.scripts.unwrap_or_default() {
            if let Some(u) = s.url {
                links.push(Link::new(u, s.path.unwrap_or(Cow::Borrowed("SCRIPT@/src"))));
            }
        }
    }
    if let Some(list) = html.links {
        links.extend(list.0);
    }
    Ok(Some(page))
}

/// `<meta property=…>` values whose `content` is a link (cc-pyspark's
/// list).
pub const META_PROPERTY_LINKS: [&str; 8] = [
    "og:url",
    "og:image",
    "og:image:secure_url",
    "og:video",
    "og:video:url",
    "og:video:secure_url",
    "twitter:url",
    "twitter:image:src",
];

/// `<meta name=…>` values whose `content` is a link (cc-pyspark's list).
pub const META_NAME_LINKS: [&str; 6] = [
    "twitter:image",
    "thumbnail",
    "application-url",
    "msapplication-starturl",
    "msapplication-TileImage",
    "vb_meta_bburl",
];

/// The targets of an HTTP `Link` header (RFC 8288 §3: `<target>; params`,
/// several separated by commas).
pub fn header_link_targets(v: &str, mut f: impl FnMut(&str)) {
    let mut rest = v;
    while let Some(open) = rest.find('<') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('>') else { break };
        f(after[..close].trim());
        rest = &after[close + 1..];
    }
}
