//! HTML link extraction (src/archive/html.rs): no panic on any bytes as an
//! HTTP response or a page in any charset; every link found is a
//! non-empty-path link whose URL has no leading or trailing ASCII
//! whitespace.
#![no_main]
use irinorm::archive::{decode_body, html_links, http_response, srcset_urls};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some(r) = http_response(data) {
        let text = decode_body(r.content_type, r.body);
        let found = html_links(&text);
        for l in &found.links {
            assert!(!l.path.is_empty());
            assert_eq!(l.url.trim_matches([' ', '\t', '\n', '\x0c', '\r']), l.url);
        }
    }
    let text = String::from_utf8_lossy(data);
    let _ = html_links(&text);
    for u in srcset_urls(&text) {
        assert!(!u.is_empty() && !u.contains([' ', '\t', '\n']));
    }
});
