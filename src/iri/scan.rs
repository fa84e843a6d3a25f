//! The component scan: [`parse`] reads an `IRI-reference` (draft-ietf-iri-3987bis
//! §2.2, RFC 3986 §3, §4) in one pass into an [`IriRef`].
//!
//! The split follows the
//! "first-match-wins" reading of the ABNF (RFC 3986 §3, Appendix B); each
//! component is then checked against its rule:
//!
//! | component | rule (3987bis §2.2) |
//! |---|---|
//! | scheme | `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )` |
//! | userinfo | `*( iunreserved / pct-form / sub-delims / ":" )` |
//! | host | `IP-literal / IPv4address / ireg-name` |
//! | port | `*DIGIT` |
//! | path | `ipchar` and `/`; the first segment of a relative path has no `:` |
//! | query | `*( ipchar / iprivate / "/" / "?" )` |
//! | fragment | `*( ipchar / "/" / "?" / "#" )` |
//!
//! Beyond the ABNF, bidi formatting characters are rejected everywhere
//! (§4.1: "IRIs MUST NOT contain bidirectional formatting characters").

use super::flags::*;
#[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
use super::line;
use super::scheme::{http_scheme, scheme};
use super::{HostKind, IriRef, NONE};
use crate::chars::{self, hex_val};
use crate::error::{Component, Error, ErrorKind, Result};
use crate::host;
#[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
use crate::simd::detect::{Avx2, Avx512bw, Bmi2, Ssse3};
#[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
use crate::simd::masks::{self, MAX_LEN, MAX_LEN_256, MAX_LEN_WIDE};
use crate::simd::runs::{self, Runs};

/// Parse an IRI reference (`IRI-reference`, 3987bis §2.2).
///
/// One left-to-right pass: each component is validated by the loop that
/// finds its end (a byte its rule does not admit raw stops the loop and is
/// either the next delimiter or an error), 16 bytes at a time with SSSE3
/// (`crate::simd::runs`) or eight per branch through `chars::SCAN`, and the
/// loop records the flags the rungs need. No byte of the path, query or
/// fragment is looked at twice.
///
/// ```
/// let r = irinorm::parse("http://user@example.com:8080/a/b?q#f").unwrap();
/// assert_eq!(r.scheme(), Some("http"));
/// assert_eq!(r.userinfo(), Some("user"));
/// assert_eq!(r.host(), Some("example.com"));
/// assert_eq!(r.port(), Some("8080"));
/// assert_eq!(r.path(), "/a/b");
/// assert_eq!(r.query(), Some("q"));
/// assert_eq!(r.fragment(), Some("f"));
/// assert!(irinorm::parse("http://a/b c").is_err());
/// ```
pub fn parse(input: &str) -> Result<IriRef<'_>> {
    #[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
    {
        let f = crate::simd::features();
        if let Some(t) = f.ssse3() {
            // Every CPU with AVX2 or AVX-512 has BMI2 too; one without would
            // take the component scan.
            if let Some(bmi2) = f.bmi2() {
                if let Some(avx512) = f.avx512bw() {
                    // SAFETY: the CPU has AVX-512BW (and so SSSE3) and BMI2.
                    return unsafe { parse_avx512(input, t, bmi2, avx512) };
                }
                if let Some(avx2) = f.avx2() {
                    // SAFETY: the CPU has AVX2 (and so SSSE3) and BMI2.
                    return unsafe { parse_avx2(input, t, bmi2, avx2) };
                }
            }
            // SAFETY: the CPU has SSSE3.
            return unsafe { parse_ssse3(input, t) };
        }
    }
    parse_with(input, runs::Scalar)
}

