//! The URL-seen test (`dedup --seen`, `--seen-check`, `irinorm seen`):
//! exactness against sets computed independently (plain `dedup` runs and
//! a `HashSet`), for every key option; refusal of other key options; the
//! lock; damaged store files; and runs killed at random points.

mod common;

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{bin, ok};

/// A small deterministic generator (64-bit LCG, high bits).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

/// Lines that differ only where some rung or option of the ladder makes
/// them equal: case, default port, dot segments, percent-encoding,
/// non-ASCII, NFC, query order, session ids, `www`; and some invalid ones.
fn batch(rng: &mut Lcg, lines: usize, ids: std::ops::Range<usize>) -> String {
    const SCHEMES: [&str; 3] = ["http", "HTTP", "https"];
    const HOSTS: [&str; 6] = [
        "example.com",
        "Example.COM",
        "www.example.com",
        "xn--mnchen-3ya.de",
        "münchen.de",
        "a.org",
    ];
    const PORTS: [&str; 3] = ["", ":80", ":8080"];
    const PATHS: [&str; 14] = [
        "/",
        "",
        "/a/./b",
        "/a/b",
        "/%7euser",
        "/~user",
        "/ü",
        "/%C3%BC",
        "/p?b=2&a=1",
        "/p?a=1&b=2",
        "/s;jsessionid=AB",
        "/e\u{301}",
        "/é",
        "/q,\"x\"",
    ];
    let mut s = String::new();
    for _ in 0..lines {
        if rng.next(50) == 0 {
            s.push_str("not a reference\n");
            continue;
        }
        let id = ids.start + rng.next(ids.end - ids.start);
        s.push_str(&format!(
            "{}://{}{}/n{id}{}\n",
            SCHEMES[rng.next(3)],
            HOSTS[rng.next(6)],
            PORTS[rng.next(3)],
            PATHS[rng.next(14)]
        ));
    }
    s
}

fn unquote(field: &str) -> String {
    match field.strip_prefix('"').and_then(|f| f.strip_suffix('"')) {
        Some(f) => f.replace("\"\"", "\""),
        None => field.to_owned(),
    }
}

fn irinorm(args: &[&str]) -> std::process::Output {
    bin().args(args).output().expect("run irinorm")
}

/// Plain `dedup` of `file`: its rows (no header) and each row's grouping
/// key (the URI-form key for `--form surt`).
fn plain(opts: &[&str], columns: &str, file: &Path) -> (Vec<String>, Vec<String>) {
    let f = file.to_str().unwrap();
    let mut a: Vec<&str> = vec!["dedup", "-q", "--columns", columns];
    a.extend(opts);
    a.push(f);
    let rows: Vec<String> = ok(&irinorm(&a))
        .lines()
        .skip(1)
        .map(str::to_owned)
        .collect();
    let key_opts: Vec<&str> = opts
        .iter()
        .enumerate()
        .map(|(i, &o)| match (i.checked_sub(1).map(|p| opts[p]), o) {
            (Some("--form"), "surt") => "uri",
            _ => o,
        })
        .collect();
    let mut k = vec!["dedup", "-q", "--columns", "canonical"];
    k.extend(&key_opts);
    k.push(f);
    let keys: Vec<String> = ok(&irinorm(&k)).lines().skip(1).map(unquote).collect();
    assert_eq!(rows.len(), keys.len());
    (rows, keys)
}

fn seen_run(flag: &str, store: &Path, opts: &[&str], columns: &str, file: &Path) -> String {
    let mut a = vec![
        "dedup",
        "-q",
        flag,
        store.to_str().unwrap(),
        "--columns",
        columns,
    ];
    a.extend(opts);
    a.push(file.to_str().unwrap());
    ok(&irinorm(&a))
}

