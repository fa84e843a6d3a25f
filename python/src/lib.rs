//! `irinorm._irinorm`: the Python binding of the irinorm library.
//!
//! Thin glue only: every key is computed by [`irinorm::Normalizer::key`]
//! (draft-ietf-iri-3987bis §5.3), preceded, like the CLI's `--mode`, by
//! [`irinorm::Preprocessor`] (§7.1 LEIRI, §7.2 Web Address). The
//! Python package `irinorm` (python/irinorm/__init__.py) re-exports this
//! module; its docstrings and `.pyi` stubs are the user documentation.
//!
//! Arrow arrays come in and go out through the Arrow C data interface
//! (PyCapsule protocol, `__arrow_c_array__`) without copying the input; keys
//! are computed on rayon's pool with the GIL released.

use std::borrow::Cow;
use std::sync::Arc;

use arrow_array::ffi::{from_ffi, to_ffi, FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::{
    make_array, Array, ArrayRef, GenericStringArray, LargeStringArray, OffsetSizeTrait,
    StringArray, StringViewArray,
};
use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_data::ArrayData;
use arrow_schema::DataType;
use irinorm::learn::Learned;
use irinorm::web::WebParser;
use irinorm::{ErrorKind, Form, Level, Mode, Options, Preprocessor, ProtocolRules, Repairs, Rules};
use pyo3::create_exception;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyDict, PyList};
use rayon::prelude::*;

create_exception!(
    irinorm,
    IriError,
    PyValueError,
    "A reference that irinorm rejects; `.offset` (byte offset into the UTF-8 \
     input), `.kind` (a short name) and `.reason` (a sentence) say why."
);

/// A short, stable name for each error kind (the `kind` attribute).
fn kind_name(k: &ErrorKind) -> &'static str {
    match k {
        ErrorKind::Empty => "empty",
        ErrorKind::InvalidUtf8 => "invalid_utf8",
        ErrorKind::InvalidPercentEncoding => "invalid_percent_encoding",
        ErrorKind::CharNotAllowed { .. } => "char_not_allowed",
        ErrorKind::BidiFormatting { .. } => "bidi_formatting",
        ErrorKind::PrivateUseOutsideQuery { .. } => "private_use_outside_query",
        ErrorKind::InvalidPort => "invalid_port",
        ErrorKind::InvalidIpv6 => "invalid_ipv6",
        ErrorKind::InvalidIpvFuture => "invalid_ipvfuture",
        ErrorKind::Idna(_) => "idna",
        ErrorKind::RelativeWithoutBase => "relative_without_base",
        ErrorKind::BaseNotAbsolute => "base_not_absolute",
        ErrorKind::ColonInFirstSegment => "colon_in_first_segment",
        ErrorKind::HostRequired { .. } => "host_required",
        ErrorKind::UrlStandard(_) => "url_standard",
        ErrorKind::Other(_) => "other",
    }
}

fn iri_error(py: Python<'_>, e: &irinorm::Error) -> PyErr {
    let reason = e.kind.to_string();
    let err = IriError::new_err(e.to_string());
    let v = err.value(py);
    // Setting attributes on a fresh exception instance cannot fail short of
    // memory exhaustion; if it does, the message still says everything.
    let _ = v.setattr("offset", e.offset);
    let _ = v.setattr("kind", kind_name(&e.kind));
    let _ = v.setattr("reason", reason);
    err
}

fn parse_level(s: &str) -> PyResult<Level> {
    s.parse().map_err(PyValueError::new_err)
}

fn parse_form(s: &str) -> PyResult<Form> {
    match s.to_ascii_lowercase().as_str() {
        "uri" => Ok(Form::Uri),
        "iri" => Ok(Form::Iri),
        "surt" => Ok(Form::Surt),
        _ => Err(PyValueError::new_err(format!(
            "unknown form {s:?} (uri|iri|surt)"
        ))),
    }
}

/// A normalizer plus the preprocessing the CLI's `--mode` applies first.
struct Engine {
    core: irinorm::Normalizer,
    pre: Option<Preprocessor>,
    /// `mode="web"`: the URL Standard's parser (with the base).
    web: Option<WebParser>,
}

