//! Reference resolution, RFC 3986 §5.2 (strict parser), with the characters
//! IRIs add treated like unreserved ones (draft-ietf-iri-3987bis §6.5): the
//! algorithm works on components and never looks inside them, so it is the
//! same for IRIs and URIs.

use crate::iri::IriRef;

/// Resolve `reference` against the absolute `base` (RFC 3986 §5.2.2,
/// recomposed per §5.3).
///
/// ```
/// let base = irinorm::parse("http://a/b/c/d;p?q").unwrap();
/// let r = irinorm::parse("../g").unwrap();
/// assert_eq!(irinorm::resolve(&base, &r), "http://a/b/g");
/// ```
pub fn resolve(base: &IriRef<'_>, r: &IriRef<'_>) -> String {
    let mut out = String::with_capacity(base.as_str().len() + r.as_str().len());
    let (scheme, authority, path, query): (
        &str,
        Option<&str>,
        std::borrow::Cow<'_, str>,
        Option<&str>,
    );
    if let Some(s) = r.scheme() {
        scheme = s;
        authority = r.authority();
        path = remove_dot_segments(r.path()).into();
        query = r.query();
    } else {
        scheme = base.scheme().unwrap_or("");
        if r.authority().is_some() {
            authority = r.authority();
            path = remove_dot_segments(r.path()).into();
            query = r.query();
        } else {
            authority = base.authority();
            if r.path().is_empty() {
                path = base.path().into();
                query = if r.query().is_some() {
                    r.query()
                } else {
                    base.query()
                };
            } else {
                path = if r.path().starts_with('/') {
                    remove_dot_segments(r.path())
                } else {
                    remove_dot_segments(&merge(base, r.path()))
                }
                .into();
                query = r.query();
            }
        }
    }
    // §5.3 component recomposition.
    out.push_str(scheme);
    out.push(':');
    if let Some(a) = authority {
        out.push_str("//");
        out.push_str(a);
    } else if path.starts_with("//") {
        // Without an authority a path may not start with "//" (it would be
        // read as one); "/." keeps the meaning (RFC 3986 §3.3, as WHATWG does).
        out.push_str("/.");
    }
    out.push_str(&path);
    if let Some(q) = query {
        out.push('?');
        out.push_str(q);
    }
    if let Some(f) = r.fragment() {
        out.push('#');
        out.push_str(f);
    }
    out
}

/// RFC 3986 §5.2.3 merge.
fn merge(base: &IriRef<'_>, rel: &str) -> String {
    if base.authority().is_some() && base.path().is_empty() {
        let mut m = String::with_capacity(rel.len() + 1);
        m.push('/');
        m.push_str(rel);
        m
    } else {
        let bp = base.path();
        let keep = bp.rfind('/').map_or(0, |i| i + 1);
        let mut m = String::with_capacity(keep + rel.len());
        m.push_str(&bp[..keep]);
        m.push_str(rel);
        m
    }
}

pub use crate::iri::path::has_dot_segments;
pub(crate) use crate::iri::path::{dot_segment_at, first_dot_segment, next_dot_segment};

/// The dot segment whose `.` is at `b[dot]`: where it ends, and whether
/// it is `..` (RFC 3986 §5.2.4 C: it drops the output's last segment).
#[inline]
fn dot_segment_end(b: &[u8], dot: usize) -> (usize, bool) {
    if b.get(dot + 1) == Some(&b'.') {
        (dot + 2, true)
    } else {
        (dot + 1, false)
    }
}

/// Where the last segment of the output `out[floor..]` starts (its '/'),
/// or `floor`: the output's length once "the last segment" is dropped.
/// A byte loop, not `memrchr`: segments are a few bytes long, and a call
/// costs more than it saves there.
#[inline]
fn last_segment_start(out: &[u8], floor: usize) -> usize {
    out[floor..]
        .iter()
        .rposition(|&c| c == b'/')
        .map_or(floor, |i| floor + i)
}

/// The dot segments of a path, found once: for a path of fewer than 64
/// bytes, each one's first `.` as a bit of a mask, from the path's `.` and
/// `/` bytes (a `.` after a `/` or at the start, then a `/` or the end, or
/// a second `.` and then one); a longer path is searched 16 bytes at a
/// time ([`next_dot_segment`]). The mask costs a few compares per 16 bytes
/// and no branch per `.`, where a search called again after each segment
/// stops at every `.` of `/a.html` to look around it (BENCHMARKS.md,
/// decision log: "Dot segments").
struct DotSegments<'a> {
    b: &'a [u8],
    mask: Option<u64>,
}

