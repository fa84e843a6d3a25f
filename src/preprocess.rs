//! Contextual preprocessing of reference strings before parsing: pure
//! `&str → Cow<str>` repairs.
//!
//! Implements, from draft-ietf-iri-3987bis (2009):
//!
//! * §5.2 "Preparation for Comparison": undoing higher-level escapes — HTML/XML
//!   character references (`&amp;`, `&#xE9;`, `&eacute;` …) — optional, see
//!   [`Preprocessor::new`];
//! * §7.1 LEIRI processing ([`Mode::Leiri`]): every character allowed by
//!   `leiri-ucschar` but not by `ucschar` is percent-encoded per §3.3;
//! * §7.2 Web Address processing ([`Mode::Web`]): steps 1–5 (which also
//!   cover step 1 of draft-weber-iri-guidelines §4, trimming) are today the
//!   WHATWG URL Standard's basic URL parser, run by [`crate::web`] *after*
//!   this module; here web mode only decodes character references. Step 2 of
//!   that guidelines section (several references per line) is
//!   [`split_spaces`].
//!
//! # Order of the steps in [`Mode::Web`]
//!
//! 0. §5.2 character references are decoded first ("before anything else"),
//!    so a decoded `&#9;` or `&#x20;` is then handled like a literal one.
//! 1. [`crate::web::WebParser::parse`]: §7.2 steps 1–5 as the URL Standard
//!    does them (trim C0 controls and space, remove TAB/CR/LF, `\` as `/` in
//!    special URLs, percent-encode, keep a lone `%`), resolution against the
//!    base, and the query encoded in the HRef-charset (`--query-encoding`).
//!
//! # Characters percent-encoded (LEIRI)
//!
//! `leiri-ucschar` and `href-ucschar` are the same set. A character is encoded
//! when it is in that set but not in `ucschar` (computed from the §2.2 ABNF
//! ranges exactly), which is: SPACE `<` `>` `"` `{` `}` `|` `\` `^` `` ` ``,
//! C0 controls, DEL, C1 controls, private use (U+E000–F8FF, planes 15–16) —
//! except in the query, where §2.2's `iprivate` allows them raw (so a valid
//! IRI reference is never changed; found by the `preprocess` fuzz target),
//! specials U+FFF0–FFFD, noncharacters (U+FDD0–FDEF,
//! U+xFFFE/xFFFF), tags (U+E0000–E0FFF). In addition the bidi formatting
//! characters U+200E, U+200F, U+202A–202E are encoded: they are inside the
//! `ucschar` ranges but §4.1 says IRIs MUST NOT contain them, and §7.1/§7.2
//! note that LEIRI/HREF processors did not enforce that, so converting to an
//! IRI has to encode them. U+FFFE/U+FFFF (in neither set) are encoded too.
//!
//! # Repair counts
//!
//! [`Repairs`] counts *occurrences* (characters, or references for
//! entities), plus [`Repairs::lines_changed`], the number of lines whose
//! output differs from the input.
//!
//! # Idempotence
//!
//! `apply(apply(x)) == apply(x)` for every mode when entity decoding is off.
//! Entity decoding is an unescaping and cannot be idempotent (`&amp;lt;` →
//! `&lt;` → `<`); it is meant to be applied once, to markup-escaped input.

use std::borrow::Cow;
use std::fmt;
use std::ops::{Add, AddAssign};
use std::str::FromStr;

/// Which preprocessing agreement to apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// No repair at all: the input must already be an IRI reference
    /// (only character references are decoded, if enabled).
    #[default]
    Strict,
    /// §7.1 LEIRI → IRI: percent-encode `leiri-ucschar` characters not in
    /// `ucschar` (no trimming, a lone `%` is left alone).
    Leiri,
    /// §7.2 Web Address processing: the WHATWG URL Standard's parser
    /// ([`crate::web`]); here only character references are decoded.
    Web,
}

