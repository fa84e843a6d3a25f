//! Unit tests of the dedup engine's parts: the tape's pieces, the writer
//! thread, records, the block limit, the loop on its pool, and an input
//! of one batch written whole.

use super::arena::{Row, BLOCK, MAX_BLOCKS};
use super::config::Tuning;
use super::keying::key_hash;
use super::output::{write_by_origin, PIECE};
use super::part::Part;
use super::*;
use crate::batch::{Format, RunError};

/// Partitions whose rows are in origin order, and their tape, as a run
/// leaves them: origins over three files and split items, spread over
/// the partitions by a pseudo-random walk (some partitions stay empty).
fn parts(rows: u64) -> (Vec<Part>, Vec<u8>) {
    let mut parts: Vec<Part> = (0..7).map(|_| Part::default()).collect();
    let mut tape = Vec::new();
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for i in 0..rows {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let origin = ((i / 1000) as u32, 1 + i % 1000 / 2, (i % 2) as u32);
        let key = format!("http://h{i}.example/");
        let p = (x % 5) as usize; // partitions 5 and 6 stay empty
        assert!(parts[p].add(x, key.as_bytes(), b"ex", origin, 1 + i % 3));
        tape.push(p as u8);
    }
    (parts, tape)
}

/// The rows written, the text and the writer threads started.
fn written(parts: &[Part], tape: &[u8], piece: usize) -> (u64, Vec<u8>, usize) {
    let mut text = Vec::new();
    let w = write_by_origin(
        parts,
        tape,
        piece,
        |t: &mut Vec<u8>, p: &Part, i: usize| {
            let r = &p.row(i);
            t.extend_from_slice(p.key(r));
            t.extend_from_slice(format!(",{},{},{}\n", r.file, r.line, r.item).as_bytes());
        },
        &mut |b: &[u8]| {
            text.extend_from_slice(b);
            Ok(())
        },
    )
    .unwrap();
    (w.rows, text, w.writers)
}

#[test]
fn pieces_cut_from_the_tape_write_what_one_sort_writes() {
    for rows in [0, 1, 2, 5, 999, 2500] {
        let (parts, tape) = parts(rows);
        let mut all: Vec<(&Part, Row)> = parts
            .iter()
            .flat_map(|p| p.rows().map(move |r| (p, r)))
            .collect();
        all.sort_by_key(|(_, r)| r.origin());
        let mut want = Vec::new();
        for (p, r) in all {
            want.extend_from_slice(p.key(&r));
            want.extend_from_slice(format!(",{},{},{}\n", r.file, r.line, r.item).as_bytes());
        }
        for piece in [1, 2, 3, 7, 100, PIECE] {
            let (n, got, _) = written(&parts, &tape, piece);
            assert_eq!(n, rows, "{rows} rows, pieces of {piece}");
            assert!(got == want, "{rows} rows, pieces of {piece}");
        }
    }
}

/// An output of one group of pieces (4 a worker) is written without a
/// writer thread, one of more groups through one; either way the rows
/// are those of the one-piece cut, in order (around the group's size,
/// on one and two workers).
#[test]
fn one_group_is_written_without_a_writer_thread() {
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let group = 4 * threads;
        for rows in [1, group - 1, group, group + 1, 3 * group + 2] {
            let (parts, tape) = parts(rows as u64);
            let want = written(&parts, &tape, rows).1;
            let (_, got, writers) = pool.install(|| written(&parts, &tape, 1));
            assert!(got == want, "{rows} rows on {threads} workers");
            let groups = rows.div_ceil(group);
            assert_eq!(writers, usize::from(groups > 1), "{rows} rows on {threads}");
        }
    }
}

