//! The IDN display policy: whether a host label may be shown in Unicode to a
//! person (3987bis §8.6 display, §10 spoofing by look-alike characters),
//! after UTS #39 (Unicode Security Mechanisms: restriction levels §5.2,
//! mixed numbers §5.3, confusable skeletons §4) and the checks the browsers
//! share (Chromium's IDN spoof checker, Firefox's restriction profiles).
//!
//! A label the policy does not call safe stays an A-label (`xn--…`). The
//! profiles, strictest first:
//!
//! | profile | a label is shown in Unicode when |
//! |---|---|
//! | [`IdnDisplay::Ascii`] | never |
//! | [`IdnDisplay::High`] | UTS #39 Highly Restrictive, and none of the browser checks below fires, and the host is not a skeleton match of a top domain |
//! | [`IdnDisplay::Moderate`] | UTS #39 Moderately Restrictive, identifier characters only, one numbering system, no invisible or repeated marks |
//! | [`IdnDisplay::Unicode`] | ToUnicode succeeds and round-trips (no policy) |
//!
//! The checks of `high` beyond the restriction level ([`Reason`]): whole-script
//! confusables outside the TLDs of their script (`аррӏе.com` in Cyrillic),
//! labels of digits and digit look-alikes, combining marks after letters of
//! scripts other than Latin, Greek, Cyrillic, a dot above after `i`/`j`/`l`
//! or any mark on dotless `ı`/`ȷ`, non-ASCII Latin mixed with another
//! script, letters tied to one ccTLD (`þ`, `ð` outside `.is`, `ə` outside
//! `.az`), a middle dot not between two `l`, Japanese marks that look like
//! punctuation next to other scripts, and a confusable skeleton of a top
//! domain ([`TopDomains`]).
//!
//! Data: UTS #39 and script extensions from the `unicode-security` (Unicode
//! 16) and `unicode-script` crates; the numbering systems below from
//! UnicodeData.txt (Unicode 15.0, `Nd` with value 0).

mod skeleton;
#[cfg(test)]
mod tests;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;
use unicode_script::{Script, UnicodeScript};
use unicode_security::{GeneralSecurityProfile, RestrictionLevel, RestrictionLevelDetection};

pub use skeleton::TopDomains;

/// How hosts are shown to people: which `xn--` labels become Unicode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum IdnDisplay {
    /// UTS #39 Highly Restrictive plus the browsers' checks and the
    /// top-domain look-alike check (the default).
    #[default]
    High,
    /// UTS #39 Moderately Restrictive plus the character checks.
    Moderate,
    /// Never Unicode: every A-label stays as it is.
    Ascii,
    /// Every label that decodes and round-trips (no spoof checks).
    Unicode,
}

impl IdnDisplay {
    pub const ALL: [IdnDisplay; 4] = [
        IdnDisplay::High,
        IdnDisplay::Moderate,
        IdnDisplay::Ascii,
        IdnDisplay::Unicode,
    ];

    pub fn name(self) -> &'static str {
        match self {
            IdnDisplay::High => "high",
            IdnDisplay::Moderate => "moderate",
            IdnDisplay::Ascii => "ascii",
            IdnDisplay::Unicode => "unicode",
        }
    }
}

impl std::str::FromStr for IdnDisplay {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        IdnDisplay::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| {
                format!("unknown IDN display profile {s:?} (high|moderate|ascii|unicode)")
            })
    }
}

