//! A single-pass reader of WAT JSON (RFC 8259: §2 grammar and whitespace,
//! §4 objects, §5 arrays, §6 numbers, §7 strings and escapes) that builds
//! the same [`Wat`] value as the serde structs of `wat.rs`, descending only
//! along the paths they read:
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

use super::wat::{
    Envelope, Head, Headers, HtmlMeta, HttpMeta, LinkObj, Message, Meta, PayloadMeta, WarcMeta, Wat,
};

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
/// characters U+0000–U+001F (RFC 8259 §7), in eight-byte words.
const ONES: u64 = u64::MAX / 255;
#[inline(always)]
fn stops(w: u64) -> u64 {
    let ctrl = w.wrapping_sub(ONES * 0x20) & !w;
    let q = w ^ (ONES * b'"' as u64);
    let q = q.wrapping_sub(ONES) & !q;
    let bs = w ^ (ONES * b'\\' as u64);
    let bs = bs.wrapping_sub(ONES) & !bs;
    (ctrl | q | bs) & (ONES << 7)
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
            while i + 8 <= self.b.len() {
                let w = u64::from_le_bytes(self.b[i..i + 8].try_into().unwrap());
                let m = stops(w);
                if m != 0 {
                    i += (m.trailing_zeros() / 8) as usize;
                    break;
                }
                i += 8;
            }
            while i < self.b.len() && !matches!(self.b[i], b'"' | b'\\' | 0..=0x1f) {
                i += 1;
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

    /// A `Text` field: `null` or a string.
    #[inline]
    fn text(&mut self) -> Option<Option<Cow<'a, str>>> {
        nullable(self, Self::string)
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
            if self.peek()? != b'"' {
                return None;
            }
            let (from, to, escaped) = self.string_body()?;
            if escaped {
                return None;
            }
            self.eat(b':')?;
            self.ws();
            member(self, &self.b[from..to])?;
            self.ws();
            match self.peek()? {
                b',' => {
                    self.i += 1;
                    self.ws();
                }
                b'}' => {
                    self.i += 1;
                    return Some(());
                }
                _ => return None,
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
            b"Links" => once(&mut links, r.list(Self::link_obj)),
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

    fn link_obj(&mut self) -> Option<LinkObj<'a>> {
        let (mut path, mut url, mut href) = (None, None, None);
        self.object(|r, key| match key {
            b"path" => once(&mut path, r.text()),
            b"url" => once(&mut url, r.text()),
            b"href" => once(&mut href, r.text()),
            _ => r.skip(),
        })?;
        Some(LinkObj {
            path: path.flatten(),
            url: url.flatten(),
            href: href.flatten(),
        })
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

#[cfg(test)]
mod tests;
