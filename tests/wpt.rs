//! WPT `urltestdata.json` (the WHATWG URL Standard's parser tests) through
//! web mode (`harness = false`; see `tests/wpt/README.md`).
//!
//! Checks, per case: a success case's key at the string rung is its `href`
//! and the `href`'s URI form parses as an RFC 3986 reference (id prefixed
//! `uri-form `); a failure case is rejected. A case listed in
//! `tests/wpt/expected_failures.txt` must fail, and one that passes fails the
//! run ("now passes").

use std::collections::BTreeSet;
use std::path::Path;
use std::process::ExitCode;

use irinorm::web::{Href, WebParser};
use irinorm::{Level, Normalizer, Options, Repairs};
use serde_json::Value;

fn main() -> ExitCode {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/wpt");
    let text = std::fs::read_to_string(dir.join("urltestdata.json")).expect("urltestdata.json");
    let cases: Value = serde_json::from_str(&text).expect("json");
    let listed: BTreeSet<String> = std::fs::read_to_string(dir.join("expected_failures.txt"))
        .expect("expected_failures.txt")
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect();
    let string_rung = Normalizer::new(Options {
        level: Level::String,
        ..Options::default()
    });

    let mut seen = BTreeSet::new();
    let (mut passed, mut failed, mut expected) = (0usize, 0usize, 0usize);
    let mut check = |id: String, outcome: Result<(), String>| {
        let is_listed = listed.contains(&id);
        seen.insert(id.clone());
        match (outcome, is_listed) {
            (Ok(()), false) => passed += 1,
            (Err(_), true) => expected += 1,
            (Ok(()), true) => {
                failed += 1;
                println!("FAIL {id}: now passes: remove it from expected_failures.txt");
            }
            (Err(why), false) => {
                failed += 1;
                println!("FAIL {id}: {why}");
            }
        }
    };

    let mut n = 0;
    // For the record (BENCHMARKS.md, web mode): the cases ada-url, the
    // other parser web mode could use, gets right. Printed, not checked.
    let mut ada_right = 0;
    for case in cases.as_array().expect("array") {
        let Some(case) = case.as_object() else {
            continue; // a comment string
        };
        n += 1;
        let input = case["input"].as_str().expect("input");
        let base = case.get("base").and_then(Value::as_str);
        let id = match base {
            Some(b) => format!("<{}> against <{}>", input.escape_debug(), b.escape_debug()),
            None => format!("<{}>", input.escape_debug()),
        };
        let parser = match base {
            Some(b) => WebParser::new().with_base(b),
            None => Ok(WebParser::new()),
        };
        let key = parser
            .and_then(|p| p.key(input, true, &mut Repairs::default(), |t| string_rung.key(t)));
        let ada = ada_url::Url::parse(input, base).ok();
        ada_right += usize::from(match case.get("href").and_then(Value::as_str) {
            Some(href) => ada.is_some_and(|u| u.href() == href),
            None => ada.is_none(),
        });
        if case.contains_key("failure") {
            let outcome = match key {
                Err(_) => Ok(()),
                Ok(k) => Err(format!("accepted as {k:?}, the Standard rejects it")),
            };
            check(id, outcome);
            continue;
        }
        let href = case["href"].as_str().expect("href");
        let outcome = match &key {
            Ok(k) if k == href => Ok(()),
            Ok(k) => Err(format!("key {k:?}, href {href:?}")),
            Err(e) => Err(format!("rejected ({e}), href {href:?}")),
        };
        check(id.clone(), outcome);
        let uri = Href::from_href(href.to_owned());
        let outcome = irinorm::parse(&uri.to_uri_ref())
            .map(drop)
            .map_err(|e| format!("URI form {:?} of href {href:?}: {e}", uri.to_uri_ref()));
        check(format!("uri-form {id}"), outcome);
    }
    for id in listed.difference(&seen) {
        failed += 1;
        println!("FAIL {id}: listed in expected_failures.txt but no such case");
    }
    println!(
        "wpt urltestdata.json: {n} cases; {passed} passed, {failed} failed, \
         {expected} expected failures"
    );
    println!("for comparison, ada-url gets {ada_right} of the {n} cases right");
    println!("{passed} passed, {failed} failed, {expected} skipped");
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
