//! A single-pass reader of WAT JSON (RFC 8259: §2 grammar and whitespace,
//! §4 objects, §5 arrays, §6 numbers, §7 strings and escapes) that builds
//! the same [`Wat`] value as the serde structs at the end of this file
//! (the WAT shape `wat_links` reads), descending only along their paths:
//!
//! ```text
//! {"Envelope": {"WARC-Header-Metadata": {"WARC-Type", "WARC-Target-URI"},
//!               "Payload-Metadata": {"HTTP-Response-Metadata": {
//!                 "Response-Message": {"Status"}, "Headers": {name: value(s)},
//!                 "HTML-Metadata": {"Head": {"Base", "Link": [..], "Metas": [..],
//!                                            "Scripts": [..]},
//!                                   "Links": [{"path", "url", "href"}, ..]}}}}}
//! ```
//!
//! `Links`, most of a record's bytes, is read straight into the [`Link`]s
//! a page holds ([`LinkList`]; serde builds them from its structs), the
//! usual keys of a link object matched as one eight-byte word each.
//!
//! Every other member is skipped with the validation `serde_json` gives an
//! ignored value (strings: no control character, valid escapes; numbers,
//! literals, nesting, commas and colons by the grammar), so a document is
//! accepted here only if `serde_json` accepts it, with equal fields.
//!
//! The reader returns `None` ("ask serde") for whatever it does not decide
//! itself: any syntax error, and valid JSON that serde reads in a way this
//! reader does not repeat — a struct written as an array, a read field of
//! the wrong type, a duplicate read field, an escaped key where fields are
//! matched, a lone surrogate in a read string, numbers or objects among
//! header values, skipped nesting deeper than 127. The caller then runs
//! `serde_json`, which gives the result or the error message.

use std::borrow::Cow;
use std::fmt;

use super::Link;
use crate::simd::bytes::{bytes_below, ONES};

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

/// The record read by the fast path, or `None` to defer to `serde_json`.
pub(super) fn scan(json: &str) -> Option<Wat<'_>> {
    let mut r = Reader {
        s: json,
        b: json.as_bytes(),
        i: 0,
    };
    let mut envelope = None;
    r.ws();
    r.object(|r, key| match key {
        b"Envelope" => once(&mut envelope, r.envelope()),
        _ => r.skip(),
    })?;
    r.ws();
    if r.i != r.b.len() {
        return None;
    }
    Some(Wat {
        envelope: envelope?,
    })
}

/// Stores a field's value unless the field was already seen (serde's
/// "duplicate field" error).
#[inline]
fn once<T>(slot: &mut Option<T>, v: Option<T>) -> Option<()> {
    if slot.is_some() {
        return None;
    }
    *slot = Some(v?);
    Some(())
}

/// A field that may be `null` (an `Option` with `#[serde(default)]`): the
/// value `Some(None)` for `null`.
fn nullable<'a, T>(
    r: &mut Reader<'a>,
    f: impl FnOnce(&mut Reader<'a>) -> Option<T>,
) -> Option<Option<T>> {
    if r.peek() == Some(b'n') {
        r.literal(b"null")?;
        return Some(None);
    }
    f(r).map(Some)
}

/// The bytes a string's body stops at: `"`, `\` and the control
/// characters U+0000–U+001F (RFC 8259 §7), in an eight-byte word: the
/// high bit of each such byte (exact up to the first one). `b ^ 0x02` is
/// below 0x21 exactly when `b` is a control character or `"`.
#[inline(always)]
fn stops(w: u64) -> u64 {
    bytes_below(w ^ (ONES * 0x02), 0x21) | bytes_below(w ^ (ONES * u64::from(b'\\')), 1)
}

struct Reader<'a> {
    s: &'a str,
    b: &'a [u8],
    i: usize,
}

