//! WARC records (src/archive/warc.rs) from arbitrary bytes, plain or as
//! gzip members (truncated, lying `Content-Length`, huge headers): no
//! panic, every record counted once, a record's block within the limit and
//! in the file, records numbered 1, 2, … in order.
#![no_main]
use std::io::Write;

use irinorm::archive::{Next, WarcReader};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let bytes = if sel & 1 == 0 {
        rest.to_vec()
    } else {
        // Each `\0\0` starts a new gzip member; the last one may be cut.
        let mut out = Vec::new();
        for part in rest.split(|&b| b == 0xff) {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(part).unwrap();
            out.extend(e.finish().unwrap());
        }
        if sel & 2 != 0 {
            out.truncate(out.len() * usize::from(sel >> 2) / 64);
        }
        out
    };
    let limit = 1 + usize::from(sel >> 3) * 64;
    let mut r = WarcReader::new(&bytes[..], limit).unwrap();
    let mut number = 0;
    loop {
        match r.next_record() {
            Next::End => break,
            Next::Record(rec) => {
                number += 1;
                assert_eq!(rec.place.number, number);
                assert!(rec.block.len() <= limit);
                assert!(rec.place.offset <= bytes.len() as u64);
            }
            Next::Reject { place, .. } => {
                number += 1;
                assert_eq!(place.number, number);
            }
        }
        assert!(number <= bytes.len() as u64 + 1, "no record out of nothing");
    }
});