/// [`parse_avx2`] with the masks from one 64-byte register, or two for
/// a line of up to 128 bytes, or four for up to 256.
///
/// # Safety
/// None beyond the tokens' (`avx512` says the CPU has AVX-512BW, `t` SSSE3,
/// `bmi2` BMI2): this function is `unsafe` only to be compiled for them.
#[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
#[target_feature(enable = "avx512f,avx512bw,bmi2")]
unsafe fn parse_avx512(input: &str, t: Ssse3, bmi2: Bmi2, avx512: Avx512bw) -> Result<IriRef<'_>> {
    let b = input.as_bytes();
    let split = if b.len() <= MAX_LEN {
        line::split(input, &masks::masks_avx512(avx512, b, bmi2), bmi2)
    } else if b.len() <= MAX_LEN_WIDE {
        line::split(input, &masks::masks_avx512_wide(avx512, b, bmi2), bmi2)
    } else if b.len() <= MAX_LEN_256 {
        line::split(input, &masks::masks_avx512_256(avx512, b, bmi2), bmi2)
    } else {
        None
    };
    if let Some(r) = split {
        return Ok(r);
    }
    // SAFETY: the CPU has SSSE3.
    unsafe { parse_ssse3(input, t) }
}

/// [`parse`] without its vector code: the component scan one table lookup
/// per byte, on any CPU. Same results as [`parse`] (components, host kind,
/// errors), which uses SSSE3, AVX2 or AVX-512 where the CPU has them: the
/// reference those paths are checked against (the unit tests and the
/// `parse` fuzz target compare the two).
#[cfg(fuzzing)]
pub fn parse_scalar(input: &str) -> Result<IriRef<'_>> {
    parse_with(input, runs::Scalar)
}

/// The usual crawl line split from its bit masks (`super::line`),
/// anything else by [`parse_ssse3`].
///
/// # Safety
/// None beyond the tokens' (`avx2` says the CPU has AVX2, `t` SSSE3,
/// `bmi2` BMI2): this function is `unsafe` only to be compiled for them.
#[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
#[target_feature(enable = "avx2,bmi2")]
pub(super) unsafe fn parse_avx2(
    input: &str,
    t: Ssse3,
    bmi2: Bmi2,
    avx2: Avx2,
) -> Result<IriRef<'_>> {
    let b = input.as_bytes();
    if b.len() <= MAX_LEN {
        let masks = masks::masks_avx2(avx2, b);
        if let Some(r) = line::split(input, &masks, bmi2) {
            return Ok(r);
        }
    }
    // SAFETY: the CPU has SSSE3.
    unsafe { parse_ssse3(input, t) }
}

/// [`parse_with`] compiled for SSSE3, its runs found 16 bytes at a time.
///
/// # Safety
/// None beyond the token's (`t` says the CPU has SSSE3): this function is
/// `unsafe` only to be compiled for it.
#[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
#[target_feature(enable = "ssse3")]
unsafe fn parse_ssse3(input: &str, t: Ssse3) -> Result<IriRef<'_>> {
    parse_with(input, t)
}

