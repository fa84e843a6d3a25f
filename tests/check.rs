//! `irinorm::check` on the examples of 3987bis §4.4 (draft 000 and the
//! -12/-13 diff 003 in /work/shared/seeds; examples 5, 8 and 9 lost their
//! text there and are taken from RFC 3987 §4.4, which has the same ones).
//! The Bidi Notation's upper-case letters (right-to-left) are written as
//! Hebrew letters: `A` is U+05D0 (alef), `B` U+05D1, and so on.

use irinorm::check::{check, Severity};

/// Bidi Notation to text: upper-case ASCII letters become Hebrew letters.
fn hebrew(notation: &str) -> String {
    notation
        .chars()
        .map(|c| match c {
            'A'..='Z' => char::from_u32(0x05D0 + (c as u32 - 'A' as u32)).unwrap(),
            _ => c,
        })
        .collect()
}

const CLEAN: [&str; 9] = [
    "http://ab.CDEFGH.ij/kl/mn/op.html",
    "http://ab.CDE.FGH/ij/kl/mn/op.html",
    "http://AB.CD.EF/GH/IJ/KL?MN=OP;QR=ST#UV",
    "http://AB.CD.ef/gh/IJ/KL.html",
    "http://ab.cd.EF/GH/ij/kl.html",
    "http://ab.CD.EF/GH/IJ/kl.html",
    "http://ab.CDE123FGH.ij/kl/mn/op.html",
    // Examples 10 and 11: "allowed but not recommended".
    "http://ab.CDEFGH.123/kl/mn/op.html",
    "http://ab.CDEFGH.123ij/kl/mn/op.html",
];

#[test]
fn examples_1_to_7_are_clean() {
    for (k, e) in CLEAN.iter().enumerate() {
        let iri = hebrew(e);
        let f = check(&iri).unwrap();
        assert!(f.is_empty(), "example {}: {iri}: {f:?}", k + 1);
    }
}

#[test]
fn examples_8_and_9_are_errors() {
    // Example 8: numbers at the start or end of an rtl component.
    // Example 9: the same numbers percent-encoded.
    for (e, offsets) in [
        ("http://ab.cd.ef/GH1/2IJ/KL.html", [20, 22]),
        ("http://ab.cd.ef/GH%31/%32IJ/KL.html", [22, 24]),
    ] {
        let iri = hebrew(e);
        let f = check(&iri).unwrap();
        let errors: Vec<_> = f
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .map(|f| (f.code.as_str(), f.part.name(), f.offset))
            .collect();
        // Offsets of the offending edge characters, in bytes (a Hebrew
        // letter is two).
        let rtl_edge = |o: usize| ("bidi-rtl-edge", "path", o);
        assert_eq!(
            errors,
            vec![rtl_edge(offsets[0]), rtl_edge(offsets[1])],
            "{iri}"
        );
    }
}

#[test]
fn each_component_is_judged_on_its_own() {
    // §4.2 rule 1 in a path segment; a warning only in the query.
    let f = check(&hebrew("http://a.example/ABcd?x=ABcd")).unwrap();
    let got: Vec<_> = f
        .iter()
        .map(|f| (f.code.as_str(), f.severity, f.part.name()))
        .collect();
    assert_eq!(
        got,
        vec![
            ("bidi-mixed-direction", Severity::Error, "path"),
            ("bidi-rtl-edge", Severity::Error, "path"),
            ("bidi-mixed-direction", Severity::Warning, "query"),
            ("bidi-rtl-edge", Severity::Warning, "query"),
        ]
    );
    // A percent-encoded right-to-left segment is judged as the IRI shows it.
    assert!(check("http://a.example/%D7%90%D7%91/").unwrap().is_empty());
    assert_eq!(
        check("http://a.example/%D7%90%D7%91x/").unwrap()[0]
            .code
            .as_str(),
        "bidi-mixed-direction"
    );
}
