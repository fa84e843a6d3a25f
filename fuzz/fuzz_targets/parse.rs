//! `parse` on arbitrary text: no panic, components recompose to the input.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let s = String::from_utf8_lossy(data);
    irinorm_fuzz::check_parse(&s);
});