impl FromStr for Mode {
    type Err = String;
    /// Parses `strict`, `leiri` or `web` (ASCII case-insensitive).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "strict" => Ok(Mode::Strict),
            "leiri" => Ok(Mode::Leiri),
            "web" => Ok(Mode::Web),
            _ => Err(format!(
                "unknown preprocessing mode {s:?} (expected strict, leiri or web)"
            )),
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Mode::Strict => "strict",
            Mode::Leiri => "leiri",
            Mode::Web => "web",
        })
    }
}

/// Counts of each repair kind, so a summary can show what was changed.
///
/// All fields except `lines_changed` count occurrences (characters, or
/// references for `entities_decoded`). Per-thread counts are merged with `+=`.
/// The web-mode kinds are the URL Standard's validation errors (§4.4), as
/// [`crate::web`] reports them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Repairs {
    /// Lines whose preprocessed form (web mode: `href`) differs from the input.
    pub lines_changed: u64,
    /// §5.2: character references (`&amp;`, `&#233;`, `&eacute;` …) decoded.
    pub entities_decoded: u64,
    /// §7.2 step 1 (web): leading/trailing C0 controls and spaces removed.
    pub trimmed: u64,
    /// §7.2 step 2 (web): TAB, CR, LF characters removed inside the string.
    pub removed_tab_cr_lf: u64,
    /// §7.2 step 5 (web): backslashes read as `/`.
    pub backslashes: u64,
    /// §7.1: characters percent-encoded (one per character, whatever the
    /// length of its UTF-8 form).
    pub pct_encoded_chars: u64,
    /// §7.2 step 4 (web): `%` not followed by two hex digits (kept as `%`
    /// in the `href`, `%25` from the syntax rung up).
    pub lone_percent: u64,
    /// Web: characters that are not URL code points (space, `"`, `<`, `|`,
    /// controls, …; percent-encoded by the parser where the Standard says).
    pub non_url_chars: u64,
    /// Web: the `//` after a special scheme was missing or written
    /// otherwise (`http:h`, `http:/h`, `http:\\h`, `http:///h`); a `\`
    /// there is also counted in `backslashes`.
    pub slashes_fixed: u64,
    /// Web: `@` in the userinfo written `%40`.
    pub at_signs_encoded: u64,
    /// Web: other validation errors the parser repaired (NUL in a fragment,
    /// a `file:` host before a Windows drive letter).
    pub other_fixes: u64,
}

impl Repairs {
    /// Nothing repaired (a `const` for thread-local initializers).
    pub const NONE: Repairs = Repairs {
        lines_changed: 0,
        entities_decoded: 0,
        trimmed: 0,
        removed_tab_cr_lf: 0,
        backslashes: 0,
        pct_encoded_chars: 0,
        lone_percent: 0,
        non_url_chars: 0,
        slashes_fixed: 0,
        at_signs_encoded: 0,
        other_fixes: 0,
    };

    /// True when nothing was repaired.
    pub fn is_empty(&self) -> bool {
        *self == Repairs::NONE
    }
}

impl AddAssign for Repairs {
    fn add_assign(&mut self, o: Repairs) {
        self.lines_changed += o.lines_changed;
        self.entities_decoded += o.entities_decoded;
        self.trimmed += o.trimmed;
        self.removed_tab_cr_lf += o.removed_tab_cr_lf;
        self.backslashes += o.backslashes;
        self.pct_encoded_chars += o.pct_encoded_chars;
        self.lone_percent += o.lone_percent;
        self.non_url_chars += o.non_url_chars;
        self.slashes_fixed += o.slashes_fixed;
        self.at_signs_encoded += o.at_signs_encoded;
        self.other_fixes += o.other_fixes;
    }
}

impl Add for Repairs {
    type Output = Repairs;
    fn add(mut self, o: Repairs) -> Repairs {
        self += o;
        self
    }
}

