//! The UI chatter daemon as the extension and agents meet it: the real
//! `webfold daemon` process, a scripted WebSocket client playing the
//! extension, and agent connections on the daemon's socket.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::{Error as WsError, Message};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use webfold_chatter_client::client::{AgentLink, Connection};
use webfold_daemon::auth::EXTENSION_ID;
use webfold_daemon::home::Home;
use webfold_testkit::free_port;
use webfold_testkit::mcp;

mod support;

use support::daemon::{Daemon, daemon};

const BIN: &str = env!("CARGO_BIN_EXE_webfold");
const WAIT: Duration = Duration::from_secs(10);

fn scratch(name: &str) -> PathBuf {
    webfold_testkit::temp_dir(&format!("daemon-{name}"))
}

fn session(n: u32) -> String {
    format!("{:064x}", 0xabc0_0000_u64 + u64::from(n))
}

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// Opens a tab's socket with the given headers; `Err` carries the HTTP status.
async fn open(
    port: u16,
    query: &str,
    origin: Option<&str>,
    protocol: Option<&str>,
    host: Option<&str>,
) -> Result<Ws, u16> {
    let mut req = format!("ws://127.0.0.1:{port}/ws{query}")
        .into_client_request()
        .unwrap();
    let h = req.headers_mut();
    if let Some(o) = origin {
        h.insert("origin", HeaderValue::from_str(o).unwrap());
    }
    if let Some(p) = protocol {
        h.insert("sec-websocket-protocol", HeaderValue::from_str(p).unwrap());
    }
    if let Some(host) = host {
        h.insert("host", HeaderValue::from_str(host).unwrap());
    }
    match tokio_tungstenite::connect_async(req).await {
        Ok((ws, resp)) => {
            assert!(resp.headers().get("access-control-allow-origin").is_none());
            Ok(ws)
        }
        Err(WsError::Http(resp)) => {
            assert!(resp.headers().get("access-control-allow-origin").is_none());
            Err(resp.status().as_u16())
        }
        Err(e) => panic!("connect failed: {e}"),
    }
}

fn origin() -> String {
    format!("chrome-extension://{EXTENSION_ID}")
}

struct Tab {
    ws: Ws,
    session: String,
}

impl Tab {
    async fn open(d: &Daemon, n: u32) -> Tab {
        let session = session(n);
        let proto = format!("webfold.token.{}", d.token);
        let ws = open(
            d.port,
            &format!("?sessionId={session}"),
            Some(&origin()),
            Some(&proto),
            None,
        )
        .await
        .expect("paired tab connects");
        Tab { ws, session }
    }

    async fn send(&mut self, v: Value) {
        self.ws
            .send(Message::Text(v.to_string().into()))
            .await
            .unwrap();
    }

    async fn send_text(&mut self, s: &str) {
        self.ws
            .send(Message::Text(s.to_string().into()))
            .await
            .unwrap();
    }

    /// The next frame that is not an agents list.
    async fn next(&mut self) -> Value {
        loop {
            let v = self.next_any().await;
            if v["type"] != "agents" {
                return v;
            }
        }
    }

    /// The next frame of type `kind`, past any other.
    async fn next_of(&mut self, kind: &str) -> Value {
        loop {
            let v = self.next_any().await;
            if v["type"] == kind {
                return v;
            }
        }
    }

    async fn next_any(&mut self) -> Value {
        loop {
            let msg = tokio::time::timeout(WAIT, self.ws.next())
                .await
                .expect("a frame within 10 s")
                .expect("socket open")
                .expect("readable frame");
            if let Message::Text(t) = msg {
                return serde_json::from_str(&t).unwrap();
            }
        }
    }

    async fn pick(&mut self, text: &str) -> String {
        self.send(json!({"type": "set_context", "payload": {
            "element": {"tagName": "BUTTON", "id": "buy", "classList": ["cta"], "textContent": text,
                        "attributes": {"type": "submit"}, "boundingBox": {"x": 10, "y": 20, "width": 80, "height": 24}},
            "ancestors": [{"tagName": "FORM", "classList": ["checkout"]}],
            "page": {"url": format!("http://shop.test/{}", &self.session[..8]), "title": "Shop"},
            "selector": "#buy",
            "html": format!("<html><head><title>Shop</title></head><body><form class=checkout><h1>Checkout</h1><button id=buy type=submit>{text}</button></form></body></html>"),
            "screenshot": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
        }}))
        .await;
        let r = self.next().await;
        assert_eq!(r["type"], "context_stored", "{r}");
        r["payload"]["contextId"].as_str().unwrap().to_string()
    }
}

async fn agent(d: &Daemon, id: &str, project: &Path) -> Connection {
    let c = Connection::open(&d.home.socket()).await.unwrap();
    c.call(
        "hello",
        json!({"agentId": id, "project": project, "client": "test"}),
    )
    .await
    .unwrap();
    c
}

