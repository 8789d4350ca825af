//! The UI chatter round trip: from a tab's `user_message` to the agent's
//! `get_ui_context` returning it, through a real `webfold daemon` on
//! loopback. The agent waits (`wait_seconds`) as a coding agent does.
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
use webfold_daemon::auth::EXTENSION_ID;
use webfold_daemon::client::Connection;
use webfold_daemon::home::Home;

struct Daemon(Child);

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
    let _daemon = start(&binary, &home)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let mut times = runtime.block_on(round_trips(Home::at(home.clone()), rounds))?;
    let _ = std::fs::remove_dir_all(&home);
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize].as_secs_f64() * 1000.0;
    println!(
        "user_message → get_ui_context, {} round trips on loopback: p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
        times.len(),
        at(0.5),
        at(0.99),
        at(1.0)
    );
    Ok(())
}

fn start(binary: &Path, home: &Path) -> anyhow::Result<Daemon> {
    let mut child = Command::new(binary)
        .args(["daemon", "--port", "0"])
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

async fn round_trips(home: Home, rounds: usize) -> anyhow::Result<Vec<Duration>> {
    let endpoint = webfold_daemon::daemon::Endpoint::read(&home).context("daemon.json")?;
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
    let project = std::env::temp_dir();
    let agent = Connection::open(&home.socket()).await?;
    agent
        .call(
            "hello",
            json!({"agentId": "bench", "project": project, "client": "bench"}),
        )
        .await?;
    let pick = json!({"type": "set_context", "payload": {
        "element": {"tagName": "BUTTON", "classList": [], "textContent": "Buy", "attributes": {},
                    "boundingBox": {"x": 0, "y": 0, "width": 10, "height": 10}},
        "ancestors": [], "page": {"url": "http://shop.test/", "title": "Shop"}}});
    tab.send(Message::Text(pick.to_string().into())).await?;
    let stored = next_of(&mut tab, "context_stored").await?;
    let context_id = stored["payload"]["contextId"].clone();
    let agent = std::sync::Arc::new(agent);
    let mut times = Vec::with_capacity(rounds);
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
        times.push(returned.saturating_duration_since(sent));
        next_of(&mut tab, "message_stored").await?;
    }
    Ok(times)
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
