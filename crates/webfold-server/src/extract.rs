//! Request extractors whose rejections are our JSON errors, not axum's text.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, header};
use serde::de::DeserializeOwned;
use webfold_core::contract::{Ctx, Surface};
use webfold_core::view::{AnyView, Call};
use webfold_store::ConversationId;

use crate::error::ApiError;

/// A JSON body. Errors name the field and what was wrong with it, or where
/// the JSON stops being JSON.
pub struct ApiJson<T>(pub T);

impl<S, T> FromRequest<S> for ApiJson<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        if !is_json(req.headers()) {
            let sent = req
                .headers()
                .get(header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .map_or("no Content-Type".to_string(), |v| {
                    format!("Content-Type: {v}")
                });
            return Err(ApiError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "Unsupported media type",
            )
            .detail(format!(
                "send the body as JSON with Content-Type: application/json (this request has {sent})"
            )));
        }
        let limit = req
            .extensions()
            .get::<crate::security::BodyLimit>()
            .copied();
        let bytes = Bytes::from_request(req, state).await.map_err(|r| {
            if r.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::payload_too_large(limit.map(|l| l.0))
            } else {
                ApiError::bad_request(
                    "the request body could not be read to its end (did the connection break off?); send it again",
                )
            }
        })?;
        parse_json(&bytes).map(ApiJson)
    }
}

/// `application/json`, or any `application/…+json`, parameters aside.
fn is_json(headers: &HeaderMap) -> bool {
    let Some(value) = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
    else {
        return false;
    };
    let mime = value
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    mime == "application/json" || (mime.starts_with("application/") && mime.ends_with("+json"))
}

/// Deserializes a request body (a JSON object), wording every failure for the caller:
/// "missing field 'html'", "field 'html' must be a string, not a number (42)",
/// "body is not valid JSON at line 1 column 12: expected ':'".
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(invalid_json(
            "the body is empty; send a JSON object such as {\"html\": \"<p>…</p>\"}".into(),
        ));
    }
    // serde reads a struct from an array too (fields by position), which
    // would blame "field '[0]'"; every body here is an object.
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    if first != Some(&b'{')
        && let Ok(value) = serde_json::from_slice::<serde_json::Value>(bytes)
    {
        let kind = match value {
            serde_json::Value::Array(_) => "an array",
            serde_json::Value::String(_) => "a string",
            serde_json::Value::Number(_) => "a number",
            serde_json::Value::Bool(_) => "a boolean",
            _ => "null",
        };
        return Err(
            ApiError::new(StatusCode::BAD_REQUEST, "Invalid request body")
                .detail(format!("the body must be a JSON object, not {kind}")),
        );
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = serde_path_to_error::deserialize::<_, T>(&mut de)
        .map_err(|e| json_error(e.path().to_string(), e.into_inner()))?;
    de.end().map_err(|e| json_error(String::new(), e))?;
    Ok(value)
}

fn invalid_json(detail: String) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, "Invalid JSON").detail(detail)
}

fn json_error(path: String, e: serde_json::Error) -> ApiError {
    use serde_json::error::Category;
    let at = format!(" at line {} column {}", e.line(), e.column());
    let full = e.to_string();
    let message = full.strip_suffix(&at).unwrap_or(&full);
    match e.classify() {
        Category::Syntax => invalid_json(format!(
            "body is not valid JSON{at}: {}",
            syntax_reason(message)
        )),
        Category::Eof => invalid_json(format!(
            "body is not valid JSON: it ends{at} before the JSON is complete ({})",
            message
                .replace("EOF while parsing", "inside")
                .replace('`', "'")
        )),
        Category::Data | Category::Io => {
            ApiError::new(StatusCode::BAD_REQUEST, "Invalid request body")
                .detail(data_reason(&path, message))
        }
    }
}

