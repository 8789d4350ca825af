//! The bridge HTTP API (seed 000): conversations hold a page; agents fetch
//! chunks and views of it by conversation id.

use std::sync::Arc;

use axum::Json;
use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::{Value, json};
use webfold_store::{Conversation, ListQuery, NewConversation, NewPage};

use crate::cache::LoadedPage;
use crate::error::{ApiError, view_error};
use crate::extract::{ApiJson, ConvId, Params};
use crate::service::Conversations;
use crate::views::{self, Target};

/// Longest `url`, `cwd` and `permissionMode` accepted.
const MAX_FIELD_BYTES: usize = 8 * 1024;

pub fn routes() -> Router<Arc<Conversations>> {
    Router::new()
        .route("/health", get(health))
        .route("/conversations", post(create).get(list))
        .route("/conversations/{id}", get(show).delete(remove))
        .route("/conversations/{id}/refresh", post(refresh))
        .route("/conversations/{id}/chunk", get(chunk))
        .route("/conversations/{id}/outline", get(outline))
        .route("/conversations/{id}/markdown", get(markdown))
        .route("/conversations/{id}/snapshot", get(snapshot))
        .route("/conversations/{id}/cnt", get(cnt))
}

async fn health(State(svc): State<Arc<Conversations>>) -> Json<Value> {
    Json(json!({
        "status": "ok",
        "version": env!("CARGO_PKG_VERSION"),
        "cache": svc.cache().stats(),
    }))
}

/// Seed 000's body, plus the page's URL.
#[derive(Deserialize)]
struct CreateBody {
    #[serde(alias = "sessionId")]
    session_id: Option<String>,
    cwd: Option<String>,
    #[serde(rename = "permissionMode", alias = "permission_mode")]
    permission_mode: Option<String>,
    #[serde(rename = "jsonSchema", alias = "json_schema")]
    json_schema: Option<Value>,
    html: String,
    url: Option<String>,
}

fn check_field(name: &str, value: &Option<String>) -> Result<(), ApiError> {
    match value {
        Some(v) if v.len() > MAX_FIELD_BYTES => Err(ApiError::bad_request(format!(
            "{name} is longer than {MAX_FIELD_BYTES} bytes"
        ))),
        _ => Ok(()),
    }
}

/// Longest `session_id` accepted.
const MAX_SESSION_ID: usize = 128;

/// `session_id` is the caller's opaque id, so any id a caller mints fits:
/// UUIDs, ULIDs, base64url, `team:42`, `user@host`. It is echoed back and may
/// end up in another tool's logs or file names, so the character set leaves
/// out whatever could break those: control characters and spaces, quotes,
/// path separators (and ids made only of dots), and non-ASCII look-alikes.
fn check_session_id(value: &Option<String>) -> Result<(), ApiError> {
    let Some(v) = value else { return Ok(()) };
    let ok = (1..=MAX_SESSION_ID).contains(&v.len())
        && v.bytes()
            .all(|c| c.is_ascii_alphanumeric() || b"._-:@+=".contains(&c))
        && !v.bytes().all(|c| c == b'.');
    if ok {
        Ok(())
    } else {
        Err(ApiError::bad_request(format!(
            "session_id must be 1 to {MAX_SESSION_ID} characters of A-Z, a-z, 0-9 and . _ - : @ + = (not only dots); got {} characters",
            v.chars().count()
        )))
    }
}

fn conversation_json(c: &Conversation) -> Value {
    json!({
        "conversationId": c.id,
        "session_id": c.session_id,
        "cwd": c.cwd,
        "permissionMode": c.permission_mode,
        "url": c.url,
        "version": c.version,
        "htmlBytes": c.html_bytes,
        "createdAt": c.created_at,
        "updatedAt": c.updated_at,
    })
}

async fn create(
    State(svc): State<Arc<Conversations>>,
    ApiJson(body): ApiJson<CreateBody>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    check_session_id(&body.session_id)?;
    for (name, v) in [
        ("cwd", &body.cwd),
        ("permissionMode", &body.permission_mode),
        ("url", &body.url),
    ] {
        check_field(name, v)?;
    }
    let new = NewConversation {
        session_id: body.session_id,
        cwd: body.cwd,
        permission_mode: body.permission_mode,
        json_schema: body.json_schema,
        page: NewPage {
            html: body.html,
            url: body.url,
        },
    };
    let (conv, loaded) = svc.create(new).await?;
    let structure = views::structure(&loaded.page);
    Ok((
        StatusCode::OK,
        Json(json!({
            "conversationId": conv.id,
            "structure": structure.text,
            "tokens": structure.tokens,
            "version": conv.version,
        })),
    ))
}