impl fmt::Display for Repairs {
    /// E.g. `3 lines changed (trimmed 2 chars, 1 backslash → /)`, or
    /// `no repairs`. Only non-zero kinds are listed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("no repairs");
        }
        let kinds: [(u64, &str); 10] = [
            (self.entities_decoded, "character references decoded"),
            (self.trimmed, "whitespace chars trimmed"),
            (self.removed_tab_cr_lf, "TAB/CR/LF removed"),
            (self.backslashes, "backslashes → /"),
            (self.pct_encoded_chars, "chars percent-encoded"),
            (self.lone_percent, "lone %"),
            (self.non_url_chars, "non-URL chars"),
            (self.slashes_fixed, "scheme // fixed"),
            (self.at_signs_encoded, "userinfo @ → %40"),
            (self.other_fixes, "other URL fixes"),
        ];
        write!(
            f,
            "{} line{} changed",
            self.lines_changed,
            if self.lines_changed == 1 { "" } else { "s" }
        )?;
        let mut first = true;
        for (n, what) in kinds {
            if n != 0 {
                f.write_str(if first { " (" } else { ", " })?;
                write!(f, "{n} {what}")?;
                first = false;
            }
        }
        if !first {
            f.write_str(")")?;
        }
        Ok(())
    }
}

/// A configured preprocessor; cheap to copy and share between threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Preprocessor {
    mode: Mode,
    decode_entities: bool,
}

impl Preprocessor {
    /// `mode` selects the §7 agreement; `decode_entities` enables §5.2
    /// decoding of HTML/XML character references, done before anything else.
    pub fn new(mode: Mode, decode_entities: bool) -> Self {
        Preprocessor {
            mode,
            decode_entities,
        }
    }

    /// The configured mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Preprocesses one reference string (without its line terminator) and
    /// adds what was repaired to `repairs`.
    ///
    /// Returns the input borrowed when nothing has to change — decided by one
    /// scan over the bytes with a lookup table, without allocating, for the
    /// common clean line. Never panics.
    pub fn apply<'a>(&self, line: &'a str, repairs: &mut Repairs) -> Cow<'a, str> {
        if self.is_clean(line) {
            return Cow::Borrowed(line);
        }
        let mut cur = if self.decode_entities {
            decode_entities(line, repairs)
        } else {
            Cow::Borrowed(line)
        };
        if self.mode == Mode::Leiri {
            cur = encode_pass(cur, repairs);
        }
        let changed = match &cur {
            Cow::Borrowed(s) => s.len() != line.len(),
            Cow::Owned(_) => true,
        };
        if changed {
            repairs.lines_changed += 1;
        }
        cur
    }

    /// Exact test "`apply` would return the line unchanged".
    fn is_clean(&self, line: &str) -> bool {
        let b = line.as_bytes();
        if self.mode != Mode::Leiri {
            return !self.decode_entities || !contains_reference(line);
        }
        let mut i = 0;
        let mut q = QueryState::default();
        while i < b.len() {
            match CLASS[b[i] as usize] {
                OK | PCT => q.step(b[i] as char),
                DIRTY => return false,
                AMP => {
                    if self.decode_entities && parse_reference(&b[i..]).is_some() {
                        return false;
                    }
                }
                _ => {
                    // Lead byte of a non-ASCII character; `i` is on a char
                    // boundary because continuation bytes are class OK.
                    if let Some(c) = line.get(i..).and_then(|s| s.chars().next()) {
                        if q.needs_encoding(c) {
                            return false;
                        }
                        i += c.len_utf8();
                        continue;
                    }
                }
            }
            i += 1;
        }
        true
    }
}

const OK: u8 = 0;
const DIRTY: u8 = 1;
const PCT: u8 = 2;
const AMP: u8 = 3;
const LEAD: u8 = 4;

/// Byte classes for the fast scan (LEIRI).
static CLASS: [u8; 256] = {
    let mut t = [OK; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        t[i] = if b <= 0x20 || b == 0x7F {
            DIRTY
        } else if b >= 0xC0 {
            LEAD
        } else if b >= 0x80 {
            OK // continuation byte
        } else {
            match b {
                b'"' | b'<' | b'>' | b'\\' | b'^' | b'`' | b'{' | b'|' | b'}' => DIRTY,
                b'%' => PCT,
                b'&' => AMP,
                _ => OK,
            }
        };
        i += 1;
    }
    t
};

