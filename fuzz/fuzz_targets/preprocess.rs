//! §5.2 / §7.1 / §7.2 preprocessing (strict, LEIRI, Web; entities on/off).
#![no_main]
use irinorm::Mode;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let mode = [Mode::Strict, Mode::Leiri, Mode::Web][(sel % 3) as usize];
    let entities = sel & 0x80 != 0;
    let s = String::from_utf8_lossy(rest);
    irinorm_fuzz::check_preprocess(mode, entities, &s);
    for item in irinorm::fuzzing::split_spaces(&s) {
        assert!(!item.is_empty() && !item.contains(' '), "{item:?}");
    }
});