/// [`parse`], finding runs of plain bytes with `runs`.
#[inline(always)]
pub(super) fn parse_with<R: Runs>(input: &str, runs: R) -> Result<IriRef<'_>> {
    if input.len() >= NONE as usize {
        return Err(Error::new(
            0,
            ErrorKind::Other("reference longer than 4 GiB".into()),
        ));
    }
    let b = input.as_bytes();
    let len = b.len();
    let mut r = IriRef {
        s: input,
        scheme_end: NONE,
        auth_start: NONE,
        userinfo_end: NONE,
        host_end: NONE,
        path_start: 0,
        query_start: NONE,
        fragment_start: NONE,
        host_kind: None,
        flags: PATH_DOT,
    };

    // scheme ":" — a scheme is ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
    // followed by ':'; otherwise the reference is relative (RFC 3986 §4.2).
    let mut i = 0;
    if let Some(j) = http_scheme(b) {
        // The usual crawl line: `http:` or `https:` in lowercase, read as
        // one 8-byte word instead of byte by byte.
        r.scheme_end = j as u32;
        i = j + 1;
    } else if let Some((j, upper)) = scheme(b) {
        r.scheme_end = j as u32;
        if upper {
            r.flags |= SCHEME_UPPER;
        }
        i = j + 1;
    }

    // "//" iauthority
    if b[i..].starts_with(b"//") {
        let start = i + 2;
        if let Some(end) = plain_authority(input, start, &mut r, runs) {
            i = end;
        } else {
            i = authority(input, start, &mut r)?;
        }
    }

    // path, up to '?' or '#'
    r.path_start = i as u32;
    let (path_end, acc) = scan(input, i, len, &runs::PATH, runs)?;
    if path_end < len && !matches!(b[path_end], b'?' | b'#') {
        return Err(Error::new(
            path_end,
            char_error(input, path_end, Component::Path),
        ));
    }
    r.flags |= common(acc, PATH_DIRTY);
    if r.scheme_end == NONE && r.auth_start == NONE {
        // ipath-noscheme: the first segment may not contain ':' (RFC 3986 §4.2).
        if let Some(c) = b[i..path_end]
            .iter()
            .take_while(|&&c| c != b'/')
            .position(|&c| c == b':')
        {
            return Err(Error::new(i + c, ErrorKind::ColonInFirstSegment));
        }
    }
    i = path_end;

    if i < len && b[i] == b'?' {
        r.query_start = i as u32;
        let (end, acc) = scan(input, i + 1, len, &runs::QUERY, runs)?;
        if end < len && b[end] != b'#' {
            return Err(Error::new(end, char_error(input, end, Component::Query)));
        }
        r.flags |= common(acc, QUERY_DIRTY);
        i = end;
    }
    if i < len && b[i] == b'#' {
        r.fragment_start = i as u32;
        let (end, acc) = scan(input, i + 1, len, &runs::FRAGMENT, runs)?;
        if end < len {
            return Err(Error::new(end, char_error(input, end, Component::Fragment)));
        }
        r.flags |= common(acc, FRAGMENT_DIRTY);
        if acc & chars::S_HASH as u32 != 0 {
            r.flags |= FRAGMENT_DIRTY;
        }
    }
    Ok(r)
}

/// The common authority, `reg-name [ ":" *DIGIT ]` with no userinfo and no
/// IP literal, in one scan; `None` (having changed nothing) for anything
/// else, which [`authority`] then parses in full. Returns the authority's
/// end.
#[inline(always)]
fn plain_authority<R: Runs>(s: &str, start: usize, r: &mut IriRef<'_>, runs: R) -> Option<usize> {
    let b = s.as_bytes();
    let len = b.len();
    let (host_end, acc) = scan(s, start, len, &runs::REG_NAME, runs).ok()?;
    let mut end = host_end;
    if end < len && b[end] == b':' {
        end += 1;
        while end < len && b[end].is_ascii_digit() {
            end += 1;
        }
    }
    if end < len && !matches!(b[end], b'/' | b'?' | b'#') {
        return None;
    }
    r.auth_start = start as u32;
    set_reg_name(s, start, host_end, acc, r);
    r.host_end = host_end as u32;
    Some(end)
}

/// Any `iauthority` from `s[start..]` (after `//`); returns its end.
fn authority(s: &str, start: usize, r: &mut IriRef<'_>) -> Result<usize> {
    let b = s.as_bytes();
    let len = b.len();
    let mut end = start;
    // The end of the authority and its first '@' (the userinfo's end).
    let mut at = NONE as usize;
    while end < len && !matches!(b[end], b'/' | b'?' | b'#') {
        if b[end] == b'@' && at == NONE as usize {
            at = end;
        }
        end += 1;
    }
    r.auth_start = start as u32;
    parse_authority(s, start, at, end, r)?;
    Ok(end)
}

