//! The key function of a run: the ladder's key of one reference, prepared
//! by [`super::prep`] and resolved against a record's base.

use std::borrow::Cow;

use super::error::RejectReason;
use super::prep;
use crate::{IriRef, Normalizer};

/// The key function of a run: a reference (and, for CSV/TSV records with a
/// base column, the row's base) → its key, or why it has none.
pub type KeyFn<'a> =
    dyn for<'k, 'b> Fn(&'k str, Option<&'b str>) -> Result<Cow<'k, str>, RejectReason> + Sync + 'a;

/// The key of one reference: any function of its text (`to_uri`, a
/// closure, …), or the ladder's [`Normalizer`], which also keys a
/// reference parsed already: web mode's fast path parses each line to
/// decide it ([`crate::web::is_own_href_parsed`]), and the ladder keys that
/// parse instead of parsing the line again.
pub trait RefKey {
    /// The key of `s`.
    fn key<'x>(&self, s: &'x str) -> crate::Result<Cow<'x, str>>;

    /// The key of `r`, the [`crate::parse`] of `r.as_str()`: the same as
    /// `self.key(r.as_str())`.
    fn key_parsed<'x>(&self, r: &IriRef<'x>) -> crate::Result<Cow<'x, str>> {
        self.key(r.as_str())
    }
}

impl<F> RefKey for F
where
    F: for<'x> Fn(&'x str) -> crate::Result<Cow<'x, str>>,
{
    fn key<'x>(&self, s: &'x str) -> crate::Result<Cow<'x, str>> {
        self(s)
    }
}

impl RefKey for Normalizer {
    fn key<'x>(&self, s: &'x str) -> crate::Result<Cow<'x, str>> {
        Normalizer::key(self, s)
    }

    fn key_parsed<'x>(&self, r: &IriRef<'x>) -> crate::Result<Cow<'x, str>> {
        Normalizer::key_parsed(self, r)
    }
}

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
    move |s, base| match base {
        None if plain => key.key(s).map_err(RejectReason::Key),
        _ => prep.key_with_base_by(s, base, &key),
    }
}
