//! IRI → URI (draft-ietf-iri-3987bis §3.3–3.6) and URI → IRI (§3.7), with no
//! normalization: the pure conversions for users who hand IRIs to URI-only
//! systems (§6.2) or show URIs to people.
//!
//! [`to_uri`] follows §3.3 (and the idempotent encoding of `004_*.txt`):
//! every character a URI does not allow becomes UTF-8 percent-encoding with
//! uppercase hex, existing `%XX` are never re-encoded, so it is idempotent
//! and the identity on a valid URI. An `ireg-name` with non-ASCII characters
//! becomes punycode for schemes whose host is a DNS name (003 §3.4.2, which
//! first decodes percent-encoded UTF-8 in it) and percent-encoding for the
//! others (003 §3.4.1); a host that fails IDNA fails the conversion (§3.4).
//!
//! [`to_iri`] follows §3.7 steps 1–6: percent-encodings of strictly valid
//! UTF-8 are decoded when the character is allowed where it stands; kept
//! encoded are `%25`, reserved characters, octets that are not valid UTF-8,
//! bidi formatting characters (§4.1) and the characters of §7.3 (controls,
//! specials, non-characters, private use outside the query, tags; and the
//! bidi isolates U+2066–2069). Labels `xn--` of DNS hosts are shown in
//! Unicode where ToUnicode succeeds and the IDN display policy (§8.6, §10;
//! [`crate::DisplayPolicy`], `high` by default) calls them safe. Kept
//! percent-encodings come out with uppercase hex (as in §3.7.1's example).

use std::borrow::Cow;

use crate::chars::{self, HEX_UPPER};
use crate::error::{Error, ErrorKind, Result};
use crate::host::{default_policy, DisplayPolicy};
use crate::iri::{parse, HostKind, IriRef};
use crate::pct::{decode_pct_char, hex_val, Out};

/// Map an IRI reference to a URI reference (§3.6).
///
/// ```
/// use irinorm::to_uri;
/// assert_eq!(to_uri("http://www.example.org/red%09rosé#red").unwrap(),
///            "http://www.example.org/red%09ros%C3%A9#red");
/// assert_eq!(to_uri("http://résumé.example.org/").unwrap(),
///            "http://xn--rsum-bpad.example.org/");
/// assert_eq!(to_uri("foo://résumé/").unwrap(), "foo://r%C3%A9sum%C3%A9/");
/// ```
pub fn to_uri(input: &str) -> Result<Cow<'_, str>> {
    let r = parse(input)?;
    if r.is_ascii() && r.fragment().is_none_or(|f| !f.contains('#')) {
        return Ok(Cow::Borrowed(input));
    }
    let s = input;
    let mut out = Out::new(s);
    let offset = |part: &str| part.as_ptr() as usize - s.as_ptr() as usize;
    let scheme = r.scheme().map(|sc| sc.to_ascii_lowercase());
    if let (Some((hs, he)), Some(kind)) = (r.host_range(), r.host_kind()) {
        if let Some(ui) = r.userinfo() {
            let st = offset(ui);
            out.keep(st);
            out.emit(st + ui.len(), &encode_non_ascii(ui, false));
        }
        out.keep(hs);
        let host = &s[hs..he];
        if kind == HostKind::RegName && !host.is_ascii() {
            if scheme
                .as_deref()
                .and_then(crate::scheme::get)
                .is_some_and(|r| r.dns_host)
            {
                let a = crate::host::domain_to_ascii(host)
                    .map_err(|e| Error::new(hs, ErrorKind::Idna(e.0)))?;
                out.emit(he, &a);
            } else {
                out.emit(he, &encode_non_ascii(host, false));
            }
        }
    }
    let (ps, pe) = r.path_range();
    out.keep(ps);
    out.emit(pe, &encode_non_ascii(r.path(), false));
    if let Some(q) = r.query() {
        let st = offset(q);
        out.keep(st);
        out.emit(st + q.len(), &encode_non_ascii(q, false));
    }
    if let Some(f) = r.fragment() {
        let st = offset(f);
        out.keep(st);
        out.emit(st + f.len(), &encode_non_ascii(f, true));
    }
    Ok(out.finish())
}

/// §3.3 on one component: non-ASCII characters (and `#` in a fragment)
/// percent-encoded; everything else, `%XX` included, kept as written.
fn encode_non_ascii(s: &str, encode_hash: bool) -> Cow<'_, str> {
    if s.is_ascii() && !(encode_hash && s.contains('#')) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() * 2);
    for c in s.chars() {
        if c.is_ascii() && !(encode_hash && c == '#') {
            out.push(c);
        } else {
            chars::push_pct_char(&mut out, c);
        }
    }
    Cow::Owned(out)
}