impl Engine {
    fn key<'a>(&self, s: &'a str) -> irinorm::Result<Cow<'a, str>> {
        if let Some(w) = &self.web {
            let string_rung = self.core.options().level == Level::String;
            return w.key(s, string_rung, &mut Repairs::default(), |t| {
                self.core.key(t)
            });
        }
        let Some(p) = &self.pre else {
            return self.core.key(s);
        };
        // Repairs are only counted by the CLI's summary; here they are dropped.
        match p.apply(s, &mut Repairs::default()) {
            Cow::Borrowed(t) => self.core.key(t),
            Cow::Owned(t) => Ok(Cow::Owned(self.core.key(&t)?.into_owned())),
        }
    }
}

/// `Normalizer(level="scheme", form="uri", nfc=False, base=None,
/// mode="strict", rules=None, redirects=None)`; see the `.pyi` stubs.
#[pyclass(module = "irinorm._irinorm", frozen, subclass)]
struct Normalizer {
    /// One engine per rung (String, Syntax, Scheme, Protocol): `.key` uses
    /// the configured one, `.lowest_equal_level` walks them all.
    ladder: Arc<Vec<Engine>>,
    level: Level,
    repr: String,
}

impl Normalizer {
    fn engine(&self) -> &Engine {
        &self.ladder[self.level as usize]
    }
}

#[allow(clippy::too_many_arguments)]
fn build(
    level: &str,
    form: &str,
    nfc: bool,
    base: Option<&str>,
    mode: &str,
    rules: Option<&str>,
    redirects: Option<std::path::PathBuf>,
    py: Python<'_>,
) -> PyResult<(Vec<Engine>, Level)> {
    let level = parse_level(level)?;
    let form = parse_form(form)?;
    let mode: Mode = mode.parse().map_err(PyValueError::new_err)?;
    if level != Level::Protocol && (rules.is_some() || redirects.is_some()) {
        return Err(PyValueError::new_err(
            "rules and redirects need level=\"protocol\"",
        ));
    }
    let rules = match rules {
        Some(list) => Rules::parse_list(list)
            .map_err(|e| PyValueError::new_err(format!("invalid rules {list:?}: {e}")))?,
        None => Rules::DEFAULT,
    };
    let learned = match redirects {
        Some(path) => {
            let f = std::fs::File::open(&path)?;
            Some(
                Learned::from_csv(std::io::BufReader::new(f))
                    .map_err(|e| PyValueError::new_err(format!("{}: {e}", path.display())))?,
            )
        }
        None => None,
    };
    let protocol = Arc::new(ProtocolRules::new(rules, learned));
    let pre = (mode == Mode::Leiri).then(|| Preprocessor::new(mode, false));
    let web = match (mode, base) {
        (Mode::Web, Some(b)) => Some(
            WebParser::new()
                .with_base(b)
                .map_err(|e| iri_error(py, &e))?,
        ),
        (Mode::Web, None) => Some(WebParser::new()),
        _ => None,
    };
    let mut ladder = Vec::with_capacity(Level::ALL.len());
    for l in Level::ALL {
        let mut core = irinorm::Normalizer::new(Options {
            level: l,
            form,
            nfc,
        });
        if l == Level::Protocol {
            core = core.with_protocol(protocol.clone());
        }
        if let Some(b) = base {
            core = core.with_base(b).map_err(|e| iri_error(py, &e))?;
        }
        ladder.push(Engine {
            core,
            pre,
            web: web.clone(),
        });
    }
    Ok((ladder, level))
}

/// Rows per parallel task of `keys`/`keys_arrow`.
const BLOCK: usize = 4096;

/// One string column under construction (values, row ends, validity).
#[derive(Default)]
struct Col {
    values: Vec<u8>,
    ends: Vec<usize>,
    valid: Vec<bool>,
}

impl Col {
    fn push(&mut self, s: Option<&str>) {
        if let Some(s) = s {
            self.values.extend_from_slice(s.as_bytes());
        }
        self.ends.push(self.values.len());
        self.valid.push(s.is_some());
    }
}

/// Keys of rows `0..len` (`get(i)` is `None` for a null), in parallel:
/// (canonical, error) columns, each still cut in blocks.
fn key_columns<'a, G>(engine: &Engine, len: usize, get: G) -> Vec<(Col, Col)>
where
    G: Fn(usize) -> Option<&'a str> + Sync,
{
    (0..len.div_ceil(BLOCK))
        .into_par_iter()
        .map(|b| {
            let (mut canon, mut err) = (Col::default(), Col::default());
            for i in b * BLOCK..((b + 1) * BLOCK).min(len) {
                match get(i).map(|s| engine.key(s)) {
                    None => {
                        canon.push(None);
                        err.push(None);
                    }
                    Some(Ok(k)) => {
                        canon.push(Some(&k));
                        err.push(None);
                    }
                    Some(Err(e)) => {
                        canon.push(None);
                        err.push(Some(&e.to_string()));
                    }
                }
            }
            (canon, err)
        })
        .collect()
}

