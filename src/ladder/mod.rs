//! The comparison ladder (draft-ietf-iri-3987bis §5.3).
//!
//! | rung | section | what it merges |
//! |---|---|---|
//! | [`Level::String`] | §5.3.1 | nothing: the characters as given |
//! | [`Level::Syntax`] | §5.3.2, RFC 3986 §6.2.2 | case of scheme/host/hex, `%7E`≡`~`, raw ≡ UTF-8 percent-encoded, dot segments |
//! | [`Level::Scheme`] | §5.3.3, RFC 3986 §6.2.3 | default/empty port, empty path → `/`, IDN ≡ punycode, RFC 5952 IPv6 |
//! | [`Level::Protocol`] | §5.3.4 | rules that need knowledge of the protocol (see the protocol module) |
//!
//! Each rung includes the ones below it. The *key* of a reference at a level
//! is its canonical form, in URI form by default.

use std::borrow::Cow;
use std::sync::Arc;

use crate::error::Result;
use crate::iri::IriRef;

/// A rung of the comparison ladder (3987bis §5.3). Ordered: each rung
/// includes the ones below it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Level {
    /// §5.3.1 simple string comparison.
    String,
    /// §5.3.2 syntax-based normalization.
    Syntax,
    /// §5.3.3 scheme-based normalization (the default).
    #[default]
    Scheme,
    /// §5.3.4 protocol-based normalization.
    Protocol,
}

impl Level {
    /// All rungs, lowest first.
    pub const ALL: [Level; 4] = [Level::String, Level::Syntax, Level::Scheme, Level::Protocol];

    pub fn name(self) -> &'static str {
        match self {
            Level::String => "string",
            Level::Syntax => "syntax",
            Level::Scheme => "scheme",
            Level::Protocol => "protocol",
        }
    }
}

impl std::str::FromStr for Level {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        Level::ALL
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| format!("unknown level {s:?} (string|syntax|scheme|protocol)"))
    }
}

/// How a key is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Form {
    /// URI form: ASCII only (3987bis §3.6). The default.
    #[default]
    Uri,
    /// IRI form: percent-encoded UTF-8 shown as characters where safe (§3.7).
    Iri,
}

/// What [`Normalizer`] does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Options {
    pub level: Level,
    pub form: Form,
    /// Apply Unicode NFC to userinfo, path, query and fragment (off by
    /// default: §5.3.2.2 says IRIs already in Unicode MUST NOT be normalized).
    pub nfc: bool,
}

/// The plug for the protocol rung (§5.3.4).
///
/// It receives the scheme-rung key in URI form, already parsed, and returns
/// the protocol-rung key in URI form: `Cow::Borrowed` when nothing changes.
/// The returned string must itself be a canonical scheme-rung key (rules
/// only remove or reorder parts), so that keys stay idempotent.
pub trait ProtocolRung: Send + Sync {
    fn apply<'a>(&self, key: &IriRef<'a>) -> Cow<'a, str>;
}

/// Computes keys: parse → resolve against the base (if any) → ladder → form.
#[derive(Clone, Default)]
pub struct Normalizer {
    opts: Options,
    base: Option<String>,
    protocol: Option<Arc<dyn ProtocolRung>>,
}

impl std::fmt::Debug for Normalizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Normalizer")
            .field("opts", &self.opts)
            .field("base", &self.base)
            .field("protocol", &self.protocol.is_some())
            .finish()
    }
}

impl Normalizer {
    pub fn new(opts: Options) -> Self {
        Normalizer {
            opts,
            base: None,
            protocol: None,
        }
    }

    /// Resolve relative references against `base` (RFC 3986 §5.2) before
    /// normalizing. The base must be an absolute IRI.
    pub fn with_base(mut self, base: &str) -> Result<Self> {
        let _ = &mut self;
        let _ = base;
        todo!("core")
    }

    /// Install the protocol rung's rules (used at [`Level::Protocol`]).
    pub fn with_protocol(mut self, rung: Arc<dyn ProtocolRung>) -> Self {
        self.protocol = Some(rung);
        self
    }

    pub fn options(&self) -> &Options {
        &self.opts
    }

    /// The key of `input` at the configured level and form. Borrowed when the
    /// input already is its own key (the common case for clean ASCII URLs).
    pub fn key<'a>(&self, input: &'a str) -> Result<Cow<'a, str>> {
        let _ = input;
        todo!("core")
    }
}

/// The key of `input` at `level`, URI form, no base.
pub fn key(input: &str, level: Level) -> Result<String> {
    Normalizer::new(Options {
        level,
        ..Options::default()
    })
    .key(input)
    .map(Cow::into_owned)
}

/// `a` and `b` are equivalent at `level` (3987bis §5.3).
pub fn equivalent(a: &str, b: &str, level: Level) -> Result<bool> {
    Ok(key(a, level)? == key(b, level)?)
}

/// The lowest rung at which `a` and `b` become equivalent, or `None` when they
/// differ even at the protocol rung (with its default rules).
pub fn lowest_equal_level(a: &str, b: &str) -> Result<Option<Level>> {
    for level in Level::ALL {
        if equivalent(a, b, level)? {
            return Ok(Some(level));
        }
    }
    Ok(None)
}
