//! `to_uri` / `to_iri` round trips as documented in src/convert.rs.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let s = String::from_utf8_lossy(data);
    irinorm_fuzz::check_convert(&s);
});
