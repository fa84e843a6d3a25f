//! CDX / CDXJ lines (src/cdx.rs): no panic; a record with its key added
//! (`normalize` output) still parses, to the same original URL.
#![no_main]
use irinorm::cdx::{CdxLayout, Format};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let format = if sel & 1 == 0 {
        Format::Cdx
    } else {
        Format::Cdxj
    };
    let text = String::from_utf8_lossy(rest);
    let mut layout = CdxLayout::new(format);
    // The layout of the output: the input's header plus 'A'.
    let mut out_layout: Option<CdxLayout> = None;
    for line in text.split('\n') {
        match layout.header(line) {
            Ok(true) => {
                let mut o = CdxLayout::new(format);
                let h = CdxLayout::header_with_key(line);
                assert_eq!(o.header(&h), Ok(true), "{h:?}");
                out_layout = Some(o);
                continue;
            }
            Ok(false) => {}
            Err(_) => continue,
        }
        let Ok(r) = layout.record(line) else { continue };
        let key = irinorm::key(&r.url, irinorm::Level::Scheme).ok();
        let Ok(out) = layout.with_key(line, key.as_deref()) else {
            continue;
        };
        let check = match format {
            Format::Cdxj => Some(&layout),
            Format::Cdx => out_layout.as_ref(),
        };
        if let Some(l) = check {
            let again = l
                .record(&out)
                .unwrap_or_else(|e| panic!("{line:?} with its key {out:?} does not parse: {e}"));
            assert_eq!(again.url, r.url, "{line:?} -> {out:?}");
        }
    }
});