/// Joins the blocks of one column into an Arrow string array with offsets
/// of type `O`; `None` when the values do not fit `O`.
fn join<'c, O: OffsetSizeTrait>(blocks: impl Iterator<Item = &'c Col> + Clone) -> Option<ArrayRef> {
    let total: usize = blocks.clone().map(|c| c.values.len()).sum();
    O::from_usize(total)?;
    let rows: usize = blocks.clone().map(|c| c.ends.len()).sum();
    let mut values = Vec::with_capacity(total);
    let mut offsets = Vec::with_capacity(rows + 1);
    let mut valid = Vec::with_capacity(rows);
    offsets.push(O::usize_as(0));
    for c in blocks {
        let base = values.len();
        values.extend_from_slice(&c.values);
        offsets.extend(c.ends.iter().map(|&e| O::usize_as(base + e)));
        valid.extend_from_slice(&c.valid);
    }
    let nulls = NullBuffer::from(valid);
    let nulls = (nulls.null_count() > 0).then_some(nulls);
    let offsets = OffsetBuffer::new(ScalarBuffer::from(offsets));
    // SAFETY: the values are concatenated `&str`s, so valid UTF-8 and each
    // row's range starts and ends on a char boundary; the offsets are
    // monotonic, start at 0 and end at `values.len()`, which fits `O`.
    let array =
        unsafe { GenericStringArray::<O>::new_unchecked(offsets, Buffer::from_vec(values), nulls) };
    Some(Arc::new(array))
}

/// Canonical and error arrays: `large` chooses 64-bit offsets (also used
/// when the values outgrow 32-bit ones).
fn to_arrays(blocks: &[(Col, Col)], large: bool) -> (ArrayRef, ArrayRef) {
    let col = |pick: fn(&(Col, Col)) -> &Col| -> ArrayRef {
        let it = blocks.iter().map(pick);
        if large {
            join::<i64>(it)
        } else {
            join::<i32>(it.clone()).or_else(|| join::<i64>(it))
        }
        .expect("64-bit offsets hold any in-memory column")
    };
    (col(|b| &b.0), col(|b| &b.1))
}

fn arrow_err(e: arrow_schema::ArrowError) -> PyErr {
    PyValueError::new_err(format!("Arrow: {e}"))
}

/// Imports an object with `__arrow_c_array__` (PyCapsule protocol) without
/// copying its buffers.
fn import_array(obj: &Bound<'_, PyAny>) -> PyResult<ArrayRef> {
    let pair = obj.call_method0("__arrow_c_array__")?;
    let (schema, array): (Bound<'_, PyCapsule>, Bound<'_, PyCapsule>) = pair.extract()?;
    let schema_ptr = schema
        .pointer_checked(Some(c"arrow_schema"))?
        .cast::<FFI_ArrowSchema>();
    let array_ptr = array
        .pointer_checked(Some(c"arrow_array"))?
        .cast::<FFI_ArrowArray>();
    // SAFETY: the capsules are named as the PyCapsule protocol requires, so
    // they hold an ArrowSchema and an ArrowArray. The array is moved out (the
    // protocol's consumer takes ownership; the capsule is left with a
    // released one), the schema only borrowed while the capsule lives.
    let data = unsafe {
        let ffi_array = std::ptr::replace(array_ptr.as_ptr(), FFI_ArrowArray::empty());
        from_ffi(ffi_array, schema_ptr.as_ref())
    }
    .map_err(arrow_err)?;
    Ok(make_array(data))
}

/// Holds an exported array until pyarrow takes it through
/// `__arrow_c_array__`.
#[pyclass(module = "irinorm._irinorm", frozen)]
struct ArrowExport {
    data: ArrayData,
}

#[pymethods]
impl ArrowExport {
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyCapsule>, Bound<'py, PyCapsule>)> {
        // The schema is ours to choose; a requested cast is not honoured.
        let _ = requested_schema;
        let (array, schema) = to_ffi(&self.data).map_err(arrow_err)?;
        Ok((
            PyCapsule::new_with_value(py, schema, c"arrow_schema")?,
            PyCapsule::new_with_value(py, array, c"arrow_array")?,
        ))
    }
}

