//! URI→IRI display of a host (3987bis §3.7 step 6): `xn--` labels shown in
//! Unicode where UTS #46 ToUnicode succeeds and round-trips exactly.

use std::borrow::Cow;

use idna::uts46::{AsciiDenyList, DnsLength, Hyphens};

use super::idna::{REG_NAME_DENY, UTS46};
use super::memo::domain_to_ascii;

/// URI→IRI display of a host (3987bis §3.7 step 6).
///
/// Each label that starts with `xn--` is shown in Unicode when UTS #46
/// ToUnicode of it succeeds without error (same flags as
/// [`domain_to_ascii`]) **and** ToASCII of the result gives back exactly the
/// same label (round trip, so converting the IRI back to a URI restores the
/// original bytes; an upper-case `XN--…` label therefore stays as it is).
/// Other labels are left unchanged. As a last guard, the whole converted
/// host must still pass ToASCII (the bidi rule spans labels); otherwise
/// nothing is converted. Returns `Cow::Borrowed` when nothing changes.
pub fn domain_to_unicode(host: &str) -> Cow<'_, str> {
    let has_a_label = host.split('.').any(|l| l.starts_with("xn--"));
    if !has_a_label {
        return Cow::Borrowed(host);
    }
    let mut out = String::with_capacity(host.len() * 2);
    // Host with unconvertible A-labels left out, for the whole-domain check.
    let mut check = String::with_capacity(host.len() * 2);
    let mut changed = false;
    for (k, label) in host.split('.').enumerate() {
        if k > 0 {
            out.push('.');
        }
        match label_to_unicode(label) {
            Some(u) => {
                changed = true;
                out.push_str(&u);
                push_label(&mut check, &u);
            }
            None => {
                out.push_str(label);
                if !label.starts_with("xn--") {
                    push_label(&mut check, label);
                }
            }
        }
    }
    if !changed {
        return Cow::Borrowed(host);
    }
    let whole_ok = UTS46
        .to_ascii(
            check.as_bytes(),
            AsciiDenyList::EMPTY,
            Hyphens::Allow,
            DnsLength::Ignore,
        )
        .is_ok();
    // And the host as shown must convert back to exactly `host`: an
    // `xn--` label that stays ASCII next to a converted one would make the
    // whole host fail ToASCII (issue 14: `xn--.xn--4le`), so
    // to_uri(to_iri(u)) would fail.
    if whole_ok
        && domain_to_ascii(&out)
            .ok()
            .is_some_and(|a| domain_to_ascii(host).is_ok_and(|h| h == a))
    {
        Cow::Owned(out)
    } else {
        Cow::Borrowed(host)
    }
}

fn push_label(check: &mut String, label: &str) {
    if !check.is_empty() {
        check.push('.');
    }
    check.push_str(label);
}

/// One `xn--` label to Unicode, if valid and round-tripping exactly.
fn label_to_unicode(label: &str) -> Option<String> {
    if !label.starts_with("xn--") {
        return None;
    }
    let (u, res) = UTS46.to_unicode(label.as_bytes(), REG_NAME_DENY, Hyphens::Allow);
    if res.is_err() || u == label {
        return None;
    }
    let back = UTS46
        .to_ascii(
            u.as_bytes(),
            REG_NAME_DENY,
            Hyphens::Allow,
            DnsLength::Ignore,
        )
        .ok()?;
    (back == label).then(|| u.into_owned())
}
