//! Dot segments of a path (RFC 3986 §5.2.4, 3987bis §5.3.2.4): whether a
//! path has any, and where they are, for the scan's flags, the rungs and
//! reference resolution (`crate::resolve` re-exports these).

use crate::simd::scan;

/// True when `path` has a `.` or `..` segment (so
/// `crate::resolve::remove_dot_segments` would change it). Most paths have
/// no dot, or only dots inside segments (`/a.html`): on x86-64 16 bytes at
/// a time are searched for a `.` (SSE2, part of the baseline), and only a
/// dot found is looked at.
#[inline]
pub fn has_dot_segments(path: &str) -> bool {
    first_dot_segment(path).is_some()
}

/// Where the first `.` or `..` segment of `path` starts (its first `.`).
#[inline]
pub(crate) fn first_dot_segment(path: &str) -> Option<usize> {
    next_dot_segment(path.as_bytes(), 0)
}

/// The position of the first `.` at or after `from` that starts a `.` or
/// `..` segment of `b` (a segment starts at 0 or after a '/').
#[inline]
pub(crate) fn next_dot_segment(b: &[u8], from: usize) -> Option<usize> {
    scan::next_dot(b, from, |i| dot_segment_at(b, i))
}

/// The `.` at `b[i]` starts a `.` or `..` segment.
#[inline]
pub(crate) fn dot_segment_at(b: &[u8], i: usize) -> bool {
    let seg_end = |j: usize| j == b.len() || b[j] == b'/';
    (i == 0 || b[i - 1] == b'/')
        && (seg_end(i + 1) || (b.get(i + 1) == Some(&b'.') && seg_end(i + 2)))
}
