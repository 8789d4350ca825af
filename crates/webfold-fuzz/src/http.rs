//! One HTTP request to the whole bridge app (API, `/mcp`, the guard), driven
//! in-process with `oneshot`.
//!
//! The input reads as an HTTP/1.1 request: a request line `METHOD TARGET`,
//! header lines `name: value`, an empty line, the body. `{id}` anywhere in
//! the target or body stands for a conversation that exists, so the fuzzer
//! reaches the views without guessing a 128-bit id. Inputs that are not a
//! valid `http::Request` (a method or header name with a space) are skipped:
//! hyper refuses those before the app sees them, and `fallback` answers.
//!
//! Invariants: no panic, on any thread; every error response (4xx, 5xx) has
//! a JSON body.

use std::cell::RefCell;
use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, header};
use tower::ServiceExt;
use webfold_server::mcp::ToolContext;
use webfold_server::security::Policy;
use webfold_server::service::{Conversations, Freshness};
use webfold_store::{NewConversation, NewPage, SqliteOptions, SqliteStore};

use crate::panics;

/// The conversation `{id}` names.
pub const PAGE: &str = r#"<!DOCTYPE html><html><head><title>Shop</title></head><body>
<nav><a href="/a">A</a> <a href="/b">B</a></nav><main><h1>Shoes</h1><p class="intro">Light and grippy.</p>
<ul class="products"><li class="product"><a href="/p/1">One</a> <button>Add</button></li>
<li class="product"><a href="/p/2">Two</a> <button>Add</button></li></ul>
<form><label>Size <select><option>40</option><option>41</option></select></label><input name="q"></form>
</main><footer>© Shop</footer></body></html>"#;

/// Requests answered by one app before it is replaced by a fresh one: the
/// store only grows (conversations the fuzzer creates), and a fresh app keeps
/// runs comparable.
const REQUESTS_PER_APP: usize = 2048;

/// Largest response body read back.
const MAX_RESPONSE: usize = 8 << 20;

/// A request as the input spells it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HttpCase {
    pub method: String,
    pub target: String,
    pub headers: Vec<(String, Vec<u8>)>,
    pub body: Vec<u8>,
}

impl HttpCase {
    pub fn parse(bytes: &[u8]) -> HttpCase {
        let mut case = HttpCase::default();
        let mut rest = bytes;
        let mut first = true;
        loop {
            let (line, after) = match rest.iter().position(|&b| b == b'\n') {
                Some(i) => (&rest[..i], &rest[i + 1..]),
                None => (rest, &rest[rest.len()..]),
            };
            rest = after;
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if first {
                let text = String::from_utf8_lossy(line);
                let mut parts = text.splitn(3, ' ');
                case.method = parts.next().unwrap_or_default().to_string();
                case.target = parts.next().unwrap_or_default().to_string();
                first = false;
            } else if line.is_empty() {
                break;
            } else {
                let colon = line.iter().position(|&b| b == b':').unwrap_or(line.len());
                let name = String::from_utf8_lossy(&line[..colon]).trim().to_string();
                let value = line.get(colon + 1..).unwrap_or_default();
                let value = value.strip_prefix(b" ").unwrap_or(value);
                case.headers.push((name, value.to_vec()));
            }
            if rest.is_empty() {
                break;
            }
        }
        case.body = rest.to_vec();
        case
    }

    /// The request, with `{id}` replaced; `None` when it is not a valid request.
    fn request(&self, id: &str) -> Option<Request<Body>> {
        let target = self.target.replace("{id}", id);
        let mut b = Request::builder()
            .method(self.method.as_bytes())
            .uri(target);
        for (name, value) in &self.headers {
            b = b.header(name.as_str(), value.as_slice());
        }
        let body = replace(&self.body, b"{id}", id.as_bytes());
        b.body(Body::from(body)).ok()
    }
}

fn replace(haystack: &[u8], needle: &[u8], with: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(haystack.len());
    let mut i = 0;
    while i < haystack.len() {
        if haystack[i..].starts_with(needle) {
            out.extend_from_slice(with);
            i += needle.len();
        } else {
            out.push(haystack[i]);
            i += 1;
        }
    }
    out
}

/// An app over its own SQLite file, with one conversation.
struct Fixture {
    runtime: tokio::runtime::Runtime,
    app: Router,
    conversations: Arc<Conversations>,
    id: String,
    dir: PathBuf,
    served: usize,
}