#[test]
fn writes_exactly_the_keys_not_seen_for_every_key_option() {
    let configs: &[(&[&str], &str)] = &[
        (&[], "canonical,count,first_file,first_line,example"),
        (&["--level", "string"], "example,canonical,count"),
        (
            &["--level", "syntax", "--sort", "canonical"],
            "count,canonical",
        ),
        (&["--level", "protocol"], "canonical,example"),
        (
            &["--level", "protocol", "--rules", "+sort-query,-session"],
            "canonical",
        ),
        (&["--form", "iri", "--nfc"], "first_line,canonical"),
        (
            &["--form", "surt", "--sort", "surt"],
            "example,canonical,first_line",
        ),
        (&["--form", "surt-ia"], "canonical,count"),
        (&["--mode", "leiri", "--memory", "64K"], "example"),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (c, (opts, columns)) in configs.iter().enumerate() {
        let store = dir.path().join(format!("store{c}"));
        let mut history: HashSet<String> = HashSet::new();
        let mut rng = Lcg(c as u64 + 7);
        // Batches that overlap the ones before; the last is 9000 lines of
        // mostly new keys, so a small budget checks it in several segments.
        for (b, (lines, ids)) in [(2000, 0..800), (2000, 400..1200), (9000, 600..9000)]
            .into_iter()
            .enumerate()
        {
            let file = dir.path().join(format!("b{c}-{b}.txt"));
            fs::write(&file, batch(&mut rng, lines, ids)).unwrap();
            let (rows, keys) = plain(opts, columns, &file);
            let mut want = format!("{columns}\n");
            for (r, k) in rows.iter().zip(&keys) {
                if !history.contains(k) {
                    want.push_str(r);
                    want.push('\n');
                }
            }
            if b > 0 {
                let got = seen_run("--seen-check", &store, opts, columns, &file);
                assert_eq!(got, want, "check, config {opts:?}, batch {b}");
            }
            let got = seen_run("--seen", &store, opts, columns, &file);
            assert_eq!(got, want, "config {opts:?}, batch {b}");
            history.extend(keys);
            let info = irinorm::batch::seen_verify(&store).unwrap();
            assert_eq!(info.keys(), history.len() as u64, "config {opts:?}");
        }
    }
}

#[test]
fn other_key_options_are_refused_and_surt_shares_the_uri_keys() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("in.txt");
    fs::write(&file, "http://a.example/x\nhttp://b.example/\n").unwrap();
    let (s, f) = (dir.path().join("s"), file.to_str().unwrap());
    let st = s.to_str().unwrap();
    ok(&irinorm(&["dedup", "-q", "--seen", st, f]));
    for other in [
        &["--level", "syntax"][..],
        &["--form", "iri"],
        &["--nfc"],
        &["--mode", "web"],
        &["--level", "protocol"],
    ] {
        let mut a = vec!["dedup", "-q", "--seen-check", st];
        a.extend(other);
        a.push(f);
        let o = irinorm(&a);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{other:?} was accepted");
        assert!(err.contains("other key options"), "{err}");
    }
    // SURT is a display of the URI-form key: the same keys, all seen.
    let out = ok(&irinorm(&[
        "dedup", "-q", "--form", "surt", "--seen", st, f,
    ]));
    assert_eq!(out, "canonical,count,first_file,first_line,example\n");
    assert_eq!(irinorm::batch::seen_info(&s).unwrap().keys(), 2);
}

#[test]
fn a_second_writer_is_kept_out_with_a_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("in.txt");
    fs::write(&file, "http://a.example/x\n").unwrap();
    let (s, f) = (dir.path().join("s"), file.to_str().unwrap());
    let st = s.to_str().unwrap();
    ok(&irinorm(&["dedup", "-q", "--seen", st, f]));
    let lock = fs::File::open(s.join("LOCK")).unwrap();
    lock.lock().unwrap();
    for (flag, says) in [
        ("--seen", "one writer at a time"),
        ("--seen-check", "being updated"),
    ] {
        let o = irinorm(&["dedup", "-q", flag, st, f]);
        assert_eq!(o.status.code(), Some(2));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(says), "{err}");
    }
    let o = irinorm(&["seen", "compact", st]);
    assert_eq!(o.status.code(), Some(2));
    lock.unlock().unwrap();
    // A reader keeps writers out, not other readers.
    lock.lock_shared().unwrap();
    assert_eq!(
        irinorm(&["dedup", "-q", "--seen", st, f]).status.code(),
        Some(2)
    );
    ok(&irinorm(&["dedup", "-q", "--seen-check", st, f]));
    ok(&irinorm(&["seen", "info", st]));
    lock.unlock().unwrap();
    ok(&irinorm(&["dedup", "-q", "--seen", st, f]));
}

#[test]
fn what_is_not_a_seen_set_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("in.txt");
    fs::write(&file, "http://a.example/x\n").unwrap();
    let f = file.to_str().unwrap();
    let missing = dir.path().join("missing");
    for args in [
        vec!["dedup", "-q", "--seen-check", missing.to_str().unwrap(), f],
        vec!["seen", "info", missing.to_str().unwrap()],
        vec!["seen", "compact", missing.to_str().unwrap()],
        // A directory with other files is not made a seen-set.
        vec!["dedup", "-q", "--seen", dir.path().to_str().unwrap(), f],
    ] {
        let o = irinorm(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&o.stderr).contains("seen-set"));
    }
    assert!(!missing.exists());
    // Another format version, correctly checksummed, is refused by name.
    let s = dir.path().join("s");
    ok(&irinorm(&["dedup", "-q", "--seen", s.to_str().unwrap(), f]));
    let text = fs::read_to_string(s.join("MANIFEST")).unwrap();
    let body = text[..text.rfind("crc ").unwrap()].replace("irinorm-seen 1", "irinorm-seen 2");
    let text = format!("{body}crc {:08x}\n", crc32fast::hash(body.as_bytes()));
    fs::write(s.join("MANIFEST"), text).unwrap();
    let e = irinorm::batch::seen_info(&s).unwrap_err().to_string();
    assert!(e.contains("format version 2"), "{e}");
}

