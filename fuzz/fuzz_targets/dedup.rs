//! The dedup engine against a naive reference: the same lines keyed one by
//! one into a `BTreeMap` (key → count, first line, example), rows in order
//! of first occurrence. The engine runs four times: with a tiny memory
//! budget (it spills after every batch), small chunks and batches, and
//! several workers; and in memory, with the default batch (an input of one
//! batch is then indexed where it is), on three workers
//! (a table per partition), on two (chunks keyed in input order by two
//! workers, one table) and on one (one table, in input order). Its
//! CSV must be exactly the reference's every time. A bit of the first
//! byte chooses the output columns: all five, or `first_line,canonical`
//! (a table without examples). The spilling run and the run on two
//! workers take the input as bytes in memory (`Opened::from_bytes`, as
//! `--mmap` takes a file): their batches are slices of it, not read.
#![no_main]
use std::collections::BTreeMap;
use std::io::Write;
use std::sync::{Arc, OnceLock};

use irinorm::batch::{
    self, csv_field, csv_u64, key_fn, process_line, Columns, DedupConfig, Format, Input, Opened,
    Outcome, Prep, Quiet,
};
use irinorm::{Level, Normalizer, Options};
use libfuzzer_sys::fuzz_target;

/// Pools of one, two and three workers (on up to two a kept batch of a
/// few MB is indexed in input order, in one table: another way to the
/// same rows).
fn pool(threads: usize) -> Arc<rayon::ThreadPool> {
    static POOLS: [OnceLock<Arc<rayon::ThreadPool>>; 3] =
        [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    POOLS[threads - 1]
        .get_or_init(|| {
            Arc::new(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap(),
            )
        })
        .clone()
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, body)) = data.split_first() else {
        return;
    };
    // Compressed and UTF-16 inputs are the source's business (other
    // targets); a UTF-8 BOM at the start is dropped, as the engine does.
    for magic in [
        &[0x1f, 0x8b][..],
        &[0x28, 0xb5, 0x2f, 0xfd],
        &[0xff, 0xfe],
        &[0xfe, 0xff],
    ] {
        if body.starts_with(magic) {
            return;
        }
    }
    let text = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    let level = Level::ALL[(sel & 3) as usize];
    let n = Normalizer::new(Options {
        level,
        ..Options::default()
    });
    let key = key_fn(Prep::default(), |s: &str| n.key(s));
    let max_line = 200;

    // The reference.
    let mut rows: BTreeMap<String, (u64, u64, Vec<u8>)> = BTreeMap::new();
    let mut lines = 0u64;
    let mut start = 0;
    while start < text.len() {
        let end = memchr_nl(&text[start..]).map_or(text.len(), |i| start + i);
        let line = &text[start..end];
        lines += 1;
        if let Outcome::Key(k) = process_line(line, max_line, None, &key) {
            let ex = line.strip_suffix(b"\r").unwrap_or(line).to_vec();
            rows.entry(k.into_owned()).or_insert((0, lines, ex)).0 += 1;
        }
        start = end + 1;
    }
    let mut order: Vec<(&String, &(u64, u64, Vec<u8>))> = rows.iter().collect();
    order.sort_by_key(|(_, v)| v.1);
    let keys_only = sel & 4 != 0;
    let columns = if keys_only {
        Columns::parse("first_line,canonical").unwrap()
    } else {
        Columns::default()
    };
    let mut want = columns.header();
    for (k, (count, line, ex)) in order {
        if keys_only {
            csv_u64(&mut want, *line);
            want.push(b',');
            csv_field(&mut want, k.as_bytes());
            want.push(b'\n');
            continue;
        }
        csv_field(&mut want, k.as_bytes());
        want.push(b',');
        csv_u64(&mut want, *count);
        want.extend_from_slice(b",in,");
        csv_u64(&mut want, *line);
        want.push(b',');
        csv_field(&mut want, ex);
        want.push(b'\n');
    }

    // The engine, spilling.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("in");
    std::fs::File::create(&path)
        .unwrap()
        .write_all(body)
        .unwrap();
    let in_memory = DedupConfig {
        chunk_size: 64,
        max_line_bytes: max_line,
        columns,
        pool: Some(pool(3)),
        ..DedupConfig::default()
    };
    let one_worker = DedupConfig {
        pool: Some(pool(1)),
        ..in_memory.clone()
    };
    let two_workers = DedupConfig {
        pool: Some(pool(2)),
        ..in_memory.clone()
    };
    let spilling = DedupConfig {
        batch_bytes: 256,
        memory: 1,
        temp_dir: Some(dir.path().to_path_buf()),
        ..in_memory.clone()
    };
    for (i, cfg) in [spilling, in_memory, two_workers, one_worker]
        .into_iter()
        .enumerate()
    {
        let inputs = if i % 2 == 0 {
            vec![Opened::from_bytes("in", Arc::new(body.to_vec()))]
        } else {
            let mut inputs = batch::open_all(&[Input::Path(path.clone())]).unwrap();
            for o in &mut inputs {
                o.name = "in".into();
            }
            inputs
        };
        let mut got = Vec::new();
        let s = batch::run_dedup(
            inputs,
            &Format::Lines,
            &key,
            &cfg,
            &mut Quiet,
            &mut |b: &[u8]| {
                got.extend_from_slice(b);
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(s.stats.lines, lines);
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(&want),
            "level {level:?}, keys only {keys_only}, memory {}",
            cfg.memory
        );
    }
});

fn memchr_nl(b: &[u8]) -> Option<usize> {
    b.iter().position(|&c| c == b'\n')
}