fn syntax_reason(message: &str) -> String {
    match message {
        "expected value" => {
            "expected a value (a string, number, object, array, true, false or null)".into()
        }
        "expected ident" => "expected true, false or null".into(),
        "key must be a string" => "object keys must be strings in double quotes".into(),
        "trailing characters" => "unexpected text after the JSON value".into(),
        "trailing comma" => "a comma before '}' or ']' is not allowed in JSON".into(),
        other => other.replace('`', "'"),
    }
}

/// A data error (the JSON is fine, its shape is not) in the caller's terms.
/// `path` is where serde was when it failed: the field itself for a wrong
/// type, the enclosing object for a missing field.
pub(crate) fn data_reason(path: &str, message: &str) -> String {
    let path = if path == "." { "" } else { path };
    if let Some(rest) = message.strip_prefix("unknown field `") {
        // "unknown field `x`, expected one of `a`, `b`" (or "expected `a`",
        // or "there are no fields"): every body is one object, so no path.
        let (name, known) = rest.split_once('`').unwrap_or((rest, ""));
        let known: Vec<&str> = known.split('`').skip(1).step_by(2).collect();
        return unknown_name("field", name, &known);
    }
    if let Some(rest) = message.strip_prefix("missing field `") {
        let field = rest.trim_end_matches('`');
        return match path {
            "" => format!("missing field '{field}'"),
            p => format!("missing field '{field}' in '{p}'"),
        };
    }
    if let Some(rest) = message.strip_prefix("duplicate field `") {
        return format!("field '{}' appears twice", rest.trim_end_matches('`'));
    }
    if let Some(rest) = message.strip_prefix("invalid type: ") {
        let (got, expected) = rest
            .split_once(", expected ")
            .unwrap_or((rest, "another type"));
        let expected = plain_expected(expected);
        let got = plain_unexpected(got);
        return match path {
            "" => format!("the body must be {expected}, not {got}"),
            p => format!("field '{p}' must be {expected}, not {got}"),
        };
    }
    let message = message.replace('`', "'");
    match path {
        "" => message,
        p => format!("field '{p}': {message}"),
    }
}

/// serde's name for what a field wanted, as JSON calls it.
fn plain_expected(expected: &str) -> String {
    if expected.starts_with("struct ") || expected == "a map" {
        "a JSON object".into()
    } else if expected == "a sequence" {
        "an array".into()
    } else if expected == "a boolean" {
        "true or false".into()
    } else if matches!(expected, "u8" | "u16" | "u32" | "u64" | "usize") {
        "a whole number".into()
    } else {
        expected.to_string()
    }
}

/// serde_json's description of the value it found ("integer `42`").
fn plain_unexpected(got: &str) -> String {
    let quoted = |prefix: &str| {
        got.strip_prefix(prefix)
            .map(|v| v.trim_end_matches('`').to_string())
    };
    if let Some(n) = quoted("integer `").or_else(|| quoted("floating point `")) {
        format!("a number ({n})")
    } else if let Some(b) = quoted("boolean `") {
        b
    } else if got.starts_with("string ") {
        "a string".into()
    } else if got == "sequence" {
        "an array".into()
    } else if got == "map" {
        "an object".into()
    } else {
        got.replace('`', "'")
    }
}

/// The `:id` path segment, checked against the strict id pattern before use.
pub struct ConvId(pub ConversationId);

impl<S: Send + Sync> FromRequestParts<S> for ConvId {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let axum::extract::Path(raw) =
            axum::extract::Path::<String>::from_request_parts(parts, state)
                .await
                .map_err(|e| ApiError::bad_request(e.body_text()))?;
        ConvId::parse(&raw)
    }
}

impl ConvId {
    pub fn parse(raw: &str) -> Result<Self, ApiError> {
        raw.parse::<ConversationId>().map(ConvId).map_err(|e| {
            ApiError::new(StatusCode::BAD_REQUEST, "Invalid conversation id").detail(e.to_string())
        })
    }
}

