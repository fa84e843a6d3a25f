//! The command line: flags (clap derive) and the one error type of the CLI.
//!
//! Only declarations live here; `cmd` turns them into the plain
//! configurations of [`irinorm::batch`] and runs them. Every flag has help text, and each subcommand's `--help` ends
//! with examples. The contract (column names, exit codes) is documented on
//! the flags themselves so that `--help` is the manual.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use irinorm::batch::Columns;

/// Normalize IRIs/URLs along the IRI comparison ladder and deduplicate huge
/// URL lists.
#[derive(Debug, Parser)]
#[command(
    name = "irinorm",
    version,
    about,
    after_help = "Examples:\n  \
        irinorm dedup urls.txt -o unique.csv\n  \
        irinorm normalize --level syntax < access-urls.txt\n  \
        irinorm convert --to iri urls.txt\n  \
        irinorm compare 'HTTP://Example.COM:80/a/./b' 'http://example.com/a/b'\n\n\
        Exit status: 0 success, 1 rejected lines with --strict or `compare` not \
        equivalent, 2 usage or I/O error."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Deduplicate IRI references by their key; write one CSV row per key.
    ///
    /// Output columns: canonical,count,first_file,first_line,example — the
    /// key, how many lines or records share it, where it was first seen
    /// (file as given, `-` for stdin; 1-based physical line) and that line
    /// or record as written (without its line terminator; a CSV/TSV record
    /// as its fields joined by the delimiter, quoted where needed; a
    /// CDX/CDXJ record as its whole line); --columns chooses some of them.
    /// Rows are in order of first occurrence, byte-identical whatever
    /// --threads, --chunk-size and --memory are.
    #[command(after_help = "Examples:\n  \
        irinorm dedup crawl-*.txt -o unique.csv --rejects bad.csv\n  \
        irinorm dedup --columns canonical frontier.txt.gz -o frontier.csv\n  \
        zcat urls.gz | irinorm dedup --level syntax --sort canonical > unique.csv\n  \
        irinorm dedup --base https://example.com/ links.txt --strict",
        mut_arg("output_column", |a| a.hide(true)))]
    Dedup(DedupArgs),

    /// Print the key of every line or record, in input order (streaming,
    /// bounded memory: works on endless stdin).
    ///
    /// Lines input: `--format lines` (default) writes one key per line, an
    /// empty line for a rejected or blank one; `--format csv` writes the
    /// header line,input,output,error (line is the 1-based line number
    /// within its input). CSV/TSV input: every record with all its fields,
    /// padded to the header's width, then the key column (--output-column)
    /// and `error`, in the input's delimiter (--format is refused).
    /// CDX/CDXJ input: each record with its key as a last CDX field (header
    /// letter `A`) or a CDXJ "canonical" member (`-` / null when rejected),
    /// or with `--format csv` the line,input,output,error table.
    #[command(after_help = "Examples:\n  \
        tail -f access.log | cut -d' ' -f7 | irinorm normalize --base https://example.com/\n  \
        irinorm normalize --format csv --form iri urls.txt -o keys.csv")]
    Normalize(NormalizeArgs),

    /// Convert between IRI and URI form (no normalization; relative
    /// references allowed), one output per input line.
    ///
    /// Lines input: --format lines or csv as for `normalize`. CSV/TSV input:
    /// every record, then the converted column (--output-column) and
    /// `error` (--format is refused). CDX/CDXJ input is refused: use
    /// `normalize`.
    #[command(after_help = "Examples:\n  \
        irinorm convert --to uri iris.txt\n  \
        echo 'http://xn--mnchen-3ya.de/%C3%BC' | irinorm convert --to iri")]
    Convert(ConvertArgs),

    /// Show the keys of two references at every rung of the ladder and the
    /// lowest rung at which they are equal.
    ///
    /// Exit status 0 if they are equivalent at --level, 1 if not, 2 if
    /// either has no key at --level (not a valid reference, or rejected by
    /// that rung).
    #[command(after_help = "Examples:\n  \
        irinorm compare 'HTTP://Example.COM:80/a/./b' 'http://example.com/a/b'\n  \
        irinorm compare --level syntax http://a/%7e http://a/~ && echo same")]
    Compare(CompareArgs),

    /// List the protocol rung's rules (3987bis §5.3.4) with what they do and
    /// an example; `*` marks the rules on by default.
    #[command(after_help = "Examples:\n  \
        irinorm rules\n  \
        irinorm dedup --level protocol --rules +sort-query,-session urls.txt")]
    Rules,

    /// Learn protocol-rung rules from a redirect log (CSV from,to) and/or
    /// from content digests (CDX, CDXJ, CSV/TSV url,digest[,timestamp]);
    /// print them with their support and the contradictions set aside, or
    /// write the rules file (-o) that --learned applies.
    ///
    /// From digests, per origin (scheme://host[:port]; never across hosts
    /// or schemes): query parameters whose presence or value never changes
    /// the content (ignore-param), and path aliases (alias-slash,
    /// alias-index, case-insensitive-path). A rule needs --min-evidence
    /// independent agreeing pages, and its merged pairs' disagreement (none
    /// included) shown to be the origin's drift: some 20 pairs at least, or,
    /// on a sparse origin, the pairs of the same kind and pattern pooled
    /// across origins (--pool-origins, --pool-share).
    /// Only status-200 captures (or captures without a status) are content
    /// evidence; 3xx captures with a target (CDX `r`, CDXJ `redirect`) are
    /// redirect evidence, learned together with --redirects.
    #[command(after_help = "Examples:\n  \
        irinorm learn --redirects crawl-redirects.csv\n  \
        irinorm learn --digests crawl.cdxj --min-evidence 3 -o rules.tsv\n  \
        irinorm learn --digests captures.csv --redirects crawl-redirects.csv -o rules.tsv\n  \
        irinorm dedup --level protocol --learned rules.tsv frontier.txt")]
    Learn(LearnArgs),

    /// Build a link graph: the links of WAT or WARC files (or of CSV/TSV
    /// edge lists), both ends resolved and keyed on the ladder, as
    /// deduplicated edges with counts.
    ///
    /// Output: source,target,count (--columns adds path, first_file,
    /// first_record), rows in order of first occurrence, byte-identical
    /// whatever --threads and --memory are. --hosts writes the host graph
    /// with hosts named as Common Crawl's host graphs name them (reversed,
    /// a leading `www.` dropped, A-labels; IP hosts and self-loops left
    /// out); --targets writes target,count: each target's distinct sources.
    /// Rejects (--rejects) are file,record,offset,link,path,input,error.
    #[command(after_help = "Examples:\n  \
        irinorm links CC-MAIN-*.warc.wat.gz -o edges.csv --rejects bad.csv\n  \
        irinorm links --hosts crawl.warc.gz -o hosts.csv\n  \
        irinorm links --targets --level protocol pages.wat.gz -o inlinks.csv\n  \
        irinorm links --input-format csv --source-column page --column href links.csv")]
    Links(LinksArgs),

    /// Inspect or compact a seen-set (the persistent set of every key
    /// `dedup --seen DIR` has written).
    #[command(after_help = "Examples:\n  \
        irinorm dedup --seen crawl.seen batch-0042.txt -o new-0042.csv\n  \
        irinorm seen info crawl.seen\n  \
        irinorm seen compact crawl.seen")]
    Seen(SeenArgs),

    /// Report what makes IRIs hard to trust when shown to a person: bidi
    /// structure per component (3987bis §4.1, §4.2), characters §7.3 says
    /// not to use (and the bidi isolates U+2066–2069), and host labels the
    /// IDN display policy keeps as A-labels, with the reason (§8.6, §10).
    ///
    /// Output: CSV file,line,input,severity,code,component,offset,message —
    /// one row per finding (file: the input as the rejects name it; line:
    /// 1-based within that input; offset: byte offset in the line). Codes are stable: `bidi-…`,
    /// `char-…`, `idn-…`. Lines that do not parse are rejects, as for
    /// `normalize`. The summary on stderr counts the findings by code. Exit
    /// status 1 when a finding reaches --fail-on (or a line is rejected
    /// with --strict), else 0.
    #[command(after_help = "Examples:\n  \
        irinorm check links.txt -o findings.csv\n  \
        irinorm check --fail-on warning --min-severity warning urls.txt\n  \
        irinorm check --top-domains my-brands.txt crawl.txt.gz")]
    Check(CheckArgs),
}