#[tokio::test(flavor = "multi_thread")]
async fn only_the_paired_extension_on_loopback_gets_in() {
    let home = scratch("security");
    let d = daemon(&home, 0);
    let ok_origin = origin();
    let proto = format!("webfold.token.{}", d.token);
    let q = format!("?sessionId={}", session(1));
    let host = format!("127.0.0.1:{}", d.port);
    for (why, query, origin, protocol, host_h, status) in [
        (
            "no origin",
            q.as_str(),
            None,
            Some(proto.as_str()),
            None,
            403,
        ),
        ("null origin", &q, Some("null"), Some(&proto), None, 403),
        (
            "a web page",
            &q,
            Some("http://127.0.0.1:8000"),
            Some(&proto),
            None,
            403,
        ),
        (
            "https site",
            &q,
            Some("https://evil.example"),
            Some(&proto),
            None,
            403,
        ),
        (
            "lookalike",
            &q,
            Some("chrome-extension://jphgghmdbialbkkoccinmagdlnndaihb.evil.com"),
            Some(&proto),
            None,
            403,
        ),
        (
            "other extension",
            &q,
            Some("chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
            Some(&proto),
            None,
            403,
        ),
        (
            "rebinding host",
            &q,
            Some(&ok_origin),
            Some(&proto),
            Some("evil.example:80"),
            403,
        ),
        (
            "lookalike host",
            &q,
            Some(&ok_origin),
            Some(&proto),
            Some("127.0.0.1.evil.com"),
            403,
        ),
        ("no session", "", Some(&ok_origin), Some(&proto), None, 400),
        (
            "path session",
            "?sessionId=../../etc",
            Some(&ok_origin),
            Some(&proto),
            None,
            400,
        ),
        (
            "wrong token",
            &q,
            Some(&ok_origin),
            Some("webfold.token.0000"),
            None,
            401,
        ),
    ] {
        let got = open(d.port, query, origin, protocol, host_h).await.err();
        assert_eq!(got, Some(status), "{why}");
    }
    // The right extension with the token in its subprotocol is admitted.
    let mut ok = open(d.port, &q, Some(&ok_origin), Some(&proto), Some(&host))
        .await
        .unwrap();
    ok.send(Message::Text(r#"{"type":"ping"}"#.into()))
        .await
        .unwrap();
    // Without a subprotocol the first frame must be the token's hello.
    let mut late = open(d.port, &q, Some(&ok_origin), None, None)
        .await
        .unwrap();
    late.send(Message::Text(
        json!({"type": "hello", "token": d.token})
            .to_string()
            .into(),
    ))
    .await
    .unwrap();
    late.send(Message::Text(r#"{"type":"ping"}"#.into()))
        .await
        .unwrap();
    let mut late = Tab {
        ws: late,
        session: session(1),
    };
    assert_eq!(late.next().await["type"], "pong");
    let mut wrong = open(d.port, &q, Some(&ok_origin), None, None)
        .await
        .unwrap();
    wrong
        .send(Message::Text(r#"{"type":"hello","token":"nope"}"#.into()))
        .await
        .unwrap();
    let mut wrong = Tab {
        ws: wrong,
        session: session(1),
    };
    let e = wrong.next().await;
    assert_eq!(e["payload"]["code"], "unauthorized", "{e}");
    // Files are private to the user.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(d.home.dir()), 0o700);
        assert_eq!(mode(&d.home.token()), 0o600);
        assert_eq!(mode(&d.home.socket()), 0o600);
    }
    // One daemon per user: a second one says which is running.
    let second = Command::new(BIN)
        .args(["daemon", "--port", "0"])
        .env("WEBFOLD_HOME", &home)
        .output()
        .unwrap();
    assert!(!second.status.success());
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(
        err.contains("another webfold daemon is running") && err.contains(&d.port.to_string()),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_frames_are_named_and_repeated_ones_close_the_socket() {
    let home = scratch("frames");
    let d = daemon(&home, 0);
    let mut tab = Tab::open(&d, 2).await;
    tab.send_text(r#"{"type":"ping"}"#).await;
    assert_eq!(tab.next().await["type"], "pong");
    tab.send_text(r#"{"type":"user_message","payload":{"contextId":"c"}}"#)
        .await;
    let e = tab.next().await;
    assert_eq!(e["payload"]["code"], "bad_frame");
    assert!(
        e["payload"]["message"]
            .as_str()
            .unwrap()
            .contains("missing field `message`"),
        "{e}"
    );
    tab.send_text(r#"{"type":"user_message","payload":{"contextId":"nope","message":"hi"}}"#)
        .await;
    let e = tab.next().await;
    assert_eq!(e["payload"]["code"], "unknown_context", "{e}");
    for _ in 0..4 {
        tab.send_text("{not json").await;
        assert_eq!(tab.next().await["payload"]["code"], "bad_frame");
    }
    // The fifth bad frame closes the socket with a policy close.
    let closed = tokio::time::timeout(WAIT, async {
        loop {
            match tab.ws.next().await {
                Some(Ok(Message::Close(Some(f)))) => return Some(u16::from(f.code)),
                Some(Ok(_)) => continue,
                _ => return None,
            }
        }
    })
    .await
    .unwrap();
    assert_eq!(closed, Some(1008));
    // An oversized frame is refused without reading it whole.
    let mut big = Tab::open(&d, 3).await;
    let huge = "x".repeat(webfold_protocol::MAX_MESSAGE_BYTES + 1);
    let _ = big.ws.send(Message::Text(huge.into())).await;
    let ended = tokio::time::timeout(WAIT, async {
        loop {
            match big.ws.next().await {
                Some(Ok(Message::Close(f))) => return f.map(|f| u16::from(f.code)),
                Some(Ok(_)) => continue,
                _ => return None,
            }
        }
    })
    .await
    .unwrap();
    assert!(matches!(ended, None | Some(1009)), "{ended:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn messages_and_replies_route_across_projects_agents_and_tabs() {
    let home = scratch("routing");
    let d = daemon(&home, 0);
    let projects = [scratch("routing-p1"), scratch("routing-p2")];
    let mut agents = Vec::new();
    for (p, project) in projects.iter().enumerate() {
        for a in 0..2 {
            let id = format!("agent-p{p}-a{a}");
            agents.push((id.clone(), agent(&d, &id, project).await));
        }
    }
    let mut tabs = Vec::new();
    for t in 0..3 {
        tabs.push(Tab::open(&d, 10 + t).await);
    }
    // Every tab asks every agent, naming it.
    let mut sent = Vec::new();
    for (t, tab) in tabs.iter_mut().enumerate() {
        for (id, _) in &agents {
            let ctx = tab.pick(&format!("tab {t}")).await;
            let text = format!("tab {t} asks {id}");
            tab.send(json!({"type": "user_message", "payload": {"contextId": ctx, "message": text, "agentId": id}})).await;
            let r = tab.next().await;
            assert_eq!(r["type"], "message_stored", "{r}");
            assert_eq!(r["payload"]["agentId"], id.as_str());
            sent.push((t, id.clone(), ctx, text));
        }
    }
    // Each agent reads exactly its own messages, each with its tab and selection.
    let mut received = 0;
    for (id, conn) in &agents {
        let mine: Vec<_> = sent.iter().filter(|s| &s.1 == id).collect();
        for (t, _, ctx, text) in &mine {
            let got = conn.call("get_ui_context", json!({})).await.unwrap();
            assert_eq!(got["userMessage"], text.as_str(), "{id}: {got}");
            assert_eq!(got["sessionId"], tabs[*t].session.as_str());
            assert_eq!(got["contextId"], ctx.as_str());
            assert_eq!(got["element"]["textContent"], format!("tab {t}"));
            received += 1;
            let reply = format!("{id} answers tab {t}");
            let r = conn
                .call("respond_to_browser", json!({"sessionId": tabs[*t].session, "messageId": got["messageId"], "message": reply, "isComplete": true}))
                .await
                .unwrap();
            assert_eq!(r["delivered"], true);
        }
        // Nothing else is waiting for it.
        let rest = conn.call("get_ui_context", json!({})).await.unwrap();
        assert!(rest["userMessage"].is_null(), "{id} got more: {rest}");
    }
    assert_eq!(received, sent.len());
    // Each tab gets exactly the replies to its own messages.
    for (t, tab) in tabs.iter_mut().enumerate() {
        for (id, _) in &agents {
            let r = tab.next().await;
            assert_eq!(r["type"], "agent_response", "{r}");
            let ctx = sent
                .iter()
                .find(|s| s.0 == t && &s.1 == id)
                .unwrap()
                .2
                .clone();
            assert_eq!(r["payload"]["contextId"], ctx.as_str());
            assert_eq!(r["payload"]["message"], format!("{id} answers tab {t}"));
        }
    }
    // Without agentId, a tab's message goes to the agent it selected, and
    // with several agents and no choice it is refused with the reason.
    let tab = &mut tabs[0];
    let ctx = tab.pick("again").await;
    tab.send(json!({"type": "user_message", "payload": {"contextId": ctx, "message": "who?"}}))
        .await;
    assert_eq!(tab.next().await["payload"]["code"], "choose_agent");
    tab.send(json!({"type": "select_agent", "payload": {"agentId": "agent-p1-a0"}}))
        .await;
    let a = tab.next_any().await;
    assert_eq!(a["payload"]["selected"], "agent-p1-a0", "{a}");
    assert_eq!(a["payload"]["agents"].as_array().unwrap().len(), 4);
    tab.send(json!({"type": "user_message", "payload": {"contextId": ctx, "message": "you"}}))
        .await;
    assert_eq!(tab.next().await["payload"]["agentId"], "agent-p1-a0");
    let got = agents[2].1.call("get_ui_context", json!({})).await.unwrap();
    assert_eq!(got["userMessage"], "you");
}

#[tokio::test(flavor = "multi_thread")]
async fn streamed_answers_arrive_in_order_and_history_keeps_them() {
    let home = scratch("stream");
    let project = scratch("stream-p");
    let d = daemon(&home, 0);
    let a = agent(&d, "streamer", &project).await;
    let mut tab = Tab::open(&d, 20).await;
    let ctx = tab.pick("Buy").await;
    tab.send(
        json!({"type": "user_message", "payload": {"contextId": ctx, "message": "count to 50"}}),
    )
    .await;
    assert_eq!(tab.next().await["type"], "message_stored");
    // A waiting agent wakes when the message arrives.
    let got = a
        .call("get_ui_context", json!({"wait_seconds": 5}))
        .await
        .unwrap();
    assert_eq!(got["userMessage"], "count to 50");
    assert!(std::path::Path::new(got["screenshotPath"].as_str().unwrap()).exists());
    for i in 0..50 {
        a.call("respond_to_browser", json!({"sessionId": tab.session, "messageId": got["messageId"], "message": format!("{i} "), "isComplete": false}))
            .await
            .unwrap();
    }
    a.call(
        "update_status",
        json!({"sessionId": tab.session, "status": "editing", "detail": "Button.tsx"}),
    )
    .await
    .unwrap();
    a.call(
        "respond_to_browser",
        json!({"sessionId": tab.session, "messageId": got["messageId"], "message": "done", "isComplete": true}),
    )
    .await
    .unwrap();
    let mut whole = String::new();
    for i in 0..50 {
        let c = tab.next().await;
        assert_eq!(c["type"], "agent_response_chunk", "{c}");
        assert_eq!(c["payload"]["chunk"], format!("{i} "));
        whole.push_str(&format!("{i} "));
    }
    let s = tab.next().await;
    assert_eq!(s["payload"]["status"], "editing");
    let done = tab.next().await;
    assert_eq!(done["payload"]["isComplete"], true);
    assert_eq!(done["payload"]["message"], format!("{whole}done"));
    let h = a
        .call(
            "get_conversation_history",
            json!({"sessionId": tab.session}),
        )
        .await
        .unwrap();
    assert_eq!(roles(&h), ["user", "assistant"]);
    assert!(project.join(".webfold/history.db").exists());
    assert_eq!(
        std::fs::read_to_string(project.join(".webfold/.gitignore"))
            .unwrap()
            .lines()
            .last(),
        Some("*")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_acknowledged_message_survives_kill_9() {
    let home = scratch("kill");
    let project = scratch("kill-p");
    let mut d = daemon(&home, 0);
    {
        let _a = agent(&d, "survivor", &project).await;
        let mut tab = Tab::open(&d, 30).await;
        let ctx = tab.pick("Buy").await;
        tab.send(
            json!({"type": "user_message", "payload": {"contextId": ctx, "message": "keep me"}}),
        )
        .await;
        assert_eq!(tab.next().await["type"], "message_stored");
        d = d.kill_and_restart();
    }
    let a = agent(&d, "survivor", &project).await;
    let got = a.call("get_ui_context", json!({})).await.unwrap();
    assert_eq!(got["userMessage"], "keep me", "{got}");
    let h = a
        .call(
            "get_conversation_history",
            json!({"sessionId": session(30)}),
        )
        .await
        .unwrap();
    assert_eq!(h["messages"][0]["content"], "keep me");
    // The tab reconnects to the restarted daemon on the same port.
    let mut tab = Tab::open(&d, 30).await;
    tab.send_text(r#"{"type":"ping"}"#).await;
    assert_eq!(tab.next().await["type"], "pong");
}

/// An agent's `get_live_html` call, running while the test plays the tab.
fn ask_live(
    a: &Arc<Connection>,
    session: &str,
    selector: &str,
) -> tokio::task::JoinHandle<Result<Value, String>> {
    let (a, params) = (
        a.clone(),
        json!({"sessionId": session, "selector": selector}),
    );
    tokio::spawn(async move {
        a.call("get_live_html", params)
            .await
            .map_err(|e| e.to_string())
    })
}

#[tokio::test(flavor = "multi_thread")]
async fn live_html_comes_from_the_tab_and_a_gone_tab_says_so() {
    let home = scratch("live");
    let project = scratch("live-p");
    let d = daemon(&home, 0);
    let a = Arc::new(agent(&d, "reader", &project).await);
    let mut tab = Tab::open(&d, 40).await;
    tab.pick("Buy").await;

    // The agent asks; the daemon asks the tab, which answers with its page now.
    let asking = ask_live(&a, &tab.session, "#buy");
    let req = tab.next().await;
    assert_eq!(req["type"], "get_html", "{req}");
    assert_eq!(req["payload"]["selector"], "#buy");
    let id = req["payload"]["requestId"].as_str().unwrap().to_string();
    let answer = json!({"type": "html", "payload": {"requestId": id, "matches": 1,
        "url": "http://shop.test/now", "html": "<html><body><button id=buy>Sold out</button></body></html>"}});
    tab.send(answer.clone()).await;
    let live = asking.await.unwrap().unwrap();
    assert!(
        live["html"].as_str().unwrap().contains("Sold out"),
        "{live}"
    );
    assert_eq!(live["matches"], 1);
    assert_eq!(live["url"], "http://shop.test/now");
    // The same answer again: nothing waits for it any more.
    tab.send(answer).await;
    let late = tab.next().await;
    assert_eq!(late["payload"]["code"], "unknown_request", "{late}");

    // The selector matches nothing in the live page: the tab's reason comes back.
    let asking = ask_live(&a, &tab.session, "#gone");
    let req = tab.next().await;
    let id = req["payload"]["requestId"].as_str().unwrap().to_string();
    tab.send(json!({"type": "html", "payload": {"requestId": id,
        "error": "no element matches #gone in the page now"}}))
        .await;
    let e = asking.await.unwrap().unwrap_err();
    assert!(e.contains("no element matches #gone"), "{e}");

    // The tab closes while a request waits: the call fails then, not at its timeout.
    let asking = ask_live(&a, &tab.session, "#buy");
    assert_eq!(tab.next().await["type"], "get_html");
    let closed = Instant::now();
    tab.ws.close(None).await.unwrap();
    let e = asking.await.unwrap().unwrap_err();
    assert!(e.contains("disconnected before it answered"), "{e}");
    assert!(
        closed.elapsed() < Duration::from_secs(5),
        "{:?}",
        closed.elapsed()
    );

    // The tab is gone: a clear error at once, saying what to do.
    let asked = Instant::now();
    let e = ask_live(&a, &session(40), "#buy")
        .await
        .unwrap()
        .unwrap_err();
    assert!(
        e.contains("not connected") && e.contains("pick again"),
        "{e}"
    );
    assert!(asked.elapsed() < Duration::from_secs(2));
    let e = ask_live(&a, &session(41), "#buy")
        .await
        .unwrap()
        .unwrap_err();
    assert!(e.contains("not connected"), "{e}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_panel_gets_the_cnt_and_outline_of_the_captured_page() {
    let home = scratch("view");
    let project = scratch("view-p");
    let d = daemon(&home, 0);
    let _a = agent(&d, "viewer", &project).await;
    let mut tab = Tab::open(&d, 50).await;
    tab.send(json!({"type": "get_view", "payload": {"requestId": "v0", "view": "cnt"}}))
        .await;
    let none = tab.next().await;
    assert_eq!(none["type"], "view");
    assert!(
        none["payload"]["error"]
            .as_str()
            .unwrap()
            .contains("pick an element"),
        "{none}"
    );
    tab.pick("Buy now").await;
    tab.send(json!({"type": "get_view", "payload": {"requestId": "v1", "view": "cnt"}}))
        .await;
    let v = tab.next().await;
    let p = &v["payload"];
    assert_eq!(
        (p["requestId"].as_str(), p["view"].as_str()),
        (Some("v1"), Some("cnt")),
        "{v}"
    );
    assert!(p["tokens"].as_u64().unwrap() > 0);
    let lines = p["lines"].as_array().unwrap();
    let buy = lines
        .iter()
        .find(|l| l["text"].as_str().unwrap().contains("Buy now"))
        .unwrap_or_else(|| panic!("{v}"));
    assert_eq!(buy["selector"], "#buy");
    tab.send(json!({"type": "get_view", "payload": {"requestId": "v2", "view": "outline"}}))
        .await;
    let o = tab.next().await;
    let lines = o["payload"]["lines"].as_array().unwrap();
    let tokens: Vec<u64> = lines
        .iter()
        .map(|l| l["tokens"].as_u64().unwrap())
        .collect();
    assert!(
        tokens.len() > 2 && tokens[0] > tokens[tokens.len() - 1],
        "{o}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l["text"].as_str().unwrap().contains("form.checkout")),
        "{o}"
    );
}

/// Who spoke, in order, in a `get_conversation_history` answer.
fn roles(history: &Value) -> Vec<&str> {
    history["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| m["role"].as_str().unwrap_or("?"))
        .collect()
}

/// The next agents list naming `agent`, within `deadline`.
async fn agents_naming(tab: &mut Tab, agent: &str, deadline: Instant) -> Value {
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let frame = tokio::time::timeout(left, tab.next_any())
            .await
            .unwrap_or_else(|_| panic!("{agent} not listed in time"));
        let named = frame["payload"]["agents"]
            .as_array()
            .is_some_and(|a| a.iter().any(|x| x["agentId"] == agent));
        if frame["type"] == "agents" && named {
            return frame;
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn tabs_and_agents_find_a_restarted_daemon_within_2_s() {
    let home = scratch("restart");
    let project = scratch("restart-p");
    let d = daemon(&home, 0);
    let link = Arc::new(AgentLink::new(
        d.home.clone(),
        PathBuf::from(BIN),
        project.clone(),
        "test".into(),
    ));
    link.announce().await.unwrap();
    link.keep_announced();
    let mut tab = Tab::open(&d, 50).await;
    agents_naming(&mut tab, link.agent_id(), Instant::now() + WAIT).await;
    let restarted = Instant::now();
    let d = d.kill_and_restart();
    // The extension's reconnect: the same session, the same port.
    let mut tab = Tab::open(&d, 50).await;
    let back = restarted.elapsed();
    assert!(back < Duration::from_secs(2), "tab back after {back:?}");
    // The agent announces itself again, unprompted, and the tab is told.
    agents_naming(
        &mut tab,
        link.agent_id(),
        restarted + Duration::from_secs(2),
    )
    .await;
    eprintln!(
        "tab back after {back:?}, agent listed after {:?}",
        restarted.elapsed()
    );
    // And messages reach it.
    let ctx = tab.pick("Buy").await;
    tab.send(
        json!({"type": "user_message", "payload": {"contextId": ctx, "message": "still there?"}}),
    )
    .await;
    assert_eq!(tab.next().await["payload"]["agentId"], link.agent_id());
    let got = link.call("get_ui_context", json!({})).await.unwrap();
    assert_eq!(got["userMessage"], "still there?");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_python_sdk_agent_reads_the_pick_and_answers_the_tab() {
    let clients = support::mcp_clients();
    let home = scratch("sdk");
    let project = scratch("sdk-p");
    let d = daemon(&home, 0);
    let mut tab = Tab::open(&d, 60).await;
    let agent = Command::new(clients.join("venv/bin/python"))
        .arg(support::repo().join("crates/webfold/tests/mcp_clients/ui_agent.py"))
        .args([Path::new(BIN), &project, &home.join("agent.db")])
        .env("WEBFOLD_HOME", &home)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The agent's `webfold mcp` announces itself when it starts.
    let listed = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            let f = tab.next_any().await;
            if f["type"] == "agents"
                && f["payload"]["agents"]
                    .as_array()
                    .is_some_and(|a| a.len() == 1)
            {
                return f;
            }
        }
    })
    .await
    .expect("the agent's server joins the daemon");
    let at = listed["payload"]["agents"][0]["project"].as_str().unwrap();
    assert!(
        at.ends_with(project.file_name().unwrap().to_str().unwrap()),
        "{listed}"
    );
    let ctx = tab.pick("Buy").await;
    tab.send(json!({"type": "user_message", "payload": {"contextId": ctx, "message": "what colour is this?"}}))
        .await;
    assert_eq!(tab.next().await["type"], "message_stored");
    let status = tab.next().await;
    assert_eq!(status["payload"]["status"], "thinking", "{status}");
    for part in ["The ", "button ", "is "] {
        let c = tab.next().await;
        assert_eq!(c["type"], "agent_response_chunk", "{c}");
        assert_eq!(c["payload"]["chunk"], part);
    }
    let done = tab.next().await;
    assert_eq!(
        done["payload"]["message"], "The button is **blue**.",
        "{done}"
    );
    assert_eq!(done["payload"]["isComplete"], true);

    let out = tokio::task::spawn_blocking(move || agent.wait_with_output())
        .await
        .unwrap()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "python agent failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen: Value = serde_json::from_str(stdout.lines().last().unwrap_or("")).unwrap();
    assert_eq!(seen["context"]["userMessage"], "what colour is this?");
    assert_eq!(seen["context"]["sessionId"], tab.session.as_str());
    assert_eq!(seen["context"]["selector"], "#buy");
    // The page tools read the page the user saw.
    let outline = seen["outline"].as_str().unwrap();
    assert!(
        outline.contains("Checkout") && outline.contains("Buy"),
        "{outline}"
    );
    assert_eq!(roles(&seen["history"]), ["user", "assistant"]);
}

/// `webfold` with the daemon's home, in `dir`.
fn cli(d: &Daemon, dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(BIN)
        .args(args)
        .env("WEBFOLD_HOME", d.home.dir())
        .current_dir(dir)
        .output()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn pair_doctor_and_ui_speak_for_the_daemon() {
    let home = scratch("cli");
    let project = scratch("cli-p");
    let d = daemon(&home, 0);
    // `pair --json` alone is enough to connect.
    let pair: Value =
        serde_json::from_slice(&cli(&d, &project, &["pair", "--json"]).stdout).unwrap();
    assert_eq!(pair["ws_url"], format!("ws://127.0.0.1:{}/ws", d.port));
    assert_eq!(pair["origin"], origin());
    assert_eq!(pair["auth"], "subprotocol");
    assert_eq!(pair["subprotocol"], format!("webfold.token.{}", d.token));
    let url = pair["ws_url"].as_str().unwrap();
    let port: u16 = url
        .rsplit(':')
        .next()
        .unwrap()
        .trim_end_matches("/ws")
        .parse()
        .unwrap();
    let mut tabs = Vec::new();
    for n in [70, 71] {
        let ws = open(
            port,
            &format!("?sessionId={}", session(n)),
            pair["origin"].as_str(),
            pair["subprotocol"].as_str(),
            None,
        )
        .await
        .expect("a client built from pair --json connects");
        tabs.push(Tab {
            ws,
            session: session(n),
        });
    }
    let a = agent(&d, "cli-agent", &project).await;
    // The UI tools' declared ranges are refused with the range, as views' are.
    let e = a
        .call("get_ui_context", json!({"wait_seconds": 601}))
        .await
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "wait_seconds must be a whole number from 0 to 600, not 601"
    );
    let e = a
        .call(
            "get_conversation_history",
            json!({"sessionId": session(70), "limit": 0}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "limit must be a whole number from 1 to 200, not 0"
    );
    for (i, tab) in tabs.iter_mut().enumerate() {
        tab.pick(&format!("tab {i}")).await;
    }
    // The project's tabs, newest first; `ui 2` makes the older one the default.
    let listed: Value =
        serde_json::from_slice(&cli(&d, &project, &["ui", "list", "--json"]).stdout).unwrap();
    let ids: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["sessionId"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [session(71), session(70)]);
    // #2 stays the tab the list showed as #2 when it becomes the newest.
    tabs[0].pick("tab 0 again").await;
    let picked = cli(&d, &project, &["ui", "#2"]);
    assert!(picked.status.success());
    assert!(String::from_utf8_lossy(&picked.stdout).contains("now read #2"));
    let got = a.call("get_ui_context", json!({})).await.unwrap();
    assert_eq!(got["sessionId"], session(70), "{got}");
    let wrong = cli(&d, &project, &["ui", "9"]);
    assert!(!wrong.status.success());
    assert!(
        String::from_utf8_lossy(&wrong.stderr).contains("'9' is not a tab number"),
        "{wrong:?}"
    );
    // doctor: every daemon-side check passes; a stopped daemon is named with its fix.
    let checks: Value =
        serde_json::from_slice(&cli(&d, &project, &["doctor", "--json"]).stdout).unwrap();
    let ok = |name: &str| {
        checks
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["check"] == name)
            .map(|c| c["ok"] == true)
    };
    for name in ["home", "daemon", "port", "token", "pairing", "registry"] {
        assert_eq!(ok(name), Some(true), "{name}: {checks}");
    }
    let home_dir = d.home.dir().to_owned();
    drop(d);
    let stopped = Command::new(BIN)
        .args(["doctor"])
        .env("WEBFOLD_HOME", &home_dir)
        .current_dir(&project)
        .output()
        .unwrap();
    assert!(!stopped.status.success());
    let text = String::from_utf8_lossy(&stopped.stdout);
    assert!(
        text.contains("!!  daemon") && text.contains("fix: webfold daemon"),
        "{text}"
    );
}

/// `webfold ARGS | head -0`: the reader has gone before the command writes.
fn into_closed_pipe(d: &Daemon, dir: &Path, args: &[&str]) -> std::process::Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    Command::new(BIN)
        .args(args)
        .env("WEBFOLD_HOME", d.home.dir())
        .current_dir(dir)
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_closed_pipe_ends_every_command_quietly() {
    let home = scratch("pipe");
    let project = scratch("pipe-p");
    let d = daemon(&home, 0);
    let mut tab = Tab::open(&d, 80).await;
    let _agent = agent(&d, "pipe-agent", &project).await;
    tab.pick("piped").await;
    for args in [
        &["pair"][..],
        &["pair", "--json"],
        &["doctor"],
        &["doctor", "--json"],
        &["ui", "list"],
        &["ui", "list", "--json"],
        &["ui", "1"],
    ] {
        let read = cli(&d, &project, args);
        assert!(!read.stdout.is_empty(), "{args:?} prints something");
        let closed = into_closed_pipe(&d, &project, args);
        let err = String::from_utf8_lossy(&closed.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(!err.contains("Broken pipe"), "{args:?}: {err}");
        // The same verdict as with a reader: doctor's own status, else success.
        assert_eq!(closed.status.code(), read.status.code(), "{args:?}: {err}");
        assert_ne!(closed.status.code(), Some(101), "{args:?}: {err}");
    }
}

/// Before any tab has been bound to a project there is no registry file:
/// doctor says so rather than vouching for a file that is not there.
#[test]
fn doctor_reports_the_registry_as_it_is() {
    let home = scratch("registry");
    let run = |args: &[&str]| {
        Command::new(BIN)
            .args(args)
            .env("WEBFOLD_HOME", &home)
            .current_dir(&home)
            .output()
            .unwrap()
    };
    assert!(run(&["pair"]).status.success());
    let registry = Home::at(home.clone()).registry();
    assert!(!registry.exists());
    let checks: Value = serde_json::from_slice(&run(&["doctor", "--json"]).stdout).unwrap();
    let check = checks
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "registry")
        .unwrap();
    assert_eq!(
        check["detail"],
        format!(
            "{} not yet created: a tab is written there once it picks or chooses an agent",
            registry.display()
        )
    );
    std::fs::write(&registry, "{}").unwrap();
    let checks: Value = serde_json::from_slice(&run(&["doctor", "--json"]).stdout).unwrap();
    let detail = checks
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "registry")
        .unwrap()["detail"]
        .clone();
    assert_eq!(
        detail,
        format!("{} (0 tab(s) of this project)", registry.display())
    );
}

#[test]
fn a_daemon_port_variable_that_is_not_a_port_is_refused() {
    let home = scratch("bad-port");
    for bad in ["abc", "99999", "0", "-1", "3457x"] {
        let run = |args: &[&str]| {
            Command::new(BIN)
                .args(args)
                .env("WEBFOLD_HOME", &home)
                .env("WEBFOLD_DAEMON_PORT", bad)
                .current_dir(&home)
                .stdin(Stdio::null())
                .output()
                .unwrap()
        };
        let want = format!(
            "WEBFOLD_DAEMON_PORT is '{bad}', not a port: set it to a number from 1 to 65535"
        );
        // `pair` first: a daemon that took the bad value would run on, not fail.
        for args in [&["pair"][..], &["daemon"]] {
            let o = run(args);
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(1), "{args:?} {bad:?}: {err}");
            assert!(
                err.starts_with(&format!("error: {want}")),
                "{args:?}: {err}"
            );
            assert_eq!(err.lines().count(), 1, "{err}");
        }
        assert!(
            webfold_daemon::daemon::Endpoint::read(&Home::at(home.clone())).is_none(),
            "no daemon started on another port"
        );
        let o = run(&["doctor"]);
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(text.contains(&format!("!!  port       {want}")), "{text}");
    }
    // An agent does not start a daemon on a port nobody chose either.
    let mut agent = Command::new(BIN)
        .args(["mcp", "--tools", "ui", "--no-db"])
        .env("WEBFOLD_HOME", &home)
        .env("WEBFOLD_DAEMON_PORT", "99999")
        .current_dir(&home)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(agent.stdin.take());
    let mut err = String::new();
    std::io::Read::read_to_string(&mut agent.stderr.take().unwrap(), &mut err).unwrap();
    agent.wait().unwrap();
    assert!(
        err.contains("WEBFOLD_DAEMON_PORT is '99999', not a port"),
        "{err}"
    );
    assert!(webfold_daemon::daemon::Endpoint::read(&Home::at(home.clone())).is_none());
}

#[test]
fn an_agent_starts_the_daemon_when_none_runs() {
    let home = scratch("autostart");
    let project = scratch("autostart-p");
    let port = free_port();
    let (mut agent, mut client, _) = mcp::start(
        Command::new(BIN)
            .args(["mcp", "--tools", "ui", "--no-db"])
            .env("WEBFOLD_HOME", &home)
            .env("WEBFOLD_DAEMON_PORT", port.to_string())
            .current_dir(&project)
            .stderr(Stdio::null()),
    );
    let reply = client.request(
        "tools/call",
        json!({"name": "list_sessions", "arguments": {}}),
    );
    assert_eq!(reply["result"]["isError"], false, "{reply}");
    let text = reply["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("No browser tabs yet"), "{text}");
    client.close();
    assert!(agent.wait().unwrap().success());
    // The daemon it started outlives it, on the port asked for.
    let endpoint = webfold_daemon::daemon::Endpoint::read(&Home::at(home.clone())).unwrap();
    assert_eq!(endpoint.port, port);
    assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_ok());
    let stopped = Command::new("kill")
        .arg(endpoint.pid.to_string())
        .status()
        .unwrap();
    assert!(stopped.success());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tab_that_lost_its_chat_gets_it_back_from_the_daemon() {
    let home = scratch("history");
    let project = scratch("history-p");
    let d = daemon(&home, 0);
    let a = agent(&d, "historian", &project).await;
    {
        let mut tab = Tab::open(&d, 60).await;
        tab.send(json!({"type": "get_history", "payload": {}}))
            .await;
        let none = tab.next().await;
        assert_eq!(none["type"], "history", "{none}");
        assert_eq!(none["payload"]["messages"], json!([]), "{none}");
        let ctx = tab.pick("Buy").await;
        for text in ["first", "second"] {
            tab.send(
                json!({"type": "user_message", "payload": {"contextId": ctx, "message": text}}),
            )
            .await;
            tab.next_of("message_stored").await;
            let got = a.call("get_ui_context", json!({})).await.unwrap();
            a.call("respond_to_browser", json!({"sessionId": tab.session, "messageId": got["messageId"], "message": format!("re {text}"), "isComplete": true}))
                .await
                .unwrap();
            tab.next_of("agent_response").await;
        }
    }
    // The browser restarted: the same session, a new socket, an empty panel.
    let mut tab = Tab::open(&d, 60).await;
    tab.send(json!({"type": "get_history", "payload": {"limit": 3}}))
        .await;
    let h = tab.next_of("history").await;
    assert_eq!(
        webfold_testkit::conversation(&h["payload"]["messages"]),
        [
            "assistant: re first",
            "user: second",
            "assistant: re second"
        ],
        "the latest three, oldest first: {h}"
    );
    assert!(h["payload"]["messages"][1]["messageId"].is_string(), "{h}");
    assert!(h["payload"]["messages"][1]["timestamp"].as_i64().unwrap() > 0);
    // A bad limit is the frame's error, not a dropped socket.
    tab.send(json!({"type": "get_history", "payload": {"limit": "all"}}))
        .await;
    let e = tab.next().await;
    assert_eq!(
        (e["type"].as_str(), e["payload"]["code"].as_str()),
        (Some("error"), Some("bad_frame")),
        "{e}"
    );
    tab.send(json!({"type": "get_history", "payload": {"limit": 0}}))
        .await;
    let one = tab.next_of("history").await;
    assert_eq!(
        one["payload"]["messages"].as_array().unwrap().len(),
        1,
        "{one}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_message_sent_with_no_agent_waits_for_the_next_one() {
    let home = scratch("waiting");
    let project = scratch("waiting-p");
    let d = daemon(&home, 0);
    let mut tab = Tab::open(&d, 70).await;
    let ctx = tab.pick("Buy").await;
    tab.send(
        json!({"type": "user_message", "payload": {"contextId": ctx, "message": "anyone there?"}}),
    )
    .await;
    let waiting = tab.next_of("message_waiting").await;
    assert_eq!(waiting["payload"]["contextId"], ctx.as_str(), "{waiting}");
    // An agent connects: the message is its, the tab is told whose.
    let a = agent(&d, "late", &project).await;
    let stored = tab.next_of("message_stored").await;
    assert_eq!(stored["payload"]["agentId"], "late", "{stored}");
    let got = a.call("get_ui_context", json!({})).await.unwrap();
    assert_eq!(got["userMessage"], "anyone there?", "{got}");
    assert_eq!(got["messageId"], stored["payload"]["messageId"], "{got}");
    a.call("respond_to_browser", json!({"sessionId": tab.session, "messageId": got["messageId"], "message": "here", "isComplete": true}))
        .await
        .unwrap();
    let answer = tab.next_of("agent_response").await;
    assert_eq!(answer["payload"]["message"], "here", "{answer}");
    // Taken once: nothing more waits for the next agent.
    let b = agent(&d, "later", &project).await;
    let none = b.call("get_ui_context", json!({})).await.unwrap();
    assert!(none["userMessage"].is_null(), "{none}");
}