impl Fixture {
    fn new() -> Fixture {
        // One directory per fixture in the process: threads (parallel tests)
        // each have their own.
        static MADE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let runtime = panics::runtime("http");
        let dir =
            std::env::temp_dir().join(format!("webfold-fuzz-http-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let store = SqliteStore::open(&dir.join("webfold.db"), SqliteOptions::default())
            .expect("a fresh SQLite store");
        let conversations = Arc::new(Conversations::new(
            Arc::new(store),
            16 << 20,
            Freshness::Exclusive,
        ));
        let tools = ToolContext {
            conversations: Some(conversations.clone()),
            ..ToolContext::default()
        };
        let app = webfold_server::app(conversations.clone(), tools, Policy::loopback(3456));
        let mut f = Fixture {
            runtime,
            app,
            conversations,
            id: String::new(),
            dir,
            served: 0,
        };
        f.ensure_conversation();
        f
    }

    /// The conversation `{id}` names exists (a request may have deleted it).
    fn ensure_conversation(&mut self) {
        let conversations = self.conversations.clone();
        let id = self.id.clone();
        self.id = self.runtime.block_on(async move {
            if let Ok(parsed) = id.parse()
                && conversations.get(parsed).await.is_ok()
            {
                return id;
            }
            let new = NewConversation {
                page: NewPage {
                    html: PAGE.into(),
                    url: Some("https://fuzz.example/shop".into()),
                    capture: None,
                },
                ..Default::default()
            };
            let (conv, _) = conversations.create(new).await.expect("create");
            conv.id.to_string()
        });
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

thread_local! {
    static FIXTURE: RefCell<Option<Fixture>> = const { RefCell::new(None) };
}

pub fn check(bytes: &[u8]) {
    check_case(&HttpCase::parse(bytes));
}

/// Checks one request; its response status, when it was a valid request.
pub fn check_case(case: &HttpCase) -> Option<u16> {
    FIXTURE.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.as_ref().is_none_or(|f| f.served >= REQUESTS_PER_APP) {
            *slot = None;
            *slot = Some(Fixture::new());
        }
        let f = slot.as_mut()?;
        f.served += 1;
        f.ensure_conversation();
        let req = case.request(&f.id)?;
        let app = f.app.clone();
        Some(panics::assert_none("http", || {
            f.runtime.block_on(answer(app, req, case))
        }))
    })
}

async fn answer(app: Router, req: Request<Body>, case: &HttpCase) -> u16 {
    let resp = match app.oneshot(req).await {
        Ok(r) => r,
        Err(e) => match e {},
    };
    let status = resp.status();
    let is_json = resp
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    let failed = status.is_client_error() || status.is_server_error();
    // A response to HEAD has no body (RFC 9110, 9.3.2); its head still says
    // what the same GET's body would be.
    if case.method == "HEAD" {
        assert!(
            !failed || is_json,
            "HEAD {}: {status} not declared as JSON",
            case.target
        );
        return status.as_u16();
    }
    // A 2xx event stream (MCP) may stay open for server messages: not read.
    if !failed && !is_json {
        return status.as_u16();
    }
    let body = axum::body::to_bytes(resp.into_body(), MAX_RESPONSE).await;
    let Ok(body) = body else {
        panic!(
            "{} {}: {status} with an unreadable body",
            case.method, case.target
        );
    };
    if failed {
        let parsed: Result<serde_json::Value, _> = serde_json::from_slice(&body);
        assert!(
            matches!(parsed, Ok(serde_json::Value::Object(_))),
            "{} {}: {status} without a JSON object body: {}",
            case.method,
            case.target,
            String::from_utf8_lossy(&body)
        );
    }
    status.as_u16()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_input_reads_as_an_http_request() {
        let c = HttpCase::parse(b"GET /x?y=1 HTTP/1.1\r\nHost: h:1\r\nA:b\n\nbody\n\nmore");
        assert_eq!(c.method, "GET");
        assert_eq!(c.target, "/x?y=1");
        assert_eq!(
            c.headers,
            [
                ("Host".into(), b"h:1".to_vec()),
                ("A".into(), b"b".to_vec())
            ]
        );
        assert_eq!(c.body, b"body\n\nmore");
        assert_eq!(HttpCase::parse(b"DELETE /").target, "/");
        assert_eq!(replace(b"a{id}b{id}", b"{id}", b"7"), b"a7b7");
    }

    #[test]
    fn requests_reach_the_views_of_the_fixture_conversation() {
        let host = "host: 127.0.0.1:3456";
        let status = |r: String| check_case(&HttpCase::parse(r.as_bytes()));
        assert_eq!(
            status(format!("GET /conversations/{{id}}/outline\n{host}\n")),
            Some(200)
        );
        assert_eq!(
            status(format!(
                "GET /conversations/{{id}}/chunk?selector=nope\n{host}\n"
            )),
            Some(404)
        );
        assert_eq!(
            status(format!("DELETE /conversations/{{id}}\n{host}\n")),
            Some(200)
        );
        // Deleted, and back for the next request.
        assert_eq!(
            status(format!("GET /conversations/{{id}}/cnt\n{host}\n")),
            Some(200)
        );
        assert_eq!(
            status("GET /health\nhost: evil.example\n".into()),
            Some(403)
        );
        assert_eq!(status("GET\x01 /\n".into()), None);
    }

    #[test]
    fn a_refused_head_request_declares_json_and_has_no_body() {
        // Found by fuzzing: the guard's 403 to HEAD has an empty body, as
        // every answer to HEAD must; the check asked it for a JSON body.
        let status = |r: &str| check_case(&HttpCase::parse(r.as_bytes()));
        assert_eq!(status("HEAD /conversations\n"), Some(403));
        assert_eq!(
            status("HEAD /conversations/{id}/outline\nhost: 127.0.0.1:3456\n"),
            Some(200)
        );
        assert_eq!(status("HEAD /nowhere\nhost: 127.0.0.1:3456\n"), Some(404));
    }
}