/// [`scan`] saw a `%`.
const A_PCT: u32 = 1 << 16;
/// [`scan`] saw a triplet with lowercase hex or an unreserved value, or a
/// non-ASCII character: percent-encoding normalization would rewrite it.
const A_DIRTY: u32 = 1 << 17;
/// [`scan`] saw a non-ASCII character.
const A_NON_ASCII: u32 = 1 << 18;

/// The flags every component shares, from a [`scan`] result; `dirty` is the
/// component's own "dirty" bit.
#[inline(always)]
fn common(acc: u32, dirty: u32) -> u32 {
    let mut f = 0;
    if acc & A_PCT != 0 {
        f |= PCT;
    }
    if acc & A_NON_ASCII != 0 {
        f |= NON_ASCII;
    }
    if acc & A_DIRTY != 0 {
        f |= dirty;
    }
    f
}

/// `iauthority = [ iuserinfo "@" ] ihost [ ":" port ]` over `s[start..end]`;
/// `at` is the position of the first `@` in it, `NONE` without one.
fn parse_authority(s: &str, start: usize, at: usize, end: usize, r: &mut IriRef<'_>) -> Result<()> {
    let b = s.as_bytes();
    let mut host_start = start;
    if at != NONE as usize {
        let (stop, acc) = scan(s, start, at, &runs::USERINFO, runs::Detect)?;
        if stop < at {
            return Err(Error::new(stop, char_error(s, stop, Component::Userinfo)));
        }
        r.flags |= common(acc, USERINFO_DIRTY);
        r.userinfo_end = at as u32;
        host_start = at + 1;
    }
    let host_end;
    if b.get(host_start) == Some(&b'[') {
        // IP-literal = "[" ( IPv6address / IPvFuture ) "]"
        let close = b[host_start..end]
            .iter()
            .position(|&c| c == b']')
            .map(|c| host_start + c)
            .ok_or_else(|| Error::new(host_start, ErrorKind::InvalidIpv6))?;
        let inner = &s[host_start + 1..close];
        if inner.starts_with(['v', 'V']) {
            if !host::is_ipv_future(inner) {
                return Err(Error::new(host_start, ErrorKind::InvalidIpvFuture));
            }
            r.host_kind = Some(HostKind::IpvFuture);
        } else if host::parse_ipv6(inner).is_some() {
            r.host_kind = Some(HostKind::Ipv6);
        } else {
            return Err(Error::new(host_start, ErrorKind::InvalidIpv6));
        }
        host_end = close + 1;
        if host_end < end && b[host_end] != b':' {
            return Err(Error::new(
                host_end,
                char_error(s, host_end, Component::Host),
            ));
        }
    } else {
        // The host ends at the first ':' (the port) or at the end.
        let (stop, acc) = scan(s, host_start, end, &runs::REG_NAME, runs::Detect)?;
        if stop < end && b[stop] != b':' {
            return Err(Error::new(stop, char_error(s, stop, Component::Host)));
        }
        host_end = stop;
        set_reg_name(s, host_start, host_end, acc, r);
    }
    r.host_end = host_end as u32;
    if host_end < end {
        // ":" port, port = *DIGIT (RFC 3986 §3.2.3)
        if let Some(p) = b[host_end + 1..end]
            .iter()
            .position(|c| !c.is_ascii_digit())
        {
            return Err(Error::new(host_end + 1 + p, ErrorKind::InvalidPort));
        }
    }
    Ok(())
}

/// The host `s[start..end]` is not an IP literal: record its kind and flags.
#[inline(always)]
fn set_reg_name(s: &str, start: usize, end: usize, acc: u32, r: &mut IriRef<'_>) {
    r.flags |= common(acc, 0);
    if acc & A_PCT != 0 {
        r.flags |= HOST_PCT;
    }
    if acc & A_NON_ASCII != 0 {
        r.flags |= HOST_NON_ASCII;
    }
    if acc & chars::S_UPPER as u32 != 0 {
        r.flags |= HOST_UPPER;
    }
    if acc & chars::S_HYPHEN as u32 != 0 {
        r.flags |= HOST_HYPHEN;
    }
    let host = &s[start..end];
    r.host_kind = Some(
        if host.as_bytes().first().is_some_and(u8::is_ascii_digit) && host::is_ipv4address(host) {
            HostKind::Ipv4
        } else {
            HostKind::RegName
        },
    );
}