/// Map a URI reference to an IRI reference (§3.7).
///
/// Round trip: `to_uri(to_iri(u))` succeeds and equals `u` up to syntax
/// normalization (hex case, unreserved characters decoded); a DNS host
/// given percent-encoded (`%CE%B1.com`) is shown in Unicode (`α.com`) and
/// comes back as punycode (`xn--mxa.com`), equal to `u` from the scheme rung.
///
/// Hosts are shown under the default display policy (`high`); see
/// [`to_iri_with`] for another.
///
/// ```
/// use irinorm::to_iri;
/// assert_eq!(to_iri("http://www.example.org/D%C3%BCrst").unwrap(), "http://www.example.org/Dürst");
/// assert_eq!(to_iri("http://www.example.org/D%FCrst").unwrap(), "http://www.example.org/D%FCrst");
/// assert_eq!(to_iri("http://xn--99zt52a.example.org/%e2%80%ae").unwrap(),
///            "http://納豆.example.org/%E2%80%AE");
/// ```
pub fn to_iri(input: &str) -> Result<Cow<'_, str>> {
    Ok(uri_to_iri(&parse(input)?, Some(default_policy())))
}

/// [`to_iri`] with hosts shown under `policy` (3987bis §8.6).
///
/// ```
/// use irinorm::{to_iri_with, DisplayPolicy, IdnDisplay};
/// let u = "http://xn--80ak6aa92e.com/";
/// assert_eq!(to_iri_with(u, &DisplayPolicy::new(IdnDisplay::High)).unwrap(), u);
/// assert_eq!(to_iri_with(u, &DisplayPolicy::new(IdnDisplay::Unicode)).unwrap(), "http://аррӏе.com/");
/// ```
pub fn to_iri_with<'a>(input: &'a str, policy: &DisplayPolicy) -> Result<Cow<'a, str>> {
    Ok(uri_to_iri(&parse(input)?, Some(policy)))
}

/// §3.7 on a parsed reference; with `idn`, `xn--` labels of DNS hosts are
/// shown under that policy (step 6). The ladder passes `None` below the
/// scheme rung, where `xn--` and Unicode spellings of a host are still
/// different keys.
pub(crate) fn uri_to_iri<'a>(r: &IriRef<'a>, idn: Option<&DisplayPolicy>) -> Cow<'a, str> {
    let s = r.as_str();
    if !(s.as_bytes().contains(&b'%') || idn.is_some() && s.contains("xn--")) {
        return Cow::Borrowed(s);
    }
    let mut out = Out::new(s);
    let offset = |part: &str| part.as_ptr() as usize - s.as_ptr() as usize;
    let dns = r
        .scheme()
        .and_then(|sc| crate::scheme::get(&sc.to_ascii_lowercase()))
        .is_some_and(|r| r.dns_host);
    if let (Some((hs, he)), Some(kind)) = (r.host_range(), r.host_kind()) {
        if let Some(ui) = r.userinfo() {
            let st = offset(ui);
            out.keep(st);
            out.emit(st + ui.len(), &decode_component(ui, false));
        }
        out.keep(hs);
        let host = &s[hs..he];
        if kind == HostKind::RegName {
            out.emit(he, &host_to_iri(host, dns, idn));
        }
    }
    let (ps, pe) = r.path_range();
    out.keep(ps);
    out.emit(pe, &decode_component(r.path(), false));
    if let Some(q) = r.query() {
        let st = offset(q);
        out.keep(st);
        out.emit(st + q.len(), &decode_component(q, true));
    }
    if let Some(f) = r.fragment() {
        let st = offset(f);
        out.keep(st);
        out.emit(st + f.len(), &decode_component(f, false));
    }
    out.finish()
}

/// §3.7 on a reg-name. Percent-encoded UTF-8 is shown as characters
/// (steps 2–5; `ireg-name` allows `ucschar`), reserved ASCII stays encoded.
/// For a DNS host (`dns`) the decoded host is shown only when the whole of
/// it decodes (a host that keeps a percent-encoding stays ASCII as a whole:
/// next to a Unicode label, to_uri would put the whole host through IDNA and
/// punycode the encoded label too) and passes ToASCII, so that to_uri of
/// the result succeeds; then, with `idn` (step 6), `xn--` labels are shown
/// in Unicode where ToUnicode succeeds and round-trips and the policy
/// calls them safe. A percent-encoded host that decodes to labels the
/// policy would not show is written with those labels as A-labels.
fn host_to_iri<'a>(host: &'a str, dns: bool, idn: Option<&DisplayPolicy>) -> Cow<'a, str> {
    if !dns {
        return decode_component(host, false);
    }
    let decoded = decode_component(host, false);
    let h = if decoded.contains('%')
        || (!decoded.is_ascii() && crate::host::domain_to_ascii(&decoded).is_err())
    {
        norm_pct_upper_only(host)
    } else {
        decoded
    };
    let Some(policy) = idn.filter(|_| !h.contains('%')) else {
        return h;
    };
    if !h.is_ascii() && policy.profile() != crate::host::IdnDisplay::Unicode {
        if let Ok(a) = crate::host::domain_to_ascii(&h) {
            let shown = crate::host::domain_to_display(&a, policy);
            if shown != crate::host::domain_to_unicode(&a) {
                return Cow::Owned(shown.into_owned());
            }
        }
    }
    match crate::host::domain_to_display(&h, policy) {
        Cow::Borrowed(_) => h,
        Cow::Owned(u) => Cow::Owned(u),
    }
}