/// Why a label (or a host) is not shown in Unicode. Each has a stable
/// kebab-case [`Reason::code`] (`idn-…`), used by `check`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reason {
    /// The profile never shows Unicode (`ascii`).
    AsciiProfile,
    /// A character UTS #39 does not allow in identifiers (Identifier_Status
    /// Restricted), or an invisible joiner (ZWJ, ZWNJ).
    DisallowedChar(char),
    /// Scripts mixed beyond the profile's restriction level.
    MixedScript,
    /// Digits of more than one numbering system (UTS #39 §5.3).
    MixedNumbers,
    /// The same combining mark twice in a row, or a combining mark after a
    /// letter of a script other than Latin, Greek or Cyrillic.
    CombiningMark,
    /// A dot above after `i`, `j`, `l`, or any mark on dotless `ı` / `ȷ`.
    DotlessWithMark,
    /// Every letter of the label looks like a Latin letter and the script
    /// is not at home in the TLD.
    WholeScriptConfusable(Script),
    /// Only digits and characters that look like digits.
    DigitLookalike,
    /// Non-ASCII Latin letters mixed with another script.
    NonAsciiLatinMixed,
    /// A letter tied to one country-code TLD, used outside it.
    TldSpecificChar(char),
    /// A sequence the browsers block (Japanese marks that look like
    /// punctuation next to other scripts, a stray middle dot).
    DangerousPattern,
    /// The host's confusable skeleton is that of this top domain.
    TopDomainLookalike(String),
}

impl Reason {
    /// The stable code of the reason.
    pub fn code(&self) -> &'static str {
        match self {
            Reason::AsciiProfile => "idn-ascii-profile",
            Reason::DisallowedChar(_) => "idn-disallowed-char",
            Reason::MixedScript => "idn-mixed-script",
            Reason::MixedNumbers => "idn-mixed-numbers",
            Reason::CombiningMark => "idn-combining-mark",
            Reason::DotlessWithMark => "idn-dotless-with-mark",
            Reason::WholeScriptConfusable(_) => "idn-whole-script-confusable",
            Reason::DigitLookalike => "idn-digit-lookalike",
            Reason::NonAsciiLatinMixed => "idn-non-ascii-latin-mixed",
            Reason::TldSpecificChar(_) => "idn-tld-specific-char",
            Reason::DangerousPattern => "idn-dangerous-pattern",
            Reason::TopDomainLookalike(_) => "idn-top-domain-lookalike",
        }
    }
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Reason::AsciiProfile => write!(f, "the ascii profile never shows Unicode"),
            Reason::DisallowedChar(c) => {
                write!(
                    f,
                    "U+{:04X} is not allowed in identifiers (UTS #39)",
                    *c as u32
                )
            }
            Reason::MixedScript => write!(f, "mixes scripts (UTS #39 restriction level)"),
            Reason::MixedNumbers => write!(f, "mixes numbering systems"),
            Reason::CombiningMark => write!(f, "repeated or stray combining mark"),
            Reason::DotlessWithMark => write!(f, "dotless i/j or i/j/l with a mark"),
            Reason::WholeScriptConfusable(s) => write!(
                f,
                "all {} letters look like Latin ones, outside the TLDs of the script",
                s.full_name()
            ),
            Reason::DigitLookalike => write!(f, "only digits and digit look-alikes"),
            Reason::NonAsciiLatinMixed => write!(f, "non-ASCII Latin mixed with another script"),
            Reason::TldSpecificChar(c) => {
                write!(
                    f,
                    "U+{:04X} is shown only under its country's TLD",
                    *c as u32
                )
            }
            Reason::DangerousPattern => write!(f, "a character sequence browsers block"),
            Reason::TopDomainLookalike(d) => write!(f, "looks like the top domain {d}"),
        }
    }
}

/// A display policy: a profile and, for `high`, the top domains whose
/// look-alikes stay ASCII. Cheap to clone.
#[derive(Debug, Clone)]
pub struct DisplayPolicy {
    profile: IdnDisplay,
    /// `None`: the bundled list (see [`TopDomains::bundled`]).
    top: Option<Arc<TopDomains>>,
    /// Tells policies apart in the per-thread memo of displayed hosts
    /// (clones share it: they decide alike).
    id: u64,
}

impl Default for DisplayPolicy {
    fn default() -> Self {
        DisplayPolicy::new(IdnDisplay::High)
    }
}

fn next_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

impl DisplayPolicy {
    /// The profile with the bundled top-domain list.
    pub fn new(profile: IdnDisplay) -> Self {
        DisplayPolicy {
            profile,
            top: None,
            id: next_id(),
        }
    }

