//! Shared test setup: the real app over a fresh SQLite file, driven in-process.

#![allow(dead_code)]

pub mod mcp;

use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderMap, Request, StatusCode};
use serde_json::Value;
use tower::ServiceExt;
use webfold_server::mcp::ToolContext;
use webfold_server::security::Policy;
use webfold_server::service::{Conversations, Freshness};
use webfold_store::{ConversationId, SqliteOptions, SqliteStore};

pub const HOST: &str = "127.0.0.1:3456";

pub fn fresh_db() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("webfold-server-tests")
        .join(ConversationId::random().unwrap().to_string())
        .join("webfold.db")
}

pub struct TestApp {
    pub app: Router,
    pub conversations: Arc<Conversations>,
}

pub fn app_with(policy: Policy) -> TestApp {
    app_with_tools(policy, None, None)
}

/// The app with a fetcher (for `url` inputs and web_fetch) and a live browser.
pub fn app_with_tools(
    policy: Policy,
    fetcher: Option<webfold_fetch::Fetcher>,
    browser: Option<Arc<webfold_live::LiveBrowser>>,
) -> TestApp {
    app_over(policy, |conversations| ToolContext {
        conversations: Some(conversations),
        fetcher,
        browser,
        ..ToolContext::default()
    })
}

/// The app offering MCP tool `groups` (e.g. "page,browser,ui").
pub fn app_with_groups(groups: &str) -> TestApp {
    app_over(Policy::loopback(3456), |conversations| ToolContext {
        conversations: Some(conversations),
        groups: groups.parse().unwrap(),
        ..ToolContext::default()
    })
}

/// The app over a fresh database, with the tool context `tools` makes.
fn app_over(policy: Policy, tools: impl FnOnce(Arc<Conversations>) -> ToolContext) -> TestApp {
    let store = SqliteStore::open(&fresh_db(), SqliteOptions::default()).unwrap();
    let conversations = Arc::new(Conversations::new(
        Arc::new(store),
        64 << 20,
        Freshness::Exclusive,
    ));
    let tools = tools(conversations.clone());
    TestApp {
        app: webfold_server::app(conversations.clone(), tools, policy),
        conversations,
    }
}

pub fn app() -> TestApp {
    app_with(Policy::loopback(3456))
}

pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Value,
    pub raw: Vec<u8>,
}

impl TestApp {
    pub async fn send(&self, req: Request<Body>) -> Reply {
        let resp = self.app.clone().oneshot(req).await.unwrap();
        let status = resp.status();
        let headers = resp.headers().clone();
        let raw = axum::body::to_bytes(resp.into_body(), usize::MAX)
            .await
            .unwrap()
            .to_vec();
        let body = serde_json::from_slice(&raw).unwrap_or(Value::Null);
        Reply {
            status,
            headers,
            body,
            raw,
        }
    }

    pub async fn get(&self, uri: &str) -> Reply {
        self.send(
            Request::get(uri)
                .header("host", HOST)
                .body(Body::empty())
                .unwrap(),
        )
        .await
    }

    pub async fn delete(&self, uri: &str) -> Reply {
        self.send(
            Request::delete(uri)
                .header("host", HOST)
                .body(Body::empty())
                .unwrap(),
        )
        .await
    }

    pub async fn post_json(&self, uri: &str, body: &Value) -> Reply {
        self.send(
            Request::post(uri)
                .header("host", HOST)
                .header("content-type", "application/json")
                .body(Body::from(body.to_string()))
                .unwrap(),
        )
        .await
    }

    /// Creates a conversation and returns its id.
    pub async fn create(&self, html: &str) -> String {
        let r = self
            .post_json(
                "/conversations",
                &serde_json::json!({"session_id": "session-0001", "cwd": "/", "permissionMode": "ask", "jsonSchema": {}, "html": html}),
            )
            .await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.body);
        r.body["conversationId"].as_str().unwrap().to_string()
    }
}

/// `a=b&c=d` with each value percent-encoded.
pub fn query(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={}", encode(v)))
        .collect::<Vec<_>>()
        .join("&")
}

pub fn encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The app served on a real loopback socket (port 0), in this process.
pub struct Served {
    pub port: u16,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Drop for Served {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Binds 127.0.0.1:0 and serves the real app (with `configure` applied to
/// its loopback policy) through the same listener `webfold serve` uses.
pub async fn serve(configure: impl FnOnce(&mut Policy)) -> Served {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .unwrap();
    let port = listener.local_addr().unwrap().port();
    let mut policy = Policy::loopback(port);
    configure(&mut policy);
    let t = app_with(policy);
    let task = tokio::spawn(webfold_server::serve_until(
        listener,
        t.app,
        std::future::pending(),
    ));
    Served { port, task }
}

/// An answer read off the wire.
pub struct Raw {
    pub status: u16,
    /// The head, lowercase.
    pub head: String,
    pub body: Value,
    pub text: String,
}

impl Served {
    /// Sends `request` as raw bytes (the caller writes the whole head, so
    /// malformed requests are possible) and reads the answer to the close.
    pub async fn raw(&self, request: &[u8]) -> Raw {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut s = tokio::net::TcpStream::connect(("127.0.0.1", self.port))
            .await
            .unwrap();
        // The server may answer and stop reading before all is sent (an
        // oversized head): a failed write still leaves its answer to read.
        let _ = s.write_all(request).await;
        let mut out = Vec::new();
        let _ =
            tokio::time::timeout(std::time::Duration::from_secs(30), s.read_to_end(&mut out)).await;
        let text = String::from_utf8_lossy(&out).into_owned();
        let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
        let status = head
            .split(' ')
            .nth(1)
            .and_then(|c| c.parse().ok())
            .unwrap_or_else(|| panic!("no HTTP answer: {text:?}"));
        Raw {
            status,
            head: head.to_ascii_lowercase(),
            body: serde_json::from_str(body).unwrap_or(Value::Null),
            text: body.to_string(),
        }
    }

    /// A well-formed request with `Connection: close`.
    pub async fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Raw {
        let mut req = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\nContent-Length: {}\r\n",
            self.port,
            body.len()
        );
        for (k, v) in headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        req.push_str("\r\n");
        let mut bytes = req.into_bytes();
        bytes.extend_from_slice(body);
        self.raw(&bytes).await
    }
}
