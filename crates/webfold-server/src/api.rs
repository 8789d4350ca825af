//! The bridge HTTP API (seed 000): conversations hold a page; agents fetch
//! chunks and views of it by conversation id.

use std::sync::Arc;

use axum::Json;
use axum::Router;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::{Value, json};
use webfold_core::contract::Surface;
use webfold_core::view::{Input, SessionUse};
use webfold_store::{Conversation, ListQuery, NewConversation, NewPage};

use crate::cache::LoadedPage;
use crate::error::{ApiError, view_error};
use crate::extract::{ApiJson, ConvId, Params};
use crate::service::Conversations;

/// Longest `url`, `cwd` and `permissionMode` accepted.
const MAX_FIELD_BYTES: usize = 8 * 1024;

pub fn routes() -> Router<Arc<Conversations>> {
    Router::new()
        .route("/health", get(health))
        .route("/conversations", post(create).get(list))
        .route("/conversations/{id}", get(show).delete(remove))
        .route("/conversations/{id}/refresh", post(refresh))
        .route("/conversations/{id}/{view}", get(view))
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
#[serde(deny_unknown_fields)]
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
            capture: None,
        },
    };
    let (conv, loaded) = svc.create(new).await?;
    let (structure, tokens) = structure(&loaded.page);
    Ok((
        StatusCode::OK,
        Json(json!({
            "conversationId": conv.id,
            "structure": structure,
            "tokens": tokens,
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
#[serde(deny_unknown_fields)]
struct RefreshBody {
    html: String,
    url: Option<String>,
    /// Seed 000's extension sends its own structure summary; the bridge
    /// makes its own from the page.
    #[serde(rename = "structure")]
    _structure: Option<serde::de::IgnoredAny>,
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
                capture: None,
            },
        )
        .await?;
    let (structure, tokens) = structure(&loaded.page);
    Ok(Json(json!({
        "success": true,
        "structure": structure,
        "tokens": tokens,
        "version": conv.version,
    })))
}

/// The outline sent back when a page arrives (the bridge's `structure`):
/// its text and tokens; a page with no elements has an empty one.
fn structure(page: &webfold_core::Page) -> (String, usize) {
    let opts = webfold_core::outline::OutlineOptions::default();
    let ctx = webfold_core::contract::Ctx::new(Surface::Http, Default::default());
    match webfold_core::outline::outline(page, &opts, ctx) {
        Ok(o) => (o.text, o.tokens),
        Err(_) => (String::new(), 0),
    }
}

/// Any view of the registry on the conversation's page: `?version=` names a
/// kept version (else the latest), every other parameter is the view's.
async fn view(
    State(svc): State<Arc<Conversations>>,
    Path((id, name)): Path<(String, String)>,
    p: Params,
) -> Result<impl axum::response::IntoResponse, ApiError> {
    let ConvId(id) = ConvId::parse(&id)?;
    let view = webfold_core::view::by_name(&name, Surface::Http).ok_or_else(|| {
        let names: Vec<&str> = webfold_core::view::VIEWS
            .iter()
            .map(|v| v.name().on(Surface::Http))
            .collect();
        ApiError::new(StatusCode::NOT_FOUND, "Not found").detail(format!(
            "no view '{name}': the views are {}",
            names.join(", ")
        ))
    })?;
    let call = p.call(view)?;
    let loaded = page_of(&svc, id, &p).await?;
    // Refs are numbered by the conversation's snapshot session.
    let session = (view.session() != SessionUse::None).then(|| svc.snapshot_session(id));
    let envelope = tokio::task::spawn_blocking(move || {
        let mut session = session
            .as_ref()
            .map(|s| s.lock().unwrap_or_else(|p| p.into_inner()));
        let url = loaded.url.clone().unwrap_or_default();
        let cnt = || loaded.cnt();
        let mut input = Input {
            page: Some(&loaded.page),
            url: &url,
            session: session.as_deref_mut(),
            cnt: Some(&cnt),
            raw: None,
            not_a_page: None,
            html: false,
            json: true,
            frame: None,
        };
        call.run(&mut input).map(|mut e| {
            e.version = Some(loaded.version);
            e
        })
    })
    .await
    .map_err(|e| ApiError::internal(e.to_string()))?
    .map_err(view_error)?;
    // Written as text: a CNT's tree may be deeper than a JSON value nests.
    Ok((
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        envelope.to_json(),
    ))
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

#[cfg(test)]
mod contract_tests {
    //! Every hint a view writes, spelled for the bridge, names an endpoint
    //! and parameters it accepts.
    use webfold_core::contract::Surface;
    use webfold_core::view::VIEWS;

    use crate::extract::Params;

    #[test]
    fn every_hint_names_a_bridge_parameter() {
        for view in VIEWS {
            for hint in view.hints() {
                let spelled = hint.spell(Surface::Http);
                let (path, query) = match spelled.split_once('?') {
                    Some((p, q)) => (p.to_string(), q.to_string()),
                    None => (view.name().on(Surface::Http).to_string(), spelled.clone()),
                };
                // A bare name asks for a larger value: give one inside every
                // limit's range.
                let pairs: Vec<(String, String)> = query
                    .split('&')
                    .map(|kv| match kv.split_once('=') {
                        Some((k, v)) => (k.to_string(), v.to_string()),
                        None => (kv.to_string(), "1000".to_string()),
                    })
                    // A placeholder stands for a value the reader picks.
                    .map(|(k, v)| match (k.as_str(), v.as_str()) {
                        ("id", "N") => (k, "1".to_string()),
                        _ => (k, v),
                    })
                    .map(|(k, v)| {
                        let v = url::form_urlencoded::parse(format!("v={v}").as_bytes())
                            .next()
                            .map(|(_, v)| v.into_owned())
                            .unwrap_or(v);
                        (k, v)
                    })
                    .collect();
                // A hint changes one option of a call that named its target.
                let mut pairs = pairs;
                let has = |k: &str, p: &[(String, String)]| p.iter().any(|(n, _)| n == k);
                if path == "chunk" && !["selector", "id", "ref"].iter().any(|k| has(k, &pairs)) {
                    pairs.push(("selector".into(), "p".into()));
                }
                if path == "find" && !has("query", &pairs) {
                    pairs.push(("query".into(), "x".into()));
                }
                let r = match webfold_core::view::by_name(&path, Surface::Http) {
                    Some(v) => Params::from_pairs(pairs)
                        .call(v)
                        .map(|_| ())
                        .map_err(|e| format!("{e:?}")),
                    None => Err(format!("no endpoint {path}")),
                };
                assert!(r.is_ok(), "{} writes `{spelled}`: {r:?}", view.name());
            }
        }
    }

    /// Selectors as unique selectors and pasted CSS spell them: combinators,
    /// quotes, escapes, `#`, `%`, `&`, `+`, non-ASCII.
    const TRICKY_SELECTORS: &[&str] = &[
        "main > ul > li:nth-child(2)",
        r#"[data-x="a b"]"#,
        "[title=\"it's\"]",
        "#größe",
        r"#\35 0\%",
        r#"a[href="/a?b=1&c=2#frag"]"#,
        r"p.a\+b",
        "[data-emoji=\"😀\"]",
        "ul ~ p[lang|=en]:not(.x)",
    ];

    /// A request target as RFC 3986 allows it in a query: unreserved
    /// characters, sub-delimiters, `:@/?`, and well-formed `%XX` escapes.
    fn is_query_target(s: &str) -> bool {
        let b = s.as_bytes();
        let mut i = 0;
        while i < b.len() {
            if b[i] == b'%' {
                let hex = |k: usize| b.get(k).is_some_and(u8::is_ascii_hexdigit);
                if !(hex(i + 1) && hex(i + 2)) {
                    return false;
                }
                i += 3;
            } else if b[i].is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/?".contains(&b[i]) {
                i += 1;
            } else {
                return false;
            }
        }
        true
    }

    #[test]
    fn chunk_hints_with_any_selector_are_request_targets_that_read_back() {
        use webfold_core::contract::{Handle, Hint};
        for sel in TRICKY_SELECTORS {
            for all in [false, true] {
                let spelled =
                    Hint::Chunk(Handle::Selector(sel.to_string()), all).spell(Surface::Http);
                let query = spelled
                    .strip_prefix("chunk?")
                    .expect("names the chunk endpoint");
                let target = format!("/conversations/0123456789abcdef0123456789abcdef/{spelled}");
                assert!(is_query_target(&target), "{sel:?} spelled `{target}`");
                let uri: axum::http::Uri = target.parse().expect("a valid request target");
                assert_eq!(uri.query(), Some(query));
                let pairs: Vec<(String, String)> = url::form_urlencoded::parse(query.as_bytes())
                    .into_owned()
                    .collect();
                assert_eq!(
                    pairs[0],
                    ("selector".to_string(), sel.to_string()),
                    "{spelled}"
                );
                let chunk = webfold_core::view::by_name("chunk", Surface::Http).unwrap();
                let opts = Params::from_pairs(pairs)
                    .call(chunk)
                    .unwrap_or_else(|e| panic!("{spelled}: {e:?}"))
                    .request_json();
                assert_eq!(opts["selector"], *sel);
                assert_eq!(opts["all"], all);
            }
        }
    }
}
