//! Parsing IRI references (draft-ietf-iri-3987bis §2.2, RFC 3986 §3, §4).
//!
//! [`parse`] reads an `IRI-reference` in one pass and returns an [`IriRef`]:
//! the borrowed text plus `u32` offsets of the component boundaries, so it is
//! `Copy` and slicing a component allocates nothing. The split follows the
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

use crate::chars::{self, hex_val};
use crate::error::{Component, Error, ErrorKind, Result};
use crate::host;
use crate::runs::{self, Runs};

/// What kind of `ihost` (§2.2) an authority has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HostKind {
    /// `ireg-name` (may be empty).
    RegName,
    /// `IPv4address`.
    Ipv4,
    /// `IP-literal` with an `IPv6address`.
    Ipv6,
    /// `IP-literal` with an `IPvFuture`.
    IpvFuture,
}

const NONE: u32 = u32::MAX;

/// A parsed IRI reference borrowing its text.
///
/// Offsets are byte positions in `s`; `NONE` marks an absent component.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IriRef<'a> {
    s: &'a str,
    /// Position of the `:` ending the scheme.
    scheme_end: u32,
    /// Start of the authority (after `//`).
    auth_start: u32,
    /// Position of the `@` ending the userinfo.
    userinfo_end: u32,
    /// End of the host (a `:` before the port, or the path start).
    host_end: u32,
    path_start: u32,
    /// Position of `?`.
    query_start: u32,
    /// Position of `#`.
    fragment_start: u32,
    host_kind: Option<HostKind>,
    /// What the scan saw ([`flags`]): lets the rungs skip clean components.
    flags: u32,
}

/// Bits of [`IriRef::flags`], recorded by the one scan of [`parse`] so the
/// ladder (3987bis §5.3.2, §5.3.3) revisits only the components that may
/// change. "Dirty" means percent-encoding normalization (§5.3.2.1 hex case,
/// §5.3.2.3 unreserved decoded, §3.3 non-ASCII encoded) would rewrite the
/// component.
pub(crate) mod flags {
    /// A non-ASCII character somewhere.
    pub const NON_ASCII: u32 = 1 << 0;
    /// A `%` somewhere.
    pub const PCT: u32 = 1 << 1;
    /// An uppercase letter in the scheme.
    pub const SCHEME_UPPER: u32 = 1 << 2;
    /// The userinfo is dirty.
    pub const USERINFO_DIRTY: u32 = 1 << 3;
    /// An uppercase ASCII letter in the host.
    pub const HOST_UPPER: u32 = 1 << 4;
    /// A `%` in the host.
    pub const HOST_PCT: u32 = 1 << 5;
    /// A non-ASCII character in the host.
    pub const HOST_NON_ASCII: u32 = 1 << 6;
    /// A `-` in the host (it may hold an `xn--` label).
    pub const HOST_HYPHEN: u32 = 1 << 7;
    /// The path is dirty.
    pub const PATH_DIRTY: u32 = 1 << 8;
    /// The path may hold a dot segment (§5.3.2.4): a `.` follows a `/` in
    /// it. Unset only when the scan knows it does not; the component scan
    /// does not look, and always sets it.
    pub const PATH_DOT: u32 = 1 << 9;
    /// [`PATH_DOT`] found rather than assumed: the whole-line split saw a
    /// `.` after a `/` in the path. Such a path almost always holds a dot
    /// segment (99 % of them on the generated corpus), so the canonical
    /// check leaves the search for one to the rewrite.
    pub const PATH_DOT_SEEN: u32 = 1 << 10;
    /// The query is dirty.
    pub const QUERY_DIRTY: u32 = 1 << 11;
    /// The fragment is dirty, or holds a `#` (which the URI form encodes).
    pub const FRAGMENT_DIRTY: u32 = 1 << 12;
}
use flags::*;

