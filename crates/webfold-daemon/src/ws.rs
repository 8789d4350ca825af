//! The extension's listener: `ws://127.0.0.1:PORT/ws?sessionId=…`.
//!
//! The upgrade is refused (403, no 101) unless Host, Origin and session id
//! check out; the token must come with it as a subprotocol, or as the first
//! frame within [`HELLO_TIMEOUT`]. After that every frame is parsed strictly:
//! a bad one is answered with an `error` frame, and [`MAX_BAD_FRAMES`] of
//! them close the socket.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};
use tokio_tungstenite::tungstenite::http::{StatusCode, header};
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, WebSocketConfig};
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};

use crate::auth::{SUBPROTOCOL_PREFIX, Token, host_allowed, origin_allowed};
use crate::hub::Hub;
use webfold_protocol::{
    ClientFrame, ErrorFrame, MAX_MESSAGE_BYTES, MAX_USER_MESSAGE_BYTES, ServerFrame, is_session_id,
    parse_client_frame, parse_hello,
};

/// How long an upgraded socket without a subprotocol token has to say hello.
pub const HELLO_TIMEOUT: Duration = Duration::from_secs(5);
/// Malformed frames tolerated on one socket before it is closed.
pub const MAX_BAD_FRAMES: u32 = 5;

/// What the upgrade checks against.
pub struct Gate {
    pub port: u16,
    pub token: Token,
    pub extensions: Vec<String>,
}

struct Admitted {
    session_id: String,
    authenticated: bool,
}

/// Accepts extension sockets until the listener fails.
pub async fn serve(listener: TcpListener, hub: Arc<Hub>, gate: Arc<Gate>) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let (hub, gate) = (hub.clone(), gate.clone());
        tokio::spawn(async move {
            let _ = stream.set_nodelay(true);
            connection(stream, hub, gate).await;
        });
    }
}

fn refuse(status: StatusCode, why: &str) -> ErrorResponse {
    let body = serde_json::json!({ "error": why }).to_string();
    let mut r = ErrorResponse::new(Some(body));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/json"),
    );
    r
}

/// The upgrade check: every refusal is an HTTP error, never a 101.
// The error type is the handshake callback's, as tungstenite defines it.
#[allow(clippy::result_large_err)]
fn admit(
    req: &Request,
    mut resp: Response,
    gate: &Gate,
) -> Result<(Response, Admitted), ErrorResponse> {
    let header = |name: header::HeaderName| req.headers().get(name).and_then(|v| v.to_str().ok());
    if !host_allowed(header(header::HOST), gate.port) {
        return Err(refuse(StatusCode::FORBIDDEN, "this host is not allowed"));
    }
    if !origin_allowed(header(header::ORIGIN), &gate.extensions) {
        return Err(refuse(
            StatusCode::FORBIDDEN,
            "only the paired webfold extension may connect",
        ));
    }
    if req.uri().path() != "/ws" {
        return Err(refuse(StatusCode::NOT_FOUND, "the daemon serves /ws only"));
    }
    let session_id = req
        .uri()
        .query()
        .unwrap_or("")
        .split('&')
        .find_map(|kv| kv.strip_prefix("sessionId="))
        .filter(|s| is_session_id(s))
        .ok_or_else(|| {
            refuse(
                StatusCode::BAD_REQUEST,
                "sessionId must be the tab's lowercase hex SHA-256 (64 characters)",
            )
        })?
        .to_string();
    let offered: Vec<&str> = header(header::SEC_WEBSOCKET_PROTOCOL)
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    let presented = offered
        .iter()
        .find_map(|p| p.strip_prefix(SUBPROTOCOL_PREFIX));
    let authenticated = match presented {
        Some(t) if gate.token.matches(t) => true,
        Some(_) => {
            return Err(refuse(
                StatusCode::UNAUTHORIZED,
                "wrong token: pair again with `webfold pair`",
            ));
        }
        None => false,
    };
    if authenticated {
        let chosen = gate.token.subprotocol();
        if let Ok(v) = header::HeaderValue::from_str(&chosen) {
            resp.headers_mut().insert(header::SEC_WEBSOCKET_PROTOCOL, v);
        }
    }
    Ok((
        resp,
        Admitted {
            session_id,
            authenticated,
        },
    ))
}