/// Uppercase the hex of percent-encodings, change nothing else.
fn norm_pct_upper_only(s: &str) -> Cow<'_, str> {
    if !s.as_bytes().contains(&b'%') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            out.push('%');
            out.push(b[i + 1].to_ascii_uppercase() as char);
            out.push(b[i + 2].to_ascii_uppercase() as char);
            i += 3;
        } else {
            let c = s[i..].chars().next().unwrap_or('\u{FFFD}');
            out.push(c);
            i += c.len_utf8();
        }
    }
    if out == s {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(out)
    }
}

/// §3.7 steps 2–5 on one component.
fn decode_component(s: &str, in_query: bool) -> Cow<'_, str> {
    let b = s.as_bytes();
    let Some(first) = memchr::memchr(b'%', b) else {
        return Cow::Borrowed(s);
    };
    let mut out = String::with_capacity(s.len());
    out.push_str(&s[..first]);
    let mut i = first;
    while i < b.len() {
        if b[i] != b'%' {
            let next = memchr::memchr(b'%', &b[i..]).map_or(b.len(), |p| i + p);
            out.push_str(&s[i..next]);
            i = next;
            continue;
        }
        match decode_pct_char(b, i) {
            // Step 2: unreserved ASCII is decoded; "%", reserved and
            // disallowed ASCII stay encoded.
            Some((c, len)) if c.is_ascii() => {
                if chars::is_unreserved(c as u8) {
                    out.push(c);
                } else {
                    push_triplet_upper(&mut out, b, i);
                }
                i += len;
            }
            // Steps 3–5: strictly valid UTF-8 of a character allowed here.
            Some((c, len)) if chars::may_show_decoded(c, in_query) => {
                out.push(c);
                i += len;
            }
            // Not UTF-8, or a character §4.1 / §7.3 keep encoded: keep the
            // whole sequence encoded (or just this octet if not UTF-8).
            Some((_, len)) => {
                for k in (0..len).step_by(3) {
                    push_triplet_upper(&mut out, b, i + k);
                }
                i += len;
            }
            None => {
                if i + 2 < b.len() && hex_val(b[i + 1]).is_some() && hex_val(b[i + 2]).is_some() {
                    push_triplet_upper(&mut out, b, i);
                    i += 3;
                } else {
                    out.push('%');
                    i += 1;
                }
            }
        }
    }
    if out == s {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(out)
    }
}