    /// Replace the top-domain list (used by `high` only).
    pub fn with_top_domains(mut self, top: Arc<TopDomains>) -> Self {
        self.top = Some(top);
        self.id = next_id();
        self
    }

    /// The policy's identity for memos.
    pub(crate) fn id(&self) -> u64 {
        self.id
    }

    pub fn profile(&self) -> IdnDisplay {
        self.profile
    }

    fn top(&self) -> &TopDomains {
        match &self.top {
            Some(t) => t,
            None => TopDomains::bundled(),
        }
    }

    /// Whether the Unicode `label` may be shown, under the (ASCII,
    /// lowercase, possibly `xn--`) top-level domain `tld`.
    pub fn label_verdict(&self, label: &str, tld: &str) -> Result<(), Reason> {
        if label.is_ascii() || self.profile == IdnDisplay::Unicode {
            return Ok(());
        }
        if self.profile == IdnDisplay::Ascii {
            return Err(Reason::AsciiProfile);
        }
        for c in label.chars() {
            if is_blocked(c) || !(c.identifier_allowed() || is_also_allowed(c)) {
                return Err(Reason::DisallowedChar(c));
            }
        }
        if mixed_numbers(label) {
            return Err(Reason::MixedNumbers);
        }
        if repeated_mark(label) {
            return Err(Reason::CombiningMark);
        }
        let level = restriction_level(label);
        if self.profile == IdnDisplay::Moderate {
            return if level <= RestrictionLevel::ModeratelyRestrictive {
                Ok(())
            } else {
                Err(Reason::MixedScript)
            };
        }
        if level > RestrictionLevel::HighlyRestrictive {
            return Err(Reason::MixedScript);
        }
        high_checks(label, tld, level == RestrictionLevel::SingleScript)
    }

    /// The host-wide check of `high`: the host (Unicode, as it would be
    /// shown) is a look-alike of a top domain.
    pub fn host_verdict(&self, host: &str) -> Result<(), Reason> {
        if self.profile != IdnDisplay::High || host.is_ascii() {
            return Ok(());
        }
        match self.top().similar(host) {
            Some(d) => Err(Reason::TopDomainLookalike(d.to_owned())),
            None => Ok(()),
        }
    }
}

/// The default policy (`high`, bundled list), shared.
pub fn default_policy() -> &'static DisplayPolicy {
    static P: OnceLock<DisplayPolicy> = OnceLock::new();
    P.get_or_init(DisplayPolicy::default)
}

/// Characters the browsers remove from the identifier set although UTS #39
/// allows them: the invisible joiners, and punctuation that looks like a
/// hyphen, an apostrophe, a dot or a slash (Chromium's exclusions).
fn is_blocked(c: char) -> bool {
    matches!(
        c,
        '\u{200C}' | '\u{200D}' | '\u{00AD}' | '\u{01C0}'
            ..='\u{01C3}'
                | '\u{02BB}'
                | '\u{02BC}'
                | '\u{02D0}'
                | '\u{0338}'
                | '\u{058A}'
                | '\u{0F0B}'
                | '\u{1806}'
                | '\u{2010}'
                | '\u{2019}'
                | '\u{2027}'
                | '\u{30A0}'
    )
}