impl<'a> DotSegments<'a> {
    #[inline]
    fn new(b: &'a [u8]) -> Self {
        let mask = (b.len() < 64).then(|| {
            let (dot, slash) = crate::simd::scan::dots_and_slashes(b);
            // A segment ends at a '/' or at the end of the path.
            let end = slash | 1 << b.len();
            let start = slash << 1 | 1;
            let single = dot & start & end >> 1;
            let double = dot & start & dot >> 1 & end >> 2;
            single | double
        });
        DotSegments { b, mask }
    }

    /// The first `.` at or after `from` that starts a dot segment.
    #[inline]
    fn at_or_after(&self, from: usize) -> Option<usize> {
        match self.mask {
            Some(m) => {
                let m = m & u64::MAX.checked_shl(from as u32).unwrap_or(0);
                (m != 0).then(|| m.trailing_zeros() as usize)
            }
            None => next_dot_segment(self.b, from),
        }
    }
}

/// RFC 3986 §5.2.4 remove_dot_segments.
///
/// ```
/// use irinorm::remove_dot_segments;
/// assert_eq!(remove_dot_segments("/a/b/c/./../../g"), "/a/g");
/// assert_eq!(remove_dot_segments("mid/content=5/../6"), "mid/6");
/// ```
pub fn remove_dot_segments(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    remove_dot_segments_into(path, &mut out);
    out
}

/// [`remove_dot_segments`] appended to `out` (what `out` holds already is
/// kept: "drop the last output segment" never reaches into it).
pub fn remove_dot_segments_into(path: &str, out: &mut String) {
    if path.starts_with('/') {
        push_without_dot_segments(out, path);
    } else if has_dot_segments(path) {
        rfc_steps(path, out);
    } else {
        out.push_str(path);
    }
}

/// The steps of RFC 3986 §5.2.4 as written, appending to `out` (for a path
/// that does not start with '/', such as a relative reference's
/// `mid/content=5/../6`).
fn rfc_steps(path: &str, out: &mut String) {
    let floor = out.len();
    let mut input = path;
    while !input.is_empty() {
        // A: remove a prefix "../" or "./"
        if let Some(rest) = input.strip_prefix("../") {
            input = rest;
        } else if let Some(rest) = input.strip_prefix("./") {
            input = rest;
        }
        // B: "/./" or "/." at the end → "/"
        else if input.starts_with("/./") {
            input = &input[2..];
        } else if input == "/." {
            input = "/";
        }
        // C: "/../" or "/.." at the end → "/", and drop the last output segment
        else if input.starts_with("/../") || input == "/.." {
            input = if input.len() == 3 { "/" } else { &input[3..] };
            out.truncate(last_segment_start(out.as_bytes(), floor));
        }
        // D: "." or ".." alone
        else if input == "." || input == ".." {
            input = "";
        }
        // E: move the first segment (with its leading "/", if any) to output
        else {
            let start = usize::from(input.starts_with('/'));
            let end = input.as_bytes()[start..]
                .iter()
                .position(|&c| c == b'/')
                .map_or(input.len(), |i| i + start);
            out.push_str(&input[..end]);
            input = &input[end..];
        }
    }
}

/// Append `path` (which starts with '/') to `out` without its dot
/// segments (RFC 3986 §5.2.4; a path without any is copied as it is):
/// the steps of [`remove_dot_segments_from`], but copying from `path` and
/// finding its dot segments in `path` ([`DotSegments`]), not in the bytes
/// just written. Read back at once, those stall the 16-byte loads of a
/// search (stores not yet drained forward to no wider load; BENCHMARKS.md,
/// decision log: "Store-to-load forwarding").
pub(crate) fn push_without_dot_segments(out: &mut String, path: &str) {
    let b = path.as_bytes();
    assert!(b.first() == Some(&b'/'), "not an absolute path");
    let segments = DotSegments::new(b);
    let floor = out.len();
    // `b[r]` is a '/' (or `r == b.len()`).
    let (mut r, mut next) = (0, segments.at_or_after(0));
    while let Some(dot) = next {
        // `b[dot - 1]` is the dot segment's '/' (the path starts with one):
        // the segments before it are kept as one block.
        out.push_str(&path[r..dot - 1]);
        let (e, up) = dot_segment_end(b, dot);
        if up {
            out.truncate(last_segment_start(out.as_bytes(), floor));
        }
        if e == b.len() {
            out.push('/');
        }
        r = e;
        next = segments.at_or_after(r + 1);
    }
    out.push_str(&path[r..]);
}

