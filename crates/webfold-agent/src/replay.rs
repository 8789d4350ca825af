//! A provider server on 127.0.0.1 that replays scripted replies in order,
//! in Anthropic's or OpenAI's format, whole or streamed, and records every
//! request it was sent. Tests and benches run the loop against it with no
//! network; a transcript is a list of [`Scripted`] replies.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;

use crate::message::Usage;
use crate::provider::ProviderKind;

/// One part of a scripted reply.
#[derive(Clone, Debug)]
pub enum Part {
    Text(String),
    /// A tool call; `arguments` is sent as written, so it may be broken JSON.
    Tool {
        id: String,
        name: String,
        arguments: String,
    },
}

impl Part {
    pub fn text(t: &str) -> Part {
        Part::Text(t.into())
    }

    pub fn tool(id: &str, name: &str, arguments: Value) -> Part {
        Part::Tool {
            id: id.into(),
            name: name.into(),
            arguments: arguments.to_string(),
        }
    }

    /// A tool call whose arguments are this text exactly.
    pub fn raw_tool(id: &str, name: &str, arguments: &str) -> Part {
        Part::Tool {
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
        }
    }
}

/// One scripted answer to one request.
#[derive(Clone, Debug)]
pub enum Scripted {
    /// A whole HTTP response.
    Whole {
        status: u16,
        headers: Vec<(String, String)>,
        body: String,
    },
    /// Server-sent events, one network write each; `complete: false` drops
    /// the connection after them, as a server that died mid-reply.
    Stream { events: Vec<String>, complete: bool },
    /// Reads the request and never answers.
    Hang,
    /// Holds the request until the test opens the gate (`notify_one`),
    /// then answers as `then`: how a test changes the world between two
    /// steps of the loop without racing it.
    Gated {
        open: Arc<Notify>,
        then: Box<Scripted>,
    },
}

impl Scripted {
    /// A reply in `kind`'s format, streamed or whole.
    pub fn reply(kind: ProviderKind, parts: &[Part], usage: Usage, stream: bool) -> Scripted {
        match (kind, stream) {
            (ProviderKind::Anthropic, false) => Scripted::json(200, anthropic_whole(parts, usage)),
            (ProviderKind::Anthropic, true) => Scripted::Stream {
                events: anthropic_events(parts, usage),
                complete: true,
            },
            (ProviderKind::OpenAi, false) => Scripted::json(200, openai_whole(parts, usage)),
            (ProviderKind::OpenAi, true) => Scripted::Stream {
                events: openai_events(parts, usage),
                complete: true,
            },
        }
    }

    pub fn json(status: u16, body: Value) -> Scripted {
        Scripted::Whole {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body: body.to_string(),
        }
    }

    /// An error answer in both providers' shape, with extra headers
    /// (`retry-after`, say).
    pub fn error(status: u16, message: &str, headers: &[(&str, &str)]) -> Scripted {
        let mut h: Vec<(String, String)> = vec![("content-type".into(), "application/json".into())];
        h.extend(headers.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        Scripted::Whole {
            status,
            headers: h,
            body: json!({"type": "error", "error": {"type": "api_error", "message": message}})
                .to_string(),
        }
    }
}

fn anthropic_block(p: &Part) -> Value {
    match p {
        Part::Text(t) => json!({"type": "text", "text": t}),
        Part::Tool {
            id,
            name,
            arguments,
        } => {
            let input = serde_json::from_str::<Value>(arguments)
                .unwrap_or(Value::String(arguments.clone()));
            json!({"type": "tool_use", "id": id, "name": name, "input": input})
        }
    }
}

fn stop_reason(kind: ProviderKind, parts: &[Part]) -> &'static str {
    let tools = parts.iter().any(|p| matches!(p, Part::Tool { .. }));
    match (kind, tools) {
        (ProviderKind::Anthropic, true) => "tool_use",
        (ProviderKind::Anthropic, false) => "end_turn",
        (ProviderKind::OpenAi, true) => "tool_calls",
        (ProviderKind::OpenAi, false) => "stop",
    }
}

fn anthropic_whole(parts: &[Part], usage: Usage) -> Value {
    json!({
        "id": "msg_replay", "type": "message", "role": "assistant", "model": "replay",
        "content": parts.iter().map(anthropic_block).collect::<Vec<_>>(),
        "stop_reason": stop_reason(ProviderKind::Anthropic, parts),
        "usage": {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens}
    })
}

fn sse(name: &str, data: &Value) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

