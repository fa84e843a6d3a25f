//! Unit tests of the reader thread and of [`BatchReader`]: every byte comes
//! once and in order, whatever the batch size, the reads' sizes, the pace
//! and the buffers reused.

use super::*;
use crate::batch::scan::count_lines;
use crate::batch::source::{open_all, Column, Input, RecordFormat};
use crate::cdx::Format as CdxFormat;

/// A batch that says it is the run's last ends it at once, while the
/// reader has not ended yet; one that does not know leaves the answer
/// to the queue.
#[test]
fn a_batch_that_knows_it_is_the_last_ends_the_run_at_once() {
    let (tx, rx) = mpsc::sync_channel(QUEUE);
    let up = Upcoming {
        rx,
        next: std::cell::RefCell::new(None),
        last: std::cell::Cell::new(false),
    };
    let batch = |last| {
        Ok(Item::Batch(Batch {
            file: 0,
            data: b"a\n".to_vec().into(),
            skipped_lines: 0,
            records: Vec::new(),
            charset: None,
            bytes: 2,
            last,
            spare: None,
        }))
    };
    tx.send(batch(false)).unwrap();
    tx.send(batch(true)).unwrap();
    assert!(matches!(up.recv(), Some(Ok(Item::Batch(b))) if !b.last));
    assert!(!up.ended());
    assert!(matches!(up.recv(), Some(Ok(Item::Batch(b))) if b.last));
    // The reader (`tx`) is still there: the batch said so.
    assert!(up.ended());
    drop(tx);
}

/// A worker slower than the reader holds one batch, the queue
/// [`QUEUE`] more, and the reader reads into one more: the reader
/// takes a returned buffer only once its batch is sent (when the
/// worker has given back the one before), so no more buffers than that
/// are ever made, however many batches, and every line comes once.
#[test]
fn a_slow_worker_keeps_the_reader_to_queue_and_two_buffers() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("in");
    // 3.4 MB: more than a batch's room (64 KiB and 1 MiB), so that no
    // buffer is sized to what is left of the file.
    let text: String = (0..240_000).map(|i| format!("http://a/{i}\n")).collect();
    std::fs::write(&path, &text).unwrap();
    for file in [true, false] {
        let opened = if file {
            open_all(&[Input::Path(path.clone())]).unwrap()
        } else {
            let bytes = text.clone().into_bytes();
            vec![Opened::from_reader("-", Box::new(io::Cursor::new(bytes)))]
        };
        let (mut buffers, mut bytes, mut batches) = (Vec::new(), Vec::new(), 0);
        for_each_batch(opened, &Format::Lines, None, 1000, 64 << 10, |item, _| {
            if let Item::Batch(b) = item {
                let at = b.data.as_ptr() as usize;
                if !buffers.contains(&at) {
                    buffers.push(at);
                }
                bytes.extend_from_slice(&b.data);
                batches += 1;
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            Ok(())
        })
        .unwrap();
        assert!(batches >= 50, "{batches}");
        assert_eq!(bytes, text.as_bytes());
        assert!(buffers.len() <= QUEUE + 2, "{} buffers", buffers.len());
    }
}

/// The pool keeps batch buffers, up to [`QUEUE`] and one, and not the
/// small one that held what was read past an input's last batch.
#[test]
fn the_pool_keeps_batch_buffers_only() {
    let spare = Spare::default();
    give_back(&spare, Vec::with_capacity(100));
    assert!(spare.take().is_none());
    for _ in 0..QUEUE + 3 {
        give_back(&spare, Vec::with_capacity(64 << 10));
    }
    let mut kept = 0;
    while spare.take().is_some() {
        kept += 1;
    }
    assert_eq!(kept, QUEUE + 1);
}

