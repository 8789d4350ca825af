//! An MCP client over the in-process `/mcp` endpoint: JSON-RPC requests
//! posted as a real client would, replies read from JSON or SSE.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::{Value, json};

use super::{HOST, TestApp};

pub struct Session<'a> {
    t: &'a TestApp,
    id: Option<String>,
    version: String,
    next: u64,
}

impl<'a> Session<'a> {
    pub async fn open(t: &'a TestApp, version: &str) -> (Session<'a>, Value) {
        let mut s = Session {
            t,
            id: None,
            version: version.into(),
            next: 1,
        };
        let init = s
            .request(
                "initialize",
                json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}),
            )
            .await;
        s.notify("notifications/initialized").await;
        (s, init)
    }

    pub fn post(&self, body: &Value) -> Request<Body> {
        let mut b = Request::post("/mcp")
            .header("host", HOST)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", &self.version);
        if let Some(id) = &self.id {
            b = b.header("mcp-session-id", id);
        }
        b.body(Body::from(body.to_string())).unwrap()
    }

    pub async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        let r = self
            .t
            .send(
                self.post(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})),
            )
            .await;
        assert_eq!(
            r.status,
            StatusCode::OK,
            "{method}: {}",
            String::from_utf8_lossy(&r.raw)
        );
        if let Some(sid) = r.headers.get("mcp-session-id") {
            self.id = Some(sid.to_str().unwrap().to_string());
        }
        let text = String::from_utf8(r.raw).unwrap();
        // The answer is an SSE stream (or plain JSON): find the message with our id.
        let candidates: Vec<Value> = if text.trim_start().starts_with('{') {
            vec![serde_json::from_str(&text).unwrap()]
        } else {
            text.lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .filter_map(|d| serde_json::from_str(d.trim()).ok())
                .collect()
        };
        candidates
            .into_iter()
            .find(|m| m["id"] == json!(id))
            .unwrap_or_else(|| panic!("no reply to {method}: {text}"))
    }

    /// Ends the session as a client does on close: `DELETE /mcp` with its id.
    pub async fn close(&self) -> super::Reply {
        let id = self.id.as_deref().expect("an open session");
        self.t
            .send(
                Request::delete("/mcp")
                    .header("host", HOST)
                    .header("mcp-session-id", id)
                    .header("mcp-protocol-version", &self.version)
                    .body(Body::empty())
                    .unwrap(),
            )
            .await
    }

    pub async fn notify(&self, method: &str) {
        let r = self
            .t
            .send(self.post(&json!({"jsonrpc": "2.0", "method": method})))
            .await;
        assert!(r.status.is_success(), "{method}: {}", r.status);
    }

    pub async fn call(&mut self, tool: &str, args: Value) -> Value {
        let reply = self
            .request("tools/call", json!({"name": tool, "arguments": args}))
            .await;
        reply["result"].clone()
    }
}

pub fn text_of(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// The page content of a tool result: its text between the delimiters
/// (structured content carries figures, not the view again).
pub fn page_text(r: &Value) -> String {
    let text = r["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {r}"));
    let start = text
        .find("<page-content>\n")
        .unwrap_or_else(|| panic!("no page content in {r}"))
        + 15;
    let end = text.rfind("\n</page-content>").unwrap_or(text.len());
    text[start..end].to_string()
}

/// The line the stdio server writes in answer to `tools/list` for `groups`,
/// byte for byte (served in process over a pipe).
pub async fn stdio_tools_list(groups: &str) -> String {
    use rmcp::ServiceExt;
    use webfold_server::mcp::{ToolContext, WebfoldTools};
    let ctx = ToolContext {
        groups: groups.parse().unwrap(),
        ..ToolContext::default()
    };
    let (client, server) = tokio::io::duplex(1 << 20);
    let (server_read, server_write) = tokio::io::split(server);
    let serving = tokio::spawn(async move {
        let running = WebfoldTools::new(ctx)
            .serve((server_read, server_write))
            .await
            .expect("the handshake is accepted");
        let _ = running.waiting().await;
    });
    let (client_read, client_write) = tokio::io::split(client);
    let answer =
        webfold_testkit::mcp::ask_over(client_read, client_write, "tools/list", Value::Null).await;
    serving.await.unwrap();
    answer
}