/// A store of a few bucket files, the largest of several blocks.
fn store_with_files(dir: &Path) -> PathBuf {
    let s = dir.join("s");
    let mut rng = Lcg(99);
    for (b, (lines, ids)) in [(12_000, 0..12_000), (3000, 12_000..15_000)]
        .into_iter()
        .enumerate()
    {
        let file = dir.join(format!("in{b}.txt"));
        fs::write(&file, batch(&mut rng, lines, ids)).unwrap();
        let a = [
            "dedup",
            "-q",
            "--seen",
            s.to_str().unwrap(),
            "--columns",
            "canonical",
            file.to_str().unwrap(),
        ];
        ok(&irinorm(&a));
    }
    s
}

#[test]
fn every_flipped_bit_or_truncation_of_a_store_file_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let s = store_with_files(dir.path());
    let info = irinorm::batch::seen_verify(&s).unwrap();
    assert!(info.buckets.len() >= 2, "{info:?}");
    let mut files = vec![s.join("MANIFEST")];
    files.extend(info.buckets.iter().map(|b| s.join(&b.name)));
    let mut rng = Lcg(5);
    for path in files {
        let good = fs::read(&path).unwrap();
        let n = good.len();
        // Every byte of a small file, the edges and a sample of a large one.
        let positions: Vec<usize> = if n <= 4096 {
            (0..n).collect()
        } else {
            (0..64)
                .chain(n - 64..n)
                .chain((0..128).map(|_| rng.next(n)))
                .collect()
        };
        for &at in &positions {
            let mut bad = good.clone();
            bad[at] ^= 1 << rng.next(8);
            fs::write(&path, &bad).unwrap();
            assert!(
                irinorm::batch::seen_verify(&s).is_err(),
                "{} with a bit flipped at {at} was read",
                path.display()
            );
        }
        for len in positions.iter().map(|&p| p.min(n - 1)) {
            fs::write(&path, &good[..len]).unwrap();
            assert!(
                irinorm::batch::seen_verify(&s).is_err(),
                "{} cut to {len} bytes was read",
                path.display()
            );
        }
        fs::write(&path, &good).unwrap();
        irinorm::batch::seen_verify(&s).unwrap();
    }
    // The check reads what `verify` does: a damaged store stops a batch.
    let bucket = s.join(&info.buckets[0].name);
    let mut bad = fs::read(&bucket).unwrap();
    let mid = bad.len() / 2;
    bad[mid] ^= 4;
    fs::write(&bucket, bad).unwrap();
    let file = dir.path().join("in1.txt");
    for flag in ["--seen", "--seen-check"] {
        let o = irinorm(&[
            "dedup",
            "-q",
            flag,
            s.to_str().unwrap(),
            file.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(2));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("checksum"), "{err}");
        assert!(o.stdout.is_empty());
    }
}

/// The keys of the seen-set in `s` among `all`, read through a check run.
fn keys_held(s: &Path, all: &Path, everything: &HashSet<String>) -> HashSet<String> {
    let a = [
        "dedup",
        "-q",
        "--seen-check",
        s.to_str().unwrap(),
        "--columns",
        "canonical",
        all.to_str().unwrap(),
    ];
    let absent: HashSet<String> = ok(&irinorm(&a)).lines().skip(1).map(unquote).collect();
    everything.difference(&absent).cloned().collect()
}

