//! webfold for Python: the core's [`HeldPage`] behind one generic method,
//! so every view and every option the command line has, Python has, with
//! the same defaults, limits and wording. The Python side (`python/webfold`)
//! turns `page.snapshot(max_tokens=4000)` into `Page.view("snapshot",
//! {"max_tokens": 4000})` and the envelope it returns into an `Envelope`.

use std::sync::Mutex;

use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde_json::{Map, Value};
use webfold_core::view::Envelope;
use webfold_core::view::held::{HeldPage, catalog};

pyo3::create_exception!(
    _webfold,
    WebfoldError,
    PyException,
    "What went wrong, in webfold's words: a wrong option, a selector that matches nothing, a page that is not HTML."
);

fn error(e: impl std::fmt::Display) -> PyErr {
    WebfoldError::new_err(e.to_string())
}

/// A page, parsed once; every view of it is a call to `view`.
#[pyclass(module = "webfold._webfold", name = "Page", frozen)]
struct PyPage {
    held: Mutex<HeldPage>,
}

#[pymethods]
impl PyPage {
    /// Parses `html` (text, or bytes decoded as a browser would, with
    /// `content_type` when it came over HTTP).
    #[new]
    #[pyo3(signature = (html, url = None, content_type = None))]
    fn new(
        py: Python<'_>,
        html: &Bound<'_, PyAny>,
        url: Option<String>,
        content_type: Option<String>,
    ) -> PyResult<Self> {
        let Some(html) = html_of(html) else {
            return Err(PyValueError::new_err(
                "html must be str or bytes: the page's HTML",
            ));
        };
        let held = py
            .detach(move || match html {
                Html::Text(text) => HeldPage::from_text(&text, url),
                Html::Bytes(bytes) => HeldPage::parse(&bytes, content_type.as_deref(), url),
            })
            .map_err(error)?;
        Ok(PyPage {
            held: Mutex::new(held),
        })
    }

    /// The page's address, as given ("" when none was).
    #[getter]
    fn url(&self) -> String {
        self.held().url().to_string()
    }

    /// Runs the view `name` with `options` (its keyword arguments).
    #[pyo3(signature = (name, options = None))]
    fn view(
        &self,
        py: Python<'_>,
        name: &str,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<NativeEnvelope> {
        let args = match options {
            Some(d) => options_of(py, d)?,
            None => Map::new(),
        };
        let envelope = py.detach(|| self.held().view(name, args)).map_err(error)?;
        Ok(NativeEnvelope { envelope })
    }
}

/// A view's envelope, its text handed over as a string of its own (not
/// escaped into JSON and parsed back) and its tokens counted if read.
#[pyclass(module = "webfold._webfold", frozen)]
struct NativeEnvelope {
    envelope: Envelope,
}

#[pymethods]
impl NativeEnvelope {
    #[getter]
    fn text(&self) -> &str {
        &self.envelope.text
    }

    #[getter]
    fn tokens(&self, py: Python<'_>) -> usize {
        py.detach(|| self.envelope.tokens())
    }

