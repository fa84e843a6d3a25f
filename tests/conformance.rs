//! Conformance runner (`harness = false`): every JSON file in
//! `tests/conformance/` (copies of the shared vectors, see the README there,
//! plus our own `ours.json`), dispatched on `kind`.
//!
//! Every case is either run or listed in `expected_failures.txt`
//! (`id<TAB>reason`); a listed case is still run, and one that passes is
//! itself a failure, so the list stays honest. Listed cases that fail as
//! expected are counted as "skipped".

use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;

use irinorm::{
    domain_to_ascii, domain_to_unicode, equivalent, parse, remove_dot_segments, resolve, to_iri,
    to_uri, Form, Level, Normalizer, Options,
};
use serde_json::Value;

/// UTS #46 status codes that our IDNA flags do not check (CheckHyphens =
/// false, VerifyDnsLength = false, UseSTD3ASCIIRules = false): the same set
/// the WHATWG profile ignores.
const IGNORED_IDNA_STATUS: [&str; 7] = ["V2", "V3", "U1", "P4", "A4_1", "A4_2", "X4_2"];

/// One check's outcome: `Err((expected, got))` on a mismatch.
type Outcome = Result<(), (String, String)>;

fn main() -> ExitCode {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance");
    let listed = load_expected_failures(&dir.join("expected_failures.txt"));
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/conformance")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();

    let (mut passed, mut failed, mut skipped) = (0usize, 0usize, 0usize);
    let mut seen = std::collections::BTreeSet::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("read json");
        let doc: Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let cases = doc["cases"].as_array().expect("cases array");
        let (mut fp, mut ff, mut fs) = (0, 0, 0);
        for case in cases {
            let id = case["id"].as_str().expect("id");
            assert!(seen.insert(id.to_owned()), "duplicate case id {id}");
            let outcome = run_case(case);
            match (outcome, listed.get(id)) {
                (Ok(()), None) => fp += 1,
                (Ok(()), Some(_)) => {
                    ff += 1;
                    println!(
                        "FAIL {id}: now passes: remove from expected_failures.txt (input {:?})",
                        case["input"]
                    );
                }
                (Err(_), Some(_)) => fs += 1,
                (Err((expected, got)), None) => {
                    ff += 1;
                    println!(
                        "FAIL {id}: input {} expected {expected} got {got}",
                        case["input"]
                    );
                }
            }
        }
        println!(
            "{}: {fp} passed, {ff} failed, {fs} expected failures (of {})",
            file.file_name().unwrap().to_string_lossy(),
            cases.len()
        );
        passed += fp;
        failed += ff;
        skipped += fs;
    }
    for id in listed.keys() {
        if !seen.contains(id) {
            failed += 1;
            println!("FAIL {id}: listed in expected_failures.txt but no such case");
        }
    }
    if skipped > 0 {
        println!("conformance: {passed} passed, {failed} failed, {skipped} skipped");
    } else {
        println!("conformance: {passed} passed, {failed} failed");
    }
    if failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn load_expected_failures(path: &Path) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut out = BTreeMap::new();
    for line in text.lines() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let (id, reason) = line
            .split_once('\t')
            .unwrap_or_else(|| panic!("expected_failures.txt: no TAB in {line:?}"));
        assert!(!reason.trim().is_empty(), "no reason given for {id}");
        out.insert(id.to_owned(), reason.to_owned());
    }
    out
}

fn s<'a>(case: &'a Value, field: &str) -> Option<&'a str> {
    case.get(field).and_then(Value::as_str)
}

fn strings<'a>(case: &'a Value, field: &str) -> Vec<&'a str> {
    case.get(field)
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn check(expected: &str, got: String) -> Outcome {
    if got == expected {
        Ok(())
    } else {
        Err((format!("{expected:?}"), format!("{got:?}")))
    }
}

/// `Result<String, E>` as something printable for a mismatch.
fn shown<T: std::fmt::Display, E: std::fmt::Display>(r: Result<T, E>) -> String {
    match r {
        Ok(v) => format!("{:?}", v.to_string()),
        Err(e) => format!("error: {e}"),
    }
}

fn key_with(input: &str, level: Level, form: Form, nfc: bool) -> Result<String, String> {
    Normalizer::new(Options { level, form, nfc })
        .key(input)
        .map(|k| k.into_owned())
        .map_err(|e| e.to_string())
}

/// Compare a key with `expected`, in the form `expected` is written in.
fn check_key(input: &str, expected: &str, level: Level, nfc: bool) -> Outcome {
    let form = if expected.is_ascii() {
        Form::Uri
    } else {
        Form::Iri
    };
    let got = key_with(input, level, form, nfc);
    if got.as_deref() == Ok(expected) {
        Ok(())
    } else {
        Err((format!("{expected:?} ({form:?} form)"), shown(got)))
    }
}

fn check_equivalence(input: &str, other: &str, level: Level, want: bool) -> Outcome {
    match equivalent(input, other, level) {
        Ok(got) if got == want => Ok(()),
        got => Err((
            format!(
                "{}equivalent to {other:?} at {}",
                if want { "" } else { "not " },
                level.name()
            ),
            match got {
                Ok(true) => format!(
                    "equivalent (both keys {})",
                    shown(key_with(input, level, Form::Uri, false))
                ),
                Ok(false) => format!(
                    "not equivalent: keys {} vs {}",
                    shown(key_with(input, level, Form::Uri, false)),
                    shown(key_with(other, level, Form::Uri, false))
                ),
                Err(e) => format!("error: {e}"),
            },
        )),
    }
}

