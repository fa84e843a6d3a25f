//! # irinorm — IRI parsing and the comparison ladder
//!
//! Every job irinorm does comes down to one operation: parse one IRI
//! reference (draft-ietf-iri-3987bis §2.2, RFC 3986 §3), optionally resolve it
//! against a base (RFC 3986 §5.2), put it in the canonical form of a chosen
//! rung of the comparison ladder (3987bis §5.3) and write it as a URI (§3.6) or
//! an IRI (§3.7). Two references are equivalent at a rung exactly when their
//! keys at that rung are equal.
//!
//! ```
//! use irinorm::{Level, Normalizer, Options};
//! let n = Normalizer::new(Options { level: Level::Scheme, ..Options::default() });
//! assert_eq!(n.key("HTTP://Example.COM:80/a/./b").unwrap(), "http://example.com/a/b");
//! assert_eq!(n.key("http://münchen.de").unwrap(), "http://xn--mnchen-3ya.de/");
//! ```
//!
//! The batch engine ([`batch`]) runs that operation over huge inputs:
//! sources (files, stdin, gzip/zstd, UTF-16, CSV/TSV records) → bounded
//! batches read on their own thread → per line, [`Normalizer::key`] on rayon
//! workers (an already-canonical line is borrowed, not rebuilt) → a
//! partitioned table of distinct keys within a memory budget, spilling to
//! disk → rows in first-occurrence order → CSV. The `irinorm` binary
//! (`src/bin/irinorm`, behind the default `cli` feature) only turns flags
//! into the engine's plain configurations.
//!
//! References as browsers read them (`--mode web`, 3987bis §7.2) go through
//! [`web`] first: the WHATWG URL Standard's parser, whose `href` the ladder
//! starts from.

#![deny(unsafe_op_in_unsafe_fn)]

pub mod cdx;
pub mod chars;
pub mod convert;
pub mod decode;
pub mod error;
pub mod host;
pub mod iri;
pub mod ladder;
pub mod learn;
pub mod preprocess;
pub mod resolve;
mod simd;
pub mod surt;
pub mod surt_ia;
pub mod web;

pub use convert::{to_iri, to_uri};
pub use error::{Component, Error, ErrorKind, Result};
pub use iri::{parse, HostKind, IriRef};
pub use ladder::{
    equivalent, key, lowest_equal_level, Form, Level, Normalizer, Options, ProtocolRung,
};
pub use resolve::resolve;

// Its vector code (sink, slots, source) moves to `simd` at the merge;
// until then it is the one module the lint does not hold.
#[allow(unsafe_op_in_unsafe_fn)]
pub mod batch;
