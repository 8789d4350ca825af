//! Reaching the daemon from `webfold mcp` and the CLI: one unix socket,
//! typed calls multiplexed by id, the daemon started when it is not running.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;
use tokio::net::unix::OwnedWriteHalf;
use tokio::sync::{Mutex as AsyncMutex, oneshot};

use webfold_protocol::agent::{Call, Hello, Request, Response};

use crate::ClientError;
use crate::home::Home;

/// The extension's default port (the bridge's is 3456).
pub const DEFAULT_PORT: u16 = 3457;

/// Chooses the port of a daemon started without `--port`, including the one
/// `webfold mcp` starts on demand.
const PORT_ENV: &str = "WEBFOLD_DAEMON_PORT";

/// The port a daemon started without `--port` listens on: `$WEBFOLD_DAEMON_PORT`,
/// else [`DEFAULT_PORT`]. A value that is not a port is refused rather than
/// replaced by the default, which would leave the extension knocking on
/// another port than the one the user chose.
pub fn configured_port() -> Result<u16, ClientError> {
    // Set but empty (`WEBFOLD_DAEMON_PORT= webfold daemon`) reads as unset.
    let Some(raw) = std::env::var_os(PORT_ENV).filter(|v| !v.is_empty()) else {
        return Ok(DEFAULT_PORT);
    };
    match raw
        .to_str()
        .map(str::trim)
        .and_then(|p| p.parse::<u16>().ok())
    {
        Some(port) if port > 0 => Ok(port),
        _ => Err(ClientError::Setup(format!(
            "{PORT_ENV} is '{}', not a port: set it to a number from 1 to 65535, or unset it for {DEFAULT_PORT}",
            raw.to_string_lossy()
        ))),
    }
}

/// How long a started daemon has to open its socket.
pub const START_TIMEOUT: Duration = Duration::from_secs(10);

type Pending = Arc<Mutex<Option<HashMap<u64, oneshot::Sender<Response>>>>>;

/// One connection to the daemon.
pub struct Connection {
    write: AsyncMutex<OwnedWriteHalf>,
    pending: Pending,
    next: AtomicU64,
    closed: tokio::sync::watch::Receiver<bool>,
}

