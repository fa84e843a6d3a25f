//! The links of an HTTP response as a WARC `response` record holds it
//! (RFC 9112 §2–§6 message: status line, header fields, body): a 3xx's
//! `Location` (a redirect edge), `Link` and `Content-Location` headers,
//! and for an HTML body every URL-valued attribute of the elements a WAT
//! lists, read with a WHATWG HTML tokenizer (§13.2.5, the `html5gum`
//! crate), in the page's charset (HTML §13.2.3: the `Content-Type`
//! charset, a byte-order mark, or a `<meta charset>` in the first 1024
//! bytes; then UTF-8 if the bytes are, else windows-1252).

use std::borrow::Cow;

use encoding_rs::Encoding;
use html5gum::{State, Token, Tokenizer};

use super::wat::{header_link_targets, is_abs_http, META_NAME_LINKS, META_PROPERTY_LINKS};
use super::Link;

/// An HTTP response: its status, the headers irinorm reads, its body.
#[derive(Debug, Default)]
pub struct Response<'a> {
    pub status: u16,
    /// `Content-Type`.
    pub content_type: &'a str,
    /// The links of the headers (`Location` of a 3xx, `Link`,
    /// `Content-Location`).
    pub header_links: Vec<Link<'a>>,
    pub body: &'a [u8],
}

/// The HTTP response in a WARC `response` block; `None` if the block does
/// not start with an `HTTP/` status line. Header lines that are not UTF-8
/// are skipped.
pub fn http_response(block: &[u8]) -> Option<Response<'_>> {
    if !block.starts_with(b"HTTP/") {
        return None;
    }
    let (head, body) = match memchr::memmem::find(block, b"\r\n\r\n") {
        Some(i) => (&block[..i], &block[i + 4..]),
        None => match memchr::memmem::find(block, b"\n\n") {
            Some(i) => (&block[..i], &block[i + 2..]),
            None => (block, &block[block.len()..]),
        },
    };
    let mut lines = head.split(|&b| b == b'\n');
    let status_line = lines.next()?;
    let status = status_line
        .split(|&b| b == b' ')
        .find(|w| !w.is_empty() && !w.starts_with(b"HTTP/"))
        .and_then(|w| std::str::from_utf8(w.trim_ascii()).ok())
        .and_then(|s| s.parse::<u16>().ok())
        .unwrap_or(0);
    let mut r = Response {
        status,
        body,
        ..Response::default()
    };
    let redirect = (300..400).contains(&status);
    for line in lines {
        let Ok(l) = std::str::from_utf8(line) else {
            continue;
        };
        let Some((name, value)) = l.split_once(':') else {
            continue;
        };
        let (name, value) = (name.trim(), value.trim());
        if name.eq_ignore_ascii_case("content-type") {
            r.content_type = value;
        } else if redirect && name.eq_ignore_ascii_case("location") {
            r.header_links
                .push(Link::new(Cow::Borrowed(value), "HTTP@/Location"));
        } else if name.eq_ignore_ascii_case("content-location") {
            r.header_links
                .push(Link::new(Cow::Borrowed(value), "HTTP@/Content-Location"));
        } else if name.eq_ignore_ascii_case("link") {
            let links = &mut r.header_links;
            header_link_targets(value, |t| links.push(Link::owned(t, "HTTP@/Link")));
        }
    }
    Some(r)
}

/// Whether a `Content-Type` is HTML (or XHTML), or absent.
pub fn is_html(content_type: &str) -> bool {
    let mime = content_type.split(';').next().unwrap_or("").trim();
    mime.is_empty()
        || mime.eq_ignore_ascii_case("text/html")
        || mime.eq_ignore_ascii_case("application/xhtml+xml")
}