/// How a links input is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LinksFormatArg {
    /// WAT files: WARC metadata records of ia-web-commons JSON.
    Wat,
    /// WARC files: HTTP responses (HTML links, 3xx redirects).
    Warc,
    /// CSV edges: --source-column, --column (and --base-column).
    Csv,
    /// TSV edges, as csv.
    Tsv,
}

#[derive(Debug, Clone, Args)]
pub struct LinksArgs {
    #[command(flatten)]
    pub key: KeyArgs,

    /// Input files: WAT or WARC (gzip members or plain), or CSV/TSV edges.
    /// `-` or none reads stdin.
    #[arg(value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,

    /// Input format (default: wat for `*.wat`/`*.wat.gz`, csv/tsv for
    /// `*.csv`/`*.tsv` (also `.gz`/`.zst`), otherwise warc). WAT and WARC
    /// files are read alike: every WAT JSON record and HTTP response found.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub input_format: Option<LinksFormatArg>,

    /// CSV/TSV: the column of the page that links (name or 1-based index;
    /// default 1).
    #[arg(long, value_name = "NAME|INDEX")]
    pub source_column: Option<String>,

    /// CSV/TSV: the column of the link (default 2).
    #[arg(long, value_name = "NAME|INDEX")]
    pub column: Option<String>,

