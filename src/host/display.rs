//! URI→IRI display of a host (3987bis §3.7 step 6, §8.6): `xn--` labels
//! shown in Unicode where UTS #46 ToUnicode succeeds and round-trips exactly
//! and the display policy ([`super::spoof`]) calls the label safe.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;

use idna::uts46::{AsciiDenyList, DnsLength, Hyphens};

use super::idna::{REG_NAME_DENY, UTS46};
use super::memo::domain_to_ascii;
use super::spoof::{DisplayPolicy, IdnDisplay, Reason};

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
    convert(host, |_, _| true)
}

/// [`domain_to_unicode`] under a display policy (3987bis §8.6, §10): a
/// label is shown in Unicode only when the policy calls it safe
/// ([`DisplayPolicy::label_verdict`]), and the whole host stays ASCII when
/// it imitates a top domain ([`DisplayPolicy::host_verdict`]). The
/// `unicode` profile is exactly [`domain_to_unicode`]; `ascii` never
/// decodes.
///
/// ```
/// use irinorm::{domain_to_display, DisplayPolicy, IdnDisplay};
/// let high = DisplayPolicy::new(IdnDisplay::High);
/// assert_eq!(domain_to_display("xn--mnchen-3ya.de", &high), "münchen.de");
/// // Cyrillic "аррӏе": every letter looks Latin, outside a Cyrillic TLD.
/// assert_eq!(domain_to_display("xn--80ak6aa92e.com", &high), "xn--80ak6aa92e.com");
/// ```
pub fn domain_to_display<'a>(host: &'a str, policy: &DisplayPolicy) -> Cow<'a, str> {
    match policy.profile() {
        IdnDisplay::Unicode => return domain_to_unicode(host),
        IdnDisplay::Ascii => return Cow::Borrowed(host),
        _ => {}
    }
    if !host.contains("xn--") {
        return Cow::Borrowed(host);
    }
    // Crawl data repeats its hosts, and a verdict costs skeletons of every
    // suffix: the shown form of the last hosts is remembered per thread.
    thread_local! {
        static MEMO: RefCell<HashMap<(u64, String), Option<String>>> = RefCell::new(HashMap::new());
    }
    let key = (policy.id(), host.to_owned());
    let shown = match MEMO.with(|m| m.borrow().get(&key).cloned()) {
        Some(shown) => shown,
        None => {
            let tld = tld_of(host);
            let tld = tld.as_str();
            let shown = match convert(host, |_, u| policy.label_verdict(u, tld).is_ok()) {
                Cow::Owned(u) if policy.host_verdict(&u).is_ok() => Some(u),
                _ => None,
            };
            MEMO.with(|m| {
                let mut m = m.borrow_mut();
                if m.len() >= MEMO_ENTRIES {
                    m.clear();
                }
                m.insert(key, shown.clone());
            });
            shown
        }
    };
    match shown {
        Some(u) => Cow::Owned(u),
        None => Cow::Borrowed(host),
    }
}

/// Hosts remembered per thread by [`domain_to_display`].
const MEMO_ENTRIES: usize = 4096;

/// The policy's verdict on each `xn--` label of `host` that decodes and
/// round-trips: (byte offset of the label in `host`, the label in Unicode,
/// why it is not shown). The host-wide look-alike check is reported on the
/// first decoded label. Labels that are shown give no entry.
pub fn display_verdicts(host: &str, policy: &DisplayPolicy) -> Vec<(usize, String, Reason)> {
    let mut out = Vec::new();
    if !host.contains("xn--") {
        return out;
    }
    let tld = tld_of(host);
    let tld = tld.as_str();
    let mut first = None;
    let mut pos = 0;
    for label in host.split('.') {
        if let Some(u) = label_to_unicode(label) {
            first.get_or_insert((pos, u.clone()));
            if let Err(r) = policy.label_verdict(&u, tld) {
                out.push((pos, u, r));
            }
        }
        pos += label.len() + 1;
    }
    if let Some((pos, u)) = first {
        if let Err(r) = policy.host_verdict(&domain_to_unicode(host)) {
            out.push((pos, u, r));
        }
    }
    out
}

/// The top-level label in lowercase (`xn--…` for an IDN TLD).
fn tld_of(host: &str) -> String {
    let tld = host.trim_end_matches('.').rsplit('.').next().unwrap_or("");
    tld.to_ascii_lowercase()
}

/// Convert the `xn--` labels that `show(index, unicode)` accepts.
fn convert(host: &str, mut show: impl FnMut(usize, &str) -> bool) -> Cow<'_, str> {
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
        match label_to_unicode(label).filter(|u| show(k, u)) {
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
