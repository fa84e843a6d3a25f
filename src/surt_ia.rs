//! `--form surt-ia`: the Internet Archive's default URL canonicalization and
//! SURT, as the `surt` Python package 0.3.1 (`surt.surt(url)`) applies them,
//! so that keys join with existing Wayback/pywb CDX indexes.
//!
//! This is **not** a rung of the 3987bis §5.3 ladder: it lowercases paths
//! and queries, drops `www`/`www2.` host prefixes, user info, fragments and
//! some session ids, sorts query parameters and strips a trailing slash, so
//! it merges references the ladder calls different. Use it only to join with
//! archive indexes. It works on the raw input (not on our key), because the
//! IA rules differ from ours at every step (`%`-decoding is repeated, IP
//! numbers in decimal are rewritten, `..` is kept at the root, …).
//!
//! The steps, in the package's order (GoogleURLCanonicalizer, then
//! IAURLCanonicalizer, then the SURT writer):
//! 1. parse: trim, delete TAB/CR/LF, add `http://` when there is no
//!    `scheme:`, collapse repeated `http://` prefixes, split with the
//!    RFC 2396 Appendix B pattern; for `http*` schemes without an authority
//!    the first path segment becomes the host;
//! 2. drop the fragment; the query is unescaped repeatedly then escaped
//!    once; the host is unescaped, IDNA-encoded if not ASCII, `..` → `.`,
//!    trimmed of dots, rewritten if it is a decimal/octal IPv4 number, else
//!    lowercased and escaped; the path is unescaped repeatedly, dot segments
//!    and empty segments removed (when there is a host) and escaped once;
//! 3. IA: drop `www\d*.`, user info and the default port (80/443); lowercase
//!    the path, strip `.aspx` path session ids and a trailing slash; strip
//!    query session ids (`jsessionid`, `phpsessid`, `sid` with 32
//!    alphanumerics, `ASPSESSIONID…`, `cfid&cftoken`), lowercase the query,
//!    sort its parameters, drop an empty query;
//! 4. SURT: reversed comma-joined host, `:port`, `)`, path, `?query`; a
//!    reference without a host keeps `scheme:` and its path.
//!
//! Known differences from the Python package (listed with each failing case
//! in `tests/surt_ia/expected_differences.txt`): non-ASCII hosts are mapped
//! with UTS 46 (the `idna` crate) where Python uses IDNA 2003 nameprep; IP
//! strings that need a DNS lookup in Python are left alone.
//!
//! ```
//! use irinorm::surt_ia;
//! assert_eq!(surt_ia("http://www.archive.org/goo/?b&a").unwrap(), "org,archive)/goo?a&b");
//! ```

/// Why a reference has no IA SURT (the Python package raises for these).
pub fn surt_ia(input: &str) -> Result<String, String> {
    surt_ia_bytes(input.as_bytes()).map(|b| String::from_utf8_lossy(&b).into_owned())
}

struct Url {
    scheme: Option<Vec<u8>>,
    host: Option<Vec<u8>>,
    port: Option<u32>,
    path: Option<Vec<u8>>,
    query: Option<Vec<u8>>,
}

fn is_py_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

