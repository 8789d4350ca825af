//! The browser's messages pushed into the agent: the real `webfold daemon`,
//! a scripted WebSocket client playing the side panel, and the real
//! `webfold mcp --tools ui` driven over stdio by a scripted MCP client,
//! as Claude Code (channel events) and as a client that subscribes to the
//! inbox resource.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use webfold_daemon::auth::EXTENSION_ID;

const BIN: &str = env!("CARGO_BIN_EXE_webfold");
const WAIT: Duration = Duration::from_secs(10);
const SENDS: usize = 500;

mod support;

use support::daemon::{Daemon, daemon};

fn scratch(name: &str) -> PathBuf {
    webfold_testkit::temp_dir(&format!("channel-{name}"))
}

/// The side panel's socket for one tab.
struct Tab {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
}

impl Tab {
    async fn open(d: &Daemon) -> Tab {
        let session = format!("{:064x}", 0xc4a7_u64);
        let mut req = format!("ws://127.0.0.1:{}/ws?sessionId={session}", d.port)
            .into_client_request()
            .unwrap();
        let h = req.headers_mut();
        let origin = format!("chrome-extension://{EXTENSION_ID}");
        h.insert("origin", HeaderValue::from_str(&origin).unwrap());
        let proto = format!("webfold.token.{}", d.token);
        h.insert(
            "sec-websocket-protocol",
            HeaderValue::from_str(&proto).unwrap(),
        );
        let (ws, _) = tokio_tungstenite::connect_async(req).await.unwrap();
        Tab { ws }
    }

    async fn send(&mut self, v: Value) {
        self.ws
            .send(Message::Text(v.to_string().into()))
            .await
            .unwrap();
    }

    /// The next frame of `kind` (others, such as agents lists, skipped).
    async fn next(&mut self, kind: &str) -> Value {
        loop {
            let msg = tokio::time::timeout(WAIT, self.ws.next())
                .await
                .expect("a frame within 10 s")
                .expect("socket open")
                .expect("readable frame");
            if let Message::Text(t) = msg {
                let v: Value = serde_json::from_str(&t).unwrap();
                if v["type"] == kind {
                    return v;
                }
                assert_ne!(v["type"], "error", "{v}");
            }
        }
    }

    async fn pick(&mut self) -> String {
        self.send(json!({"type": "set_context", "payload": {
            "element": {"tagName": "BUTTON", "id": "buy", "classList": ["cta"], "textContent": "Buy now",
                        "attributes": {"type": "submit"}, "boundingBox": {"x": 10, "y": 20, "width": 80, "height": 24}},
            "ancestors": [{"tagName": "FORM", "classList": ["checkout"]}],
            "page": {"url": "http://shop.test/cart", "title": "Shop"},
            "selector": "#buy"
        }}))
        .await;
        let r = self.next("context_stored").await;
        r["payload"]["contextId"].as_str().unwrap().to_string()
    }

    async fn say(&mut self, context_id: &str, text: &str) {
        self.send(
            json!({"type": "user_message", "payload": {"contextId": context_id, "message": text}}),
        )
        .await;
    }
}