fn run_case(case: &Value) -> Outcome {
    let kind = s(case, "kind").expect("kind");
    let input = s(case, "input").expect("input");
    match kind {
        "resolve" => {
            // We implement the strict parser of RFC 3986 §5.2.2 only; a
            // `mode: non-strict` case is run as well and listed if it differs.
            let base = parse(s(case, "base").expect("base")).map_err(|e| err("base", e))?;
            let r = parse(input).map_err(|e| err("input", e))?;
            check(s(case, "expected").expect("expected"), resolve(&base, &r))
        }
        "normalize-syntax" | "normalize-scheme" => {
            let level = if kind == "normalize-syntax" {
                Level::Syntax
            } else {
                Level::Scheme
            };
            normalize(case, input, level)
        }
        "normalize-protocol" => {
            // Protocol-rung facts need evidence from the network (a redirect
            // observed). Without it, the pair must stay different at the
            // scheme rung and at our protocol rung with its default rules.
            let others = strings(case, "equivalent_to_if_redirect_observed");
            assert!(!others.is_empty(), "normalize-protocol case without pairs");
            for other in others {
                check_equivalence(input, other, Level::Scheme, false)?;
                check_equivalence(input, other, Level::Protocol, false)?;
            }
            Ok(())
        }
        "iri-to-uri" => {
            let expected = s(case, "expected").expect("expected");
            match to_uri(input) {
                Ok(got) => check(expected, got.into_owned()),
                Err(e) => Err((format!("{expected:?}"), format!("error: {e}"))),
            }
        }
        "uri-to-iri" => {
            let expected = s(case, "expected").expect("expected");
            match to_iri(input) {
                Ok(got) => check(expected, got.into_owned()),
                Err(e) => Err((format!("{expected:?}"), format!("error: {e}"))),
            }
        }
        "valid-iri" => match parse(input) {
            // "round-trips unchanged through parse+serialize".
            Ok(r) if r.as_str() == input => match irinorm::key(input, Level::String) {
                Ok(k) => check(input, k),
                Err(e) => Err(("string-rung key = input".into(), format!("error: {e}"))),
            },
            Ok(r) => Err(("valid, unchanged".into(), format!("{:?}", r.as_str()))),
            Err(e) => Err(("valid".into(), format!("error: {e}"))),
        },
        "invalid-iri" => match parse(input) {
            Ok(_) => Err(("parse error".into(), "accepted".into())),
            Err(_) => Ok(()),
        },
        "idna-to-ascii" => {
            let got = domain_to_ascii(input);
            if idna_must_fail(case) {
                match got {
                    Err(_) => Ok(()),
                    Ok(v) => Err(("IDNA error".into(), format!("{v:?}"))),
                }
            } else {
                let expected = s(case, "expected").expect("expected");
                match got {
                    Ok(v) => check(expected, v.into_owned()),
                    Err(e) => Err((format!("{expected:?}"), format!("error: {}", e.0))),
                }
            }
        }
        "idna-to-unicode" => {
            // Our domain_to_unicode is the display step of §3.7 step 6: it
            // converts A-labels that round-trip and reports no errors, so a
            // case whose status has errors is checked only for not
            // converting into something else than the input's labels.
            let expected = s(case, "expected").expect("expected");
            check(expected, domain_to_unicode(input).into_owned())
        }
        other => panic!("unknown kind {other}"),
    }
}

fn err(what: &str, e: impl std::fmt::Display) -> (String, String) {
    (format!("{what} parses"), format!("error: {e}"))
}

/// Whether the case says that our (non-transitional, WHATWG-flag) ToASCII
/// must report an error.
fn idna_must_fail(case: &Value) -> bool {
    if let Some(f) = case.get("expected_failure").and_then(Value::as_bool) {
        return f;
    }
    strings(case, "expected_status")
        .iter()
        .any(|st| !IGNORED_IDNA_STATUS.contains(st))
}

fn normalize(case: &Value, input: &str, level: Level) -> Outcome {
    let expected = s(case, "expected");
    match s(case, "component") {
        Some("path") => {
            let expected = expected.expect("expected");
            return check(expected, remove_dot_segments(input));
        }
        Some("percent-encoding") => {
            // A bare percent-encoding triplet: put it in the path of a
            // neutral IRI and compare that path.
            let expected = expected.expect("expected");
            let got = key_with(&format!("x:{input}"), level, Form::Uri, false);
            return match got.as_deref().map(|k| k.strip_prefix("x:")) {
                Ok(Some(p)) if p == expected => Ok(()),
                _ => Err((format!("{expected:?}"), shown(got))),
            };
        }
        Some(other) => panic!("unknown component {other}"),
        None => {}
    }
    if case.get("expected_failure").and_then(Value::as_bool) == Some(true) {
        // ours.json: the key must be an error (e.g. a host that cannot go
        // through IDNA).
        return match key_with(input, level, Form::Uri, false) {
            Err(_) => Ok(()),
            Ok(k) => Err(("key error".into(), format!("{k:?}"))),
        };
    }
    if let Some(expected) = expected {
        check_key(input, expected, level, false)?;
    }
    for other in strings(case, "equivalent_to") {
        check_equivalence(input, other, level, true)?;
    }
    for other in strings(case, "not_equivalent_to") {
        check_equivalence(input, other, level, false)?;
    }
    if let Some(nfc) = s(case, "expected_if_nfc_enabled") {
        check_key(input, nfc, level, true)?;
    }
    Ok(())
}
