//! `check`: findings that make an IRI hard to trust when shown to a person —
//! bidi structure per component (3987bis §4.1, §4.2), the characters §7.3
//! says not to use, and the IDN display verdict of the host (§8.6, §10).
//!
//! Each [`Finding`] has a stable kebab-case [`Code`] grouped by prefix, so
//! users can filter them: `bidi-…` for §4 (host labels included),
//! `char-…` for §7.3 (and the bidi isolates U+2066–2069 that postdate the
//! draft), `idn-…` for the display verdict ([`crate::IdnReason::code`]).
//!
//! The components are those of §4.2: userinfo, each host label, each path
//! segment, each query name and value (split at `&`, `;` and `=`), the
//! fragment. Percent-encoded UTF-8 is read as the characters an IRI would
//! show (§3.7), so a URI is judged by the IRI it converts to; an `xn--`
//! label is read in Unicode. Characters §7.3 forbids are reported where
//! they stand, raw (an error) or percent-encoded (a warning: the URI is
//! valid, but the IRI keeps them encoded).
//!
//! Severity of the §4.2 findings: an error in userinfo, host and path (§4.4
//! calls examples 8 and 9 "not allowed"), a warning in query and fragment
//! (§4.2: "it may be very difficult to enforce the restrictions" there).

mod bidi;
mod finding;
#[cfg(test)]
mod tests;

pub use crate::error::Component as Part;
use finding::pct_class;
pub use finding::{Code, Finding, Severity};

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;

use crate::chars;
use crate::error::Result;
use crate::host::{display_verdicts, DisplayPolicy};
use crate::iri::{parse, HostKind};

/// Checks references under a display policy (`high` by default).
#[derive(Debug, Clone, Default)]
pub struct Checker {
    policy: DisplayPolicy,
}

impl Checker {
    pub fn new(policy: DisplayPolicy) -> Self {
        Checker { policy }
    }

