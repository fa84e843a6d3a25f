//! The rewrite of the usual crawl line, specialised: an `http`, `https`
//! or `file` URI with a registered-name host (draft-ietf-iri-3987bis §5.3.2 and
//! §5.3.3, RFC 3986 §6.2.2–§6.2.3, the default ports of RFC 9110 §4.2).
//!
//! [`super::canonical_rewrite`] walks any reference through a lazily
//! copied output, asking at each component what the scheme's rules are and
//! whether anything changed yet. A line that reaches a rewrite almost
//! always changes, and almost always is `http(s)://host/…`: here the key
//! is written at once into one buffer, the scheme and the host lowercased
//! together in one pass, and only the components the scan's [`flags`] name
//! are visited again. Every other shape (userinfo, an IP literal, another
//! scheme, NFC) is left to the general rewrite; a differential test holds
//! the two to the same keys and errors.
//!
//! On a CPU with AVX-512 VBMI2, a line of up to 256 bytes with an ASCII
//! host is not walked at all: [`compact`] writes its key as one masked
//! compaction of its bytes ([`write_compact`]), and the component walk
//! here ([`write_scalar`]) takes what that leaves; another differential
//! test holds those two to the same keys.

use std::borrow::Cow;

use super::syntax::{norm_pct_into, norm_reg_name, normalized_dot_segment, push_lower, spare};
#[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
use super::{compact, syntax::recycle};
use crate::error::{Error, ErrorKind, Result};
use crate::iri::{flags, HostKind, IriRef};
use crate::resolve::{push_without_dot_segments, remove_dot_segments_from};
use crate::scheme::{FILE, HTTP, HTTPS};

/// The lowercase scheme of `s` (of `scheme_len` bytes) when it is `http`,
/// `https` or `file` in any case, and whether it names a DNS host.
#[inline]
fn known_scheme(s: &[u8], scheme_len: usize) -> Option<(&'static str, bool)> {
    // `| 0x20` lowercases a letter, and makes the letters of these schemes
    // of no other byte than their uppercase.
    let word = u32::from_le_bytes(s.get(..4)?.try_into().ok()?) | 0x2020_2020;
    match (word.to_le_bytes(), scheme_len) {
        (w, 4) if w == *b"http" => Some((HTTP.name, HTTP.dns_host)),
        (w, 5) if w == *b"http" && s[4] | 0x20 == b's' => Some((HTTPS.name, HTTPS.dns_host)),
        (w, 4) if w == *b"file" => Some((FILE.name, FILE.dns_host)),
        _ => None,
    }
}

/// What [`rewrite`] found out about a line it takes.
#[derive(Debug, Clone, Copy)]
struct Shape {
    /// The scheme rung (else the syntax rung).
    at_scheme: bool,
    /// The scheme rung of a DNS scheme, `http(s)` (§5.3.3); `file` has
    /// none of it.
    dns: bool,
    /// The host, `s[host.0..host.1]`.
    host: (usize, usize),
    /// The scheme, lowercase.
    scheme: &'static str,
}

impl Shape {
    /// The shape of `r` at the syntax rung (`at_scheme` false) or the
    /// scheme rung, when it is one this module writes.
    #[inline]
    fn of(r: &IriRef<'_>, at_scheme: bool) -> Option<Shape> {
        if r.host_kind() != Some(HostKind::RegName) || r.userinfo().is_some() {
            return None;
        }
        let host = r.host_range()?;
        let (scheme, dns) = known_scheme(r.as_str().as_bytes(), r.scheme()?.len())?;
        Some(Shape {
            at_scheme,
            dns: at_scheme && dns,
            host,
            scheme,
        })
    }
}

/// The key of `r` at the syntax rung (`at_scheme` false) or the scheme
/// rung, when `r` has the shape this module writes; `None` otherwise.
#[inline]
pub(super) fn rewrite<'a>(r: &IriRef<'a>, at_scheme: bool) -> Option<Result<Cow<'a, str>>> {
    Some(write(r, Shape::of(r, at_scheme)?))
}

