//! Per-thread memos of the IDNA path (UTS #46 for DNS hosts, 3987bis §3.4,
//! §5.3.3), and the entry points that consult them: crawl inputs repeat hosts
//! heavily, so UTS #46 runs once per distinct host and thread, not once
//! per line. One for [`domain_to_ascii`] (by the host it is given), one for
//! [`idn_to_ascii`] (by the host as written).
//!
//! Direct-mapped and bounded: [`SLOTS`] entries per thread and memo,
//! a host evicts whatever was in its slot. Each thread (each rayon worker)
//! has its own, so there is no lock. Errors are remembered too. The tests
//! `memo_equals_the_uncached_path` and `idn_memo_equals_the_uncached_path`
//! check that results do not depend on them.

use std::borrow::Cow;
use std::cell::RefCell;

use super::errors::IdnaError;
use super::idna::{domain_to_ascii_slow, is_plain_lower_ascii};

/// Entries per thread (a power of two).
pub(super) const SLOTS: usize = 1024;
/// Hosts longer than this are not remembered (keeps entries small).
const MAX_HOST: usize = 128;

/// Host → what became of it, direct-mapped.
struct Table<V>(Vec<Option<(Box<str>, V)>>);

impl<V: Clone> Table<V> {
    fn new() -> Self {
        Table(vec![None; SLOTS])
    }

    /// What `host` (in slot `k`) became, if it is remembered.
    fn get(&self, k: usize, host: &str) -> Option<&V> {
        match &self.0[k] {
            Some((h, v)) if **h == *host => Some(v),
            _ => None,
        }
    }

    fn keep(&mut self, k: usize, host: &str, v: V) {
        self.0[k] = Some((host.into(), v));
    }
}

/// `Ok(None)`: ToASCII leaves the host as it is.
type Answer = Result<Option<Box<str>>, IdnaError>;

thread_local! {
    static MEMO: RefCell<Table<Answer>> = RefCell::new(Table::new());
    static IDN: RefCell<Table<Result<Box<str>, IdnaError>>> = RefCell::new(Table::new());
}

/// FNV-1a, folded to a slot.
fn slot(host: &str) -> usize {
    let mut h: u32 = 0x811c_9dc5;
    for &b in host.as_bytes() {
        h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
    }
    (h ^ (h >> 16)) as usize & (SLOTS - 1)
}

fn answer<'h>(host: &'h str, a: &Answer) -> Result<Cow<'h, str>, IdnaError> {
    match a {
        Ok(None) => Ok(Cow::Borrowed(host)),
        Ok(Some(s)) => Ok(Cow::Owned(String::from(&**s))),
        Err(e) => Err(e.clone()),
    }
}

fn remembered(host: &str) -> Result<Cow<'_, str>, IdnaError> {
    if host.len() > MAX_HOST {
        return domain_to_ascii_slow(host);
    }
    let k = slot(host);
    let hit = MEMO.with(|m| m.borrow().get(k, host).map(|a| answer(host, a)));
    if let Some(hit) = hit {
        return hit;
    }
    let out = domain_to_ascii_slow(host);
    let a: Answer = match &out {
        Ok(Cow::Borrowed(_)) => Ok(None),
        Ok(Cow::Owned(s)) => Ok(Some(s.as_str().into())),
        Err(e) => Err(e.clone()),
    };
    MEMO.with(|m| m.borrow_mut().keep(k, host, a));
    out
}

fn idn_remembered(
    raw: &str,
    syntax: impl for<'h> FnOnce(&'h str) -> Cow<'h, str>,
    emit: &mut dyn FnMut(&str),
) -> Result<(), IdnaError> {
    // A miss asks `MEMO` for the normalized host: a host evicted here by
    // another in its slot is often still there, and ToASCII need not run.
    let to_ascii = |raw: &str| domain_to_ascii(&syntax(raw)).map(Cow::into_owned);
    if raw.len() > MAX_HOST {
        return to_ascii(raw).map(|a| emit(&a));
    }
    let k = slot(raw);
    // A hit is written from the memo itself: no copy, no allocation.
    let hit = IDN.with(|m| {
        m.borrow().get(k, raw).map(|a| match a {
            Ok(a) => {
                emit(a);
                Ok(())
            }
            Err(e) => Err(e.clone()),
        })
    });
    if let Some(hit) = hit {
        return hit;
    }
    let a = to_ascii(raw);
    let kept = match &a {
        Ok(a) => Ok(a.as_str().into()),
        Err(e) => Err(e.clone()),
    };
    IDN.with(|m| m.borrow_mut().keep(k, raw, kept));
    a.map(|a| emit(&a))
}

/// Draft -13 §3.4.2 ("Mapping using Punycode", 3987bis §3.4) for the reg-name
/// of a DNS scheme ([`is_dns_scheme`](super::is_dns_scheme)); also the IDN ↔ punycode equivalence
/// of the scheme-based rung (§5.3.3).
///
/// `host` is the reg-name exactly as it stands in the IRI: it may contain raw
/// non-ASCII, percent-encodings (`%XX`, any hex case) and upper case.
///
/// 1. If there are percent-encodings, they are decoded; their octets must
///    form valid UTF-8, otherwise this fails (§3.4.2: punycode could not
///    succeed; a caller wanting "leave the field as is" falls back itself).
/// 2. UTS #46 ToASCII, **non-transitional** (so `faß.de` → `xn--fa-hia.de`),
///    with the flags
///    * UseSTD3ASCIIRules = false (3987bis §3.4), but ASCII characters that a
///      reg-name cannot contain are rejected (see 3.);
///    * CheckHyphens = false (real names such as `r3---sn-xyz.example` exist);
///    * VerifyDnsLength = false: length limits are a DNS-protocol concern,
///      not an identity one; empty labels (`a..b`, a trailing dot) are kept.
///
///    CheckBidi and CheckJoiners are always on (`idna` 1.x). Unicode, upper
///    case, full-width dots (U+FF0E, U+3002, U+FF61) and any `xn--`
///    spelling of one domain give one lowercase ASCII result.
/// 3. Security (3987bis §10): a result containing a character a reg-name
///    cannot hold (`/ ? # @ : [ ] %`, space, controls, …) is an error, never
///    emitted — a percent-encoding or a compatibility character (U+FF0F)
///    must not turn into a delimiter.
///
/// Returns `Cow::Borrowed(host)` without allocating when `host` is already a
/// lowercase ASCII name with no `xn--` label and no `%` (and also whenever
/// ToASCII leaves the text unchanged). The empty host gives `Ok("")`.
pub fn domain_to_ascii(host: &str) -> Result<Cow<'_, str>, IdnaError> {
    if is_plain_lower_ascii(host) {
        return Ok(Cow::Borrowed(host));
    }
    remembered(host)
}

/// The ASCII form of an IDN host as written (`raw`, non-ASCII, of a DNS
/// scheme at the scheme rung, 3987bis §5.3.3): the caller's syntax
/// normalization (`syntax`, §5.3.2.1: the characters percent-encoded),
/// then [`domain_to_ascii`] (the encoding decoded again), handed to
/// `emit`. Remembered per thread by the host as written:
/// a crawl repeats its IDN hosts, and on a repeat none of the encoding,
/// decoding, ToASCII or their allocations runs.
pub(crate) fn idn_to_ascii(
    raw: &str,
    syntax: impl for<'h> FnOnce(&'h str) -> Cow<'h, str>,
    emit: &mut dyn FnMut(&str),
) -> Result<(), IdnaError> {
    idn_remembered(raw, syntax, emit)
}