    /// CSV/TSV: the column of each row's base (default: the source).
    #[arg(long, value_name = "NAME|INDEX")]
    pub base_column: Option<String>,

    /// CSV/TSV input has no header row.
    #[arg(long)]
    pub no_header: bool,

    /// The host graph, hosts named as Common Crawl's host graphs name them.
    #[arg(long, conflicts_with = "targets")]
    pub hosts: bool,

    /// Each target's in-links from distinct sources: target,count.
    #[arg(long)]
    pub targets: bool,

    /// The columns: source,target (then path: part of the edge), then any
    /// of count,first_file,first_record (default source,target,count).
    #[arg(long, value_name = "LIST", conflicts_with = "targets")]
    pub columns: Option<String>,

    /// How links are read before keying: `web` (default: as a browser
    /// resolves an href, the URL Standard), `leiri` or `strict`.
    #[arg(long, value_name = "MODE", default_value = "web", value_parser = parse_mode)]
    pub mode: irinorm::Mode,

    /// A WARC record larger than this is skipped and rejected.
    #[arg(long, value_name = "SIZE", default_value = "64M", value_parser = parse_unit_size)]
    pub max_record_bytes: u64,

    /// Memory for the table of distinct edges (as for dedup).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub memory: Option<usize>,

    /// Directory for spill files.
    #[arg(long, value_name = "DIR")]
    pub temp_dir: Option<PathBuf>,

    /// Write the graph here instead of stdout (atomically).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Write every rejected link and record as CSV here.
    #[arg(long, value_name = "FILE")]
    pub rejects: Option<PathBuf>,

    /// Exit 1 if any link or record was rejected.
    #[arg(long)]
    pub strict: bool,

    /// Worker threads (default: all cores).
    #[arg(short = 'j', long, value_name = "N")]
    pub threads: Option<usize>,

    /// No summary on stderr.
    #[arg(short, long)]
    pub quiet: bool,

    /// Show a progress bar (default: on a terminal, inputs over 64 MiB).
    #[arg(long, overrides_with = "no_progress")]
    pub progress: bool,

    /// Never show a progress bar.
    #[arg(long, overrides_with = "progress")]
    pub no_progress: bool,
}

/// `irinorm seen`.
#[derive(Debug, Clone, Args)]
pub struct SeenArgs {
    #[command(subcommand)]
    pub command: SeenCommand,
}

/// What `irinorm seen` does.
#[derive(Debug, Clone, Subcommand)]
pub enum SeenCommand {
    /// Print the seen-set's keys, bytes, bytes per key, bucket files and
    /// key options (`--json`: as one JSON object).
    Info {
        /// The seen-set's directory.
        dir: PathBuf,
        /// Read every bucket file whole and check every block's checksum
        /// (otherwise only the manifest is read).
        #[arg(long)]
        verify: bool,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Merge the bucket files into one: fewer files to read per batch.
    Compact {
        /// The seen-set's directory.
        dir: PathBuf,
    },
}

#[derive(Debug, Clone, Args)]
#[command(group(clap::ArgGroup::new("evidence").required(true).multiple(true)))]
pub struct LearnArgs {
    /// CSV of observed redirects: from,to (a header row is optional).
    #[arg(long, value_name = "FILE", group = "evidence")]
    pub redirects: Option<PathBuf>,

    /// Captures with content digests: CDX (a ` CDX …` header names the
    /// fields, else CDX11), CDXJ, or CSV/TSV url,digest[,timestamp] (a first
    /// row starting `url` is a header). gzip/zstd are decompressed; `-`
    /// reads stdin (give --input-format).
    #[arg(long, value_name = "FILE", group = "evidence")]
    pub digests: Option<PathBuf>,

    /// Format of --digests (default: from its name, `.cdx`, `.cdxj`,
    /// `.csv` or `.tsv`, also followed by `.gz`/`.zst`).
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub input_format: Option<DigestFormatArg>,

    /// Agreeing observations needed before a rule is learned: redirects per
    /// host and change, independent pages per digest rule.
    #[arg(long, value_name = "N", default_value_t = irinorm::learn::MIN_EVIDENCE)]
    pub min_evidence: usize,