async fn list(State(svc): State<Arc<Conversations>>, p: Params) -> Result<Json<Value>, ApiError> {
    p.only(&["limit", "offset"])?;
    let query = ListQuery {
        limit: p.parse::<u32>("limit")?.unwrap_or(50).clamp(1, 500),
        offset: p.parse::<u32>("offset")?.unwrap_or(0),
    };
    let convs = svc.list(query).await?;
    Ok(Json(json!({
        "conversations": convs.iter().map(conversation_json).collect::<Vec<_>>(),
        "limit": query.limit,
        "offset": query.offset,
    })))
}

async fn show(
    State(svc): State<Arc<Conversations>>,
    ConvId(id): ConvId,
) -> Result<Json<Value>, ApiError> {
    let conv = svc.get(id).await?;
    let mut out = conversation_json(&conv);
    out["versions"] = json!(svc.versions(id).await?);
    out["jsonSchema"] = json!(conv.json_schema);
    Ok(Json(out))
}

async fn remove(
    State(svc): State<Arc<Conversations>>,
    ConvId(id): ConvId,
) -> Result<Json<Value>, ApiError> {
    svc.delete(id).await?;
    Ok(Json(json!({ "success": true })))
}

#[derive(Deserialize)]
struct RefreshBody {
    html: String,
    url: Option<String>,
}

async fn refresh(
    State(svc): State<Arc<Conversations>>,
    ConvId(id): ConvId,
    ApiJson(body): ApiJson<RefreshBody>,
) -> Result<Json<Value>, ApiError> {
    check_field("url", &body.url)?;
    let (conv, loaded) = svc
        .refresh(
            id,
            NewPage {
                html: body.html,
                url: body.url,
            },
        )
        .await?;
    let structure = views::structure(&loaded.page);
    Ok(Json(json!({
        "success": true,
        "structure": structure.text,
        "tokens": structure.tokens,
        "version": conv.version,
    })))
}

async fn chunk(
    State(svc): State<Arc<Conversations>>,
    ConvId(id): ConvId,
    p: Params,
) -> Result<Json<views::Chunk>, ApiError> {
    p.only(&[
        "selector",
        "id",
        "ref",
        "all",
        "max_tokens",
        "encoding",
        "version",
    ])?;
    let target = Target::from_parts(
        p.get("selector").map(str::to_owned),
        p.parse("id")?,
        p.get("ref").map(str::to_owned),
    )
    .map_err(ApiError::bad_request)?;
    let opts = webfold_core::chunk::ChunkOptions {
        all: p.flag("all")?.unwrap_or(false),
        max_tokens: p.parse("max_tokens")?,
        encoding: encoding(&p)?,
    };
    let loaded = page_of(&svc, id, &p).await?;
    let url = loaded.url.clone().unwrap_or_default();
    let chunk = match target {
        // Refs need the conversation's snapshot session.
        Target::Ref(_) => {
            let session = svc.snapshot_session(id);
            let session = session.lock().unwrap_or_else(|p| p.into_inner());
            views::chunk(&loaded.page, &target, &opts, &url, Some(&session))
        }
        _ => views::chunk(&loaded.page, &target, &opts, &url, None),
    }
    .map_err(view_error)?;
    Ok(Json(chunk))
}

/// The version named by `?version=`, else the latest.
async fn page_of(
    svc: &Conversations,
    id: webfold_store::ConversationId,
    p: &Params,
) -> Result<Arc<LoadedPage>, ApiError> {
    Ok(match p.parse::<u32>("version")? {
        Some(v) => svc.version(id, v).await?,
        None => svc.latest(id).await?,
    })
}

fn encoding(p: &Params) -> Result<webfold_core::tokens::Encoding, ApiError> {
    Ok(p.parse("encoding")?.unwrap_or_default())
}

async fn outline(
    State(svc): State<Arc<Conversations>>,
    ConvId(id): ConvId,
    p: Params,
) -> Result<Json<Value>, ApiError> {
    p.only(&["max_depth", "exclude", "max_tokens", "encoding", "version"])?;
    let mut opts = webfold_core::outline::OutlineOptions {
        exclude: p.all("exclude"),
        max_tokens: p.parse("max_tokens")?,
        encoding: encoding(&p)?,
        ..Default::default()
    };
    if let Some(d) = p.parse("max_depth")? {
        opts.max_depth = d;
    }
    let loaded = page_of(&svc, id, &p).await?;
    let mut outline = views::outline(&loaded.page, &opts).map_err(view_error)?;
    outline.timestamp = svc.get(id).await.ok().map(|c| c.updated_at.max(0) as u64);
    let mut out = serde_json::to_value(&outline).map_err(|e| ApiError::internal(e.to_string()))?;
    out["version"] = json!(loaded.version);
    Ok(Json(out))
}