impl<'a> IriRef<'a> {
    /// The whole reference as parsed.
    #[inline]
    pub fn as_str(&self) -> &'a str {
        self.s
    }

    /// The scheme, without `:`; `None` for a relative reference.
    #[inline]
    pub fn scheme(&self) -> Option<&'a str> {
        (self.scheme_end != NONE).then(|| &self.s[..self.scheme_end as usize])
    }

    /// The authority without `//`; `None` when there is no `//`.
    #[inline]
    pub fn authority(&self) -> Option<&'a str> {
        (self.auth_start != NONE)
            .then(|| &self.s[self.auth_start as usize..self.path_start as usize])
    }

    /// The userinfo without `@`.
    #[inline]
    pub fn userinfo(&self) -> Option<&'a str> {
        (self.userinfo_end != NONE)
            .then(|| &self.s[self.auth_start as usize..self.userinfo_end as usize])
    }

    fn host_start(&self) -> usize {
        if self.userinfo_end != NONE {
            self.userinfo_end as usize + 1
        } else {
            self.auth_start as usize
        }
    }

    /// The host as written (IP literals with their brackets); `None` without
    /// an authority.
    #[inline]
    pub fn host(&self) -> Option<&'a str> {
        (self.auth_start != NONE).then(|| &self.s[self.host_start()..self.host_end as usize])
    }

    /// The kind of host; `None` without an authority.
    #[inline]
    pub fn host_kind(&self) -> Option<HostKind> {
        self.host_kind
    }

    /// The port without `:`; `Some("")` for `host:`.
    #[inline]
    pub fn port(&self) -> Option<&'a str> {
        (self.auth_start != NONE && self.host_end < self.path_start)
            .then(|| &self.s[self.host_end as usize + 1..self.path_start as usize])
    }

    fn path_end(&self) -> usize {
        if self.query_start != NONE {
            self.query_start as usize
        } else if self.fragment_start != NONE {
            self.fragment_start as usize
        } else {
            self.s.len()
        }
    }

    /// The path (possibly empty).
    #[inline]
    pub fn path(&self) -> &'a str {
        &self.s[self.path_start as usize..self.path_end()]
    }

    fn query_end(&self) -> usize {
        if self.fragment_start != NONE {
            self.fragment_start as usize
        } else {
            self.s.len()
        }
    }

    /// The query without `?`.
    #[inline]
    pub fn query(&self) -> Option<&'a str> {
        (self.query_start != NONE).then(|| &self.s[self.query_start as usize + 1..self.query_end()])
    }

    /// The fragment without `#`.
    #[inline]
    pub fn fragment(&self) -> Option<&'a str> {
        (self.fragment_start != NONE).then(|| &self.s[self.fragment_start as usize + 1..])
    }

    /// The seven components, in order: scheme, userinfo, host, port, path
    /// (always there, maybe empty), query, fragment.
    ///
    /// ```
    /// let r = irinorm::parse("http://u@h:1/p?q#f").unwrap();
    /// assert_eq!(
    ///     r.components(),
    ///     [Some("http"), Some("u"), Some("h"), Some("1"), Some("/p"), Some("q"), Some("f")]
    /// );
    /// ```
    pub fn components(&self) -> [Option<&'a str>; 7] {
        [
            self.scheme(),
            self.userinfo(),
            self.host(),
            self.port(),
            Some(self.path()),
            self.query(),
            self.fragment(),
        ]
    }

    /// Everything before `#` (or the whole reference).
    #[inline]
    pub fn without_fragment(&self) -> &'a str {
        &self.s[..self.query_end()]
    }

    /// An absolute reference has a scheme (RFC 3986 §4.3).
    #[inline]
    pub fn is_absolute(&self) -> bool {
        self.scheme_end != NONE
    }

    /// The reference is pure ASCII.
    #[inline]
    pub fn is_ascii(&self) -> bool {
        self.flags & NON_ASCII == 0
    }

    /// The reference contains a `%` (a percent-encoding).
    #[inline]
    pub fn has_pct(&self) -> bool {
        self.flags & PCT != 0
    }

    /// What the scan saw: bits of [`flags`].
    #[inline]
    pub(crate) fn flags(&self) -> u32 {
        self.flags
    }

    /// The same reference with every flag set ("look at everything"), for
    /// tests that compare the flag-guided fast path with the full one.
    #[cfg(test)]
    pub(crate) fn with_all_flags(mut self) -> Self {
        self.flags = u32::MAX;
        self
    }

    /// Byte range (start, end) of the path, for code that rewrites a
    /// reference piece by piece.
    pub(crate) fn path_range(&self) -> (usize, usize) {
        (self.path_start as usize, self.path_end())
    }

    /// Byte range (start, end) of the host; `None` without an authority.
    pub(crate) fn host_range(&self) -> Option<(usize, usize)> {
        (self.auth_start != NONE).then(|| (self.host_start(), self.host_end as usize))
    }
}