impl<'a> Reader<'a> {
    #[inline(always)]
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    /// RFC 8259 §2: space, tab, line feed, carriage return.
    #[inline(always)]
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.i += 1;
        }
    }

    #[inline(always)]
    fn eat(&mut self, c: u8) -> Option<()> {
        self.ws();
        if self.peek()? != c {
            return None;
        }
        self.i += 1;
        Some(())
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        if !self.b[self.i..].starts_with(word) {
            return None;
        }
        self.i += word.len();
        Some(())
    }

    /// The body of a string whose opening `"` is at `i`, validated as
    /// `serde_json` validates an ignored string; `i` ends past the closing
    /// `"`. Returns the body's range and whether it has escapes.
    #[inline(always)]
    fn string_body(&mut self) -> Option<(usize, usize, bool)> {
        let start = self.i + 1;
        let mut i = start;
        let mut escaped = false;
        loop {
            loop {
                if let Some(w) = self.b.get(i..i + 8) {
                    let m = stops(u64::from_le_bytes(w.try_into().unwrap()));
                    if m != 0 {
                        i += (m.trailing_zeros() / 8) as usize;
                        break;
                    }
                    i += 8;
                } else {
                    while i < self.b.len() && !matches!(self.b[i], b'"' | b'\\' | 0..=0x1f) {
                        i += 1;
                    }
                    break;
                }
            }
            match *self.b.get(i)? {
                b'"' => {
                    self.i = i + 1;
                    return Some((start, i, escaped));
                }
                b'\\' => {
                    escaped = true;
                    match *self.b.get(i + 1)? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
                        b'u' => {
                            hex4(self.b.get(i + 2..i + 6)?)?;
                            i += 6;
                        }
                        _ => return None,
                    }
                }
                _ => return None,
            }
        }
    }

    /// A string value, unescaped as `serde_json` does (borrowed when it has
    /// no escapes); `None` for a lone surrogate, which serde refuses.
    #[inline]
    fn string(&mut self) -> Option<Cow<'a, str>> {
        if self.peek()? != b'"' {
            return None;
        }
        let (from, to, escaped) = self.string_body()?;
        if !escaped {
            return Some(Cow::Borrowed(&self.s[from..to]));
        }
        unescape(&self.s[from..to]).map(Cow::Owned)
    }

    /// [`Self::string`] at a string's opening `"`, inlined where it is hot.
    #[inline(always)]
    fn string_inline(&mut self) -> Option<Cow<'a, str>> {
        let (from, to, escaped) = self.string_body()?;
        if !escaped {
            return Some(Cow::Borrowed(&self.s[from..to]));
        }
        unescape(&self.s[from..to]).map(Cow::Owned)
    }

    /// A `Text` field: `null` or a string.
    #[inline]
    fn text(&mut self) -> Option<Option<Cow<'a, str>>> {
        nullable(self, Self::string)
    }

    /// A member's key and its `:`: the key's raw bytes; `None` for an
    /// escaped key (left to serde) or anything that is not a key.
    #[inline(always)]
    fn member_key(&mut self) -> Option<&'a [u8]> {
        if self.peek()? != b'"' {
            return None;
        }
        let (from, to, escaped) = self.string_body()?;
        if escaped {
            return None;
        }
        self.eat(b':')?;
        Some(&self.b[from..to])
    }

    /// After a member: `,` and the space after it (`true`: another member
    /// follows) or `}` (`false`: the object ends).
    #[inline(always)]
    fn member_end(&mut self) -> Option<bool> {
        self.ws();
        match self.peek()? {
            b',' => {
                self.i += 1;
                self.ws();
                Some(true)
            }
            b'}' => {
                self.i += 1;
                Some(false)
            }
            _ => None,
        }
    }

    /// The members of an object, the key (its raw bytes; an escaped key is
    /// left to serde) given to `member`, which reads or skips the value.
    #[inline]
    fn object(&mut self, mut member: impl FnMut(&mut Self, &'a [u8]) -> Option<()>) -> Option<()> {
        self.eat(b'{')?;
        self.ws();
        if self.peek()? == b'}' {
            self.i += 1;
            return Some(());
        }
        loop {
            let key = self.member_key()?;
            self.ws();
            member(self, key)?;
            if !self.member_end()? {
                return Some(());
            }
        }
    }

    /// The elements of an array, each read by `element`.
    #[inline]
    fn array(&mut self, mut element: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.eat(b'[')?;
        self.ws();
        if self.peek()? == b']' {
            self.i += 1;
            return Some(());
        }
        loop {
            self.ws();
            element(self)?;
            self.ws();
            match self.peek()? {
                b',' => self.i += 1,
                b']' => {
                    self.i += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// A list of structs (`Option<Vec<T>>`).
    fn list<T>(&mut self, item: impl Fn(&mut Self) -> Option<T>) -> Option<Option<Vec<T>>> {
        nullable(self, |r| {
            let mut v = Vec::new();
            r.array(|r| {
                v.push(item(r)?);
                Some(())
            })?;
            Some(v)
        })
    }

    /// Skips one value (RFC 8259 §3), validating it as `serde_json`'s
    /// `ignore_value` does. Nesting is a stack of bits (1 for an object).
    #[inline]
    fn skip(&mut self) -> Option<()> {
        if self.peek()? == b'"' {
            self.string_body()?;
            return Some(());
        }
        self.skip_any()
    }

    /// [`Self::skip`] for a value other than a string.
    fn skip_any(&mut self) -> Option<()> {
        let mut stack: u128 = 0;
        let mut depth = 0u32;
        loop {
            // A value.
            self.ws();
            match self.peek()? {
                b'"' => {
                    self.string_body()?;
                }
                b'n' => self.literal(b"null")?,
                b't' => self.literal(b"true")?,
                b'f' => self.literal(b"false")?,
                b'-' | b'0'..=b'9' => self.number()?,
                open @ (b'{' | b'[') => {
                    self.i += 1;
                    self.ws();
                    let close = if open == b'{' { b'}' } else { b']' };
                    if self.peek()? != close {
                        if depth == 127 {
                            return None;
                        }
                        depth += 1;
                        stack = stack << 1 | u128::from(open == b'{');
                        if open == b'{' {
                            self.key()?;
                        }
                        continue;
                    }
                    self.i += 1;
                }
                _ => return None,
            }
            // After a value: a comma and the next member, or the closers.
            loop {
                if depth == 0 {
                    return Some(());
                }
                self.ws();
                let in_object = stack & 1 == 1;
                match self.peek()? {
                    b',' => {
                        self.i += 1;
                        if in_object {
                            self.ws();
                            self.key()?;
                        }
                        break;
                    }
                    b'}' if in_object => {}
                    b']' if !in_object => {}
                    _ => return None,
                }
                self.i += 1;
                stack >>= 1;
                depth -= 1;
            }
        }
    }

    /// A skipped member's key and its colon.
    fn key(&mut self) -> Option<()> {
        if self.peek()? != b'"' {
            return None;
        }
        self.string_body()?;
        self.eat(b':')
    }

    /// RFC 8259 §6: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    fn number(&mut self) -> Option<()> {
        let b = self.b;
        let mut i = self.i;
        if b[i] == b'-' {
            i += 1;
        }
        match *b.get(i)? {
            b'0' => i += 1,
            b'1'..=b'9' => i = digits(b, i),
            _ => return None,
        }
        if b.get(i) == Some(&b'.') {
            let j = digits(b, i + 1);
            if j == i + 1 {
                return None;
            }
            i = j;
        }
        if let Some(b'e' | b'E') = b.get(i) {
            i += 1;
            if let Some(b'+' | b'-') = b.get(i) {
                i += 1;
            }
            let j = digits(b, i);
            if j == i {
                return None;
            }
            i = j;
        }
        // `01`: serde refuses a digit after a leading zero.
        if b.get(i).is_some_and(u8::is_ascii_digit) {
            return None;
        }
        self.i = i;
        Some(())
    }

    fn envelope(&mut self) -> Option<Envelope<'a>> {
        let (mut warc, mut payload) = (None, None);
        self.object(|r, key| match key {
            b"WARC-Header-Metadata" => once(&mut warc, nullable(r, Self::warc_meta)),
            b"Payload-Metadata" => once(&mut payload, nullable(r, Self::payload_meta)),
            _ => r.skip(),
        })?;
        Some(Envelope {
            warc: warc.flatten(),
            payload: payload.flatten(),
        })
    }

    fn warc_meta(&mut self) -> Option<WarcMeta<'a>> {
        let (mut warc_type, mut target) = (None, None);
        self.object(|r, key| match key {
            b"WARC-Type" => once(&mut warc_type, r.text()),
            b"WARC-Target-URI" => once(&mut target, r.text()),
            _ => r.skip(),
        })?;
        Some(WarcMeta {
            warc_type: warc_type.flatten(),
            target: target.flatten(),
        })
    }

    fn payload_meta(&mut self) -> Option<PayloadMeta<'a>> {
        let mut http = None;
        self.object(|r, key| match key {
            b"HTTP-Response-Metadata" => once(&mut http, nullable(r, Self::http_meta)),
            _ => r.skip(),
        })?;
        Some(PayloadMeta {
            http: http.flatten(),
        })
    }

    fn http_meta(&mut self) -> Option<HttpMeta<'a>> {
        let (mut message, mut headers, mut html) = (None, None, None);
        self.object(|r, key| match key {
            b"Response-Message" => once(&mut message, nullable(r, Self::message)),
            b"Headers" => once(&mut headers, nullable(r, Self::headers)),
            b"HTML-Metadata" => once(&mut html, nullable(r, Self::html_meta)),
            _ => r.skip(),
        })?;
        Some(HttpMeta {
            message: message.flatten(),
            headers: headers.flatten(),
            html: html.flatten(),
        })
    }

    fn message(&mut self) -> Option<Message<'a>> {
        let mut status = None;
        self.object(|r, key| match key {
            b"Status" => once(&mut status, r.text()),
            _ => r.skip(),
        })?;
        Some(Message {
            status: status.flatten(),
        })
    }

    /// `Headers`: every name with its string or list of strings; `null`
    /// and booleans give no value. Anything else is left to serde.
    fn headers(&mut self) -> Option<Headers<'a>> {
        let mut out = Vec::new();
        self.eat(b'{')?;
        self.ws();
        if self.peek()? == b'}' {
            self.i += 1;
            return Some(Headers(out));
        }
        loop {
            let name = self.string()?;
            self.eat(b':')?;
            self.ws();
            let values = match self.peek()? {
                b'"' => vec![self.string()?],
                b'[' => {
                    let mut v = Vec::new();
                    self.array(|r| {
                        v.push(r.string()?);
                        Some(())
                    })?;
                    v
                }
                b'n' => self.literal(b"null").map(|_| Vec::new())?,
                b't' => self.literal(b"true").map(|_| Vec::new())?,
                b'f' => self.literal(b"false").map(|_| Vec::new())?,
                _ => return None,
            };
            out.push((name, values));
            match self.peek_after_ws()? {
                b',' => {
                    self.i += 1;
                    self.ws();
                }
                b'}' => {
                    self.i += 1;
                    return Some(Headers(out));
                }
                _ => return None,
            }
        }
    }

    #[inline]
    fn peek_after_ws(&mut self) -> Option<u8> {
        self.ws();
        self.peek()
    }

    fn html_meta(&mut self) -> Option<HtmlMeta<'a>> {
        let (mut head, mut links) = (None, None);
        self.object(|r, key| match key {
            b"Head" => once(&mut head, nullable(r, Self::head)),
            b"Links" => once(&mut links, r.links()),
            _ => r.skip(),
        })?;
        Some(HtmlMeta {
            head: head.flatten(),
            links: links.flatten(),
        })
    }

    fn head(&mut self) -> Option<Head<'a>> {
        let (mut base, mut link, mut metas, mut scripts) = (None, None, None, None);
        self.object(|r, key| match key {
            b"Base" => once(&mut base, r.text()),
            b"Link" => once(&mut link, r.list(Self::link_obj)),
            b"Metas" => once(&mut metas, r.list(Self::meta)),
            b"Scripts" => once(&mut scripts, r.list(Self::link_obj)),
            _ => r.skip(),
        })?;
        Some(Head {
            base: base.flatten(),
            link: link.flatten(),
            metas: metas.flatten(),
            scripts: scripts.flatten(),
        })
    }

    /// A link of `Links`, `Head.Link` or `Head.Scripts` (the hottest
    /// object: its fields go straight to their places, a bit each marking
    /// the fields seen).
    fn link_obj(&mut self) -> Option<LinkObj<'a>> {
        let mut o = LinkObj {
            path: None,
            url: None,
            href: None,
        };
        let mut seen = 0u8;
        self.object(|r, key| {
            let (bit, slot) = match key {
                b"path" => (1, &mut o.path),
                b"url" => (2, &mut o.url),
                b"href" => (4, &mut o.href),
                _ => return r.skip(),
            };
            if seen & bit != 0 {
                return None;
            }
            seen |= bit;
            *slot = r.text()?;
            Some(())
        })?;
        Some(o)
    }

    /// `Links`, the bulk of a record: each object read by [`Self::link_item`]
    /// straight into the [`Link`] it gives, if any.
    fn links(&mut self) -> Option<Option<LinkList<'a>>> {
        nullable(self, |r| {
            let mut v = Vec::new();
            r.array(|r| {
                v.extend(r.link_item()?);
                Some(())
            })?;
            Some(LinkList(v))
        })
    }

    /// One object of `Links`: [`Self::link_obj`] with the usual keys
    /// (`"path":`, `"url":`, `"href":`, `"text":`) matched as one word
    /// each; any other key takes the general way.
    #[inline]
    fn link_item(&mut self) -> Option<Option<Link<'a>>> {
        self.eat(b'{')?;
        self.ws();
        let (mut path, mut url, mut href) = (None, None, None);
        let mut seen = 0u8;
        if self.peek()? == b'}' {
            self.i += 1;
            return Some(None);
        }
        loop {
            let bit = match self.link_key() {
                Some(bit) => bit,
                None => match self.member_key()? {
                    b"path" => 1,
                    b"url" => 2,
                    b"href" => 4,
                    _ => 0,
                },
            };
            self.ws();
            if bit == 0 {
                // Mostly `text`: a string, its body scanned in place.
                if self.peek()? == b'"' {
                    self.string_body()?;
                } else {
                    self.skip_any()?;
                }
            } else {
                if seen & bit != 0 {
                    return None;
                }
                seen |= bit;
                let v = if self.peek()? == b'"' {
                    Some(self.string_inline()?)
                } else {
                    self.text()?
                };
                match bit {
                    1 => path = v,
                    2 => url = v,
                    _ => href = v,
                }
            }
            if !self.member_end()? {
                return Some(link_of(path, url, href));
            }
        }
    }

    /// A link object's usual key with its colon right after it, at `i`:
    /// its bit (`path` 1, `url` 2, `href` 4, `text` 0, which is skipped),
    /// `i` moved past the colon; `None` for anything else.
    #[inline(always)]
    fn link_key(&mut self) -> Option<u8> {
        const fn word(k: &[u8; 8]) -> u64 {
            u64::from_le_bytes(*k)
        }
        const SEVEN: u64 = u64::MAX >> 8;
        const SIX: u64 = u64::MAX >> 16;
        let w = word(self.b.get(self.i..self.i + 8)?.try_into().unwrap());
        let (bit, len) = if w & SEVEN == word(b"\"path\":\0") {
            (1, 7)
        } else if w & SIX == word(b"\"url\":\0\0") {
            (2, 6)
        } else if w & SEVEN == word(b"\"text\":\0") {
            (0, 7)
        } else if w & SEVEN == word(b"\"href\":\0") {
            (4, 7)
        } else {
            return None;
        };
        self.i += len;
        Some(bit)
    }

    fn meta(&mut self) -> Option<Meta<'a>> {
        let (mut name, mut property, mut content) = (None, None, None);
        self.object(|r, key| match key {
            b"name" => once(&mut name, r.text()),
            b"property" => once(&mut property, r.text()),
            b"content" => once(&mut content, r.text()),
            _ => r.skip(),
        })?;
        Some(Meta {
            name: name.flatten(),
            property: property.flatten(),
            content: content.flatten(),
        })
    }
}