/// The UTS #39 restriction level (§5.2) of a label whose characters are
/// all allowed (by UTS #39 or [`is_also_allowed`]). The crate's level is
/// `Unrestricted` as soon as a character is not in its identifier set, so
/// labels with the extra characters are classified here from their
/// scripts: one script, or Latin with Han and Japanese Kana, Bopomofo or
/// Hangul (Highly Restrictive), or Latin with one other recommended script
/// other than Cyrillic and Greek (Moderately Restrictive).
fn restriction_level(label: &str) -> RestrictionLevel {
    let level = label.detect_restriction_level();
    if level != RestrictionLevel::Unrestricted || !label.chars().any(is_also_allowed) {
        return level;
    }
    let mut scripts: Vec<Script> = label
        .chars()
        .map(|c| c.script())
        .filter(|s| !matches!(s, Script::Common | Script::Inherited))
        .collect();
    scripts.sort_by_key(|s| s.short_name());
    scripts.dedup();
    let others: Vec<Script> = scripts
        .iter()
        .copied()
        .filter(|s| !matches!(s, Script::Latin | Script::Han))
        .collect();
    match (scripts.len(), others.as_slice()) {
        (0 | 1, _) => RestrictionLevel::SingleScript,
        (_, [] | [Script::Bopomofo] | [Script::Hangul]) => RestrictionLevel::HighlyRestrictive,
        (_, [Script::Hiragana] | [Script::Katakana] | [Script::Hiragana, Script::Katakana]) => {
            RestrictionLevel::HighlyRestrictive
        }
        (2, [s]) if !matches!(s, Script::Cyrillic | Script::Greek) => {
            RestrictionLevel::ModeratelyRestrictive
        }
        _ => RestrictionLevel::MinimallyRestrictive,
    }
}

/// Characters the browsers allow beyond UTS #39's identifier set: Bopomofo
/// letters (Taiwanese names) and the Hebrew geresh and gershayim.
fn is_also_allowed(c: char) -> bool {
    matches!(c, '\u{3105}'..='\u{312F}' | '\u{31A0}'..='\u{31BF}' | '\u{05F3}' | '\u{05F4}')
}

/// The checks of `high` after the restriction level (Highly Restrictive).
fn high_checks(label: &str, tld: &str, single_script: bool) -> Result<(), Reason> {
    let n = label.chars().count();
    for c in label.chars() {
        let home = match c {
            'þ' | 'ð' if tld == "fo" => continue,
            'þ' | 'ð' => "is",
            'ə' => "az",
            _ => continue,
        };
        if n > 1 && tld != home {
            return Err(Reason::TldSpecificChar(c));
        }
    }
    let chars: Vec<char> = label.nfd().collect();
    check_marks(&chars)?;
    check_middle_dot(&chars, tld)?;
    if single_script && !chars.iter().any(|&c| is_kana_exception(c)) {
        if let Some(s) = whole_script_confusable(label, tld) {
            return Err(Reason::WholeScriptConfusable(s));
        }
        return Ok(());
    }
    if digit_lookalike(label) {
        return Err(Reason::DigitLookalike);
    }
    let latin_non_ascii = label
        .chars()
        .any(|c| !c.is_ascii() && c.script() == Script::Latin);
    let other = label.chars().any(|c| {
        let s = c.script();
        !matches!(s, Script::Latin | Script::Common | Script::Inherited)
    });
    if latin_non_ascii && other {
        return Err(Reason::NonAsciiLatinMixed);
    }
    check_japanese(&chars)
}

/// Combining marks: a dot above after `i`/`j`/`l` or any mark on dotless
/// `ı`/`ȷ`; a mark after a base letter outside Latin, Greek, Cyrillic.
fn check_marks(chars: &[char]) -> Result<(), Reason> {
    for w in chars.windows(2) {
        let (a, m) = (w[0], w[1]);
        if !is_combining_mark(m) {
            continue;
        }
        if matches!(a, 'ı' | 'ȷ') || (m == '\u{307}' && matches!(a, 'i' | 'j' | 'l')) {
            return Err(Reason::DotlessWithMark);
        }
        // Chromium blocks the Latin combining diacritics (U+0300–U+0339)
        // after letters of other scripts: they are stray there.
        let latin_mark = ('\u{300}'..='\u{339}').contains(&m);
        let lgc = matches!(a.script(), Script::Latin | Script::Greek | Script::Cyrillic);
        if latin_mark && !lgc && !is_combining_mark(a) {
            return Err(Reason::CombiningMark);
        }
    }
    Ok(())
}