fn has_scheme(u: &[u8]) -> Option<usize> {
    if !u.first()?.is_ascii_alphabetic() {
        return None;
    }
    let end = u
        .iter()
        .position(|&b| !(b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')))?;
    (u[end] == b':').then_some(end)
}

fn nonempty(v: &[u8]) -> Option<Vec<u8>> {
    (!v.is_empty()).then(|| v.to_vec())
}

fn parse(url: &[u8]) -> Result<Url, String> {
    let start = url
        .iter()
        .position(|&b| !is_py_space(b))
        .unwrap_or(url.len());
    let end = url
        .iter()
        .rposition(|&b| !is_py_space(b))
        .map_or(start, |e| e + 1);
    let mut u: Vec<u8> = url[start..end.max(start)]
        .iter()
        .copied()
        .filter(|b| !matches!(b, b'\n' | b'\r' | b'\t'))
        .collect();
    if u.is_empty() {
        return Err("empty URL".into());
    }
    if has_scheme(&u).is_none() {
        u.splice(0..0, b"http://".iter().copied());
    }
    // ^(https?://)+ → its last repetition.
    let mut last = None;
    let mut at = 0;
    loop {
        let rest = &u[at..];
        let n = if rest.starts_with(b"http://") {
            7
        } else if rest.starts_with(b"https://") {
            8
        } else {
            break;
        };
        last = Some(at);
        at += n;
    }
    if let Some(l) = last {
        u.drain(..l);
    }
    // RFC 2396 Appendix B (scheme limited to scheme characters).
    let (scheme, rest) = match has_scheme(&u) {
        Some(i) => (Some(&u[..i]), &u[i + 1..]),
        None => (None, &u[..]),
    };
    let (rest, _fragment) = match rest.iter().position(|&b| b == b'#') {
        Some(i) => (&rest[..i], Some(&rest[i + 1..])),
        None => (rest, None),
    };
    let (rest, query) = match rest.iter().position(|&b| b == b'?') {
        Some(i) => (&rest[..i], Some(&rest[i + 1..])),
        None => (rest, None),
    };
    let (netloc, path) = match rest.strip_prefix(b"//") {
        Some(r) => {
            let e = r.iter().position(|&b| b == b'/').unwrap_or(r.len());
            (&r[..e], &r[e..])
        }
        None => (&b""[..], rest),
    };
    let mut netloc = netloc;
    while let Some(n) = netloc.strip_suffix(b":") {
        netloc = n;
    }
    // urllib's hostname / port.
    let hostinfo = match netloc.iter().rposition(|&b| b == b'@') {
        Some(i) => &netloc[i + 1..],
        None => netloc,
    };
    let (hostname, port) = match hostinfo.iter().position(|&b| b == b'[') {
        Some(i) => {
            let br = &hostinfo[i + 1..];
            match br.iter().position(|&b| b == b']') {
                Some(j) => {
                    let after = &br[j + 1..];
                    let port = after
                        .iter()
                        .position(|&b| b == b':')
                        .map_or(&b""[..], |k| &after[k + 1..]);
                    (&br[..j], port)
                }
                None => (br, &b""[..]),
            }
        }
        None => match hostinfo.iter().position(|&b| b == b':') {
            Some(i) => (&hostinfo[..i], &hostinfo[i + 1..]),
            None => (hostinfo, &b""[..]),
        },
    };
    let port = if port.is_empty() {
        None
    } else if port.iter().all(u8::is_ascii_digit) {
        let digits = std::str::from_utf8(port).unwrap_or("0");
        let v: u64 = digits.trim_start_matches('0').parse().unwrap_or(
            if digits.trim_start_matches('0').is_empty() {
                0
            } else {
                u64::MAX
            },
        );
        if v > 65535 {
            return Err("port out of range 0-65535".into());
        }
        (v != 0).then_some(v as u32)
    } else {
        return Err(format!(
            "port {:?} is not a number",
            String::from_utf8_lossy(port)
        ));
    };
    let mut host = if hostname.is_empty() {
        None
    } else {
        // Lowercased before any '%' (the zone id is kept as written).
        let mut h = hostname.to_vec();
        let cut = h.iter().position(|&b| b == b'%').unwrap_or(h.len());
        h[..cut].make_ascii_lowercase();
        Some(h)
    };
    let mut path = nonempty(path);
    let scheme = scheme.and_then(nonempty);
    let Some(s) = &scheme else {
        return Err("no scheme".into());
    };
    if s.starts_with(b"http") && host.is_none() {
        if let Some(p) = &path {
            let p = {
                let i = p.iter().position(|&b| b != b'/').unwrap_or(p.len());
                &p[i..]
            };
            let (h, rest) = match p.iter().position(|&b| b == b'/') {
                Some(i) => (&p[..i], &p[i + 1..]),
                None => (p, &b""[..]),
            };
            host = Some(h.to_vec());
            let mut np = b"/".to_vec();
            np.extend_from_slice(rest);
            path = Some(np);
        }
    }
    Ok(Url {
        scheme,
        host,
        port,
        path,
        query: query.and_then(nonempty),
    })
}

fn unquote(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i] == b'%' && i + 2 < s.len() {
            if let (Some(h), Some(l)) =
                (crate::pct::hex_val(s[i + 1]), crate::pct::hex_val(s[i + 2]))
            {
                out.push(h * 16 + l);
                i += 3;
                continue;
            }
        }
        out.push(s[i]);
        i += 1;
    }
    out
}