/// [`rewrite`] once the shape is known.
fn write<'a>(r: &IriRef<'a>, shape: Shape) -> Result<Cow<'a, str>> {
    // http(s) needs a host (RFC 9110 §4.2.1), as the general rewrite says
    // before anything else.
    if shape.dns && shape.host.0 == shape.host.1 {
        let scheme = shape.scheme;
        return Err(Error::new(0, ErrorKind::HostRequired { scheme }));
    }
    #[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
    if let Some(key) = write_compact(r, shape) {
        return key;
    }
    write_scalar(r, shape)
}

/// [`write()`] as one compaction of the line's bytes ([`compact`]), when the
/// CPU and the line allow it.
#[cfg(all(target_arch = "x86_64", not(irinorm_portable)))]
#[inline]
fn write_compact<'a>(r: &IriRef<'a>, shape: Shape) -> Option<Result<Cow<'a, str>>> {
    let (ps, pe) = r.path_range();
    // An empty path of http(s) becomes "/" (§5.3.3): the output grows.
    if shape.dns && ps == pe {
        return None;
    }
    let t = compact::available()?;
    // The syntax rung keeps the port as written (§5.3.3 drops it).
    let port = r.port().map(|p| {
        let kept = if shape.at_scheme {
            super::scheme::port(super::scheme::rules(shape.scheme), p)
        } else {
            Some(p)
        };
        (p, kept)
    });
    let plan = compact::plan(r, shape.host.1, port)?;
    let mut out = spare(compact::room(r));
    // `r` is at most `MAX_LEN` bytes, its host ASCII (`plan`), and parsed:
    // each '%' starts a triplet; `out` has the room the line needs.
    if !crate::simd::compact::compact(t, r.as_str(), &plan, &mut out) {
        recycle(out);
        return None;
    }
    if shape.dns {
        // Nothing before the host's end was dropped: it is where it was.
        let a_label = r.flags() & flags::HOST_HYPHEN != 0;
        if let Err(e) = dns_host(&mut out, shape.host, a_label, shape.scheme) {
            return Some(Err(e));
        }
    }
    Some(Ok(Cow::Owned(out)))
}

/// [`write()`] a component at a time, into a buffer.
fn write_scalar<'a>(r: &IriRef<'a>, shape: Shape) -> Result<Cow<'a, str>> {
    let Shape {
        at_scheme,
        dns,
        host: (hs, he),
        scheme,
    } = shape;
    let s = r.as_str();
    let f = r.flags();
    let room = if f & flags::NON_ASCII != 0 {
        3 * s.len() + 16
    } else {
        s.len() + 16
    };
    let mut out = spare(room);
    let idna = |e: crate::host::IdnaError| Error::new(hs, ErrorKind::Idna(e.0));
    // Scheme, "://" and host: lowercase (§5.3.2.1), in one pass when the
    // host has no '%' and is ASCII.
    let lower = f & (flags::SCHEME_UPPER | flags::HOST_UPPER) != 0;
    let host = &s[hs..he];
    let idn = dns && f & flags::HOST_NON_ASCII != 0;
    if f & (flags::HOST_PCT | flags::HOST_NON_ASCII) == 0 {
        if lower {
            push_lower(&mut out, &s[..he]);
        } else {
            out.push_str(&s[..he]);
        }
    } else {
        if f & flags::SCHEME_UPPER != 0 {
            push_lower(&mut out, &s[..hs]);
        } else {
            out.push_str(&s[..hs]);
        }
        if idn {
            // An IDN host: the syntax rung's percent-encoding and ToASCII
            // (§5.3.3) at once, remembered per thread by the host as written.
            crate::host::idn_to_ascii(host, norm_reg_name, &mut |a| out.push_str(a))
                .map_err(idna)?;
        } else {
            out.push_str(&norm_reg_name(host));
        }
    }
    if dns {
        // ToASCII (§5.3.3) can change an ASCII name only at an A-label
        // (`xn--`: a '-', perhaps decoded from `%2D`).
        let a_label = !idn && f & (flags::HOST_HYPHEN | flags::HOST_PCT) != 0;
        let end = out.len();
        dns_host(&mut out, (hs, end), a_label, scheme)?;
    }
    if let Some(port) = r.port() {
        if !at_scheme {
            out.push(':');
            out.push_str(port);
        } else if let Some(p) = super::scheme::port(super::scheme::rules(scheme), port) {
            out.push(':');
            out.push_str(p);
        }
    }
    // The path: percent-encoding normalized, then its dot segments removed
    // (§5.3.2.4; a decoded `%2E` can make one). After an authority a
    // non-empty path starts with '/'.
    let (ps, pe) = r.path_range();
    let path = &s[ps..pe];
    if f & flags::PATH_DIRTY == 0 {
        // The path as written: its dot segments, if any, are found in the
        // source, and the rest copied around them.
        if f & flags::PATH_DOT != 0 && path.starts_with('/') {
            push_without_dot_segments(&mut out, path);
        } else {
            out.push_str(path);
        }
    } else {
        // A decoded `%2E` can make a dot segment: normalized first, then
        // looked for in the output.
        let mark = out.len();
        let decoded_dot = norm_pct_into(&mut out, path, false);
        if let Some(first) = normalized_dot_segment(&out[mark..], f, decoded_dot) {
            remove_dot_segments_from(&mut out, mark, mark + first);
        }
    }
    if ps == pe && dns {
        // §5.3.3: an empty path is "/" for http(s).
        out.push('/');
    }
    if let Some(q) = r.query() {
        out.push('?');
        push_part(&mut out, q, f & flags::QUERY_DIRTY != 0, false);
    }
    if let Some(frag) = r.fragment() {
        out.push('#');
        push_part(&mut out, frag, f & flags::FRAGMENT_DIRTY != 0, true);
    }
    Ok(Cow::Owned(out))
}