/// U+00B7 MIDDLE DOT only between two `l` (Catalan `l·l`) under `.cat`.
fn check_middle_dot(chars: &[char], tld: &str) -> Result<(), Reason> {
    for (i, &c) in chars.iter().enumerate() {
        if c == '·' {
            if tld != "cat" {
                return Err(Reason::DangerousPattern);
            }
            let before = i > 0 && chars[i - 1] == 'l';
            let after = chars.get(i + 1) == Some(&'l');
            if !(before && after) {
                return Err(Reason::DangerousPattern);
            }
        }
    }
    Ok(())
}

/// Kana that look like punctuation or like each other across scripts:
/// へべぺ (Hiragana and Katakana), the prolonged sound mark and the
/// Katakana middle dot and iteration marks.
fn is_kana_exception(c: char) -> bool {
    matches!(c, '\u{3078}'..='\u{307A}' | '\u{30D8}'..='\u{30DA}' | '\u{30FB}'..='\u{30FE}')
}

fn is_japanese(c: char) -> bool {
    matches!(
        c.script(),
        Script::Hiragana | Script::Katakana | Script::Han
    ) || matches!(c, '\u{30FC}' | '\u{30FB}' | '\u{3005}')
}

/// Han, Kana or Bopomofo.
fn is_cjk(c: char) -> bool {
    is_japanese(c) || c.script() == Script::Bopomofo
}

/// Japanese sequences the browsers block: `ノ ン ソ ゾ 丶 乀 乁 丿` (slash-
/// and dot-like) with no Japanese character on either side, `ー` not after
/// Kana, `ヽ ヾ` not after Katakana, `・` next to ASCII letters, Hiragana
/// `へ` among Katakana and Katakana `ヘ` among Hiragana, `一` or Bopomofo
/// `ㄧ` next to a character that is not Han, Kana or Bopomofo, and Han or
/// Bopomofo that looks like a dot, slash or letter between two ASCII
/// letters (`google丨com`, `googleㄒcom`).
fn check_japanese(chars: &[char]) -> Result<(), Reason> {
    let bad = Err(Reason::DangerousPattern);
    let kana = |c: char| matches!(c.script(), Script::Hiragana | Script::Katakana);
    for (i, &c) in chars.iter().enumerate() {
        let prev = i.checked_sub(1).map(|p| chars[p]);
        let next = chars.get(i + 1).copied();
        let slashy = matches!(
            c,
            '\u{30CE}'
                | '\u{30F3}'
                | '\u{30BD}'
                | '\u{30BE}'
                | '\u{4E36}'
                | '\u{4E40}'
                | '\u{4E41}'
                | '\u{4E3F}'
        );
        let foreign = |o: Option<char>| o.is_none_or(|o| !is_japanese(o));
        if slashy && foreign(prev) && foreign(next) {
            return bad;
        }
        match c {
            '\u{30FC}' if !prev.is_some_and(kana) => return bad,
            '\u{30FD}' | '\u{30FE}' if prev.is_none_or(|p| p.script() != Script::Katakana) => {
                return bad
            }
            '\u{30FB}'
                if prev.is_some_and(|p| p.is_ascii_alphabetic())
                    || next.is_some_and(|n| n.is_ascii_alphabetic()) =>
            {
                return bad
            }
            '\u{4E00}' | '\u{3127}'
                if prev.is_some_and(|p| !is_cjk(p)) || next.is_some_and(|n| !is_cjk(n)) =>
            {
                return bad
            }
            _ => {}
        }
    }
    for w in chars.windows(3) {
        let dotlike = matches!(
            w[1],
            '丨' | '乛' | '七' | '丅' | '丶' | '十' | '〇' | '工' | '讠' | '丁'
        );
        let dotlike = dotlike || w[1].script() == Script::Bopomofo;
        if dotlike && w[0].is_ascii_alphabetic() && w[2].is_ascii_alphabetic() {
            return bad;
        }
    }
    let only = |s: Script| {
        chars.iter().all(|&c| {
            c.script() == s || matches!(c, '\u{3078}'..='\u{307A}' | '\u{30D8}'..='\u{30DA}')
        })
    };
    let he_among = |he: std::ops::RangeInclusive<char>, s: Script| {
        chars.iter().any(|c| he.contains(c)) && only(s) && chars.iter().any(|&c| c.script() == s)
    };
    if he_among('\u{3078}'..='\u{307A}', Script::Katakana)
        || he_among('\u{30D8}'..='\u{30DA}', Script::Hiragana)
    {
        return bad;
    }
    Ok(())
}

