//! The key function of a run: the ladder's key of one reference, prepared
//! by [`super::prep`] and resolved against a record's base.

use std::borrow::Cow;

use super::error::RejectReason;
use super::prep::{self, RefKey};
use crate::Normalizer;

/// The key function of a run: a reference (and, for CSV/TSV records with a
/// base column, the row's base) → its key, or why it has none.
pub type KeyFn<'a> =
    dyn for<'k, 'b> Fn(&'k str, Option<&'b str>) -> Result<Cow<'k, str>, RejectReason> + Sync + 'a;

/// The key function of a run from a key of one reference (the ladder:
/// `|s| normalizer.key(s)`, or `to_uri`, …), prepared by `prep`
/// (`--mode`, `--split-spaces`, `--query-encoding`) and resolved against a
/// record's base where there is one ([`prep::Prep::key_with_base`]).
pub fn key_fn<'a, K>(
    prep: prep::Prep,
    key: K,
) -> impl for<'k, 'b> Fn(&'k str, Option<&'b str>) -> Result<Cow<'k, str>, RejectReason> + Sync + 'a
where
    K: for<'x> Fn(&'x str) -> crate::Result<Cow<'x, str>> + Sync + 'a,
{
    key_fn_by(prep, key)
}

/// [`key_fn`] with the ladder's key: the same keys, and in web mode a
/// line that takes the fast path is parsed once ([`RefKey::key_parsed`]).
pub fn ladder_key_fn<'a>(
    prep: prep::Prep,
    n: Normalizer,
) -> impl for<'k, 'b> Fn(&'k str, Option<&'b str>) -> Result<Cow<'k, str>, RejectReason> + Sync + 'a
{
    key_fn_by(prep, n)
}

/// The key of a reference already parsed and found to be its own `href`
/// ([`crate::web::is_own_href_parsed`]); `None` leaves it to the key
/// function, which gives the same key or locates the error.
pub type OwnHrefKeyFn<'a> =
    dyn for<'k> Fn(&crate::IriRef<'k>) -> Option<Cow<'k, str>> + Send + Sync + 'a;

/// [`ladder_key_fn`]'s keys of own `href`s in web mode, taken from their
/// parse: for a caller that parsed and checked the reference already
/// (`links`' web join), so that it is not parsed and checked twice.
/// `None` unless `prep` is web mode alone (no layer to apply first).
pub fn ladder_own_href_key_fn(
    prep: prep::Prep,
    n: Normalizer,
) -> Option<Box<OwnHrefKeyFn<'static>>> {
    if !prep.is_web_only() {
        return None;
    }
    Some(Box::new(move |r| prep.key_own_href(r, &n)))
}

fn key_fn_by<'a, K>(
    prep: prep::Prep,
    key: K,
) -> impl for<'k, 'b> Fn(&'k str, Option<&'b str>) -> Result<Cow<'k, str>, RejectReason> + Sync + 'a
where
    K: RefKey + Sync + 'a,
{
    // Nothing to prepare (the usual run): the key function alone, without
    // the preparation's layers, which cost about 100 instructions a line
    // (BENCHMARKS.md, decision log: "Per-line work around the key").
    let plain = prep.is_noop();
    // Web mode alone: the line goes to the web key without them either.
    let web_only = prep.is_web_only();
    move |s, base| match base {
        None if plain => key.key(s).map_err(RejectReason::Key),
        None if web_only => prep.key_web_line(s, &key).map_err(RejectReason::Key),
        _ => prep.key_with_base_by(s, base, &key),
    }
}