/// Scan `s[start..end]` for as long as the bytes belong to a component:
/// runs of ASCII bytes it admits raw ([`Runs::run`], 16 at a time),
/// valid `pct-encoded` triplets, and non-ASCII characters that are
/// `ucschar` (or `iprivate` in the query) and not bidi formatting
/// characters. Returns where it stopped (`end`, or the first ASCII byte the
/// component does not admit: the caller's delimiter, or an error the caller
/// reports) and what it saw (for host and fragment the OR of the
/// [`chars::SCAN`] entries of plain bytes, plus `A_PCT`, `A_DIRTY`,
/// `A_NON_ASCII`). A bad `%` or non-ASCII character is an error here.
#[inline(always)]
fn scan<R: Runs>(
    s: &str,
    start: usize,
    end: usize,
    class: &runs::Class,
    runs: R,
) -> Result<(usize, u32)> {
    let b = s.as_bytes();
    let mut acc: u32 = 0;
    let mut i = start;
    loop {
        let (stop, seen) = runs.run(b, i, end, class);
        acc |= seen;
        i = stop;
        if i >= end {
            return Ok((end, acc));
        }
        let c = b[i];
        if c == b'%' {
            match (b.get(i + 1), b.get(i + 2)) {
                (Some(&h), Some(&l)) if i + 2 < end => match (hex_val(h), hex_val(l)) {
                    (Some(hv), Some(lv)) => {
                        acc |= A_PCT;
                        if h.is_ascii_lowercase()
                            || l.is_ascii_lowercase()
                            || chars::is_unreserved(hv * 16 + lv)
                        {
                            acc |= A_DIRTY;
                        }
                        i += 3;
                    }
                    _ => return Err(Error::new(i, ErrorKind::InvalidPercentEncoding)),
                },
                _ => return Err(Error::new(i, ErrorKind::InvalidPercentEncoding)),
            }
        } else if c < 0x80 {
            return Ok((i, acc));
        } else {
            i += non_ascii(s, i, class.ok())?;
            acc |= A_NON_ASCII | A_DIRTY;
        }
    }
}

/// Check the non-ASCII character at `s[i..]` in the component whose scan bit
/// is `ok`; returns its length in bytes.
#[inline(never)]
fn non_ascii(s: &str, i: usize, ok: u16) -> Result<usize> {
    let ch = s[i..].chars().next().unwrap_or('\u{FFFD}');
    if chars::is_bidi_format(ch) {
        return Err(Error::new(i, ErrorKind::BidiFormatting { ch }));
    }
    if !chars::is_ucschar(ch) {
        let component = component_of(ok);
        if chars::is_iprivate(ch) {
            if component != Component::Query {
                return Err(Error::new(
                    i,
                    ErrorKind::PrivateUseOutsideQuery { ch, component },
                ));
            }
        } else {
            return Err(Error::new(i, ErrorKind::CharNotAllowed { ch, component }));
        }
    }
    Ok(ch.len_utf8())
}

/// The component whose [`scan`] bit is `ok`.
fn component_of(ok: u16) -> Component {
    match ok {
        chars::S_QUERY => Component::Query,
        chars::S_FRAGMENT => Component::Fragment,
        chars::S_USERINFO => Component::Userinfo,
        chars::S_REG_NAME => Component::Host,
        _ => Component::Path,
    }
}

#[cold]
pub(super) fn char_error(s: &str, i: usize, component: Component) -> ErrorKind {
    let ch = s[i..].chars().next().unwrap_or('\u{FFFD}');
    ErrorKind::CharNotAllowed { ch, component }
}
