//! The Internet Archive SURT (src/surt_ia.rs) and our SURT of a key
//! (src/surt.rs): no panic on any bytes.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = irinorm::surt_ia_bytes(data);
    let s = String::from_utf8_lossy(data);
    let _ = irinorm::surt_ia(&s);
    let _ = irinorm::surt::surt_of_key(data);
    let _ = irinorm::surt::reverse_host(&s);
    if let Ok(r) = irinorm::parse(&s) {
        let _ = irinorm::surt::surt(&r, &irinorm::surt::SurtOptions::default());
        let _ = irinorm::surt::ssurt(&r);
    }
});
