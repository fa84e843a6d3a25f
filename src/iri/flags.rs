//! The bits of [`IriRef::flags`](super::IriRef), recorded by the one scan
//! of `parse` (3987bis §2.2) so the ladder (3987bis §5.3.2, §5.3.3)
//! revisits only the components that may change.
//!
//! "Dirty" means percent-encoding normalization (§5.3.2.1 hex case,
//! §5.3.2.3 unreserved decoded, §3.3 non-ASCII encoded) would rewrite the
//! component.

/// A non-ASCII character somewhere.
pub const NON_ASCII: u32 = 1 << 0;
/// A `%` somewhere.
pub const PCT: u32 = 1 << 1;
/// An uppercase letter in the scheme.
pub const SCHEME_UPPER: u32 = 1 << 2;
/// The userinfo is dirty.
pub const USERINFO_DIRTY: u32 = 1 << 3;
/// An uppercase ASCII letter in the host.
pub const HOST_UPPER: u32 = 1 << 4;
/// A `%` in the host.
pub const HOST_PCT: u32 = 1 << 5;
/// A non-ASCII character in the host.
pub const HOST_NON_ASCII: u32 = 1 << 6;
/// A `-` in the host (it may hold an `xn--` label).
pub const HOST_HYPHEN: u32 = 1 << 7;
/// The path is dirty.
pub const PATH_DIRTY: u32 = 1 << 8;
/// The path may hold a dot segment (§5.3.2.4): a `.` follows a `/` in
/// it. Unset only when the scan knows it does not; the component scan
/// does not look, and always sets it.
pub const PATH_DOT: u32 = 1 << 9;
/// [`PATH_DOT`] found rather than assumed: the whole-line split saw a
/// `.` after a `/` in the path. Such a path almost always holds a dot
/// segment (99 % of them on the generated corpus), so the canonical
/// check leaves the search for one to the rewrite.
pub const PATH_DOT_SEEN: u32 = 1 << 10;
/// The query is dirty.
pub const QUERY_DIRTY: u32 = 1 << 11;
/// The fragment is dirty, or holds a `#` (which the URI form encodes).
pub const FRAGMENT_DIRTY: u32 = 1 << 12;