pub use crate::chars::{is_bidi_format, is_ucschar};

/// True for the characters §7.1 (and the old §7.2 step 3) percent-encode: in
/// `leiri-ucschar` (= `href-ucschar`) but not in `ucschar`, plus the §4.1
/// bidi formatting characters and U+FFFE/U+FFFF (see the module docs).
pub fn needs_encoding(c: char) -> bool {
    if c.is_ascii() {
        CLASS[c as usize] == DIRTY
    } else {
        !is_ucschar(c) || is_bidi_format(c)
    }
}

/// §2.2 `iprivate`: allowed raw in the query only.
fn is_iprivate(c: char) -> bool {
    matches!(c as u32, 0xE000..=0xF8FF | 0xF0000..=0xFFFFD | 0x100000..=0x10FFFD)
}

/// Where a character is: the query (after the first `?` that precedes any
/// `#`) allows `iprivate`.
#[derive(Default)]
struct QueryState {
    in_query: bool,
    in_fragment: bool,
}

impl QueryState {
    #[inline]
    fn step(&mut self, c: char) {
        match c {
            '?' if !self.in_fragment => self.in_query = true,
            '#' => (self.in_query, self.in_fragment) = (false, true),
            _ => {}
        }
    }

    /// [`needs_encoding`] at this position.
    #[inline]
    fn needs_encoding(&self, c: char) -> bool {
        needs_encoding(c) && !(self.in_query && is_iprivate(c))
    }
}

/// True if LEIRI processing would percent-encode a character of `s`.
#[cfg(test)]
pub fn has_leiri_dirt(s: &str) -> bool {
    let mut q = QueryState::default();
    s.chars().any(|c| {
        q.step(c);
        q.needs_encoding(c)
    })
}

/// §7.1: percent-encodes every character that [`needs_encoding`] (private
/// use characters in the query excepted).
fn encode_pass<'a>(cur: Cow<'a, str>, r: &mut Repairs) -> Cow<'a, str> {
    let mut out = String::with_capacity(cur.len() + 16);
    let mut changed = false;
    let mut q = QueryState::default();
    for c in cur.chars() {
        q.step(c);
        if q.needs_encoding(c) {
            // §3.3: UTF-8 octets as `%HH`, uppercase hex.
            crate::chars::push_pct_char(&mut out, c);
            r.pct_encoded_chars += 1;
            changed = true;
        } else {
            out.push(c);
        }
    }
    if changed {
        Cow::Owned(out)
    } else {
        cur
    }
}

/// 002 §4 step 2 (`--split-spaces`): trims the line (SPACE, TAB, CR, LF at
/// both ends, as §7.2 step 1 does) and splits it on runs of U+0020 into separate
/// reference strings. Never yields an empty string.
pub fn split_spaces(line: &str) -> impl Iterator<Item = &str> {
    line.trim_matches(&[' ', '\t', '\r', '\n'][..])
        .split(' ')
        .filter(|s| !s.is_empty())
}

// ---------------------------------------------------------------------------
// §5.2: character references