fn export<'py>(pa: &Bound<'py, PyModule>, a: ArrayRef) -> PyResult<Bound<'py, PyAny>> {
    pa.call_method1("array", (ArrowExport { data: a.to_data() },))
}

impl Normalizer {
    /// Keys of one Arrow array of strings: (canonical, error).
    fn keys_one(&self, py: Python<'_>, input: ArrayRef) -> PyResult<(ArrayRef, ArrayRef)> {
        let engine = self.engine();
        let blocks = py.detach(|| -> Result<_, String> {
            let any = input.as_any();
            let len = input.len();
            Ok(match input.data_type() {
                DataType::Utf8 => {
                    let a = any
                        .downcast_ref::<StringArray>()
                        .expect("Utf8 is StringArray");
                    (
                        key_columns(engine, len, |i| a.is_valid(i).then(|| a.value(i))),
                        false,
                    )
                }
                DataType::LargeUtf8 => {
                    let a = any
                        .downcast_ref::<LargeStringArray>()
                        .expect("LargeUtf8 is LargeStringArray");
                    (
                        key_columns(engine, len, |i| a.is_valid(i).then(|| a.value(i))),
                        true,
                    )
                }
                DataType::Utf8View => {
                    let a = any
                        .downcast_ref::<StringViewArray>()
                        .expect("Utf8View is StringViewArray");
                    (
                        key_columns(engine, len, |i| a.is_valid(i).then(|| a.value(i))),
                        true,
                    )
                }
                t => return Err(format!("keys_arrow needs strings, got Arrow type {t}")),
            })
        });
        let (blocks, large) = blocks.map_err(PyTypeError::new_err)?;
        Ok(py.detach(|| to_arrays(&blocks, large)))
    }
}

#[pymethods]
impl Normalizer {
    #[new]
    #[pyo3(signature = (level="scheme", form="uri", nfc=false, base=None, mode="strict", rules=None, redirects=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        level: &str,
        form: &str,
        nfc: bool,
        base: Option<&str>,
        mode: &str,
        rules: Option<&str>,
        redirects: Option<std::path::PathBuf>,
    ) -> PyResult<Self> {
        let repr = format!(
            "Normalizer(level={level:?}, form={form:?}, nfc={}, base={}, mode={mode:?}, \
             rules={}, redirects={})",
            if nfc { "True" } else { "False" },
            base.map_or("None".into(), |b| format!("{b:?}")),
            rules.map_or("None".into(), |r| format!("{r:?}")),
            redirects
                .as_ref()
                .map_or("None".into(), |p| format!("{:?}", p.display().to_string())),
        );
        let (ladder, level) = build(level, form, nfc, base, mode, rules, redirects, py)?;
        Ok(Normalizer {
            ladder: Arc::new(ladder),
            level,
            repr,
        })
    }

    fn __repr__(&self) -> String {
        self.repr.clone()
    }

    /// The rung this normalizer keys at.
    #[getter]
    fn level(&self) -> &'static str {
        self.level.name()
    }

    fn key(&self, py: Python<'_>, s: &str) -> PyResult<String> {
        self.engine()
            .key(s)
            .map(Cow::into_owned)
            .map_err(|e| iri_error(py, &e))
    }

    fn keys(&self, py: Python<'_>, items: Vec<Option<String>>) -> PyResult<Py<PyList>> {
        let engine = self.engine();
        let keys: Vec<Option<String>> = py.detach(|| {
            items
                .par_iter()
                .with_min_len(BLOCK)
                .map(|s| {
                    s.as_deref()
                        .and_then(|s| engine.key(s).ok().map(Cow::into_owned))
                })
                .collect()
        });
        Ok(PyList::new(py, keys)?.unbind())
    }

    fn equivalent(&self, py: Python<'_>, a: &str, b: &str) -> PyResult<bool> {
        Ok(self.key(py, a)? == self.key(py, b)?)
    }

    fn lowest_equal_level(
        &self,
        py: Python<'_>,
        a: &str,
        b: &str,
    ) -> PyResult<Option<&'static str>> {
        for (level, engine) in Level::ALL.into_iter().zip(self.ladder.iter()) {
            let ka = engine.key(a).map_err(|e| iri_error(py, &e))?;
            let kb = engine.key(b).map_err(|e| iri_error(py, &e))?;
            if ka == kb {
                return Ok(Some(level.name()));
            }
        }
        Ok(None)
    }

    fn keys_arrow<'py>(
        &self,
        py: Python<'py>,
        array: &Bound<'py, PyAny>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        let pa = py.import("pyarrow")?;
        if array.hasattr("__arrow_c_array__")? {
            let (c, e) = self.keys_one(py, import_array(array)?)?;
            return Ok((export(&pa, c)?, export(&pa, e)?));
        }
        // A chunked array (or any Arrow stream, e.g. a Polars Series): key
        // chunk by chunk, keep the chunking.
        let chunked = if array.hasattr("chunks")? {
            array.clone()
        } else if array.hasattr("__arrow_c_stream__")? {
            pa.call_method1("chunked_array", (array,))?
        } else {
            return Err(PyTypeError::new_err(
                "keys_arrow needs an Arrow array or chunked array of strings",
            ));
        };
        let (mut cs, mut es) = (Vec::new(), Vec::new());
        for chunk in chunked.getattr("chunks")?.try_iter()? {
            let (c, e) = self.keys_one(py, import_array(&chunk?)?)?;
            cs.push(export(&pa, c)?);
            es.push(export(&pa, e)?);
        }
        let input_type = chunked.getattr("type")?;
        let large = input_type.str()? != "string";
        let t = pa.call_method0(if large { "large_string" } else { "string" })?;
        let make = |parts: Vec<Bound<'py, PyAny>>| -> PyResult<Bound<'py, PyAny>> {
            let parts = parts
                .into_iter()
                .map(|p| p.call_method1("cast", (&t,)))
                .collect::<PyResult<Vec<_>>>()?;
            pa.call_method1("chunked_array", (parts, &t))
        };
        Ok((make(cs)?, make(es)?))
    }
}

