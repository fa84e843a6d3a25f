//! The findings of `check` (3987bis §4, §7.3, §8.6): their codes,
//! severities and parts, and the §4.1 / §7.3 class of a character.

use crate::chars;
use crate::error::Component as Part;

/// How serious a finding is. Ordered: `Info < Warning < Error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn name(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl std::str::FromStr for Severity {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        [Severity::Info, Severity::Warning, Severity::Error]
            .into_iter()
            .find(|v| v.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| format!("unknown severity {s:?} (info|warning|error)"))
    }
}

/// The stable codes of the findings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Code {
    /// §4.2 rule 1: right-to-left and left-to-right letters in one component.
    BidiMixedDirection,
    /// §4.2 rule 2: a right-to-left component that does not start and end
    /// with a right-to-left character.
    BidiRtlEdge,
    /// §4.1: LRM, RLM, LRE, RLE, PDF, LRO, RLO.
    BidiFormatting,
    /// Bidi isolates LRI, RLI, FSI, PDI (U+2066–2069).
    CharBidiIsolate,
    /// §7.3: C0 controls, DEL, C1 controls.
    CharControl,
    /// §7.3: space.
    CharSpace,
    /// §7.3: the delimiters `<`, `>`, `"`.
    CharDelimiter,
    /// §7.3: the unwise characters `\`, `^`, `` ` ``, `{`, `|`, `}`.
    CharUnwise,
    /// §7.3: specials U+FFF0–FFFD.
    CharSpecial,
    /// §7.3: private use outside the query.
    CharPrivateUse,
    /// §7.3: tags U+E0000–E0FFF.
    CharTag,
    /// §7.3: non-characters.
    CharNoncharacter,
    /// The host label is not shown in Unicode; the message gives the
    /// reason, the code is the reason's ([`crate::IdnReason::code`]).
    Idn(&'static str),
}

impl Code {
    pub fn as_str(self) -> &'static str {
        match self {
            Code::BidiMixedDirection => "bidi-mixed-direction",
            Code::BidiRtlEdge => "bidi-rtl-edge",
            Code::BidiFormatting => "bidi-formatting",
            Code::CharBidiIsolate => "char-bidi-isolate",
            Code::CharControl => "char-control",
            Code::CharSpace => "char-space",
            Code::CharDelimiter => "char-delimiter",
            Code::CharUnwise => "char-unwise",
            Code::CharSpecial => "char-special",
            Code::CharPrivateUse => "char-private-use",
            Code::CharTag => "char-tag",
            Code::CharNoncharacter => "char-noncharacter",
            Code::Idn(c) => c,
        }
    }
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub code: Code,
    pub severity: Severity,
    /// The component the finding is in.
    pub part: Part,
    /// Byte offset in the input of the component or character concerned.
    pub offset: usize,
    pub message: String,
}

/// The class of a non-ASCII (or control) character §4.1 / §7.3 keep out
/// of IRIs (and out of the IRI form: they stay percent-encoded).
pub(crate) fn pct_class(c: char) -> Option<Code> {
    Some(match c {
        '\0'..='\u{1F}' | '\u{7F}'..='\u{9F}' => Code::CharControl,
        c if chars::is_bidi_format(c) => Code::BidiFormatting,
        c if chars::is_bidi_isolate(c) => Code::CharBidiIsolate,
        c if chars::is_special(c) => Code::CharSpecial,
        c if chars::is_tag(c) => Code::CharTag,
        c if chars::is_noncharacter(c) => Code::CharNoncharacter,
        c if chars::is_iprivate(c) => Code::CharPrivateUse,
        _ => return None,
    })
}
