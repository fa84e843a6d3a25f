//! The seen-set's directory: a manifest naming the bucket files, a lock,
//! and updates committed by the atomic rename of a synced manifest (the
//! write-new-then-rename commit of POSIX `rename(2)`), so a crash at any
//! point leaves the previous state whole.
//!
//! ```text
//! DIR/MANIFEST     irinorm-seen 1          format version
//!                  secret <32 hex>         the fingerprints' SipHash key
//!                  options <text>          the key options of its keys
//!                  next <n>                the next file number
//!                  run <name> <keys> <bytes>   one line per bucket file
//!                  crc <8 hex>             CRC-32 of every line above
//! DIR/LOCK         flock: one writer (exclusive) or readers (shared)
//! DIR/<n>.keys     bucket files (`keys`), never changed once written
//! ```
//!
//! An update writes new bucket files, syncs them, writes `MANIFEST.tmp`,
//! syncs it, renames it over `MANIFEST` and syncs the directory; only then
//! are the files it no longer names deleted. Files a killed update left
//! behind (not named by the manifest) are deleted by the next writer.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::keys::{self, KeyReader};
use crate::batch::{cleanup, RunError};

const MAGIC: &str = "irinorm-seen";
const VERSION: u32 = 1;
const MANIFEST: &str = "MANIFEST";
const MANIFEST_TMP: &str = "MANIFEST.tmp";
const LOCK: &str = "LOCK";
const SUFFIX: &str = ".keys";

/// One bucket file as the manifest names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bucket {
    pub name: String,
    pub keys: u64,
    pub bytes: u64,
}

/// What a seen-set holds (`irinorm seen info`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeenInfo {
    /// The format version.
    pub version: u32,
    /// The key options its keys were computed with.
    pub key_options: String,
    /// Its bucket files, oldest first (the tiers: each at least twice the
    /// next, see `Store::add`).
    pub buckets: Vec<Bucket>,
}

impl SeenInfo {
    /// Keys in the seen-set.
    pub fn keys(&self) -> u64 {
        self.buckets.iter().map(|b| b.keys).sum()
    }

    /// Bytes of its bucket files (the manifest adds a few hundred).
    pub fn bytes(&self) -> u64 {
        self.buckets.iter().map(|b| b.bytes).sum()
    }
}

/// How a seen-set is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Read only, beside other readers; an error if it does not exist.
    Read,
    /// The one writer; created if the directory is absent or empty.
    Write,
}

/// An open seen-set, locked for as long as it lives.
pub struct Store {
    dir: PathBuf,
    _lock: File,
    secret: (u64, u64),
    options: String,
    next: u64,
    buckets: Vec<Bucket>,
}

fn err(dir: &Path, what: impl std::fmt::Display) -> RunError {
    RunError::msg(format!("seen-set {}: {what}", dir.display()))
}

fn io_err(dir: &Path, what: &str, e: &io::Error) -> RunError {
    RunError::io(format!("seen-set {}: {what}", dir.display()), e)
}

/// 128 random bits: the key of the fingerprints, unknown to whoever writes
/// the URLs, so nobody can aim two keys at one fingerprint.
fn random_secret() -> (u64, u64) {
    use std::hash::{BuildHasher, Hasher};
    let mut b = [0u8; 16];
    let from_os = File::open("/dev/urandom").and_then(|mut f| io::Read::read_exact(&mut f, &mut b));
    if from_os.is_ok() {
        return (
            u64::from_le_bytes(b[..8].try_into().unwrap_or_default()),
            u64::from_le_bytes(b[8..].try_into().unwrap_or_default()),
        );
    }
    // std's per-process random hash keys, where there is no /dev/urandom.
    let word = |salt: u64| {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(salt);
        h.finish()
    };
    (word(1), word(2))
}

fn manifest_text(secret: (u64, u64), options: &str, next: u64, buckets: &[Bucket]) -> String {
    let mut t = format!(
        "{MAGIC} {VERSION}\nsecret {:016x}{:016x}\noptions {options}\nnext {next}\n",
        secret.0, secret.1
    );
    for b in buckets {
        t.push_str(&format!("run {} {} {}\n", b.name, b.keys, b.bytes));
    }
    let crc = crc32fast::hash(t.as_bytes());
    t.push_str(&format!("crc {crc:08x}\n"));
    t
}