    /// The findings of one reference, in input order. An `Err` only when
    /// the reference does not parse even with its §7.3 characters
    /// percent-encoded.
    ///
    /// ```
    /// use irinorm::check::{Checker, Severity};
    /// let c = Checker::default();
    /// assert!(c.check("http://example.com/a").unwrap().is_empty());
    /// let f = c.check("http://a.example/%E2%80%AEtxt.exe").unwrap();
    /// assert_eq!(f[0].code.as_str(), "bidi-formatting");
    /// assert_eq!(f[0].severity, Severity::Warning);
    /// ```
    pub fn check(&self, input: &str) -> Result<Vec<Finding>> {
        let mut out = Vec::new();
        // Fast path: a reference with no non-ASCII character, no
        // percent-encoded octet above 0x7F, no `xn--` label and no ASCII
        // character of §7.3 has nothing to report.
        // A strict parse rejects every ASCII character of §7.3, so a
        // reference that parses has none of them.
        if input.is_ascii() && !needs_look(input.as_bytes()) && parse(input).is_ok() {
            return Ok(out);
        }
        // Raw §7.3 characters: reported, then percent-encoded so the
        // structure can be parsed.
        let mut raw = Vec::new();
        for (i, c) in input.char_indices() {
            if let Some((code, sev)) = raw_class(c) {
                raw.push((i, c, code, sev));
            }
        }
        let encoded: Cow<'_, str> = if raw.is_empty() {
            Cow::Borrowed(input)
        } else {
            let mut s = String::with_capacity(input.len() + 8 * raw.len());
            for c in input.chars() {
                if raw_class(c).is_some() {
                    chars::push_pct_char(&mut s, c);
                } else {
                    s.push(c);
                }
            }
            Cow::Owned(s)
        };
        let r = parse(&encoded)?;
        let base = encoded.as_ptr() as usize;
        let off = |p: &str| p.as_ptr() as usize - base;
        // Map an offset in `encoded` back to the input.
        let back = |e: usize| -> usize {
            let mut grown = 0;
            for &(i, c, ..) in &raw {
                let (ie, n) = (i + grown, c.len_utf8());
                if ie >= e {
                    break;
                }
                if e < ie + 3 * n {
                    return i;
                }
                grown += 2 * n;
            }
            e - grown
        };
        // Where each part starts in `encoded`, in order.
        let mut starts = vec![(0, Part::Scheme)];
        if let Some(u) = r.userinfo() {
            starts.push((off(u), Part::Userinfo));
        }
        if let Some((hs, he)) = r.host_range() {
            starts.push((hs, Part::Host));
            starts.push((he, Part::Port));
        }
        let (ps, _) = r.path_range();
        starts.push((ps, Part::Path));
        if let Some(q) = r.query() {
            starts.push((off(q), Part::Query));
        }
        if let Some(f) = r.fragment() {
            starts.push((off(f), Part::Fragment));
        }
        let part_at = |e: usize| -> Part {
            starts
                .iter()
                .filter(|(st, _)| *st <= e)
                .max_by_key(|(st, _)| *st)
                .map_or(Part::Scheme, |&(_, p)| p)
        };
        for &(i, c, code, sev) in &raw {
            let e = i + grown_before(&raw, i);
            let part = part_at(e);
            let (code, sev) = match (code, part) {
                (Code::CharPrivateUse, Part::Query) => continue,
                x => (x.0, sev),
            };
            out.push(Finding {
                code,
                severity: sev,
                part,
                offset: i,
                message: format!("U+{:04X} {}", c as u32, describe(code)),
            });
        }
        // Components (§4.2) and percent-encoded §7.3 characters.
        let mut comps: Vec<(Part, &str)> = Vec::new();
        if let Some(u) = r.userinfo() {
            comps.push((Part::Userinfo, u));
        }
        let dns = r
            .scheme()
            .and_then(|sc| crate::scheme::get(&sc.to_ascii_lowercase()))
            .is_some_and(|s| s.dns_host);
        if let (Some((hs, he)), Some(HostKind::RegName)) = (r.host_range(), r.host_kind()) {
            for label in encoded[hs..he].split('.') {
                comps.push((Part::Host, label));
            }
            if dns {
                self.host_findings(&encoded[hs..he], &mut |rel, f| {
                    out.push(Finding {
                        offset: back(hs + rel),
                        ..f
                    })
                });
            }
        }
        // Path segments, and the extensions of a resource name (§4.2: they
        // "can be treated as separate components"; §4.4 example 4).
        for seg in r.path().split(['/', '.']) {
            comps.push((Part::Path, seg));
        }
        if let Some(q) = r.query() {
            for item in q.split(['&', ';', '=']) {
                comps.push((Part::Query, item));
            }
        }
        if let Some(f) = r.fragment() {
            comps.push((Part::Fragment, f));
        }
        for (part, text) in comps {
            let start = off(text);
            bidi::component(text, part, &mut |rel, f: Finding| {
                out.push(Finding {
                    offset: back(start + rel),
                    ..f
                })
            });
        }
        out.sort_by_key(|f| f.offset);
        // A raw character was encoded for the parse: its component scan
        // saw it percent-encoded; keep the raw finding only.
        out.dedup_by(|b, a| a.offset == b.offset && a.code == b.code);
        Ok(out)
    }
}

impl Checker {
    /// The display verdict on each label of a DNS host (raw Unicode,
    /// percent-encoded or A-labels): `emit(offset of the label in host, …)`.
    /// A host that fails ToASCII gets none (it is not shown as a name).
    fn host_findings(&self, host: &str, emit: &mut dyn FnMut(usize, Finding)) {
        if host.is_ascii()
            && !host.contains("xn--")
            && !host.contains("XN--")
            && !host.contains('%')
        {
            return;
        }
        let Ok(ascii) = crate::host::domain_to_ascii(host) else {
            return;
        };
        let starts: Vec<usize> = std::iter::once(0)
            .chain(host.match_indices('.').map(|(i, _)| i + 1))
            .collect();
        for (index, label, reason) in self.verdicts(&ascii) {
            emit(
                starts.get(index).copied().unwrap_or(0),
                Finding {
                    code: Code::Idn(reason.code()),
                    severity: Severity::Warning,
                    part: Part::Host,
                    offset: 0,
                    message: format!("{label} is shown as an A-label: {reason}"),
                },
            );
        }
    }
}