/// Parse an IRI reference (`IRI-reference`, 3987bis §2.2).
///
/// One left-to-right pass: each component is validated by the loop that
/// finds its end (a byte its rule does not admit raw stops the loop and is
/// either the next delimiter or an error), 16 bytes at a time with SSSE3
/// (`crate::runs`) or eight per branch through `chars::SCAN`, and the
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
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = runs::Ssse3::detect() {
        // Every CPU with AVX2 or AVX-512 has BMI2 too; one without would
        // take the component scan.
        if let Some(bmi2) = wide::x86::Bmi2::detect() {
            if wide::x86::has_avx512bw() {
                // SAFETY: the CPU has AVX-512BW (and so SSSE3) and BMI2.
                return unsafe { parse_avx512(input, t, bmi2) };
            }
            if wide::x86::has_avx2() {
                // SAFETY: the CPU has AVX2 (and so SSSE3) and BMI2.
                return unsafe { parse_avx2(input, t, bmi2) };
            }
        }
        // SAFETY: the CPU has SSSE3.
        return unsafe { parse_ssse3(input, t) };
    }
    parse_with(input, runs::Scalar)
}

/// [`parse_avx2`] with the masks from one 64-byte register, or two for
/// a line of up to 128 bytes, or four for up to 256.
///
/// # Safety
/// The CPU must have AVX-512BW (`t` says it has SSSE3, which it implies)
/// and BMI2 (`bmi2` says so).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,bmi2")]
unsafe fn parse_avx512(input: &str, t: runs::Ssse3, bmi2: wide::x86::Bmi2) -> Result<IriRef<'_>> {
    let b = input.as_bytes();
    // SAFETY (all): the CPU has AVX-512BW (this function's contract).
    let split = if b.len() <= wide::MAX_LEN {
        wide::split(input, &unsafe { wide::x86::masks_avx512(b, bmi2) }, bmi2)
    } else if b.len() <= wide::MAX_LEN_WIDE {
        wide::split(
            input,
            &unsafe { wide::x86::masks_avx512_wide(b, bmi2) },
            bmi2,
        )
    } else if b.len() <= wide::MAX_LEN_256 {
        wide::split(
            input,
            &unsafe { wide::x86::masks_avx512_256(b, bmi2) },
            bmi2,
        )
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
/// errors), which uses SSSE3, AVX2 or AVX-512 where the CPU has them; kept
/// public as the reference those paths are checked against (the `parse`
/// fuzz target compares the two).
///
/// ```ignore
/// let s = "http://example.com:8080/a/./b?q=%41#f";
/// let (fast, scalar) = (irinorm::parse(s).unwrap(), irinorm::iri::parse_scalar(s).unwrap());
/// assert_eq!((fast.host(), fast.port(), fast.path()), (scalar.host(), scalar.port(), scalar.path()));
/// ```
pub fn parse_scalar(input: &str) -> Result<IriRef<'_>> {
    parse_with(input, runs::Scalar)
}

/// The usual crawl line split from its bit masks ([`wide`]), anything
/// else by [`parse_ssse3`].
///
/// # Safety
/// The CPU must have AVX2 (`t` says it has SSSE3, which AVX2 implies)
/// and BMI2 (`bmi2` says so).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi2")]
unsafe fn parse_avx2(input: &str, t: runs::Ssse3, bmi2: wide::x86::Bmi2) -> Result<IriRef<'_>> {
    let b = input.as_bytes();
    if b.len() <= wide::MAX_LEN {
        // SAFETY: the CPU has AVX2 (this function's contract).
        let masks = unsafe { wide::x86::masks(b) };
        if let Some(r) = wide::split(input, &masks, bmi2) {
            return Ok(r);
        }
    }
    // SAFETY: the CPU has SSSE3.
    unsafe { parse_ssse3(input, t) }
}