type Parsed = ((u64, u64), String, u64, Vec<Bucket>);

fn parse_manifest(text: &str) -> Result<Parsed, String> {
    let body_end = text
        .trim_end_matches('\n')
        .rfind('\n')
        .map(|i| i + 1)
        .ok_or("truncated manifest")?;
    let (body, tail) = text.split_at(body_end);
    let crc = tail
        .strip_prefix("crc ")
        .and_then(|c| c.strip_suffix('\n'))
        .filter(|c| c.len() == 8 && c.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
        .and_then(|c| u32::from_str_radix(c, 16).ok())
        .ok_or("manifest has no checksum line (truncated?)")?;
    if crc32fast::hash(body.as_bytes()) != crc {
        return Err("manifest checksum mismatch".into());
    }
    let mut lines = body.lines();
    let head = lines.next().unwrap_or_default();
    match head.strip_prefix(MAGIC).map(str::trim) {
        Some(v) if v == VERSION.to_string() => {}
        Some(v) => return Err(format!("format version {v}; this irinorm reads {VERSION}")),
        None => return Err("not a seen-set manifest".into()),
    }
    let mut field = |name: &str| {
        lines
            .next()
            .and_then(|l| l.strip_prefix(name))
            .and_then(|l| l.strip_prefix(' '))
            .map(str::to_owned)
            .ok_or(format!("manifest lacks its {name} line"))
    };
    let secret = field("secret")?;
    let options = field("options")?;
    let next = field("next")?;
    let bad = || "malformed manifest".to_string();
    let secret = (
        u64::from_str_radix(secret.get(..16).ok_or_else(bad)?, 16).map_err(|_| bad())?,
        u64::from_str_radix(secret.get(16..).ok_or_else(bad)?, 16).map_err(|_| bad())?,
    );
    let next: u64 = next.parse().map_err(|_| bad())?;
    let mut buckets = Vec::new();
    for l in lines {
        let mut w = l.strip_prefix("run ").ok_or_else(bad)?.split(' ');
        let (Some(name), Some(k), Some(b), None) = (w.next(), w.next(), w.next(), w.next()) else {
            return Err(bad());
        };
        if !is_bucket_name(name) {
            return Err(bad());
        }
        buckets.push(Bucket {
            name: name.to_owned(),
            keys: k.parse().map_err(|_| bad())?,
            bytes: b.parse().map_err(|_| bad())?,
        });
    }
    Ok((secret, options, next, buckets))
}

fn is_bucket_name(name: &str) -> bool {
    name.strip_suffix(SUFFIX)
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Key options are one line of printable text in the manifest.
fn check_options(options: &str) -> Result<(), RunError> {
    if options.chars().any(char::is_control) {
        return Err(RunError::msg("key options must be one line of text"));
    }
    Ok(())
}

impl Store {
    /// Open (or, for [`Access::Write`], create) the seen-set in `dir` and
    /// lock it. `key_options` (`None`: whatever it holds) must be the ones
    /// it was created with.
    pub fn open(dir: &Path, key_options: Option<&str>, access: Access) -> Result<Store, RunError> {
        if let Some(o) = key_options {
            check_options(o)?;
        }
        let exists = dir.join(MANIFEST).exists();
        if !exists && access == Access::Read {
            return Err(err(dir, "no seen-set here (no MANIFEST)"));
        }
        if access == Access::Write {
            fs::create_dir_all(dir).map_err(|e| io_err(dir, "cannot create it", &e))?;
        }
        let lock = File::options()
            .read(true)
            .write(access == Access::Write)
            .create(access == Access::Write)
            .truncate(false)
            .open(dir.join(LOCK))
            .or_else(|e| match e.kind() {
                // A reader of a store it may not write: the lock file is
                // there, or the store is not.
                io::ErrorKind::NotFound if access == Access::Read => File::open(dir),
                _ => Err(e),
            })
            .map_err(|e| io_err(dir, "cannot open its lock file", &e))?;
        let locked = match access {
            Access::Write => lock.try_lock(),
            Access::Read => lock.try_lock_shared(),
        };
        match locked {
            Ok(()) => {}
            Err(fs::TryLockError::WouldBlock) => {
                return Err(err(
                    dir,
                    match access {
                        Access::Write => {
                            "in use: another irinorm holds its lock (LOCK); one writer at a time"
                        }
                        Access::Read => {
                            "being updated: another irinorm holds its lock (LOCK) to write"
                        }
                    },
                ))
            }
            Err(fs::TryLockError::Error(e)) => return Err(io_err(dir, "cannot lock it", &e)),
        }
        let store = if dir.join(MANIFEST).exists() {
            let text = fs::read(dir.join(MANIFEST))
                .map_err(|e| io_err(dir, "cannot read its MANIFEST", &e))?;
            let text = String::from_utf8(text).map_err(|_| err(dir, "MANIFEST is not text"))?;
            let (secret, options, next, buckets) =
                parse_manifest(&text).map_err(|m| err(dir, m))?;
            Store {
                dir: dir.to_path_buf(),
                _lock: lock,
                secret,
                options,
                next,
                buckets,
            }
        } else {
            Store::create(dir, lock, key_options.unwrap_or_default())?
        };
        if let Some(o) = key_options {
            if o != store.options {
                return Err(err(
                    dir,
                    format!(
                        "its keys were made with other key options ({}); this run's: {o}",
                        store.options
                    ),
                ));
            }
        }
        if access == Access::Write {
            store.remove_leftovers()?;
        }
        Ok(store)
    }

    /// A new, empty seen-set in `dir` (absent, empty, or holding only what
    /// a killed first update left).
    fn create(dir: &Path, lock: File, options: &str) -> Result<Store, RunError> {
        let entries = fs::read_dir(dir).map_err(|e| io_err(dir, "cannot list it", &e))?;
        for e in entries {
            let e = e.map_err(|e| io_err(dir, "cannot list it", &e))?;
            let name = e.file_name();
            let name = name.to_string_lossy();
            if name != LOCK && name != MANIFEST_TMP && !is_bucket_name(&name) {
                return Err(err(
                    dir,
                    "not a seen-set (no MANIFEST) and not empty: give a new or empty directory",
                ));
            }
        }
        let store = Store {
            dir: dir.to_path_buf(),
            _lock: lock,
            secret: random_secret(),
            options: options.to_owned(),
            next: 1,
            buckets: Vec::new(),
        };
        store.write_manifest(&store.buckets, store.next)?;
        Ok(store)
    }

    /// Delete the files no manifest names (left by a killed update).
    fn remove_leftovers(&self) -> Result<(), RunError> {
        let entries =
            fs::read_dir(&self.dir).map_err(|e| io_err(&self.dir, "cannot list it", &e))?;
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let named = self.buckets.iter().any(|b| b.name == name);
            if name == MANIFEST_TMP || (is_bucket_name(&name) && !named) {
                fs::remove_file(e.path())
                    .map_err(|e| io_err(&self.dir, "cannot remove a leftover file", &e))?;
            }
        }
        Ok(())
    }

    /// What it holds.
    pub fn info(&self) -> SeenInfo {
        SeenInfo {
            version: VERSION,
            key_options: self.options.clone(),
            buckets: self.buckets.clone(),
        }
    }

    pub(super) fn secret(&self) -> (u64, u64) {
        self.secret
    }

    /// Readers of every bucket file, oldest first.
    pub(super) fn readers(&self) -> Result<Vec<KeyReader>, RunError> {
        self.buckets
            .iter()
            .map(|b| {
                KeyReader::open(&self.dir.join(&b.name), b.keys, b.bytes)
                    .map_err(|e| io_err(&self.dir, &format!("cannot read {}", b.name), &e))
            })
            .collect()
    }

    /// A path for a new bucket file, registered for removal on a signal
    /// until it is committed.
    pub(super) fn new_bucket(&mut self) -> (String, PathBuf) {
        let name = format!("{}{SUFFIX}", self.next);
        self.next += 1;
        let path = self.dir.join(&name);
        cleanup::register(&path);
        (name, path)
    }

    fn write_manifest(&self, buckets: &[Bucket], next: u64) -> Result<(), RunError> {
        let text = manifest_text(self.secret, &self.options, next, buckets);
        let tmp = self.dir.join(MANIFEST_TMP);
        cleanup::register(&tmp);
        let written = (|| {
            let mut f = File::create(&tmp)?;
            f.write_all(text.as_bytes())?;
            f.sync_all()
        })();
        written.map_err(|e| io_err(&self.dir, "cannot write its manifest", &e))?;
        cleanup::forget(&tmp);
        // A signal handler that started before `forget` may be deleting
        // the new files: then this update is not committed.
        if cleanup::stopping() {
            return Err(RunError::msg("interrupted"));
        }
        fs::rename(&tmp, self.dir.join(MANIFEST))
            .and_then(|()| sync_dir(&self.dir))
            .map_err(|e| io_err(&self.dir, "cannot commit its manifest", &e))
    }

    /// Commit `buckets` as the new list of bucket files (the new ones
    /// written and synced), then delete the files it no longer names.
    fn commit(&mut self, buckets: Vec<Bucket>) -> Result<(), RunError> {
        for b in &buckets {
            cleanup::forget(&self.dir.join(&b.name));
        }
        self.write_manifest(&buckets, self.next)?;
        let old = std::mem::replace(&mut self.buckets, buckets);
        for b in old {
            if !self.buckets.contains(&b) {
                // Nothing depends on it any more; a failure only leaves a
                // file the next writer deletes.
                let _ = fs::remove_file(self.dir.join(&b.name));
            }
        }
        Ok(())
    }

    /// Commit new bucket files (written with [`Store::new_bucket`]), then
    /// keep the tiers: the newest files are merged while together they
    /// hold at least half as many keys as the file before them, so each
    /// file holds at least twice the keys of all newer ones — at most
    /// log₂(keys) files, and each key rewritten at most log₂ times.
    pub(super) fn add(&mut self, new: Vec<Bucket>) -> Result<(), RunError> {
        let mut buckets = self.buckets.clone();
        buckets.extend(new.into_iter().filter(|b| {
            let empty = b.keys == 0;
            if empty {
                let path = self.dir.join(&b.name);
                cleanup::forget(&path);
                let _ = fs::remove_file(path);
            }
            !empty
        }));
        self.commit(buckets)?;
        let n = self.buckets.len();
        let mut from = n;
        let mut acc = 0u64;
        while from > 0 {
            let k = self.buckets[from - 1].keys;
            if from < n && acc.saturating_mul(2) < k {
                break;
            }
            acc += k;
            from -= 1;
        }
        if n - from >= 2 {
            self.merge_from(from)?;
        }
        Ok(())
    }

    /// Merge every bucket file into one (`irinorm seen compact`).
    pub fn compact(&mut self) -> Result<(), RunError> {
        if self.buckets.len() >= 2 {
            self.merge_from(0)?;
        }
        Ok(())
    }

    /// Merge the bucket files from index `from` on into one and commit.
    fn merge_from(&mut self, from: usize) -> Result<(), RunError> {
        let readers = self.readers()?.split_off(from);
        let (name, path) = self.new_bucket();
        let (keys, bytes) = keys::merge(readers, &path)
            .map_err(|e| io_err(&self.dir, &format!("cannot merge into {name}"), &e))?;
        let mut buckets = self.buckets[..from].to_vec();
        buckets.push(Bucket { name, keys, bytes });
        self.commit(buckets)
    }

    /// Read every bucket file whole, checking it (`irinorm seen info
    /// --verify`): the number of keys.
    pub fn verify(&self) -> Result<u64, RunError> {
        let mut n = 0;
        for (mut r, b) in self.readers()?.into_iter().zip(&self.buckets) {
            while r
                .next_key()
                .map_err(|e| io_err(&self.dir, &format!("cannot read {}", b.name), &e))?
                .is_some()
            {
                n += 1;
            }
        }
        Ok(n)
    }

    pub(super) fn dir(&self) -> &Path {
        &self.dir
    }
}