    /// Digests: capture pairs farther apart than this are neither evidence
    /// nor contradiction: `400d`, `36h`, `90m`, `3600s`, `1w` (default: every
    /// pair counts; drift is judged per time gap).
    #[arg(long, value_name = "DURATION",
          value_parser = irinorm::learn::digest::parse_window)]
    pub window: Option<i64>,

    /// Digests: a candidate is refused when its merged pairs return to an
    /// earlier content (cross) more often than the origin's own URLs do,
    /// with a Poisson tail probability below P; disagreement is shown to be
    /// drift with confidence 1 - P, against the least drift the origin's
    /// own URLs show at that confidence.
    #[arg(long, value_name = "P", default_value_t = irinorm::learn::digest::DEFAULT_SIGNIFICANCE)]
    pub significance: f64,

    /// Digests: a rule is applied only when its merged pairs' disagreement
    /// (none included) beyond the origin's drift at the same time gaps is
    /// shown to stay below this share of its pairs.
    #[arg(long, value_name = "SHARE", default_value_t = irinorm::learn::digest::DEFAULT_MAX_EXCESS)]
    pub max_excess: f64,

    /// Digests: a candidate its origin has too few pairs to show safe is
    /// applied when the pairs of its kind and pattern (a parameter name, an
    /// alias, query order) pooled over at least N origins show it safe; 0
    /// judges each origin alone.
    #[arg(long, value_name = "N", default_value_t = irinorm::learn::digest::DEFAULT_POOL_ORIGINS)]
    pub pool_origins: usize,

    /// Digests: pooled evidence is used only for a pattern that at most
    /// this share of the origins deciding it on their own show selecting
    /// content; a pattern that most of them show selecting is refused on
    /// every origin.
    #[arg(long, value_name = "SHARE", default_value_t = irinorm::learn::digest::DEFAULT_POOL_SHARE)]
    pub pool_share: f64,

    /// Write the rules file here (TSV host,kind,pattern,support,
    /// contradictions; replaced atomically) instead of printing a report.
    /// Apply it with `--level protocol --learned FILE`.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Digests: worker threads learning origins (default: all cores). A
    /// CDX/CDXJ index sorted by SURT key is read in one streaming pass, a
    /// host at a time; other input is grouped by origin first (within
    /// --memory). The rules are the same whatever the number of threads.
    #[arg(short = 'j', long, value_name = "N")]
    pub threads: Option<usize>,

    /// Digests: memory for grouping captures that are not sorted by host
    /// (CSV, TSV, an unsorted index) and for the per-origin summaries the
    /// pass across origins sorts; past it they go to sorted runs in
    /// --temp-dir. The rules are the same whatever the budget. Default:
    /// half of the physical memory.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub memory: Option<usize>,

    /// Digests: directory for the runs of --memory (default: the system's
    /// temporary directory). They are never linked: nothing is left behind.
    #[arg(long, value_name = "DIR")]
    pub temp_dir: Option<PathBuf>,

    /// Show a progress bar (default: on a terminal, inputs over 64 MiB).
    #[arg(long, overrides_with = "no_progress")]
    pub progress: bool,

    /// Never show a progress bar.
    #[arg(long, overrides_with = "progress")]
    pub no_progress: bool,
}

/// Format of `learn --digests`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DigestFormatArg {
    /// CDX index lines (a ` CDX …` header names the fields, else CDX11).
    Cdx,
    /// CDXJ lines: `surtkey timestamp {json}`.
    Cdxj,
    /// CSV url,digest[,timestamp] (a first row starting `url` is a header).
    Csv,
    /// TSV url,digest[,timestamp].
    Tsv,
}

/// A rung of the comparison ladder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LevelArg {
    /// Simple string comparison (3987bis §5.3.1).
    String,
    /// Syntax-based: case, percent-encoding, dot segments (§5.3.2).
    Syntax,
    /// Scheme-based: default ports, empty path, IDN (§5.3.3).
    Scheme,
    /// Protocol-based rules (§5.3.4).
    Protocol,
}

impl From<LevelArg> for irinorm::Level {
    fn from(l: LevelArg) -> Self {
        match l {
            LevelArg::String => irinorm::Level::String,
            LevelArg::Syntax => irinorm::Level::Syntax,
            LevelArg::Scheme => irinorm::Level::Scheme,
            LevelArg::Protocol => irinorm::Level::Protocol,
        }
    }
}

/// How keys are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormArg {
    /// ASCII only, non-ASCII percent-encoded / punycode (§3.6).
    Uri,
    /// Non-ASCII shown as characters where safe (§3.7).
    Iri,
    /// SURT, the sort-friendly form web archives index by:
    /// `com,example)/path?query` (the scheme is not written; `dedup` still
    /// groups by the URI-form key, so http and https never merge).
    Surt,
    /// The Internet Archive's canonicalization and SURT, as the `surt`
    /// Python package 0.3.1 writes it (`org,archive)/goo?a&b`), so keys join
    /// with existing CDX indexes. Not a rung of the ladder: it lowercases
    /// paths and queries, drops `www`, the scheme, user info and some
    /// session ids, so it merges references the ladder keeps apart
    /// (http and https included). It replaces the ladder: --level other
    /// than scheme, --nfc, --rules, --redirects and --learned are refused
    /// with it; --base still resolves relative references first.
    SurtIa,
}

impl FormArg {
    /// The ladder's form (`None` for `surt-ia`, which is not one).
    pub fn ladder_form(self) -> Option<irinorm::Form> {
        match self {
            FormArg::Uri => Some(irinorm::Form::Uri),
            FormArg::Iri => Some(irinorm::Form::Iri),
            FormArg::Surt => Some(irinorm::Form::Surt),
            FormArg::SurtIa => None,
        }
    }
}

