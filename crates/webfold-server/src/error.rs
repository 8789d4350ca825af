//! Errors of the bridge API: always JSON `{error, detail?, …}` with a status.
//!
//! `error` is short and stable (seed 000's clients match on "Conversation not
//! found" and "Element not found"); `detail` says what to do next.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

/// An error response of the bridge API.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub error: String,
    pub detail: Option<String>,
    /// Extra top-level fields (e.g. `suggestions`).
    pub extra: Map<String, Value>,
}

impl ApiError {
    pub fn new(status: StatusCode, error: impl Into<String>) -> Self {
        Self {
            status,
            error: error.into(),
            detail: None,
            extra: Map::new(),
        }
    }

    pub fn detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }

    pub fn with(mut self, key: &str, value: Value) -> Self {
        self.extra.insert(key.to_owned(), value);
        self
    }

    pub fn bad_request(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "Bad request").detail(detail)
    }

    pub fn conversation_not_found() -> Self {
        Self::new(StatusCode::NOT_FOUND, "Conversation not found").detail(
            "no conversation has this id (it may have been deleted); create one with POST /conversations",
        )
    }

    pub fn payload_too_large(limit_bytes: Option<usize>) -> Self {
        let limit = match limit_bytes {
            Some(b) => format!("the {} MB limit", b.div_ceil(1024 * 1024)),
            None => "the server's limit".into(),
        };
        Self::new(StatusCode::PAYLOAD_TOO_LARGE, "Payload too large").detail(format!(
            "the body is over {limit}; send less HTML (e.g. the part of the page you need) or start the server with a larger --max-body-mb"
        ))
    }

    pub fn internal(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, "Internal error").detail(detail)
    }

    pub fn body(&self) -> Value {
        let mut body = Map::new();
        body.insert("error".into(), json!(self.error));
        if let Some(d) = &self.detail {
            body.insert("detail".into(), json!(d));
        }
        for (k, v) in &self.extra {
            body.insert(k.clone(), v.clone());
        }
        Value::Object(body)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, axum::Json(self.body())).into_response()
    }
}

impl From<crate::service::ServiceError> for ApiError {
    fn from(e: crate::service::ServiceError) -> Self {
        use crate::service::ServiceError as E;
        match e {
            E::ConversationNotFound => ApiError::conversation_not_found(),
            e @ E::VersionNotFound { .. } => {
                ApiError::new(StatusCode::NOT_FOUND, "Version not found").detail(e.to_string())
            }
            E::Store(e @ webfold_store::StoreError::Full) => {
                ApiError::new(StatusCode::INSUFFICIENT_STORAGE, "Insufficient Storage")
                    .detail(e.to_string())
            }
            // The database is down or restarting: the client may retry.
            E::Store(e @ webfold_store::StoreError::Unavailable { .. }) => {
                ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "Database unavailable")
                    .detail(e.to_string())
            }
            E::Store(e) => ApiError::internal(e.to_string()),
            E::Task(e) => ApiError::internal(e),
            E::NotAPage(e) => view_error(e),
        }
    }
}

/// Maps a core view error to the bridge's statuses.
pub fn view_error(e: webfold_core::Error) -> ApiError {
    use webfold_core::Error as E;
    match e {
        E::ElementNotFound {
            selector,
            suggestions,
        } => ApiError::new(StatusCode::NOT_FOUND, "Element not found")
            .detail(format!(
                "no element matches '{selector}'; try one of the suggestions or check the outline"
            ))
            .with("suggestions", json!(suggestions)),
        // The detail is the one-line message, then the selector with a caret
        // under the column; the parts are fields of their own for programs.
        E::InvalidSelector {
            ref selector,
            position,
            ref reason,
        } => ApiError::new(StatusCode::BAD_REQUEST, "Invalid selector")
            .with("selector", json!(selector))
            .with("column", json!(position))
            .with("reason", json!(reason))
            .detail(format!("{e:#}")),
        E::UnknownNodeId(_) | E::UnknownRef(_) => {
            ApiError::new(StatusCode::NOT_FOUND, "Element not found").detail(e.to_string())
        }
        E::BudgetTooSmall { .. } => {
            ApiError::new(StatusCode::BAD_REQUEST, "Budget too small").detail(e.to_string())
        }
        E::InvalidOption(_) => {
            ApiError::new(StatusCode::BAD_REQUEST, "Invalid option").detail(e.to_string())
        }
        E::EmptyInput | E::NotHtml(_) => {
            ApiError::new(StatusCode::BAD_REQUEST, "Not a page").detail(e.to_string())
        }
        // Variants the core adds later are user errors until mapped here.
        #[allow(unreachable_patterns)]
        other => ApiError::bad_request(other.to_string()),
    }
}
