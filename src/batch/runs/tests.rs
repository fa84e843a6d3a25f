//! Round trips of the run format, and the damage it must report.

use super::*;

fn run_of(codec: Codec, records: &[Vec<u8>]) -> Vec<u8> {
    let mut w = RunWriter::new(Vec::new(), codec).unwrap();
    for r in records {
        w.record().extend_from_slice(r);
        w.end_record().unwrap();
    }
    let (out, t) = w.finish().unwrap();
    assert_eq!(t.records, records.len() as u64);
    assert_eq!(t.written, out.len() as u64);
    out
}

fn records(n: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|i| {
            let mut b = Vec::new();
            put_bytes(
                &mut b,
                format!("http://h{}.example/p/{i}", i % 37).as_bytes(),
            );
            put_varint(&mut b, i as u64 * 1_000_003);
            b
        })
        .collect()
}

/// Every record read back, in order, across block and run boundaries.
fn read_all(bytes: &[u8]) -> io::Result<Vec<Vec<u8>>> {
    let mut r = RunReader::new(bytes);
    let mut got = Vec::new();
    while let Some(n) = r.next_block()? {
        let mut block = r.block();
        for _ in 0..n {
            let start = block;
            let key = get_bytes(&mut block)?;
            let v = get_varint(&mut block)?;
            let mut b = Vec::new();
            put_bytes(&mut b, key);
            put_varint(&mut b, v);
            assert_eq!(&start[..b.len()], &b[..]);
            got.push(b);
        }
        assert!(block.is_empty());
    }
    Ok(got)
}

#[test]
fn runs_round_trip_with_every_codec_and_concatenate() {
    let recs = records(30_000);
    for codec in [Codec::Lz4, Codec::Zstd(1), Codec::Zstd(-3)] {
        let one = run_of(codec, &recs);
        // Several blocks, and smaller than the records.
        let raw: usize = recs.iter().map(Vec::len).sum();
        assert!(raw > 3 * BLOCK_RAW && one.len() < raw / 2, "{codec:?}");
        assert_eq!(read_all(&one).unwrap(), recs);
        let mut two = one.clone();
        two.extend_from_slice(&run_of(Codec::Zstd(3), &recs[..10]));
        let got = read_all(&two).unwrap();
        assert_eq!(
            (got.len(), &got[..recs.len()]),
            (recs.len() + 10, &recs[..])
        );
    }
    assert!(read_all(&run_of(Codec::Lz4, &[])).unwrap().is_empty());
    assert!(read_all(&[]).unwrap().is_empty());
}

#[test]
fn a_flipped_bit_or_a_cut_is_reported_never_read_as_records() {
    let recs = records(5_000);
    for codec in [Codec::Lz4, Codec::Zstd(1)] {
        let good = run_of(codec, &recs);
        // Every 97th byte flipped, one at a time, and every cut.
        for at in (0..good.len()).step_by(97) {
            let mut bad = good.clone();
            bad[at] ^= 0x10;
            let e = read_all(&bad).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidData, "{at}");
        }
        for cut in (1..good.len()).step_by(131) {
            let e = read_all(&good[..cut]).unwrap_err();
            assert!(e.to_string().contains("corrupt run"), "{cut}: {e}");
        }
    }
}
