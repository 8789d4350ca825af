//! webfold for Node.js: the core's [`HeldPage`] behind one generic method,
//! as the Python package has it. `index.js` makes each view a method of
//! `Page` (options in camelCase) and the JSON envelope an object.

use std::cell::RefCell;
use std::sync::Mutex;

use napi::bindgen_prelude::ObjectFinalize;
use napi::bindgen_prelude::{Buffer, Either, JsObjectValue, JsValue, Object};
use napi::{Env, Error, JsString, Result, Status, sys};
use napi_derive::napi;
use serde_json::{Map, Value};
use webfold_core::tokens::Encoding;
use webfold_core::view::Envelope;
use webfold_core::view::held::{HeldPage, catalog};

fn error(e: impl std::fmt::Display) -> Error {
    Error::new(Status::GenericFailure, e.to_string())
}

/// A page, parsed once; every view of it is a call to `view`.
#[napi(custom_finalize)]
pub struct NativePage {
    held: Mutex<HeldPage>,
    /// What the page told the garbage collector it holds.
    held_bytes: i64,
}

impl ObjectFinalize for NativePage {
    fn finalize(self, env: Env) -> Result<()> {
        env.adjust_external_memory(-self.held_bytes)?;
        Ok(())
    }
}

#[napi]
impl NativePage {
    /// Parses `html` (a string, or bytes decoded as a browser would, with
    /// `contentType` when it came over HTTP).
    #[napi(constructor)]
    pub fn new(
        env: Env,
        html: Either<JsString, Buffer>,
        url: Option<String>,
        content_type: Option<String>,
    ) -> Result<Self> {
        let held = parse(html, url, content_type)?;
        // Told, the collector runs sooner once pages pile up; untold, it sees
        // a small object and leaves the page's memory alone.
        let held_bytes = i64::try_from(held.heap_bytes()).unwrap_or(i64::MAX);
        env.adjust_external_memory(held_bytes)?;
        Ok(NativePage {
            held: Mutex::new(held),
            held_bytes,
        })
    }

    /// The page's address, as given ("" when none was).
    #[napi(getter)]
    pub fn url(&self) -> String {
        self.held().url().to_string()
    }

    /// Runs the view `name` with `options` (a JSON object, snake_case
    /// names).
    #[napi]
    pub fn view<'env>(
        &self,
        env: &'env Env,
        name: String,
        options: String,
    ) -> Result<Object<'env>> {
        let envelope = self
            .held()
            .view(&name, options_map(&options))
            .map_err(error)?;
        viewed(env, &envelope)
    }
}

/// Parses `html`, runs the view `name` with `options` and lets the page go
/// before returning: nothing waits for the garbage collector, which frees a
/// `Page` only once the event loop turns, so a loop over many pages holds
/// one at a time.
#[napi]
pub fn view_of<'env>(
    env: &'env Env,
    html: Either<JsString, Buffer>,
    url: Option<String>,
    content_type: Option<String>,
    name: String,
    options: String,
) -> Result<Object<'env>> {
    let envelope = {
        let mut held = parse(html, url, content_type)?;
        held.view(&name, options_map(&options)).map_err(error)?
    };
    viewed(env, &envelope)
}

fn parse(
    html: Either<JsString, Buffer>,
    url: Option<String>,
    content_type: Option<String>,
) -> Result<HeldPage> {
    match html {
        Either::A(text) => with_utf8(&text, |text| HeldPage::from_text(text, url))?,
        Either::B(bytes) => HeldPage::parse(&bytes, content_type.as_deref(), url),
    }
    .map_err(error)
}

/// A view's options as the package sends them: a JSON object, snake_case
/// names.
fn options_map(options: &str) -> Map<String, Value> {
    match serde_json::from_str(options) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    }
}

/// A view's envelope as the package reads it: `text` as a string of its
/// own (not escaped into JSON and parsed back), every other field as JSON
/// in `rest`, and `tokens` when the view counted them; else `countTokens`
/// counts the text in `encoding` if asked. A plain object, freed with the
/// caller's last use of it, where a wrapped one would wait for the event
/// loop to turn.
fn viewed<'env>(env: &'env Env, envelope: &Envelope) -> Result<Object<'env>> {
    let mut out = Object::new(env)?;
    out.set_named_property("text", js_string(env, &envelope.text)?)?;
    out.set_named_property("rest", envelope.to_json_without_text())?;
    if let Some(n) = envelope.counted_tokens() {
        out.set_named_property("tokens", u32::try_from(n).unwrap_or(u32::MAX))?;
    }
    out.set_named_property("encoding", envelope.encoding().name())?;
    Ok(out)
}

/// `text` as a JavaScript string, made in the engine's own forms: one
/// byte a character when every character fits one (most views' text),
/// else UTF-16, converted here a word at a time. Handed UTF-8, the engine
/// decodes it itself, more slowly: whole-page Markdown over every third
/// corpus page ran 1–3% faster this way.
fn js_string<'env>(env: &'env Env, text: &str) -> Result<JsString<'env>> {
    use encoding_rs::mem;
    thread_local! {
        static LATIN1: RefCell<Vec<u8>> = RefCell::default();
        static UNITS: RefCell<Vec<u16>> = RefCell::default();
    }
    if mem::is_ascii(text.as_bytes()) {
        return env.create_string_latin1(text.as_bytes());
    }
    // Neither form has more elements than the UTF-8 has bytes.
    if mem::is_str_latin1(text) {
        return with_scratch(&LATIN1, text.len(), |bytes| {
            let n = mem::convert_utf8_to_latin1_lossy(text.as_bytes(), bytes);
            env.create_string_latin1(&bytes[..n])
        });
    }
    with_scratch(&UNITS, text.len(), |units| {
        let n = mem::convert_str_to_utf16(text, units);
        env.create_string_utf16(&units[..n])
    })
}