/// The ASCII TLDs where each script's Latin look-alike labels are at home
/// (the country-code TLDs of the languages written in it). A non-ASCII TLD
/// is home to every script.
fn home_tlds(s: Script) -> &'static [&'static str] {
    match s {
        Script::Cyrillic => &[
            "bg", "by", "kz", "kg", "mk", "mn", "ru", "rs", "su", "tj", "ua", "uz",
        ],
        Script::Greek => &["gr", "cy"],
        Script::Armenian => &["am"],
        Script::Georgian => &["ge"],
        Script::Ethiopic => &["er", "et"],
        Script::Hebrew => &["il"],
        Script::Thai => &["th"],
        Script::Lao => &["la"],
        Script::Myanmar => &["mm"],
        _ => &[],
    }
}

/// The script of `label` when every letter in it has a skeleton of ASCII
/// letters and digits (looks Latin) and the script is not at home in
/// `tld`; `None` otherwise. Digits and hyphens are ignored. An IDN TLD
/// is home to the script it is written in.
fn whole_script_confusable(label: &str, tld: &str) -> Option<Script> {
    let idn_tld = if tld.starts_with("xn--") {
        let u = idna::domain_to_unicode(tld).0;
        u.chars()
            .map(|c| c.script())
            .find(|s| !matches!(s, Script::Common | Script::Inherited))
    } else {
        None
    };
    let mut script = None;
    for c in label.chars() {
        if c.is_ascii_digit() || c == '-' {
            continue;
        }
        let s = c.script();
        if matches!(s, Script::Common | Script::Inherited) {
            continue;
        }
        if s == Script::Latin || script.is_some_and(|x| x != s) {
            return None;
        }
        script = Some(s);
        if !looks_latin(c) {
            return None;
        }
    }
    if tld.starts_with("xn--") {
        return script.filter(|s| idn_tld.is_some_and(|t| t != *s));
    }
    script.filter(|s| !home_tlds(*s).contains(&tld))
}

/// A letter that passes for ASCII: its skeleton (with Chromium's
/// supplement) is ASCII letters and digits, or it is in the script's
/// whole-script-confusable letters of Chromium's spoof checker.
fn looks_latin(c: char) -> bool {
    if let Some(s) = skeleton::supplement(c) {
        return s.bytes().all(|b| b.is_ascii_alphanumeric());
    }
    if matches!(
        c,
        // Cyrillic ю (`io`); Ethiopic, Greek, Hebrew, Lao, Malayalam, Myanmar, Tamil, Gujarati,
        // Thai letters that Chromium lists as Latin look-alikes.
        'ሀ' | 'ሁ'
            | 'ሃ'
            | 'ሠ'
            | 'ሡ'
            | 'ሰ'
            | 'ሱ'
            | 'ሲ'
            | 'ሴ'
            | 'ቦ'
            | 'ቧ'
            | 'ነ'
            | 'ዐ'
            | 'ዑ'
            | 'ዕ'
            | 'ዖ'
            | 'ዘ'
            | 'ጉ'
            | 'ጎ'
            | 'ፐ'
            | 'ፑ'
            | 'ю'
            | 'α'
            | 'ι'
            | 'κ'
            | 'ν'
            | 'ο'
            | 'ρ'
            | 'τ'
            | 'υ'
            | 'ω'
            | 'ε'
            | 'ד'
            | 'ו'
            | 'ח'
            | 'ט'
            | 'י'
            | 'ן'
            | 'ס'
            | 'ע'
            | 'צ'
            | 'ພ'
            | 'ຟ'
            | 'ຣ'
            | 'ຮ'
            | 'ບ'
            | '໐'
            | 'ດ'
            | 'ນ'
            | 'ປ'
            | 'ຍ'
            | 'ട'
            | 'ഠ'
            | 'ധ'
            | 'ന'
            | 'റ'
            | 'ഗ'
            | 'ခ'
            | 'ဂ'
            | 'င'
            | 'ထ'
            | 'ပ'
            | 'ဝ'
            | '၀'
            | '၂'
            | 'ၔ'
            | 'ட'
            | 'ப'
            | 'ડ'
            | 'ટ'
            | 'ท'
            | 'บ'
            | 'พ'
            | 'ฟ'
            | 'ร'
            | 'ล'
            | 'น'
            | 'ย'
            | 'อ'
            | 'ก'
    ) {
        return true;
    }
    let mut buf = [0u8; 4];
    let ascii = unicode_security::skeleton(c.encode_utf8(&mut buf))
        .all(|k| k.is_ascii_lowercase() || k.is_ascii_digit());
    ascii
}

