//! The daemon's state and its routing: tabs (sessions) on one side, coding
//! agents on the other, and which message goes to whom.
//!
//! Routing rules, in order, for a user message from a tab:
//! 1. the agent the message names (`agentId`);
//! 2. the agent the tab selected (`select_agent`);
//! 3. the only agent connected for the tab's project;
//! 4. the only agent connected at all.
//!
//! Anything else is refused with the list of agents to choose from: a
//! message is never guessed into the wrong editor. A reply goes to the tab
//! whose session id it names, and nowhere else. The built-in agent (when the
//! daemon has a model provider) is one more agent in rules 1, 2 and 4; it
//! belongs to no project.
//!
//! One state, one lock, split by concern: `tabs` (sockets, picks, frames
//! out), `agents` (agents, their inboxes and what they read), `requests`
//! (requests waiting for a tab's answer), `routing` (which agent a
//! message goes to) and `answers` (an answer belongs to one user message:
//! its parts, its end, the statuses shown meanwhile). What is
//! not on this daemon is reached through a [`Transport`]: [`Local`] when
//! the daemon is alone, [`Cluster`] when it shares a database with others.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use tokio::sync::{Notify, mpsc};
use webfold_agent::CancellationToken;
use webfold_store::{ChatterStore, History};

use crate::DaemonError;
use crate::builtin::{AGENT_ID, BuiltinAgent};
use crate::home::Home;
use crate::project::ProjectFiles;
use crate::registry::Registry;
use webfold_protocol::{ErrorFrame, ServerFrame, StoredContext};

mod agents;
mod answers;
mod cluster;
mod requests;
mod routing;
mod tabs;
mod transport;

pub use cluster::Cluster;
pub use transport::{Later, Local, Transport};

/// Frames waiting for a tab that is offline (its service worker restarting).
const MAX_OUTBOX: usize = 256;

/// How long a tab has to answer `get_html`.
pub const LIVE_HTML_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// A connected extension socket.
pub type Outbound = mpsc::Sender<ServerFrame>;

#[derive(Default)]
struct Session {
    conns: Vec<(u64, Outbound)>,
    contexts: VecDeque<StoredContext>,
    selected_agent: Option<String>,
    last_active: i64,
    /// Answers being written, by the id of the user message they answer.
    answers: HashMap<String, answers::OpenAnswer>,
    /// The messages agents read here lately (id → its context), so an
    /// answer names one of them.
    asked: VecDeque<(String, String)>,
    /// The agent whose status the tab shows, if any.
    status_by: Option<String>,
    outbox: VecDeque<ServerFrame>,
    /// Cancels the built-in agent's runs for this tab when it disconnects.
    runs: Option<CancellationToken>,
    /// With other daemons: the last frame read from the database for it.
    delivered_seq: i64,
}

struct Agent {
    project: PathBuf,
    client: String,
    inbox: VecDeque<Delivery>,
}

/// An agent connected to another daemon sharing the database.
#[derive(Clone, Debug, PartialEq)]
struct RemoteAgent {
    project: PathBuf,
    client: String,
}

#[derive(Clone, Debug)]
struct Delivery {
    history_id: i64,
    session_id: String,
    context_id: String,
    message: String,
    timestamp: i64,
}

/// A user message no agent was there to take, and the project of its tab
/// (none: the next agent of any project takes it).
struct Unrouted {
    delivery: Delivery,
    project: Option<PathBuf>,
}

impl Delivery {
    fn message_id(&self) -> String {
        message_id(self.history_id, self.timestamp)
    }
}

/// A user message's id, as agents and the panel name it: its history row
/// and when it arrived (rows of two projects' histories never share both).
pub(crate) fn message_id(history_id: i64, timestamp: i64) -> String {
    format!("m{history_id}-{timestamp}")
}

#[derive(Default)]
struct State {
    agents: BTreeMap<String, Agent>,
    /// Agents of the other daemons (empty without a shared database).
    remote_agents: BTreeMap<String, RemoteAgent>,
    sessions: BTreeMap<String, Session>,
    /// `webfold ui N`: the session an agent of this project reads by default.
    picked: HashMap<PathBuf, String>,
    /// Bumped on every new selection or message, per project (waiters watch it).
    activity: HashMap<PathBuf, u64>,
    next_conn: u64,
    /// `get_html` requests waiting for their tab's `html` answer, by request id.
    waiting: HashMap<String, requests::Waiting>,
    /// User messages sent while no agent was connected, oldest first.
    unrouted: Vec<Unrouted>,
    next_request: u64,
}