/// The charset of an HTML body (HTML §13.2.3.1, the parts that need no
/// parse): a byte-order mark, the `charset` of `Content-Type`, a
/// `<meta charset>` or `<meta http-equiv content="…charset=…">` in the
/// first 1024 bytes; otherwise UTF-8 if the body is, else windows-1252.
pub fn charset(content_type: &str, body: &[u8]) -> &'static Encoding {
    if let Some((enc, _)) = Encoding::for_bom(body) {
        return enc;
    }
    let declared = charset_param(content_type).or_else(|| {
        let head = &body[..body.len().min(1024)];
        meta_charset(head)
    });
    if let Some(e) = declared.and_then(|l| Encoding::for_label(l.as_bytes())) {
        // §13.2.3.1: a declared UTF-16 in the bytes means UTF-8.
        if e == encoding_rs::UTF_16LE || e == encoding_rs::UTF_16BE {
            return encoding_rs::UTF_8;
        }
        return e;
    }
    if simdutf8::basic::from_utf8(body).is_ok() {
        encoding_rs::UTF_8
    } else {
        encoding_rs::WINDOWS_1252
    }
}

/// The `charset=` parameter of a `Content-Type` value.
fn charset_param(ct: &str) -> Option<String> {
    let lower = ct.to_ascii_lowercase();
    let i = lower.find("charset=")?;
    let v = ct[i + 8..].trim_start();
    let v = v.trim_start_matches(['"', '\'']);
    let end = v
        .find(|c: char| c == ';' || c == '"' || c == '\'' || c.is_ascii_whitespace())
        .unwrap_or(v.len());
    (end > 0).then(|| v[..end].to_owned())
}

/// A charset declared by a `<meta>` in `head` (the prescan's usual cases).
fn meta_charset(head: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(head).to_ascii_lowercase();
    let mut rest = text.as_str();
    while let Some(i) = rest.find("<meta") {
        let tag = &rest[i..];
        let end = tag.find('>').unwrap_or(tag.len());
        if let Some(c) = charset_param(&tag[..end]) {
            return Some(c);
        }
        rest = &tag[end.min(tag.len())..];
        if end == 0 {
            break;
        }
    }
    None
}

/// The body as text in its charset (see [`charset`]); malformed bytes
/// become U+FFFD, as a browser reads them.
pub fn decode_body<'a>(content_type: &str, body: &'a [u8]) -> Cow<'a, str> {
    let enc = charset(content_type, body);
    enc.decode_with_bom_removal(body).0
}

/// The URL-valued attributes read, by element (the names a WAT uses).
const ATTRS: &[(&str, &str, &str)] = &[
    ("a", "href", "A@/href"),
    ("area", "href", "AREA@/href"),
    ("link", "href", "LINK@/href"),
    ("img", "src", "IMG@/src"),
    ("script", "src", "SCRIPT@/src"),
    ("iframe", "src", "IFRAME@/src"),
    ("frame", "src", "FRAME@/src"),
    ("embed", "src", "EMBED@/src"),
    ("source", "src", "SOURCE@/src"),
    ("video", "src", "VIDEO@/src"),
    ("video", "poster", "VIDEO@/poster"),
    ("audio", "src", "AUDIO@/src"),
    ("track", "src", "TRACK@/src"),
    ("input", "src", "INPUT@/src"),
    ("form", "action", "FORM@/action"),
    ("button", "formaction", "BUTTON@/formaction"),
    ("object", "data", "OBJECT@/data"),
    ("blockquote", "cite", "BLOCKQUOTE@/cite"),
    ("q", "cite", "Q@/cite"),
    ("del", "cite", "DEL@/cite"),
    ("ins", "cite", "INS@/cite"),
    ("body", "background", "BODY@/background"),
];

/// Elements whose `srcset` is a list of image candidates (HTML §4.8.4.3).
const SRCSET: &[(&str, &str)] = &[("img", "IMG@/srcset"), ("source", "SOURCE@/srcset")];

/// The links and `<base href>` of an HTML page.
#[derive(Debug, Default)]
pub struct HtmlLinks {
    /// The first `<base href>`, as written.
    pub base: Option<String>,
    pub links: Vec<Link<'static>>,
}