async fn connection(stream: TcpStream, hub: Arc<Hub>, gate: Arc<Gate>) {
    let admitted: Arc<Mutex<Option<Admitted>>> = Arc::default();
    let slot = admitted.clone();
    #[allow(clippy::result_large_err)]
    let check = |req: &Request, resp: Response| {
        let (resp, a) = admit(req, resp, &gate)?;
        *slot.lock().unwrap_or_else(|p| p.into_inner()) = Some(a);
        Ok(resp)
    };
    let config = WebSocketConfig::default()
        .max_message_size(Some(MAX_MESSAGE_BYTES))
        .max_frame_size(Some(MAX_MESSAGE_BYTES));
    let Ok(ws) = tokio_tungstenite::accept_hdr_async_with_config(stream, check, Some(config)).await
    else {
        return;
    };
    let Some(Admitted {
        session_id,
        mut authenticated,
    }) = admitted.lock().unwrap_or_else(|p| p.into_inner()).take()
    else {
        return;
    };
    let (mut sink, mut stream) = ws.split();
    let (tx, mut rx) = mpsc::channel::<ServerFrame>(256);
    let (close_tx, mut close_rx) = mpsc::channel::<CloseFrame>(1);
    let writer = tokio::spawn(async move {
        loop {
            // Frames already queued go out before a close.
            tokio::select! {
                biased;
                frame = rx.recv() => match frame {
                    Some(f) => {
                        let text = serde_json::to_string(&f).unwrap_or_default();
                        if sink.send(Message::Text(text.into())).await.is_err() {
                            break;
                        }
                    }
                    None => {
                        if let Ok(close) = close_rx.try_recv() {
                            let _ = sink.send(Message::Close(Some(close))).await;
                        }
                        break;
                    }
                },
                close = close_rx.recv() => {
                    let _ = sink.send(Message::Close(close)).await;
                    break;
                }
            }
        }
    });
    let close = |code: CloseCode, why: &str| CloseFrame {
        code,
        reason: Utf8Bytes::from(why.to_string()),
    };
    if !authenticated {
        authenticated = matches!(
            tokio::time::timeout(HELLO_TIMEOUT, stream.next()).await,
            Ok(Some(Ok(Message::Text(t)))) if parse_hello(&t).is_some_and(|h| gate.token.matches(&h))
        );
        if !authenticated {
            let _ = tx.try_send(error(
                "unauthorized",
                "send the token first: a hello frame, or the subprotocol `webfold pair` names",
            ));
            let _ = close_tx.try_send(close(CloseCode::Policy, "unauthorized"));
            let _ = writer.await;
            drain(&mut stream).await;
            return;
        }
    }
    let conn = hub.connect_tab(&session_id, tx.clone());
    let mut bad = 0;
    while let Some(msg) = stream.next().await {
        let reply = match msg {
            Ok(Message::Text(t)) => match answer(&hub, &session_id, &t).await {
                Ok(frame) => frame,
                Err(refusal) => {
                    bad += 1;
                    Some(refusal)
                }
            },
            Ok(Message::Binary(_)) => {
                bad += 1;
                Some(error("bad_frame", "frames are JSON text, not binary"))
            }
            Ok(Message::Close(_)) => break,
            Ok(_) => None,
            Err(e) => {
                let why = e.to_string();
                let code = if why.contains("too long") || why.contains("too big") {
                    CloseCode::Size
                } else {
                    CloseCode::Protocol
                };
                let _ = close_tx.try_send(close(code, "unreadable frame"));
                break;
            }
        };
        if let Some(r) = reply
            && tx.send(r).await.is_err()
        {
            break;
        }
        if bad >= MAX_BAD_FRAMES {
            let _ = close_tx.try_send(close(CloseCode::Policy, "too many malformed frames"));
            break;
        }
    }
    hub.disconnect_tab(&session_id, conn);
    drop(tx);
    let _ = writer.await;
    drain(&mut stream).await;
}

/// Reads until the client answers our close (or a moment passes), so the
/// socket ends with a close handshake rather than a reset.
async fn drain<S: StreamExt + Unpin>(stream: &mut S) {
    let _ = tokio::time::timeout(Duration::from_secs(2), async {
        while stream.next().await.is_some() {}
    })
    .await;
}

fn error(code: &str, message: &str) -> ServerFrame {
    ServerFrame::Error(ErrorFrame {
        code: code.into(),
        message: message.into(),
    })
}

/// The daemon's answer to one text frame from an admitted tab: `Err` is the
/// error frame for a malformed one (those count towards closing the socket);
/// `Ok(None)` for an `html` answer a waiting request took (nothing to say).
pub async fn answer(
    hub: &Hub,
    session_id: &str,
    text: &str,
) -> Result<Option<ServerFrame>, ServerFrame> {
    let frame = parse_client_frame(text).map_err(|e| error("bad_frame", &e))?;
    Ok(Some(match frame {
        ClientFrame::SetContext(c) => hub.set_context(session_id, *c).await,
        ClientFrame::UserMessage(m) if m.message.len() > MAX_USER_MESSAGE_BYTES => error(
            "too_large",
            &format!(
                "a message holds {} KB at most",
                MAX_USER_MESSAGE_BYTES >> 10
            ),
        ),
        ClientFrame::UserMessage(m) if m.message.trim().is_empty() => {
            error("bad_frame", "the message is empty")
        }
        ClientFrame::UserMessage(m) => hub.user_message(session_id, m).await,
        ClientFrame::SelectAgent(a) => hub.select_agent(session_id, &a.agent_id).await,
        ClientFrame::Ping => ServerFrame::Pong,
        ClientFrame::Html(reply) => return Ok(hub.html_reply(session_id, reply)),
        ClientFrame::GetView(v) => hub.page_view(session_id, v).await,
        ClientFrame::GetHistory(h) => hub.tab_history(session_id, h).await,
    }))
}
