//! Hosts: IP literals (RFC 3986 §3.2.2, RFC 5952) and the IDNA wrapper for
//! reg-names of DNS schemes (3987bis §3.4, §5.3.3).
//!
//! What this module implements, and where it comes from:
//!
//! * **RFC 3986 §3.2.2** — the `host` alternatives: [`is_ipv4address`]
//!   (strict `dec-octet`, so `01.2.3.4` is a reg-name, not an address),
//!   [`parse_ipv6`] (every `IPv6address` alternative, including the `ls32`
//!   embedded IPv4 forms) and [`is_ipv_future`].
//! * **3987bis §2.2** — no IPv6 zone identifiers: `fe80::1%25eth0` is rejected.
//! * **RFC 5952 §4** (and §5 for IPv4-mapped addresses) — [`write_ipv6`], the
//!   canonical text of an IPv6 address, used by the syntax rung.
//! * **3987bis §3.4 / draft -13 §3.4.2** ("Mapping using Punycode") and
//!   **§5.3.3** (scheme-based normalization: IDN ↔ punycode equivalence) —
//!   [`domain_to_ascii`] for reg-names of the DNS schemes listed by
//!   [`is_dns_scheme`], and [`domain_to_unicode`] for URI→IRI display
//!   (§3.7 step 6).
//! * **3987bis §10** (security) — a percent-encoding in a reg-name is never
//!   allowed to decode into a delimiter: [`domain_to_ascii`] fails instead of
//!   emitting `/`, `?`, `#`, `@`, `:`, `[`, `]`, `%`, space, …
//!
//! The IDNA work itself (UTS #46 mapping, normalization, punycode, bidi and
//! ContextJ rules) is done by the `idna` crate; this module only chooses the
//! flags, adds percent-decoding and the reg-name character check, and keeps
//! the common case (an already lowercase ASCII name) allocation-free.
//!
//! | file | job |
//! |---|---|
//! | `ip` | IPv4, IPv6 and IPvFuture literals; RFC 5952 text |
//! | `dns` | which schemes have DNS hosts or need a host; DNS lengths |
//! | `idna` | UTS #46 ToASCII with our flags, and why it failed |
//! | `memo` | the per-thread memos, and the ToASCII entry points over them |
//! | `display` | `xn--` labels shown in Unicode (§3.7), under a policy (§8.6) |
//! | `spoof` | the display policy: UTS #39 and the browsers' checks (§10) |
//! | `errors` | [`IdnaError`] and its texts |

mod display;
mod dns;
mod errors;
mod idna;
mod ip;
mod memo;
pub(crate) mod spoof;

pub use display::{display_verdicts, domain_to_display, domain_to_unicode};
pub use dns::{is_dns_scheme, verify_dns_length};
pub use errors::IdnaError;
pub(crate) use idna::is_plain_lower_ascii;
pub use ip::{is_ipv4address, is_ipv_future, parse_ipv6, write_ipv6};
pub use memo::domain_to_ascii;
pub(crate) use memo::idn_to_ascii;
pub use spoof::{default_policy, DisplayPolicy, IdnDisplay, Reason, TopDomains};

#[cfg(test)]
mod tests;
