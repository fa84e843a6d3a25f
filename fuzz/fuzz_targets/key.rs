//! `Normalizer::key` at every level, under the options chosen by the first
//! two bytes (mode, NFC, form, protocol rule set): every key promise.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((opts, rest)) = irinorm_fuzz::Opts::split(data) else {
        return;
    };
    let s = String::from_utf8_lossy(rest);
    irinorm_fuzz::check_key(&opts, &s);
});
