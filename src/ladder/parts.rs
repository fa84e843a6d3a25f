//! A scheme-rung key cut into parts that the protocol rung's rules rewrite
//! (draft-ietf-iri-3987bis §5.3.4), the guard that keeps a rewrite only when
//! the key's structure survives it (§10), and the directory index names
//! several rules recognise.

use std::borrow::Cow;

use crate::iri::{HostKind, IriRef};

/// Directory index file names dropped by [`Rule::StripIndex`](super::protocol::Rule::StripIndex) (exact,
/// case-sensitive except the IIS names, which IIS matches case-insensitively
/// and which are commonly written `Default.aspx`).
pub const INDEX_NAMES: &[&str] = &[
    "index.html",
    "index.htm",
    "index.shtml",
    "index.php",
    "index.asp",
    "index.aspx",
    "index.jsp",
    "index.cgi",
    "default.htm",
    "default.html",
    "default.asp",
    "default.aspx",
    "Default.htm",
    "Default.html",
    "Default.asp",
    "Default.aspx",
];

/// The parts of a URI-form key, each possibly rewritten.
#[derive(Clone)]
pub(crate) struct Parts<'a> {
    pub scheme: Cow<'a, str>,
    /// Userinfo with its `@`, or empty.
    pub userinfo: &'a str,
    pub host: Cow<'a, str>,
    pub host_kind: Option<HostKind>,
    /// Port with its `:`, or empty.
    pub port: &'a str,
    pub has_authority: bool,
    pub path: Cow<'a, str>,
    pub query: Option<Cow<'a, str>>,
    pub fragment: Option<&'a str>,
}

impl<'a> Parts<'a> {
    pub(crate) fn of(r: &IriRef<'a>) -> Self {
        let s = r.as_str();
        let (userinfo, port) = match (r.host_range(), r.authority()) {
            (Some((hs, he)), Some(a)) => {
                let a = a.as_ptr() as usize - s.as_ptr() as usize;
                let (ps, _) = r.path_range();
                (&s[a..hs], &s[he..ps])
            }
            _ => ("", ""),
        };
        Parts {
            scheme: Cow::Borrowed(r.scheme().unwrap_or("")),
            userinfo,
            host: Cow::Borrowed(r.host().unwrap_or("")),
            host_kind: r.host_kind(),
            port,
            has_authority: r.authority().is_some(),
            path: Cow::Borrowed(r.path()),
            query: r.query().map(Cow::Borrowed),
            fragment: r.fragment(),
        }
    }

    pub(crate) fn write(&self) -> String {
        let mut out = String::with_capacity(
            self.scheme.len() + self.host.len() + self.path.len() + self.userinfo.len() + 16,
        );
        if !self.scheme.is_empty() {
            out.push_str(&self.scheme);
            out.push(':');
        }
        if self.has_authority {
            out.push_str("//");
            out.push_str(self.userinfo);
            out.push_str(&self.host);
            out.push_str(self.port);
        }
        out.push_str(&self.path);
        if let Some(q) = &self.query {
            out.push('?');
            out.push_str(q);
        }
        if let Some(f) = self.fragment {
            out.push('#');
            out.push_str(f);
        }
        out
    }
}

/// Every rule re-checks structure (3987bis §10, §5.1 "strictly avoiding
/// false positives"): apply `rule` to `p`, and keep its change only when the
/// written result still is a canonical scheme-rung key that re-parses into
/// exactly the parts the rule meant — same scheme, authority present or not,
/// same userinfo, host (and host kind: a reg-name never turns into an IPv4
/// address), port, path, query and fragment — and whose path has no dot
/// segment the scheme rung would remove. Otherwise the parts are restored
/// and the rule does not apply to this reference. `true` when it applied.
///
/// Example: `session` on `http:/;jsessionid=/evil.example/x` would leave
/// `http://evil.example/x`, whose path re-parses as an authority; the guard
/// refuses it.
pub(crate) fn guarded<'a>(p: &mut Parts<'a>, rule: impl FnOnce(&mut Parts<'a>) -> bool) -> bool {
    let before = p.clone();
    if !rule(p) {
        return false;
    }
    if keeps_structure(p) {
        true
    } else {
        *p = before;
        false
    }
}

/// `p` written re-parses into the same parts and is canonical in its path
/// (see [`guarded`]).
fn keeps_structure(p: &Parts<'_>) -> bool {
    let text = p.write();
    let Ok(r) = crate::iri::parse(&text) else {
        return false;
    };
    let q = Parts::of(&r);
    let path_ok = if !p.has_authority && p.path.starts_with("/.//") {
        // The scheme rung's own spelling of a path that starts with "//"
        // when there is no authority.
        !crate::resolve::has_dot_segments(&p.path[2..])
    } else {
        !(p.path.starts_with('/') && crate::resolve::has_dot_segments(&p.path))
            && (p.has_authority || !p.path.starts_with("//"))
    };
    path_ok
        && q.scheme == p.scheme
        && q.has_authority == p.has_authority
        && q.userinfo == p.userinfo
        && q.host == p.host
        && q.host_kind == p.host_kind
        && q.port == p.port
        && q.path == p.path
        && q.query == p.query
        && q.fragment == p.fragment
}
