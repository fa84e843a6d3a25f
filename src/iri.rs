//! Parsing IRI references (draft-ietf-iri-3987bis §2.2, RFC 3986 §3, §4).
//!
//! One borrowed buffer plus `u32` offsets: [`IriRef`] is `Copy`, and slicing a
//! component allocates nothing.

use crate::error::Result;

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

/// A parsed IRI reference borrowing its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IriRef<'a> {
    s: &'a str,
}

impl<'a> IriRef<'a> {
    pub fn as_str(&self) -> &'a str {
        self.s
    }
    /// The scheme, without `:`; `None` for a relative reference.
    pub fn scheme(&self) -> Option<&'a str> {
        todo!("core")
    }
    /// The authority without `//`; `None` when there is no `//`.
    pub fn authority(&self) -> Option<&'a str> {
        todo!("core")
    }
    /// The userinfo without `@`.
    pub fn userinfo(&self) -> Option<&'a str> {
        todo!("core")
    }
    /// The host as written (IP literals with their brackets); `None` without authority.
    pub fn host(&self) -> Option<&'a str> {
        todo!("core")
    }
    pub fn host_kind(&self) -> Option<HostKind> {
        todo!("core")
    }
    /// The port without `:`; `Some("")` for `host:`.
    pub fn port(&self) -> Option<&'a str> {
        todo!("core")
    }
    pub fn path(&self) -> &'a str {
        todo!("core")
    }
    /// The query without `?`.
    pub fn query(&self) -> Option<&'a str> {
        todo!("core")
    }
    /// The fragment without `#`.
    pub fn fragment(&self) -> Option<&'a str> {
        todo!("core")
    }
    /// Everything before `#` (or the whole reference).
    pub fn without_fragment(&self) -> &'a str {
        todo!("core")
    }
    pub fn is_absolute(&self) -> bool {
        self.scheme().is_some()
    }
}

/// Parse an IRI reference (`IRI-reference`, §2.2).
pub fn parse(input: &str) -> Result<IriRef<'_>> {
    let _ = input;
    todo!("core")
}