impl Connection {
    pub async fn open(socket: &Path) -> Result<Connection, ClientError> {
        let stream = UnixStream::connect(socket)
            .await
            .map_err(|e| ClientError::Unreachable(format!("{}: {e}", socket.display())))?;
        let (read, write) = stream.into_split();
        let pending: Pending = Arc::new(Mutex::new(Some(HashMap::new())));
        let reading = pending.clone();
        let (closed_tx, closed) = tokio::sync::watch::channel(false);
        tokio::spawn(async move {
            let mut lines = BufReader::new(read).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let Ok(r) = serde_json::from_str::<Response>(&line) else {
                    continue;
                };
                let waiter = reading
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .as_mut()
                    .and_then(|m| m.remove(&r.id));
                if let Some(w) = waiter {
                    let _ = w.send(r);
                }
            }
            // Closed: every waiting call fails, and later calls fail at once.
            reading.lock().unwrap_or_else(|p| p.into_inner()).take();
            let _ = closed_tx.send(true);
        });
        Ok(Connection {
            write: AsyncMutex::new(write),
            pending,
            next: AtomicU64::new(1),
            closed,
        })
    }

    pub fn is_closed(&self) -> bool {
        self.pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_none()
    }

    /// Resolves when the daemon closes the connection.
    pub async fn closed(&self) {
        let mut rx = self.closed.clone();
        let _ = rx.wait_for(|c| *c).await;
    }

    /// One typed call: `C`'s params, answered with `C`'s answer; the
    /// daemon's refusal comes back as [`CallError::Refused`].
    pub async fn request<C: Call>(&self, params: C) -> Result<C::Answer, CallError> {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let line = serde_json::to_vec(&Request {
            id,
            call: params.into(),
        });
        let result = self.exchange(id, line.unwrap_or_default()).await?;
        serde_json::from_value(result).map_err(|e| CallError::Unreadable(e.to_string()))
    }

    /// One call by method name, its params and answer as JSON: the wire as
    /// it is, for tests and probes that speak it by hand.
    pub async fn call(&self, method: &str, params: Value) -> Result<Value, CallError> {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let line = serde_json::json!({ "id": id, "method": method, "params": params });
        self.exchange(id, line.to_string().into_bytes()).await
    }

    async fn exchange(&self, id: u64, mut line: Vec<u8>) -> Result<Value, CallError> {
        let (tx, rx) = oneshot::channel();
        match self
            .pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_mut()
        {
            Some(m) => m.insert(id, tx),
            None => return Err(CallError::Disconnected),
        };
        line.push(b'\n');
        if self.write.lock().await.write_all(&line).await.is_err() {
            return Err(CallError::Disconnected);
        }
        match rx.await {
            Ok(Response { error: Some(e), .. }) => Err(CallError::Refused(e)),
            Ok(Response { result, .. }) => Ok(result.unwrap_or(Value::Null)),
            Err(_) => Err(CallError::Disconnected),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum CallError {
    #[error("{0}")]
    Refused(String),
    #[error("the connection to the webfold daemon closed")]
    Disconnected,
    #[error("the webfold daemon's answer is unreadable: {0}")]
    Unreadable(String),
}

/// Connects, starting `webfold daemon` (the binary `exe`) when none answers.
pub async fn connect_or_start(home: &Home, exe: &Path) -> Result<Connection, ClientError> {
    if let Ok(c) = Connection::open(&home.socket()).await {
        return Ok(c);
    }
    start(home, exe)?;
    let deadline = tokio::time::Instant::now() + START_TIMEOUT;
    let mut tick = tokio::time::interval(Duration::from_millis(50));
    loop {
        tick.tick().await;
        match Connection::open(&home.socket()).await {
            Ok(c) => return Ok(c),
            Err(e) if tokio::time::Instant::now() >= deadline => {
                return Err(ClientError::Unreachable(format!(
                    "started it, but it did not answer within {} s ({e}); see {}",
                    START_TIMEOUT.as_secs(),
                    home.log().display()
                )));
            }
            Err(_) => {}
        }
    }
}

/// Starts the daemon detached: its own process group (an agent's Ctrl-C
/// does not stop it), output to the home's log.
fn start(home: &Home, exe: &Path) -> Result<(), ClientError> {
    // Checked here too: a daemon that refuses the port would only say so in its log.
    configured_port()?;
    home.ensure()?;
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(home.log())
        .map_err(|e| ClientError::io(&home.log(), e))?;
    let err = log
        .try_clone()
        .map_err(|e| ClientError::io(&home.log(), e))?;
    let mut cmd = std::process::Command::new(exe);
    cmd.arg("daemon")
        .env("WEBFOLD_HOME", home.dir())
        .stdin(std::process::Stdio::null())
        .stdout(log)
        .stderr(err);
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    cmd.spawn()
        .map(|_| ())
        .map_err(|e| ClientError::Setup(format!("cannot start {} daemon: {e}", exe.display())))
}

/// An agent process's link to the daemon: says hello on every (re)connect,
/// so a restarted daemon finds the agent, and its unread messages, again.
pub struct AgentLink {
    home: Home,
    exe: PathBuf,
    hello: Hello,
    conn: AsyncMutex<Option<Arc<Connection>>>,
}

impl AgentLink {
    pub fn new(home: Home, exe: PathBuf, project: PathBuf, client: String) -> AgentLink {
        let mut b = [0u8; 6];
        let _ = getrandom::fill(&mut b);
        let agent_id = format!(
            "agent-{}",
            b.iter().map(|x| format!("{x:02x}")).collect::<String>()
        );
        AgentLink {
            home,
            exe,
            hello: Hello {
                agent_id,
                project,
                client,
            },
            conn: AsyncMutex::new(None),
        }
    }

    pub fn agent_id(&self) -> &str {
        &self.hello.agent_id
    }

    async fn connection(&self) -> Result<Arc<Connection>, ClientError> {
        let mut slot = self.conn.lock().await;
        if let Some(c) = slot.as_ref().filter(|c| !c.is_closed()) {
            return Ok(c.clone());
        }
        let c = Arc::new(connect_or_start(&self.home, &self.exe).await?);
        c.request(self.hello.clone())
            .await
            .map_err(|e| ClientError::Unreachable(e.to_string()))?;
        *slot = Some(c.clone());
        Ok(c)
    }

    /// Connects now (and keeps the connection): the agent shows in the tabs'
    /// agents list before its first tool call.
    pub async fn announce(&self) -> Result<(), ClientError> {
        self.connection().await.map(|_| ())
    }

    /// Keeps the agent announced: when the daemon goes away (a restart), it
    /// reconnects as soon as a daemon answers again, without starting one
    /// itself (a tool call does that).
    pub fn keep_announced(self: &Arc<Self>) {
        let link = self.clone();
        tokio::spawn(async move {
            let mut backoff = Duration::from_millis(100);
            loop {
                let current = link.conn.lock().await.clone();
                match current.filter(|c| !c.is_closed()) {
                    Some(c) => {
                        c.closed().await;
                        backoff = Duration::from_millis(100);
                    }
                    None => {
                        let reached = Connection::open(&link.home.socket()).await.is_ok();
                        if !(reached && link.connection().await.is_ok()) {
                            tokio::time::sleep(backoff).await;
                            backoff = (backoff * 2).min(Duration::from_secs(2));
                        }
                    }
                }
            }
        });
    }

    /// A typed call, retried once on a fresh connection if the daemon went away.
    pub async fn request<C: Call + Clone>(&self, params: C) -> Result<C::Answer, String> {
        for attempt in 0..2 {
            let c = self.connection().await.map_err(|e| e.to_string())?;
            match c.request(params.clone()).await {
                Ok(v) => return Ok(v),
                Err(CallError::Disconnected) if attempt == 0 => continue,
                Err(e) => return Err(e.to_string()),
            }
        }
        Err(CallError::Disconnected.to_string())
    }

    /// A typed call on a running daemon, never starting one: what runs in
    /// the background (a daemon that was stopped stays stopped until a
    /// tool call starts it).
    pub async fn request_if_running<C: Call>(&self, params: C) -> Result<C::Answer, CallError> {
        let open = self.conn.lock().await.clone().filter(|c| !c.is_closed());
        let c = match open {
            Some(c) => c,
            None => {
                Connection::open(&self.home.socket())
                    .await
                    .map_err(|_| CallError::Disconnected)?;
                self.connection()
                    .await
                    .map_err(|_| CallError::Disconnected)?
            }
        };
        c.request(params).await
    }

    /// A call by method name ([`Connection::call`]), retried the same way.
    pub async fn call(&self, method: &str, params: Value) -> Result<Value, String> {
        for attempt in 0..2 {
            let c = self.connection().await.map_err(|e| e.to_string())?;
            match c.call(method, params.clone()).await {
                Ok(v) => return Ok(v),
                Err(CallError::Disconnected) if attempt == 0 => continue,
                Err(e) => return Err(e.to_string()),
            }
        }
        Err(CallError::Disconnected.to_string())
    }
}