/// Tokenize `html` (WHATWG HTML §13.2.5; `<script>`, `<style>`,
/// `<textarea>`, `<title>` contents as the tree builder would switch the
/// tokenizer) and collect its links in document order. An attribute's
/// value has its character references decoded and its leading and trailing
/// ASCII whitespace stripped (§2.4.1's "valid URL potentially surrounded by
/// spaces").
pub fn html_links(html: &str) -> HtmlLinks {
    let mut out = HtmlLinks::default();
    let mut tokens = Tokenizer::new(html);
    while let Some(token) = tokens.next() {
        let Ok(Token::StartTag(tag)) = token else {
            continue;
        };
        let name = tag.name.as_slice();
        // The tokenizer states the tree builder would switch to (§13.2.6.4:
        // "generic raw text" and "RCDATA element parsing"), for a crawler
        // that runs no script: `<noscript>` content is markup.
        let state = match name {
            b"textarea" | b"title" => Some(State::RcData),
            b"plaintext" => Some(State::PlainText),
            b"script" => Some(State::ScriptData),
            b"style" | b"iframe" | b"xmp" | b"noembed" | b"noframes" => Some(State::RawText),
            _ => None,
        };
        if let (Some(st), false) = (state, tag.self_closing) {
            tokens.set_state(st);
        }
        let attr = |a: &str| {
            tag.attributes.get(a.as_bytes()).map(|v| {
                String::from_utf8_lossy(&v.value)
                    .trim_matches(ASCII_WS)
                    .to_owned()
            })
        };
        if name == b"base" {
            if out.base.is_none() {
                out.base = attr("href");
            }
            continue;
        }
        for &(el, at, path) in ATTRS {
            if name == el.as_bytes() {
                if let Some(v) = attr(at) {
                    out.links.push(Link::owned(&v, path));
                }
            }
        }
        for &(el, path) in SRCSET {
            if name == el.as_bytes() {
                if let Some(v) = attr("srcset") {
                    for url in srcset_urls(&v) {
                        out.links.push(Link::owned(url, path));
                    }
                }
            }
        }
        if name == b"meta" {
            if let Some(content) = attr("content") {
                let prop = attr("property");
                let mname = attr("name");
                let refresh = attr("http-equiv").is_some_and(|h| h.eq_ignore_ascii_case("refresh"));
                if refresh {
                    if let Some(u) = refresh_url(&content) {
                        out.links.push(Link::owned(u, "META@/content"));
                    }
                } else if prop.is_some_and(|p| META_PROPERTY_LINKS.contains(&p.as_str()))
                    || mname.is_some_and(|n| META_NAME_LINKS.contains(&n.as_str()))
                    || is_abs_http(&content)
                {
                    out.links.push(Link::owned(&content, "META@/content"));
                }
            }
        }
    }
    out
}

const ASCII_WS: [char; 5] = [' ', '\t', '\n', '\x0c', '\r'];

/// The URLs of a `srcset` (HTML §4.8.4.3.10, parse a srcset attribute:
/// candidates separated by commas, each a URL then descriptors).
pub fn srcset_urls(v: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = v;
    loop {
        rest = rest.trim_start_matches(|c: char| ASCII_WS.contains(&c) || c == ',');
        if rest.is_empty() {
            return out;
        }
        let end = rest
            .find(|c: char| ASCII_WS.contains(&c))
            .unwrap_or(rest.len());
        let url = &rest[..end];
        rest = &rest[end..];
        let url = if url.ends_with(',') {
            url.trim_end_matches(',')
        } else {
            // Descriptors up to the next comma outside parentheses.
            let mut depth = 0usize;
            let mut cut = rest.len();
            for (i, c) in rest.char_indices() {
                match c {
                    '(' => depth += 1,
                    ')' => depth = depth.saturating_sub(1),
                    ',' if depth == 0 => {
                        cut = i;
                        break;
                    }
                    _ => {}
                }
            }
            rest = &rest[cut..];
            url
        };
        if !url.is_empty() {
            out.push(url);
        }
    }
}

/// The URL of a `<meta http-equiv=refresh content="5; url=…">` (HTML
/// §4.2.5.3, the shared declarative refresh steps, simplified: the text
/// after `url=`, quotes removed).
fn refresh_url(content: &str) -> Option<&str> {
    let lower = content.to_ascii_lowercase();
    let i = lower.find("url")?;
    let rest = content[i + 3..].trim_start_matches(ASCII_WS);
    let rest = rest.strip_prefix('=')?.trim_start_matches(ASCII_WS);
    let rest = rest.trim_matches(|c| c == '"' || c == '\'');
    (!rest.is_empty()).then_some(rest)
}
