//! The texts of a failed IDNA conversion (3987bis §3.4, UTS #46): short,
//! meant for a person, e.g. `disallowed character U+FFFD`.

use std::fmt;

/// Why an IDNA conversion of a reg-name failed (3987bis §3.4, draft -13
/// §3.4.2). The text is short and meant for a person, e.g.
/// `disallowed character U+FFFD`, `invalid A-label 'xn--a-'`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdnaError(pub String);

impl fmt::Display for IdnaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for IdnaError {}

/// A label longer than 63 octets (UTS #46 VerifyDnsLength).
pub(super) fn length_error(label: &str) -> IdnaError {
    let shown: String = label.chars().take(20).collect();
    IdnaError(format!(
        "label '{shown}…' of {} octets is longer than 63 (UTS #46 VerifyDnsLength)",
        label.len()
    ))
}

/// A byte as a person reads it in an error text.
pub(super) fn describe_byte(c: u8) -> String {
    match c {
        b' ' => "space".to_owned(),
        0..=0x1f | 0x7f => format!("control U+{:04X}", c),
        0x80..=0xff => format!("byte 0x{c:02X}"),
        c => format!("'{}'", c as char),
    }
}