/// [`parse_with`] compiled for SSSE3, its runs found 16 bytes at a time.
///
/// # Safety
/// The CPU must have SSSE3 (`t` says so).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "ssse3")]
unsafe fn parse_ssse3(input: &str, t: runs::Ssse3) -> Result<IriRef<'_>> {
    parse_with(input, t)
}

/// [`parse`], finding runs of plain bytes with `runs`.
#[inline(always)]
fn parse_with<R: Runs>(input: &str, runs: R) -> Result<IriRef<'_>> {
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

/// The position of the `:` ending the scheme `b` starts with (RFC 3986
/// §3.1: `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"`), and whether the
/// scheme has an uppercase letter; `None` for a relative reference.
#[inline(always)]
fn scheme(b: &[u8]) -> Option<(usize, bool)> {
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
fn http_scheme(b: &[u8]) -> Option<usize> {
    let word = u64::from_le_bytes(b.get(..8)?.try_into().ok()?);
    if word == u64::from_le_bytes(*b"https://") {
        Some(5)
    } else if word & 0x00FF_FFFF_FFFF_FFFF == u64::from_le_bytes(*b"http://\0") {
        Some(4)
    } else {
        None
    }
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
fn char_error(s: &str, i: usize, component: Component) -> ErrorKind {
    let ch = s[i..].chars().next().unwrap_or('\u{FFFD}');
    ErrorKind::CharNotAllowed { ch, component }
}

#[path = "iri_wide.rs"]
mod wide;
#[cfg(target_arch = "x86_64")]
pub(crate) use wide::x86::Bmi2;
pub(crate) use wide::{range, Bits, Low, U256};

#[cfg(test)]
#[path = "iri_oracle.rs"]
mod oracle;

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(s: &str) -> [Option<&str>; 7] {
        parse(s).unwrap().components()
    }

    #[test]
    fn rfc3986_examples_split() {
        // RFC 3986 §1.1.2
        assert_eq!(
            parts("ldap://[2001:db8::7]/c=GB?objectClass?one"),
            [
                Some("ldap"),
                None,
                Some("[2001:db8::7]"),
                None,
                Some("/c=GB"),
                Some("objectClass?one"),
                None
            ]
        );
        assert_eq!(
            parts("mailto:John.Doe@example.com"),
            [
                Some("mailto"),
                None,
                None,
                None,
                Some("John.Doe@example.com"),
                None,
                None
            ]
        );
        assert_eq!(
            parts("telnet://192.0.2.16:80/"),
            [
                Some("telnet"),
                None,
                Some("192.0.2.16"),
                Some("80"),
                Some("/"),
                None,
                None
            ]
        );
        assert_eq!(
            parse("telnet://192.0.2.16:80/").unwrap().host_kind(),
            Some(HostKind::Ipv4)
        );
        assert_eq!(
            parts("urn:oasis:names:specification:docbook:dtd:xml:4.1.2")[4],
            Some("oasis:names:specification:docbook:dtd:xml:4.1.2")
        );
        assert_eq!(parts("//h:")[3], Some(""));
        assert_eq!(
            parts("?q#f#g"),
            [None, None, None, None, Some(""), Some("q"), Some("f#g")]
        );
        assert_eq!(parts("")[4], Some(""));
    }

    #[test]
    fn iri_characters_where_the_abnf_allows_them() {
        // 3987bis §2.2: ucschar everywhere, iprivate only in the query.
        assert!(parse("http://résumé.example.org/Dürst?q=ü#ü").is_ok());
        assert!(parse("http://example.com/?\u{E000}").is_ok());
        let e = parse("http://example.com/\u{E000}").unwrap_err();
        assert!(
            matches!(e.kind, ErrorKind::PrivateUseOutsideQuery { .. }),
            "{e}"
        );
        assert!(parse("http://example.com/#\u{E000}").is_err());
        assert!(parse("http://example.com/\u{FDD0}").is_err());
        // §4.1
        let e = parse("http://example.com/\u{202E}").unwrap_err();
        assert_eq!(
            e.to_string(),
            "bidi formatting character U+202E not allowed at byte 19"
        );
        // No zone identifiers.
        assert!(parse("http://[::1%25eth0]/").is_err());
    }

    #[test]
    fn errors_name_the_place() {
        assert_eq!(
            parse("http://a/b c").unwrap_err().to_string(),
            "space not allowed in path at byte 10"
        );
        assert_eq!(
            parse("http://a/%zz").unwrap_err().to_string(),
            "invalid percent-encoding at byte 9"
        );
        assert_eq!(
            parse("http://a/%4").unwrap_err().kind,
            ErrorKind::InvalidPercentEncoding
        );
        assert_eq!(
            parse("http://a?%4#").unwrap_err().kind,
            ErrorKind::InvalidPercentEncoding
        );
        assert_eq!(
            parse("http://[1::2::3]/").unwrap_err().to_string(),
            "invalid IPv6 literal at byte 7"
        );
        assert_eq!(
            parse("http://h:8x/").unwrap_err().kind,
            ErrorKind::InvalidPort
        );
        assert_eq!(parse("a:b/c:d").unwrap().scheme(), Some("a"));
        assert_eq!(
            parse("1a:b").unwrap_err().kind,
            ErrorKind::ColonInFirstSegment
        );
        assert!(parse("http://a@b@c/").is_err());
        assert!(parse("http://[::1]x/").is_err());
        assert!(parse("http://a/<").is_err());
        assert!(parse("http://a/\\").is_err());
        assert!(parse("http://a/\u{85}").is_err());
    }

    #[test]
    fn never_panics_on_odd_input() {
        for s in [
            "%", "%%", "a:%", "//[", "//[]", "//@", "//:", "#%", "?%", "//[v]", "//[v1.]",
            "\u{e9}:",
        ] {
            let _ = parse(s);
        }
    }

    /// Everything a caller can see of a parse: the split, the host kind, the
    /// flags the old parser also had, or the error message.
    fn observe(r: Result<IriRef<'_>>) -> String {
        match r {
            Ok(r) => format!(
                "{:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {} {}",
                r.scheme(),
                r.authority(),
                r.userinfo(),
                r.host(),
                r.port(),
                r.path(),
                r.query(),
                r.fragment(),
                r.host_kind(),
                r.is_ascii(),
                r.has_pct()
            ),
            Err(e) => format!("error {e} {:?}", e.kind),
        }
    }

    /// [`observe`] of [`parse`], whose result (offsets, flags, error) must
    /// be the same with the scalar runs as with the vector ones this CPU
    /// uses.
    fn parsed(s: &str) -> String {
        let best = parse(s);
        #[cfg(target_arch = "x86_64")]
        if let (true, Some(t), Some(bmi2)) = (
            wide::x86::has_avx2(),
            runs::Ssse3::detect(),
            wide::x86::Bmi2::detect(),
        ) {
            // The AVX2 masks, also on a CPU whose `parse` takes AVX-512's
            // (which take longer lines, so may know of no dot segment).
            // SAFETY: the CPU has AVX2 and BMI2.
            let avx2 = unsafe { parse_avx2(s, t, bmi2) };
            assert_eq!(dotless(&avx2), dotless(&best), "{s:?}");
        }
        let scalar = parse_with(s, runs::Scalar);
        assert_eq!(dotless(&best), dotless(&scalar), "{s:?}");
        if let (Ok(r), Ok(slow)) = (&best, &scalar) {
            // The whole-line parser may know there is no dot segment; the
            // component scan never claims to.
            assert!(slow.flags() & PATH_DOT != 0, "{s:?}");
            if r.flags() & PATH_DOT == 0 {
                assert!(!crate::resolve::has_dot_segments(r.path()), "{s:?}");
            }
        }
        observe(best)
    }

    /// `r` without [`PATH_DOT`] and [`PATH_DOT_SEEN`], the flags the two
    /// parsers may differ in.
    fn without_dot(mut r: IriRef<'_>) -> IriRef<'_> {
        r.flags &= !(PATH_DOT | PATH_DOT_SEEN);
        r
    }

    /// A parse result without [`PATH_DOT`], as text to compare.
    fn dotless(r: &Result<IriRef<'_>>) -> String {
        format!("{:?}", r.as_ref().map(|&r| without_dot(r)))
    }

    #[test]
    fn same_as_the_old_parser_on_the_bundled_data() {
        let data = concat!(env!("CARGO_MANIFEST_DIR"), "/data/");
        let mut n = 0;
        for f in [
            "kasztp.txt",
            "node_files.txt",
            "isaacs_files.txt",
            "relative_urls_cc_10k.csv",
        ] {
            let text =
                String::from_utf8_lossy(&std::fs::read(format!("{data}{f}")).unwrap()).into_owned();
            for line in text.lines() {
                for s in std::iter::once(line).chain(line.split(',')) {
                    assert_eq!(parsed(s), observe(oracle::parse(s)), "{s}");
                    n += 1;
                }
            }
        }
        assert!(n > 100_000);
    }

    /// The whole-line split of `s` with scalar-built masks of the AVX-512
    /// width that holds it (`u128`, or [`wide::U256`] past 128 bytes);
    /// `None` for a line longer than any.
    fn split_wide(s: &str) -> Option<Option<IriRef<'_>>> {
        let b = s.as_bytes();
        if b.len() <= wide::MAX_LEN_WIDE {
            Some(wide::split(s, &wide::masks_scalar::<u128>(b), wide::Shifts))
        } else if b.len() <= wide::MAX_LEN_256 {
            Some(wide::split(
                s,
                &wide::masks_scalar::<wide::U256>(b),
                wide::Shifts,
            ))
        } else {
            None
        }
    }

    /// A line of the shape the whole-line parser takes: its split (with
    /// the masks built a byte at a time, so on any CPU, in every width
    /// that holds the line) is the component scan's, it does not give up
    /// on a line of up to 256 bytes, it marks every path with a dot
    /// segment, and [`parse`] agrees with the old parser.
    fn whole_line_split(s: &str) -> std::result::Result<(), proptest::test_runner::TestCaseError> {
        proptest::prop_assert_eq!(parsed(s), observe(oracle::parse(s)), "{}", s);
        let scan = parse_with(s, runs::Scalar).map(without_dot).ok();
        if s.len() <= wide::MAX_LEN {
            let r = wide::split(s, &wide::masks_scalar::<u64>(s.as_bytes()), wide::Shifts);
            proptest::prop_assert_eq!(r.map(without_dot), scan, "{}", s);
        }
        let Some(r) = split_wide(s) else {
            return Ok(());
        };
        proptest::prop_assert!(r.is_some(), "{}", s);
        proptest::prop_assert_eq!(r.map(without_dot), scan, "{}", s);
        let dots = crate::resolve::has_dot_segments(r.unwrap().path());
        proptest::prop_assert!(r.unwrap().flags() & PATH_DOT != 0 || !dots, "{}", s);
        Ok(())
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(20_000))]
        #[test]
        fn same_as_the_old_parser(
            s in "([a-zA-Z][a-zA-Z0-9+.-]{0,3}:)?(//([a-zA-Z0-9:%@.\\[\\]v_~!-]|é|\u{E000}){0,12})?([a-zA-Z0-9/?#:%.@ \\[\\]<é\u{E000}\u{202E}\u{FDD0}-]|%[0-9a-fA-F]{2}|%[0-9a-zA-Z]?){0,16}"
        ) {
            proptest::prop_assert_eq!(parsed(&s), observe(oracle::parse(&s)), "{}", s);
        }

        /// The 8-byte `http://` / `https://` test, at and around its edges
        /// (7 and 8 bytes, `http:/`, uppercase, a longer scheme).
        #[test]
        fn same_as_the_old_parser_after_http(
            s in "(https?|HTTPS?|hTtp|httpx|http:/)(:|://|:/)[a-z/.:@?#%]{0,12}"
        ) {
            proptest::prop_assert_eq!(parsed(&s), observe(oracle::parse(&s)), "{}", s);
            if let (Ok(r), Some(c)) = (parse(&s), s.find(':')) {
                let upper = s[..c].bytes().any(|b| b.is_ascii_uppercase());
                proptest::prop_assert_eq!(r.flags() & SCHEME_UPPER != 0, upper, "{}", s);
            }
        }

        /// Lines of the shape the whole-line parser takes, up to and past
        /// its 64- and 128-byte limits ([`whole_line_split`]).
        #[test]
        fn whole_line_split_is_the_component_scan(
            s in "(https?|file|HTTP|sVn\\+ssh)://([a-zA-Z0-9.-]|%[0-9a-fA-F]{2}){0,12}(:[0-9]{0,5})?(/([a-zA-Z0-9._~!$&'()*+,;=:@-]|%[0-9a-fA-F]{2}){0,6}){0,8}(\\?([a-z0-9=&/?:@.]|%[0-9a-fA-F]{2}){0,20})?(#([a-z0-9#/?.]|%[0-9a-fA-F]{2}){0,6})?"
        ) {
            whole_line_split(&s)?;
        }

        /// The same around 256 bytes, the limit of four registers.
        #[test]
        fn whole_line_split_of_long_lines_is_the_component_scan(
            s in "(https?|HTTP)://([a-zA-Z0-9.-]|%[0-9a-fA-F]{2}){1,12}(:[0-9]{0,5})?(/([a-zA-Z0-9._~!$&'()*+,;=:@-]|%[0-9a-fA-F]{2}){0,10}){6,16}(\\?([a-z0-9=&/?:@.]|%[0-9a-fA-F]{2}){0,60})?(#([a-z0-9#/?.]|%[0-9a-fA-F]{2}){0,10})?"
        ) {
            whole_line_split(&s)?;
        }

        /// Non-ASCII characters in every component, `ucschar` or not
        /// (C1 control, bidi formatting, private use, non-characters, the
        /// bounds of the `ucschar` ranges, 2-, 3- and 4-byte UTF-8): where
        /// the whole-line split takes a line it splits it as the component
        /// scan does, and it takes every line whose only non-ASCII
        /// characters are `ucschar`s (an IDN host's too).
        #[test]
        fn whole_line_split_of_non_ascii_is_the_component_scan(
            s in "(https?|HTTP)://([a-zA-Z0-9.-]|é|Ü|ß|迪|😀|\u{0085}|\u{202E}){0,8}(:[0-9]{0,3})?(/([a-zA-Z0-9._~-]|%[0-9a-fA-F]{2}|é|ß|迪|М|😀|\u{00A0}|\u{0085}|\u{200E}|\u{202E}|\u{D7FF}|\u{E000}|\u{F900}|\u{FDD0}|\u{FFEF}|\u{FFFE}|\u{1FFFD}|\u{1FFFE}|\u{E0001}|\u{E1000}|\u{10FFFD}){0,6}){0,5}(\\?([a-z0-9=&]|é|迪|\u{E000}|\u{202A}){0,10})?(#([a-z0-9/]|ü|😀|\u{FDEF}){0,6})?"
        ) {
            proptest::prop_assert_eq!(parsed(&s), observe(oracle::parse(&s)), "{}", s);
            let scan = parse_with(&s, runs::Scalar).map(without_dot).ok();
            let takes = s.chars().all(|c| {
                c.is_ascii() || (chars::is_ucschar(c) && !chars::is_bidi_format(c))
            }) && scan.is_some();
            if s.len() <= wide::MAX_LEN {
                let r = wide::split(&s, &wide::masks_scalar::<u64>(s.as_bytes()), wide::Shifts);
                if r.is_some() || takes {
                    proptest::prop_assert_eq!(r.map(without_dot), scan, "{}", s);
                }
            }
            let Some(r) = split_wide(&s) else {
                return Ok(());
            };
            if r.is_some() || takes {
                proptest::prop_assert_eq!(r.map(without_dot), scan, "{}", s);
            }
            if let Some(r) = r {
                proptest::prop_assert_eq!(r.flags() & NON_ASCII != 0, !s.is_ascii(), "{}", s);
            }
        }

        #[test]
        fn same_as_the_old_parser_any_string(s in "\\PC{0,24}") {
            proptest::prop_assert_eq!(parsed(&s), observe(oracle::parse(&s)), "{}", s);
        }
    }
}
