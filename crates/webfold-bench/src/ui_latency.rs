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
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use webfold_chatter_client::client::Connection;
use webfold_daemon::auth::EXTENSION_ID;
use webfold_daemon::home::Home;
use webfold_protocol::agent::{GetUiContext, Hello, RespondToBrowser};
use webfold_protocol::{
    BoundingBox, ClientFrame, Element, PageInfo, ServerFrame, SetContext, UserMessage,
};

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
        .request(Hello {
            agent_id: "bench".into(),
            project,
            client: "bench".into(),
        })
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
    while !next_of(&mut tab, |f| match f {
        ServerFrame::Agents(a) => Some(a),
        _ => None,
    })
    .await?
    .agents
    .iter()
    .any(|a| a.agent_id == "bench")
    {}
    send(&mut tab, ClientFrame::SetContext(Box::new(pick()))).await?;
    let context_id = next_of(&mut tab, |f| match f {
        ServerFrame::ContextStored(c) => Some(c.context_id),
        _ => None,
    })
    .await?;
    let agent = std::sync::Arc::new(agent);
    let mut to_agent = Vec::with_capacity(rounds);
    let mut to_tab = Vec::with_capacity(rounds);
    for i in 0..rounds {
        let waiting = agent.clone();
        let call = tokio::spawn(async move {
            let got = waiting
                .request(GetUiContext {
                    session_id: None,
                    wait_seconds: Some(10),
                })
                .await;
            (got, Instant::now())
        });
        let message = UserMessage {
            context_id: context_id.clone(),
            message: format!("message {i}"),
            agent_id: None,
        };
        let sent = Instant::now();
        send(&mut tab, ClientFrame::UserMessage(message)).await?;
        let (got, returned) = call.await?;
        let (got, message_id) = got?
            .map(|c| (c.user_message, c.message_id.unwrap_or_default()))
            .unwrap_or_default();
        anyhow::ensure!(
            got.as_deref() == Some(format!("message {i}").as_str()),
            "round {i} got {got:?}"
        );
        to_agent.push(returned.saturating_duration_since(sent));
        next_of(&mut tab, |f| match f {
            ServerFrame::MessageStored(_) => Some(()),
            _ => None,
        })
        .await?;
        let answered = Instant::now();
        agent
            .request(RespondToBrowser {
                session_id: session.clone(),
                message_id,
                message: format!("answer {i}"),
                is_complete: true,
            })
            .await?;
        let reply = next_of(&mut tab, |f| match f {
            ServerFrame::AgentResponse(r) => Some(r.message),
            _ => None,
        })
        .await?;
        to_tab.push(answered.elapsed());
        anyhow::ensure!(
            reply == format!("answer {i}"),
            "round {i}'s answer: {reply}"
        );
    }
    to_agent.sort();
    to_tab.sort();
    Ok(RoundTrips { to_agent, to_tab })
}

/// The tab's pick: a button on a shop's page.
fn pick() -> SetContext {
    SetContext {
        element: Element {
            tag_name: "BUTTON".into(),
            id: None,
            class_list: Vec::new(),
            text_content: "Buy".into(),
            attributes: Default::default(),
            bounding_box: BoundingBox {
                x: 0.0,
                y: 0.0,
                width: 10.0,
                height: 10.0,
            },
        },
        ancestors: Vec::new(),
        children: None,
        page: PageInfo {
            url: "http://shop.test/".into(),
            title: "Shop".into(),
        },
        screenshot: None,
        selector: None,
        html: None,
        dom: None,
        source: None,
    }
}

async fn send<S>(tab: &mut S, frame: ClientFrame) -> anyhow::Result<()>
where
    S: SinkExt<Message> + Unpin,
    S::Error: std::error::Error + Send + Sync + 'static,
{
    let text = serde_json::to_string(&frame)?;
    tab.send(Message::Text(text.into())).await?;
    Ok(())
}

/// Reads the tab's frames until `wanted` takes one; an error frame fails.
async fn next_of<S, T>(tab: &mut S, wanted: impl Fn(ServerFrame) -> Option<T>) -> anyhow::Result<T>
where
    S: StreamExt<Item = Result<Message, tokio_tungstenite::tungstenite::Error>> + Unpin,
{
    while let Some(msg) = tab.next().await {
        if let Message::Text(t) = msg? {
            let frame: ServerFrame = serde_json::from_str(&t)?;
            if let ServerFrame::Error(e) = &frame {
                bail!("the daemon refused: {} ({})", e.message, e.code);
            }
            if let Some(found) = wanted(frame) {
                return Ok(found);
            }
        }
    }
    bail!("the daemon closed the socket")
}
