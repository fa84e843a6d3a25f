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
//! assert!(irinorm::equivalent("http://a.example/%7e", "http://A.example/~", irinorm::Level::Syntax).unwrap());
//! ```
//!
//! ## The pipeline in ten lines
//!
//! ```text
//! bytes    files, stdin, gzip/zstd, UTF-16, CSV/TSV/CDX     batch::open_all → Opened
//! lines    bounded batches read on their own thread;       batch::process_line
//!          per line CR, blank, length, charset → text or a batch::RejectReason
//! prepare  --mode strict / LEIRI §7.1 / Web §7.2            Preprocessor, web::WebParser
//! parse    one scan into components (§2.2, RFC 3986 §3)    parse → IriRef
//! resolve  against a base (RFC 3986 §5.2)                  resolve
//! ladder   string → syntax → scheme → protocol (§5.3)      Normalizer::key, key
//! form     URI (§3.6), IRI (§3.7) or SURT                  Form, to_uri, to_iri, surt
//! table    distinct keys in a memory budget, spilled       batch::run_dedup (map: run_map)
//! rows     first-occurrence order, one CSV writer          batch::csv_field, OutputFile
//! ```
//!
//! ## The layers
//!
//! Dependencies run one way, from the top down:
//!
//! | layer | modules | what it knows |
//! |---|---|---|
//! | engine | [`batch`] | inputs, threads, memory, CSV; no flag of the CLI |
//! | learning | [`learn`] | rules learned from redirects and content digests |
//! | ladder | `ladder` | the rungs of §5.3 and the protocol rules |
//! | forms and steps | `convert`, `resolve`, [`surt`], `surt_ia`, [`web`], [`cdx`], `preprocess`, `decode` | one job each |
//! | the reference | `iri`, `host` | the parse, IDNA, IP addresses |
//! | ground | `chars`, `runs`, `error` | character tables, the vector scan, errors |
//!
//! Only the names below are public; the modules in `code font` are private
//! rooms of the house.
//!
//! ## The public names
//!
//! * **Parse**: [`parse`] → [`IriRef`] (with its [`HostKind`]);
//!   [`resolve`] and [`remove_dot_segments`] (RFC 3986 §5.2).
//! * **Compare**: [`Normalizer`] with its [`Options`] ([`Level`], [`Form`]),
//!   and the one-shot [`key`], [`equivalent`], [`lowest_equal_level`].
//! * **Convert**: [`to_uri`] (3987bis §3.6), [`to_iri`] (§3.7);
//!   [`domain_to_ascii`], [`domain_to_unicode`] (UTS #46) and
//!   [`is_dns_scheme`].
//! * **Protocol rung** (§5.3.4): [`ProtocolRules`] of named [`Rules`]
//!   ([`Rule`], with the names they act on: [`TRACKING_PARAMS`], …) and
//!   [`learn::Learned`] rules, or any [`ProtocolRung`].
//! * **Before parsing**: [`Preprocessor`] for a [`Mode`] (strict, LEIRI §7.1,
//!   Web §7.2) counting its [`Repairs`]; [`web::WebParser`] (the WHATWG URL
//!   parser, §7.2) giving a [`web::Href`]; [`Charset`] for legacy input and
//!   query encodings (§3.5).
//! * **Archive forms**: [`surt`] (SURT of a key), [`surt_ia`] (the
//!   Internet Archive's own canonicalization), [`cdx`] (CDX/CDXJ records).
//! * **Errors**: [`Error`] with its [`ErrorKind`] and [`Component`];
//!   [`Result`]. The engine's failure of a whole run is
//!   [`batch::RunError`]; a bad line is data ([`batch::RejectReason`]).
//! * **Engine**: [`batch`] (open inputs, [`batch::run_dedup`], [`batch::run_map`],
//!   an [`batch::Observer`]); **learning**: [`learn`].
//!
//! ## A whole run
//!
//! ```
//! use irinorm::batch::{self, DedupConfig, Format, Opened, Prep, Quiet};
//! use irinorm::{Normalizer, Options};
//! use std::sync::Arc;
//!
//! let n = Normalizer::new(Options::default());
//! let key = batch::key_fn(Prep::default(), |s: &str| n.key(s));
//! let input = Opened::from_bytes("urls", Arc::new(b"http://a.example/\nHTTP://A.example:80/\n".to_vec()));
//! let mut csv = Vec::new();
//! let summary = batch::run_dedup(vec![input], &Format::Lines, &key, &DedupConfig::default(), &mut Quiet,
//!     &mut |rows: &[u8]| { csv.extend_from_slice(rows); Ok(()) }).unwrap();
//! assert_eq!(summary.unique, 1);
//! assert!(String::from_utf8(csv).unwrap().contains("http://a.example/,2,"));
//! ```
//!
//! The `irinorm` binary (`src/bin/irinorm`, behind the default `cli`
//! feature) only turns flags into these plain configurations.

#![deny(unsafe_op_in_unsafe_fn)]

pub mod archive;
pub mod batch;
pub mod cdx;
pub mod learn;
pub mod surt;
pub mod web;

mod chars;
pub mod check;
mod convert;
mod decode;
mod error;
mod host;
mod iri;
mod ladder;
mod pct;
mod preprocess;
mod resolve;
mod scheme;
mod simd;
mod surt_ia;

pub use convert::{to_iri, to_iri_with, to_uri};
pub use decode::Charset;
pub use error::{Component, Error, ErrorKind, Result};
pub use host::{
    display_verdicts, domain_to_display, DisplayPolicy, IdnDisplay, Reason as IdnReason, TopDomains,
};
pub use host::{domain_to_ascii, domain_to_unicode, is_dns_scheme, IdnaError};
pub use iri::{parse, HostKind, IriRef};
pub use ladder::protocol::{
    ProtocolRules, Rule, Rules, INDEX_NAMES, SESSION_PARAMS, SESSION_PREFIXES, TRACKING_PARAMS,
    TRACKING_PREFIXES,
};
pub use ladder::{
    equivalent, key, lowest_equal_level, Form, Level, Normalizer, Options, ProtocolRung,
};
pub use preprocess::{Mode, Preprocessor, Repairs};
pub use resolve::{remove_dot_segments, resolve};
pub use surt_ia::{surt_ia, surt_ia_bytes};

/// What the fuzz targets (`fuzz/`, built by `cargo fuzz`, which sets
/// `--cfg fuzzing`) check beyond the public API: internal steps they
/// compare with a reference. Not part of the API; absent from every other
/// build.
#[cfg(fuzzing)]
#[doc(hidden)]
pub mod fuzzing {
    pub use crate::batch::{record_key, Layout, Rec, RecordKey};
    pub use crate::decode::{decode_line, encode_query, sniff_bom, transcode_utf16_to_utf8};
    pub use crate::iri::parse_scalar;
    pub use crate::preprocess::split_spaces;
    pub use crate::resolve::has_dot_segments;
}