/// HTML 4 / HTML5 named references decoded: the XML five, the full Latin-1
/// set (U+00A0–U+00FF) and a few common typographic ones. Case-sensitive.
static ENTITIES: &[(&str, char)] = &[
    ("amp", '&'),
    ("lt", '<'),
    ("gt", '>'),
    ("quot", '"'),
    ("apos", '\''),
    ("nbsp", '\u{A0}'),
    ("iexcl", '¡'),
    ("cent", '¢'),
    ("pound", '£'),
    ("curren", '¤'),
    ("yen", '¥'),
    ("brvbar", '¦'),
    ("sect", '§'),
    ("uml", '¨'),
    ("copy", '©'),
    ("ordf", 'ª'),
    ("laquo", '«'),
    ("not", '¬'),
    ("shy", '\u{AD}'),
    ("reg", '®'),
    ("macr", '¯'),
    ("deg", '°'),
    ("plusmn", '±'),
    ("sup2", '²'),
    ("sup3", '³'),
    ("acute", '´'),
    ("micro", 'µ'),
    ("para", '¶'),
    ("middot", '·'),
    ("cedil", '¸'),
    ("sup1", '¹'),
    ("ordm", 'º'),
    ("raquo", '»'),
    ("frac14", '¼'),
    ("frac12", '½'),
    ("frac34", '¾'),
    ("iquest", '¿'),
    ("Agrave", 'À'),
    ("Aacute", 'Á'),
    ("Acirc", 'Â'),
    ("Atilde", 'Ã'),
    ("Auml", 'Ä'),
    ("Aring", 'Å'),
    ("AElig", 'Æ'),
    ("Ccedil", 'Ç'),
    ("Egrave", 'È'),
    ("Eacute", 'É'),
    ("Ecirc", 'Ê'),
    ("Euml", 'Ë'),
    ("Igrave", 'Ì'),
    ("Iacute", 'Í'),
    ("Icirc", 'Î'),
    ("Iuml", 'Ï'),
    ("ETH", 'Ð'),
    ("Ntilde", 'Ñ'),
    ("Ograve", 'Ò'),
    ("Oacute", 'Ó'),
    ("Ocirc", 'Ô'),
    ("Otilde", 'Õ'),
    ("Ouml", 'Ö'),
    ("times", '×'),
    ("Oslash", 'Ø'),
    ("Ugrave", 'Ù'),
    ("Uacute", 'Ú'),
    ("Ucirc", 'Û'),
    ("Uuml", 'Ü'),
    ("Yacute", 'Ý'),
    ("THORN", 'Þ'),
    ("szlig", 'ß'),
    ("agrave", 'à'),
    ("aacute", 'á'),
    ("acirc", 'â'),
    ("atilde", 'ã'),
    ("auml", 'ä'),
    ("aring", 'å'),
    ("aelig", 'æ'),
    ("ccedil", 'ç'),
    ("egrave", 'è'),
    ("eacute", 'é'),
    ("ecirc", 'ê'),
    ("euml", 'ë'),
    ("igrave", 'ì'),
    ("iacute", 'í'),
    ("icirc", 'î'),
    ("iuml", 'ï'),
    ("eth", 'ð'),
    ("ntilde", 'ñ'),
    ("ograve", 'ò'),
    ("oacute", 'ó'),
    ("ocirc", 'ô'),
    ("otilde", 'õ'),
    ("ouml", 'ö'),
    ("divide", '÷'),
    ("oslash", 'ø'),
    ("ugrave", 'ù'),
    ("uacute", 'ú'),
    ("ucirc", 'û'),
    ("uuml", 'ü'),
    ("yacute", 'ý'),
    ("thorn", 'þ'),
    ("yuml", 'ÿ'),
    // A few common non-Latin-1 ones.
    ("OElig", 'Œ'),
    ("oelig", 'œ'),
    ("Scaron", 'Š'),
    ("scaron", 'š'),
    ("Yuml", 'Ÿ'),
    ("euro", '€'),
    ("ndash", '–'),
    ("mdash", '—'),
    ("lsquo", '‘'),
    ("rsquo", '’'),
    ("ldquo", '“'),
    ("rdquo", '”'),
    ("hellip", '…'),
    ("trade", '™'),
    ("bull", '•'),
];