/// `ended` is never true while a batch is still to come (and the item
/// it looked at is still handed out), and becomes true on the last.
/// The last batch says so itself (`Batch::last`), and no other does.
#[test]
fn upcoming_ends_only_after_the_last_batch() {
    let wait = |up: &Upcoming, most: std::time::Duration| {
        let t = std::time::Instant::now();
        while !up.ended() && t.elapsed() < most {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        up.ended()
    };
    // 220 KB per input: one batch of 1 MiB, or several (a batch holds
    // at least what one read of 64 KiB gave); read from memory (a
    // caller's reader) or from files.
    let dir = tempfile::tempdir().unwrap();
    let text = |i| format!("http://a/{i}\n").repeat(20_000);
    let cases = [(1, 1 << 20), (1, 100), (3, 1 << 20), (3, 300)];
    let from_files = [(2, 1 << 20), (2, 100_000)];
    let cases = cases.map(|c| (false, c)).into_iter();
    for (files, (inputs, batch_bytes)) in cases.chain(from_files.map(|c| (true, c))) {
        let opened = if files {
            let paths: Vec<Input> = (0..inputs)
                .map(|i| {
                    let path = dir.path().join(format!("in{i}"));
                    std::fs::write(&path, text(i)).unwrap();
                    Input::Path(path)
                })
                .collect();
            open_all(&paths).unwrap()
        } else {
            (0..inputs)
                .map(|i| {
                    let text = text(i).into_bytes();
                    Opened::from_reader(format!("in{i}"), Box::new(io::Cursor::new(text)))
                })
                .collect()
        };
        let all = 20_000 * inputs as u64;
        let (mut lines, mut batches) = (0, 0);
        for_each_batch(
            opened,
            &Format::Lines,
            None,
            1000,
            batch_bytes,
            |item, up| {
                if let Item::Batch(b) = item {
                    lines += count_lines(&b.data);
                    batches += 1;
                    // A file smaller than a batch is read until a read
                    // finds its end: its batch knows it is the last. A
                    // caller's reader may end with a short read, before
                    // the one that finds the end, and a batch may fill
                    // up before it: those may not know.
                    if files && batch_bytes == 1 << 20 {
                        assert_eq!(b.last, lines == all);
                    }
                    assert!(!b.last || lines == all);
                    // A batch that knows needs no wait for the reader.
                    assert!(!b.last || up.ended());
                    if lines < all {
                        assert!(!wait(up, std::time::Duration::from_millis(3)));
                    } else {
                        // The reader is done within seconds, however
                        // loaded the machine.
                        assert!(wait(up, std::time::Duration::from_secs(20)));
                    }
                }
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(lines, all);
        assert!(batches > inputs || batch_bytes == 1 << 20, "{batches}");
    }
    let csv = |n: usize| {
        let rows: String = (0..n).map(|i| format!("{i},http://a/{i}\n")).collect();
        Opened::from_reader("in", Box::new(io::Cursor::new(format!("id,url\n{rows}"))))
    };
    let records = Format::Records(RecordFormat {
        delimiter: b',',
        header: true,
        column: Column::Name("url".into()),
        base_column: None,
    });
    let all = 2 * RECORDS_PER_BATCH + 10 + 5;
    let mut seen = 0;
    let inputs = vec![csv(2 * RECORDS_PER_BATCH + 10), csv(5)];
    for_each_batch(inputs, &records, None, 1000, 1 << 20, |item, _| {
        if let Item::Batch(b) = item {
            seen += b.records.len();
            assert_eq!(b.last, seen == all);
        }
        Ok(())
    })
    .unwrap();
    assert_eq!(seen, all);
}

/// An input in memory comes as slices of it: every byte once, in
/// order, past a BOM and a CDX header (counted as a skipped line); each
/// slice ends at a line end (but the input's last) and holds at most
/// `batch_bytes`, or one line that is longer; only the last is `last`.
/// Compressed bytes in memory are read as a stream.
#[test]
fn an_input_in_memory_is_cut_into_slices_of_it() {
    let mut text = BOM.to_vec();
    text.extend_from_slice(b" CDX N b a m s k r M S V g\n");
    for i in 0..3_000 {
        let line = match i {
            1_000 => format!("{}\n", "y".repeat(5_000)),
            _ => format!("x{i} 20240101 http://a/{i}\r\n"),
        };
        text.extend_from_slice(line.as_bytes());
    }
    text.extend_from_slice(b"no newline at the end");
    let body = 3 + 27;
    assert!(text[body - 1] == b'\n' && text[body] == b'x');
    let text: &'static [u8] = text.leak();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, text).unwrap();
    let gz: &'static [u8] = gz.finish().unwrap().leak();
    let cdx = Format::Cdx(CdxFormat::Cdx);
    for (bytes, format, batch_bytes) in [
        (text, &Format::Lines, 1 << 20),
        (text, &cdx, 1 << 20),
        (text, &cdx, 999),
        (text, &Format::Lines, 1),
        (gz, &cdx, 999),
    ] {
        let shared: Shared = std::sync::Arc::new(bytes);
        let opened = Opened::from_bytes("in", shared);
        let (mut got, mut batches, mut skipped, mut header) = (Vec::new(), 0, 0, None);
        for_each_batch(vec![opened], format, None, 100, batch_bytes, |item, _| {
            match item {
                Item::Start { cdx, .. } => header = cdx.and_then(|c| c.header),
                Item::Batch(b) => {
                    let sliced = matches!(b.data, Data::Shared(..));
                    assert_eq!(sliced, bytes == text, "only plain bytes are sliced");
                    let d = &b.data[..];
                    if sliced {
                        assert!(d.len() <= batch_bytes || count_lines(d) == 1);
                        assert!(d.ends_with(b"\n") || d.ends_with(b"the end"));
                        assert_eq!(b.last, d.ends_with(b"the end"));
                    }
                    assert!(!b.last || d.ends_with(b"the end"));
                    got.extend_from_slice(d);
                    skipped += b.skipped_lines;
                    batches += 1;
                }
            }
            Ok(())
        })
        .unwrap();
        let from = if matches!(format, Format::Cdx(_)) {
            assert_eq!(header.as_deref(), Some(" CDX N b a m s k r M S V g"));
            assert_eq!(skipped, 1);
            body
        } else {
            assert_eq!((header, skipped), (None, 0));
            3
        };
        assert!(got == text[from..], "{batch_bytes}");
        let want = match batch_bytes {
            _ if bytes == gz => 1,
            1 => 3_001,
            // The long line is one batch of its own.
            999 => (got.len() - 5_001) / 999,
            _ => 1,
        };
        assert!(batches >= want, "{batches} {want}");
    }
}

/// A reader returning at most `step` bytes per call.
struct Trickle<'a>(&'a [u8], usize);
impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.1.min(buf.len()).min(self.0.len());
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

/// The stream as batches, every other one taken as an owned buffer (as
/// `read_input` does) with the reader going on in a used buffer whose
/// old bytes are garbage.
fn batches(data: &[u8], step: usize, target: usize, max: usize) -> Vec<u8> {
    let out = sized_batches(data, step, (target, max), None, Pace::Unknown);
    // The same with the stream's size told, right or wrong (a file
    // that grew or shrank after its length was taken), and whatever a
    // short read is taken to mean.
    let len = data.len() as u64;
    for size in [0, 1, len / 2, len, len + 1, 3 * len, u64::MAX] {
        assert_eq!(
            sized_batches(data, step, (target, max), Some(size), Pace::Whole),
            out,
            "size {size}"
        );
    }
    for more in [true, false] {
        let pace = Pace::Live(Box::new(move |_| more));
        assert_eq!(sized_batches(data, step, (target, max), None, pace), out);
    }
    out
}

fn sized_batches(
    data: &[u8],
    step: usize,
    (target, max): (usize, usize),
    size: Option<u64>,
    pace: Pace,
) -> Vec<u8> {
    let mut r = BatchReader::new(Trickle(data, step), target, max)
        .sized(size)
        .paced(pace);
    let mut out = Vec::new();
    let mut spare = vec![vec![b'Z'; 64], Vec::new(), vec![b'Z'; 3]];
    let mut n = 0;
    while let Some(b) = r.next_batch().unwrap() {
        let complete = b.last() == Some(&b'\n');
        let len = b.len();
        if n % 2 == 0 {
            out.extend_from_slice(b);
        } else {
            // As the reader thread hands a batch out: the reader goes
            // on in the small buffer (no spare returned yet) or adopts
            // a spare (whose old bytes are not data).
            let owned = r.take_batch();
            if n % 4 == 3 {
                drop(r.adopt(spare.pop().unwrap_or_default()));
            }
            assert_eq!(owned.len(), len);
            out.extend_from_slice(&owned);
            spare.insert(0, owned);
        }
        assert!(complete || r.eof);
        n += 1;
    }
    out
}

#[test]
fn batches_reassemble_the_stream() {
    let data = b"\xEF\xBB\xBFone\ntwo\r\n\nthree\nfour";
    for step in [1, 2, 3, 7, 100] {
        for target in [1, 5, 1000] {
            assert_eq!(batches(data, step, target, 100), &data[3..]);
        }
    }
}

/// The lengths of the batches of `data` read `step` bytes at a time
/// (the `slow`-th read, counted from 1, taking 1.1 s) under `pace`,
/// with a target of all of it (so that only the pace ends a batch
/// before the end); `most` ms for [`Pace::MOST`].
fn cut_by(pace: Pace, data: &[u8], (step, slow): (usize, usize), most: u64) -> Vec<usize> {
    struct Slow<'a>(Trickle<'a>, usize);
    impl Read for Slow<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.1 = self.1.wrapping_sub(1);
            if self.1 == 0 {
                std::thread::sleep(std::time::Duration::from_millis(1100));
            }
            self.0.read(buf)
        }
    }
    let target = data.len() + 1;
    let mut r = BatchReader::new(Slow(Trickle(data, step), slow), target, 1000).paced(pace);
    r.most = std::time::Duration::from_millis(most);
    let mut lens = Vec::new();
    while let Some(b) = r.next_batch().unwrap() {
        lens.push(b.len());
    }
    assert_eq!(lens.iter().sum::<usize>(), data.len());
    lens
}

