//! The agents' listener: a unix socket (0600, in the user's 0700 home) that
//! `webfold mcp` processes and the CLI talk to, one JSON object per line
//! (`webfold_protocol::agent` has the requests and their answers).
//!
//! An agent process says `hello` first, naming itself and its project; when
//! its socket closes, it is gone from every tab's agents list.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::mpsc;
use webfold_protocol::agent::{
    AgentRequest, Call, DaemonStatus, Delivered, Done, GetConversationHistory, GetLiveHtml,
    GetStatus, GetUiContext, Hello, HelloAnswer, History, ListSessions, MAX_LINE_BYTES,
    MAX_WAIT_SECONDS, NextMessage, Request, RespondToBrowser, Response, SessionList, UiList,
    UiPick, UpdateStatus,
};
use webfold_protocol::{PROTOCOL_VERSION, is_session_id};

use crate::hub::Hub;

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
        let req = match Request::parse(&buf) {
            Ok(r) => r,
            Err(bad) => {
                let _ = tx.send(respond(bad.id, Err(bad.message))).await;
                continue;
            }
        };
        let call = match req.call {
            AgentRequest::Hello(h) => {
                let out = hello(&hub, h, &mut agent).await.and_then(answer::<Hello>);
                let _ = tx.send(respond(req.id, out)).await;
                continue;
            }
            call => call,
        };
        let (hub, tx, agent) = (hub.clone(), tx.clone(), agent.clone());
        tokio::spawn(async move {
            let out = dispatch(&hub, agent.as_deref(), call, port).await;
            let _ = tx.send(respond(req.id, out)).await;
        });
    }
    if let Some(a) = agent {
        hub.disconnect_agent(&a).await;
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

/// The answer of a call `C`, on the wire: a method can only be answered
/// with its own answer type.
fn answer<C: Call>(a: C::Answer) -> Result<Value, String> {
    serde_json::to_value(a).map_err(|e| format!("the answer cannot be written: {e}"))
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

async fn hello(hub: &Hub, h: Hello, agent: &mut Option<String>) -> Result<HelloAnswer, String> {
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
    Ok(HelloAnswer {
        protocol_version: PROTOCOL_VERSION,
    })
}

async fn dispatch(
    hub: &Hub,
    agent: Option<&str>,
    call: AgentRequest,
    port: u16,
) -> Result<Value, String> {
    let me = || agent.ok_or_else(|| "say hello first: this call needs an agent".to_string());
    match call {
        AgentRequest::Hello(_) => Err("this connection has said hello already".into()),
        AgentRequest::GetUiContext(a) => {
            answer::<GetUiContext>(get_ui_context(hub, me()?, a).await?)
        }
        AgentRequest::NextMessage(a) => {
            let wait = Duration::from_secs(wait_seconds(a.wait_seconds)?);
            answer::<NextMessage>(hub.next_message(me()?, wait).await?)
        }
        AgentRequest::ListSessions(ListSessions {}) => {
            let agent = me()?;
            let project = hub.agent_project(agent)?;
            let sessions = hub.sessions_of(&project, agent).await;
            answer::<ListSessions>(SessionList { sessions })
        }
        AgentRequest::RespondToBrowser(a) => {
            let delivered = hub
                .respond(
                    me()?,
                    session(&a.session_id)?,
                    &a.message_id,
                    &a.message,
                    a.is_complete,
                )
                .await?;
            answer::<RespondToBrowser>(Delivered {
                success: true,
                delivered,
            })
        }
        AgentRequest::UpdateStatus(a) => {
            let delivered = hub
                .update_status(me()?, session(&a.session_id)?, a.status, a.detail)
                .await?;
            answer::<UpdateStatus>(Delivered {
                success: true,
                delivered,
            })
        }
        AgentRequest::GetConversationHistory(a) => {
            answer::<GetConversationHistory>(history(hub, me()?, a).await?)
        }
        AgentRequest::GetLiveHtml(a) => {
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
            answer::<GetLiveHtml>(live)
        }
        AgentRequest::UiList(a) => {
            let sessions = hub.sessions_of(&canonical(a.project), "").await;
            answer::<UiList>(SessionList { sessions })
        }
        AgentRequest::UiPick(a) => {
            hub.pick(&canonical(a.project), session(&a.session_id)?);
            answer::<UiPick>(Done { success: true })
        }
        AgentRequest::Status(GetStatus {}) => {
            let (agents, tabs) = hub.counts();
            answer::<GetStatus>(DaemonStatus {
                pid: std::process::id(),
                port,
                version: env!("CARGO_PKG_VERSION").into(),
                protocol_version: PROTOCOL_VERSION,
                agents,
                tabs,
            })
        }
    }
}

async fn get_ui_context(
    hub: &Hub,
    agent: &str,
    a: GetUiContext,
) -> Result<<GetUiContext as Call>::Answer, String> {
    if let Some(s) = &a.session_id {
        session(s)?;
    }
    let wait = Duration::from_secs(wait_seconds(a.wait_seconds.unwrap_or(0))?);
    hub.get_ui_context(agent, a.session_id.as_deref(), wait)
        .await
}

fn wait_seconds(w: u64) -> Result<u64, String> {
    if w <= MAX_WAIT_SECONDS {
        Ok(w)
    } else {
        Err(format!(
            "wait_seconds must be a whole number from 0 to {MAX_WAIT_SECONDS}, not {w}"
        ))
    }
}

async fn history(hub: &Hub, agent: &str, a: GetConversationHistory) -> Result<History, String> {
    let limit = match a.limit.unwrap_or(20) {
        n @ 1..=200 => n,
        n => {
            return Err(format!(
                "limit must be a whole number from 1 to 200, not {n}"
            ));
        }
    };
    let messages = hub
        .history_of(agent, session(&a.session_id)?, limit)
        .await?;
    Ok(History { messages })
}

fn canonical(p: PathBuf) -> PathBuf {
    std::fs::canonicalize(&p).unwrap_or(p)
}