/// Parses a character reference at the start of `b` (which starts with `&`):
/// `&name;`, `&#NNN;` or `&#xHH;`, the `;` being required. Returns the
/// character and the length of the reference. Numeric references to 0, a
/// surrogate or beyond U+10FFFF are not references (`None`).
fn parse_reference(b: &[u8]) -> Option<(char, usize)> {
    debug_assert_eq!(b.first(), Some(&b'&'));
    if b.get(1) == Some(&b'#') {
        let (radix, start) = match b.get(2) {
            Some(b'x' | b'X') => (16, 3),
            _ => (10, 2),
        };
        let mut v: u32 = 0;
        let mut i = start;
        while let Some(d) = b.get(i).and_then(|&c| (c as char).to_digit(radix)) {
            v = v.saturating_mul(radix).saturating_add(d);
            i += 1;
        }
        if i == start || b.get(i) != Some(&b';') || v == 0 {
            return None;
        }
        return char::from_u32(v).map(|c| (c, i + 1));
    }
    let n = b[1..]
        .iter()
        .take(8)
        .position(|c| !c.is_ascii_alphanumeric())?;
    if n == 0 || b[1 + n] != b';' {
        return None;
    }
    let name = &b[1..1 + n];
    ENTITIES
        .iter()
        .find(|(k, _)| k.as_bytes() == name)
        .map(|&(_, c)| (c, n + 2))
}

fn contains_reference(s: &str) -> bool {
    let b = s.as_bytes();
    memchr::memchr_iter(b'&', b).any(|i| parse_reference(&b[i..]).is_some())
}

/// Where byte `at` of the §5.2 decoding of `line` (character references
/// only, as [`Preprocessor::apply`] does in strict and web mode) came from
/// in `line`: a position inside a decoded character maps to its reference's
/// `&`. Lets an error found after decoding point into the line as written.
pub fn offset_before_decoding(line: &str, at: usize) -> usize {
    let b = line.as_bytes();
    let mut shift = 0; // bytes removed by the references before `at`
    let mut copied = 0;
    for i in memchr::memchr_iter(b'&', b) {
        if i < copied {
            continue;
        }
        if let Some((c, len)) = parse_reference(&b[i..]) {
            let lands = i - shift;
            if at < lands {
                break;
            }
            if at < lands + c.len_utf8() {
                return i;
            }
            shift += len - c.len_utf8();
            copied = i + len;
        }
    }
    at + shift
}