fn unescape_repeatedly(s: &[u8]) -> Vec<u8> {
    let mut cur = s.to_vec();
    loop {
        let un = unquote(&cur);
        if un == cur {
            return cur;
        }
        cur = un;
    }
}

/// `quote_from_bytes` with the package's safe set: escapes controls, space,
/// `#`, `%` and every byte ≥ 0x7F.
fn escape_once(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    for &b in s {
        if b > 0x20 && b < 0x7f && b != b'#' && b != b'%' {
            out.push(b);
        } else {
            out.extend_from_slice(format!("%{b:02X}").as_bytes());
        }
    }
    out
}

fn normalize_path(path: &[u8]) -> Vec<u8> {
    if path.is_empty() {
        return b"/".to_vec();
    }
    let mut kept: Vec<&[u8]> = Vec::new();
    for p in path.split(|&b| b == b'/').skip(1) {
        match p {
            b"." => {}
            b".." => {
                if kept.pop().is_none() {
                    kept.push(p);
                }
            }
            _ => kept.push(p),
        }
    }
    let mut out = b"/".to_vec();
    if let Some((last, init)) = kept.split_last() {
        for p in init.iter().filter(|p| !p.is_empty()) {
            out.extend_from_slice(p);
            out.push(b'/');
        }
        out.extend_from_slice(last);
    }
    out
}

/// glibc `inet_aton`: 1 to 4 parts, each decimal, `0` octal or `0x` hex;
/// the last part fills the remaining bytes.
fn inet_aton(s: &[u8]) -> Option<[u8; 4]> {
    let s = std::str::from_utf8(s).ok()?;
    let parts: Vec<&str> = s.split('.').collect();
    if parts.is_empty() || parts.len() > 4 {
        return None;
    }
    let mut vals = Vec::with_capacity(4);
    for p in &parts {
        let v = if let Some(h) = p.strip_prefix("0x").or_else(|| p.strip_prefix("0X")) {
            if h.is_empty() {
                0
            } else {
                u64::from_str_radix(h, 16).ok()?
            }
        } else if p.len() > 1 && p.starts_with('0') {
            u64::from_str_radix(&p[1..], 8).ok()?
        } else {
            p.parse::<u64>().ok()?
        };
        vals.push(v);
    }
    let (last, init) = vals.split_last()?;
    if init.iter().any(|&v| v > 255) {
        return None;
    }
    let rest_bytes = 4 - init.len();
    if *last >= 1u64 << (8 * rest_bytes) {
        return None;
    }
    let mut n: u64 = 0;
    for v in init {
        n = (n << 8) | v;
    }
    n = (n << (8 * rest_bytes)) | last;
    Some((n as u32).to_be_bytes())
}

fn matches_octal_ip(h: &[u8]) -> bool {
    // ^(0[0-7]*)(\.[0-7]+)?(\.[0-7]+)?(\.[0-7]+)?$
    let parts: Vec<&[u8]> = h.split(|&b| b == b'.').collect();
    parts.len() <= 4
        && parts[0].first() == Some(&b'0')
        && parts[0].iter().all(|b| (b'0'..=b'7').contains(b))
        && parts[1..]
            .iter()
            .all(|p| !p.is_empty() && p.iter().all(|b| (b'0'..=b'7').contains(b)))
}

fn matches_decimal_ip(h: &[u8]) -> bool {
    // ^([1-9][0-9]*)(\.[0-9]+)?(\.[0-9]+)?(\.[0-9]+)?$
    let parts: Vec<&[u8]> = h.split(|&b| b == b'.').collect();
    parts.len() <= 4
        && matches!(parts[0].first(), Some(b'1'..=b'9'))
        && parts[0].iter().all(u8::is_ascii_digit)
        && parts[1..]
            .iter()
            .all(|p| !p.is_empty() && p.iter().all(u8::is_ascii_digit))
}

fn dotted(a: [u8; 4]) -> Vec<u8> {
    format!("{}.{}.{}.{}", a[0], a[1], a[2], a[3]).into_bytes()
}