#[test]
fn a_run_killed_at_any_point_loses_and_invents_no_key() {
    let dir = tempfile::tempdir().unwrap();
    let s = dir.path().join("s");
    let st = s.to_str().unwrap().to_owned();
    let mut rng = Lcg(2024);
    let batches: Vec<(PathBuf, HashSet<String>)> = (0..8)
        .map(|b| {
            let file = dir.path().join(format!("b{b}.txt"));
            fs::write(&file, batch(&mut rng, 6000, b * 1500..b * 1500 + 4000)).unwrap();
            let (_, keys) = plain(&[], "canonical", &file);
            (file, keys.into_iter().collect())
        })
        .collect();
    let all = dir.path().join("all.txt");
    let mut text = String::new();
    for (f, _) in &batches {
        text.push_str(&fs::read_to_string(f).unwrap());
    }
    fs::write(&all, text).unwrap();
    let everything: HashSet<String> = batches.iter().flat_map(|b| b.1.clone()).collect();

    // How long an uninterrupted run takes, to kill within it. One timing
    // on a loaded machine can be far off either way, so the span adapts:
    // a run that ended before its kill narrows it, a killed run widens
    // it, and every eighth run is left to finish.
    let t = Instant::now();
    ok(&irinorm(&[
        "dedup",
        "-q",
        "--seen",
        &st,
        batches[0].0.to_str().unwrap(),
    ]));
    let mut span = t.elapsed().as_micros() as u64 * 2 + 1;
    let mut held: HashSet<String> = batches[0].1.clone();
    let (mut killed, mut finished_runs) = (0, 0);
    let mut round = 0;
    while round < 24 || ((killed < 4 || finished_runs < 2) && round < 64) {
        let (file, keys) = &batches[1 + round % (batches.len() - 1)];
        let compact = round % 5 == 4;
        let mut cmd = bin();
        if compact {
            cmd.args(["seen", "compact", &st]);
        } else {
            cmd.args(["dedup", "-q", "--seen", &st, "-o"])
                .arg(dir.path().join("out.csv"))
                .arg(file);
        }
        let mut child = cmd.stderr(Stdio::null()).spawn().unwrap();
        if round % 8 == 7 {
            assert!(child.wait().unwrap().success(), "round {round} failed");
            finished_runs += 1;
        } else {
            std::thread::sleep(Duration::from_micros(rng.next(span as usize) as u64));
            if child.try_wait().unwrap().is_some() {
                finished_runs += 1;
                span = span * 2 / 3 + 1;
            } else {
                child.kill().unwrap();
                killed += 1;
                span += span / 8;
            }
        }
        child.wait().unwrap();
        let info = irinorm::batch::seen_verify(&s)
            .unwrap_or_else(|e| panic!("round {round}: the store is damaged: {e}"));
        let now = keys_held(&s, &all, &everything);
        assert_eq!(
            info.keys(),
            now.len() as u64,
            "round {round}: invented keys"
        );
        let after: HashSet<String> = held.union(keys).cloned().collect();
        assert!(
            now == held || (!compact && now == after),
            "round {round}: {} keys held, {} before, {} with the batch",
            now.len(),
            held.len(),
            after.len()
        );
        held = now;
        round += 1;
    }
    // Runs were killed at points spread over a whole run, and some ended.
    assert!(
        killed >= 4 && finished_runs >= 2,
        "{killed} killed, {finished_runs} finished"
    );
    // Nothing is left beside the store's own files once a writer opened it.
    ok(&irinorm(&[
        "dedup",
        "-q",
        "--seen",
        &st,
        batches[1].0.to_str().unwrap(),
    ]));
    let info = irinorm::batch::seen_info(&s).unwrap();
    let mut want: Vec<String> = info.buckets.iter().map(|b| b.name.clone()).collect();
    want.extend(["LOCK".into(), "MANIFEST".into()]);
    want.sort();
    let mut got: Vec<String> = fs::read_dir(&s)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    got.sort();
    assert_eq!(got, want);
}

#[test]
fn ctrl_c_leaves_no_temporary_file_and_the_store_usable() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    fs::create_dir(&tmp).unwrap();
    let s = dir.path().join("s");
    let file = dir.path().join("in.txt");
    fs::write(&file, batch(&mut Lcg(3), 60_000, 0..60_000)).unwrap();
    let mut rng = Lcg(11);
    for _ in 0..6 {
        let mut child = bin()
            .args(["dedup", "-q", "--seen"])
            .arg(&s)
            .arg("--temp-dir")
            .arg(&tmp)
            .args(["-o", "/dev/null"])
            .arg(&file)
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(50 + rng.next(400) as u64));
        // SAFETY: signalling our own child by its pid.
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        child.wait().unwrap();
        assert_eq!(
            fs::read_dir(&tmp).unwrap().count(),
            0,
            "temporary files left"
        );
        if s.join("MANIFEST").exists() {
            irinorm::batch::seen_verify(&s).unwrap();
            let info = irinorm::batch::seen_info(&s).unwrap();
            let named: usize = info.buckets.len();
            let files = fs::read_dir(&s)
                .unwrap()
                .filter(|e| {
                    let e = e.as_ref().unwrap();
                    e.file_name().to_string_lossy().ends_with(".keys")
                })
                .count();
            assert_eq!(files, named, "bucket files left by an interrupted run");
        }
    }
}