/// A write that fails stops the output with its error, in every group
/// (the first, one in the middle, the last): nothing is written after
/// it, and the formatting does not wait for a writer that is gone.
#[test]
fn a_failed_write_stops_the_output_with_its_error() {
    let (parts, tape) = parts(2500);
    // Pieces of 10 rows: 250 pieces, in groups of 4 per worker; pieces
    // of 1,000 rows: 3, one group, written without a writer thread.
    for (piece, fail_at) in [(10, 1), (10, 2), (10, 9), (10, 120), (10, 250)]
        .into_iter()
        .chain([(1000, 1), (1000, 2), (1000, 3)])
    {
        let mut calls = 0;
        let r = write_by_origin(
            &parts,
            &tape,
            piece,
            |t: &mut Vec<u8>, p: &Part, i: usize| t.extend_from_slice(p.key(&p.row(i))),
            &mut |_: &[u8]| {
                calls += 1;
                if calls == fail_at {
                    let e = std::io::Error::other("disk full");
                    return Err(RunError::io("cannot write the output".into(), &e));
                }
                Ok(())
            },
        );
        let e = r.unwrap_err();
        assert!(e.to_string().contains("disk full"), "{e}");
        assert_eq!(calls, fail_at);
    }
}

type Origin = (u32, u64, u32);
/// Key → example, first origin, count.
type Model = std::collections::BTreeMap<Vec<u8>, (Vec<u8>, Origin, u64)>;

/// A partition's records against a map: every row's key, example,
/// origin and count survive blocks filling up (records of every size,
/// one larger than a block), repeats, and an earlier origin replacing a
/// row's first occurrence (the replaced record is skipped).
#[test]
fn records_hold_what_was_added() {
    use std::collections::BTreeMap;
    let hasher = foldhash::fast::FixedState::with_seed(3);
    let mut part = Part::default();
    // key -> (example, origin, count), the first origin winning.
    let mut want: Model = BTreeMap::new();
    let mut add = |part: &mut Part, key: &[u8], ex: &[u8], origin: (u32, u64, u32), n: u64| {
        let new = part.add(key_hash(&hasher, key), key, ex, origin, n);
        assert_eq!(new, !want.contains_key(key));
        let e = want.entry(key.to_vec()).or_insert((ex.to_vec(), origin, 0));
        if origin < e.1 {
            (e.0, e.1) = (ex.to_vec(), origin);
        }
        e.2 += n;
    };
    for i in 0..40_000u64 {
        let key = format!(
            "http://h{}.example/{}",
            i % 9_000,
            "p".repeat((i % 97) as usize)
        );
        let ex = if i % 3 == 0 {
            key.to_uppercase()
        } else {
            key.clone()
        };
        add(
            &mut part,
            key.as_bytes(),
            ex.as_bytes(),
            (0, i + 10, 0),
            1 + i % 2,
        );
    }
    // Then a key larger than a block; earlier origins, as a spilled
    // run's read-back may bring them; and a later occurrence of a
    // replaced row, which counts on the row that replaced it.
    let (big, h7) = (vec![b'x'; BLOCK + 5], b"http://h7.example/ppppppp");
    let tail: [(&[u8], &[u8], Origin, u64); 5] = [
        (&big, b"big", (0, 50_000, 0), 1),
        (&big, &big, (0, 50_001, 0), 2),
        (h7, b"EARLY", (0, 1, 0), 5),
        (&big, &big, (0, 2, 1), 1),
        (h7, b"late", (0, 60_000, 0), 3),
    ];
    for (key, ex, origin, n) in tail {
        add(&mut part, key, ex, origin, n);
    }
    assert!(part.arena.blocks.len() > 2);
    let got: Model = part
        .rows()
        .map(|r| {
            (
                part.key(&r).to_vec(),
                (part.example(&r).to_vec(), r.origin(), r.count),
            )
        })
        .collect();
    assert_eq!(part.rows().count(), want.len());
    assert!(got == want);
    // Rows come in the order they were added (replaced ones at the end).
    let lines: Vec<u64> = part.rows().map(|r| r.line).collect();
    assert_eq!(&lines[lines.len() - 2..], [1, 2]);
    assert!(lines[..lines.len() - 2].windows(2).all(|w| w[0] < w[1]));
}