/// `webfold mcp --tools ui` as an agent of `project`, and its stdout read
/// on a thread of its own: each message with the instant it was read.
struct Agent {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::UnboundedReceiver<(Instant, Value)>,
    next_id: u64,
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Agent {
    /// Starts it and completes the handshake with `capabilities`; the
    /// agent and the `initialize` result.
    async fn start(
        home: &Path,
        project: &Path,
        client: &str,
        capabilities: Value,
    ) -> (Agent, Value) {
        let mut child = Command::new(BIN)
            .args(["mcp", "--tools", "ui", "--no-db"])
            .env("WEBFOLD_HOME", home)
            .current_dir(project)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let (tx, lines) = mpsc::unbounded_channel();
        std::thread::spawn(move || {
            for line in stdout.lines() {
                let Ok(line) = line else { return };
                let at = Instant::now();
                let v: Value = serde_json::from_str(&line).expect("JSON-RPC on stdout");
                if tx.send((at, v)).is_err() {
                    return;
                }
            }
        });
        let stdin = child.stdin.take().unwrap();
        let mut agent = Agent {
            child,
            stdin,
            lines,
            next_id: 1,
        };
        let init = agent
            .request(
                "initialize",
                json!({"protocolVersion": webfold_testkit::mcp::VERSION, "capabilities": capabilities,
                       "clientInfo": {"name": client, "version": "1"}}),
            )
            .await;
        agent.write(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        (agent, init["result"].clone())
    }

    fn write(&mut self, msg: &Value) {
        writeln!(self.stdin, "{msg}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// The next message from the server, with when it was read.
    async fn read(&mut self) -> (Instant, Value) {
        tokio::time::timeout(WAIT, self.lines.recv())
            .await
            .expect("a message within 10 s")
            .expect("the server's stdout open")
    }

    /// A request's reply; a notification read meanwhile fails the test
    /// (every one is accounted for).
    /// Subscribes to `uri`, waits for the update the server sends for it,
    /// and reads it: the resource's text.
    async fn subscribe_and_read(&mut self, uri: &str) -> String {
        let sub = self
            .request("resources/subscribe", json!({"uri": uri}))
            .await;
        assert!(sub.get("error").is_none(), "{sub}");
        let (_, updated) = self.read().await;
        assert_eq!(
            updated["method"], "notifications/resources/updated",
            "{updated}"
        );
        assert_eq!(updated["params"]["uri"], uri);
        let read = self.request("resources/read", json!({"uri": uri})).await;
        read["result"]["contents"][0]["text"]
            .as_str()
            .unwrap()
            .to_string()
    }

    async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.write(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let (_, reply) = self.read().await;
        assert_eq!(reply["id"], json!(id), "{method}: {reply}");
        reply
    }

    async fn call(&mut self, tool: &str, args: Value) -> Value {
        let r = self
            .request("tools/call", json!({"name": tool, "arguments": args}))
            .await;
        assert_eq!(r["result"]["isError"], false, "{tool}: {r}");
        r["result"].clone()
    }
}

/// The tab is open and lists the agent, so a message has it to go to.
async fn tab_with_agent(d: &Daemon) -> (Tab, String) {
    let mut tab = Tab::open(d).await;
    loop {
        let f = tab.next("agents").await;
        if f["payload"]["agents"]
            .as_array()
            .is_some_and(|a| a.len() == 1)
        {
            break;
        }
    }
    let context_id = tab.pick().await;
    (tab, context_id)
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let at = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[at]
}

#[tokio::test(flavor = "multi_thread")]
async fn each_browser_message_reaches_claude_code_once_as_a_channel_event_within_50_ms() {
    let home = scratch("event");
    let project = scratch("event-p");
    let d = daemon(&home, 0);
    let channel = json!({"experimental": {"claude/channel": {}}});
    let (mut agent, init) = Agent::start(&home, &project, "claude-code", channel).await;
    assert_eq!(
        init["capabilities"]["experimental"]["claude/channel"],
        json!({}),
        "{init}"
    );
    let instructions = init["instructions"].as_str().unwrap();
    assert!(
        instructions.contains("respond_to_browser"),
        "{instructions}"
    );
    let (mut tab, context_id) = tab_with_agent(&d).await;

    let mut latencies = Vec::with_capacity(SENDS);
    let mut last = Value::Null;
    for i in 0..SENDS {
        let said = format!("message {i}: why is this <b>grey</b>?");
        let sent = Instant::now();
        tab.say(&context_id, &said).await;
        // The next thing the agent's client reads is this message's event:
        // a repeated or stray event would be read here instead.
        let (read, event) = agent.read().await;
        latencies.push(read - sent);
        assert_eq!(event["method"], "notifications/claude/channel", "{event}");
        let content = event["params"]["content"].as_str().unwrap();
        assert!(
            content.contains(&format!("<user-message>\n{said}\n</user-message>")),
            "{content}"
        );
        assert!(
            content.contains("#buy on http://shop.test/cart"),
            "{content}"
        );
        let meta = &event["params"]["meta"];
        if i == 0 {
            println!("the first event's content:\n{content}");
            // Identifiers only: each becomes an attribute of the <channel> tag.
            let keys: Vec<&String> = meta.as_object().unwrap().keys().collect();
            assert_eq!(keys, ["context_id", "message_id", "session_id"], "{meta}");
            assert!(meta.as_object().unwrap().values().all(Value::is_string));
        }
        assert_eq!(meta["context_id"], context_id.as_str());
        let stored = tab.next("message_stored").await;
        assert_eq!(
            meta["message_id"], stored["payload"]["messageId"],
            "{event}"
        );
        last = meta.clone();
    }
    latencies.sort();
    let (p50, p99) = (percentile(&latencies, 0.50), percentile(&latencies, 0.99));
    println!(
        "panel send → channel event on the client's stdout, over {SENDS} sends: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        p50.as_secs_f64() * 1e3,
        p99.as_secs_f64() * 1e3,
        latencies[SENDS - 1].as_secs_f64() * 1e3
    );
    assert!(p99 < Duration::from_millis(50), "p99 {p99:?}");

    // The event is not new to get_ui_context: the oldest unanswered one is
    // shown once, marked as sent before, then no message at all.
    let first = agent.call("get_ui_context", json!({})).await;
    assert!(
        text(&first).contains("Sent to you before as a browser event"),
        "{first}"
    );
    // Still answerable with the event's identifiers.
    let answered = agent
        .call(
            "respond_to_browser",
            json!({"sessionId": last["session_id"], "messageId": last["message_id"],
                   "message": "It is disabled.", "isComplete": true}),
        )
        .await;
    assert_eq!(
        answered["structuredContent"]["delivered"], true,
        "{answered}"
    );
    let reply = tab.next("agent_response").await;
    assert_eq!(reply["payload"]["message"], "It is disabled.", "{reply}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_client_without_channels_hears_of_messages_through_the_inbox_resource() {
    let home = scratch("inbox");
    let project = scratch("inbox-p");
    let d = daemon(&home, 0);
    let (mut agent, init) = Agent::start(&home, &project, "editor", json!({})).await;
    assert_eq!(
        init["capabilities"]["resources"]["subscribe"], true,
        "{init}"
    );
    let listed = agent.request("resources/list", json!({})).await;
    let uri = listed["result"]["resources"][0]["uri"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(uri, "webfold://browser/inbox");
    let (mut tab, context_id) = tab_with_agent(&d).await;

    // Sent before the client subscribed: not taken from get_ui_context's
    // way (the client may never subscribe), then pushed when it does.
    tab.say(&context_id, "first").await;
    tab.next("message_stored").await;
    let inbox = agent.subscribe_and_read(&uri).await;
    assert!(
        inbox.contains("<user-message>\nfirst\n</user-message>"),
        "{inbox}"
    );

    // One more, while subscribed: one update, and the inbox holds both.
    tab.say(&context_id, "second").await;
    let stored = tab.next("message_stored").await;
    let (_, updated) = agent.read().await;
    assert_eq!(
        updated["method"], "notifications/resources/updated",
        "{updated}"
    );
    let read = agent.request("resources/read", json!({"uri": uri})).await;
    let inbox = read["result"]["contents"][0]["text"].as_str().unwrap();
    assert!(
        inbox.contains("first") && inbox.contains("second"),
        "{inbox}"
    );

    // Answered, it leaves the inbox; the other stays.
    let session = format!("{:064x}", 0xc4a7_u64);
    agent
        .call(
            "respond_to_browser",
            json!({"sessionId": session, "messageId": stored["payload"]["messageId"],
                   "message": "Done.", "isComplete": true}),
        )
        .await;
    tab.next("agent_response").await;
    let read = agent.request("resources/read", json!({"uri": uri})).await;
    let inbox = read["result"]["contents"][0]["text"].as_str().unwrap();
    assert!(
        inbox.contains("first") && !inbox.contains("second"),
        "{inbox}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_message_kept_across_a_daemon_restart_is_pushed_once_the_agent_is_back() {
    let home = scratch("restart");
    let project = scratch("restart-p");
    let d = daemon(&home, 0);
    let (mut agent, _) = Agent::start(&home, &project, "editor", json!({})).await;
    let (mut tab, context_id) = tab_with_agent(&d).await;
    // Not subscribed yet: the message waits in the daemon, which then dies.
    tab.say(&context_id, "kept").await;
    tab.next("message_stored").await;
    drop(tab);
    drop(d);
    let _d = daemon(&home, 0);
    let uri = "webfold://browser/inbox";
    // The agent's link finds the new daemon, which gives its unread message back.
    let inbox = agent.subscribe_and_read(uri).await;
    assert!(
        inbox.contains("<user-message>\nkept\n</user-message>"),
        "{inbox}"
    );
}