/// Everything the daemon knows, shared by the WebSocket and agent sockets.
pub struct Hub {
    state: Mutex<State>,
    changed: Notify,
    home: Home,
    registry: Registry,
    agent: Option<Arc<BuiltinAgent>>,
    /// How the hub reaches tabs, agents and records on other daemons.
    transport: Arc<dyn Transport>,
    /// The hub itself, for the built-in agent's runs (spawned tasks).
    me: Weak<Hub>,
}

pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

fn error(code: &str, message: impl Into<String>) -> ServerFrame {
    ServerFrame::Error(ErrorFrame {
        code: code.into(),
        message: message.into(),
    })
}

impl Hub {
    pub fn new(home: Home) -> Result<Arc<Hub>, DaemonError> {
        let registry = Registry::load(&home)?;
        Ok(Hub::build(home, registry, None, Arc::new(Local::default())))
    }

    /// A hub that offers `agent` beside the coding agents and, with
    /// `shared`, works with the other daemons on that database.
    pub async fn start(
        home: Home,
        agent: Option<BuiltinAgent>,
        shared: Option<ChatterStore>,
    ) -> Result<Arc<Hub>, DaemonError> {
        let registry = Registry::load(&home)?;
        let agent = agent.map(Arc::new);
        let Some(store) = shared else {
            let alone = Arc::new(Local::default());
            return Ok(Hub::build(home, registry, agent, alone));
        };
        let (cluster, jobs) = Cluster::new(store.clone());
        let hub = Hub::build(home, registry, agent, Arc::new(cluster));
        cluster::join(&hub, store, jobs).await?;
        Ok(hub)
    }

    fn build(
        home: Home,
        registry: Registry,
        agent: Option<Arc<BuiltinAgent>>,
        transport: Arc<dyn Transport>,
    ) -> Arc<Hub> {
        Arc::new_cyclic(|me| Hub {
            state: Mutex::default(),
            changed: Notify::new(),
            home,
            registry,
            agent,
            transport,
            me: me.clone(),
        })
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn home(&self) -> &Home {
        &self.home
    }

    /// Tells the other daemons, if any, that this one is going: they stop
    /// listing its tabs and agents at once.
    pub async fn leave(&self) {
        self.transport.leave().await;
    }

    fn history(&self, project: &Path) -> Result<History, DaemonError> {
        self.history_in(&ProjectFiles::new(project), Some(project))
    }

    /// The history of `project` (kept in `files`): the shared database's
    /// when there is one, else the project's own file.
    fn history_in(
        &self,
        files: &ProjectFiles,
        project: Option<&Path>,
    ) -> Result<History, DaemonError> {
        self.transport.history(files, project)
    }

    fn files_of(&self, session_id: &str) -> ProjectFiles {
        self.files_for(self.registry.project_of(session_id).as_deref())
    }

    /// Where a tab of `project` keeps its files here: the project's
    /// `.webfold/`, or this daemon's home when the project is not a
    /// directory of this machine (an agent's project on another daemon's).
    fn files_for(&self, project: Option<&Path>) -> ProjectFiles {
        match project {
            Some(p) if self.transport.projects_are_here() || p.is_dir() => ProjectFiles::new(p),
            _ => ProjectFiles::unbound(&self.home),
        }
    }

    /// The built-in agent, when `agent_id` names it and the daemon has one.
    fn builtin(&self, agent_id: &str) -> Option<Arc<BuiltinAgent>> {
        self.agent.clone().filter(|_| agent_id == AGENT_ID)
    }

    /// Whether this daemon holds a socket of the tab.
    fn is_here(&self, session_id: &str) -> bool {
        self.state().sessions.get_mut(session_id).is_some_and(|s| {
            s.conns.retain(|(_, t)| !t.is_closed());
            !s.conns.is_empty()
        })
    }

    /// Whether another daemon sharing the database holds the tab.
    async fn is_elsewhere(&self, session_id: &str) -> bool {
        !self
            .transport
            .tabs_elsewhere(&[session_id.to_string()])
            .await
            .is_empty()
    }

    /// Agents and tabs, for `webfold doctor`.
    pub fn counts(&self) -> (usize, usize) {
        let st = self.state();
        let tabs = st
            .sessions
            .values()
            .filter(|s| s.conns.iter().any(|(_, t)| !t.is_closed()))
            .count();
        (st.agents.len(), tabs)
    }
}

fn rand_u16() -> u16 {
    let mut b = [0u8; 2];
    let _ = getrandom::fill(&mut b);
    u16::from_le_bytes(b)
}
