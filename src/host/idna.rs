//! UTS #46 ToASCII for the reg-names of DNS schemes (3987bis §3.4, draft
//! -13 §3.4.2, §5.3.3): the flags chosen, percent-decoding first, the
//! reg-name character check after (§10: nothing may decode into a
//! delimiter), and a short reason when it fails.
//!
//! The IDNA work itself (UTS #46 mapping, normalization, punycode, bidi and
//! ContextJ rules) is done by the `idna` crate.

use crate::pct::hex_val;
use std::borrow::Cow;

use idna::uts46::{AsciiDenyList, DnsLength, Hyphens, Uts46};

use super::errors::{describe_byte, length_error, IdnaError};

/// ASCII characters that cannot stand in an RFC 3986 `reg-name` (anything not
/// `unreserved` / `sub-delims`; `%` too, because a result is never
/// percent-encoded) plus space, C0 controls and DEL (`deny_glyphless`).
/// This is *not* STD3 (`_`, `!`, `$`, … stay allowed): UseSTD3ASCIIRules=false
/// as 3987bis §3.4 asks, restricted only to what the syntax can carry.
pub(super) const REG_NAME_DENY: AsciiDenyList = AsciiDenyList::new(true, "\"#%/:<>?@[\\]^`{|}");

pub(super) const UTS46: Uts46 = Uts46::new();

/// Bytes allowed in a lowercase ASCII reg-name: lowercase `unreserved` and
/// `sub-delims` (no `%`, no upper case).
pub(super) const LOWER_REG_NAME: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = b.is_ascii_lowercase()
            || b.is_ascii_digit()
            || matches!(
                b,
                b'-' | b'.'
                    | b'_'
                    | b'~'
                    | b'!'
                    | b'$'
                    | b'&'
                    | b'\''
                    | b'('
                    | b')'
                    | b'*'
                    | b'+'
                    | b','
                    | b';'
                    | b'='
            );
        c += 1;
    }
    t
};

/// True when `host` is already lowercase ASCII reg-name text with no `%` and
/// no label starting with `xn--`: then ToASCII is the identity.
#[inline]
pub(crate) fn is_plain_lower_ascii(host: &str) -> bool {
    let b = host.as_bytes();
    let mut label_start = true;
    for (i, &c) in b.iter().enumerate() {
        if !LOWER_REG_NAME[c as usize] {
            return false;
        }
        if label_start && c == b'x' && b[i..].starts_with(b"xn--") {
            return false;
        }
        label_start = c == b'.';
    }
    true
}

/// Decodes every `%XX` of `host` (any hex case). Fails on a malformed `%`.
fn percent_decode(host: &str) -> Result<Vec<u8>, IdnaError> {
    let b = host.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hi = b.get(i + 1).copied().and_then(hex_val);
            let lo = b.get(i + 2).copied().and_then(hex_val);
            match (hi, lo) {
                (Some(h), Some(l)) => out.push(h << 4 | l),
                _ => return Err(IdnaError("invalid percent-encoding".to_owned())),
            }
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Ok(out)
}

#[cold]
#[inline(never)]
pub(super) fn domain_to_ascii_slow(host: &str) -> Result<Cow<'_, str>, IdnaError> {
    if host.as_bytes().contains(&b'%') {
        let decoded = percent_decode(host)?;
        let decoded = String::from_utf8(decoded).map_err(|_| {
            IdnaError("percent-encoded octets are not UTF-8 (punycode impossible)".to_owned())
        })?;
        let out = to_ascii_checked(&decoded)?;
        Ok(Cow::Owned(out.into_owned()))
    } else {
        to_ascii_checked(host)
    }
}

/// UTS #46 ToASCII with our flags, then the reg-name character check.
pub(super) fn to_ascii_checked(s: &str) -> Result<Cow<'_, str>, IdnaError> {
    match UTS46.to_ascii(
        s.as_bytes(),
        REG_NAME_DENY,
        Hyphens::Allow,
        DnsLength::Ignore,
    ) {
        Ok(out) => {
            if let Some(&bad) = out
                .as_bytes()
                .iter()
                .find(|&&c| !LOWER_REG_NAME[c as usize])
            {
                return Err(IdnaError(format!(
                    "{} not allowed in a host name",
                    describe_byte(bad)
                )));
            }
            Ok(out)
        }
        Err(_) => Err(explain_failure(s)),
    }
}

/// Cold path: the `idna` crate only says "error"; find a short reason.
#[cold]
fn explain_failure(s: &str) -> IdnaError {
    let ok = |t: &str| {
        UTS46
            .to_ascii(
                t.as_bytes(),
                REG_NAME_DENY,
                Hyphens::Allow,
                DnsLength::Ignore,
            )
            .is_ok()
    };
    let short = |t: &str| -> String {
        let mut x: String = t.chars().take(64).collect();
        if x.len() < t.len() {
            x.push('…');
        }
        x
    };
    for label in s.split(['.', '\u{3002}', '\u{FF0E}', '\u{FF61}']) {
        if ok(label) {
            continue;
        }
        let is_a_label = label
            .get(..4)
            .is_some_and(|p| p.eq_ignore_ascii_case("xn--"));
        if is_a_label {
            return IdnaError(format!("invalid A-label '{}'", short(label)));
        }
        let mut buf = [0u8; 4];
        for ch in label.chars() {
            if !ok(ch.encode_utf8(&mut buf)) && ch != '\u{200C}' && ch != '\u{200D}' {
                // A combining mark alone fails too (V5), as does a joiner;
                // report only characters that are disallowed everywhere.
                if !ok(&format!("a{ch}")) {
                    return IdnaError(if ch.is_ascii() {
                        format!("{} not allowed in a host name", describe_byte(ch as u8))
                    } else {
                        format!("disallowed character U+{:04X}", ch as u32)
                    });
                }
            }
        }
        if label.chars().count() > 63 {
            // Every character is valid on its own: the label fails as a
            // whole because it is too long to encode (the punycode encoder
            // refuses very long input); at a DNS scheme it would be rejected
            // for its length anyway.
            return length_error(label);
        }
        return IdnaError(format!(
            "label '{}' breaks a UTS #46 validity rule (leading combining mark, joiner context or bidi)",
            short(label)
        ));
    }
    IdnaError("domain breaks the bidi rule (RFC 5893)".to_owned())
}
