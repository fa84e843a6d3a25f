//! IRI references (draft-ietf-iri-3987bis §2.2, RFC 3986 §3): the parsed
//! type, the component scan that parses any reference, and the whole-line
//! split that takes the usual crawl line from its bit masks.
//!
//! | file | job |
//! |---|---|
//! | `iri_ref` | [`IriRef`]: one borrowed buffer and `u32` offsets; [`HostKind`] |
//! | `flags` | what the scan saw, for the rungs of the ladder |
//! | `scan` | [`parse`]: the component scan, and the dispatch to the vector paths |
//! | `line` | the whole-line split of the usual crawl line, from `crate::simd::masks` |
//! | `scheme` | the scheme a reference starts with (RFC 3986 §3.1) |
//! | `path` | dot segments of a path (RFC 3986 §5.2.4) |

pub(crate) mod flags;
mod iri_ref;
#[cfg(any(test, all(target_arch = "x86_64", not(irinorm_portable))))]
mod line;
pub(crate) mod path;
mod scan;
mod scheme;

pub(crate) use iri_ref::NONE;
pub use iri_ref::{HostKind, IriRef};
pub use scan::parse;
#[cfg(fuzzing)]
pub use scan::parse_scalar;

#[cfg(test)]
mod tests;
