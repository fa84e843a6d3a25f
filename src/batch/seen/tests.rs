//! The store's own rules: the tiers after many batches, leftovers of a
//! killed update, and the manifest's checksum line.

use super::keys::{self, KeyReader};
use super::store::{Access, Bucket, Store};

fn all_keys(store: &Store, dir: &std::path::Path) -> Vec<u128> {
    let mut out = Vec::new();
    for b in store.info().buckets {
        let mut r = KeyReader::open(&dir.join(&b.name), b.keys, b.bytes).unwrap();
        while let Some(k) = r.next_key().unwrap() {
            out.push(k);
        }
    }
    out.sort_unstable();
    out
}

#[test]
fn tiers_keep_each_file_twice_the_newer_ones_and_every_key() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("s");
    let mut store = Store::open(&d, Some("o"), Access::Write).unwrap();
    let mut want = Vec::new();
    let mut next = 1u128;
    for batch in [500usize, 40, 40, 300, 7, 7, 7, 2000, 1, 90] {
        let keys: Vec<u128> = (0..batch as u128).map(|i| (next + i) << 64 | i).collect();
        next += batch as u128;
        want.extend(&keys);
        let (name, path) = store.new_bucket();
        let (n, bytes) = keys::write_all(keys.into_iter(), &path).unwrap();
        store
            .add(vec![Bucket {
                name,
                keys: n,
                bytes,
            }])
            .unwrap();
        let b = store.info().buckets;
        for i in 0..b.len() {
            let newer: u64 = b[i + 1..].iter().map(|x| x.keys).sum();
            assert!(b[i].keys > 2 * newer, "{b:?}");
        }
    }
    want.sort_unstable();
    assert_eq!(all_keys(&store, &d), want);
    store.compact().unwrap();
    assert_eq!(store.info().buckets.len(), 1);
    assert_eq!(all_keys(&store, &d), want);
}

#[test]
fn files_of_an_uncommitted_update_are_removed_by_the_next_writer() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("s");
    let mut store = Store::open(&d, Some("o"), Access::Write).unwrap();
    let (_, path) = store.new_bucket();
    keys::write_all([1u128, 2].into_iter(), &path).unwrap();
    std::fs::write(d.join("MANIFEST.tmp"), b"half").unwrap();
    drop(store);
    let store = Store::open(&d, Some("o"), Access::Write).unwrap();
    assert!(!path.exists() && !d.join("MANIFEST.tmp").exists());
    assert_eq!(store.info().keys(), 0);
}

#[test]
fn the_checksum_line_is_read_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("s");
    drop(Store::open(&d, Some("o"), Access::Write).unwrap());
    let text = std::fs::read_to_string(d.join("MANIFEST")).unwrap();
    let at = text.rfind("crc ").unwrap();
    // The same checksum in capitals is not what was written.
    let upper = format!(
        "{}{}",
        &text[..at],
        text[at..].to_uppercase().replace("CRC", "crc")
    );
    if upper != text {
        std::fs::write(d.join("MANIFEST"), &upper).unwrap();
        assert!(Store::open(&d, None, Access::Read).is_err());
    }
    std::fs::write(d.join("MANIFEST"), &text[..text.len() - 1]).unwrap();
    assert!(Store::open(&d, None, Access::Read).is_err());
}