/// Dedup `text` (scheme rung) with the table's arena limited to
/// `max_blocks` blocks per partition: its CSV and summary.
fn limited(
    text: &'static [u8],
    order: Order,
    max_blocks: usize,
) -> Result<(Vec<u8>, Summary), RunError> {
    let n = crate::Normalizer::new(crate::Options::default());
    let key = super::super::key_fn(super::super::prep::Prep::default(), |s: &str| n.key(s));
    let input =
        super::super::source::Opened::from_reader("-", Box::new(std::io::Cursor::new(text)));
    let cfg = Config {
        order,
        chunk_size: 64 << 10,
        batch_bytes: 256 << 10,
        tuning: Tuning {
            max_blocks,
            ..Tuning::default()
        },
        ..Config::default()
    };
    let mut csv = Vec::new();
    let s = run(
        vec![input],
        &Format::Lines,
        &key,
        &cfg,
        &mut super::super::Quiet,
        &mut |b: &[u8]| {
            csv.extend_from_slice(b);
            Ok(())
        },
    )?;
    Ok((csv, s))
}

/// A partition's arena reaching its block limit spills the table
/// first (records are addressed by block and offset in 32 bits), and
/// the output is what a run without the limit writes; a batch that
/// could not fit even in empty partitions is an error, not a panic.
#[test]
fn the_block_limit_spills_and_changes_nothing() {
    let mut text = Vec::new();
    for i in 0..60_000u32 {
        // Long distinct keys, every third one repeated in a variant.
        let path = "segment/".repeat(20);
        text.extend_from_slice(format!("http://h{}.example/{path}{}\n", i % 997, i / 3).as_bytes());
        if i % 3 == 0 {
            text.extend_from_slice(
                format!("HTTP://h{}.EXAMPLE:80/{path}{}\n", i % 997, i / 3).as_bytes(),
            );
        }
    }
    let text: &'static [u8] = text.leak();
    for order in [Order::First, Order::Key] {
        let (want, free) = limited(text, order, MAX_BLOCKS).unwrap();
        assert_eq!(free.spills, 0);
        // One block per partition: each batch after the first finds
        // blocks in use, and spills before it is merged.
        let (got, tight) = limited(text, order, 1).unwrap();
        assert!(tight.spills > 1, "{:?}", tight.spills);
        assert_eq!(tight.unique, free.unique);
        assert!(got == want);
    }
    let e = limited(text, Order::First, 0).unwrap_err();
    assert!(
        e.to_string().contains("more keys than one partition"),
        "{e}"
    );
}

/// Dedup `text` with `memory` bytes, batches of `batch` bytes and
/// partitions counted in at least `min_share` bytes at read-back, on two
/// workers: CSV and summary.
fn budgeted(
    text: &'static [u8],
    order: Order,
    memory: usize,
    batch: usize,
    min_share: usize,
) -> (Vec<u8>, Summary) {
    let n = crate::Normalizer::new(crate::Options::default());
    let key = super::super::key_fn(super::super::prep::Prep::default(), |s: &str| n.key(s));
    let input =
        super::super::source::Opened::from_reader("-", Box::new(std::io::Cursor::new(text)));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let cfg = Config {
        order,
        memory,
        chunk_size: batch.min(64 << 10),
        batch_bytes: batch,
        pool: Some(std::sync::Arc::new(pool)),
        tuning: Tuning {
            min_share,
            ..Tuning::default()
        },
        ..Config::default()
    };
    let mut csv = Vec::new();
    let s = run(
        vec![input],
        &Format::Lines,
        &key,
        &cfg,
        &mut super::super::Quiet,
        &mut |b: &[u8]| {
            csv.extend_from_slice(b);
            Ok(())
        },
    )
    .unwrap();
    (csv, s)
}