fn attempt_ip(h: &[u8]) -> Option<Vec<u8>> {
    if !h.is_empty() && h.iter().all(u8::is_ascii_digit) {
        // int(host) & 0xffffffff
        let mut n: u32 = 0;
        for &d in h {
            n = n.wrapping_mul(10).wrapping_add(u32::from(d - b'0'));
        }
        return Some(dotted(n.to_be_bytes()));
    }
    if matches_decimal_ip(h) || matches_octal_ip(h) {
        // Python asks the resolver; numeric forms resolve as inet_aton.
        return inet_aton(h).map(dotted);
    }
    None
}

fn canon_host(host: &[u8]) -> Vec<u8> {
    let mut h = unescape_repeatedly(host);
    if !h.is_ascii() {
        let s = String::from_utf8_lossy(&h).replace('\u{FFFD}', "");
        if let Ok(a) = idna::domain_to_ascii(&s) {
            h = a.into_bytes();
        }
    }
    // bytes.replace(b'..', b'.'): one left-to-right pass.
    let mut r = Vec::with_capacity(h.len());
    let mut i = 0;
    while i < h.len() {
        if h[i] == b'.' && h.get(i + 1) == Some(&b'.') {
            r.push(b'.');
            i += 2;
        } else {
            r.push(h[i]);
            i += 1;
        }
    }
    let s = r.iter().position(|&b| b != b'.').unwrap_or(r.len());
    let e = r.iter().rposition(|&b| b != b'.').map_or(s, |e| e + 1);
    let h = &r[s..e.max(s)];
    match attempt_ip(h) {
        Some(ip) => ip,
        None => escape_once(&h.to_ascii_lowercase()),
    }
}

fn massage_host(h: &[u8]) -> &[u8] {
    if let Some(rest) = h.strip_prefix(b"www") {
        let d = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        if rest.get(d) == Some(&b'.') {
            return &rest[d + 1..];
        }
    }
    h
}

fn is_alnum(b: &u8) -> bool {
    b.is_ascii_alphanumeric()
}

/// `^(.*/)(\((?:[a-z]\([0-9a-z]{24}\))+\)/|\([0-9a-z]{24}\)/)([^?]+\.aspx.*)$`
/// (case-insensitive), the two patterns applied one after the other.
fn strip_path_session(path: Vec<u8>) -> Vec<u8> {
    fn form1(s: &[u8]) -> Option<usize> {
        let mut i = 1;
        if s.first() != Some(&b'(') {
            return None;
        }
        let mut n = 0;
        while s.len() >= i + 27
            && s[i].is_ascii_alphabetic()
            && s[i + 1] == b'('
            && s[i + 2..i + 26].iter().all(is_alnum)
            && s[i + 26] == b')'
        {
            i += 27;
            n += 1;
        }
        (n > 0 && s.get(i) == Some(&b')') && s.get(i + 1) == Some(&b'/')).then_some(i + 2)
    }
    fn form2(s: &[u8]) -> Option<usize> {
        (s.len() >= 27
            && s[0] == b'('
            && s[1..25].iter().all(is_alnum)
            && s[25] == b')'
            && s[26] == b'/')
            .then_some(27)
    }
    fn tail_ok(t: &[u8]) -> bool {
        // [^?]+\.aspx.*
        let q = t.iter().position(|&b| b == b'?').unwrap_or(t.len());
        (1..t.len())
            .any(|j| j <= q && t.len() >= j + 5 && t[j..j + 5].eq_ignore_ascii_case(b".aspx"))
    }
    let mut path = path;
    for form in [form1 as fn(&[u8]) -> Option<usize>, form2] {
        let found = (1..=path.len()).rev().find_map(|i| {
            if path[i - 1] != b'/' {
                return None;
            }
            let len = form(&path[i..])?;
            tail_ok(&path[i + len..]).then_some((i, len))
        });
        if let Some((i, len)) = found {
            path.drain(i..i + len);
        }
    }
    path
}

