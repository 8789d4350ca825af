//! webfold for Node.js: the core's [`HeldPage`] behind one generic method,
//! as the Python package has it. `index.js` makes each view a method of
//! `Page` (options in camelCase) and the JSON envelope an object.

use std::sync::Mutex;

use napi::bindgen_prelude::{Buffer, Either, Utf16String};
use napi::{Error, Result, Status};
use napi_derive::napi;
use serde_json::{Map, Value};
use webfold_core::view::Envelope;
use webfold_core::view::held::{HeldPage, catalog};

fn error(e: impl std::fmt::Display) -> Error {
    Error::new(Status::GenericFailure, e.to_string())
}

/// A page, parsed once; every view of it is a call to `view`.
#[napi]
pub struct NativePage {
    held: Mutex<HeldPage>,
}

#[napi]
impl NativePage {
    /// Parses `html` (a string, or bytes decoded as a browser would, with
    /// `contentType` when it came over HTTP).
    #[napi(constructor)]
    pub fn new(
        html: Either<Utf16String, Buffer>,
        url: Option<String>,
        content_type: Option<String>,
    ) -> Result<Self> {
        let held = match html {
            Either::A(units) => {
                let text = utf8(&units);
                drop(units);
                HeldPage::from_text(&text, url)
            }
            Either::B(bytes) => HeldPage::parse(&bytes, content_type.as_deref(), url),
        }
        .map_err(error)?;
        Ok(NativePage {
            held: Mutex::new(held),
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
    pub fn view(&self, name: String, options: String) -> Result<NativeEnvelope> {
        let args = match serde_json::from_str(&options) {
            Ok(Value::Object(m)) => m,
            _ => Map::new(),
        };
        let envelope = self.held().view(&name, args).map_err(error)?;
        Ok(NativeEnvelope { envelope })
    }
}

/// A view's envelope, its text handed over as a string of its own (not
/// escaped into JSON and parsed back) and its tokens counted if read.
#[napi]
pub struct NativeEnvelope {
    envelope: Envelope,
}

#[napi]
impl NativeEnvelope {
    #[napi(getter)]
    pub fn text(&self) -> &str {
        &self.envelope.text
    }

    #[napi(getter)]
    pub fn tokens(&self) -> u32 {
        u32::try_from(self.envelope.tokens()).unwrap_or(u32::MAX)
    }

    /// Every other field, as JSON.
    #[napi(getter)]
    pub fn rest(&self) -> String {
        self.envelope.to_json_without_text()
    }
}

/// A JavaScript string as UTF-8 (a lone surrogate as U+FFFD, as Node's
/// own encoder writes it). Taken as UTF-16, the string's own form, and
/// converted here, four times as fast as Node's own UTF-8 copy (ASCII runs
/// go a word at a time).
fn utf8(text: &[u16]) -> String {
    // Three bytes a unit at most. Zeroed, so what is never written is
    // never touched; checking what is costs a fraction of converting it.
    let mut out = vec![0; text.len() * 3];
    let n = encoding_rs::mem::convert_utf16_to_utf8(text, &mut out);
    out.truncate(n);
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
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
