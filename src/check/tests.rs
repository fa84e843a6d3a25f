use super::*;

fn codes(s: &str) -> Vec<(&'static str, Severity, Part, usize)> {
    check(s)
        .unwrap()
        .into_iter()
        .map(|f| (f.code.as_str(), f.severity, f.part, f.offset))
        .collect()
}

#[test]
fn clean_ascii_has_no_findings() {
    assert!(codes("http://example.com/a/b?c=d#e").is_empty());
    assert!(codes("http://example.com/%41%7E").is_empty());
}

#[test]
fn raw_characters_of_7_3_are_errors_where_they_stand() {
    assert_eq!(
        codes("http://a.example/x\u{202E}y"),
        vec![("bidi-formatting", Severity::Error, Part::Path, 18)]
    );
    assert_eq!(
        codes("http://a.example/?q=\u{E000}#\u{E000}"),
        vec![("char-private-use", Severity::Error, Part::Fragment, 24)]
    );
    assert_eq!(
        codes("http://a.example/a b|c"),
        vec![
            ("char-space", Severity::Error, Part::Path, 18),
            ("char-unwise", Severity::Error, Part::Path, 20)
        ]
    );
    assert_eq!(
        codes("http://a.example/\u{2066}"),
        vec![("char-bidi-isolate", Severity::Error, Part::Path, 17)]
    );
}

#[test]
fn percent_encoded_characters_of_7_3_are_warnings() {
    assert_eq!(
        codes("http://a.example/%E2%80%AE?%EF%BF%BE"),
        vec![
            ("bidi-formatting", Severity::Warning, Part::Path, 17),
            ("char-noncharacter", Severity::Warning, Part::Query, 27)
        ]
    );
}

#[test]
fn idn_verdicts_name_the_label() {
    let f = check("http://www.xn--80ak6aa92e.com/").unwrap();
    assert_eq!(f.len(), 2, "{f:?}");
    assert_eq!(f[0].code.as_str(), "idn-whole-script-confusable");
    assert_eq!((f[0].part, f[0].offset), (Part::Host, 11));
    assert_eq!(f[1].code.as_str(), "idn-top-domain-lookalike");
    assert!(f[1].message.ends_with("apple.com"), "{}", f[1].message);
    let f = check("http://gооgle.com/").unwrap();
    let codes: Vec<_> = f.iter().map(|f| f.code.as_str()).collect();
    assert_eq!(codes, ["idn-mixed-script", "idn-top-domain-lookalike"]);
    assert!(f[1].message.ends_with("google.com"), "{}", f[1].message);
    assert!(check("http://münchen.de/").unwrap().is_empty());
}
