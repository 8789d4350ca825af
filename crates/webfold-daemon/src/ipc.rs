//! The agents' listener: a unix socket (0600, in the user's 0700 home) that
//! `webfold mcp` processes and the CLI talk to, one JSON object per line.
//!
//! A request is `{"id": n, "method": …, "params": {…}}`, answered by
//! `{"id": n, "result": …}` or `{"id": n, "error": "…"}`, in any order (a
//! `get_ui_context` may wait while others are answered). An agent process
//! says `hello` first, naming itself and its project; when its socket
//! closes, it is gone from every tab's agents list.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::mpsc;

use crate::hub::Hub;
use crate::protocol::{PROTOCOL_VERSION, Status, is_session_id};

/// Longest request line.
pub const MAX_LINE_BYTES: usize = 4 * 1024 * 1024;
/// Longest `wait_seconds`.
pub const MAX_WAIT_SECONDS: u64 = 600;

#[derive(Debug, Serialize, Deserialize)]
pub struct Request {
    pub id: u64,
    pub method: String,
    #[serde(default)]
    pub params: Value,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct Response {
    pub id: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// An agent process introducing itself.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Hello {
    pub agent_id: String,
    /// The directory the agent works in (absolute).
    pub project: PathBuf,
    pub client: String,
}

#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetUiContext {
    /// A tab's session (default: the latest of this project)
    #[serde(rename = "sessionId")]
    pub session_id: Option<String>,
    /// Wait up to this long for the user to pick or write
    #[schemars(range(max = 600))]
    pub wait_seconds: Option<u64>,
}

#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListSessions {}

#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RespondToBrowser {
    pub session_id: String,
    pub context_id: String,
    /// Markdown
    pub message: String,
    /// false: a part, more follows
    pub is_complete: bool,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpdateStatus {
    pub session_id: String,
    pub status: Status,
    /// e.g. "Searching for the Button component"
    pub detail: Option<String>,
}

#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GetConversationHistory {
    pub session_id: String,
    /// Most recent messages to return
    #[schemars(range(min = 1, max = 200), default = "twenty")]
    pub limit: Option<usize>,
}

/// A tab's current HTML, read from the live page (`get_html_chunk` with
/// `live: true` asks for it).
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GetLiveHtml {
    pub session_id: String,
    /// Must match an element in the live page.
    pub selector: String,
}

fn twenty() -> Option<usize> {
    Some(20)
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct UiList {
    project: PathBuf,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct UiPick {
    project: PathBuf,
    session_id: String,
}

/// What the daemon says of itself (`webfold doctor`).
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DaemonStatus {
    pub pid: u32,
    pub port: u16,
    pub version: String,
    pub protocol_version: u32,
    pub agents: usize,
    pub tabs: usize,
}

/// Serves agent sockets until the listener fails.
pub async fn serve(listener: UnixListener, hub: Arc<Hub>, port: u16) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        tokio::spawn(connection(stream, hub.clone(), port));
    }
}

async fn connection(stream: UnixStream, hub: Arc<Hub>, port: u16) {
    let (read, mut write) = stream.into_split();
    let (tx, mut rx) = mpsc::channel::<Response>(64);
    let writer = tokio::spawn(async move {
        while let Some(r) = rx.recv().await {
            let mut line = serde_json::to_vec(&r).unwrap_or_default();
            line.push(b'\n');
            if write.write_all(&line).await.is_err() {
                break;
            }
        }
    });
    let mut lines = BufReader::new(read);
    let mut agent: Option<String> = None;
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let n = match tokio::io::AsyncReadExt::take(&mut lines, MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut buf)
            .await
        {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        if n > MAX_LINE_BYTES {
            let _ = tx
                .send(Response {
                    id: 0,
                    result: None,
                    error: Some("request too long".into()),
                })
                .await;
            break;
        }
        let req: Request = match serde_json::from_slice(&buf) {
            Ok(r) => r,
            Err(e) => {
                let _ = tx
                    .send(Response {
                        id: 0,
                        result: None,
                        error: Some(format!("not a request: {e}")),
                    })
                    .await;
                continue;
            }
        };
        if req.method == "hello" {
            let out = hello(&hub, req.params, &mut agent).await;
            let _ = tx.send(respond(req.id, out)).await;
            continue;
        }
        let (hub, tx, agent) = (hub.clone(), tx.clone(), agent.clone());
        tokio::spawn(async move {
            let out = call(&hub, agent.as_deref(), &req.method, req.params, port).await;
            let _ = tx.send(respond(req.id, out)).await;
        });
    }
    if let Some(a) = agent {
        hub.disconnect_agent(&a);
    }
    drop(tx);
    let _ = writer.await;
}

fn respond(id: u64, out: Result<Value, String>) -> Response {
    match out {
        Ok(v) => Response {
            id,
            result: Some(v),
            error: None,
        },
        Err(e) => Response {
            id,
            result: None,
            error: Some(e),
        },
    }
}