#[test]
fn a_short_read_ends_a_batch_as_the_pace_says() {
    let data = b"http://a.example/p\n".repeat(500);
    let step = (100, 0);
    // All of it is there (a file, also through a decoder): one batch.
    assert_eq!(cut_by(Pace::Whole, &data, step, 50).len(), 1);
    // A caller's reader: each short read ends one.
    assert!(cut_by(Pace::Unknown, &data, step, 50).len() > 80);
    // A live stream whose bytes keep coming: one batch (the test's
    // deadline is long, a busy machine must not cut it). Each wait is
    // for `GAP` at most.
    let more = |wait| {
        assert!(wait <= Pace::GAP, "{wait:?}");
        true
    };
    assert_eq!(
        cut_by(Pace::Live(Box::new(more)), &data, step, 60_000).len(),
        1
    );
    // ... and one that has nothing more each time: each short read
    // ends one.
    let none = Pace::Live(Box::new(|_| false));
    assert!(cut_by(none, &data, step, 60_000).len() > 80);
    // Bytes that keep coming, but one read takes 1.1 s: the batch goes
    // out after `MOST` (here 1 s) has passed since its first short read,
    // and the next one has `MOST` again.
    let lens = cut_by(
        Pace::Live(Box::new(|_| true)),
        &data[..1900],
        (190, 3),
        1000,
    );
    assert_eq!(lens, [570, 1330]);
}

