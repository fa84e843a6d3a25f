//! Web archives as link sources: WARC records (ISO 28500, WARC/1.0–1.1)
//! read from gzip members, the links of a WAT metadata record (the JSON of
//! `ia-web-commons`) and of an HTTP response's headers and HTML body, and
//! host names as Common Crawl's host graph writes them. It reads and
//! extracts; resolving and keying the links is the engine's
//! (`batch::links`).
//!
//! ```text
//! gzip    a file of gzip members, each member's offset known
//! warc    records: version line, fields, block, CRLF CRLF; rejects
//! wat     a WAT JSON record → the page, its base and its links
//! json    the scanner that reads a WAT record (serde_json for the rest)
//! html    an HTTP response → status, header links, charset, HTML links
//! hosts   cc-pyspark's host naming (reversed, `www.` dropped, A-labels)
//! ```
//!
//! ```
//! use irinorm::archive::{wat_links, html_links};
//! let json = r#"{"Envelope":{"WARC-Header-Metadata":{"WARC-Type":"response",
//!   "WARC-Target-URI":"http://a.example/x/"},"Payload-Metadata":{"HTTP-Response-Metadata":
//!   {"HTML-Metadata":{"Head":{"Base":"/y/"},"Links":[{"path":"A@/href","url":"z"}]}}}}}"#;
//! let page = wat_links(json).unwrap().unwrap();
//! assert_eq!((&*page.url, page.base.as_deref()), ("http://a.example/x/", Some("/y/")));
//! assert_eq!((&*page.links[0].url, &*page.links[0].path), ("z", "A@/href"));
//! let h = html_links("<base href=/b/><a href=' c '>c</a><img srcset='d 1x, e 2x'>");
//! assert_eq!(h.base.as_deref(), Some("/b/"));
//! let urls: Vec<&str> = h.links.iter().map(|l| &*l.url).collect();
//! assert_eq!(urls, ["c", "d", "e"]);
//! ```

use std::borrow::Cow;

mod gzip;
mod hosts;
mod html;
mod json;
mod warc;
mod wat;

pub use gzip::Members;
pub use hosts::graph_host;
pub use html::{
    charset, decode_body, html_links, http_response, is_html, srcset_urls, HtmlLinks, Response,
};
pub use warc::{Next, Place, Record, WarcReader, MAX_HEADER};
pub use wat::{header_link_targets, is_abs_http, wat_links, wat_links_serde, WatPage};

/// A link as a page holds it: the reference as written and where it was
/// (`A@/href`: the `href` attribute of an `<a>`; `HTTP@/Location`: a
/// redirect's header).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link<'a> {
    pub url: Cow<'a, str>,
    pub path: Cow<'a, str>,
}

impl<'a> Link<'a> {
    pub fn new(url: Cow<'a, str>, path: impl Into<Cow<'a, str>>) -> Self {
        Link {
            url,
            path: path.into(),
        }
    }

    /// A link that owns its text.
    pub fn owned(url: &str, path: &str) -> Link<'static> {
        Link {
            url: Cow::Owned(url.to_owned()),
            path: Cow::Owned(path.to_owned()),
        }
    }
}

/// Whether a WARC record is a WAT JSON metadata record.
pub fn is_wat_json(r: &Record<'_>) -> bool {
    r.warc_type == "metadata" && r.content_type.trim_start().starts_with("application/json")
}

/// Whether a WARC record is an HTTP response (`application/http;
/// msgtype=response`, or a `response` record of an `http(s)` URI).
pub fn is_http_response(r: &Record<'_>) -> bool {
    r.warc_type == "response"
        && (r.content_type.contains("application/http")
            || r.target_uri.starts_with("http:")
            || r.target_uri.starts_with("https:"))
}
