//! The whole-line parser of the usual crawl line (3987bis §2.2, RFC 3986
//! §3): `scheme://`, a reg-name or IPv4 host with an optional port
//! (no userinfo, no IP literal), then path, query and fragment, with valid
//! `%` triplets and `ucschar` characters; at most 64 bytes with AVX2, 256
//! with AVX-512BW.
//!
//! The component-by-component scan of `super::scan::parse_with` pays a setup
//! and a few checks at the start and the end of every component's run; on
//! a 60-byte line that costs more than the bytes themselves. Here the line
//! is classified first into one bit mask per class of byte ([`Masks`]):
//! ASCII bytes no component admits raw (controls, space, `[`, …), `%`,
//! non-ASCII bytes, `/`, `?`, `#`, `:` or `@`, `.`, uppercase and `-` — 32
//! bytes per AVX2 register, or 64 per AVX-512 register with a masked load
//! that never reads past the line. The split is then a few
//! `trailing_zeros` on those masks (the authority ends at the first `/`,
//! `?` or `#` after `//`, the path at the first `?` or `#`, the query at
//! the first `#`), and each flag of [`super::flags`] is one AND with a
//! component's range of bits.
//!
//! The `%` triplets are classified with the rest (RFC 3986 §2.1: two hex
//! digits follow; a triplet that §5.3.2.1 or §5.3.2.3 rewrites makes its
//! component dirty): with AVX-512 the two bytes after each byte are loaded
//! beside it and valued by nibble lookups, so a line's triplets cost one
//! step whatever their number. Non-ASCII characters must be `ucschar`s
//! (§2.2) and no bidi formatting character (§4.1); only those of the few
//! lead bytes where a character may fail that are decoded one at a time
//! ([`Masks::high_slow`]). After the authority the URI form encodes them
//! (§3.3), so they make their component dirty; in the host they mark an
//! IDN for the host rungs.
//!
//! It decides nothing alone: whatever it does not take (a non-ASCII
//! character that is not a `ucschar`, userinfo, an IP literal,
//! a scheme without `//`, a longer line, a byte no component admits, a bad
//! `%`) it leaves to `super::scan::parse_with`, which parses it, or rejects
//! it, as before. What it takes, it must split exactly as that parser
//! does, which the tests check on the bundled data and on generated lines.
//! Its one addition is [`super::flags::PATH_DOT`] left unset when no `.`
//! follows a `/` in the path, so the rungs need not look for dot segments
//! (§5.3.2.4), and [`super::flags::PATH_DOT_SEEN`] set when one does.
//!
//! The masks are built in `crate::simd::masks` (AVX2 up to 64 bytes,
//! AVX-512BW up to 256); this file is only their reading.

use super::flags::*;
use super::scheme::{http_scheme, scheme};
use super::{HostKind, IriRef, NONE};
use crate::simd::bits::{range, Bits, Low};
use crate::simd::masks::Masks;
use crate::{chars, host};

/// The first set bit of `mask` at or after `from`, or `len` if none (no
/// bit of a mask is at `len` or above, and `len <= B::WIDTH`).
#[inline(always)]
fn next<B: Bits, L: Low>(low: L, mask: B, from: usize, len: usize) -> usize {
    ((mask & !low.below::<B>(from)).trailing_zeros() as usize).min(len)
}

