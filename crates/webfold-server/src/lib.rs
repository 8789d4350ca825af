//! webfold-server: the surfaces that run as a service.
//!
//! - The bridge HTTP API of seed 000 (`POST /conversations`, `GET …/chunk`, …)
//!   in [`api`], over the conversation service in [`service`] (SQLite store +
//!   byte-bounded cache of parsed pages).
//! - MCP, the same tool set ([`mcp::WebfoldTools`]) over stdio and over
//!   streamable HTTP at `/mcp`; its `browser_*` tools ([`browser_tools`])
//!   drive a live Chromium page (`webfold-live`).
//! - [`security`]: the guard every HTTP request passes first (Host, Origin,
//!   preflight, bearer token, body limit).
//!
//! Surfaces are thin: requests are parsed here and rendered by the core's views.

pub mod api;
pub mod browser_tools;
pub mod cache;
pub mod channel;
pub mod error;
pub mod extract;
pub mod fallback;
pub mod listen;
pub mod mcp;
pub mod security;
pub mod service;
pub mod thumbnail;
pub mod ui_tools;
pub mod view_tools;

use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::mcp::{ToolContext, WebfoldTools};
use crate::security::Policy;
use crate::service::Conversations;

/// Seed 000's port.
pub const DEFAULT_PORT: u16 = 3456;
/// Largest request body: a 32 MB page is far past any real capture.
pub const DEFAULT_MAX_BODY_BYTES: usize = 32 * 1024 * 1024;

/// The whole HTTP app: bridge API + `/mcp`, behind the guard.
pub fn app(conversations: Arc<Conversations>, tools: ToolContext, policy: Policy) -> Router {
    let mcp_config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(policy.allowed_hosts.clone())
        .with_allowed_origins(policy.mcp_origins())
        .enforce_origin_validation()
        .with_max_request_body_bytes(policy.max_body_bytes);
    let mcp = StreamableHttpService::new(
        move || Ok(WebfoldTools::new(tools.clone())),
        Arc::new(LocalSessionManager::default()),
        mcp_config,
    );
    let max_body = policy.max_body_bytes;
    let policy = Arc::new(policy);
    let routes = api::routes()
        .with_state(conversations)
        .nest_service("/mcp", mcp)
        .layer(axum::middleware::from_fn(session_end))
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(max_body))
        .layer(axum::middleware::from_fn_with_state(
            policy,
            security::guard,
        ));
    // Around the whole router rather than as its layer: a layer runs inside
    // each route, before the router adds a 405's Allow header.
    Router::new()
        .fallback_service(routes)
        .layer(axum::middleware::from_fn(fallback::json_bodies))
}

/// rmcp answers the `DELETE /mcp` that ends a session with 202 Accepted,
/// which MCP clients take for a failure (the Python SDK logs "Session
/// termination failed: 202" on every close): the session is gone by then,
/// so the answer is 200.
async fn session_end(
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let ends_session = req.method() == axum::http::Method::DELETE && req.uri().path() == "/mcp";
    let mut resp = next.run(req).await;
    if ends_session && resp.status() == axum::http::StatusCode::ACCEPTED {
        *resp.status_mut() = axum::http::StatusCode::OK;
    }
    resp
}

async fn not_found() -> error::ApiError {
    error::ApiError::new(axum::http::StatusCode::NOT_FOUND, "Not found")
        .detail("unknown endpoint; see the Bridge API section of the README")
}

/// Serves `app` on `listener` until Ctrl-C or SIGTERM.
pub async fn serve(listener: tokio::net::TcpListener, app: Router) -> std::io::Result<()> {
    serve_until(listener, app, shutdown_signal()).await
}

/// Serves `app` on `listener` until `stop` completes.
pub async fn serve_until(
    listener: tokio::net::TcpListener,
    app: Router,
    stop: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    listen::serve_until(listener, app, stop).await
}

/// Resolves on Ctrl-C or SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
}
