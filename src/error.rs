//! Why a reference was not accepted.
//!
//! A bad IRI is *data*, not a crash: every failure of the core library is an
//! [`Error`] with the byte offset where the problem starts and a
//! [`ErrorKind`] whose `Display` is a short reason a person understands,
//! e.g. `invalid percent-encoding at byte 17` or
//! `space not allowed in path at byte 5`.

use std::fmt;

/// A component of an IRI reference (3987bis §2.2, RFC 3986 §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Component {
    Scheme,
    Userinfo,
    Host,
    Port,
    Path,
    Query,
    Fragment,
}

impl Component {
    pub fn name(self) -> &'static str {
        match self {
            Component::Scheme => "scheme",
            Component::Userinfo => "userinfo",
            Component::Host => "host",
            Component::Port => "port",
            Component::Path => "path",
            Component::Query => "query",
            Component::Fragment => "fragment",
        }
    }
}

impl fmt::Display for Component {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorKind {
    /// Empty input where a reference was required.
    Empty,
    /// Input bytes that are not UTF-8.
    InvalidUtf8,
    /// `%` not followed by two hex digits (RFC 3986 §2.1).
    InvalidPercentEncoding,
    /// A character the component's ABNF rule does not allow (3987bis §2.2).
    CharNotAllowed { ch: char, component: Component },
    /// A bidi formatting character (3987bis §4.1: IRIs MUST NOT contain them).
    BidiFormatting { ch: char },
    /// A private-use character outside the query (`iprivate`, §2.2).
    PrivateUseOutsideQuery { ch: char, component: Component },
    /// The port is not `*DIGIT` (RFC 3986 §3.2.3; any length is valid).
    InvalidPort,
    /// `[...]` that is not an RFC 3986 IPv6address.
    InvalidIpv6,
    /// `[v...]` that is not an RFC 3986 IPvFuture.
    InvalidIpvFuture,
    /// A host that fails IDNA ToASCII (3987bis §3.4); the text is the reason.
    Idna(String),
    /// A relative reference where an absolute IRI is needed (no base given).
    RelativeWithoutBase,
    /// The base given for resolution is not an absolute IRI.
    BaseNotAbsolute,
    /// A reference whose first segment contains `:` but whose would-be
    /// scheme is not a valid scheme (RFC 3986 §4.2, `path-noscheme`).
    ColonInFirstSegment,
    /// An `http`, `https`, `ws` or `wss` reference without a host, or with
    /// an empty one: RFC 9110 §4.2.1–4.2.2 ("A recipient that processes such
    /// a URI reference MUST reject it as invalid"), RFC 6455 §3. Checked from
    /// the scheme rung up.
    HostRequired { scheme: &'static str },
    /// Web mode: the WHATWG URL Standard's basic URL parser returned
    /// failure; the text is its reason (see [`crate::web`]).
    UrlStandard(String),
    /// Something else; the text says what.
    Other(String),
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::Empty => f.write_str("empty reference"),
            ErrorKind::InvalidUtf8 => f.write_str("invalid UTF-8"),
            ErrorKind::InvalidPercentEncoding => f.write_str("invalid percent-encoding"),
            ErrorKind::CharNotAllowed { ch, component } => {
                write!(f, "{} not allowed in {}", describe_char(*ch), component)
            }
            ErrorKind::BidiFormatting { ch } => {
                write!(
                    f,
                    "bidi formatting character {} not allowed",
                    describe_char(*ch)
                )
            }
            ErrorKind::PrivateUseOutsideQuery { ch, component } => write!(
                f,
                "private-use character {} not allowed in {} (only in query)",
                describe_char(*ch),
                component
            ),
            ErrorKind::InvalidPort => f.write_str("invalid port"),
            ErrorKind::InvalidIpv6 => f.write_str("invalid IPv6 literal"),
            ErrorKind::InvalidIpvFuture => f.write_str("invalid IPvFuture literal"),
            ErrorKind::Idna(why) => write!(f, "host fails IDNA: {why}"),
            ErrorKind::RelativeWithoutBase => {
                f.write_str("relative reference without a base (give --base)")
            }
            ErrorKind::BaseNotAbsolute => f.write_str("base is not an absolute IRI"),
            ErrorKind::ColonInFirstSegment => {
                f.write_str("colon in first path segment of a relative reference")
            }
            ErrorKind::HostRequired { scheme } => {
                write!(
                    f,
                    "{scheme} URI without a host (RFC 9110 §4.2, RFC 6455 §3)"
                )
            }
            ErrorKind::UrlStandard(why) => write!(f, "not a URL (URL Standard): {why}"),
            ErrorKind::Other(why) => f.write_str(why),
        }
    }
}

/// Names a character the way a person reading a rejects file wants it:
/// `space`, `'<'`, `U+202E`.
fn describe_char(ch: char) -> String {
    match ch {
        ' ' => "space".to_owned(),
        '\t' => "tab".to_owned(),
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' => format!("control U+{:04X}", ch as u32),
        c if c.is_ascii() => format!("'{c}'"),
        c => format!("U+{:04X}", c as u32),
    }
}

/// A failure with the byte offset (0-based, into the input as given) where it
/// starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub offset: usize,
    pub kind: ErrorKind,
}

impl Error {
    #[cold]
    pub fn new(offset: usize, kind: ErrorKind) -> Self {
        Error { offset, kind }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            // Whole-reference failures have no useful position.
            ErrorKind::Empty
            | ErrorKind::RelativeWithoutBase
            | ErrorKind::BaseNotAbsolute
            | ErrorKind::HostRequired { .. }
            | ErrorKind::Idna(_) => write!(f, "{}", self.kind),
            _ => write!(f, "{} at byte {}", self.kind, self.offset),
        }
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_read_well() {
        let e = Error::new(17, ErrorKind::InvalidPercentEncoding);
        assert_eq!(e.to_string(), "invalid percent-encoding at byte 17");
        let e = Error::new(
            5,
            ErrorKind::CharNotAllowed {
                ch: ' ',
                component: Component::Path,
            },
        );
        assert_eq!(e.to_string(), "space not allowed in path at byte 5");
        let e = Error::new(7, ErrorKind::InvalidIpv6);
        assert_eq!(e.to_string(), "invalid IPv6 literal at byte 7");
    }
}
