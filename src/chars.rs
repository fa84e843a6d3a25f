//! Character classes of draft-ietf-iri-3987bis §2.2 (and RFC 3986 §2) as
//! tables.
//!
//! ASCII bytes are classified by one 256-entry table of bit flags, built at
//! compile time from the ABNF's lists; each flag names the rule it encodes.
//! Non-ASCII characters are classified by the ranges of `ucschar` and
//! `iprivate`, and by the lists of 3987bis §4.1 (bidi formatting characters)
//! and §7.3 (characters not allowed in IRIs).

/// `ALPHA`.
pub const ALPHA: u16 = 1 << 0;
/// `DIGIT`.
pub const DIGIT: u16 = 1 << 1;
/// `HEXDIG` (either case).
pub const HEX: u16 = 1 << 2;
/// `"-" / "." / "_" / "~"`: with ALPHA and DIGIT, `unreserved`.
pub const UNRESERVED_MARK: u16 = 1 << 3;
/// `sub-delims = "!" / "$" / "&" / "'" / "(" / ")" / "*" / "+" / "," / ";" / "="`.
pub const SUB_DELIM: u16 = 1 << 4;
/// `":"`.
pub const COLON: u16 = 1 << 5;
/// `"@"`.
pub const AT: u16 = 1 << 6;
/// `"/"`.
pub const SLASH: u16 = 1 << 7;
/// `"?"`.
pub const QMARK: u16 = 1 << 8;
/// `"#"`.
pub const HASH: u16 = 1 << 9;
/// `"+" / "-" / "."`: with ALPHA and DIGIT, the tail of `scheme`.
pub const SCHEME_MARK: u16 = 1 << 10;

/// `unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~"` (RFC 3986 §2.3).
pub const UNRESERVED: u16 = ALPHA | DIGIT | UNRESERVED_MARK;
/// `ireg-name` without `pct-form` and `ucschar`: `unreserved / sub-delims`.
pub const REG_NAME: u16 = UNRESERVED | SUB_DELIM;
/// `iuserinfo` without `pct-form` and `ucschar`.
pub const USERINFO: u16 = REG_NAME | COLON;
/// `ipchar` without `pct-form` and `ucschar`.
pub const PCHAR: u16 = REG_NAME | COLON | AT;
/// `ipath` characters: `ipchar / "/"`.
pub const PATH: u16 = PCHAR | SLASH;
/// `iquery = *( ipchar / iprivate / "/" / "?" )`.
pub const QUERY: u16 = PCHAR | SLASH | QMARK;
/// `ifragment = *( ipchar / "/" / "?" / "#" )` (3987bis §2.2 admits `#`;
/// RFC 3986 does not, so the URI form percent-encodes it).
pub const FRAGMENT: u16 = QUERY | HASH;
/// `scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`.
pub const SCHEME: u16 = ALPHA | DIGIT | SCHEME_MARK;

pub(crate) const fn build() -> [u16; 256] {
    let mut t = [0u16; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        let mut f = 0;
        if c.is_ascii_alphabetic() {
            f |= ALPHA;
        }
        if c.is_ascii_digit() {
            f |= DIGIT;
        }
        if c.is_ascii_hexdigit() {
            f |= HEX;
        }
        match c {
            b'-' | b'.' | b'_' | b'~' => f |= UNRESERVED_MARK,
            b'!' | b'$' | b'&' | b'\'' | b'(' | b')' | b'*' | b'+' | b',' | b';' | b'=' => {
                f |= SUB_DELIM
            }
            b':' => f |= COLON,
            b'@' => f |= AT,
            b'/' => f |= SLASH,
            b'?' => f |= QMARK,
            b'#' => f |= HASH,
            _ => {}
        }
        if matches!(c, b'+' | b'-' | b'.') {
            f |= SCHEME_MARK;
        }
        t[b] = f;
        b += 1;
    }
    t
}