/// Split `input` with its masks `m` when it is the usual line, else
/// `None`.
#[inline(always)]
pub(super) fn split<'a, B: Bits, L: Low>(
    input: &'a str,
    m: &Masks<B>,
    low: L,
) -> Option<IriRef<'a>> {
    let b = input.as_bytes();
    let len = b.len();
    if m.bad & !m.high != B::ZERO {
        return None;
    }
    let mut flags = 0;
    // Every '%' starts a triplet (`pct-encoded`, RFC 3986 §2.1); those
    // that percent-encoding normalization rewrites (§5.3.2.1 lowercase
    // hex, §5.3.2.3 an unreserved character) make their component dirty.
    // A hex digit is no delimiter, so a triplet never straddles two
    // components: its '%' stands for it.
    let mut dirty = B::ZERO;
    let mut hex_digits = B::ZERO;
    if m.pct != B::ZERO {
        if m.triplet_bad != B::ZERO {
            return None;
        }
        flags |= PCT;
        dirty = m.triplet_dirty;
        hex_digits = m.pct << 1 | m.pct << 2;
    }
    // scheme "://" (§2.2; RFC 3986 §3.1).
    let scheme_end = match http_scheme(b) {
        Some(j) => j,
        None => {
            let (colon, upper) = scheme(b)?;
            if b.get(colon..colon + 3) != Some(b"://") {
                return None;
            }
            if upper {
                flags |= SCHEME_UPPER;
            }
            colon
        }
    };
    // "//" iauthority: here ihost [ ":" port ], the host a reg-name or an
    // IPv4 address (§2.2).
    let auth_start = scheme_end + 3;
    let auth_end = next(low, m.slash | m.question | m.hash, auth_start, len);
    if m.high != B::ZERO {
        // Non-ASCII characters: each a `ucschar` and no bidi formatting
        // character (§2.2 `iunreserved`, §4.1; `iprivate` in the query is
        // left to the scan). The URI form encodes them in the path, query
        // and fragment (§3.3): their component is dirty; in the host they
        // are an IDN's (HOST_NON_ASCII below), and in userinfo or a port
        // the split gives up anyway. `input` is a `str`: each run of high
        // bytes is whole characters.
        // Most lines need no character looked at (see `high_slow`).
        if m.high_slow != B::ZERO {
            let mut rest = m.high;
            while rest != B::ZERO {
                let at = rest.trailing_zeros() as usize;
                let ch = input.get(at..)?.chars().next()?;
                if chars::is_bidi_format(ch) || !chars::is_ucschar(ch) {
                    return None;
                }
                rest = rest & !low.below::<B>(at + ch.len_utf8());
            }
        }
        flags |= NON_ASCII;
        dirty |= m.high;
    }
    let auth = range::<B, L>(low, auth_start, auth_end);
    let mut host_end = auth_end;
    if m.colon_at & auth != B::ZERO {
        // A port (`*DIGIT`, RFC 3986 §3.2.3) after the one ':', or else
        // userinfo: the full parser's.
        host_end = next(low, m.colon_at, auth_start, len);
        if b[host_end] != b':' || !b[host_end + 1..auth_end].iter().all(u8::is_ascii_digit) {
            return None;
        }
    }
    let host = range::<B, L>(low, auth_start, host_end);
    // The hex digits of a triplet are not the host's letters (the
    // component scan does not count them either).
    if m.upper & !hex_digits & host != B::ZERO {
        flags |= HOST_UPPER;
    }
    if m.pct & host != B::ZERO {
        flags |= HOST_PCT;
    }
    if m.hyphen & host != B::ZERO {
        flags |= HOST_HYPHEN;
    }
    if m.high & host != B::ZERO {
        flags |= HOST_NON_ASCII;
    }
    // Sliced only when it may be an IPv4 address: slicing a `str` is a
    // call, around which the vector registers of the masks are saved and
    // reloaded.
    let host_kind = if b.get(auth_start).is_some_and(u8::is_ascii_digit)
        && host::is_ipv4address(&input[auth_start..host_end])
    {
        HostKind::Ipv4
    } else {
        HostKind::RegName
    };
    // The path, up to '?' or '#'; a '.' right after a '/' may start a dot
    // segment (§5.3.2.4).
    let path_end = next(low, m.question | m.hash, auth_end, len);
    let path = range::<B, L>(low, auth_end, path_end);
    if (m.slash << 1) & m.dot & path != B::ZERO {
        flags |= PATH_DOT | PATH_DOT_SEEN;
    }
    if dirty & path != B::ZERO {
        flags |= PATH_DIRTY;
    }
    let mut query_start = NONE;
    let mut fragment_start = NONE;
    let mut i = path_end;
    if i < len && b[i] == b'?' {
        query_start = i as u32;
        let end = next(low, m.hash, i + 1, len);
        if dirty & range::<B, L>(low, i + 1, end) != B::ZERO {
            flags |= QUERY_DIRTY;
        }
        i = end;
    }
    if i < len {
        // '#': the fragment, dirty when it holds another '#' (the URI form
        // encodes it).
        fragment_start = i as u32;
        if (m.hash | dirty) & range::<B, L>(low, i + 1, len) != B::ZERO {
            flags |= FRAGMENT_DIRTY;
        }
    }
    Some(IriRef {
        s: input,
        scheme_end: scheme_end as u32,
        auth_start: auth_start as u32,
        userinfo_end: NONE,
        host_end: host_end as u32,
        path_start: auth_end as u32,
        query_start,
        fragment_start,
        host_kind: Some(host_kind),
        flags,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chars::{S_FRAGMENT, S_PATH, S_QUERY, S_REG_NAME};
    use crate::simd::bits::{Shifts, U256};

    /// less the delimiters a component ends at (and `:`/`@`, which the
    /// authority leaves to the full parser), is what each component admits.
    #[test]
    fn the_classes_nest_as_the_split_assumes() {
        for c in 0..=255u8 {
            let s = chars::SCAN[c as usize];
            let plain = s & S_FRAGMENT != 0;
            assert_eq!(s & S_QUERY != 0, plain && c != b'#', "{c:#x}");
            assert_eq!(s & S_PATH != 0, plain && !b"?#".contains(&c), "{c:#x}");
            assert_eq!(
                s & S_REG_NAME != 0,
                plain && !b"/?#:@".contains(&c),
                "{c:#x}"
            );
        }
    }

    #[test]
    fn ranges_and_next_bits() {
        assert_eq!(range::<u64, _>(Shifts, 0, 0), 0);
        assert_eq!(range::<u64, _>(Shifts, 0, 64), u64::MAX);
        assert_eq!(range::<u64, _>(Shifts, 3, 5), 0b11000);
        assert_eq!(range::<u64, _>(Shifts, 63, 64), 1 << 63);
        assert_eq!(range::<u64, _>(Shifts, 64, 64), 0);
        assert_eq!(range::<u128, _>(Shifts, 0, 128), u128::MAX);
        assert_eq!(range::<u128, _>(Shifts, 63, 65), 0b11 << 63);
        assert_eq!(range::<u128, _>(Shifts, 128, 128), 0);
        assert_eq!(next(Shifts, 0b1001_0000u64, 0, 9), 4);
        assert_eq!(next(Shifts, 0b1001_0000u64, 5, 9), 7);
        assert_eq!(next(Shifts, 0b1001_0000u64, 8, 9), 9);
        assert_eq!(next(Shifts, 0u64, 0, 9), 9);
        assert_eq!(next(Shifts, 1u64 << 63, 63, 64), 63);
        assert_eq!(next(Shifts, 1u64 << 63, 64, 64), 64);
        assert_eq!(next(Shifts, 1u128 << 100, 64, 128), 100);
        assert_eq!(next(Shifts, 1u128 << 127, 128, 128), 128);
        let bit = |i: usize| range::<U256, _>(Shifts, i, i + 1);
        assert_eq!(next(Shifts, bit(200), 0, 256), 200);
        assert_eq!(next(Shifts, bit(100) | bit(200), 101, 256), 200);
        assert_eq!(next(Shifts, bit(100), 101, 256), 256);
        assert_eq!(next(Shifts, bit(0), 0, 256), 0);
    }
}