fn push_triplet_upper(out: &mut String, b: &[u8], i: usize) {
    let v = hex_val(b[i + 1]).unwrap_or(0) * 16 + hex_val(b[i + 2]).unwrap_or(0);
    out.push('%');
    out.push(HEX_UPPER[(v >> 4) as usize] as char);
    out.push(HEX_UPPER[(v & 15) as usize] as char);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3987_3_1_iri_to_uri() {
        assert_eq!(
            to_uri("http://validator.w3.org/check?uri=http%3A%2F%2Frésumé.example.org").unwrap(),
            "http://validator.w3.org/check?uri=http%3A%2F%2Fr%C3%A9sum%C3%A9.example.org"
        );
        assert_eq!(
            to_uri("http://example.com/𐌀𐌁𐌂").unwrap(),
            "http://example.com/%F0%90%8C%80%F0%90%8C%81%F0%90%8C%82"
        );
        assert_eq!(to_uri("a#b#c").unwrap(), "a#b%23c");
        assert!(matches!(
            to_uri("http://www.example.org/D%C3%BCrst").unwrap(),
            Cow::Borrowed(_)
        ));
        // Idempotent.
        let once = to_uri("http://résumé.example.org/ü?ü#ü#")
            .unwrap()
            .into_owned();
        assert_eq!(to_uri(&once).unwrap(), once);
    }

    #[test]
    fn rfc3987_3_7_uri_to_iri() {
        // §3.7.1 examples.
        assert_eq!(
            to_iri("http://www.example.org/r%E9sum%E9.html").unwrap(),
            "http://www.example.org/r%E9sum%E9.html"
        );
        // Security (§10): %2F and overlong %C0%AF never become '/'.
        assert_eq!(to_iri("http://a/%2f%C0%AF").unwrap(), "http://a/%2F%C0%AF");
        // Private use only decoded in the query; tags never.
        assert_eq!(
            to_iri("http://a/%EE%80%80?%EE%80%80").unwrap(),
            "http://a/%EE%80%80?\u{E000}"
        );
        assert_eq!(
            to_iri("http://a/?%F3%A0%81%81").unwrap(),
            "http://a/?%F3%A0%81%81"
        );
        assert_eq!(to_iri("http://a/%7e%41").unwrap(), "http://a/~A");
        assert_eq!(to_iri("foo://r%C3%A9sum%C3%A9/").unwrap(), "foo://résumé/");
    }

    #[test]
    fn percent_encoded_dns_host_is_shown_in_unicode() {
        // Issue 11: §3.7 maps percent-encoded UTF-8 to characters in the
        // host too.
        assert_eq!(to_iri("http://%C3%BC.com/").unwrap(), "http://ü.com/");
        assert_eq!(
            to_iri("http://%c3%bc.xn--tda.com/").unwrap(),
            "http://ü.ü.com/"
        );
        // Reserved ASCII or non-UTF-8 keep the whole host ASCII.
        assert_eq!(
            to_iri("http://%CE%B1%2F.com/").unwrap(),
            "http://%CE%B1%2F.com/"
        );
        assert_eq!(
            to_iri("http://%ce%B1%FF.com/").unwrap(),
            "http://%CE%B1%FF.com/"
        );
        // A decoded host that fails IDNA stays encoded (to_uri must succeed).
        assert_eq!(
            to_iri("http://%E2%80%8D.com/").unwrap(),
            "http://%E2%80%8D.com/"
        );
        let u = to_uri(&to_iri("http://%C3%BC.com/").unwrap())
            .unwrap()
            .into_owned();
        assert_eq!(u, "http://xn--tda.com/");
    }

    #[test]
    fn hosts_are_shown_under_the_display_policy() {
        use crate::host::IdnDisplay;
        let with = |p, s| to_iri_with(s, &DisplayPolicy::new(p)).unwrap().into_owned();
        // Greek alpha alone looks like `a`: a whole-script confusable under
        // `.com`, shown in Unicode under `.gr` or by the `unicode` profile.
        assert_eq!(
            with(IdnDisplay::High, "http://xn--mxa.com/"),
            "http://xn--mxa.com/"
        );
        assert_eq!(with(IdnDisplay::High, "http://xn--mxa.gr/"), "http://α.gr/");
        assert_eq!(
            with(IdnDisplay::Unicode, "http://xn--mxa.com/"),
            "http://α.com/"
        );
        // Percent-encoded, the same verdict: the label becomes an A-label.
        assert_eq!(
            with(IdnDisplay::High, "http://%CE%B1.com/"),
            "http://xn--mxa.com/"
        );
        assert_eq!(
            with(IdnDisplay::Unicode, "http://%CE%B1.com/"),
            "http://α.com/"
        );
        assert_eq!(
            with(IdnDisplay::Ascii, "http://xn--tda.%C3%BC.com/"),
            "http://xn--tda.xn--tda.com/"
        );
        // Bidi isolates stay percent-encoded (like §4.1's formatting characters).
        assert_eq!(
            to_iri("http://a/%E2%81%A6x").unwrap(),
            "http://a/%E2%81%A6x"
        );
    }

    #[test]
    fn xn_labels_are_a_scheme_rung_matter() {
        // Issue 11: below the scheme rung the IRI form shows percent-encoded
        // UTF-8 of the host as characters but leaves A-labels alone (the
        // `xn--` and Unicode spellings are still different keys there).
        use crate::{Form, Level, Normalizer, Options};
        let key = |level, s: &str| {
            Normalizer::new(Options {
                level,
                form: Form::Iri,
                nfc: false,
            })
            .key(s)
            .unwrap()
            .into_owned()
        };
        assert_eq!(
            key(Level::Syntax, "http://user@α.CoM/"),
            "http://user@α.com/"
        );
        assert_eq!(key(Level::Syntax, "http://%CE%B1.com/"), "http://α.com/");
        assert_eq!(
            key(Level::Syntax, "http://xn--mxa.com/"),
            "http://xn--mxa.com/"
        );
        assert_eq!(key(Level::Scheme, "http://xn--tda.com/"), "http://ü.com/");
    }

    #[test]
    fn labels_that_fail_to_unicode_stay_ascii() {
        // Issue 14: to_uri(to_iri(u)) succeeds.
        let i = to_iri("http://xn--.xn--4le").unwrap();
        assert!(to_uri(&i).is_ok(), "{i}");
        assert_eq!(i, "http://xn--.xn--4le");
    }
}
