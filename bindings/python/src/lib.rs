//! webfold for Python: the core's view registry behind one generic method,
//! so every view and every option the command line has, Python has, with
//! the same defaults, limits and wording. The Python side (`python/webfold`)
//! turns `page.snapshot(max_tokens=4000)` into `Page.view("snapshot",
//! {"max_tokens": 4000})` and the JSON envelope into an `Envelope`.
//!
//! The text of a view is the command line's for the same options (its hints
//! name `webfold` commands), so what an agent reads does not depend on the
//! language that asked. Options are read in Python's words first
//! (`max_tokens`, not `--max-tokens`), so a wrong one is named as it was
//! written.

use std::sync::Mutex;

use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde_json::{Map, Value};
use webfold_core::contract::{Ctx, Surface};
use webfold_core::snapshot::SnapshotSession;
use webfold_core::tokens::Encoding;
use webfold_core::view::{AnyView, Input, SessionUse, VIEWS, by_name};

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
    page: webfold_core::Page,
    url: String,
    /// The snapshot session: history and stable refs, across calls on this page.
    session: Mutex<SnapshotSession>,
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
        let page = py.detach(move || parse(&bytes, content_type.as_deref()))?;
        Ok(PyPage {
            page,
            url: url.unwrap_or_default(),
            session: Mutex::new(SnapshotSession::new()),
        })
    }

    /// The page's address, as given ("" when none was).
    #[getter]
    fn url(&self) -> &str {
        &self.url
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
        let view = view_named(name)?;
        let args = match options {
            Some(d) => options_of(py, d)?,
            None => Map::new(),
        };
        py.detach(|| self.run(view, args)).map_err(error)
    }
}

impl PyPage {
    fn run(&self, view: &'static dyn AnyView, args: Map<String, Value>) -> Result<String, String> {
        // Read in Python's words for the error; spelled as the command line
        // for the text.
        view.call_from_json(args.clone(), Ctx::new(Surface::Http, Encoding::default()))
            .map_err(|e| e.to_string())?;
        let call = view
            .call_from_json(args, Ctx::new(Surface::Cli, Encoding::default()))
            .map_err(|e| e.to_string())?;
        let mut session = self.session.lock().unwrap_or_else(|p| p.into_inner());
        let mut input = Input::page(&self.page, &self.url);
        if view.session() != SessionUse::None {
            input.session = Some(&mut session);
        }
        let envelope = call.run(&mut input).map_err(|e| e.to_string())?;
        Ok(envelope.to_json())
    }
}

/// The page in `bytes`, refused when empty or not text.
fn parse(bytes: &[u8], content_type: Option<&str>) -> PyResult<webfold_core::Page> {
    let text = webfold_core::decode::decode_html(bytes, content_type).text;
    webfold_core::decode::check_page(bytes, &text).map_err(error)?;
    Ok(webfold_core::Page::parse(&text))
}

fn view_named(name: &str) -> PyResult<&'static dyn AnyView> {
    by_name(&name.replace('_', "-"), Surface::Cli)
        .or_else(|| by_name(name, Surface::Cli))
        .ok_or_else(|| {
            let names: Vec<String> = VIEWS.iter().map(|v| method_name(*v)).collect();
            error(format!(
                "no view named '{name}': the views are {}",
                names.join(", ")
            ))
        })
}

/// A view's method name: its command's name in Python's spelling.
fn method_name(view: &dyn AnyView) -> String {
    view.name().on(Surface::Cli).replace('-', "_")
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
    py.detach(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the network runtime: {e}"))?;
        let got = runtime
            .block_on(webfold_fetch::fetch(
                &url,
                &webfold_fetch::FetchOptions::default(),
            ))
            .map_err(|e| e.to_string())?;
        Ok::<_, String>((got.body, got.content_type, got.final_url.to_string()))
    })
    .map_err(error)
}

/// Every view: its method name, what it shows, its options as JSON Schema
/// (type, default, range, doc), and whether it keeps the page's snapshot
/// session (`none`, `reads`, `moves`): for the package's methods and stubs.
#[pyfunction]
fn views() -> Vec<(String, String, String, &'static str)> {
    VIEWS
        .iter()
        .map(|v| {
            let options = serde_json::to_string(&v.schema()).unwrap_or_else(|_| "{}".into());
            let session = match v.session() {
                SessionUse::None => "none",
                SessionUse::Reads => "reads",
                SessionUse::Moves => "moves",
            };
            (method_name(*v), v.about().to_string(), options, session)
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
