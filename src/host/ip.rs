//! IP hosts (RFC 3986 §3.2.2): strict `IPv4address`, every `IPv6address`
//! alternative, `IPvFuture`, and the canonical IPv6 text of RFC 5952 §4
//! (§5 for IPv4-mapped addresses). No zone identifiers (3987bis §2.2).

/// RFC 3986 §3.2.2 `IPv4address = dec-octet "." dec-octet "." dec-octet "." dec-octet`.
///
/// `dec-octet` is strict: `0`–`255` with no leading zeros, so `01.2.3.4`,
/// `256.1.1.1` and `1.2.3` are not IPv4 addresses (they are reg-names).
pub fn is_ipv4address(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    for part in 0..4 {
        if part > 0 {
            if b.get(i) != Some(&b'.') {
                return false;
            }
            i += 1;
        }
        match dec_octet(&b[i..]) {
            Some((_, n)) => i += n,
            None => return false,
        }
    }
    i == b.len()
}

/// Parses one `dec-octet` at the start of `b`: returns its value and length.
fn dec_octet(b: &[u8]) -> Option<(u8, usize)> {
    let digits = b.iter().take(4).take_while(|c| c.is_ascii_digit()).count();
    match digits {
        0 | 4 => None,
        1 => Some((b[0] - b'0', 1)),
        _ if b[0] == b'0' => None,
        n => {
            let v = b[..n]
                .iter()
                .fold(0u32, |acc, &c| acc * 10 + u32::from(c - b'0'));
            u8::try_from(v).ok().map(|v| (v, n))
        }
    }
}

/// Parses a strict IPv4address into its four octets (RFC 3986 §3.2.2).
fn parse_ipv4(s: &[u8]) -> Option<[u8; 4]> {
    let mut out = [0u8; 4];
    let mut i = 0;
    for (k, slot) in out.iter_mut().enumerate() {
        if k > 0 {
            if s.get(i) != Some(&b'.') {
                return None;
            }
            i += 1;
        }
        let (v, n) = dec_octet(&s[i..])?;
        *slot = v;
        i += n;
    }
    (i == s.len()).then_some(out)
}

// ---------------------------------------------------------------------------
// IPv6
// ---------------------------------------------------------------------------

/// Parses RFC 3986 §3.2.2 `IPv6address` text (without the brackets).
///
/// Accepts every ABNF alternative: eight `h16` groups, `::` compression
/// anywhere (standing for one or more zero groups, at most once), and the
/// `ls32` embedded-IPv4 form in the last 32 bits (`::ffff:192.0.2.1`,
/// `64:ff9b::192.0.2.33`, `1:2:3:4:5:6:1.2.3.4`). Hex digits are
/// case-insensitive; an `h16` has 1–4 digits. The embedded IPv4 must be a
/// strict `IPv4address`. Zone identifiers (`%25eth0`) are not accepted
/// (3987bis §2.2).
pub fn parse_ipv6(s: &str) -> Option<[u16; 8]> {
    let b = s.as_bytes();
    let len = b.len();
    let mut groups = [0u16; 8];
    let mut n = 0usize;
    let mut compress: Option<usize> = None;
    let mut i = 0usize;

    if b.starts_with(b"::") {
        compress = Some(0);
        i = 2;
        if i == len {
            return Some(groups);
        }
    } else if b.first() == Some(&b':') {
        return None;
    }

    loop {
        if n == 8 {
            return None;
        }
        let start = i;
        let mut value: u32 = 0;
        while i < len && i - start < 5 {
            match (b[i] as char).to_digit(16) {
                Some(d) => {
                    value = value * 16 + d;
                    i += 1;
                }
                None => break,
            }
        }
        let digits = i - start;
        if i < len && b[i] == b'.' {
            // ls32 as IPv4address: must be the rest of the text and fit in
            // the last two groups.
            if n > 6 {
                return None;
            }
            let v4 = parse_ipv4(&b[start..])?;
            groups[n] = u16::from_be_bytes([v4[0], v4[1]]);
            groups[n + 1] = u16::from_be_bytes([v4[2], v4[3]]);
            n += 2;
            break;
        }
        if digits == 0 || digits > 4 {
            return None;
        }
        groups[n] = value as u16;
        n += 1;
        if i == len {
            break;
        }
        if b[i] != b':' {
            return None;
        }
        i += 1;
        if i == len {
            return None; // trailing single ':'
        }
        if b[i] == b':' {
            if compress.is_some() {
                return None;
            }
            compress = Some(n);
            i += 1;
            if i == len {
                break;
            }
        }
    }

    match compress {
        None if n == 8 => Some(groups),
        None => None,
        Some(_) if n == 8 => None, // "::" must stand for at least one group
        Some(at) => {
            let mut out = [0u16; 8];
            let tail = n - at;
            out[..at].copy_from_slice(&groups[..at]);
            out[8 - tail..].copy_from_slice(&groups[at..n]);
            Some(out)
        }
    }
}

