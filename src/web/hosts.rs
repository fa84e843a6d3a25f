//! The host parser of the URL Standard (§3.5, with §3.6 serializing) for
//! special URLs, remembered per thread: the `url` crate's
//! [`url::Host::parse`] (percent-decoding, UTS #46 ToASCII, the IPv4
//! parser) run once per distinct raw host, in a table of fixed size.

use std::cell::RefCell;

/// Hosts the host parser has seen on this thread: the raw host → its
/// serialization (`None`: the parser fails), in a table of fixed size
/// indexed by a hash of the host, each entry keyed by the whole host.
pub(super) struct HostCache {
    slots: Vec<Option<Entry>>,
}

/// A raw host and its serialization (`None`: the parser fails).
type Entry = (Box<str>, Option<Box<str>>);

const SLOTS: usize = 1024;

thread_local! {
    static HOSTS: RefCell<HostCache> = RefCell::new(HostCache { slots: vec![None; SLOTS] });
}

impl HostCache {
    /// `f` of the serialization of the special host `raw` (§3.5 host
    /// parser, §3.6 serializer), or of `None` when the parser fails.
    pub(super) fn with<R>(raw: &str, f: impl FnOnce(Option<&str>) -> R) -> R {
        HOSTS.with(|c| {
            let mut c = c.borrow_mut();
            let i = slot(raw);
            let hit = matches!(&c.slots[i], Some((k, _)) if &**k == raw);
            if !hit {
                let parsed = url::Host::parse(raw)
                    .ok()
                    .map(|h| h.to_string().into_boxed_str());
                c.slots[i] = Some((raw.into(), parsed));
            }
            let entry = c.slots[i].as_ref().and_then(|(_, h)| h.as_deref());
            f(entry)
        })
    }
}

/// The slot of a host: FNV-1a of its bytes.
fn slot(s: &str) -> usize {
    let h = s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, c| {
        (h ^ u64::from(c)).wrapping_mul(0x100_0000_01b3)
    });
    (h >> 32) as usize % SLOTS
}

/// The host parser leaves the special host `h` as it is (it serializes
/// to itself), by [`HostCache`]. Out of line: rare in the fast path.
#[cold]
#[inline(never)]
pub(super) fn host_parses_to_itself(h: &str) -> bool {
    HostCache::with(h, |s| s == Some(h))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_answers_what_the_parser_answers() {
        // More hosts than slots: entries are replaced, never confused.
        let hosts: Vec<String> = (0..3 * SLOTS)
            .map(|i| match i % 4 {
                0 => format!("H{i}.Example"),
                1 => format!("m\u{fc}nchen{i}.example"),
                2 => format!("xn--a{i}.example"),
                _ => format!("0x{i:x}"),
            })
            .collect();
        for _ in 0..2 {
            for h in &hosts {
                let want = url::Host::parse(h).ok().map(|p| p.to_string());
                assert_eq!(HostCache::with(h, |s| s.map(String::from)), want, "{h}");
                assert_eq!(host_parses_to_itself(h), want.as_deref() == Some(h), "{h}");
            }
        }
    }
}
