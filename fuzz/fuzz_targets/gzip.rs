//! Gzip members (src/archive/gzip.rs) from arbitrary bytes, raw or as
//! members with a byte flipped and the file cut, read in reads of several
//! sizes: no panic, and the reader that decodes members whole gives what
//! the streaming decoder alone gives — the same bytes, member offsets and
//! error. The one exception the module documents: past a member that
//! zlib refuses and libdeflate decodes with a matching CRC-32 and size, the
//! whole-member reader reads on, so the streaming decoder's bytes are then
//! a shorter prefix of its bytes.
#![no_main]
use std::io::Write;

use irinorm::archive::Members;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [sel, pos, xor, cut, rest @ ..] = data else {
        return;
    };
    let mut bytes = rest.to_vec();
    if sel & 1 == 1 {
        // Each 0xff starts a new member, at one of zlib's levels; then one
        // byte is flipped and the end cut.
        let level = flate2::Compression::new(u32::from(sel >> 4) % 10);
        bytes = rest
            .split(|&b| b == 0xff)
            .flat_map(|part| {
                let mut e = flate2::write::GzEncoder::new(Vec::new(), level);
                e.write_all(part).unwrap();
                e.finish().unwrap()
            })
            .collect();
        let len = bytes.len();
        if let Some(b) = bytes.get_mut(usize::from(*pos) * len / 256) {
            *b ^= xor;
        }
        bytes.truncate(len - usize::from(*cut) * len / 1024);
    }
    let size = [1, 7, 100, 4096, 1 << 20][usize::from(sel >> 1) % 5];
    let whole = Members::new(&bytes[..]).unwrap().read_all(size);
    let streaming = Members::streaming(&bytes[..]).unwrap().read_all(size);
    if whole != streaming {
        assert!(streaming.2.is_some(), "only past a refused member");
        assert!(whole.0.len() > streaming.0.len() && whole.0.starts_with(&streaming.0));
    }
});