#[test]
fn long_lines_are_cut() {
    let mut data = b"ok\n".to_vec();
    data.extend_from_slice(&[b'x'; 1000]);
    data.extend_from_slice(b"\nend\n");
    for step in [1, 10, 5000] {
        let out = batches(&data, step, 16, 10);
        let lines: Vec<&[u8]> = out.split(|&b| b == b'\n').collect();
        assert_eq!(lines[0], b"ok");
        // Cut only when the line does not fit in what was read at once.
        assert_eq!(lines[1].len(), if step < 1000 { 12 } else { 1000 });
        assert_eq!(lines[2], b"end");
    }
}

/// A reader of its bytes that records where and how much each `read`
/// asked for.
struct At<'a>(&'a [u8], Vec<(usize, usize)>);
impl Read for At<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.1.push((buf.as_ptr() as usize, buf.len()));
        let n = buf.len().min(self.0.len());
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

#[test]
fn a_stream_of_known_size_is_read_into_a_room_of_its_size() {
    // Reads go 1 MiB at a time into one room, never grown, that holds
    // what is left of the stream and 64 KiB to find its end in.
    fn read_in_one_room(r: &mut BatchReader<At<'_>>, data: &[u8], left: usize) {
        r.r.1.clear();
        let mut out = Vec::new();
        while let Some(b) = r.next_batch().unwrap() {
            out.extend_from_slice(b);
        }
        assert_eq!(out, data);
        let (base, room) = (r.buf.as_ptr() as usize, r.buf.capacity());
        assert!(
            room >= left + (64 << 10) && room < left + (1 << 20),
            "{room}"
        );
        let asked = &r.r.1;
        assert_eq!(asked[0].1, 1 << 20, "{asked:?}");
        for &(at, n) in asked {
            assert!((64 << 10..=1 << 20).contains(&n), "{asked:?}");
            assert!(at >= base && at + n <= base + room, "{asked:?}");
        }
    }
    // 2.5 MiB in batches of 8 MiB: one room of its size.
    let data: Vec<u8> = b"http://a.example/abcdefghijklmn\n".repeat(5 << 19 >> 5);
    let size = Some(data.len() as u64);
    let mut r = BatchReader::new(At(&data, Vec::new()), 8 << 20, 1000).sized(size);
    read_in_one_room(&mut r, &data, data.len());
    // The same in batches of 1 MiB: the first batch's room is the
    // usual one (2 MiB); the reader goes on in a new buffer, sized to
    // what is left.
    let mut r = BatchReader::new(At(&data, Vec::new()), 1 << 20, 1000).sized(size);
    r.next_batch().unwrap().unwrap();
    assert!(r.buf.capacity() >= (1 << 20) + (1 << 20));
    let first = r.take_batch();
    read_in_one_room(&mut r, &data[first.len()..], data.len() - first.len());
}