/// The five query session-id patterns of `URLRegexTransformer`, each
/// `^(.*)(?:ID)(?:&(.*))?$` (case-insensitive), applied in order.
fn strip_query_session(query: Vec<u8>) -> Vec<u8> {
    fn fixed(
        lit: &'static [u8],
        n: usize,
        class: fn(&u8) -> bool,
    ) -> impl Fn(&[u8]) -> Option<usize> {
        move |s: &[u8]| {
            (s.len() >= lit.len() + n
                && s[..lit.len()].eq_ignore_ascii_case(lit)
                && s[lit.len()..lit.len() + n].iter().all(class))
            .then_some(lit.len() + n)
        }
    }
    fn asp(s: &[u8]) -> Option<usize> {
        let l = b"aspsessionid".len();
        (s.len() >= l + 8 + 1 + 24
            && s[..l].eq_ignore_ascii_case(b"aspsessionid")
            && s[l..l + 8].iter().all(u8::is_ascii_alphabetic)
            && s[l + 8] == b'='
            && s[l + 9..l + 33].iter().all(u8::is_ascii_alphabetic))
        .then_some(l + 33)
    }
    fn cf(s: &[u8]) -> Option<usize> {
        if s.len() < 5 || !s[..5].eq_ignore_ascii_case(b"cfid=") {
            return None;
        }
        let a = s[5..].iter().position(|&b| b == b'&').map(|p| p + 5)?;
        if a == 5 || s.len() < a + 9 || !s[a..a + 9].eq_ignore_ascii_case(b"&cftoken=") {
            return None;
        }
        let b = s[a + 9..]
            .iter()
            .position(|&b| b == b'&')
            .map_or(s.len(), |p| p + a + 9);
        (b > a + 9).then_some(b)
    }
    let jsid = fixed(b"jsessionid=", 32, is_alnum);
    let php = fixed(b"phpsessid=", 32, is_alnum);
    let sid = fixed(b"sid=", 32, is_alnum);
    type Matcher<'m> = &'m dyn Fn(&[u8]) -> Option<usize>;
    let patterns: [Matcher; 5] = [&jsid, &php, &sid, &asp, &cf];
    let mut q = query;
    for pat in patterns {
        let found = (0..=q.len()).rev().find_map(|i| {
            let len = pat(&q[i..])?;
            let after = &q[i + len..];
            if after.is_empty() {
                Some((i, None))
            } else if after[0] == b'&' {
                Some((i, Some(i + len + 1)))
            } else {
                None
            }
        });
        if let Some((i, rest)) = found {
            let mut n = q[..i].to_vec();
            if let Some(r) = rest {
                n.extend_from_slice(&q[r..]);
            }
            q = n;
        }
    }
    q
}

fn alpha_reorder(q: &[u8]) -> Vec<u8> {
    if q.len() <= 1 {
        return q.to_vec();
    }
    let mut args: Vec<(&[u8], Option<&[u8]>)> = q
        .split(|&b| b == b'&')
        .map(|a| match a.iter().position(|&b| b == b'=') {
            Some(i) => (&a[..i], Some(&a[i + 1..])),
            None => (a, None),
        })
        .collect();
    args.sort();
    let mut out = Vec::with_capacity(q.len());
    for (i, (k, v)) in args.iter().enumerate() {
        if i > 0 {
            out.push(b'&');
        }
        out.extend_from_slice(k);
        if let Some(v) = v {
            out.push(b'=');
            out.extend_from_slice(v);
        }
    }
    out
}

fn host_to_surt(h: &[u8]) -> Vec<u8> {
    let mut parts: Vec<&[u8]> = h.split(|&b| b == b'.').collect();
    parts.reverse();
    parts.join(&b","[..])
}

