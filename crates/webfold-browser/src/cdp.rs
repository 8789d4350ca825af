//! A minimal CDP connection: JSON messages over one WebSocket, responses
//! routed to their callers by id, events fanned out to subscribers. Flat
//! sessions (`sessionId` on each message) address tabs on the same socket.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::sync::{Mutex, broadcast, mpsc, oneshot};
use tokio_tungstenite::tungstenite::Message;

type Pending = Arc<std::sync::Mutex<HashMap<u64, oneshot::Sender<Result<Value, CdpError>>>>>;
/// Who hears targets' events without loss (see [`Connection::target_events`]).
type TargetListeners = Arc<std::sync::Mutex<Vec<mpsc::UnboundedSender<Event>>>>;
type WsSink = futures_util::stream::SplitSink<
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>,
    Message,
>;

#[derive(Debug, Clone, thiserror::Error)]
pub enum CdpError {
    #[error("cannot connect to the DevTools endpoint {url}: {reason}")]
    Connect { url: String, reason: String },
    #[error("DevTools method {method} failed: {message}")]
    Method { method: String, message: String },
    #[error("the browser connection closed")]
    Closed,
}

/// A CDP event: method, params and the session it belongs to.
#[derive(Clone, Debug)]
pub struct Event {
    pub method: String,
    pub params: Value,
    pub session_id: Option<String>,
}

/// One WebSocket to the browser.
pub struct Connection {
    sink: Mutex<WsSink>,
    pending: Pending,
    next_id: AtomicU64,
    events: broadcast::Sender<Event>,
    targets: TargetListeners,
}

impl Connection {
    pub async fn connect(ws_url: &str) -> Result<Arc<Connection>, CdpError> {
        let (ws, _) = tokio_tungstenite::connect_async(ws_url)
            .await
            .map_err(|e| CdpError::Connect {
                url: ws_url.to_string(),
                reason: e.to_string(),
            })?;
        let (sink, mut stream) = ws.split();
        let pending: Pending = Arc::default();
        let (events, _) = broadcast::channel(1024);
        let targets = TargetListeners::default();
        let conn = Arc::new(Connection {
            sink: Mutex::new(sink),
            pending: pending.clone(),
            next_id: AtomicU64::new(1),
            events: events.clone(),
            targets: targets.clone(),
        });
        tokio::spawn(async move {
            while let Some(Ok(msg)) = stream.next().await {
                let Message::Text(text) = msg else { continue };
                let Ok(mut v) = serde_json::from_str::<Value>(&text) else {
                    continue;
                };
                if let Some(id) = v.get("id").and_then(Value::as_u64) {
                    let waiter = pending.lock().ok().and_then(|mut p| p.remove(&id));
                    if let Some(tx) = waiter {
                        let result = match v.get("error") {
                            Some(err) => Err(CdpError::Method {
                                method: String::new(),
                                message: err
                                    .get("message")
                                    .and_then(Value::as_str)
                                    .unwrap_or("unknown error")
                                    .to_string(),
                            }),
                            // Taken, not cloned: a capture's result is megabytes.
                            None => Ok(v.get_mut("result").map(Value::take).unwrap_or(Value::Null)),
                        };
                        let _ = tx.send(result);
                    }
                } else if let Some(method) = v.get("method").and_then(Value::as_str) {
                    let method = method.to_string();
                    let session_id = v
                        .get("sessionId")
                        .and_then(Value::as_str)
                        .map(str::to_string);
                    let event = Event {
                        params: v.get_mut("params").map(Value::take).unwrap_or(Value::Null),
                        method,
                        session_id,
                    };
                    let method = event.method.as_str();
                    let of_target = method.starts_with("Target.")
                        || matches!(
                            method,
                            "Inspector.targetCrashed"
                                | "Page.frameStartedLoading"
                                | "Page.frameStoppedLoading"
                                | "Page.frameDetached"
                        );
                    if of_target && let Ok(mut listeners) = targets.lock() {
                        listeners.retain(|l| l.send(event.clone()).is_ok());
                    }
                    let _ = events.send(event);
                }
            }
            // The socket closed: fail everyone still waiting.
            if let Ok(mut p) = pending.lock() {
                for (_, tx) in p.drain() {
                    let _ = tx.send(Err(CdpError::Closed));
                }
            }
        });
        Ok(conn)
    }

    /// Subscribe before sending the command whose events you wait for.
    pub fn subscribe(&self) -> broadcast::Receiver<Event> {
        self.events.subscribe()
    }

    /// Every `Target.*` event (and those of frames loading, stopping,
    /// going and crashing) from now on, none dropped however long the
    /// receiver waits: a tab learns of its out-of-process frames from them
    /// and reads them only when it captures, so a lagging broadcast must not
    /// lose one.
    pub fn target_events(&self) -> mpsc::UnboundedReceiver<Event> {
        let (tx, rx) = mpsc::unbounded_channel();
        if let Ok(mut listeners) = self.targets.lock() {
            listeners.push(tx);
        }
        rx
    }

    /// Send a command (to a session when given) and wait for its result.
    pub async fn call(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
    ) -> Result<Value, CdpError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut msg = json!({ "id": id, "method": method, "params": params });
        if let Some(s) = session {
            msg["sessionId"] = json!(s);
        }
        let (tx, rx) = oneshot::channel();
        if let Ok(mut p) = self.pending.lock() {
            p.insert(id, tx);
        }
        self.sink
            .lock()
            .await
            .send(Message::Text(msg.to_string().into()))
            .await
            .map_err(|_| CdpError::Closed)?;
        match rx.await {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(CdpError::Method { message, .. })) => Err(CdpError::Method {
                method: method.to_string(),
                message,
            }),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(CdpError::Closed),
        }
    }
}