async fn markdown(
    State(svc): State<Arc<Conversations>>,
    ConvId(id): ConvId,
    p: Params,
) -> Result<Json<Value>, ApiError> {
    p.only(&[
        "base_url",
        "selector",
        "max_lines",
        "start_line",
        "max_tokens",
        "encoding",
        "version",
    ])?;
    let loaded = page_of(&svc, id, &p).await?;
    let mut md = webfold_core::markdown::MarkdownOptions::default();
    let base = p
        .get("base_url")
        .map(str::to_owned)
        .or_else(|| loaded.url.clone());
    if let Some(b) = base {
        md.base_url = Some(
            url::Url::parse(&b)
                .map_err(|e| ApiError::bad_request(format!("base_url '{b}': {e}")))?,
        );
    }
    let root = match p.get("selector") {
        Some(sel) => loaded.page.query(sel).map_err(view_error)?,
        None => webfold_core::NodeId::DOCUMENT,
    };
    let mut paging = webfold_core::fetch_view::PageOptions {
        encoding: encoding(&p)?,
        ..Default::default()
    };
    if let Some(n) = p.parse("max_lines")? {
        paging.max_lines = n;
    }
    if let Some(n) = p.parse("start_line")? {
        paging.start_line = n;
    }
    paging.max_tokens = p.parse("max_tokens")?;
    let paged = views::markdown(&loaded.page, root, &md, &paging);
    let mut out = serde_json::to_value(&paged).map_err(|e| ApiError::internal(e.to_string()))?;
    out["markdown"] = out["text"].take();
    if let Some(o) = out.as_object_mut() {
        o.remove("text");
    }
    out["version"] = json!(loaded.version);
    Ok(Json(out))
}

async fn snapshot(
    State(svc): State<Arc<Conversations>>,
    ConvId(id): ConvId,
    p: Params,
) -> Result<Json<Value>, ApiError> {
    p.only(&[
        "mode",
        "interactive_only",
        "full_snapshot",
        "max_elements",
        "max_tokens",
        "viewport_only",
        "include_history",
        "diff",
        "selector",
        "ref",
        "encoding",
        "version",
    ])?;
    let mut opts = webfold_core::snapshot::SnapshotOptions {
        encoding: encoding(&p)?,
        ..Default::default()
    };
    if let Some(m) = p.get("mode") {
        opts.mode = views::parse_mode(m).map_err(view_error)?;
    }
    for (name, field) in [
        ("interactive_only", &mut opts.interactive_only),
        ("full_snapshot", &mut opts.full_snapshot),
        ("viewport_only", &mut opts.viewport_only),
        ("include_history", &mut opts.include_history),
        ("diff", &mut opts.diff),
    ] {
        if let Some(v) = p.flag(name)? {
            *field = v;
        }
    }
    if let Some(n) = p.parse("max_elements")? {
        opts.max_elements = n;
    }
    if let Some(n) = p.parse("max_tokens")? {
        opts.max_tokens = n;
    }
    let scope = match (p.get("selector"), p.get("ref")) {
        (None, None) => webfold_core::snapshot::Scope::Page,
        (Some(s), None) => webfold_core::snapshot::Scope::Selector(s.to_owned()),
        (None, Some(r)) => webfold_core::snapshot::Scope::Ref(r.to_owned()),
        _ => return Err(ApiError::bad_request("pass selector or ref, not both")),
    };
    let loaded = page_of(&svc, id, &p).await?;
    let url = loaded.url.clone().unwrap_or_default();
    let session = svc.snapshot_session(id);
    let snap = tokio::task::spawn_blocking(move || {
        let mut session = session.lock().unwrap_or_else(|p| p.into_inner());
        views::snapshot(&loaded.page, &url, &scope, &opts, Some(&mut session))
            .map(|s| (s, loaded.version))
    })
    .await
    .map_err(|e| ApiError::internal(e.to_string()))?
    .map_err(view_error)?;
    let mut out = serde_json::to_value(&snap.0).map_err(|e| ApiError::internal(e.to_string()))?;
    out["version"] = json!(snap.1);
    Ok(Json(out))
}

async fn cnt(
    State(svc): State<Arc<Conversations>>,
    ConvId(id): ConvId,
    p: Params,
) -> Result<Json<Value>, ApiError> {
    p.only(&["max_tokens", "expand", "encoding", "version"])?;
    let loaded = page_of(&svc, id, &p).await?;
    let max_tokens = p.parse("max_tokens")?;
    let expand = p.get("expand").map(str::to_owned);
    let enc = encoding(&p)?;
    let view = tokio::task::spawn_blocking(move || {
        views::cnt(loaded.cnt(), max_tokens, expand.as_deref(), enc).map(|v| (v, loaded.version))
    })
    .await
    .map_err(|e| ApiError::internal(e.to_string()))?
    .map_err(view_error)?;
    let mut out = serde_json::to_value(&view.0).map_err(|e| ApiError::internal(e.to_string()))?;
    out["version"] = json!(view.1);
    Ok(Json(out))
}