/// Distinct keys, most repeated in a variant further on, so that a key's
/// rows are in several spills.
fn spread(n: u32) -> &'static [u8] {
    let mut text = Vec::new();
    for i in 0..n {
        text.extend_from_slice(
            format!("http://h{}.example/p/{i}?q={}\n", i % 131, i % 7).as_bytes(),
        );
        if i % 2 == 0 && i > n / 2 {
            let j = i - n / 2;
            text.extend_from_slice(
                format!("HTTP://h{}.EXAMPLE:80/p/{j}?q={}\n", j % 131, j % 7).as_bytes(),
            );
        }
    }
    text.leak()
}

/// The budget is kept at read-back too: a partition whose distinct keys
/// outgrow a worker's share of it is split again by more bits of the hash,
/// and again (here to a depth of at least two), rather than loaded whole;
/// the output is what a run in memory writes, in every order.
#[test]
fn partitions_outgrowing_the_budget_are_split_again_recursively() {
    let text = spread(6_000);
    for order in [Order::First, Order::Key, Order::Surt] {
        let (want, free) = budgeted(text, order, 1 << 30, 8 << 20, 256 << 10);
        assert_eq!(free.spills, 0);
        let (got, tight) = budgeted(text, order, 512, 64 << 10, 128);
        assert!(tight.spills > 2, "{tight:?}");
        assert_eq!(tight.unique, free.unique);
        if order == Order::First {
            // Split twice: three writes of the keys that were split.
            assert!(tight.spill_passes >= 3, "{tight:?}");
        }
        assert!(got == want, "{order:?}");
        // The same budget, partitions counted whole: one pass.
        let (whole, once) = budgeted(text, order, 512, 64 << 10, 1 << 30);
        assert!(whole == want);
        if order == Order::First {
            assert_eq!(once.spill_passes, 1, "{once:?}");
        }
    }
}

/// Sorted runs past [`FANIN`](super::readback::FANIN) are merged in passes
/// before the last merge, and give the same output.
#[test]
fn many_sorted_runs_merge_in_passes() {
    let text = spread(64_000);
    for order in [Order::Key, Order::Surt] {
        let (want, _) = budgeted(text, order, 1 << 30, 8 << 20, 256 << 10);
        let (got, s) = budgeted(text, order, 4 << 10, 8 << 10, 256 << 10);
        assert!(s.spilled_partitions > super::readback::FANIN, "{s:?}");
        assert!(s.spill_passes >= 2, "{s:?}");
        assert!(got == want, "{order:?}");
    }
}

