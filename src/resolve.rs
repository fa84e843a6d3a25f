//! Reference resolution, RFC 3986 §5.2 (strict), with IRI characters treated
//! like unreserved ones (3987bis §6.5).

use crate::iri::IriRef;

/// Resolve `reference` against the absolute `base` (RFC 3986 §5.2.2).
pub fn resolve(base: &IriRef<'_>, reference: &IriRef<'_>) -> String {
    let _ = (base, reference);
    todo!("core")
}

/// RFC 3986 §5.2.4.
pub fn remove_dot_segments(path: &str) -> String {
    let _ = path;
    todo!("core")
}
