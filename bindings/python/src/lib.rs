//! webfold for Python: the core's [`HeldPage`] behind one generic method,
//! so every view and every option the command line has, Python has, with
//! the same defaults, limits and wording. The Python side (`python/webfold`)
//! turns `page.snapshot(max_tokens=4000)` into `Page.view("snapshot",
//! {"max_tokens": 4000})` and the JSON envelope into an `Envelope`.

use std::sync::Mutex;

use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde_json::{Map, Value};
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
        let bytes: Vec<u8> = if let Ok(s) = html.extract::<String>() {
            s.into_bytes()
        } else if let Ok(b) = html.extract::<Vec<u8>>() {
            b
        } else {
            return Err(PyValueError::new_err(
                "html must be str or bytes: the page's HTML",
            ));
        };
        let held = py
            .detach(move || HeldPage::parse(&bytes, content_type.as_deref(), url))
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

    /// Runs the view `name` with `options` (its keyword arguments); the
    /// envelope as JSON.
    #[pyo3(signature = (name, options = None))]
    fn view(
        &self,
        py: Python<'_>,
        name: &str,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<String> {
        let args = match options {
            Some(d) => options_of(py, d)?,
            None => Map::new(),
        };
        py.detach(|| self.held().view(name, args).map(|e| e.to_json()))
            .map_err(error)
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

#[pymodule]
fn _webfold(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyPage>()?;
    m.add_function(wrap_pyfunction!(cli, m)?)?;
    m.add_function(wrap_pyfunction!(fetch, m)?)?;
    m.add_function(wrap_pyfunction!(views, m)?)?;
    m.add("WebfoldError", m.py().get_type::<WebfoldError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