#[test]
fn fresh_room_is_read_into_a_little_at_a_time() {
    // 3.6 MiB of lines in one batch: a fresh buffer asks for 64 KiB,
    // then no more than it holds (each ask is zeroed first); a buffer
    // that held as much before (zeroed already) asks for 1 MiB.
    let data: Vec<u8> = b"http://a.example/p\n".repeat(3 << 20 >> 4);
    let lens = |at: &[(usize, usize)]| at.iter().map(|&(_, n)| n).collect::<Vec<_>>();
    let mut r = BatchReader::new(At(&data, Vec::new()), 8 << 20, 1000);
    let first = r.next_batch().unwrap().unwrap().len();
    assert_eq!(first, data.len());
    let asked = lens(&r.r.1);
    assert_eq!(asked[0], 64 << 10, "{asked:?}");
    let mut held = 0;
    for &a in &asked {
        assert!(a <= held.max(64 << 10), "{a} after {held}: {asked:?}");
        held = (held + a).min(data.len());
    }
    let used = r.into_buf();
    let mut r = BatchReader::new(At(&data, Vec::new()), 8 << 20, 1000).reusing(used);
    assert_eq!(r.next_batch().unwrap().unwrap().len(), data.len());
    assert_eq!(lens(&r.r.1)[0], 1 << 20, "{:?}", r.r.1);
}
