//! WAT JSON (src/archive/wat.rs, src/archive/json.rs): no panic on any
//! text; the scanner gives exactly what serde_json alone gives (the same
//! page and links, or the same error); a record that parses lists links
//! whose paths and URLs are from the input.
#![no_main]
use irinorm::archive::{wat_links, wat_links_serde};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    // Inputs that are not JSON are mostly rejected at once: wrap the bytes
    // in the WAT shape too, so the link lists are reached.
    let wrapped = format!(
        r#"{{"Envelope":{{"WARC-Header-Metadata":{{"WARC-Type":"response","WARC-Target-URI":"http://a/"}},"Payload-Metadata":{{"HTTP-Response-Metadata":{text}}}}}}}"#
    );
    for t in [text.as_ref(), wrapped.as_str()] {
        let page = wat_links(t);
        assert_eq!(page, wat_links_serde(t), "scanner and serde_json differ");
        if let Ok(Some(page)) = page {
            for l in &page.links {
                assert!(!l.path.is_empty() || t.contains("\"Links\""));
            }
        }
    }
});