/// Dedup the inputs `texts` as `format` with `cfg` (whose pool is the
/// workers), through [`whole`] or not (`take`), the reader taken to
/// have ended after every batch (`assume`): CSV, summary and batches
/// kept (and of those, how many were keyed in input order).
fn run_way(
    texts: &[&'static [u8]],
    format: &Format,
    cfg: &Config,
    (take, assume): (bool, bool),
) -> (Vec<u8>, Summary, (usize, usize)) {
    let n = crate::Normalizer::new(crate::Options::default());
    let key = super::super::key_fn(super::super::prep::Prep::default(), |s: &str| n.key(s));
    let inputs = texts
        .iter()
        .enumerate()
        .map(|(i, &t)| {
            super::super::source::Opened::from_reader(
                format!("in{i}"),
                Box::new(std::io::Cursor::new(t)),
            )
        })
        .collect();
    let cfg = Config {
        tuning: Tuning {
            take_whole: take,
            assume_ended: assume,
            ..cfg.tuning
        },
        ..cfg.clone()
    };
    let mut csv = Vec::new();
    let s = run(
        inputs,
        format,
        &key,
        &cfg,
        &mut super::super::Quiet,
        &mut |b: &[u8]| {
            csv.extend_from_slice(b);
            Ok(())
        },
    )
    .unwrap();
    (csv, s, (s.diagnostics.kept, s.diagnostics.in_order))
}

/// With a pool of its own, the run's loop is on one of its workers (the
/// observer hears from it there), and the nested steps it hands the
/// workers start where it is; without one, it is on the caller's
/// thread. Either way the rows are the same.
#[test]
fn the_loop_runs_on_the_pool_it_is_given() {
    struct Where(Vec<Option<usize>>);
    impl super::super::Observer for Where {
        fn progress(&mut self, _bytes: u64) {
            self.0.push(rayon::current_thread_index());
        }
    }
    let n = crate::Normalizer::new(crate::Options::default());
    let key = super::super::key_fn(super::super::prep::Prep::default(), |s: &str| n.key(s));
    let text: &'static [u8] = b"http://a.example/\nHTTP://A.example:80/\nhttp://b.example/\n";
    let mut outputs = Vec::new();
    for threads in [None, Some(1), Some(2)] {
        let pool = threads.map(|n| {
            std::sync::Arc::new(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .build()
                    .unwrap(),
            )
        });
        let cfg = Config {
            pool,
            ..Config::default()
        };
        let inputs = vec![super::super::source::Opened::from_reader(
            "in",
            Box::new(std::io::Cursor::new(text)),
        )];
        let mut seen = Where(Vec::new());
        let mut csv = Vec::new();
        let s = run(
            inputs,
            &Format::Lines,
            &key,
            &cfg,
            &mut seen,
            &mut |b: &[u8]| {
                csv.extend_from_slice(b);
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(s.unique, 2);
        assert!(!seen.0.is_empty());
        assert!(
            seen.0.iter().all(|&w| w.is_some() == threads.is_some()),
            "{threads:?}: {:?}",
            seen.0
        );
        outputs.push(csv);
    }
    assert!(outputs.windows(2).all(|w| w[0] == w[1]));
}

/// [`run_way`] without [`whole`] and with it (the reader taken to have
/// ended): the same CSV and summary. The summary, the batches kept
/// without `whole` (none may be), and those kept with it (and of
/// those, keyed in input order).
fn both_ways(
    texts: &[&'static [u8]],
    format: &Format,
    cfg: &Config,
) -> (Summary, usize, (usize, usize)) {
    let (want, want_s, (not_taken, _)) = run_way(texts, format, cfg, (false, false));
    let (got, got_s, kept) = run_way(texts, format, cfg, (true, true));
    assert!(got == want, "{}", String::from_utf8_lossy(&got));
    // The same summary, but for the ways taken.
    let ways = Diagnostics::default();
    assert_eq!(
        Summary {
            diagnostics: ways,
            ..got_s
        },
        Summary {
            diagnostics: ways,
            ..want_s
        }
    );
    (got_s, not_taken, kept)
}

/// An input of one batch written from the batch itself ([`whole`])
/// gives what the arena table gives, byte for byte, summary included:
/// repeats and variants, blank, rejected and CRLF lines, a BOM, split
/// items, every column, SURTs, CSV records; on one worker and on the
/// default pool (the entries in input order, one table, on up to two
/// workers) and on three (grouped by partition). A
/// batch kept as the last when more came is merged first (the way back
/// in [`run`]), and a tight budget or a sorted output does not keep it.
#[test]
fn one_batch_written_whole_is_what_the_table_writes() {
    let mut lines = String::from("\u{feff}");
    for i in 0..3000u32 {
        let h = i % 37;
        lines += &match i % 9 {
            0 => format!("HTTP://H{h}.Example:80/a/./b/{}?q=%7e\r\n", i % 101),
            1 => format!("http://h{h}.example/a/b/{}?q=~\n", i % 101),
            2 => "\n".to_string(),
            3 => format!("not a uri {i}\n"),
            4 => format!("http://h{h}.example/x http://münchen.de/{}\n", i % 13),
            5 => format!("http://xn--mnchen-3ya.de/{}#frag\n", i % 13),
            6 => format!("https://h{h}.example/\"quoted\",{i}\n"),
            7 => format!("http://h{h}.example/%E2%82%AC{}\n", i % 7),
            _ => format!("http://[::1]:8080/{}\n", i % 50),
        };
    }
    let lines: &'static [u8] = lines.into_bytes().leak();
    let records: &'static [u8] =
        b"id,url\n1,http://a.example/\n2,HTTP://A.example:80/\n3,\n4,\"http://b.example/x,y\"\n";
    let records_format = Format::Records(super::super::source::RecordFormat {
        delimiter: b',',
        header: true,
        column: super::super::source::Column::Name("url".into()),
        base_column: None,
    });
    let pool = |n| {
        Some(std::sync::Arc::new(
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .unwrap(),
        ))
    };
    let base = Config {
        chunk_size: 4 << 10,
        ..Config::default()
    };
    let cases: Vec<(Vec<&'static [u8]>, Format, Config)> = vec![
        (vec![lines], Format::Lines, base.clone()),
        (
            vec![lines],
            Format::Lines,
            Config {
                pool: pool(3),
                ..base.clone()
            },
        ),
        (
            vec![lines],
            Format::Lines,
            Config {
                split_spaces: true,
                ..base.clone()
            },
        ),
        (
            vec![lines],
            Format::Lines,
            Config {
                show_surt: true,
                ..base.clone()
            },
        ),
        (
            vec![lines],
            Format::Lines,
            Config {
                columns: Columns::parse("count,canonical").unwrap(),
                ..base.clone()
            },
        ),
        (vec![b"", lines], Format::Lines, base.clone()),
        (vec![records], records_format, base.clone()),
    ];
    let one = |cfg: &Config| Config {
        pool: pool(1),
        ..cfg.clone()
    };
    let cases = cases.iter().flat_map(|(t, f, c)| {
        [
            (t.clone(), f.clone(), c.clone()),
            (t.clone(), f.clone(), one(c)),
        ]
    });
    for (texts, format, cfg) in cases {
        let workers = cfg.on_pool(rayon::current_num_threads);
        let (s, not_taken, kept) = both_ways(&texts, &format, &cfg);
        assert_eq!((not_taken, s.spills), (0, 0));
        // Up to two workers key the kept batch in input order.
        assert_eq!(
            kept,
            (1, usize::from(cfg.tuning.in_order(workers, lines.len())))
        );
    }
    // Two inputs (so at least two batches), the first batch taken for
    // the last: kept, then merged when the next comes (later batches
    // are not kept: the table holds rows by then; keyed in input order,
    // the kept one is grouped by partition first).
    let small = Config {
        batch_bytes: 1,
        ..base.clone()
    };
    for cfg in [small.clone(), one(&small)] {
        let (_, _, kept) = both_ways(&[lines, lines], &Format::Lines, &cfg);
        let workers = cfg.on_pool(rayon::current_num_threads);
        assert_eq!(
            kept,
            (1, usize::from(cfg.tuning.in_order(workers, lines.len())))
        );
    }
    // On two workers, a batch of more than `Tuning::in_order_bytes` is grouped
    // by partition (and kept all the same); one of at most that is not.
    let two = Config {
        pool: pool(2),
        ..base.clone()
    };
    for (most, in_order) in [(lines.len() - 100, 0), (lines.len(), 1)] {
        let two = Config {
            tuning: Tuning {
                in_order_bytes: most,
                ..Tuning::default()
            },
            ..two.clone()
        };
        let (_, _, kept) = both_ways(&[lines], &Format::Lines, &two);
        assert_eq!(kept, (1, in_order));
    }
    // Not kept: a sorted output, or a budget the table would pass.
    for cfg in [
        Config {
            order: Order::Key,
            ..base.clone()
        },
        Config {
            memory: 8 << 20,
            ..base.clone()
        },
        // Keyed in input order, then grouped to be merged (and spilled).
        Config {
            memory: 8 << 20,
            ..one(&base)
        },
    ] {
        let (s, _, kept) = both_ways(&[lines], &Format::Lines, &cfg);
        assert_eq!(kept.0, 0);
        let workers = cfg.on_pool(rayon::current_num_threads);
        if cfg.tuning.in_order(workers, lines.len()) {
            assert_eq!(kept.1, usize::from(cfg.order == Order::First));
        }
        assert_eq!(s.spills > 0, cfg.order == Order::First);
    }
}
