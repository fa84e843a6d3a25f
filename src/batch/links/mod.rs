//! Link graphs: the links of web-archive records (WAT JSON, WARC HTTP
//! responses; [`crate::archive`]) or of CSV/TSV edge lists, each endpoint
//! resolved against its page's base (RFC 3986 §5.2) and keyed on the
//! comparison ladder (3987bis §5.3), deduplicated as edges with counts by
//! the dedup engine — the same table, memory budget and spill, so the
//! output is byte-identical whatever the threads or budget.
//!
//! ```text
//! stream   inputs → one line per record, on the reader thread
//! edges    a line → its links keyed → `source,target` items (workers)
//! (dedup)  the items counted and deduplicated, in first-occurrence order
//! ```
//!
//! Three graphs: page edges `source,target,count`; with [`Graph::Hosts`],
//! host edges named as Common Crawl's host graph names hosts
//! ([`crate::archive::graph_host`]: reversed, `www.` dropped, A-labels;
//! IP hosts, hosts of one label and self-loops left out, counted as
//! dropped); with [`Config::targets`], each target's in-links from
//! distinct sources (`target,count`, a second pass of the engine over the
//! edges). Every link is counted: `accepted + rejected = links`.

mod edges;
mod shared;
mod stream;

use std::io::Read;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use shared::Shared;
pub use shared::{Graph, LinkReject};
pub use stream::Kind;

use crate::batch::{
    self, Columns, DedupConfig, Field, Format, Input, KeyFn, Observer, Order, OwnHrefKeyFn, Reject,
    RunError,
};

/// A column of the edges output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkField {
    Source,
    Target,
    /// The link's path (`A@/href`): part of the edge, so one target linked
    /// as `A@/href` and as `IMG@/src` is two rows.
    Path,
    /// Occurrences of the edge.
    Count,
    /// The input of the edge's first occurrence.
    FirstFile,
    /// The 1-based number of that record in its input (a WARC record, or a
    /// CSV/TSV record counting the header).
    FirstRecord,
}

impl LinkField {
    pub const ALL: [LinkField; 6] = [
        LinkField::Source,
        LinkField::Target,
        LinkField::Path,
        LinkField::Count,
        LinkField::FirstFile,
        LinkField::FirstRecord,
    ];

