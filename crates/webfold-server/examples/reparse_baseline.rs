//! The load bench's baseline: seed 000's bridge as written, which keeps the
//! HTML string and parses it again on every chunk request (cheerio.load per
//! GET). Same routes and JSON as `webfold serve`, same guard, so the bench
//! compares only the caching of parsed pages.
//!
//! Run by scripts/bench-server; prints `{"port": N}` once listening.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use serde_json::{Value, json};
use webfold_core::Page;
use webfold_server::security::{Policy, guard};

type Pages = Arc<Mutex<HashMap<String, String>>>;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let port = listener.local_addr()?.port();
    let pages: Pages = Arc::default();
    let app = axum::Router::new()
        .route("/conversations", post(create))
        .route("/conversations/{id}/chunk", get(chunk))
        .with_state(pages)
        .layer(axum::extract::DefaultBodyLimit::max(
            webfold_server::DEFAULT_MAX_BODY_BYTES,
        ))
        .layer(axum::middleware::from_fn_with_state(
            Arc::new(Policy::loopback(port)),
            guard,
        ));
    println!("{}", json!({ "port": port }));
    axum::serve(listener, app).await
}

async fn create(State(pages): State<Pages>, Json(body): Json<Value>) -> Json<Value> {
    let html = body["html"].as_str().unwrap_or_default().to_owned();
    let id = webfold_store::ConversationId::random()
        .map(|i| i.to_string())
        .unwrap_or_default();
    pages
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(id.clone(), html);
    Json(json!({ "conversationId": id }))
}

async fn chunk(
    State(pages): State<Pages>,
    Path(id): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> (StatusCode, Json<Value>) {
    let Some(html) = pages
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(&id)
        .cloned()
    else {
        return (
            StatusCode::NOT_FOUND,
            Json(json!({"error": "Conversation not found"})),
        );
    };
    let selector = q.get("selector").cloned().unwrap_or_default();
    // The seed's handler: load the whole document, then query it.
    let page = Page::parse(&html);
    match page.query(&selector) {
        Ok(n) => (
            StatusCode::OK,
            Json(json!({"selector": selector, "html": page.outer_html(n), "found": true})),
        ),
        Err(e) => (StatusCode::NOT_FOUND, Json(json!({"error": e.to_string()}))),
    }
}
