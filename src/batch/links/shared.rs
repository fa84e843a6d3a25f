//! What a links run's reader thread and workers share: the graph's kind,
//! the counters of records and links, and the rejects.

use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Mutex;

/// Page or host edges.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Graph {
    #[default]
    Pages,
    /// Host edges, hosts named as Common Crawl's host graph names them.
    /// The key function must give URIs or IRIs (not SURTs).
    Hosts,
}

/// A link or a record that was not turned into an edge, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkReject {
    /// Index of the input.
    pub file: usize,
    /// 1-based record number in the input.
    pub record: u64,
    /// The record's offset (gzip member or byte; 0 for CSV/TSV).
    pub offset: u64,
    /// 1-based number of the link in its record; 0: the whole record.
    pub link: u64,
    /// The link's path (`A@/href`); empty for a record.
    pub path: String,
    /// The link as written; for a record, the start of its line.
    pub input: String,
    pub reason: String,
}

impl LinkReject {
    pub(super) fn record(file: usize, record: u64, offset: u64, reason: String) -> LinkReject {
        LinkReject {
            file,
            record,
            offset,
            link: 0,
            path: String::new(),
            input: String::new(),
            reason,
        }
    }
}

/// What the reader and the workers share: counters and rejects.
#[derive(Default)]
pub(crate) struct Shared {
    pub(super) rejects: Mutex<Vec<LinkReject>>,
    pub(super) records_rejected: AtomicU64,
    pub(super) pages: AtomicU64,
    pub(super) links: AtomicU64,
    pub(super) accepted: AtomicU64,
    pub(super) rejected: AtomicU64,
    pub(super) dropped: AtomicU64,
    pub(super) bytes_read: AtomicU64,
}

impl Shared {
    pub(super) fn reject(&self, r: LinkReject) {
        if r.link == 0 {
            self.records_rejected.fetch_add(1, Relaxed);
        }
        self.rejects
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(r);
    }
}