/// Query parameters as pairs, for views whose options repeat (`exclude=a&exclude=b`)
/// and so that a misspelt option is an error instead of silently ignored.
pub struct Params(Vec<(String, String)>);

impl<S: Send + Sync> FromRequestParts<S> for Params {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        let q = parts.uri.query().unwrap_or("");
        Ok(Params(
            url::form_urlencoded::parse(q.as_bytes())
                .into_owned()
                .collect(),
        ))
    }
}

impl Params {
    #[cfg(test)]
    pub fn from_pairs(pairs: Vec<(String, String)>) -> Self {
        Params(pairs)
    }

    /// Fails on a parameter not in `known`, naming the ones that are.
    pub fn only(&self, known: &[&str]) -> Result<(), ApiError> {
        match self.0.iter().find(|(k, _)| !known.contains(&k.as_str())) {
            Some((k, _)) => Err(ApiError::bad_request(unknown_name("parameter", k, known))),
            None => Ok(()),
        }
    }

    /// The call to `view` in the query. Every parameter but the bridge's own
    /// (`encoding`, `version`) is one of the view's options, read by the same
    /// parser every surface uses.
    pub fn call(&self, view: &dyn AnyView) -> Result<Call, ApiError> {
        const OWN: &[&str] = &["encoding", "version"];
        let mut known: Vec<&str> = view.options().iter().map(|s| s.name.as_str()).collect();
        known.extend(OWN);
        self.only(&known)?;
        let encoding = self.parse("encoding")?.unwrap_or_default();
        let pairs = self
            .0
            .iter()
            .filter(|(k, _)| !OWN.contains(&k.as_str()))
            .cloned()
            .collect();
        view.call_from_pairs(pairs, Ctx::new(Surface::Http, encoding))
            .map_err(|e| ApiError::bad_request(e.to_string()))
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn all(&self, name: &str) -> Vec<String> {
        self.0
            .iter()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .collect()
    }

    /// `name` parsed as `T`; absent is `None`, unparsable is a 400.
    pub fn parse<T: std::str::FromStr>(&self, name: &str) -> Result<Option<T>, ApiError>
    where
        T::Err: std::fmt::Display + 'static,
    {
        match self.get(name) {
            None => Ok(None),
            Some(v) => v.parse::<T>().map(Some).map_err(|e| {
                ApiError::bad_request(format!("parameter {name}='{v}': {}", parse_reason(&e)))
            }),
        }
    }

    /// A boolean flag: `true`/`1`/empty for on, `false`/`0` for off.
    pub fn flag(&self, name: &str) -> Result<Option<bool>, ApiError> {
        match self.get(name) {
            None => Ok(None),
            Some("" | "true" | "1") => Ok(Some(true)),
            Some("false" | "0") => Ok(Some(false)),
            Some(v) => Err(ApiError::bad_request(format!(
                "parameter {name}='{v}': use true or false"
            ))),
        }
    }
}

/// One wording for a name an endpoint does not take, a query parameter or
/// a body field: the name, then every one it takes.
fn unknown_name(what: &str, name: &str, known: &[&str]) -> String {
    if known.is_empty() {
        return format!("unknown {what} '{name}'; this endpoint takes none");
    }
    format!(
        "unknown {what} '{name}'; this endpoint takes: {}",
        known.join(", ")
    )
}

/// Why a parameter did not parse. Numbers get words instead of Rust's
/// `ParseIntError` text ("invalid digit found in string").
fn parse_reason<E: std::fmt::Display + 'static>(e: &E) -> String {
    use std::num::IntErrorKind;
    match (e as &dyn std::any::Any).downcast_ref::<std::num::ParseIntError>() {
        Some(int) => match int.kind() {
            IntErrorKind::Empty => "needs a value (a whole number)".into(),
            IntErrorKind::PosOverflow => "is too large".into(),
            IntErrorKind::NegOverflow => "is too small".into(),
            _ => "must be a whole number, such as 10".into(),
        },
        None => e.to_string(),
    }
}