/// Output ordering of `dedup`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SortArg {
    /// Order of first occurrence (file order, then line order).
    First,
    /// By key, bytewise.
    Canonical,
    /// By SURT (groups a link index by site); the canonical column is
    /// still written in --form.
    Surt,
}

/// Output format of the streaming commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// One output line per input line; empty for blank or rejected lines.
    Lines,
    /// CSV with header line,input,output,error.
    Csv,
}

/// How keys are computed.
#[derive(Debug, Clone, Args)]
pub struct KeyArgs {
    /// Rung of the comparison ladder.
    #[arg(long, value_enum, default_value_t = LevelArg::Scheme)]
    pub level: LevelArg,

    /// Write keys as URIs or IRIs.
    #[arg(long, value_enum, default_value_t = FormArg::Uri)]
    pub form: FormArg,

    /// Apply Unicode NFC to userinfo, path, query and fragment.
    #[arg(long)]
    pub nfc: bool,

    /// Resolve relative references against this absolute IRI first (without
    /// it, relative references are rejected).
    #[arg(long, value_name = "IRI")]
    pub base: Option<String>,

    /// Protocol-rung rules (needs --level protocol): comma-separated;
    /// `name` items replace the defaults, `+name`/`-name` adjust them. See
    /// `irinorm rules`.
    #[arg(long, value_name = "LIST")]
    pub rules: Option<String>,

    /// Learn protocol-rung rules from observed redirects (CSV from,to;
    /// needs --level protocol). See `irinorm learn`.
    #[arg(long, value_name = "FILE")]
    pub redirects: Option<PathBuf>,

    /// With --redirects: agreeing observations needed per host.
    #[arg(long, value_name = "N", default_value_t = irinorm::learn::MIN_EVIDENCE)]
    pub min_evidence: usize,

    /// Apply a rules file written by `irinorm learn -o` (rules learned from
    /// digests and redirects; needs --level protocol). With --redirects too,
    /// both are judged together: rules that disagree on a host are set
    /// aside.
    #[arg(long, value_name = "FILE")]
    pub learned: Option<PathBuf>,

    #[command(flatten)]
    pub display: DisplayArgs,
}

/// Inputs, outputs and execution (shared by dedup, normalize, convert).
#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// Input files in --input-format: lines (one IRI reference per line,
    /// LF or CRLF), CSV/TSV records (the reference in --column) or CDX/CDXJ
    /// index lines (each record's original URL). A UTF-8 BOM is ignored.
    /// `-` or none reads stdin (on a terminal, end it with Ctrl-D). A line
    /// or field that is empty or only spaces/tabs is blank: skipped and
    /// counted.
    #[arg(value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,

    /// Write the output here instead of stdout (a regular file is replaced
    /// atomically, only when the run succeeds).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Write every rejected line as CSV file,line,input,error here. Without
    /// it, rejected lines are counted and the first 5 shown on stderr. For a
    /// non-UTF-8 line the input is written lossily (U+FFFD); for an
    /// over-long line, its first 256 bytes followed by `...`.
    #[arg(long, value_name = "FILE")]
    pub rejects: Option<PathBuf>,

    /// Exit with status 1 if any line was rejected. (Without it, a run that
    /// rejects most of its input still exits 0, with a warning that names
    /// the likely cause.)
    #[arg(long)]
    pub strict: bool,

    /// Lines (and CSV/TSV fields) longer than this, without the line
    /// terminator, are rejected (`64K`, `1M`, or bytes; at most 256M).
    #[arg(long, value_name = "SIZE", default_value = "65536", value_parser = parse_unit_size)]
    pub max_line_bytes: u64,

    /// Worker threads (default: all cores).
    #[arg(short = 'j', long, value_name = "N")]
    pub threads: Option<usize>,

    /// Bytes per work unit (`512K`, `2M`, or bytes; at most 256M); chunks
    /// are cut at line ends. Does not change the output.
    #[arg(long, value_name = "SIZE", default_value = "2M", value_parser = parse_unit_size)]
    pub chunk_size: u64,

    /// Map regular input files into memory instead of reading them: the
    /// workers read the file's pages where the kernel caches them, with no
    /// copy (less CPU, most of it with two or more workers). The files must
    /// not change while the run reads them: one truncated meanwhile kills
    /// the run (SIGBUS), one rewritten may give wrong keys. For finished
    /// crawl files, not for a log still being written. Stdin, pipes and
    /// compressed or UTF-16 files are read as without it.
    #[arg(long)]
    pub mmap: bool,

    /// No summary and no preview of rejected lines on stderr.
    #[arg(short, long)]
    pub quiet: bool,

    /// Show a progress bar (default: when stderr is a terminal and the input
    /// is larger than 64 MiB).
    #[arg(long, overrides_with = "no_progress")]
    pub progress: bool,

    /// Never show a progress bar.
    #[arg(long, overrides_with = "progress")]
    pub no_progress: bool,

    #[command(flatten)]
    pub input: InputArgs,
}