#[pyfunction]
#[pyo3(signature = (s, level="scheme", form="uri", nfc=false, base=None))]
fn key(
    py: Python<'_>,
    s: &str,
    level: &str,
    form: &str,
    nfc: bool,
    base: Option<&str>,
) -> PyResult<String> {
    let mut core = irinorm::Normalizer::new(Options {
        level: parse_level(level)?,
        form: parse_form(form)?,
        nfc,
    });
    if let Some(b) = base {
        core = core.with_base(b).map_err(|e| iri_error(py, &e))?;
    }
    core.key(s)
        .map(Cow::into_owned)
        .map_err(|e| iri_error(py, &e))
}

#[pyfunction]
fn to_uri(py: Python<'_>, s: &str) -> PyResult<String> {
    irinorm::to_uri(s)
        .map(Cow::into_owned)
        .map_err(|e| iri_error(py, &e))
}

/// The display policy of `idn_display` (and `top_domains`, a list's text).
fn display_policy(
    idn_display: &str,
    top_domains: Option<&str>,
) -> PyResult<irinorm::DisplayPolicy> {
    let profile: irinorm::IdnDisplay = idn_display.parse().map_err(PyValueError::new_err)?;
    let mut p = irinorm::DisplayPolicy::new(profile);
    if let Some(t) = top_domains {
        p = p.with_top_domains(std::sync::Arc::new(irinorm::TopDomains::parse(t)));
    }
    Ok(p)
}

#[pyfunction]
#[pyo3(signature = (s, idn_display="high", top_domains=None))]
fn to_iri(
    py: Python<'_>,
    s: &str,
    idn_display: &str,
    top_domains: Option<&str>,
) -> PyResult<String> {
    let policy = display_policy(idn_display, top_domains)?;
    irinorm::to_iri_with(s, &policy)
        .map(Cow::into_owned)
        .map_err(|e| iri_error(py, &e))
}