impl Checker {
    /// [`display_verdicts`] of an A-label host with the label's index,
    /// memoized per thread and policy: crawl data repeats its hosts, and
    /// a verdict costs skeletons of every suffix.
    fn verdicts(&self, ascii: &str) -> Vec<(usize, String, crate::host::Reason)> {
        type Memo = HashMap<(u64, String), Vec<(usize, String, crate::host::Reason)>>;
        thread_local! {
            static MEMO: RefCell<Memo> = RefCell::new(HashMap::new());
        }
        let key = (self.policy.id(), ascii.to_owned());
        if let Some(v) = MEMO.with(|m| m.borrow().get(&key).cloned()) {
            return v;
        }
        let v: Vec<_> = display_verdicts(ascii, &self.policy)
            .into_iter()
            .map(|(pos, label, r)| (ascii[..pos].matches('.').count(), label, r))
            .collect();
        MEMO.with(|m| {
            let mut m = m.borrow_mut();
            if m.len() >= MEMO_ENTRIES {
                m.clear();
            }
            m.insert(key, v.clone());
        });
        v
    }
}

/// Hosts remembered per thread by [`Checker::verdicts`].
const MEMO_ENTRIES: usize = 4096;

/// Bytes added by percent-encoding the raw characters before offset `i`.
fn grown_before(raw: &[(usize, char, Code, Severity)], i: usize) -> usize {
    raw.iter()
        .take_while(|r| r.0 < i)
        .map(|r| 2 * r.1.len_utf8())
        .sum()
}

/// Whether an ASCII reference may have something to report beyond the
/// characters its parse rejects: a percent-encoded octet ≥ 0x80 or an
/// `xn--` label.
fn needs_look(b: &[u8]) -> bool {
    let high_pct = memchr::memchr_iter(b'%', b).any(|i| {
        b.get(i + 1)
            .is_some_and(|h| matches!(h, b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F'))
    });
    high_pct
        || memchr::memmem::find_iter(b, b"n--").any(|i| i > 0 && b[i - 1] | 0x20 == b'x')
        || memchr::memmem::find_iter(b, b"N--").any(|i| i > 0 && b[i - 1] | 0x20 == b'x')
}

/// The §7.3 class (and §4.1) of a raw character, with its severity.
fn raw_class(c: char) -> Option<(Code, Severity)> {
    let code = match c {
        ' ' => Code::CharSpace,
        '<' | '>' | '"' => Code::CharDelimiter,
        '\\' | '^' | '`' | '{' | '|' | '}' => Code::CharUnwise,
        _ => pct_class(c)?,
    };
    Some((code, Severity::Error))
}

fn describe(code: Code) -> &'static str {
    match code {
        Code::BidiFormatting => "is a bidi formatting character (3987bis §4.1: MUST NOT)",
        Code::CharBidiIsolate => "is a bidi isolate (like the formatting characters of §4.1)",
        Code::CharControl => "is a control character (§7.3)",
        Code::CharSpace => "is a space (§7.3)",
        Code::CharDelimiter => "is a delimiter of URIs in text (§7.3)",
        Code::CharUnwise => "is an unwise character (§7.3)",
        Code::CharSpecial => "is a special (§7.3)",
        Code::CharPrivateUse => "is private use, allowed only in the query (§7.3)",
        Code::CharTag => "is a tag character (§7.3)",
        Code::CharNoncharacter => "is a non-character (§7.3)",
        _ => "",
    }
}

/// [`Checker::check`] under the default policy.
pub fn check(input: &str) -> Result<Vec<Finding>> {
    Checker::default().check(input)
}