    pub fn name(self) -> &'static str {
        match self {
            LinkField::Source => "source",
            LinkField::Target => "target",
            LinkField::Path => "path",
            LinkField::Count => "count",
            LinkField::FirstFile => "first_file",
            LinkField::FirstRecord => "first_record",
        }
    }

    /// The output columns of a comma-separated list: `source,target`
    /// (then `path`, if wanted) first, in that order, then any of
    /// `count,first_file,first_record`.
    pub fn parse_list(list: &str) -> Result<Vec<LinkField>, RunError> {
        let fields = list
            .split(',')
            .map(|n| {
                let n = n.trim();
                LinkField::ALL
                    .into_iter()
                    .find(|f| f.name() == n)
                    .ok_or_else(|| {
                        RunError::msg(format!(
                            "no links column {n:?} (the columns: source,target,path,count,first_file,first_record)"
                        ))
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let key = if fields.get(2) == Some(&LinkField::Path) {
            3
        } else {
            2
        };
        if fields.get(..2) != Some(&[LinkField::Source, LinkField::Target][..])
            || fields[key..]
                .iter()
                .any(|f| matches!(f, LinkField::Source | LinkField::Target | LinkField::Path))
        {
            return Err(RunError::msg(
                "links columns start with source,target (then path), then any of count,first_file,first_record",
            ));
        }
        for (i, f) in fields.iter().enumerate() {
            if fields[..i].contains(f) {
                return Err(RunError::msg(format!(
                    "links column {} given twice",
                    f.name()
                )));
            }
        }
        Ok(fields)
    }
}

/// The settings of a links run.
#[derive(Debug, Clone)]
pub struct Config {
    pub kind: Kind,
    pub graph: Graph,
    /// Write in-link counts per target (distinct sources) instead of edges.
    pub targets: bool,
    /// The edges' columns ([`LinkField::parse_list`]); not for `targets`.
    pub columns: Vec<LinkField>,
    /// A WARC record's block larger than this is skipped and rejected.
    pub max_record_bytes: usize,
    /// Resolve links by the URL Standard (as browsers resolve an `href`),
    /// each page's base parsed once, and key the `href`: for a key
    /// function of web mode ([`crate::Mode::Web`]), which gives the same
    /// keys resolving each link itself, only slower. Otherwise the key
    /// function resolves (RFC 3986 §5.2 in strict and LEIRI modes).
    pub web_join: bool,
    /// Resolve links here (RFC 3986 §5.2), each page's base parsed once,
    /// and key the resolved IRI: for a key function without preparation
    /// ([`crate::batch::Prep::is_noop`]: strict mode, no query encoding),
    /// which gives the same keys resolving each link itself, only slower.
    /// Not with `web_join`, which takes precedence.
    pub resolve_once: bool,
    /// With `web_join`: the key function's keys of links that are their
    /// own `href`, from the parse that found it
    /// ([`crate::batch::ladder_own_href_key_fn`]), so they are not parsed
    /// twice. It must give the key function's keys.
    pub own_href_key: Option<OwnHrefKey>,
    /// Link rejects held in memory; more are sorted and spilled to
    /// temporary files (in `dedup.temp_dir`), merged at the end.
    pub rejects_held: usize,
    /// The engine: memory, temp directory, workers, chunk and batch sizes
    /// (its columns, order, line limit and item splitting are set here).
    pub dedup: DedupConfig,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            kind: Kind::Archive,
            graph: Graph::Pages,
            targets: false,
            columns: vec![LinkField::Source, LinkField::Target, LinkField::Count],
            max_record_bytes: 64 << 20,
            web_join: false,
            resolve_once: false,
            own_href_key: None,
            rejects_held: 1 << 16,
            dedup: DedupConfig::default(),
        }
    }
}

/// A shared [`OwnHrefKeyFn`] ([`Config::own_href_key`]).
#[derive(Clone)]
pub struct OwnHrefKey(pub Arc<OwnHrefKeyFn<'static>>);

impl std::fmt::Debug for OwnHrefKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OwnHrefKey(..)")
    }
}

/// What a links run did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    /// Records read (WARC records, or CSV/TSV records with the header).
    pub records: u64,
    /// Records rejected whole (malformed, broken JSON, too large).
    pub records_rejected: u64,
    /// Pages (responses, CSV rows) whose links were read.
    pub pages: u64,
    pub links: u64,
    /// Links keyed at both ends (`dropped` ones included).
    pub accepted: u64,
    pub rejected: u64,
    /// Of the accepted, links the host graph leaves out (IP or one-label
    /// hosts, self-loops).
    pub dropped: u64,
    /// Distinct edges.
    pub edges: u64,
    /// Rows written: edges, or targets with `targets`.
    pub rows: u64,
    /// Raw input bytes read.
    pub bytes: u64,
    /// The edge pass of the engine (spills, …).
    pub dedup: batch::Summary,
}

/// The engine's observer during a links run: progress in raw input bytes,
/// and a line the engine rejects (broken JSON, not UTF-8, too long) as the
/// record it is.
struct Watch<'a> {
    inner: &'a mut (dyn Observer + Send),
    shared: Arc<Shared>,
    shown: u64,
}

impl Observer for Watch<'_> {
    fn progress(&mut self, _bytes: u64) {
        let now = self.shared.bytes_read.load(Relaxed);
        self.inner.progress(now - self.shown);
        self.shown = now;
    }

    fn reject(&mut self, r: &Reject) -> Result<(), RunError> {
        let (record, offset) = edges::place_of(&r.input).unwrap_or((r.line, 0));
        let mut rej = LinkReject::record(r.file, record, offset, r.reason.to_string());
        rej.input = r.input.chars().take(200).collect();
        self.shared.reject(rej);
        Ok(())
    }
}

