//! The seen-set's reader (`irinorm::batch::seen_verify`, what every
//! `dedup --seen` reads) on damaged stores: never a panic, and a store it
//! accepts holds what its manifest says. The first byte picks the file the
//! input becomes: the manifest itself (its parser, its checksum), or the
//! raw content of a bucket file's block, framed with valid checksums
//! (the runs format, src/batch/runs) under a valid manifest, so the key
//! decoder behind the checksums is reached.
#![no_main]
use libfuzzer_sys::fuzz_target;

fn crc(head: &[u8], body: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(head);
    h.update(body);
    h.finalize()
}

/// One run of one zstd block holding `raw` as `records` records.
fn run_file(raw: &[u8], records: u32) -> Vec<u8> {
    let mut f = b"IRIRUNS\x01\x02\x01\x00\x00".to_vec();
    let c = crc(&f, &[]);
    f.extend_from_slice(&c.to_le_bytes());
    let frame = |raw_len: u32, stored: &[u8], records: u32, f: &mut Vec<u8>| {
        let mut head = Vec::new();
        head.extend_from_slice(&raw_len.to_le_bytes());
        head.extend_from_slice(&(stored.len() as u32).to_le_bytes());
        head.extend_from_slice(&records.to_le_bytes());
        let c = crc(&head, stored);
        f.extend_from_slice(&head);
        f.extend_from_slice(&c.to_le_bytes());
        f.extend_from_slice(stored);
    };
    if !raw.is_empty() {
        let stored = zstd::bulk::compress(raw, 1).expect("compress");
        frame(raw.len() as u32, &stored, records, &mut f);
    }
    let mut totals = Vec::new();
    totals.extend_from_slice(&u64::from(if raw.is_empty() { 0 } else { records }).to_le_bytes());
    totals.extend_from_slice(&(raw.len() as u64).to_le_bytes());
    frame(0, &totals, 0, &mut f);
    f
}

fn manifest(keys: u64, bytes: usize) -> Vec<u8> {
    let body = format!(
        "irinorm-seen 1\nsecret {:032x}\noptions level=scheme\nnext 2\nrun 1.keys {keys} {bytes}\n",
        0
    );
    format!("{body}crc {:08x}\n", crc32fast::hash(body.as_bytes())).into_bytes()
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let records = if mode & 1 == 0 {
        std::fs::write(d.join("MANIFEST"), rest).expect("write");
        std::fs::write(d.join("1.keys"), run_file(&[], 0)).expect("write");
        None
    } else {
        let Some((&n, block)) = rest.split_first() else {
            return;
        };
        let file = run_file(block, u32::from(n));
        let keys = if block.is_empty() { 0 } else { u64::from(n) };
        std::fs::write(d.join("MANIFEST"), manifest(keys, file.len())).expect("write");
        std::fs::write(d.join("1.keys"), file).expect("write");
        Some(keys)
    };
    if let (Ok(info), Some(keys)) = (irinorm::batch::seen_verify(d), records) {
        assert_eq!(info.keys(), keys);
    }
});