/// Calls `f` with `len` elements of the thread's buffer `key`, zeroed only
/// as it grows, then only overwritten; a buffer grown past
/// [`KEEP_UNITS`] is given back after.
fn with_scratch<T: Copy + Default + 'static, R>(
    key: &'static std::thread::LocalKey<RefCell<Vec<T>>>,
    len: usize,
    f: impl FnOnce(&mut [T]) -> R,
) -> R {
    key.with_borrow_mut(|buf| {
        if buf.len() < len {
            buf.resize(len, T::default());
        }
        let out = f(&mut buf[..len]);
        if buf.capacity() > KEEP_UNITS {
            *buf = Vec::new();
        }
        out
    })
}

/// Exact tokens of `text` in `encoding` (as a view names it).
#[napi]
pub fn count_tokens(text: JsString, encoding: String) -> Result<u32> {
    let encoding: Encoding = serde_json::from_value(Value::String(encoding)).map_err(error)?;
    let n = with_utf8(&text, |text| webfold_core::tokens::count(text, encoding))?;
    Ok(u32::try_from(n).unwrap_or(u32::MAX))
}

/// A string's UTF-16 units and their UTF-8, kept between pages, so that a
/// page does not zero buffers five times its size first (made new, they
/// must be: encoding_rs writes into initialised memory). A page larger than
/// this gives its buffers back.
const KEEP_UNITS: usize = 4 << 20;

#[derive(Default)]
struct Scratch {
    units: Vec<u16>,
    /// NUL-filled once as it grows, then only overwritten.
    text: String,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::default();
}

/// Calls `f` with a JavaScript string as UTF-8 (a lone surrogate as
/// U+FFFD, as Node's own encoder writes it). Taken as UTF-16, the string's
/// own form, and converted here, four times as fast as Node's own UTF-8
/// copy (ASCII runs go a word at a time).
fn with_utf8<T>(text: &JsString, f: impl FnOnce(&str) -> T) -> Result<T> {
    let value = text.value();
    let read = |buf: *mut u16, size: usize, len: &mut usize| {
        // SAFETY: `buf` is null (asking the length) or has room for `size` units.
        let status =
            unsafe { sys::napi_get_value_string_utf16(value.env, value.value, buf, size, len) };
        match status {
            sys::Status::napi_ok => Ok(()),
            _ => Err(error("the page's text could not be read")),
        }
    };
    SCRATCH.with_borrow_mut(|s| {
        let mut len = 0;
        read(std::ptr::null_mut(), 0, &mut len)?;
        s.units.clear();
        s.units.reserve(len + 1);
        let mut written = 0;
        read(s.units.as_mut_ptr(), len + 1, &mut written)?;
        // SAFETY: Node wrote `written` units, no more than asked for.
        unsafe { s.units.set_len(written.min(len)) };
        // Three bytes a unit at most.
        let room = s.units.len() * 3;
        if s.text.len() < room {
            s.text.push_str(&"\0".repeat(room - s.text.len()));
        }
        let n = encoding_rs::mem::convert_utf16_to_str(&s.units, &mut s.text[..room]);
        let out = f(&s.text[..n]);
        if s.units.capacity() > KEEP_UNITS {
            *s = Scratch::default();
        }
        Ok(out)
    })
}

impl NativePage {
    fn held(&self) -> std::sync::MutexGuard<'_, HeldPage> {
        self.held.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A view as the package lists it.
#[napi(object)]
pub struct ViewInfo {
    pub name: String,
    pub about: String,
    /// The options' JSON Schema, as JSON.
    pub options: String,
    /// `none`, `reads` or `moves`: whether it keeps the snapshot session.
    pub session: String,
}

#[napi]
pub fn views() -> Vec<ViewInfo> {
    catalog()
        .into_iter()
        .map(|(name, about, schema, session)| ViewInfo {
            name,
            about: about.to_string(),
            options: serde_json::to_string(&schema).unwrap_or_else(|_| "{}".into()),
            session: session.to_string(),
        })
        .collect()
}

/// A fetched page's bytes, content type and address after redirects.
#[napi(object)]
pub struct Fetched {
    pub body: Buffer,
    pub content_type: Option<String>,
    pub url: String,
}

#[napi]
pub fn fetch(url: String) -> Result<Fetched> {
    let got = webfold_fetch::fetch_blocking(&url, &webfold_fetch::FetchOptions::default())
        .map_err(error)?;
    Ok(Fetched {
        body: got.body.into(),
        content_type: got.content_type,
        url: got.final_url.to_string(),
    })
}

/// Runs the `webfold` command with `argv` (the program's name first) and
/// exits the process with its status: the package's `webfold` bin.
#[napi]
pub fn cli(argv: Vec<String>) {
    webfold::main_with(argv.into_iter().map(Into::into).collect())
}