fn digits(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    i
}

/// Four hex digits of a `\u` escape.
fn hex4(h: &[u8]) -> Option<u16> {
    let mut n = 0u16;
    for &c in h {
        n = n << 4 | (c as char).to_digit(16)? as u16;
    }
    Some(n)
}

/// A string body's escapes replaced (RFC 8259 §7); a `\u` surrogate must
/// be a high one followed by a `\u` low one. The body's escapes are
/// already validated by `string_body`.
fn unescape(body: &str) -> Option<String> {
    let b = body.as_bytes();
    let mut out = String::with_capacity(body.len());
    let mut i = 0;
    while let Some(k) = memchr::memchr(b'\\', &b[i..]) {
        out.push_str(&body[i..i + k]);
        i += k + 1;
        let c = match b[i] {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            _ => {
                let n = hex4(&b[i + 1..i + 5])?;
                i += 4;
                match n {
                    0xD800..=0xDBFF => {
                        if b.get(i + 1..i + 3) != Some(b"\\u") {
                            return None;
                        }
                        let lo = hex4(b.get(i + 3..i + 7)?)?;
                        if !(0xDC00..=0xDFFF).contains(&lo) {
                            return None;
                        }
                        i += 6;
                        let c =
                            0x10000 + ((u32::from(n) - 0xD800) << 10) + (u32::from(lo) - 0xDC00);
                        char::from_u32(c)?
                    }
                    0xDC00..=0xDFFF => return None,
                    n => char::from_u32(u32::from(n))?,
                }
            }
        };
        out.push(c);
        i += 1;
    }
    out.push_str(&body[i..]);
    Some(out)
}