/// The class of each byte; 0 for bytes ≥ 0x80 and for ASCII characters that
/// no IRI component admits raw (controls, space, ``"<>\^`{|}``, `%`, `[`, `]`).
pub static TABLE: [u16; 256] = build();

const fn allowed(mask: u16) -> [u8; 256] {
    let t = build();
    let mut out = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        out[b] = (t[b] & mask != 0) as u8;
        b += 1;
    }
    out
}

/// 1 for the ASCII bytes a component admits raw (no `%`, no non-ASCII):
/// one table per rule, so a validation loop can check 8 bytes per branch.
#[cfg(test)]
pub static PATH_OK: [u8; 256] = allowed(PATH);
/// See [`PATH_OK`]: `iquery` without `iprivate`/`ucschar`/`pct-form`.
pub static QUERY_OK: [u8; 256] = allowed(QUERY);
/// See [`PATH_OK`]: `ifragment`.
#[cfg(test)]
pub static FRAGMENT_OK: [u8; 256] = allowed(FRAGMENT);
/// See [`PATH_OK`]: `iuserinfo`.
#[cfg(test)]
pub static USERINFO_OK: [u8; 256] = allowed(USERINFO);
/// See [`PATH_OK`]: `ireg-name`.
#[cfg(test)]
pub static REG_NAME_OK: [u8; 256] = allowed(REG_NAME);

/// [`SCAN`] bit: the byte stands raw in `ipath` (`ipchar / "/"`).
pub const S_PATH: u16 = 1 << 0;
/// [`SCAN`] bit: the byte stands raw in `iquery` (`ipchar / "/" / "?"`).
pub const S_QUERY: u16 = 1 << 1;
/// [`SCAN`] bit: the byte stands raw in `ifragment` (`ipchar / "/" / "?" / "#"`).
pub const S_FRAGMENT: u16 = 1 << 2;
/// [`SCAN`] bit: the byte stands raw in `iuserinfo` (`iunreserved / sub-delims / ":"`).
pub const S_USERINFO: u16 = 1 << 3;
/// [`SCAN`] bit: the byte stands raw in `ireg-name` (`iunreserved / sub-delims`).
pub const S_REG_NAME: u16 = 1 << 4;
/// [`SCAN`] bit: `A`–`Z` (case normalization, §5.3.2.1).
pub const S_UPPER: u16 = 1 << 5;
/// [`SCAN`] bit: `#` (allowed in `ifragment` by 3987bis, not by RFC 3986).
pub const S_HASH: u16 = 1 << 6;
/// [`SCAN`] bit: `-` (a host label may be an `xn--` A-label).
pub const S_HYPHEN: u16 = 1 << 7;

pub(crate) const fn build_scan() -> [u16; 256] {
    let t = build();
    let mut out = [0u16; 256];
    let mut b = 0;
    while b < 256 {
        let f = t[b];
        let mut s = 0;
        if f & PATH != 0 {
            s |= S_PATH;
        }
        if f & QUERY != 0 {
            s |= S_QUERY;
        }
        if f & FRAGMENT != 0 {
            s |= S_FRAGMENT;
        }
        if f & USERINFO != 0 {
            s |= S_USERINFO;
        }
        if f & REG_NAME != 0 {
            s |= S_REG_NAME;
        }
        match b as u8 {
            b'A'..=b'Z' => s |= S_UPPER,
            b'#' => s |= S_HASH,
            b'-' => s |= S_HYPHEN,
            _ => {}
        }
        out[b] = s;
        b += 1;
    }
    out
}

/// The table of the single-pass parser ([`crate::iri::parse`]): for each
/// byte, which component rules of 3987bis §2.2 admit it raw (`S_PATH` …
/// `S_REG_NAME`, the same sets as [`PATH_OK`] … [`REG_NAME_OK`]) and the
/// bytes the rungs want to know about (`S_UPPER`, `S_HASH`, `S_HYPHEN`).
/// 0 for `%`, bytes ≥ 0x80 and the ASCII characters no component admits.
pub static SCAN: [u16; 256] = build_scan();

