//! RFC 3986 §5.2 resolution and keys with a base: the input is
//! `<2 option bytes>base\nreference`.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((opts, rest)) = irinorm_fuzz::Opts::split(data) else {
        return;
    };
    let s = String::from_utf8_lossy(rest);
    let (base, reference) = s.split_once('\n').unwrap_or(("http://a/b/c/d;p?q", &s));
    irinorm_fuzz::check_resolve(&opts, base, reference);
});