/// One finding of `check` as a tuple (severity, code, component, offset,
/// message).
type PyFinding = (&'static str, &'static str, &'static str, usize, String);

#[pyfunction]
#[pyo3(signature = (s, idn_display="high", top_domains=None))]
fn check(
    py: Python<'_>,
    s: &str,
    idn_display: &str,
    top_domains: Option<&str>,
) -> PyResult<Vec<PyFinding>> {
    let checker = irinorm::check::Checker::new(display_policy(idn_display, top_domains)?);
    let findings = checker.check(s).map_err(|e| iri_error(py, &e))?;
    Ok(findings
        .into_iter()
        .map(|f| {
            (
                f.severity.name(),
                f.code.as_str(),
                f.part.name(),
                f.offset,
                f.message,
            )
        })
        .collect())
}

#[pyfunction]
fn resolve(py: Python<'_>, base: &str, reference: &str) -> PyResult<String> {
    let b = irinorm::parse(base).map_err(|e| iri_error(py, &e))?;
    if !b.is_absolute() {
        let e = irinorm::Error::new(0, ErrorKind::BaseNotAbsolute);
        return Err(iri_error(py, &e));
    }
    let r = irinorm::parse(reference).map_err(|e| iri_error(py, &e))?;
    Ok(irinorm::resolve(&b, &r))
}

#[pyfunction]
#[pyo3(signature = (s, level="scheme", with_scheme=false, trailing_comma=false, strip_www=false, with_userinfo=true))]
fn surt(
    py: Python<'_>,
    s: &str,
    level: &str,
    with_scheme: bool,
    trailing_comma: bool,
    strip_www: bool,
    with_userinfo: bool,
) -> PyResult<String> {
    let k = irinorm::Normalizer::new(Options {
        level: parse_level(level)?,
        ..Options::default()
    })
    .key(s)
    .map_err(|e| iri_error(py, &e))?;
    let parsed = irinorm::parse(&k).map_err(|e| iri_error(py, &e))?;
    let opts = irinorm::surt::SurtOptions {
        with_scheme,
        trailing_comma,
        strip_www,
        with_userinfo,
    };
    Ok(irinorm::surt::surt(&parsed, &opts))
}

/// `irinorm.links`: the CLI's `links` job on files (WAT, WARC, CSV/TSV
/// edges); the CSV it writes, as text (`output=None`) or to a file, and
/// the run's counts. The GIL is released while it runs.
#[pyfunction]
#[pyo3(signature = (paths, output=None, level="scheme", form="uri", mode="web", hosts=false, targets=false, columns=None, input_format=None, source_column=None, column=None, base_column=None, memory=None, threads=None))]
#[allow(clippy::too_many_arguments)]
fn links(
    py: Python<'_>,
    paths: Vec<String>,
    output: Option<String>,
    level: &str,
    form: &str,
    mode: &str,
    hosts: bool,
    targets: bool,
    columns: Option<&str>,
    input_format: Option<&str>,
    source_column: Option<&str>,
    column: Option<&str>,
    base_column: Option<&str>,
    memory: Option<usize>,
    threads: Option<usize>,
) -> PyResult<(String, std::collections::HashMap<String, u64>)> {
    use irinorm::batch::{self, links as lk};
    let value = |e: irinorm::batch::RunError| PyValueError::new_err(e.to_string());
    let n = irinorm::Normalizer::new(Options {
        level: parse_level(level)?,
        form: parse_form(form)?,
        nfc: false,
    });
    let mode: Mode = mode.parse().map_err(PyValueError::new_err)?;
    let prep = batch::Prep::new(
        &batch::PrepConfig {
            mode,
            decode_entities: false,
            query_encoding: None,
            split_spaces: false,
        },
        None,
    )
    .map_err(|e| iri_error(py, &e))?
    .href_is_key(level == "string" && mode == Mode::Web);
    let resolve_once = prep.is_noop();
    let key = batch::key_fn(prep, |s: &str| n.key(s));
    let fmt = input_format
        .map(str::to_ascii_lowercase)
        .unwrap_or_else(|| {
            let p = paths
                .first()
                .map(|p| p.to_ascii_lowercase())
                .unwrap_or_default();
            let p = p.trim_end_matches(".gz").trim_end_matches(".zst");
            if p.ends_with(".csv") {
                "csv"
            } else if p.ends_with(".tsv") {
                "tsv"
            } else {
                "warc"
            }
            .to_owned()
        });
    let col = |c: Option<&str>, d: usize| -> PyResult<batch::Column> {
        c.map_or(Ok(batch::Column::Index(d)), |c| {
            batch::Column::parse(c).map_err(value)
        })
    };
    let kind = match fmt.as_str() {
        "wat" | "warc" => lk::Kind::Archive,
        "csv" | "tsv" => lk::Kind::Delimited {
            delimiter: if fmt == "csv" { b',' } else { b'\t' },
            header: true,
            source: col(source_column, 0)?,
            target: col(column, 1)?,
            base: base_column
                .map(batch::Column::parse)
                .transpose()
                .map_err(value)?,
        },
        other => {
            return Err(PyValueError::new_err(format!(
                "unknown input_format {other:?}"
            )))
        }
    };
    let mut cfg = lk::Config {
        kind,
        graph: if hosts {
            lk::Graph::Hosts
        } else {
            lk::Graph::Pages
        },
        targets,
        web_join: mode == Mode::Web,
        resolve_once,
        ..lk::Config::default()
    };
    if let Some(c) = columns {
        cfg.columns = lk::LinkField::parse_list(c).map_err(value)?;
    }
    if let Some(m) = memory {
        cfg.dedup.memory = m;
    }
    if let Some(t) = threads {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build()
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        cfg.dedup.pool = Some(Arc::new(pool));
    }
    let inputs: Vec<batch::Input> = paths
        .iter()
        .map(|p| batch::Input::parse(p.as_ref()))
        .collect();
    let (text, summary) = py
        .detach(|| -> Result<_, irinorm::batch::RunError> {
            let mut csv = Vec::new();
            let mut file = match &output {
                Some(p) => Some(batch::OutputFile::create(Some(std::path::Path::new(p)))?),
                None => None,
            };
            let s = lk::run(
                &inputs,
                &key,
                &cfg,
                &mut batch::Quiet,
                &mut |b: &[u8]| match &mut file {
                    Some(f) => f.write(b),
                    None => {
                        csv.extend_from_slice(b);
                        Ok(())
                    }
                },
                &mut |_| Ok(()),
            )?;
            if let Some(f) = file {
                f.finish()?;
            }
            Ok((String::from_utf8_lossy(&csv).into_owned(), s))
        })
        .map_err(value)?;
    let counts = [
        ("records", summary.records),
        ("records_rejected", summary.records_rejected),
        ("pages", summary.pages),
        ("links", summary.links),
        ("accepted", summary.accepted),
        ("rejected", summary.rejected),
        ("dropped", summary.dropped),
        ("edges", summary.edges),
        ("rows", summary.rows),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    Ok((text, counts))
}

// The URL-seen test's store (`irinorm seen info|compact`): what a
// seen-set holds, as a dict.
fn seen_dict<'py>(
    py: Python<'py>,
    info: &irinorm::batch::SeenInfo,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("version", info.version)?;
    d.set_item("key_options", &info.key_options)?;
    d.set_item("keys", info.keys())?;
    d.set_item("bytes", info.bytes())?;
    let files: Vec<(String, u64, u64)> = info
        .buckets
        .iter()
        .map(|b| (b.name.clone(), b.keys, b.bytes))
        .collect();
    d.set_item("files", files)?;
    Ok(d)
}

fn seen_err(e: irinorm::batch::RunError) -> PyErr {
    pyo3::exceptions::PyOSError::new_err(e.to_string())
}

#[pyfunction]
#[pyo3(signature = (dir, verify=false))]
fn seen_info<'py>(
    py: Python<'py>,
    dir: std::path::PathBuf,
    verify: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let info = py
        .detach(|| {
            if verify {
                irinorm::batch::seen_verify(&dir)
            } else {
                irinorm::batch::seen_info(&dir)
            }
        })
        .map_err(seen_err)?;
    seen_dict(py, &info)
}

#[pyfunction]
fn seen_compact<'py>(py: Python<'py>, dir: std::path::PathBuf) -> PyResult<Bound<'py, PyDict>> {
    let info = py
        .detach(|| irinorm::batch::seen_compact(&dir))
        .map_err(seen_err)?;
    seen_dict(py, &info)
}

#[pymodule]
fn _irinorm(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("IriError", m.py().get_type::<IriError>())?;
    m.add_class::<Normalizer>()?;
    m.add_class::<ArrowExport>()?;
    m.add_function(wrap_pyfunction!(key, m)?)?;
    m.add_function(wrap_pyfunction!(to_uri, m)?)?;
    m.add_function(wrap_pyfunction!(to_iri, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(resolve, m)?)?;
    m.add_function(wrap_pyfunction!(surt, m)?)?;
    m.add_function(wrap_pyfunction!(links, m)?)?;
    m.add_function(wrap_pyfunction!(seen_info, m)?)?;
    m.add_function(wrap_pyfunction!(seen_compact, m)?)?;
    Ok(())
}