    /// Every other field, as JSON.
    #[getter]
    fn rest(&self) -> String {
        self.envelope.to_json_without_text()
    }
}

impl PyPage {
    fn held(&self) -> std::sync::MutexGuard<'_, HeldPage> {
        self.held.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Keyword arguments as the JSON object the contract reads.
fn options_of(py: Python<'_>, d: &Bound<'_, PyDict>) -> PyResult<Map<String, Value>> {
    let json = py.import("json")?;
    let text: String = json.call_method1("dumps", (d,))?.extract()?;
    match serde_json::from_str(&text) {
        Ok(Value::Object(m)) => Ok(m),
        _ => Err(error("options must be keyword arguments with JSON values")),
    }
}

/// Fetches `url` (http or https) as the command line's `fetch` does: the
/// body's bytes, its content type and the address after redirects.
#[pyfunction]
fn fetch(py: Python<'_>, url: String) -> PyResult<(Vec<u8>, Option<String>, String)> {
    py.detach(move || webfold_fetch::fetch_blocking(&url, &webfold_fetch::FetchOptions::default()))
        .map(|got| (got.body, got.content_type, got.final_url.to_string()))
        .map_err(error)
}

/// Every view: its method name, what it shows, its options as JSON Schema
/// (type, default, range, doc), and whether it keeps the page's snapshot
/// session (`none`, `reads`, `moves`): for the package's methods and stubs.
#[pyfunction]
fn views() -> Vec<(String, &'static str, String, &'static str)> {
    catalog()
        .into_iter()
        .map(|(name, about, schema, session)| {
            let options = serde_json::to_string(&schema).unwrap_or_else(|_| "{}".into());
            (name, about, options, session)
        })
        .collect()
}

/// Runs the `webfold` command with `argv` (the program's name first) and
/// exits the process with its status: the package's `webfold` script.
#[pyfunction]
fn cli(py: Python<'_>, argv: Vec<std::ffi::OsString>) -> PyResult<()> {
    py.detach(move || webfold::main_with(argv))
}

/// One page of a batch, as read from its columns.
struct PageRow {
    bytes: Vec<u8>,
    url: Option<String>,
    content_type: Option<String>,
    content_language: Option<String>,
}

/// Folds a batch of pages given as columns (`html`, and optionally `url`,
/// `content_type`, `content_language`; lists or numpy arrays, as Ray's
/// `map_batches` passes them) into columns of `webfold batch`'s fields.
/// Pages that are not HTML are left out, as `webfold batch` leaves them,
/// each named in a warning on the `webfold` logger.
#[pyfunction]
fn fold_batch<'py>(py: Python<'py>, batch: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
    let rows = rows_of(batch)?;
    let results: Vec<_> = py.detach(|| {
        rows.iter()
            .map(|r| {
                webfold_batch::fold(webfold_batch::PageIn {
                    bytes: &r.bytes,
                    url: r.url.as_deref(),
                    content_type: r.content_type.as_deref(),
                    content_language: r.content_language.as_deref(),
                })
            })
            .collect()
    });
    let mut folded = Vec::with_capacity(results.len());
    let mut skipped = Vec::new();
    for (i, result) in results.into_iter().enumerate() {
        match result {
            Ok(f) => folded.push(f),
            Err(e) => {
                let page = match rows.get(i).and_then(|r| r.url.as_deref()) {
                    Some(url) => format!("page {i} ({url})"),
                    None => format!("page {i}"),
                };
                skipped.push(format!("skipped {page}: {e}"));
            }
        }
    }
    // What `webfold batch` names on standard error, Python names on its
    // logger, where a pipeline's handlers look.
    if !skipped.is_empty() {
        let logger = py
            .import("logging")?
            .call_method1("getLogger", ("webfold",))?;
        for message in skipped {
            logger.call_method1("warning", (message,))?;
        }
    }
    let out = PyDict::new(py);
    let values: Vec<Value> = folded
        .iter()
        .map(|f| serde_json::to_value(f).unwrap_or(Value::Null))
        .collect();
    for name in webfold_batch::Folded::FIELDS {
        let column = pyo3::types::PyList::empty(py);
        for v in &values {
            column.append(json_to_py(py, &v[name])?)?;
        }
        out.set_item(name, column)?;
    }
    Ok(out)
}

fn json_to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::String(s) => s.into_pyobject(py)?.into_any(),
        Value::Number(n) => n.as_u64().unwrap_or(0).into_pyobject(py)?.into_any(),
        _ => py.None().into_bound(py),
    })
}

/// The rows of a batch's columns; `html` is required.
fn rows_of<'py>(batch: &Bound<'py, PyAny>) -> PyResult<Vec<PageRow>> {
    let column = |name: &str| -> PyResult<Option<Vec<Bound<'py, PyAny>>>> {
        match batch.get_item(name) {
            Ok(c) => Ok(Some(c.try_iter()?.collect::<PyResult<Vec<_>>>()?)),
            Err(_) => Ok(None),
        }
    };
    let Some(html) = column("html")? else {
        return Err(PyValueError::new_err(
            "the batch has no 'html' column: pass a dict of columns with 'html' (bytes or str) and optionally 'url'",
        ));
    };
    let text = |c: &Option<Vec<Bound<'py, PyAny>>>, i: usize| -> Option<String> {
        c.as_ref()?
            .get(i)?
            .extract::<Option<String>>()
            .ok()
            .flatten()
    };
    let (urls, types, langs) = (
        column("url")?,
        column("content_type")?,
        column("content_language")?,
    );
    html.iter()
        .enumerate()
        .map(|(i, h)| {
            let (bytes, decoded) = bytes_of(h).ok_or_else(|| {
                PyValueError::new_err("each 'html' value must be bytes or str: the page's HTML")
            })?;
            let given = text(&types, i);
            Ok(PageRow {
                bytes,
                url: text(&urls, i),
                content_type: if decoded { Some(utf8(given)) } else { given },
                content_language: text(&langs, i),
            })
        })
        .collect()
}

