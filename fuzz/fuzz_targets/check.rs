//! `irinorm::check` and the IDN display policy (src/check, src/host/spoof):
//! no panic; every finding points at a character boundary of the input and
//! has a code of the three families; under every profile the displayed
//! host converts back to the same A-labels, `ascii` never decodes, and
//! to_uri accepts what to_iri_with writes.
#![no_main]
use irinorm::{domain_to_ascii, domain_to_display, to_iri_with, to_uri, DisplayPolicy, IdnDisplay};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(findings) = irinorm::check::check(s) {
        for f in &findings {
            assert!(s.is_char_boundary(f.offset), "{s:?}: {f:?}");
            let code = f.code.as_str();
            assert!(
                ["bidi-", "char-", "idn-"]
                    .iter()
                    .any(|p| code.starts_with(p)),
                "{code}"
            );
        }
        assert!(findings.windows(2).all(|w| w[0].offset <= w[1].offset));
    }
    for p in IdnDisplay::ALL {
        let policy = DisplayPolicy::new(p);
        if let Ok(a) = domain_to_ascii(s) {
            let shown = domain_to_display(&a, &policy);
            if p == IdnDisplay::Ascii {
                assert_eq!(shown, a);
            }
            assert_eq!(
                domain_to_ascii(&shown).as_deref(),
                Ok(a.as_ref()),
                "{a:?} -> {shown:?}"
            );
        }
        if let Ok(iri) = to_iri_with(s, &policy) {
            assert!(to_uri(&iri).is_ok(), "{s:?} -> {iri:?}");
        }
    }
});
