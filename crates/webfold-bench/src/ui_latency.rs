//! The UI chatter round trip: from a tab's `user_message` to the agent's
//! `get_ui_context` returning it, and from the agent's `respond_to_browser`
//! to the tab's `agent_response`, through real `webfold daemon` processes on
//! loopback. The agent waits (`wait_seconds`) as a coding agent does.
//! `instances` runs the same with the tab and the agent on two daemons that
//! share a PostgreSQL database.
//!
//! `webfold-bench ui-latency --binary target/release/webfold [--round-trips N]`

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use webfold_chatter_client::client::Connection;
use webfold_daemon::auth::EXTENSION_ID;
use webfold_daemon::home::Home;

pub struct Daemon(Child);

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub fn main(args: &[String]) -> anyhow::Result<()> {
    let mut binary = PathBuf::from("target/release/webfold");
    let mut rounds = 1000usize;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--binary" => binary = it.next().context("--binary needs a path")?.into(),
            "--round-trips" => {
                rounds = it.next().context("--round-trips needs a number")?.parse()?
            }
            other => bail!("unknown option {other}; use --binary PATH, --round-trips N"),
        }
    }
    let home = std::env::temp_dir().join(format!("webfold-ui-latency-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home)?;
    let _daemon = start(&binary, &home, &[])?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let home = Home::at(home);
    let times = runtime.block_on(round_trips(&home, &home, rounds))?;
    let _ = std::fs::remove_dir_all(home.dir());
    println!("{} round trips on loopback, one daemon:", rounds);
    times.print();
    Ok(())
}

/// Both directions' latencies, sorted.
pub struct RoundTrips {
    pub to_agent: Vec<Duration>,
    pub to_tab: Vec<Duration>,
}

impl RoundTrips {
    pub fn print(&self) {
        let at = |times: &[Duration], q: f64| {
            times[((times.len() - 1) as f64 * q) as usize].as_secs_f64() * 1000.0
        };
        for (what, times) in [
            ("user_message → get_ui_context", &self.to_agent),
            ("respond_to_browser → agent_response", &self.to_tab),
        ] {
            println!(
                "  {what}: p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
                at(times, 0.5),
                at(times, 0.99),
                at(times, 1.0)
            );
        }
    }
}

/// A `webfold daemon` in `home` on a free port, with `extra` arguments;
/// killed on drop.
pub fn start(binary: &Path, home: &Path, extra: &[&str]) -> anyhow::Result<Daemon> {
    let mut child = Command::new(binary)
        .args(["daemon", "--port", "0"])
        .args(extra)
        .env("WEBFOLD_HOME", home)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot run {}", binary.display()))?;
    let mut line = String::new();
    BufReader::new(child.stderr.take().context("daemon stderr")?).read_line(&mut line)?;
    anyhow::ensure!(line.contains("ws://"), "the daemon did not start: {line}");
    Ok(Daemon(child))
}

/// The tab connects to the daemon in `tab_home`, the agent to the one in
/// `agent_home` (the same one, or another on a shared database).
pub async fn round_trips(
    tab_home: &Home,
    agent_home: &Home,
    rounds: usize,
) -> anyhow::Result<RoundTrips> {
    let project = std::env::temp_dir();
    let agent = Connection::open(&agent_home.socket()).await?;
    agent
        .call(
            "hello",
            json!({"agentId": "bench", "project": project, "client": "bench"}),
        )
        .await?;
    let home = tab_home;
    let endpoint = webfold_daemon::daemon::Endpoint::read(home).context("daemon.json")?;
    let token = std::fs::read_to_string(home.token())?;
    let session = format!("{:064x}", 0x5eed_u64);
    let mut req =
        format!("ws://127.0.0.1:{}/ws?sessionId={session}", endpoint.port).into_client_request()?;
    req.headers_mut().insert(
        "origin",
        HeaderValue::from_str(&format!("chrome-extension://{EXTENSION_ID}"))?,
    );
    req.headers_mut().insert(
        "sec-websocket-protocol",
        HeaderValue::from_str(&format!("webfold.token.{token}"))?,
    );
    let (mut tab, _) = tokio_tungstenite::connect_async(req).await?;
    // Another daemon's agent is listed once its presence is heard.
    while !next_of(&mut tab, "agents").await?["payload"]["agents"]
        .as_array()
        .is_some_and(|a| a.iter().any(|a| a["agentId"] == "bench"))
    {}
    let pick = json!({"type": "set_context", "payload": {
        "element": {"tagName": "BUTTON", "classList": [], "textContent": "Buy", "attributes": {},
                    "boundingBox": {"x": 0, "y": 0, "width": 10, "height": 10}},
        "ancestors": [], "page": {"url": "http://shop.test/", "title": "Shop"}}});
    tab.send(Message::Text(pick.to_string().into())).await?;
    let stored = next_of(&mut tab, "context_stored").await?;
    let context_id = stored["payload"]["contextId"].clone();
    let agent = std::sync::Arc::new(agent);
    let mut to_agent = Vec::with_capacity(rounds);
    let mut to_tab = Vec::with_capacity(rounds);
    for i in 0..rounds {
        let waiting = agent.clone();
        let call = tokio::spawn(async move {
            let got = waiting
                .call("get_ui_context", json!({"wait_seconds": 10}))
                .await;
            (got, Instant::now())
        });
        let message = json!({"type": "user_message",
            "payload": {"contextId": context_id, "message": format!("message {i}")}});
        let sent = Instant::now();
        tab.send(Message::Text(message.to_string().into())).await?;
        let (got, returned) = call.await?;
        let got = got?;
        anyhow::ensure!(
            got["userMessage"] == format!("message {i}"),
            "round {i} got {got}"
        );
        to_agent.push(returned.saturating_duration_since(sent));
        next_of(&mut tab, "message_stored").await?;
        let answered = Instant::now();
        agent
            .call(
                "respond_to_browser",
                json!({"sessionId": session, "contextId": context_id,
                       "message": format!("answer {i}"), "isComplete": true}),
            )
            .await?;
        let reply = next_of(&mut tab, "agent_response").await?;
        to_tab.push(answered.elapsed());
        anyhow::ensure!(
            reply["payload"]["message"] == format!("answer {i}"),
            "round {i}'s answer: {reply}"
        );
    }
    to_agent.sort();
    to_tab.sort();
    Ok(RoundTrips { to_agent, to_tab })
}

async fn next_of<S>(tab: &mut S, kind: &str) -> anyhow::Result<Value>
where
    S: StreamExt<Item = Result<Message, tokio_tungstenite::tungstenite::Error>> + Unpin,
{
    while let Some(msg) = tab.next().await {
        if let Message::Text(t) = msg? {
            let v: Value = serde_json::from_str(&t)?;
            if v["type"] == kind {
                return Ok(v);
            }
            if v["type"] == "error" {
                bail!("the daemon refused: {v}");
            }
        }
    }
    bail!("the daemon closed the socket")
}
