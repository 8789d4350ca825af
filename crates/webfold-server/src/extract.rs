//! Request extractors whose rejections are our JSON errors, not axum's text.

use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::StatusCode;
use axum::http::request::Parts;
use serde::de::DeserializeOwned;
use webfold_core::contract::{Ctx, Request as ViewRequest, Surface, parse, schema};
use webfold_store::ConversationId;

use crate::error::ApiError;

/// A JSON body.
pub struct ApiJson<T>(pub T);

impl<S, T> FromRequest<S> for ApiJson<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        match axum::Json::<T>::from_request(req, state).await {
            Ok(axum::Json(v)) => Ok(ApiJson(v)),
            Err(rejection) => Err(json_rejection(rejection)),
        }
    }
}

fn json_rejection(r: JsonRejection) -> ApiError {
    match r {
        JsonRejection::MissingJsonContentType(_) => {
            ApiError::new(StatusCode::UNSUPPORTED_MEDIA_TYPE, "Unsupported media type")
                .detail("send the body as JSON with Content-Type: application/json")
        }
        JsonRejection::JsonSyntaxError(e) => {
            ApiError::new(StatusCode::BAD_REQUEST, "Invalid JSON").detail(e.body_text())
        }
        JsonRejection::JsonDataError(e) => {
            ApiError::new(StatusCode::BAD_REQUEST, "Invalid request body").detail(e.body_text())
        }
        other if other.status() == StatusCode::PAYLOAD_TOO_LARGE => {
            ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, "Payload too large").detail(
                "the body is over the server's limit; send less HTML or raise --max-body-mb",
            )
        }
        other => ApiError::new(other.status(), "Invalid request body").detail(other.body_text()),
    }
}

/// Query parameters.
pub struct ApiQuery<T>(pub T);

impl<S, T> FromRequestParts<S> for ApiQuery<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        match axum::extract::Query::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Query(v)) => Ok(ApiQuery(v)),
            Err(QueryRejection::FailedToDeserializeQueryString(e)) => Err(ApiError::bad_request(
                format!("invalid query parameters: {}", e.body_text()),
            )),
            Err(other) => Err(ApiError::bad_request(other.body_text())),
        }
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
            Some((k, _)) => Err(ApiError::bad_request(format!(
                "unknown parameter '{k}'; this endpoint takes: {}",
                known.join(", ")
            ))),
            None => Ok(()),
        }
    }

    /// The view's request in the query. Every parameter but the bridge's own
    /// (`encoding`, `version`) is one of the view's options, read by the same
    /// parser every surface uses.
    pub fn request<R: ViewRequest>(&self) -> Result<R, ApiError> {
        const OWN: &[&str] = &["encoding", "version"];
        let specs = schema::options::<R>();
        let mut known: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
        known.extend(OWN);
        self.only(&known)?;
        let encoding = self.parse("encoding")?.unwrap_or_default();
        let pairs = self
            .0
            .iter()
            .filter(|(k, _)| !OWN.contains(&k.as_str()))
            .map(|(k, v)| (k.as_str(), v.as_str()));
        parse::from_pairs::<R, _, _, _>(pairs, Surface::Http)
            .map(|r| r.with_ctx(Ctx::new(Surface::Http, encoding)))
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
        T::Err: std::fmt::Display,
    {
        match self.get(name) {
            None => Ok(None),
            Some(v) => v
                .parse::<T>()
                .map(Some)
                .map_err(|e| ApiError::bad_request(format!("parameter {name}='{v}': {e}"))),
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