/// Only ASCII digits and characters whose skeleton is an ASCII digit, at
/// least one of them not ASCII.
fn digit_lookalike(label: &str) -> bool {
    let mut any = false;
    for c in label.chars() {
        if c.is_ascii_digit() || c == '-' {
            continue;
        }
        let digit = match skeleton::supplement(c) {
            Some(s) => s.bytes().all(|b| b.is_ascii_digit()),
            None => {
                let mut buf = [0u8; 4];
                let sk: Vec<char> = unicode_security::skeleton(c.encode_utf8(&mut buf)).collect();
                matches!(sk[..], [d] if d.is_ascii_digit())
            }
        };
        if !digit {
            return false;
        }
        any = true;
    }
    any
}

/// The zero of each numbering system (`Nd` characters with value 0;
/// UnicodeData.txt 15.0): a decimal digit `c` belongs to the system of the
/// greatest zero `z ≤ c` with `c < z + 10`.
const ZEROS: &[u32] = &[
    0x30, 0x660, 0x6F0, 0x7C0, 0x966, 0x9E6, 0xA66, 0xAE6, 0xB66, 0xBE6, 0xC66, 0xCE6, 0xD66,
    0xDE6, 0xE50, 0xED0, 0xF20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80, 0x1A90,
    0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0, 0xFF10,
    0x104A0, 0x10D30, 0x11066, 0x110F0, 0x11136, 0x111D0, 0x112F0, 0x11450, 0x114D0, 0x11650,
    0x116C0, 0x11730, 0x118E0, 0x11950, 0x11C50, 0x11D50, 0x11DA0, 0x11F50, 0x16A60, 0x16AC0,
    0x16B50, 0x1D7CE, 0x1D7D8, 0x1D7E2, 0x1D7EC, 0x1D7F6, 0x1E140, 0x1E2F0, 0x1E4F0, 0x1E950,
    0x1FBF0,
];

fn numbering_system(c: char) -> Option<u32> {
    let c = c as u32;
    let i = ZEROS.partition_point(|&z| z <= c);
    let z = *ZEROS.get(i.checked_sub(1)?)?;
    (c < z + 10).then_some(z)
}

/// Digits of more than one numbering system (UTS #39 §5.3).
fn mixed_numbers(label: &str) -> bool {
    let mut seen = None;
    for c in label.chars() {
        if let Some(z) = numbering_system(c) {
            if seen.is_some_and(|s| s != z) {
                return true;
            }
            seen = Some(z);
        }
    }
    false
}

/// The same nonspacing mark twice in a row after NFD (UTS #39 §5.4,
/// "invisible" check).
fn repeated_mark(label: &str) -> bool {
    let mut prev = None;
    for c in label.nfd() {
        if is_combining_mark(c) && prev == Some(c) {
            return true;
        }
        prev = Some(c);
    }
    false
}