// --- Input features (compression, charsets, preprocessing, CSV columns) ---

/// Format of the input files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InputFormatArg {
    /// One IRI reference per line.
    Lines,
    /// CSV (RFC 4180: quoted fields may hold commas and newlines).
    Csv,
    /// Tab-separated values (same quoting rules as CSV).
    Tsv,
    /// CDX index lines (Wayback, Heritrix): the reference is each record's
    /// original URL (field `a`); a ` CDX …` first line names the fields,
    /// otherwise CDX11 (`N b a m s k r M S V g`).
    Cdx,
    /// CDXJ lines (pywb, Common Crawl): `surtkey timestamp {json}`; the
    /// reference is the JSON's "url".
    Cdxj,
}

/// How the input is read and prepared before keying (shared by dedup,
/// normalize, convert). gzip and zstd inputs (files and stdin) are detected
/// by their magic bytes and decompressed; a UTF-16LE/BE byte-order mark
/// makes the whole input be transcoded from UTF-16 first.
#[derive(Debug, Clone, Args)]
pub struct InputArgs {
    /// Input charset, a WHATWG label (utf-8, shift_jis, euc-jp, gb18030,
    /// big5, windows-1251, iso-8859-2, utf-16le, ...). Each line of a
    /// legacy charset is transcoded to UTF-8 and normalized to NFC
    /// (3987bis §3.1); a byte sequence invalid in the charset rejects the
    /// line with that reason (never a silent U+FFFD). A byte-order mark
    /// (UTF-8, UTF-16) takes precedence over this label.
    #[arg(long, value_name = "LABEL", value_parser = parse_charset)]
    pub encoding: Option<irinorm::Charset>,

    /// For http and https references (and relative references with an http(s)
    /// base), percent-encode the non-ASCII characters of the query from this
    /// charset instead of UTF-8 (3987bis §3.5, as browsers do for pages in a
    /// legacy charset). With `--mode web` this is the URL Standard's query
    /// encoding: http, https, ftp and file URLs, unmappable characters as
    /// `&#N;`.
    #[arg(long, value_name = "LABEL", value_parser = parse_charset)]
    pub query_encoding: Option<irinorm::Charset>,

    /// Preprocessing before parsing: `strict` (none: the input must be an IRI
    /// reference), `leiri` (3987bis §7.1: percent-encode characters such as
    /// space, `<`, `\`), `web` (§7.2 Web Address processing, which is the
    /// WHATWG URL Standard's parser: each reference, resolved against
    /// `--base`/`--base-column` by that Standard, becomes the `href` a browser
    /// would fetch; at `--level string` that `href` is the key, the higher
    /// rungs normalize it; a reference the Standard rejects is rejected with
    /// its reason). The repairs are counted in the summary.
    #[arg(long, value_name = "MODE", default_value = "strict", value_parser = parse_mode)]
    pub mode: irinorm::Mode,

    /// Decode HTML/XML character references (`&amp;`, `&#xE9;`, `&eacute;`)
    /// first (3987bis §5.2).
    #[arg(long)]
    pub decode_entities: bool,

    /// A line (or field) may hold several references separated by spaces:
    /// each is keyed separately. `dedup` counts each item as an occurrence on
    /// that line; `normalize`/`convert` write the items' keys separated by a
    /// space on the line's output line. A line is rejected if any item is.
    #[arg(long)]
    pub split_spaces: bool,

    /// Input format (default: `csv`/`tsv`/`cdx`/`cdxj` for a first input
    /// named `*.csv`/`*.tsv`/`*.cdx`/`*.cdxj`, also with a `.gz`/`.zst`
    /// suffix; otherwise `lines`). With csv/tsv the reference is the
    /// --column of each record; with cdx/cdxj it is each record's original
    /// URL, and a malformed record is rejected with its reason. What is
    /// written for each format: see the command's description above.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub input_format: Option<InputFormatArg>,

    /// The column holding the reference (csv/tsv): a header name, or a
    /// 1-based index as with `cut` (a value of only digits is an index).
    /// Default: the first column.
    #[arg(long, value_name = "NAME|INDEX")]
    pub column: Option<String>,

    /// The column holding each row's base IRI (csv/tsv, dedup and
    /// normalize): the row's reference is resolved against it (RFC 3986
    /// §5.2); a row whose base is not an absolute IRI is rejected with
    /// `invalid base: ...`. Overrides --base.
    #[arg(long, value_name = "NAME|INDEX")]
    pub base_column: Option<String>,

    /// csv/tsv input has no header row (columns must then be given by index).
    #[arg(long)]
    pub no_header: bool,