/// The items of an edges pass's key: source, target (and path) as the
/// output's first columns, written as they are.
fn key_header(with_path: bool) -> &'static str {
    if with_path {
        "source,target,path"
    } else {
        "source,target"
    }
}

/// Build the link graph of `inputs` (files or stdin) with `key` (the key
/// of a reference, resolved against a base: [`batch::key_fn`]); write the
/// CSV through `out`, then hand every reject to `rejects` in input order
/// (file, record, link).
///
/// ```
/// use irinorm::batch::{self, links, Input, Prep, Quiet};
/// use irinorm::{Normalizer, Options};
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("edges.csv");
/// std::fs::write(&path, "from,to\nhttp://a.example/,b\nHTTP://A.example:80/,./b\n").unwrap();
/// let n = Normalizer::new(Options::default());
/// let key = batch::key_fn(Prep::default(), |s: &str| n.key(s));
/// let cfg = links::Config {
///     kind: links::Kind::Delimited {
///         delimiter: b',', header: true,
///         source: batch::Column::Index(0), target: batch::Column::Index(1), base: None,
///     },
///     ..links::Config::default()
/// };
/// let mut csv = Vec::new();
/// let s = links::run(&[Input::Path(path)], &key, &cfg, &mut Quiet,
///     &mut |b: &[u8]| { csv.extend_from_slice(b); Ok(()) }, &mut |_| Ok(())).unwrap();
/// assert_eq!((s.links, s.accepted, s.edges), (2, 2, 1));
/// assert_eq!(String::from_utf8(csv).unwrap(),
///     "source,target,count\nhttp://a.example/,http://a.example/b,2\n");
/// ```
pub fn run(
    inputs: &[Input],
    key: &KeyFn<'_>,
    cfg: &Config,
    obs: &mut (dyn Observer + Send),
    out: &mut (dyn FnMut(&[u8]) -> Result<(), RunError> + Send),
    rejects: &mut dyn FnMut(&LinkReject) -> Result<(), RunError>,
) -> Result<Summary, RunError> {
    let shared = Arc::new(Shared {
        rejects: std::sync::Mutex::new(shared::Rejects::new(
            cfg.dedup.temp_dir.clone(),
            cfg.rejects_held,
        )),
        ..Shared::default()
    });
    let mut opened = Vec::with_capacity(inputs.len());
    for (i, input) in inputs.iter().enumerate() {
        let raw: Box<dyn Read + Send> = match input {
            Input::Stdin => Box::new(std::io::stdin()),
            Input::Path(p) => Box::new(
                std::fs::File::open(p)
                    .map_err(|e| RunError::io(format!("cannot open {}", p.display()), &e))?,
            ),
        };
        let lines = stream::Lines::new(i, raw, &cfg.kind, cfg.max_record_bytes, shared.clone());
        opened.push(batch::Opened::from_reader(input.name(), Box::new(lines)));
    }
    let with_path = cfg.columns.contains(&LinkField::Path);
    let fields: Vec<Field> = if cfg.targets {
        vec![Field::Raw("source,target")]
    } else {
        let mut f = vec![Field::Raw(key_header(with_path))];
        for c in &cfg.columns {
            match c {
                LinkField::Count => f.push(Field::Count),
                LinkField::FirstFile => f.push(Field::FirstFile),
                LinkField::FirstRecord => f.push(Field::FirstLine),
                LinkField::Source | LinkField::Target | LinkField::Path => {}
            }
        }
        f
    };
    let mut dcfg = cfg.dedup.clone();
    dcfg.columns = Columns::new(&fields)?;
    dcfg.split_spaces = true;
    dcfg.order = Order::First;
    dcfg.show_surt = false;
    dcfg.charset = None;
    // A record's line holds its whole block (escaped: up to twice).
    dcfg.max_line_bytes = cfg
        .max_record_bytes
        .saturating_mul(2)
        .saturating_add(1 << 20);
    let cx = edges::Ctx {
        key,
        own_href_key: cfg.own_href_key.as_ref().map(|k| &*k.0),
        web_join: cfg.web_join,
        resolve_once: cfg.resolve_once,
        graph: cfg.graph,
        with_path: with_path && !cfg.targets,
        shared: &shared,
    };
    let line_key: &KeyFn<'_> = &|s, _base| edges::line_edges(s, &cx);
    let mut watch = Watch {
        inner: obs,
        shared: shared.clone(),
        shown: 0,
    };
    let dedup = if cfg.targets {
        // Edges to a temporary file, then each target's distinct sources.
        let dir = match &dcfg.temp_dir {
            Some(d) => tempfile::Builder::new()
                .prefix(".irinorm-edges")
                .tempdir_in(d),
            None => tempfile::Builder::new().prefix(".irinorm-edges").tempdir(),
        }
        .map_err(|e| RunError::io("cannot create a temporary directory".into(), &e))?;
        crate::batch::cleanup::register(dir.path());
        let path = dir.path().join("edges.csv");
        let result = (|| {
            let mut f = std::io::BufWriter::new(
                std::fs::File::create(&path)
                    .map_err(|e| RunError::io("cannot create the edges file".into(), &e))?,
            );
            let first = batch::run_dedup(
                opened,
                &Format::Lines,
                line_key,
                &dcfg,
                &mut watch,
                &mut |b: &[u8]| {
                    use std::io::Write;
                    f.write_all(b)
                        .map_err(|e| RunError::io("cannot write the edges file".into(), &e))
                },
            )?;
            drop(f);
            let mut tcfg = dcfg.clone();
            tcfg.columns = Columns::new(&[Field::Raw("target"), Field::Count])?;
            tcfg.split_spaces = false;
            tcfg.max_line_bytes = 1 << 28;
            let format = Format::Records(batch::RecordFormat {
                delimiter: b',',
                header: true,
                column: batch::Column::Index(1),
                base_column: None,
            });
            let quote: &KeyFn<'_> = &|t, _| {
                let mut v = Vec::with_capacity(t.len() + 2);
                batch::csv_field(&mut v, t.as_bytes());
                Ok(std::borrow::Cow::Owned(
                    String::from_utf8(v).unwrap_or_default(),
                ))
            };
            let second = batch::run_dedup(
                batch::open_all(&[Input::Path(path.clone())])?,
                &format,
                quote,
                &tcfg,
                &mut batch::Quiet,
                out,
            )?;
            Ok::<_, RunError>((first, second.unique))
        })();
        crate::batch::cleanup::forget(dir.path());
        let (first, rows) = result?;
        (first, rows)
    } else {
        // The engine writes its header in one piece first (`first_line`);
        // ours names that column `first_record`.
        let engine_header = dcfg.columns.header();
        let names: Vec<&str> = cfg.columns.iter().map(|c| c.name()).collect();
        let header = format!("{}\n", names.join(","));
        let mut first = true;
        let mut renamed = |b: &[u8]| {
            if std::mem::take(&mut first) {
                if let Some(rest) = b.strip_prefix(engine_header.as_slice()) {
                    out(header.as_bytes())?;
                    return out(rest);
                }
            }
            out(b)
        };
        let s = batch::run_dedup(
            opened,
            &Format::Lines,
            line_key,
            &dcfg,
            &mut watch,
            &mut renamed,
        )?;
        let rows = s.unique;
        (s, rows)
    };
    let (dsum, rows) = dedup;
    let held = std::mem::take(&mut *shared.rejects.lock().unwrap_or_else(|e| e.into_inner()));
    held.drain(rejects)?;
    let g = |a: &AtomicU64| a.load(Relaxed);
    Ok(Summary {
        records: dsum.stats.lines,
        records_rejected: g(&shared.records_rejected),
        pages: g(&shared.pages),
        links: g(&shared.links),
        accepted: g(&shared.accepted),
        rejected: g(&shared.rejected),
        dropped: g(&shared.dropped),
        edges: dsum.unique,
        rows,
        bytes: g(&shared.bytes_read),
        dedup: dsum,
    })
}