/// True when byte `b` belongs to at least one of the classes in `mask`.
#[inline(always)]
pub fn is(b: u8, mask: u16) -> bool {
    TABLE[b as usize] & mask != 0
}

/// `unreserved` (RFC 3986 §2.3).
#[inline(always)]
pub fn is_unreserved(b: u8) -> bool {
    is(b, UNRESERVED)
}

/// `ucschar` (3987bis §2.2).
#[inline]
pub fn is_ucschar(c: char) -> bool {
    let c = c as u32;
    match c {
        0xA0..=0xD7FF | 0xF900..=0xFDCF | 0xFDF0..=0xFFEF => true,
        0xE1000..=0xEFFFD => true,
        0x10000..=0xDFFFD => c & 0xFFFF <= 0xFFFD,
        _ => false,
    }
}

/// `iprivate` (3987bis §2.2): allowed only in the query.
#[inline]
pub fn is_iprivate(c: char) -> bool {
    matches!(c as u32, 0xE000..=0xF8FF | 0xE0000..=0xE0FFF | 0xF0000..=0xFFFFD | 0x100000..=0x10FFFD)
}

/// Bidi formatting characters LRM, RLM, LRE, RLE, PDF, LRO, RLO: IRIs MUST
/// NOT contain them (3987bis §4.1).
#[inline]
pub fn is_bidi_format(c: char) -> bool {
    matches!(c, '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}')
}

/// Bidi isolates LRI, RLI, FSI, PDI (U+2066–2069, Unicode 6.3): formatting
/// characters like those of §4.1 that postdate the draft; kept encoded and
/// reported like them.
#[inline]
pub fn is_bidi_isolate(c: char) -> bool {
    matches!(c, '\u{2066}'..='\u{2069}')
}

/// Specials U+FFF0–FFFD (3987bis §7.3).
#[inline]
pub fn is_special(c: char) -> bool {
    matches!(c, '\u{FFF0}'..='\u{FFFD}')
}

/// Non-characters U+FDD0–FDEF and the last two code points of every plane
/// (3987bis §7.3).
#[inline]
pub fn is_noncharacter(c: char) -> bool {
    let c = c as u32;
    (0xFDD0..=0xFDEF).contains(&c) || c & 0xFFFE == 0xFFFE
}

/// Tags U+E0000–E0FFF (3987bis §7.3): never shown decoded.
#[inline]
pub fn is_tag(c: char) -> bool {
    matches!(c as u32, 0xE0000..=0xE0FFF)
}

/// Whether the URI→IRI conversion (3987bis §3.7 step 4) may show `c` as a
/// character in a component (`in_query` for the query): it must be allowed
/// there by §2.2 and not be one of the characters §4.1 and §7.3 keep encoded
/// (bidi formatting and isolates, controls, specials, non-characters, private use outside
/// the query, tags).
#[inline]
pub fn may_show_decoded(c: char, in_query: bool) -> bool {
    if is_bidi_format(c) || is_bidi_isolate(c) || is_tag(c) {
        return false;
    }
    is_ucschar(c) || (in_query && is_iprivate(c))
}

/// Value of an ASCII hex digit (one copy, in `pct`).
pub use crate::pct::hex_val;

/// Uppercase hex digits for percent-encoding (3987bis §3.3: "SHOULD use
/// uppercase letters").
pub const HEX_UPPER: &[u8; 16] = b"0123456789ABCDEF";

/// `%00%01…%FF`: the triplet of byte `b` is `PCT[3 * b..3 * b + 3]`.
const PCT: &str = {
    const BYTES: [u8; 768] = {
        let mut t = [0u8; 768];
        let mut b = 0;
        while b < 256 {
            t[3 * b] = b'%';
            t[3 * b + 1] = HEX_UPPER[b >> 4];
            t[3 * b + 2] = HEX_UPPER[b & 15];
            b += 1;
        }
        t
    };
    match std::str::from_utf8(&BYTES) {
        Ok(s) => s,
        Err(_) => panic!("ASCII"),
    }
};

