//! The parsed reference, [`IriRef`]: the borrowed text plus `u32` offsets
//! of the component boundaries of an `IRI-reference` (3987bis §2.2, RFC
//! 3986 §3), so it is `Copy` and slicing a component allocates nothing.

use super::flags::*;

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

/// An absent component's offset.
pub(crate) const NONE: u32 = u32::MAX;

/// A parsed IRI reference borrowing its text.
///
/// Offsets are byte positions in `s`; `NONE` marks an absent component.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IriRef<'a> {
    pub(super) s: &'a str,
    /// Position of the `:` ending the scheme.
    pub(super) scheme_end: u32,
    /// Start of the authority (after `//`).
    pub(super) auth_start: u32,
    /// Position of the `@` ending the userinfo.
    pub(super) userinfo_end: u32,
    /// End of the host (a `:` before the port, or the path start).
    pub(super) host_end: u32,
    pub(super) path_start: u32,
    /// Position of `?`.
    pub(super) query_start: u32,
    /// Position of `#`.
    pub(super) fragment_start: u32,
    pub(super) host_kind: Option<HostKind>,
    /// What the scan saw ([`flags`](super::flags)): lets the rungs skip
    /// clean components.
    pub(super) flags: u32,
}

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

    /// What the scan saw: bits of [`flags`](super::flags).
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