fn anthropic_events(parts: &[Part], usage: Usage) -> Vec<String> {
    let mut out = vec![sse(
        "message_start",
        &json!({"type": "message_start", "message": {"id": "msg_replay", "type": "message",
            "role": "assistant", "content": [], "model": "replay",
            "usage": {"input_tokens": usage.input_tokens, "output_tokens": 1}}}),
    )];
    out.push(": keep-alive\n\n".into());
    for (i, p) in parts.iter().enumerate() {
        match p {
            Part::Text(t) => {
                out.push(sse("content_block_start", &json!({"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}})));
                // Split in two deltas, as real streams do.
                let mid = t
                    .char_indices()
                    .nth(t.chars().count() / 2)
                    .map_or(0, |(b, _)| b);
                for piece in [&t[..mid], &t[mid..]] {
                    out.push(sse("content_block_delta", &json!({"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": piece}})));
                }
            }
            Part::Tool {
                id,
                name,
                arguments,
            } => {
                out.push(sse("content_block_start", &json!({"type": "content_block_start", "index": i, "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}})));
                let mid = arguments
                    .char_indices()
                    .nth(arguments.chars().count() / 2)
                    .map_or(0, |(b, _)| b);
                for piece in [&arguments[..mid], &arguments[mid..]] {
                    out.push(sse("content_block_delta", &json!({"type": "content_block_delta", "index": i, "delta": {"type": "input_json_delta", "partial_json": piece}})));
                }
            }
        }
        out.push(sse(
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": i}),
        ));
    }
    out.push(sse("ping", &json!({"type": "ping"})));
    out.push(sse(
        "message_delta",
        &json!({"type": "message_delta", "delta": {"stop_reason": stop_reason(ProviderKind::Anthropic, parts)},
            "usage": {"output_tokens": usage.output_tokens}}),
    ));
    out.push(sse("message_stop", &json!({"type": "message_stop"})));
    out
}

fn openai_whole(parts: &[Part], usage: Usage) -> Value {
    let text: String = parts
        .iter()
        .filter_map(|p| match p {
            Part::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    let calls: Vec<Value> = parts
        .iter()
        .filter_map(|p| match p {
            Part::Tool {
                id,
                name,
                arguments,
            } => Some(json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}})),
            _ => None,
        })
        .collect();
    let mut msg = json!({"role": "assistant", "content": if text.is_empty() { Value::Null } else { Value::String(text) }});
    if !calls.is_empty() {
        msg["tool_calls"] = Value::Array(calls);
    }
    json!({
        "id": "chatcmpl-replay", "object": "chat.completion", "model": "replay",
        "choices": [{"index": 0, "message": msg, "finish_reason": stop_reason(ProviderKind::OpenAi, parts)}],
        "usage": {"prompt_tokens": usage.input_tokens, "completion_tokens": usage.output_tokens,
            "total_tokens": usage.input_tokens + usage.output_tokens}
    })
}

fn openai_events(parts: &[Part], usage: Usage) -> Vec<String> {
    let chunk = |delta: Value, finish: Value| {
        format!(
            "data: {}\n\n",
            json!({"id": "chatcmpl-replay", "object": "chat.completion.chunk", "model": "replay",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
        )
    };
    let mut out = vec![chunk(
        json!({"role": "assistant", "content": ""}),
        Value::Null,
    )];
    let mut tool_index = 0;
    for p in parts {
        match p {
            Part::Text(t) => out.push(chunk(json!({"content": t}), Value::Null)),
            Part::Tool {
                id,
                name,
                arguments,
            } => {
                out.push(chunk(
                    json!({"tool_calls": [{"index": tool_index, "id": id, "type": "function", "function": {"name": name, "arguments": ""}}]}),
                    Value::Null,
                ));
                let mid = arguments
                    .char_indices()
                    .nth(arguments.chars().count() / 2)
                    .map_or(0, |(b, _)| b);
                for piece in [&arguments[..mid], &arguments[mid..]] {
                    out.push(chunk(
                        json!({"tool_calls": [{"index": tool_index, "function": {"arguments": piece}}]}),
                        Value::Null,
                    ));
                }
                tool_index += 1;
            }
        }
    }
    out.push(chunk(
        json!({}),
        json!(stop_reason(ProviderKind::OpenAi, parts)),
    ));
    out.push(format!(
        "data: {}\n\n",
        json!({"id": "chatcmpl-replay", "object": "chat.completion.chunk", "choices": [],
            "usage": {"prompt_tokens": usage.input_tokens, "completion_tokens": usage.output_tokens}})
    ));
    out.push("data: [DONE]\n\n".into());
    out
}

/// A request the server received.
#[derive(Clone, Debug)]
pub struct Recorded {
    pub path: String,
    /// Header names lowercased.
    pub headers: Vec<(String, String)>,
    pub body: Value,
}

impl Recorded {
    /// The text of every tool result the request carries, in either format.
    pub fn tool_results(&self) -> Vec<&str> {
        let mut out = Vec::new();
        for m in self.body["messages"].as_array().into_iter().flatten() {
            if m["role"] == "tool" {
                out.extend(m["content"].as_str());
            }
            for b in m["content"].as_array().into_iter().flatten() {
                if b["type"] == "tool_result" {
                    out.extend(b["content"].as_str());
                }
            }
        }
        out
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

struct State {
    replies: std::collections::VecDeque<Scripted>,
    requests: Vec<Recorded>,
    /// Hung requests whose client closed the connection (gave up or was cancelled).
    abandoned: usize,
}

/// The server; it stops when dropped.
pub struct ReplayServer {
    addr: std::net::SocketAddr,
    state: Arc<Mutex<State>>,
    /// Told of every request received and every hang given up.
    changed: Arc<Notify>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for ReplayServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl ReplayServer {
    /// Listens on 127.0.0.1 (a free port) and answers with `replies` in order.
    pub async fn start(replies: Vec<Scripted>) -> std::io::Result<ReplayServer> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let state = Arc::new(Mutex::new(State {
            replies: replies.into(),
            requests: Vec::new(),
            abandoned: 0,
        }));
        let changed = Arc::new(Notify::new());
        let (s, g) = (state.clone(), changed.clone());
        let task = tokio::spawn(async move {
            while let Ok((sock, _)) = listener.accept().await {
                // One request per connection, answered in arrival order.
                let reply = match read_request(sock).await {
                    Some((sock, rec)) => {
                        let Ok(mut st) = s.lock() else { return };
                        st.requests.push(rec);
                        let next = st.replies.pop_front();
                        g.notify_waiters();
                        Some((sock, next))
                    }
                    None => None,
                };
                if let Some((sock, next)) = reply {
                    let (s, g) = (s.clone(), g.clone());
                    tokio::spawn(async move {
                        if answer(sock, next).await == Ended::Abandoned {
                            if let Ok(mut st) = s.lock() {
                                st.abandoned += 1;
                            }
                            g.notify_waiters();
                        }
                    });
                }
            }
        });
        Ok(ReplayServer {
            addr,
            state,
            changed,
            task,
        })
    }

    /// `http://127.0.0.1:PORT`: a base URL for either provider.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The requests received so far, in order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.state
            .lock()
            .map(|s| s.requests.clone())
            .unwrap_or_default()
    }

    /// Waits until `n` requests have been received.
    pub async fn until_received(&self, n: usize) {
        self.until(|s| s.requests.len() >= n).await
    }

    /// Waits until `n` hung requests have been given up by their client:
    /// how a test sees that a call was cancelled.
    pub async fn until_abandoned(&self, n: usize) {
        self.until(|s| s.abandoned >= n).await
    }

    async fn until(&self, done: impl Fn(&State) -> bool) {
        loop {
            let notified = self.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.state.lock().map(|s| done(&s)).unwrap_or(true) {
                return;
            }
            notified.await;
        }
    }

    /// Replies not yet sent.
    pub fn left(&self) -> usize {
        self.state.lock().map(|s| s.replies.len()).unwrap_or(0)
    }
}

/// Largest request read: the full-HTML prompt of a big page fits.
const MAX_REQUEST: usize = 256 * 1024 * 1024;

async fn read_request(mut sock: TcpStream) -> Option<(TcpStream, Recorded)> {
    let mut buf: Vec<u8> = Vec::new();
    let mut tmp = [0u8; 16 * 1024];
    let head_end = loop {
        if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break p;
        }
        let n = sock.read(&mut tmp).await.ok()?;
        if n == 0 || buf.len() > MAX_REQUEST {
            return None;
        }
        buf.extend_from_slice(&tmp[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let path = lines.next()?.split(' ').nth(1)?.to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let len: usize = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < len.min(MAX_REQUEST) {
        let n = sock.read(&mut tmp).await.ok()?;
        if n == 0 {
            return None;
        }
        body.extend_from_slice(&tmp[..n]);
    }
    let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
    Some((
        sock,
        Recorded {
            path,
            headers,
            body,
        },
    ))
}

/// How an answer ended.
#[derive(PartialEq)]
enum Ended {
    Sent,
    /// A hang the client closed.
    Abandoned,
}

async fn answer(mut sock: TcpStream, reply: Option<Scripted>) -> Ended {
    let reply =
        reply.unwrap_or_else(|| Scripted::error(400, "the replay script has no more replies", &[]));
    match reply {
        Scripted::Whole {
            status,
            headers,
            body,
        } => {
            let mut head = format!("HTTP/1.1 {status} {}\r\n", reason(status));
            for (k, v) in &headers {
                head.push_str(&format!("{k}: {v}\r\n"));
            }
            head.push_str(&format!(
                "content-length: {}\r\nconnection: close\r\n\r\n",
                body.len()
            ));
            let _ = sock.write_all(head.as_bytes()).await;
            let _ = sock.write_all(body.as_bytes()).await;
        }
        Scripted::Stream { events, complete } => {
            let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n";
            if sock.write_all(head.as_bytes()).await.is_err() {
                return Ended::Sent;
            }
            for ev in events {
                let chunk = format!("{:x}\r\n{ev}\r\n", ev.len());
                if sock.write_all(chunk.as_bytes()).await.is_err() || sock.flush().await.is_err() {
                    return Ended::Sent;
                }
            }
            if complete {
                let _ = sock.write_all(b"0\r\n\r\n").await;
            }
        }
        Scripted::Gated { open, then } => {
            open.notified().await;
            return Box::pin(answer(sock, Some(*then))).await;
        }
        Scripted::Hang => {
            // Never answers; reads until the client closes the connection.
            let mut sink = [0u8; 1024];
            while matches!(sock.read(&mut sink).await, Ok(n) if n > 0) {}
            return Ended::Abandoned;
        }
    }
    let _ = sock.shutdown().await;
    Ended::Sent
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        529 => "Overloaded",
        _ => "Status",
    }
}