// The WAT shape as serde reads it: the reference of the scanner, and the
// reader of what the scanner leaves.

/// The record as the serde structs read it.
pub(super) fn serde_wat(json: &str) -> Result<Wat<'_>, String> {
    serde_json::from_str(json).map_err(|e| format!("WAT JSON: {e}"))
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
    pub(super) links: Option<LinkList<'a>>,
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

/// The links of `Links` as a page holds them ([`link_of`]): the scanner
/// builds them as it reads, serde from the [`LinkObj`]s it reads.
#[derive(Debug, PartialEq)]
pub(super) struct LinkList<'a>(pub(super) Vec<Link<'a>>);

impl<'de: 'a, 'a> Deserialize<'de> for LinkList<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let objs = Vec::<LinkObj<'a>>::deserialize(d)?;
        Ok(LinkList(
            objs.into_iter()
                .filter_map(|o| link_of(o.path, o.url, o.href))
                .collect(),
        ))
    }
}

/// The link of a `Links` object, as cc-pyspark takes it: its `url`, or
/// else an absolute `href` ([`is_abs_http`]); its `path`, or nothing.
fn link_of<'a>(
    path: Option<Cow<'a, str>>,
    url: Option<Cow<'a, str>>,
    href: Option<Cow<'a, str>>,
) -> Option<Link<'a>> {
    let url = match (url, href) {
        (Some(u), _) => u,
        (None, Some(h)) if is_abs_http(&h) => h,
        _ => return None,
    };
    Some(Link::new(url, path.unwrap_or(Cow::Borrowed(""))))
}

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

#[cfg(test)]
mod tests;