/// [`remove_dot_segments`] of `out[floor..]`, a path that starts with '/',
/// in place (no second buffer), its first dot segment known to start at
/// `out[first]` (a `.` after a `/`, `first > floor`, as
/// [`first_dot_segment`] of the path found it). Segment by segment, which
/// for such a path is what the steps of RFC 3986 §5.2.4 come to: a `.`
/// segment is dropped, a `..` segment drops the output's last segment
/// (never below `floor`), any other segment is kept with its '/', and a
/// final `.` or `..` leaves the output ending in '/'. The output never
/// gets ahead of the input. Only the dot segments are visited
/// ([`next_dot_segment`]); the text between two of them is moved as one
/// block. For a path percent-decoded into `out` (a `%2E` may have made
/// the dot segment); one as written is [`push_without_dot_segments`].
pub(crate) fn remove_dot_segments_from(out: &mut String, floor: usize, first: usize) {
    // Real checks, not debug ones: the argument below needs the path to
    // start with '/' (else its first byte, perhaps part of a character,
    // would be taken for one), and `first` to be a dot segment's.
    assert!(
        out.as_bytes().get(floor) == Some(&b'/'),
        "not an absolute path"
    );
    assert!(
        first > floor && dot_segment_at(out.as_bytes(), first),
        "not a dot segment"
    );
    // SAFETY: only whole segments, which lie between '/' bytes (ASCII), are
    // moved or dropped, and only '/' is written: the bytes stay UTF-8.
    let b = unsafe { out.as_mut_vec() };
    let end = b.len();
    // `b[r]` is a '/' (or `r == end`). The segments up to the next dot
    // segment are kept as they are: moved as one block, not one by one.
    let (mut r, mut w) = (floor, floor);
    let mut next = Some(first);
    while let Some(dot) = next {
        // `dot > r >= floor`, and `b[dot - 1]` is the dot segment's '/'.
        let slash = dot - 1;
        b.copy_within(r..slash, w);
        w += slash - r;
        let (e, up) = dot_segment_end(b, dot);
        if up {
            w = last_segment_start(&b[..w], floor);
        }
        if e == end {
            b[w] = b'/';
            w += 1;
        }
        r = e;
        next = next_dot_segment(&b[..end], r + 1);
    }
    b.copy_within(r..end, w);
    w += end - r;
    b.truncate(w);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iri::parse;

    fn res(base: &str, r: &str) -> String {
        resolve(&parse(base).unwrap(), &parse(r).unwrap())
    }

    #[test]
    fn rfc3986_5_4_1_normal_examples() {
        let b = "http://a/b/c/d;p?q";
        for (r, want) in [
            ("g:h", "g:h"),
            ("g", "http://a/b/c/g"),
            ("./g", "http://a/b/c/g"),
            ("g/", "http://a/b/c/g/"),
            ("/g", "http://a/g"),
            ("//g", "http://g"),
            ("?y", "http://a/b/c/d;p?y"),
            ("g?y", "http://a/b/c/g?y"),
            ("#s", "http://a/b/c/d;p?q#s"),
            ("g#s", "http://a/b/c/g#s"),
            ("g?y#s", "http://a/b/c/g?y#s"),
            (";x", "http://a/b/c/;x"),
            ("g;x", "http://a/b/c/g;x"),
            ("g;x?y#s", "http://a/b/c/g;x?y#s"),
            ("", "http://a/b/c/d;p?q"),
            (".", "http://a/b/c/"),
            ("./", "http://a/b/c/"),
            ("..", "http://a/b/"),
            ("../", "http://a/b/"),
            ("../g", "http://a/b/g"),
            ("../..", "http://a/"),
            ("../../", "http://a/"),
            ("../../g", "http://a/g"),
        ] {
            assert_eq!(res(b, r), want, "{r}");
        }
    }

    #[test]
    fn dot_segments() {
        assert_eq!(remove_dot_segments("/a/b/c/./../../g"), "/a/g");
        assert_eq!(remove_dot_segments("mid/content=5/../6"), "mid/6");
        assert_eq!(remove_dot_segments("/.."), "/");
        assert_eq!(remove_dot_segments("/a/.."), "/");
        assert_eq!(remove_dot_segments("/a/..b/.c"), "/a/..b/.c");
        assert!(!has_dot_segments("/a/..b/.c/d."));
        assert!(has_dot_segments("."));
        assert!(has_dot_segments("/a/.."));
        assert!(has_dot_segments("/./a"));
        assert!(has_dot_segments(".."));
        assert!(has_dot_segments("a/../b"));
        assert!(!has_dot_segments(""));
        assert!(!has_dot_segments("/a./b"));
        assert!(!has_dot_segments("/..."));
    }

    #[test]
    fn dot_segments_appended_never_reach_into_what_was_there() {
        for (path, want) in [
            ("/..", "http://a/"),
            ("/a/../../b", "http://a/b"),
            ("../x", "http://ax"),
        ] {
            let mut out = String::from("http://a");
            remove_dot_segments_into(path, &mut out);
            assert_eq!(out, want, "{path}");
        }
    }

    /// The segments are split and compared: the definition, slowly.
    fn dot_segments_oracle(path: &str) -> bool {
        path.split('/').any(|s| s == "." || s == "..")
    }

    #[test]
    fn a_dot_segment_is_found_at_every_place_and_length() {
        // Each dot segment, at each offset of paths of 0..=40 bytes (so
        // in every 16-byte block, in the overlapping last one, and cut by
        // a block edge), among filler that has dots too.
        for len in 0..=40 {
            for at in 0..=len {
                for seg in [".", "..", "...", ".a", "a."] {
                    let mut p: String = (0..len)
                        .map(|i| if i % 7 == 3 { '.' } else { 'x' })
                        .collect();
                    p.truncate(at);
                    p.push('/');
                    p.push_str(seg);
                    if at % 2 == 0 {
                        p.push('/');
                    }
                    p.push_str("y.z");
                    assert_eq!(has_dot_segments(&p), dot_segments_oracle(&p), "{p:?}");
                    assert_eq!(
                        has_dot_segments(&p[1..]),
                        dot_segments_oracle(&p[1..]),
                        "{p:?}"
                    );
                }
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn dot_segments_agree_with_splitting(p in "[./a]{0,48}") {
            proptest::prop_assert_eq!(has_dot_segments(&p), dot_segments_oracle(&p));
        }

        /// The search from any place finds the first dot segment there, as
        /// one byte at a time does (the 16-byte blocks, and the last block
        /// that overlaps looked-at bytes, are where they could differ).
        #[test]
        fn the_next_dot_segment_from_anywhere(p in "[./a]{0,48}", from in 0usize..48) {
            let b = p.as_bytes();
            let from = from.min(b.len());
            let want = (from..b.len()).find(|&i| b[i] == b'.' && dot_segment_at(b, i));
            proptest::prop_assert_eq!(next_dot_segment(b, from), want);
        }

        /// The dot segments found at once (the mask, under 64 bytes) or
        /// by the search (64 and more) are the ones a byte at a time
        /// finds, from any place up to one past the end.
        #[test]
        fn dot_segments_found_at_once_are_the_searched_ones(
            p in "[./a]{0,80}",
            from in 0usize..82,
        ) {
            let b = p.as_bytes();
            let from = from.min(b.len() + 1);
            let want = (from..b.len()).find(|&i| b[i] == b'.' && dot_segment_at(b, i));
            proptest::prop_assert_eq!(DotSegments::new(b).at_or_after(from), want);
        }

        /// The in-place removal of an absolute path's dot segments is the
        /// RFC's steps, also after what the output held before (`floor`).
        #[test]
        fn in_place_removal_is_the_rfc_steps(
            head in "[a/é]{0,4}",
            p in "/[./aé]{0,40}",
        ) {
            let mut want = head.clone();
            rfc_steps(&p, &mut want);
            let mut got = head.clone() + &p;
            remove_dot_segments_in_place(&mut got, head.len());
            proptest::prop_assert_eq!(&got, &want);
            let mut into = head.clone();
            remove_dot_segments_into(&p, &mut into);
            proptest::prop_assert_eq!(&into, &want);
        }
    }

    /// The in-place removal of the whole of `out[floor..]`.
    fn remove_dot_segments_in_place(out: &mut String, floor: usize) {
        if let Some(first) = next_dot_segment(out.as_bytes(), floor + 1) {
            remove_dot_segments_from(out, floor, first);
        }
    }

    #[test]
    fn in_place_removal_of_the_rfc_examples() {
        // RFC 3986 §5.2.4 and §5.4's absolute paths, and the edges of the
        // segment loop: a final "." or "..", empty segments, ".." at the root.
        for (path, want) in [
            ("/a/b/c/./../../g", "/a/g"),
            ("/b/c/../..", "/"),
            ("/b/c/..", "/b/"),
            ("/b/c/.", "/b/c/"),
            ("/b/c/./", "/b/c/"),
            ("/..", "/"),
            ("/.", "/"),
            ("/../g", "/g"),
            ("/a//../b", "/a/b"),
            ("/a//..", "/a/"),
            ("/a/.../b", "/a/.../b"),
            ("/a/.b/..c/", "/a/.b/..c/"),
        ] {
            let mut out = format!("x{path}");
            remove_dot_segments_in_place(&mut out, 1);
            assert_eq!(out, format!("x{want}"), "{path}");
            // Appended from the path, which is searched instead.
            let mut out = String::from("x");
            remove_dot_segments_into(path, &mut out);
            assert_eq!(out, format!("x{want}"), "{path}");
        }
    }

    #[test]
    fn no_authority_path_stays_a_path() {
        assert_eq!(res("foo:/a/b", "..//x"), "foo:/.//x");
    }
}
