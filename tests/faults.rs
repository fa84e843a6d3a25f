//! Fault injection, end to end: what the binary does when the world
//! misbehaves. Every run either succeeds with counts that add up
//! (accepted + rejected + blank = lines) or fails with one clear line and
//! exit 2 — never a panic, never a signal death, never a partial output
//! under the target name. (SIGINT/SIGTERM mid-run: tests/engine.rs.)

mod common;

use std::io::Write;
use std::process::{Output, Stdio};

use common::{bin, run, summary};

/// (lines, blank, accepted, rejected) from the summary line on stderr.
fn counts(o: &Output) -> (u64, u64, u64, u64) {
    summary(&String::from_utf8_lossy(&o.stderr))
}

fn add_up(o: &Output) -> (u64, u64, u64, u64) {
    let c = counts(o);
    assert_eq!(c.1 + c.2 + c.3, c.0, "counts do not add up: {c:?}");
    c
}

#[test]
fn output_to_a_full_device_is_one_clear_error() {
    for cmd in ["dedup", "normalize"] {
        let o = run(&[cmd, "-", "-o", "/dev/full"], b"http://a/\nhttp://b/\n");
        assert_eq!(o.status.code(), Some(2), "{cmd}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("cannot write /dev/full: No space left on device"),
            "{err}"
        );
    }
}

#[test]
fn output_directory_that_disappears() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("out");
    std::fs::create_dir(&sub).unwrap();
    let target = sub.join("unique.csv");
    let mut child = bin()
        .args(["dedup", "-", "-o", target.to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"http://a/\nhttp://b/\n").unwrap();
    stdin.flush().unwrap();
    // The atomic output's temporary file exists by now or soon.
    std::thread::sleep(std::time::Duration::from_millis(200));
    std::fs::remove_dir_all(&sub).unwrap();
    drop(stdin);
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("cannot create"), "{err}");
    assert!(!sub.exists(), "nothing is recreated");
}

#[test]
fn random_bytes_and_nul_are_rejected_lines() {
    // A deterministic "random" file: every byte value, scrambled.
    let mut bytes = Vec::with_capacity(1 << 20);
    let mut x: u32 = 0x1234_5678;
    for _ in 0..(1 << 20) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        bytes.push((x >> 24) as u8);
    }
    let o = run(&["dedup", "-", "-q", "--rejects", "/dev/null"], &bytes);
    assert_eq!(o.status.code(), Some(0));
    let o = run(&["normalize", "-", "-o", "/dev/null"], &bytes);
    assert_eq!(o.status.code(), Some(0));
    let (lines, _, _, rejected) = add_up(&o);
    assert!(lines > 3000 && rejected > 3000);

    let o = run(
        &["dedup", "-", "-o", "/dev/null"],
        b"http://a/\0b\n\0\nhttp://a/\n",
    );
    assert_eq!(add_up(&o), (3, 0, 1, 2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("\\x00"),
        "NUL is escaped on the terminal: {err}"
    );
}

#[test]
fn a_100_mb_line_is_rejected_and_the_rest_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.txt");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    f.write_all(b"http://a/before\nhttp://a/").unwrap();
    let block = vec![b'x'; 1 << 20];
    for _ in 0..100 {
        f.write_all(&block).unwrap();
    }
    f.write_all(b"\nhttp://a/after\n").unwrap();
    f.flush().unwrap();
    drop(f);
    for cmd in ["dedup", "normalize"] {
        let o = run(&[cmd, path.to_str().unwrap(), "-o", "/dev/null"], b"");
        assert_eq!(o.status.code(), Some(0), "{cmd}");
        assert_eq!(add_up(&o), (3, 0, 2, 1), "{cmd}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("line longer than 65536 bytes"), "{err}");
    }
}

#[test]
fn cr_only_lines() {
    // A lone CR (the CR of CRLF) is blank; more CRs are not a reference.
    let o = run(
        &["normalize", "-", "--format", "csv"],
        b"\r\n\r\r\n\r\r\r\r\nhttp://a/\r\n\r",
    );
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(add_up(&o), (5, 2, 1, 2));
}

#[test]
fn input_truncated_while_it_is_read() {
    // Files are read, not mapped: truncation ends the input early instead of
    // killing the process with SIGBUS. Whatever was read is processed.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shrinking.txt");
    let mut text = Vec::new();
    for i in 0..400_000 {
        writeln!(text, "http://h{}.example/p/{i}", i % 1000).unwrap();
    }
    std::fs::write(&path, &text).unwrap();
    let child = bin()
        .args([
            "dedup",
            path.to_str().unwrap(),
            "-o",
            "/dev/null",
            "--threads",
            "1",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(50));
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(1000)
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let (lines, _, accepted, _) = add_up(&o);
    assert!(lines >= 1 && accepted >= 1 && lines <= 400_000);
}

/// `normalize` on a stream answers each batch before the next one comes:
/// a line written to a pipe that stays open has its key on stdout while
/// the input has not ended (the output is written by a thread of its own,
/// which must pass each chunk on at once).
#[test]
fn normalize_answers_a_stream_before_it_ends() {
    use std::io::{BufRead, BufReader};
    let mut child = bin()
        .args(["normalize", "-q", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.unwrap()).is_err() {
                return;
            }
        }
    });
    for (input, want) in [
        ("HTTP://Example.COM:80/a/./b\n", "http://example.com/a/b"),
        ("http://münchen.de/\n", "http://xn--mnchen-3ya.de/"),
    ] {
        stdin.write_all(input.as_bytes()).unwrap();
        stdin.flush().unwrap();
        let got = rx
            .recv_timeout(std::time::Duration::from_secs(20))
            .expect("a key before the input ended");
        assert_eq!(got, want);
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
    reader.join().unwrap();
}

/// A disk that fills mid-run (here: a file-size limit, which fails the
/// next write as a full disk does) is one clear error: exit 2, one line
/// naming the temporary directory, and no spill files nor output left.
#[cfg(unix)]
#[test]
fn a_full_temp_dir_mid_spill_is_one_clear_error_and_leaves_nothing() {
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let out = dir.path().join("u.csv");
    let mut text = Vec::new();
    for i in 0..60_000 {
        writeln!(
            text,
            "http://h{}.example/some/path/{i}?q={}",
            i % 997,
            i * 7
        )
        .unwrap();
    }
    let mut cmd = bin();
    cmd.args(["dedup", "-", "--memory", "64K", "-o"])
        .arg(&out)
        .arg("--temp-dir")
        .arg(tmp.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            // Writes past the limit fail with EFBIG instead of a signal.
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let lim = libc::rlimit {
                rlim_cur: 8 << 10,
                rlim_max: 8 << 10,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = cmd.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let _ = stdin.write_all(&text);
    drop(stdin);
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("cannot write to the temporary directory") && err.contains("too large"),
        "{err}"
    );
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
    assert!(!out.exists());
}
