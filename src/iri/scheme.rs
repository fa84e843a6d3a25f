//! The scheme a reference starts with (RFC 3986 §3.1, 3987bis §2.2):
//! `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"`, and the usual
//! `http://` / `https://` read as one 8-byte word.

use crate::chars;

/// The position of the `:` ending the scheme `b` starts with (RFC 3986
/// §3.1: `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"`), and whether the
/// scheme has an uppercase letter; `None` for a relative reference.
#[inline(always)]
pub(super) fn scheme(b: &[u8]) -> Option<(usize, bool)> {
    if !b.first()?.is_ascii_alphabetic() {
        return None;
    }
    let mut j = 1;
    let mut upper = b[0].is_ascii_uppercase();
    while j < b.len() && chars::is(b[j], chars::SCHEME) {
        upper |= b[j].is_ascii_uppercase();
        j += 1;
    }
    (b.get(j) == Some(&b':')).then_some((j, upper))
}

/// The end of the scheme if `b` starts with `http://` or `https://` (the
/// scheme lowercase, so no flag to set), from one 8-byte compare.
#[inline(always)]
pub(super) fn http_scheme(b: &[u8]) -> Option<usize> {
    let word = u64::from_le_bytes(b.get(..8)?.try_into().ok()?);
    if word == u64::from_le_bytes(*b"https://") {
        Some(5)
    } else if word & 0x00FF_FFFF_FFFF_FFFF == u64::from_le_bytes(*b"http://\0") {
        Some(4)
    } else {
        None
    }
}