/// §5.2: decodes the character references of `s` (one level only).
fn decode_entities<'a>(s: &'a str, r: &mut Repairs) -> Cow<'a, str> {
    let b = s.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0;
    for i in memchr::memchr_iter(b'&', b) {
        if i < copied {
            continue;
        }
        if let Some((c, len)) = parse_reference(&b[i..]) {
            let o = out.get_or_insert_with(|| String::with_capacity(s.len()));
            o.push_str(&s[copied..i]);
            o.push(c);
            copied = i + len;
            r.entities_decoded += 1;
        }
    }
    match out {
        None => Cow::Borrowed(s),
        Some(mut o) => {
            o.push_str(&s[copied..]);
            Cow::Owned(o)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn run(mode: Mode, ent: bool, s: &str) -> (String, Repairs) {
        let mut r = Repairs::default();
        let out = Preprocessor::new(mode, ent).apply(s, &mut r).into_owned();
        (out, r)
    }
    fn web(s: &str) -> String {
        run(Mode::Web, false, s).0
    }
    fn leiri(s: &str) -> String {
        run(Mode::Leiri, false, s).0
    }

    #[test]
    fn mode_from_str() {
        assert_eq!("web".parse::<Mode>().unwrap(), Mode::Web);
        assert_eq!("LEIRI".parse::<Mode>().unwrap(), Mode::Leiri);
        assert_eq!("strict".parse::<Mode>().unwrap(), Mode::Strict);
        assert!("html".parse::<Mode>().unwrap_err().contains("html"));
    }

    #[test]
    fn clean_lines_are_borrowed() {
        for mode in [Mode::Strict, Mode::Leiri, Mode::Web] {
            for s in [
                "http://example.com/a/b?x=1&y=2#f",
                "http://例え.テスト/パス?q=検索",
                "https://x/%C3%A9",
                "",
            ] {
                let mut r = Repairs::default();
                let out = Preprocessor::new(mode, true).apply(s, &mut r);
                assert!(matches!(out, Cow::Borrowed(_)), "{mode} {s}");
                assert_eq!(out, s);
                assert!(r.is_empty());
            }
        }
    }

    #[test]
    fn strict_is_identity() {
        for s in [" a b ", "\\x\t%zz", "<\"\u{200E}\u{E000}>", "&amp;"] {
            assert_eq!(run(Mode::Strict, false, s).0, s);
        }
        assert_eq!(run(Mode::Strict, true, "a?b=1&amp;c=2").0, "a?b=1&c=2");
    }

    #[test]
    fn web_mode_only_decodes_references() {
        // §7.2 steps 1–5 are the URL Standard's parser (crate::web), run
        // after this step; here the line is left as written.
        for s in [" \thttp:\\\\a\\b c%zz ", "ht\ttp://h/[x]"] {
            assert_eq!(web(s), s);
        }
        let (o, r) = run(Mode::Web, true, " http://a/?q=&lt;&#9;");
        assert_eq!(o, " http://a/?q=<\t");
        assert_eq!(r.entities_decoded, 2);
        assert_eq!(r.lines_changed, 1);
    }

    #[test]
    fn leiri_mode() {
        assert_eq!(leiri("http://a/b c"), "http://a/b%20c");
        assert_eq!(leiri(" http://a/<x>\"y\""), "%20http://a/%3Cx%3E%22y%22");
        assert_eq!(leiri("http://a/\t\n\u{0}"), "http://a/%09%0A%00");
        assert_eq!(leiri("http://a\\b"), "http://a%5Cb");
        assert_eq!(leiri("http://a/%zz"), "http://a/%zz");
        assert_eq!(leiri("http://a/\u{200F}é"), "http://a/%E2%80%8Fé");
        let (_, r) = run(Mode::Leiri, false, "a b c");
        assert_eq!(r.pct_encoded_chars, 2);
    }

    #[test]
    fn entities() {
        let e = |s: &str| run(Mode::Strict, true, s).0;
        assert_eq!(e("a&amp;b&lt;&gt;&quot;&apos;"), "a&b<>\"'");
        assert_eq!(
            e("&#233;&#xE9;&#XE9;&eacute;&Eacute;&nbsp;&copy;"),
            "ééééÉ\u{A0}©"
        );
        assert_eq!(e("&#x1F600;"), "😀");
        // Invalid numeric references are left as written.
        for s in [
            "&#0;",
            "&#xD800;",
            "&#x110000;",
            "&#99999999999999999999;",
            "&#;",
            "&#x;",
        ] {
            assert_eq!(e(s), s);
        }
        // `&` not forming a reference.
        for s in [
            "a=1&b=2",
            "&amp",
            "&unknown;",
            "&;",
            "&",
            "&#65",
            "x&eacute",
        ] {
            assert_eq!(e(s), s);
        }
        let (_, r) = run(Mode::Strict, true, "&amp;&amp;x&y");
        assert_eq!(r.entities_decoded, 2);
        // Case-sensitive names.
        assert_eq!(e("&AMP;"), "&AMP;");
        assert_eq!(
            ENTITIES
                .iter()
                .filter(|(_, c)| ('\u{A0}'..='\u{FF}').contains(c))
                .count(),
            96
        );
    }

    #[test]
    fn offsets_before_decoding() {
        let line = "a&amp;b&#x3B1;c&lt;";
        let (dec, _) = run(Mode::Strict, true, line);
        assert_eq!(dec, "a&bαc<");
        for (at, want) in [
            (0, 0),
            (1, 1),
            (2, 6),
            (3, 7),
            (4, 7),
            (5, 14),
            (6, 15),
            (7, 19),
        ] {
            assert_eq!(offset_before_decoding(line, at), want, "{at}");
        }
        assert_eq!(offset_before_decoding("no refs & here", 9), 9);
    }

    #[test]
    fn ucschar_ranges() {
        assert!(!is_ucschar('\u{9F}'));
        assert!(is_ucschar('\u{A0}'));
        assert!(is_ucschar('\u{D7FF}'));
        assert!(!is_ucschar('\u{E000}'));
        assert!(!is_ucschar('\u{F8FF}'));
        assert!(is_ucschar('\u{F900}'));
        assert!(is_ucschar('\u{FDCF}'));
        assert!(!is_ucschar('\u{FDD0}'));
        assert!(!is_ucschar('\u{FDEF}'));
        assert!(is_ucschar('\u{FDF0}'));
        assert!(is_ucschar('\u{FFEF}'));
        assert!(!is_ucschar('\u{FFF0}'));
        assert!(is_ucschar('\u{10000}'));
        assert!(is_ucschar('\u{1FFFD}'));
        assert!(!is_ucschar('\u{1FFFE}'));
        assert!(is_ucschar('\u{DFFFD}'));
        assert!(!is_ucschar('\u{E0000}'));
        assert!(!is_ucschar('\u{E0FFF}'));
        assert!(is_ucschar('\u{E1000}'));
        assert!(is_ucschar('\u{EFFFD}'));
        assert!(!is_ucschar('\u{F0000}'));
        assert!(!is_ucschar('\u{10FFFD}'));
    }

    #[test]
    fn split() {
        let v: Vec<_> = split_spaces("\t a  b   c \r\n").collect();
        assert_eq!(v, ["a", "b", "c"]);
        assert_eq!(split_spaces("   ").count(), 0);
        assert_eq!(split_spaces("x").collect::<Vec<_>>(), ["x"]);
    }

    #[test]
    fn repairs_display_and_add() {
        assert_eq!(Repairs::default().to_string(), "no repairs");
        let mut a = Repairs {
            lines_changed: 1,
            trimmed: 2,
            ..Default::default()
        };
        a += Repairs {
            lines_changed: 1,
            backslashes: 1,
            ..Default::default()
        };
        assert_eq!(
            a.to_string(),
            "2 lines changed (2 whitespace chars trimmed, 1 backslashes → /)"
        );
        assert_eq!((a + a).lines_changed, 4);
    }

    fn tricky() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            Just("http:".to_string()),
            Just("file:".to_string()),
            Just("mailto:".to_string()),
            Just("//".to_string()),
            "[ \t\r\na-fA-F0-9\\\\%&#;:/?<>\"{}|^`é\u{200E}\u{202E}\u{E000}\u{85}\u{FFFE}]{0,6}",
        ];
        prop::collection::vec(piece, 0..8).prop_map(|v| v.concat())
    }

    proptest! {
        #[test]
        fn idempotent(s in tricky()) {
            for mode in [Mode::Strict, Mode::Leiri, Mode::Web] {
                let p = Preprocessor::new(mode, false);
                let once = p.apply(&s, &mut Repairs::default()).into_owned();
                let mut r = Repairs::default();
                let twice = p.apply(&once, &mut r);
                prop_assert_eq!(&twice, &once);
                prop_assert!(matches!(twice, Cow::Borrowed(_)));
                prop_assert!(r.is_empty());
                if mode == Mode::Leiri {
                    prop_assert!(!has_leiri_dirt(&once));
                }
            }
        }

        #[test]
        fn borrowed_iff_unchanged(s in tricky(), ent: bool) {
            for mode in [Mode::Strict, Mode::Leiri, Mode::Web] {
                let mut r = Repairs::default();
                let out = Preprocessor::new(mode, ent).apply(&s, &mut r);
                prop_assert_eq!(out != s.as_str(), r.lines_changed == 1);
            }
        }

        #[test]
        fn never_panics(s in any::<String>(), ent: bool) {
            for mode in [Mode::Strict, Mode::Leiri, Mode::Web] {
                let _ = Preprocessor::new(mode, ent).apply(&s, &mut Repairs::default());
            }
            let _ = split_spaces(&s).count();
        }
    }
}
