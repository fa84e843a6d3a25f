//! IRI → URI (3987bis §3.3–3.6) and URI → IRI (§3.7), with no normalization.

use std::borrow::Cow;

use crate::error::Result;

/// Map an IRI reference to a URI reference (§3.6): characters not allowed in
/// URIs become UTF-8 percent-encoding with uppercase hex; existing `%XX` are
/// kept; idempotent; the identity on a valid URI. An ireg-name of a DNS scheme
/// becomes punycode (IDNA ToASCII, 003 §3.4.2), of other schemes
/// percent-encoding (003 §3.4.1).
pub fn to_uri(input: &str) -> Result<Cow<'_, str>> {
    let _ = input;
    todo!("core")
}

/// Map a URI reference to an IRI reference (§3.7 steps 1–6).
pub fn to_iri(input: &str) -> Result<Cow<'_, str>> {
    let _ = input;
    todo!("core")
}