    /// Name of the key column appended by `normalize`/`convert` on csv/tsv
    /// input.
    #[arg(long, value_name = "NAME", default_value = "canonical")]
    pub output_column: String,
}

/// `--columns`: names from `canonical,count,first_file,first_line,example`.
fn parse_columns(s: &str) -> Result<Columns, String> {
    Columns::parse(s).map_err(|e| e.to_string())
}

/// `512M`, `4G`, `1500K`, `1T` (powers of 1024; an optional `B`/`iB`) or a
/// plain number of bytes.
pub fn parse_size(s: &str) -> Result<usize, String> {
    let t = s.trim();
    let t = t
        .strip_suffix("iB")
        .or_else(|| t.strip_suffix('B'))
        .or_else(|| t.strip_suffix('b'))
        .unwrap_or(t);
    let (num, shift) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let shift = match c.to_ascii_uppercase() {
                'K' => 10,
                'M' => 20,
                'G' => 30,
                'T' => 40,
                _ => return Err(format!("unknown size unit in {s:?} (K, M, G or T)")),
            };
            (&t[..i], shift)
        }
        _ => (t, 0),
    };
    let n: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("not a size: {s:?} (e.g. 512M, 4G)"))?;
    let bytes = n * (1u64 << shift) as f64;
    if !(bytes.is_finite() && bytes >= 1.0 && bytes < usize::MAX as f64) {
        return Err(format!("size out of range: {s:?}"));
    }
    Ok(bytes as usize)
}

/// [`parse_size`] for the size of one line or one work unit: 1 byte to
/// 256 MiB.
fn parse_unit_size(s: &str) -> Result<u64, String> {
    let n = parse_size(s)?;
    if n > 1 << 28 {
        return Err(format!("{s:?} is more than 256M"));
    }
    Ok(n as u64)
}

fn parse_charset(s: &str) -> Result<irinorm::Charset, String> {
    s.parse()
}

fn parse_mode(s: &str) -> Result<irinorm::Mode, String> {
    s.parse()
}

#[derive(Debug, Clone, Args)]
pub struct DedupArgs {
    #[command(flatten)]
    pub key: KeyArgs,

    /// Row order.
    #[arg(long, value_enum, default_value_t = SortArg::First)]
    pub sort: SortArg,

    /// The output columns, in this order: a comma-separated list from
    /// canonical,count,first_file,first_line,example (default: all five).
    /// Without `example` the table keeps only the keys: less memory per
    /// distinct key, and a faster run. The rows are the same.
    #[arg(long, value_name = "LIST", value_parser = parse_columns)]
    pub columns: Option<Columns>,

    /// Memory for the table of distinct keys (`512M`, `4G`, `1500K`, or
    /// bytes). Past it, the table spills to --temp-dir and is merged at the
    /// end; the output is the same. Default: half of the physical memory.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub memory: Option<usize>,

    /// Directory for spill files (default: the system temp directory,
    /// $TMPDIR). They are removed at the end, on error and on Ctrl-C.
    #[arg(long, value_name = "DIR")]
    pub temp_dir: Option<PathBuf>,

    /// The URL-seen test: write only the keys the seen-set in DIR has not
    /// seen (same columns and order), then add them to it. The first run
    /// creates it; a run with other key options (level, form, rules, ...)
    /// is refused. See `irinorm seen`.
    #[arg(long, value_name = "DIR", conflicts_with = "seen_check")]
    pub seen: Option<PathBuf>,

    /// As --seen, without adding the keys to the seen-set.
    #[arg(long, value_name = "DIR")]
    pub seen_check: Option<PathBuf>,

    #[command(flatten)]
    pub run: RunArgs,
}

#[derive(Debug, Clone, Args)]
pub struct NormalizeArgs {
    #[command(flatten)]
    pub key: KeyArgs,

    /// Output format for lines and CDX/CDXJ input (default: lines); refused
    /// on CSV/TSV input, which is written as records.
    #[arg(long, value_enum)]
    pub format: Option<FormatArg>,

    #[command(flatten)]
    pub run: RunArgs,
}

#[derive(Debug, Clone, Args)]
pub struct ConvertArgs {
    /// Target form (SURT is a key form: `normalize --form surt`).
    #[arg(long, value_enum)]
    pub to: ConvertTo,

    #[command(flatten)]
    pub display: DisplayArgs,

    /// Output format for lines and CDX/CDXJ input (default: lines); refused
    /// on CSV/TSV input, which is written as records.
    #[arg(long, value_enum)]
    pub format: Option<FormatArg>,

    #[command(flatten)]
    pub run: RunArgs,
}

#[derive(Debug, Clone, Args)]
pub struct CompareArgs {
    /// First IRI reference.
    pub a: String,
    /// Second IRI reference.
    pub b: String,

    /// How keys are computed (as for `normalize`); --level decides the exit
    /// status.
    #[command(flatten)]
    pub key: KeyArgs,