/// The content type of a page given as text: its media type (HTML when
/// none was given) with the charset text is in now. Its `<meta charset>`
/// and the charset it came with over HTTP told how its bytes were encoded
/// before it was decoded into a string.
fn utf8(content_type: Option<String>) -> String {
    let media = content_type
        .as_deref()
        .and_then(|c| c.split(';').next())
        .map(str::trim)
        .filter(|m| !m.is_empty())
        .unwrap_or("text/html");
    format!("{media}; charset=utf-8")
}

/// A page's HTML as Python gave it.
enum Html {
    /// A `str`: decoded already.
    Text(String),
    /// `bytes` (numpy's too), to decode as a browser would.
    Bytes(Vec<u8>),
}

/// (Bytes are read straight from the bytes object: a `Vec<u8>` extraction
/// would take them one Python int at a time.)
fn html_of(html: &Bound<'_, PyAny>) -> Option<Html> {
    if let Ok(s) = html.extract::<String>() {
        return Some(Html::Text(s));
    }
    html.extract::<&[u8]>()
        .ok()
        .map(|b| Html::Bytes(b.to_vec()))
}

/// A page's HTML as bytes, and whether it came as text (then UTF-8).
fn bytes_of(html: &Bound<'_, PyAny>) -> Option<(Vec<u8>, bool)> {
    html_of(html).map(|h| match h {
        Html::Text(s) => (s.into_bytes(), true),
        Html::Bytes(b) => (b, false),
    })
}

type Items = Box<dyn Iterator<Item = webfold_batch::source::Item> + Send>;

/// The pages of a WARC file (or a folder of HTML files, or an HTML file), as
/// dicts with `url`, `html` (bytes), `content_type` and `content_language`.
/// Records that hold no page are passed over; those that are broken or not
/// HTML are named in `skipped`.
#[pyclass(module = "webfold._webfold", name = "WarcPages", frozen)]
struct WarcPages {
    items: Mutex<Items>,
    skipped: Mutex<Vec<String>>,
}

#[pymethods]
impl WarcPages {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        use webfold_batch::source::{Item, Note};
        loop {
            let next = py.detach(|| self.items.lock().unwrap_or_else(|p| p.into_inner()).next());
            let note = match next {
                None => return Ok(None),
                Some(Item::Page(p)) => return page_dict(py, &p).map(Some),
                Some(Item::Note(Note::Opened { .. })) => continue,
                Some(Item::Note(Note::Unreadable { input, why })) => {
                    return Err(pyo3::exceptions::PyOSError::new_err(format!(
                        "cannot read '{input}': {why}"
                    )));
                }
                Some(Item::Note(Note::Skipped { what, why })) => format!("skipped {what}: {why}"),
                Some(Item::Note(Note::Stopped { input, why })) => format!("{input}: {why}"),
            };
            self.skipped
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(note);
        }
    }

    /// What was passed over so far, each with where and why.
    #[getter]
    fn skipped(&self) -> Vec<String> {
        self.skipped
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }
}

fn page_dict<'py>(
    py: Python<'py>,
    p: &webfold_batch::source::PageBytes,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("url", &p.url)?;
    d.set_item("html", pyo3::types::PyBytes::new(py, &p.bytes))?;
    d.set_item("content_type", &p.content_type)?;
    d.set_item("content_language", &p.content_language)?;
    Ok(d)
}

/// Iterates the pages of the WARC file at `path` (plain or gzip).
#[pyfunction]
fn read_warc(path: std::path::PathBuf) -> WarcPages {
    WarcPages {
        items: Mutex::new(Box::new(webfold_batch::source::items(vec![path]))),
        skipped: Mutex::new(Vec::new()),
    }
}

#[pymodule]
fn _webfold(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyPage>()?;
    m.add_function(wrap_pyfunction!(cli, m)?)?;
    m.add_function(wrap_pyfunction!(fetch, m)?)?;
    m.add_function(wrap_pyfunction!(views, m)?)?;
    m.add_function(wrap_pyfunction!(fold_batch, m)?)?;
    m.add_function(wrap_pyfunction!(read_warc, m)?)?;
    m.add_class::<WarcPages>()?;
    m.add("WebfoldError", m.py().get_type::<WebfoldError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("FOLDED_FIELDS", webfold_batch::Folded::FIELDS.to_vec())?;
    Ok(())
}