/// [`surt_ia`] on bytes (the package works on the UTF-8 bytes of a URL).
pub fn surt_ia_bytes(input: &[u8]) -> Result<Vec<u8>, String> {
    if input.is_empty() {
        return Ok(b"-".to_vec());
    }
    if input.starts_with(b"filedesc") {
        return Ok(input.to_vec());
    }
    let mut u = parse(input)?;
    // GoogleURLCanonicalizer
    if let Some(q) = &u.query {
        u.query = Some(escape_once(&unescape_repeatedly(q)));
    }
    if let Some(h) = u.host.as_ref().filter(|h| !h.is_empty()) {
        u.host = Some(canon_host(h));
    }
    let has_host = u.host.as_ref().is_some_and(|h| !h.is_empty());
    let path = u.path.as_deref().map(unescape_repeatedly);
    let path = if has_host {
        Some(normalize_path(path.as_deref().unwrap_or_default()))
    } else {
        path
    };
    u.path = path.map(|p| escape_once(&p));
    // IAURLCanonicalizer
    let scheme = u.scheme.clone().unwrap_or_default();
    if let Some(h) = &u.host {
        let mut h = h.to_ascii_lowercase();
        if scheme != b"dns" {
            h = massage_host(&h).to_vec();
        }
        u.host = Some(h);
    }
    // IA drops the default port of http and https only.
    let default_port = std::str::from_utf8(&scheme.to_ascii_lowercase())
        .ok()
        .and_then(crate::scheme::get)
        .filter(|r| r.http)
        .and_then(|r| r.default_port)
        .and_then(|p| p.parse::<u32>().ok());
    if u.port.is_some() && u.port == default_port {
        u.port = None;
    }
    if let Some(p) = u.path.take() {
        let mut p = p.to_ascii_lowercase();
        p = strip_path_session(p);
        if p.len() > 1 && p.ends_with(b"/") {
            p.pop();
        }
        u.path = nonempty(&p);
    }
    if let Some(q) = u.query.take() {
        let q = strip_query_session(q).to_ascii_lowercase();
        let q = alpha_reorder(&q);
        u.query = (!q.is_empty()).then_some(q);
    }
    // SURT writer, without scheme.
    let mut out = Vec::new();
    let host = u.host.as_ref().filter(|h| !h.is_empty());
    match host {
        Some(h) => {
            out.extend_from_slice(&host_to_surt(h));
            if let Some(p) = u.port {
                out.extend_from_slice(format!(":{p}").as_bytes());
            }
            out.push(b')');
        }
        None => {
            out.extend_from_slice(&scheme);
            out.push(b':');
        }
    }
    match &u.path {
        Some(p) => out.extend_from_slice(p),
        None if u.query.is_some() => out.push(b'/'),
        None => {}
    }
    if let Some(q) = &u.query {
        out.push(b'?');
        out.extend_from_slice(q);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Examples from the `surt` package's own test suite and README.
    #[test]
    fn package_examples() {
        for (input, want) in [
            ("http://www.archive.org/goo/?b&a", "org,archive)/goo?a&b"),
            ("http://archive.org/index.html", "org,archive)/index.html"),
            (
                "http://archive.org/goo/?a=2&b&a=1",
                "org,archive)/goo?a=1&a=2&b",
            ),
            ("http://www34.archive.org/", "org,archive)/"),
            ("http://www.archive.org:80/", "org,archive)/"),
            ("https://www.archive.org:443/", "org,archive)/"),
            ("http://archive.org:8080/", "org,archive:8080)/"),
            ("archive.org/goo", "org,archive)/goo"),
            ("dns:archive.org", "dns:archive.org"),
            ("filedesc:foo.arc.gz", "filedesc:foo.arc.gz"),
            ("http://1.2.3.4/x", "4,3,2,1)/x"),
            ("http://3279880203/x", "11,0,127,195)/x"),
            ("http://example.com/A/./B/../C//d/", "com,example)/a/c/d"),
            ("http://example.com/%2541", "com,example)/a"),
            ("http://example.com/a%zz b#f", "com,example)/a%25zz%20b"),
            ("http://user:pw@example.com/", "com,example)/"),
            (
                "http://example.com/x?jsessionid=0123456789abcdef0123456789abcdef&a=1",
                "com,example)/x?a=1",
            ),
            (
                "http://example.com/x/(0123456789abcdefghijklmn)/y.aspx",
                "com,example)/x/y.aspx",
            ),
            ("", "-"),
        ] {
            assert_eq!(surt_ia(input).unwrap(), want, "{input}");
        }
    }

    proptest::proptest! {
        #[test]
        fn never_panics(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..64)) {
            let _ = surt_ia_bytes(&bytes);
        }

        #[test]
        fn never_panics_on_url_like(s in "(https?://)?[a-zA-Z0-9.%:@\\[\\]/?#&=()_-]{0,60}") {
            let _ = surt_ia(&s);
        }
    }

    #[test]
    fn bad_ports_are_errors() {
        assert!(surt_ia("http://a.example:99999/").is_err());
        assert!(surt_ia("http://a.example:x/").is_err());
        assert!(surt_ia("   ").is_err());
    }
}
