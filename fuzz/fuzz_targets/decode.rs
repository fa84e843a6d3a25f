//! Charset decoding (src/decode.rs) and the per-line checks of the engine
//! (src/batch/line.rs): the first byte picks the charset.
#![no_main]
use std::borrow::Cow;

use irinorm::batch::{process_line, Outcome};
use irinorm::fuzzing::{decode_line, encode_query, sniff_bom, transcode_utf16_to_utf8};
use irinorm::Charset;
use libfuzzer_sys::fuzz_target;

const LABELS: [&str; 16] = [
    "utf-8",
    "shift_jis",
    "euc-jp",
    "iso-2022-jp",
    "gbk",
    "gb18030",
    "big5",
    "euc-kr",
    "windows-1252",
    "windows-1251",
    "iso-8859-2",
    "iso-8859-8",
    "koi8-r",
    "utf-16le",
    "utf-16be",
    "x-user-defined",
];

fuzz_target!(|data: &[u8]| {
    let Some((&sel, bytes)) = data.split_first() else {
        return;
    };
    let cs: Charset = LABELS[(sel & 15) as usize].parse().unwrap();
    let charset = (sel & 16 != 0).then_some(cs);
    match decode_line(bytes, charset) {
        Ok(s) => {
            if charset.is_none_or(|c| c == Charset::UTF8) {
                assert_eq!(s.as_bytes(), bytes, "UTF-8 is not changed");
            } else if bytes.is_ascii()
                && cs.encoding().is_ascii_compatible()
                && !cs.name().contains("2022")
            {
                assert_eq!(s.as_bytes(), bytes, "ASCII in {} is not changed", cs.name());
            }
        }
        Err(e) => assert!(e.offset <= bytes.len(), "{e}"),
    }
    let _ = sniff_bom(bytes);
    let _ = transcode_utf16_to_utf8(bytes, cs.encoding());
    let text = String::from_utf8_lossy(bytes);
    let q = encode_query(&text, cs);
    assert!(
        q.is_ascii(),
        "encode_query({text:?}, {}) = {q:?} not ASCII",
        cs.name()
    );
    if text.is_ascii() {
        assert_eq!(q, text);
    }
    let max = 1 + (sel as usize >> 5) * 16;
    // The engine's per-line step, with a key that is the text itself.
    match process_line(bytes, max, charset, &|s: &str, _: Option<&str>| {
        Ok(Cow::Borrowed(s))
    }) {
        Outcome::Blank => {
            // Blank as bytes, or (a legacy charset) once decoded.
            let l = bytes.strip_suffix(b"\r").unwrap_or(bytes);
            let blank = |b: &[u8]| b.iter().all(|b| matches!(b, b' ' | b'\t'));
            assert!(
                blank(l)
                    || (charset.is_some()
                        && decode_line(l, charset).is_ok_and(|t| blank(t.as_bytes())))
            );
        }
        Outcome::Key(t) => assert!(!t.is_empty()),
        Outcome::Reject(_) => {}
    }
});
