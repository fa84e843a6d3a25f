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
//! `Location` is a redirect edge as in the WARC.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

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
    page_of(serde_wat(json)?)
}

/// The record as the serde structs read it.
pub(super) fn serde_wat(json: &str) -> Result<Wat<'_>, String> {
    serde_json::from_str(json).map_err(|e| format!("WAT JSON: {e}"))
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
    for l in html.links.unwrap_or_default() {
        let url = match (l.url, l.href) {
            (Some(u), _) => u,
            (None, Some(h)) if is_abs_http(&h) => h,
            _ => continue,
        };
        links.push(Link::new(url, l.path.unwrap_or(Cow::Borrowed(""))));
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

/// `http://`, `https://` or `//` at the start (cc-pyspark's test for an
/// absolute link in a `content` or `href`).
pub fn is_abs_http(s: &str) -> bool {
    let b = s.as_bytes();
    let rest = if b.len() >= 5 && b[..5].eq_ignore_ascii_case(b"http:") {
        &b[5..]
    } else if b.len() >= 6 && b[..6].eq_ignore_ascii_case(b"https:") {
        &b[6..]
    } else {
        b
    };
    rest.starts_with(b"//")
}

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

#[derive(Deserialize, Debug, PartialEq)]
pub(super) struct Wat<'a> {
    #[serde(rename = "Envelope", borrow)]
    pub(super) envelope: Envelope<'a>,
}

#[derive(Deserialize, Debug, PartialEq)]
pub(super) struct Envelope<'a> {
    #[serde(rename = "WARC-Header-Metadata", borrow, default)]
    pub(super) warc: Option<WarcMeta<'a>>,
    #[serde(rename = "Payload-Metadata", borrow, default)]
    pub(super) payload: Option<PayloadMeta<'a>>,
}

#[derive(Deserialize, Debug, PartialEq)]
pub(super) struct WarcMeta<'a> {
    #[serde(rename = "WARC-Type", borrow, default, deserialize_with = "text")]
    pub(super) warc_type: Option<Cow<'a, str>>,
    #[serde(rename = "WARC-Target-URI", borrow, default, deserialize_with = "text")]
    pub(super) target: Option<Cow<'a, str>>,
}

#[derive(Deserialize, Debug, PartialEq)]
pub(super) struct PayloadMeta<'a> {
    #[serde(rename = "HTTP-Response-Metadata", borrow, default)]
    pub(super) http: Option<HttpMeta<'a>>,
}

#[derive(Deserialize, Debug, PartialEq)]
pub(super) struct HttpMeta<'a> {
    #[serde(rename = "Response-Message", borrow, default)]
    pub(super) message: Option<Message<'a>>,
    #[serde(rename = "Headers", borrow, default)]
    pub(super) headers: Option<Headers<'a>>,
    #[serde(rename = "HTML-Metadata", borrow, default)]
    pub(super) html: Option<HtmlMeta<'a>>,
}

#[derive(Deserialize, Debug, PartialEq)]
pub(super) struct Message<'a> {
    #[serde(rename = "Status", borrow, default, deserialize_with = "text")]
    pub(super) status: Option<Cow<'a, str>>,
}

#[derive(Deserialize, Debug, PartialEq)]
pub(super) struct HtmlMeta<'a> {
    #[serde(rename = "Head", borrow, default)]
    pub(super) head: Option<Head<'a>>,
    #[serde(rename = "Links", borrow, default)]
    pub(super) links: Option<Vec<LinkObj<'a>>>,
}

#[derive(Deserialize, Debug, PartialEq)]
pub(super) struct Head<'a> {
    #[serde(rename = "Base", borrow, default, deserialize_with = "text")]
    pub(super) base: Option<Cow<'a, str>>,
    #[serde(rename = "Link", borrow, default)]
    pub(super) link: Option<Vec<LinkObj<'a>>>,
    #[serde(rename = "Metas", borrow, default)]
    pub(super) metas: Option<Vec<Meta<'a>>>,
    #[serde(rename = "Scripts", borrow, default)]
    pub(super) scripts: Option<Vec<LinkObj<'a>>>,
}

#[derive(Deserialize, Debug, PartialEq)]
pub(super) struct LinkObj<'a> {
    #[serde(borrow, default, deserialize_with = "text")]
    pub(super) path: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "text")]
    pub(super) url: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "text")]
    pub(super) href: Option<Cow<'a, str>>,
}

#[derive(Deserialize, Debug, PartialEq)]
pub(super) struct Meta<'a> {
    #[serde(borrow, default, deserialize_with = "text")]
    pub(super) name: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "text")]
    pub(super) property: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "text")]
    pub(super) content: Option<Cow<'a, str>>,
}

/// A JSON string, borrowed from the record unless it has escapes (serde
/// borrows a `Cow` field only outside an `Option`).
fn text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Cow<'de, str>>, D::Error> {
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = Cow<'de, str>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a string")
        }
        fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
            Ok(Cow::Borrowed(v))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            Ok(Cow::Owned(v.to_owned()))
        }
        fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
            Ok(Cow::Owned(v))
        }
    }
    struct Text<'a>(Cow<'a, str>);
    impl<'de> Deserialize<'de> for Text<'de> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_str(V).map(Text)
        }
    }
    Ok(Option::<Text<'de>>::deserialize(d)?.map(|t| t.0))
}

/// `Headers`: each name → a string or a list of strings (a repeated
/// header); values of other types are ignored.
#[derive(Debug, PartialEq)]
pub(super) struct Headers<'a>(pub(super) Vec<(Cow<'a, str>, Vec<Cow<'a, str>>)>);

/// One header's value(s).
struct Values<'a>(Vec<Cow<'a, str>>);

impl<'de: 'a, 'a> Deserialize<'de> for Headers<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Headers<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of HTTP headers")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut m: M) -> Result<Self::Value, M::Error> {
                let mut out = Vec::new();
                while let Some(k) = m.next_key::<Cow<'de, str>>()? {
                    let v: Values<'de> = m.next_value()?;
                    out.push((k, v.0));
                }
                Ok(Headers(out))
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Values<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Values<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a header value")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Values(vec![Cow::Borrowed(v)]))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Values(vec![Cow::Owned(v.to_owned())]))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Values(vec![Cow::Owned(v)]))
            }
            fn visit_seq<S: SeqAccess<'de>>(self, mut s: S) -> Result<Self::Value, S::Error> {
                let mut out = Vec::new();
                while let Some(v) = s.next_element::<Values<'de>>()? {
                    out.extend(v.0);
                }
                Ok(Values(out))
            }
            fn visit_map<M: MapAccess<'de>>(self, mut m: M) -> Result<Self::Value, M::Error> {
                while m.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Values(Vec::new()))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Values(Vec::new()))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Values(Vec::new()))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Values(Vec::new()))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Values(Vec::new()))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Values(Vec::new()))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}