    /// Preprocessing before parsing (as for `normalize`): strict, leiri, web.
    #[arg(long, value_name = "MODE", default_value = "strict", value_parser = parse_mode)]
    pub mode: irinorm::Mode,

    /// Decode HTML/XML character references first (3987bis §5.2).
    #[arg(long)]
    pub decode_entities: bool,
}

/// How hosts are shown in IRIs (`--form iri`, `convert --to iri`, `check`).
#[derive(Debug, Clone, Args)]
pub struct DisplayArgs {
    /// Which `xn--` host labels are shown in Unicode in IRIs (3987bis §8.6):
    /// high (UTS #39 Highly Restrictive plus the browsers' spoof checks and
    /// top-domain look-alikes), moderate (UTS #39 Moderately Restrictive),
    /// ascii (never), unicode (every label that decodes).
    #[arg(long, value_enum, value_name = "PROFILE", default_value_t = IdnDisplayArg::High)]
    pub idn_display: IdnDisplayArg,

    /// Top domains whose look-alikes stay ASCII under `high`, replacing the
    /// bundled list (one domain per line, `#` comments: the format of
    /// Chromium's domains.list).
    #[arg(long, value_name = "FILE")]
    pub top_domains: Option<PathBuf>,
}

/// `--idn-display`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum IdnDisplayArg {
    High,
    Moderate,
    Ascii,
    Unicode,
}

impl From<IdnDisplayArg> for irinorm::IdnDisplay {
    fn from(p: IdnDisplayArg) -> Self {
        match p {
            IdnDisplayArg::High => irinorm::IdnDisplay::High,
            IdnDisplayArg::Moderate => irinorm::IdnDisplay::Moderate,
            IdnDisplayArg::Ascii => irinorm::IdnDisplay::Ascii,
            IdnDisplayArg::Unicode => irinorm::IdnDisplay::Unicode,
        }
    }
}

/// `irinorm check`.
#[derive(Debug, Clone, Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub display: DisplayArgs,

    /// Report only findings of this severity or worse.
    #[arg(long, value_enum, value_name = "SEVERITY", default_value_t = SeverityArg::Info)]
    pub min_severity: SeverityArg,

    /// Exit with status 1 when a finding of this severity or worse is found.
    #[arg(long, value_enum, value_name = "SEVERITY", default_value_t = SeverityArg::Error)]
    pub fail_on: SeverityArg,

    #[command(flatten)]
    pub run: RunArgs,
}

/// A severity of `check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SeverityArg {
    Info,
    Warning,
    Error,
}

impl From<SeverityArg> for irinorm::check::Severity {
    fn from(s: SeverityArg) -> Self {
        match s {
            SeverityArg::Info => irinorm::check::Severity::Info,
            SeverityArg::Warning => irinorm::check::Severity::Warning,
            SeverityArg::Error => irinorm::check::Severity::Error,
        }
    }
}

/// What `convert` converts to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ConvertTo {
    /// URI (3987bis §3.6): non-ASCII percent-encoded as UTF-8; a non-ASCII
    /// host of a DNS scheme (http, https, ...) becomes its A-label
    /// (`münchen.de` → `xn--mnchen-3ya.de`), others are percent-encoded.
    Uri,
    /// IRI (§3.7): percent-encoded UTF-8 decoded where it is safe.
    Iri,
}

/// A usage or I/O error: printed as `irinorm: {self}`, exit 2 — except a
/// closed stdout, which ends quietly.
pub type CliError = irinorm::batch::RunError;

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn io_errors_read_well() {
        let e = std::io::Error::from_raw_os_error(2);
        let e = CliError::io("cannot open x".into(), &e);
        assert_eq!(e.to_string(), "cannot open x: No such file or directory");
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("4G"), Ok(4 << 30));
        assert_eq!(parse_size("1.5G"), Ok(3 << 29));
        assert_eq!(parse_size("1500k"), Ok(1500 << 10));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert!(parse_size("0").is_err());
        assert!(parse_size("4X").is_err());
        assert!(parse_size("lots").is_err());
    }

    #[test]
    fn unit_sizes_take_units_up_to_256m() {
        let run = |args: &[&str]| {
            let mut v = vec!["irinorm", "normalize"];
            v.extend(args);
            Cli::try_parse_from(v).map(|c| match c.command {
                Command::Normalize(a) => (a.run.chunk_size, a.run.max_line_bytes),
                _ => unreachable!(),
            })
        };
        assert_eq!(run(&[]).unwrap(), (2 << 20, 65536));
        let got = run(&["--chunk-size", "512K", "--max-line-bytes", "1M"]).unwrap();
        assert_eq!(got, (512 << 10, 1 << 20));
        assert_eq!(run(&["--chunk-size", "256M"]).unwrap().0, 1 << 28);
        assert!(run(&["--chunk-size", "257M"]).is_err());
        assert!(run(&["--max-line-bytes", "0"]).is_err());
    }
}