/// Writes the RFC 5952 §4 canonical text of an IPv6 address (no brackets).
///
/// * §4.1 leading zeros of a group are dropped;
/// * §4.2.1 the longest run of zero groups is compressed to `::`;
///   §4.2.2 a single zero group is not compressed; §4.2.3 on a tie the
///   first run is compressed;
/// * §4.3 hex digits are lowercase.
///
/// **IPv4-mapped addresses** (`::ffff:0:0/96`, RFC 4291 §2.5.5.2) are written
/// in mixed notation with the dotted quad, `::ffff:192.0.2.1`, as RFC 5952 §5
/// recommends. This is the only prefix written that way: the deprecated
/// IPv4-compatible form (`::a.b.c.d`) and other translation prefixes are
/// written in plain hex (`::102:304`), because §5 makes mixed notation
/// conditional on a well-known prefix and `::ffff:0:0/96` is the one whose
/// meaning is certain. (This matches `std::net::Ipv6Addr`'s `Display`.)
pub fn write_ipv6(addr: &[u16; 8], out: &mut String) {
    use std::fmt::Write;

    if addr[..5] == [0, 0, 0, 0, 0] && addr[5] == 0xffff {
        let [a, b] = addr[6].to_be_bytes();
        let [c, d] = addr[7].to_be_bytes();
        let _ = write!(out, "::ffff:{a}.{b}.{c}.{d}");
        return;
    }

    // Longest run of >= 2 zero groups, first one on a tie.
    let (mut best_start, mut best_len) = (0usize, 0usize);
    let mut i = 0;
    while i < 8 {
        if addr[i] == 0 {
            let start = i;
            while i < 8 && addr[i] == 0 {
                i += 1;
            }
            if i - start > best_len {
                best_start = start;
                best_len = i - start;
            }
        } else {
            i += 1;
        }
    }
    if best_len < 2 {
        best_len = 0;
        best_start = 8;
    }

    let mut i = 0;
    while i < 8 {
        if i == best_start {
            out.push_str("::");
            i += best_len;
            continue;
        }
        if i != 0 && i != best_start + best_len {
            out.push(':');
        }
        let _ = write!(out, "{:x}", addr[i]);
        i += 1;
    }
}

// ---------------------------------------------------------------------------
// IPvFuture
// ---------------------------------------------------------------------------

/// RFC 3986 §3.2.2 `IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )`,
/// text without the brackets. ABNF literals are case-insensitive, so `V` is
/// accepted as well as `v`.
pub fn is_ipv_future(s: &str) -> bool {
    let b = s.as_bytes();
    let Some((&first, rest)) = b.split_first() else {
        return false;
    };
    if first != b'v' && first != b'V' {
        return false;
    }
    let hex = rest.iter().take_while(|c| c.is_ascii_hexdigit()).count();
    if hex == 0 {
        return false;
    }
    let rest = &rest[hex..];
    let Some((&b'.', body)) = rest.split_first() else {
        return false;
    };
    !body.is_empty()
        && body
            .iter()
            .all(|&c| is_unreserved(c) || is_sub_delim(c) || c == b':')
}

fn is_unreserved(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_' | b'~')
}

fn is_sub_delim(c: u8) -> bool {
    matches!(
        c,
        b'!' | b'$' | b'&' | b'\'' | b'(' | b')' | b'*' | b'+' | b',' | b';' | b'='
    )
}