fn params<T: for<'de> Deserialize<'de>>(v: Value) -> Result<T, String> {
    let v = if v.is_null() { json!({}) } else { v };
    serde_json::from_value(v).map_err(|e| format!("invalid arguments: {e}"))
}

fn session(id: &str) -> Result<&str, String> {
    if is_session_id(id) {
        Ok(id)
    } else {
        Err(format!(
            "'{id}' is not a session id; list_sessions shows the tabs' ids"
        ))
    }
}

async fn hello(hub: &Hub, p: Value, agent: &mut Option<String>) -> Result<Value, String> {
    let h: Hello = params(p)?;
    if agent.is_some() {
        return Err("this connection has said hello already".into());
    }
    let ok_id = !h.agent_id.is_empty()
        && h.agent_id.len() <= 64
        && h.agent_id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if !ok_id {
        return Err("agentId must be 1–64 letters, digits, '-' or '_'".into());
    }
    if !h.project.is_absolute() {
        return Err("project must be an absolute directory".into());
    }
    let project = std::fs::canonicalize(&h.project).unwrap_or(h.project);
    hub.connect_agent(&h.agent_id, project, h.client).await?;
    *agent = Some(h.agent_id);
    Ok(json!({ "protocolVersion": PROTOCOL_VERSION }))
}

async fn call(
    hub: &Hub,
    agent: Option<&str>,
    method: &str,
    p: Value,
    port: u16,
) -> Result<Value, String> {
    let me = || agent.ok_or_else(|| "say hello first: this call needs an agent".to_string());
    match method {
        "get_ui_context" => {
            let a: GetUiContext = params(p)?;
            if let Some(s) = &a.session_id {
                session(s)?;
            }
            let wait = match a.wait_seconds.unwrap_or(0) {
                w if w <= MAX_WAIT_SECONDS => Duration::from_secs(w),
                w => {
                    return Err(format!(
                        "wait_seconds must be a whole number from 0 to {MAX_WAIT_SECONDS}, not {w}"
                    ));
                }
            };
            let found = hub
                .get_ui_context(me()?, a.session_id.as_deref(), wait)
                .await?;
            Ok(serde_json::to_value(found).unwrap_or(Value::Null))
        }
        "list_sessions" => {
            let _: ListSessions = params(p)?;
            let agent = me()?;
            let project = hub.agent_project(agent)?;
            Ok(json!({ "sessions": hub.sessions_of(&project, agent).await }))
        }
        "respond_to_browser" => {
            let a: RespondToBrowser = params(p)?;
            let delivered = hub
                .respond(
                    me()?,
                    session(&a.session_id)?,
                    &a.context_id,
                    &a.message,
                    a.is_complete,
                )
                .await?;
            Ok(json!({ "success": true, "delivered": delivered }))
        }
        "update_status" => {
            let a: UpdateStatus = params(p)?;
            let delivered = hub
                .update_status(me()?, session(&a.session_id)?, a.status, a.detail)
                .await?;
            Ok(json!({ "success": true, "delivered": delivered }))
        }
        "get_conversation_history" => {
            let a: GetConversationHistory = params(p)?;
            let limit = match a.limit.unwrap_or(20) {
                n @ 1..=200 => n,
                n => {
                    return Err(format!(
                        "limit must be a whole number from 1 to 200, not {n}"
                    ));
                }
            };
            let messages = hub
                .history_of(me()?, session(&a.session_id)?, limit)
                .await?;
            Ok(json!({ "messages": messages }))
        }
        "get_live_html" => {
            let a: GetLiveHtml = params(p)?;
            if a.selector.trim().is_empty() {
                return Err("give the selector of an element to read from the live page".into());
            }
            let live = hub
                .live_html(
                    me()?,
                    session(&a.session_id)?,
                    &a.selector,
                    crate::hub::LIVE_HTML_TIMEOUT,
                )
                .await?;
            Ok(serde_json::to_value(live).unwrap_or(Value::Null))
        }
        "ui_list" => {
            let a: UiList = params(p)?;
            Ok(json!({ "sessions": hub.sessions_of(&canonical(a.project), "").await }))
        }
        "ui_pick" => {
            let a: UiPick = params(p)?;
            hub.pick(&canonical(a.project), session(&a.session_id)?);
            Ok(json!({ "success": true }))
        }
        "status" => {
            let (agents, tabs) = hub.counts();
            Ok(serde_json::to_value(DaemonStatus {
                pid: std::process::id(),
                port,
                version: env!("CARGO_PKG_VERSION").into(),
                protocol_version: PROTOCOL_VERSION,
                agents,
                tabs,
            })
            .unwrap_or(Value::Null))
        }
        other => Err(format!("unknown method '{other}'")),
    }
}

fn canonical(p: PathBuf) -> PathBuf {
    std::fs::canonicalize(&p).unwrap_or(p)
}