/// For the tests: the key of `r` written both ways, [`write_compact`]
/// (`None` when it does not take the line) and [`write_scalar`], when `r`
/// has the shape [`rewrite`] takes (and a host, if it needs one).
#[cfg(all(test, target_arch = "x86_64", not(irinorm_portable)))]
#[allow(clippy::type_complexity)]
pub(super) fn both_ways(
    r: &IriRef<'_>,
    at_scheme: bool,
) -> Option<(Option<Result<String>>, Result<String>)> {
    let shape = Shape::of(r, at_scheme)?;
    if shape.dns && shape.host.0 == shape.host.1 {
        return None;
    }
    let owned = |k: Result<Cow<'_, str>>| k.map(Cow::into_owned);
    Some((
        write_compact(r, shape).map(owned),
        owned(write_scalar(r, shape)),
    ))
}

/// The scheme rung's checks of a DNS host (§5.3.3), `out[hs..end]` once
/// lowercased: ToASCII when it may hold an A-label (`a_label`: a '-' in
/// it), which rewrites it in place if it changes it; then the lengths of
/// UTS #46 VerifyDnsLength; and http(s) needs a host (RFC 9110 §4.2.1).
fn dns_host(
    out: &mut String,
    (hs, end): (usize, usize),
    a_label: bool,
    scheme: &'static str,
) -> Result<()> {
    let idna = |e: crate::host::IdnaError| Error::new(hs, ErrorKind::Idna(e.0));
    let mut end = end;
    if a_label {
        if let Cow::Owned(a) = crate::host::domain_to_ascii(&out[hs..end]).map_err(idna)? {
            out.replace_range(hs..end, &a);
            end = hs + a.len();
        }
    }
    let host = &out[hs..end];
    crate::host::verify_dns_length(host).map_err(idna)?;
    if host.is_empty() {
        return Err(Error::new(hs, ErrorKind::HostRequired { scheme }));
    }
    Ok(())
}

/// Append a component: its percent-encoding normalized when the scan found
/// it `dirty` (`hash`: a `#` encoded too, in the fragment), else as it is.
#[inline]
fn push_part(out: &mut String, c: &str, dirty: bool, hash: bool) {
    if dirty {
        norm_pct_into(out, c, hash);
    } else {
        out.push_str(c);
    }
}