/// Append `%HH` for byte `b` (one copy of three bytes from a table).
#[inline]
pub fn push_pct(out: &mut String, b: u8) {
    let i = 3 * b as usize;
    out.push_str(&PCT[i..i + 3]);
}

/// Append the UTF-8 percent-encoding of `c` (3987bis §3.3).
#[inline]
pub fn push_pct_char(out: &mut String, c: char) {
    let mut buf = [0u8; 4];
    for &b in c.encode_utf8(&mut buf).as_bytes() {
        push_pct(out, b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_has_its_uppercase_triplet() {
        for b in 0..=255u8 {
            let mut out = String::from("x");
            push_pct(&mut out, b);
            assert_eq!(out, format!("x%{b:02X}"));
        }
    }

    #[test]
    fn ascii_classes_follow_the_abnf() {
        for b in b"AZaz09-._~" {
            assert!(is_unreserved(*b));
        }
        for b in b"!$&'()*+,;=" {
            assert!(is(*b, SUB_DELIM) && !is_unreserved(*b));
        }
        for b in b" \"<>\\^`{|}%[]\x00\x7f" {
            assert_eq!(TABLE[*b as usize] & FRAGMENT, 0, "{}", *b as char);
        }
        assert!(is(b'#', FRAGMENT) && !is(b'#', QUERY));
        assert!(is(b'?', QUERY) && !is(b'?', PATH));
        assert!(is(b'@', PATH) && !is(b'@', USERINFO));
        assert!(is(b':', USERINFO) && !is(b':', REG_NAME));
    }

    #[test]
    fn scan_table_agrees_with_the_component_tables() {
        for b in 0..256 {
            let s = SCAN[b];
            assert_eq!(s & S_PATH != 0, PATH_OK[b] == 1, "{b}");
            assert_eq!(s & S_QUERY != 0, QUERY_OK[b] == 1, "{b}");
            assert_eq!(s & S_FRAGMENT != 0, FRAGMENT_OK[b] == 1, "{b}");
            assert_eq!(s & S_USERINFO != 0, USERINFO_OK[b] == 1, "{b}");
            assert_eq!(s & S_REG_NAME != 0, REG_NAME_OK[b] == 1, "{b}");
            assert_eq!(s & S_UPPER != 0, (b as u8).is_ascii_uppercase(), "{b}");
        }
        assert_eq!(SCAN[b'#' as usize], S_FRAGMENT | S_HASH);
        assert_eq!(SCAN[b'%' as usize], 0);
        assert_eq!(SCAN[0xC3], 0);
    }

    #[test]
    fn ucschar_ranges() {
        assert!(is_ucschar('\u{A0}'));
        assert!(!is_ucschar('\u{9F}'));
        assert!(is_ucschar('é'));
        assert!(!is_ucschar('\u{E000}'));
        assert!(is_iprivate('\u{E000}'));
        assert!(!is_ucschar('\u{FDD0}'));
        assert!(is_ucschar('\u{FDF0}'));
        assert!(!is_ucschar('\u{FFF0}'));
        assert!(is_ucschar('\u{10000}'));
        assert!(!is_ucschar('\u{1FFFE}'));
        assert!(is_ucschar('\u{2FFFD}'));
        assert!(!is_ucschar('\u{E0001}'));
        assert!(is_ucschar('\u{E1000}'));
        assert!(!is_ucschar('\u{F0000}'));
        assert!(is_iprivate('\u{10FFFD}'));
        // Bidi formatting characters are in the ucschar ranges; §4.1 forbids them.
        assert!(is_ucschar('\u{202E}') && is_bidi_format('\u{202E}'));
        assert!(!may_show_decoded('\u{202E}', false));
        assert!(may_show_decoded('\u{E000}', true) && !may_show_decoded('\u{E000}', false));
        assert!(!may_show_decoded('\u{E0041}', true));
    }
}
