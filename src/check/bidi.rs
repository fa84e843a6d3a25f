//! The §4.2 restrictions on one component (3987bis §4.2, with UAX #9 bidi
//! classes) and the §4.1 / §7.3 characters it carries percent-encoded.

use unicode_bidi::{bidi_class, BidiClass};

use super::finding::{pct_class, Code, Finding, Severity};
use crate::error::Component as Part;
use crate::pct::decode_pct_char;

/// Check one component: `emit(offset in text, finding)` with the finding's
/// own offset left 0.
pub(super) fn component(text: &str, part: Part, emit: &mut dyn FnMut(usize, Finding)) {
    if text.is_ascii() && !text.contains('%') && !(part == Part::Host && is_a_label(text)) {
        return;
    }
    // The characters an IRI shows, each with its offset in `text`.
    let mut shown: Vec<(usize, char)> = Vec::with_capacity(text.len());
    if part == Part::Host && is_a_label(text) {
        let u = crate::host::domain_to_unicode(text);
        shown.extend(u.chars().map(|c| (0, c)));
    } else {
        let b = text.as_bytes();
        let mut i = 0;
        while i < b.len() {
            if b[i] == b'%' {
                if let Some((c, len)) = decode_pct_char(b, i).filter(|(c, _)| !c.is_ascii()) {
                    if let Some(code) = pct_class(c) {
                        if !(code == Code::CharPrivateUse && part == Part::Query) {
                            emit(
                                i,
                                finding(
                                    code,
                                    Severity::Warning,
                                    part,
                                    format!(
                                "U+{:04X} percent-encoded: the IRI keeps it encoded (§4.1, §7.3)",
                                c as u32
                            ),
                                ),
                            );
                        }
                    }
                    shown.push((i, c));
                    i += len;
                    continue;
                }
            }
            let c = text[i..].chars().next().unwrap_or('\u{FFFD}');
            shown.push((i, c));
            i += c.len_utf8();
        }
    }
    let rtl = |c: char| matches!(bidi_class(c), BidiClass::R | BidiClass::AL);
    if !shown.iter().any(|&(_, c)| rtl(c)) {
        return;
    }
    let sev = match part {
        Part::Query | Part::Fragment => Severity::Warning,
        _ => Severity::Error,
    };
    // Rule 1: no left-to-right character in a component with right-to-left
    // ones.
    if let Some(&(at, c)) = shown.iter().find(|&&(_, c)| bidi_class(c) == BidiClass::L) {
        emit(
            at,
            finding(
                Code::BidiMixedDirection,
                sev,
                part,
                format!(
                    "U+{:04X} is left-to-right in a right-to-left {} component (§4.2 rule 1)",
                    c as u32,
                    part.name()
                ),
            ),
        );
    }
    // Rule 2: start and end with a right-to-left character (trailing
    // nonspacing marks belong to the character before them).
    let first = shown[0];
    let last = shown
        .iter()
        .rev()
        .find(|&&(_, c)| bidi_class(c) != BidiClass::NSM)
        .copied()
        .unwrap_or(first);
    for (which, (at, c)) in [("starts", first), ("ends", last)] {
        if !rtl(c) {
            emit(at, finding(Code::BidiRtlEdge, sev, part, format!(
                "right-to-left {} component {which} with U+{:04X}, not a right-to-left character (§4.2 rule 2)",
                part.name(),
                c as u32
            )));
        }
    }
}

fn is_a_label(label: &str) -> bool {
    label.len() > 4 && label.as_bytes()[..4].eq_ignore_ascii_case(b"xn--")
}

fn finding(code: Code, severity: Severity, part: Part, message: String) -> Finding {
    Finding {
        code,
        severity,
        part,
        offset: 0,
        message,
    }
}
