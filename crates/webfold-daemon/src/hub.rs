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

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use tokio::sync::{Notify, mpsc, oneshot};
use webfold_agent::CancellationToken;
use webfold_store::{ChatterStore, History, HistoryStore, Message, Role};

use crate::DaemonError;
use crate::builtin::{AGENT_ID, Ask, BuiltinAgent};
use crate::home::Home;
use crate::project::ProjectFiles;
use crate::registry::Registry;
use webfold_protocol::StoredContext;
use webfold_protocol::agent::{HistoryMessage, LiveHtml, SessionInfo, UiContext};
use webfold_protocol::{
    AgentInfo, AgentResponse, AgentResponseChunk, Agents, ContextStored, ErrorFrame, GetHtml,
    GetView, HtmlReply, MessageStored, PROTOCOL_VERSION, ServerFrame, SetContext, Status,
    StatusUpdate, UserMessage, ViewFrame,
};

mod cluster;

pub use cluster::Cluster;

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
    partial: HashMap<String, String>,
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
    waiting: HashMap<String, Waiting>,
    next_request: u64,
}

struct Waiting {
    session_id: String,
    reply: oneshot::Sender<HtmlReply>,
}

/// Everything the daemon knows, shared by the WebSocket and agent sockets.
pub struct Hub {
    state: Mutex<State>,
    changed: Notify,
    home: Home,
    registry: Registry,
    /// By the history file's path.
    histories: Mutex<HashMap<PathBuf, HistoryStore>>,
    agent: Option<Arc<BuiltinAgent>>,
    /// The database shared with other daemons, when there is one.
    cluster: Option<Cluster>,
    /// The hub itself, for the built-in agent's runs (spawned tasks).
    me: Weak<Hub>,
}

/// Where a user message goes.
enum Route {
    Coding(String, PathBuf),
    Builtin(Arc<BuiltinAgent>),
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
        Ok(Hub::build(home, registry, None, None))
    }

    /// A hub that offers `agent` beside the coding agents and, with
    /// `shared`, works with the other daemons on that database.
    pub async fn start(
        home: Home,
        agent: Option<BuiltinAgent>,
        shared: Option<ChatterStore>,
    ) -> Result<Arc<Hub>, DaemonError> {
        let registry = Registry::load(&home)?;
        let (cluster, jobs) = match shared {
            Some(store) => {
                let (c, jobs) = Cluster::new(store);
                (Some(c), Some(jobs))
            }
            None => (None, None),
        };
        let hub = Hub::build(home, registry, agent.map(Arc::new), cluster);
        if let Some(jobs) = jobs {
            cluster::join(&hub, jobs).await?;
        }
        Ok(hub)
    }

    fn build(
        home: Home,
        registry: Registry,
        agent: Option<Arc<BuiltinAgent>>,
        cluster: Option<Cluster>,
    ) -> Arc<Hub> {
        Arc::new_cyclic(|me| Hub {
            state: Mutex::default(),
            changed: Notify::new(),
            home,
            registry,
            histories: Mutex::default(),
            agent,
            cluster,
            me: me.clone(),
        })
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn home(&self) -> &Home {
        &self.home
    }

    /// The database shared with other daemons, when there is one.
    pub fn cluster(&self) -> Option<&Cluster> {
        self.cluster.as_ref()
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
        if let Some(c) = &self.cluster {
            return Ok(History::Shared {
                store: c.store().clone(),
                project: project.map(|p| p.display().to_string()),
            });
        }
        let path = files.history();
        let mut h = self.histories.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(store) = h.get(&path) {
            return Ok(History::File(store.clone()));
        }
        files.ensure()?;
        let store = HistoryStore::open(&path).map_err(DaemonError::store)?;
        h.insert(path, store.clone());
        Ok(History::File(store))
    }

    fn files_of(&self, session_id: &str) -> ProjectFiles {
        self.files_for(self.registry.project_of(session_id).as_deref())
    }

    /// Where a tab of `project` keeps its files here: the project's
    /// `.webfold/`, or this daemon's home when the project is not a
    /// directory of this machine (an agent's project on another daemon's).
    fn files_for(&self, project: Option<&Path>) -> ProjectFiles {
        match project {
            Some(p) if self.cluster.is_none() || p.is_dir() => ProjectFiles::new(p),
            _ => ProjectFiles::unbound(&self.home),
        }
    }

    fn agents_frame(&self, state: &State, session_id: &str) -> ServerFrame {
        let selected = state
            .sessions
            .get(session_id)
            .and_then(|s| s.selected_agent.clone())
            .filter(|a| {
                state.agents.contains_key(a)
                    || state.remote_agents.contains_key(a)
                    || self.builtin(a).is_some()
            });
        let info = |id: &String, project: &Path, client: &str| AgentInfo {
            agent_id: id.clone(),
            project: project.display().to_string(),
            client: client.to_string(),
            built_in: false,
        };
        let local = state
            .agents
            .iter()
            .map(|(id, a)| info(id, &a.project, &a.client));
        let remote = state
            .remote_agents
            .iter()
            .filter(|(id, _)| !state.agents.contains_key(*id))
            .map(|(id, a)| info(id, &a.project, &a.client));
        let coding = local.chain(remote);
        ServerFrame::Agents(Agents {
            protocol_version: PROTOCOL_VERSION,
            agents: coding
                .chain(self.agent.as_ref().map(|a| a.info()))
                .collect(),
            selected,
        })
    }

    /// The built-in agent, when `agent_id` names it and the daemon has one.
    fn builtin(&self, agent_id: &str) -> Option<Arc<BuiltinAgent>> {
        self.agent.clone().filter(|_| agent_id == AGENT_ID)
    }

    /// Sends to every socket of a tab here. With none, and other daemons,
    /// the database carries it to the daemon that holds the tab (or to the
    /// one it connects to next, when `queue`); alone, this daemon keeps it
    /// for the tab's next socket (`queue`) or drops it (status updates are
    /// only news while they last).
    fn send(&self, state: &mut State, session_id: &str, frame: ServerFrame, queue: bool) -> bool {
        if Self::send_here(state, session_id, &frame) {
            return true;
        }
        if let Some(c) = &self.cluster {
            c.push(session_id, frame, queue);
            return false;
        }
        let session = state.sessions.entry(session_id.to_string()).or_default();
        if queue {
            if session.outbox.len() >= MAX_OUTBOX {
                session.outbox.pop_front();
            }
            session.outbox.push_back(frame);
        }
        false
    }

    /// Sends to the tab's sockets on this daemon, if it has any.
    fn send_here(state: &mut State, session_id: &str, frame: &ServerFrame) -> bool {
        let Some(session) = state.sessions.get_mut(session_id) else {
            return false;
        };
        session.conns.retain(|(_, tx)| !tx.is_closed());
        if session.conns.is_empty() {
            return false;
        }
        // A socket that cannot keep up is dropped rather than block everyone.
        session
            .conns
            .retain(|(_, tx)| tx.try_send(frame.clone()).is_ok());
        true
    }

    fn broadcast_agents(&self, state: &mut State) {
        let ids: Vec<String> = state.sessions.keys().cloned().collect();
        // Each daemon tells its own tabs.
        for id in ids {
            let frame = self.agents_frame(state, &id);
            Self::send_here(state, &id, &frame);
        }
    }

    // ---- the extension's side ----

    /// A tab connected: it is told the agents, and gets what waited for it.
    pub fn connect_tab(&self, session_id: &str, tx: Outbound) -> u64 {
        let mut st = self.state();
        st.next_conn += 1;
        let conn = st.next_conn;
        let frame = self.agents_frame(&st, session_id);
        let session = st.sessions.entry(session_id.to_string()).or_default();
        let _ = tx.try_send(frame);
        while let Some(f) = session.outbox.pop_front() {
            if tx.try_send(f).is_err() {
                break;
            }
        }
        session.conns.push((conn, tx));
        if let Some(c) = &self.cluster {
            c.tab_here(session_id);
        }
        conn
    }

    pub fn disconnect_tab(&self, session_id: &str, conn: u64) {
        let mut st = self.state();
        let gone = match st.sessions.get_mut(session_id) {
            Some(s) => {
                s.conns.retain(|(c, _)| *c != conn);
                s.conns.iter().all(|(_, tx)| tx.is_closed())
            }
            None => true,
        };
        // Nobody is left to answer this tab's requests: they fail now
        // rather than at their timeout, and the built-in agent's runs for it
        // stop (nobody would see their answer).
        if gone {
            if let Some(c) = &self.cluster {
                c.tab_gone(session_id);
            }
            st.waiting.retain(|_, w| w.session_id != session_id);
            if let Some(runs) = st.sessions.get_mut(session_id).and_then(|s| s.runs.take()) {
                runs.cancel();
            }
        }
    }

    /// Asks a connected tab for its current HTML (checked against
    /// `selector` there), waiting up to `timeout` for the answer.
    pub async fn live_html(
        &self,
        agent_id: &str,
        session_id: &str,
        selector: &str,
        timeout: std::time::Duration,
    ) -> Result<LiveHtml, String> {
        self.project_of_agent(agent_id)?;
        self.tab_html(session_id, Some(selector), timeout).await
    }

    /// Asks a connected tab for its current HTML: the request/answer
    /// exchange behind [`Hub::live_html`] and the built-in agent's chunks.
    pub(crate) async fn tab_html(
        &self,
        session_id: &str,
        selector: Option<&str>,
        timeout: std::time::Duration,
    ) -> Result<LiveHtml, String> {
        let (tx, rx) = oneshot::channel();
        let here = self.is_here(session_id);
        let elsewhere = !here && self.is_elsewhere(session_id).await;
        let request_id = {
            let mut st = self.state();
            if !here && !elsewhere {
                return Err(format!(
                    "the browser tab {session_id} is not connected (closed, navigated away, or its browser is not running): \
                     ask the user to open the page and pick again, or read the captured copy without live"
                ));
            }
            st.next_request += 1;
            // With other daemons, the id names this one: the tab's daemon
            // sends the answer back here.
            let request_id = match &self.cluster {
                Some(c) => format!(
                    "html-{}-{}-{:04x}",
                    c.instance(),
                    st.next_request,
                    rand_u16()
                ),
                None => format!("html-{}-{:04x}", st.next_request, rand_u16()),
            };
            st.waiting.insert(
                request_id.clone(),
                Waiting {
                    session_id: session_id.to_string(),
                    reply: tx,
                },
            );
            let frame = ServerFrame::GetHtml(GetHtml {
                request_id: request_id.clone(),
                selector: selector.map(str::to_string),
            });
            self.send(&mut st, session_id, frame, false);
            request_id
        };
        let got = tokio::time::timeout(timeout, rx).await;
        self.state().waiting.remove(&request_id);
        let reply = match got {
            Err(_) => {
                return Err(format!(
                    "the browser tab did not answer within {} s (a busy page, or the extension was reloaded): try again, or ask the user to press Refresh page",
                    timeout.as_secs()
                ));
            }
            Ok(Err(_)) => {
                return Err(
                    "the browser tab disconnected before it answered (closed or navigated away): ask the user to open the page and pick again"
                        .into(),
                );
            }
            Ok(Ok(r)) => r,
        };
        match (reply.html, reply.error) {
            (Some(html), _) => Ok(LiveHtml {
                html,
                matches: reply.matches.unwrap_or(1),
                url: reply.url,
            }),
            (None, Some(why)) => Err(format!("the live page says: {why}")),
            (None, None) => Err("the browser tab answered without HTML; try again".into()),
        }
    }

    /// A tab's answer to `get_html`: handed to the waiting request (`None`:
    /// nothing to send back), or an error frame when none waits for it.
    pub fn html_reply(&self, session_id: &str, reply: HtmlReply) -> Option<ServerFrame> {
        let mut st = self.state();
        let mine = st
            .waiting
            .get(&reply.request_id)
            .is_some_and(|w| w.session_id == session_id);
        if let Some(w) = st.waiting.remove(&reply.request_id).filter(|_| mine) {
            let _ = w.reply.send(reply);
            return None;
        }
        drop(st);
        if let Some(c) = &self.cluster
            && c.forward_reply(session_id, &reply)
        {
            return None;
        }
        Some(error(
            "unknown_request",
            format!(
                "no request {} is waiting for this tab: it timed out or was answered already",
                reply.request_id
            ),
        ))
    }

    /// The side panel's view of the page this tab captured last.
    pub async fn page_view(&self, session_id: &str, req: GetView) -> ServerFrame {
        let latest = self.latest_capture(session_id);
        let answer = |tokens, lines, url, error| {
            ServerFrame::View(ViewFrame {
                request_id: req.request_id.clone(),
                view: req.view,
                tokens,
                url,
                lines,
                error,
            })
        };
        let Some(latest) = latest else {
            return answer(
                0,
                Vec::new(),
                None,
                Some("Nothing captured in this tab yet: pick an element, and the view shows the page as it was then.".into()),
            );
        };
        let url = latest.pick.page.url.clone();
        let kind = req.view;
        let made = tokio::task::spawn_blocking(move || {
            let page =
                crate::page_view::load(latest.html_path.as_deref(), latest.dom_path.as_deref())?;
            crate::page_view::render(&page, kind)
        })
        .await
        .unwrap_or_else(|e| Err(format!("the view failed: {e}")));
        match made {
            Ok((tokens, lines)) => answer(tokens, lines, Some(url), None),
            Err(why) => answer(0, Vec::new(), Some(url), Some(why)),
        }
    }

    /// The latest selection of a tab that carries its page.
    pub(crate) fn latest_capture(&self, session_id: &str) -> Option<StoredContext> {
        let kept = self.state().sessions.get(session_id).and_then(|s| {
            s.contexts
                .iter()
                .rev()
                .find(|c| c.html_path.is_some())
                .cloned()
        });
        kept.or_else(|| self.files_of(session_id).latest_context(session_id))
    }

    /// Stores a selection; answers `context_stored` once it is on disk.
    pub async fn set_context(&self, session_id: &str, ctx: SetContext) -> ServerFrame {
        let context_id = format!("ctx-{}-{:04x}", now_ms(), rand_u16());
        let project = match self.bind_default(session_id).await {
            Ok(p) => p,
            Err(e) => return error("storage", e),
        };
        let files = self.files_for(project.as_deref());
        let shared = self.cluster.as_ref().map(|_| ctx.clone());
        let stored = match files
            .store_context(session_id, &context_id, ctx, now_ms())
            .await
        {
            Ok(s) => s,
            Err(DaemonError::Input(e)) => return error("bad_frame", e),
            Err(e) => return error("storage", e.to_string()),
        };
        if let (Some(c), Some(frame)) = (&self.cluster, shared)
            && let Err(e) = c
                .share_context(session_id, &stored, frame, project.as_deref())
                .await
        {
            return error("storage", e);
        }
        let mut st = self.state();
        let session = st.sessions.entry(session_id.to_string()).or_default();
        session.last_active = stored.timestamp;
        session.contexts.push_back(stored);
        while session.contexts.len() > 20 {
            session.contexts.pop_front();
        }
        if let Some(p) = project {
            *st.activity.entry(p).or_default() += 1;
        }
        drop(st);
        self.changed.notify_waiters();
        ServerFrame::ContextStored(ContextStored { context_id })
    }

    /// The project a tab belongs to: its registered one, else the project
    /// of the only connected agents (so a lone agent just works).
    async fn bind_default(&self, session_id: &str) -> Result<Option<PathBuf>, String> {
        if let Some(p) = self.registry.project_of(session_id) {
            return Ok(Some(p));
        }
        let only = {
            let st = self.state();
            let mut projects: Vec<&PathBuf> = st
                .agents
                .values()
                .map(|a| &a.project)
                .chain(st.remote_agents.values().map(|a| &a.project))
                .collect();
            projects.sort();
            projects.dedup();
            match projects.as_slice() {
                [only] => Some((*only).clone()),
                _ => None,
            }
        };
        if let Some(p) = &only {
            self.bind(session_id, p).await?;
        }
        Ok(only)
    }

    /// Binds a tab to a project, here and for the other daemons.
    async fn bind(&self, session_id: &str, project: &Path) -> Result<(), String> {
        if let Some(c) = &self.cluster {
            c.bind(session_id, project).await?;
        }
        self.registry
            .bind(session_id, project)
            .map_err(|e| e.to_string())
    }

    /// The project of a connected agent, here or at another daemon.
    fn project_of_any(state: &State, agent_id: &str) -> Option<PathBuf> {
        state
            .agents
            .get(agent_id)
            .map(|a| a.project.clone())
            .or_else(|| state.remote_agents.get(agent_id).map(|a| a.project.clone()))
    }

    /// A tab chose the agent it talks to.
    pub async fn select_agent(&self, session_id: &str, agent_id: &str) -> ServerFrame {
        let chosen = {
            let mut st = self.state();
            let builtin = self.builtin(agent_id).is_some();
            let project = Self::project_of_any(&st, agent_id);
            if builtin || project.is_some() {
                st.sessions
                    .entry(session_id.to_string())
                    .or_default()
                    .selected_agent = Some(agent_id.to_string());
            }
            (self.agents_frame(&st, session_id), project, builtin)
        };
        let (frame, project) = match chosen {
            (frame, _, true) => return frame,
            (frame, Some(project), false) => (frame, project),
            (_, None, false) => {
                return error(
                    "unknown_agent",
                    format!("no agent {agent_id} is connected; choose one from the agents list"),
                );
            }
        };
        if let Err(e) = self.bind(session_id, &project).await {
            return error("storage", e);
        }
        frame
    }

    /// Routes a user message to one agent, stores it, and says so.
    pub async fn user_message(&self, session_id: &str, m: UserMessage) -> ServerFrame {
        let route = match self.route(session_id, m.agent_id.as_deref()) {
            Ok(r) => r,
            Err(frame) => return frame,
        };
        if self.context(session_id, &m.context_id).await.is_none() {
            return error(
                "unknown_context",
                format!(
                    "context {} is not one of this tab's selections; pick the element again",
                    m.context_id
                ),
            );
        }
        let (agent_id, project) = match route {
            Route::Coding(id, project) => (id, project),
            Route::Builtin(agent) => return self.ask_builtin(session_id, m, agent).await,
        };
        if let Err(e) = self.bind(session_id, &project).await {
            return error("storage", e);
        }
        let timestamp = now_ms();
        let stored = Message {
            id: 0,
            session_id: session_id.to_string(),
            role: Role::User,
            content: m.message.clone(),
            context_id: Some(m.context_id.clone()),
            agent_id: Some(agent_id.clone()),
            timestamp,
        };
        let history_id = match self.history(&project) {
            Ok(h) => match h.append(stored).await {
                Ok(id) => id,
                Err(e) => return error("storage", e.to_string()),
            },
            Err(e) => return error("storage", e.to_string()),
        };
        let mut st = self.state();
        if let Some(agent) = st.agents.get_mut(&agent_id) {
            agent.inbox.push_back(Delivery {
                history_id,
                session_id: session_id.to_string(),
                context_id: m.context_id.clone(),
                message: m.message,
                timestamp,
            });
        }
        st.sessions
            .entry(session_id.to_string())
            .or_default()
            .last_active = timestamp;
        *st.activity.entry(project).or_default() += 1;
        drop(st);
        self.changed.notify_waiters();
        ServerFrame::MessageStored(MessageStored {
            context_id: m.context_id,
            agent_id,
        })
    }

    /// A message for the built-in agent: stored in the tab's history, then
    /// answered by a run of its own, cancelled if the tab goes away.
    async fn ask_builtin(
        &self,
        session_id: &str,
        m: UserMessage,
        agent: Arc<BuiltinAgent>,
    ) -> ServerFrame {
        if let Err(e) = self
            .remember(session_id, Role::User, &m.message, &m.context_id)
            .await
        {
            return error("storage", e);
        }
        let cancel = {
            let mut st = self.state();
            let session = st.sessions.entry(session_id.to_string()).or_default();
            session.last_active = now_ms();
            session
                .runs
                .get_or_insert_with(CancellationToken::new)
                .child_token()
        };
        if let Some(hub) = self.me.upgrade() {
            let ask = Ask {
                session_id: session_id.to_string(),
                context_id: m.context_id.clone(),
                message: m.message,
            };
            tokio::spawn(crate::builtin::answer(hub, agent, ask, cancel));
        }
        ServerFrame::MessageStored(MessageStored {
            context_id: m.context_id,
            agent_id: AGENT_ID.into(),
        })
    }

    /// Keeps one message of a conversation with the built-in agent in the
    /// tab's history (its project's, when it has one).
    pub(crate) async fn remember(
        &self,
        session_id: &str,
        role: Role,
        content: &str,
        context_id: &str,
    ) -> Result<i64, String> {
        let stored = Message {
            id: 0,
            session_id: session_id.to_string(),
            role,
            content: content.to_string(),
            context_id: Some(context_id.to_string()),
            agent_id: Some(AGENT_ID.into()),
            timestamp: now_ms(),
        };
        let history = self
            .history_in(
                &self.files_of(session_id),
                self.registry.project_of(session_id).as_deref(),
            )
            .map_err(|e| e.to_string())?;
        history.append(stored).await.map_err(|e| e.to_string())
    }

    /// Sends a frame to a tab; `queue` keeps it for a tab that is offline.
    pub(crate) fn tell(&self, session_id: &str, frame: ServerFrame, queue: bool) {
        let mut st = self.state();
        self.send(&mut st, session_id, frame, queue);
    }

    fn route(&self, session_id: &str, named: Option<&str>) -> Result<Route, ServerFrame> {
        let st = self.state();
        let project_of = |id: &str| match self.builtin(id) {
            Some(agent) => Some(Route::Builtin(agent)),
            None => Self::project_of_any(&st, id).map(|p| Route::Coding(id.to_string(), p)),
        };
        if let Some(id) = named {
            return project_of(id).ok_or_else(|| {
                error(
                    "unknown_agent",
                    format!("no agent {id} is connected; choose one from the agents list"),
                )
            });
        }
        let selected = st
            .sessions
            .get(session_id)
            .and_then(|s| s.selected_agent.as_deref());
        if let Some(r) = selected.and_then(project_of) {
            return Ok(r);
        }
        let coding = || {
            let remote = st
                .remote_agents
                .iter()
                .filter(|(id, _)| !st.agents.contains_key(*id))
                .map(|(id, a)| (id, &a.project));
            st.agents
                .iter()
                .map(|(id, a)| (id, &a.project))
                .chain(remote)
        };
        if let Some(project) = self.registry.project_of(session_id) {
            let mine: Vec<&String> = coding()
                .filter(|(_, p)| **p == project)
                .map(|(id, _)| id)
                .collect();
            if let [only] = mine.as_slice() {
                return Ok(Route::Coding((*only).clone(), project));
            }
        }
        let count = coding().count() + usize::from(self.agent.is_some());
        let mut all = coding()
            .map(|(id, p)| Route::Coding(id.clone(), p.clone()))
            .chain(self.agent.clone().map(Route::Builtin));
        match (all.next(), all.next()) {
            (None, _) => Err(error(
                "no_agent",
                "no coding agent is connected: start one with webfold's MCP server (webfold mcp), then send again",
            )),
            (Some(only), None) => Ok(only),
            _ => Err(error(
                "choose_agent",
                format!("{count} agents are connected: choose one (select_agent or agentId)"),
            )),
        }
    }

    /// A pick of a tab: kept here, or (with other daemons) one another
    /// daemon stored, written here on first use.
    async fn context(&self, session_id: &str, context_id: &str) -> Option<StoredContext> {
        let found = self
            .state()
            .sessions
            .get(session_id)
            .and_then(|s| s.contexts.iter().find(|c| c.context_id == context_id))
            .cloned();
        let files = self.files_of(session_id);
        if let Some(c) = found.or_else(|| files.load_context(session_id, context_id)) {
            return Some(c);
        }
        self.cluster
            .as_ref()?
            .fetch_context(&files, session_id, Some(context_id))
            .await
    }

    /// A tab's latest pick: with other daemons, the database knows it.
    async fn latest_context(&self, session_id: &str) -> Option<StoredContext> {
        let here = self
            .state()
            .sessions
            .get(session_id)
            .filter(|s| !s.conns.is_empty())
            .and_then(|s| s.contexts.back().cloned());
        if here.is_some() {
            return here;
        }
        let files = self.files_of(session_id);
        if let Some(c) = &self.cluster
            && let Some(found) = c.fetch_context(&files, session_id, None).await
        {
            return Some(found);
        }
        files.latest_context(session_id)
    }

    // ---- the agents' side ----

    /// An agent process announced itself; its unread messages (from before
    /// a daemon restart) go back to its inbox.
    pub async fn connect_agent(
        &self,
        agent_id: &str,
        project: PathBuf,
        client: String,
    ) -> Result<(), String> {
        {
            let st = self.state();
            if st.agents.contains_key(agent_id) {
                return Err(format!("agent id {agent_id} is already connected"));
            }
            if st.remote_agents.contains_key(agent_id) {
                return Err(format!(
                    "agent id {agent_id} is already connected to another daemon on this database"
                ));
            }
        }
        if agent_id == AGENT_ID {
            return Err(format!(
                "agent id {AGENT_ID} is the daemon's built-in agent: choose another"
            ));
        }
        if let Some(c) = &self.cluster {
            c.agent_here(agent_id, &project, &client).await?;
        }
        {
            let mut st = self.state();
            st.agents.insert(
                agent_id.to_string(),
                Agent {
                    project,
                    client,
                    inbox: VecDeque::new(),
                },
            );
            self.broadcast_agents(&mut st);
        }
        self.refill_inbox(agent_id).await;
        Ok(())
    }

    /// Puts the messages an agent has not read (from before a restart, or
    /// stored by another daemon) in its inbox, each once, and wakes it.
    pub(crate) async fn refill_inbox(&self, agent_id: &str) {
        let Ok(project) = self.project_of_agent(agent_id) else {
            return;
        };
        let Ok(h) = self.history(&project) else {
            return;
        };
        let unread = h.undelivered(agent_id).await.unwrap_or_default();
        let mut st = self.state();
        let Some(agent) = st.agents.get_mut(agent_id) else {
            return;
        };
        let mut added = false;
        for m in unread {
            if agent.inbox.iter().any(|d| d.history_id == m.id) {
                continue;
            }
            added = true;
            agent.inbox.push_back(Delivery {
                history_id: m.id,
                session_id: m.session_id,
                context_id: m.context_id.unwrap_or_default(),
                message: m.content,
                timestamp: m.timestamp,
            });
        }
        if added {
            *st.activity.entry(project).or_default() += 1;
            drop(st);
            self.changed.notify_waiters();
        }
    }

    pub fn disconnect_agent(&self, agent_id: &str) {
        let mut st = self.state();
        if st.agents.remove(agent_id).is_some() {
            if let Some(c) = &self.cluster {
                c.agent_gone(agent_id);
            }
            self.broadcast_agents(&mut st);
        }
    }

    /// The project an agent announced.
    pub fn agent_project(&self, agent_id: &str) -> Result<PathBuf, String> {
        self.project_of_agent(agent_id)
    }

    fn project_of_agent(&self, agent_id: &str) -> Result<PathBuf, String> {
        self.state()
            .agents
            .get(agent_id)
            .map(|a| a.project.clone())
            .ok_or_else(|| "this agent is not connected to the daemon".to_string())
    }

    /// The next message for `agent_id` (waiting up to `wait` for one, or
    /// for a new selection), else the latest selection of its project.
    pub async fn get_ui_context(
        &self,
        agent_id: &str,
        session_id: Option<&str>,
        wait: std::time::Duration,
    ) -> Result<Option<UiContext>, String> {
        let project = self.project_of_agent(agent_id)?;
        let deadline = tokio::time::Instant::now() + wait;
        let seen = self.activity(&project);
        loop {
            let notified = self.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if let Some(d) = self.take_delivery(agent_id, session_id) {
                if let Ok(h) = self.history(&project) {
                    let _ = h.mark_delivered(d.history_id).await;
                }
                let context = self.context(&d.session_id, &d.context_id).await;
                return Ok(context.map(|context| UiContext {
                    session_id: d.session_id,
                    context: StoredContext {
                        timestamp: d.timestamp,
                        ..context
                    },
                    user_message: Some(d.message),
                    other_sessions: Vec::new(),
                }));
            }
            let fresh = self.activity(&project) != seen;
            if fresh || tokio::time::Instant::now() >= deadline {
                return Ok(self.latest_selection(&project, agent_id, session_id).await);
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return Ok(self.latest_selection(&project, agent_id, session_id).await);
            }
        }
    }

    fn activity(&self, project: &Path) -> u64 {
        self.state().activity.get(project).copied().unwrap_or(0)
    }

    fn take_delivery(&self, agent_id: &str, session_id: Option<&str>) -> Option<Delivery> {
        let mut st = self.state();
        let inbox = &mut st.agents.get_mut(agent_id)?.inbox;
        let at = inbox
            .iter()
            .position(|d| session_id.is_none_or(|s| s == d.session_id))?;
        inbox.remove(at)
    }

    async fn latest_selection(
        &self,
        project: &Path,
        agent_id: &str,
        session_id: Option<&str>,
    ) -> Option<UiContext> {
        let sessions = self.sessions_of(project, agent_id).await;
        let picked = self.state().picked.get(project).cloned();
        let chosen = session_id
            .map(str::to_string)
            .or(picked)
            .or_else(|| sessions.first().map(|s| s.session_id.clone()))?;
        let context = self.latest_context(&chosen).await?;
        Some(UiContext {
            session_id: chosen.clone(),
            context,
            user_message: None,
            other_sessions: sessions
                .into_iter()
                .filter(|s| s.session_id != chosen)
                .collect(),
        })
    }

    /// The tabs of a project, most recently active first.
    pub async fn sessions_of(&self, project: &Path, agent_id: &str) -> Vec<SessionInfo> {
        let ids = self.registry.sessions_of(project);
        let elsewhere = match &self.cluster {
            Some(c) => c.tabs_elsewhere(&ids).await,
            None => Vec::new(),
        };
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            // (connected here, last active, the pick kept here) and unread.
            let (here, unread) = {
                let st = self.state();
                let unread = st
                    .agents
                    .get(agent_id)
                    .is_some_and(|a| a.inbox.iter().any(|d| d.session_id == id));
                let here = st.sessions.get(&id).map(|s| {
                    let connected = s.conns.iter().any(|(_, t)| !t.is_closed());
                    (
                        connected,
                        s.last_active,
                        s.contexts.back().map(|c| c.pick.page.clone()),
                    )
                });
                (here, unread)
            };
            let connected = here.as_ref().is_some_and(|h| h.0) || elsewhere.contains(&id);
            let latest = match (&here, &self.cluster) {
                (Some((true, at, Some(page))), _) => Some((page.clone(), *at)),
                (_, Some(c)) => c.latest_page(&id).await,
                (_, None) => None,
            }
            .or_else(|| {
                self.files_for(Some(project))
                    .latest_context(&id)
                    .map(|c| (c.pick.page, c.timestamp))
            });
            let Some((page, timestamp)) = latest else {
                continue;
            };
            out.push(SessionInfo {
                has_unread_message: unread,
                connected,
                last_active: here.map_or(timestamp, |h| h.1.max(timestamp)),
                page_url: page.url,
                page_title: page.title,
                session_id: id,
            });
        }
        out.sort_by_key(|s| std::cmp::Reverse(s.last_active));
        out
    }

    /// `webfold ui N`: the tab agents of `project` read by default.
    pub fn pick(&self, project: &Path, session_id: &str) {
        self.state()
            .picked
            .insert(project.to_owned(), session_id.to_string());
    }

    /// Sends an answer (or a part of one) to the tab it answers.
    pub async fn respond(
        &self,
        agent_id: &str,
        session_id: &str,
        context_id: &str,
        message: &str,
        complete: bool,
    ) -> Result<bool, String> {
        let project = self.project_of_agent(agent_id)?;
        let known = self.state().sessions.contains_key(session_id)
            || self.registry.project_of(session_id).is_some();
        if !known {
            return Err(format!(
                "no tab has session {session_id}; list_sessions shows this project's tabs"
            ));
        }
        // A part goes out now (`Err`: whether it reached the tab here); the
        // last part completes the answer.
        let full = {
            let mut st = self.state();
            let session = st.sessions.entry(session_id.to_string()).or_default();
            if complete {
                let mut full = session.partial.remove(context_id).unwrap_or_default();
                full.push_str(message);
                Ok(full)
            } else {
                session
                    .partial
                    .entry(context_id.to_string())
                    .or_default()
                    .push_str(message);
                let frame = ServerFrame::AgentResponseChunk(AgentResponseChunk {
                    context_id: context_id.to_string(),
                    chunk: message.to_string(),
                });
                Err(self.send(&mut st, session_id, frame, true))
            }
        };
        let full = match full {
            Ok(full) => full,
            Err(here) => return Ok(here || self.is_elsewhere(session_id).await),
        };
        let stored = Message {
            id: 0,
            session_id: session_id.to_string(),
            role: Role::Assistant,
            content: full.clone(),
            context_id: Some(context_id.to_string()),
            agent_id: Some(agent_id.to_string()),
            timestamp: now_ms(),
        };
        self.history(&project)
            .map_err(|e| e.to_string())?
            .append(stored)
            .await
            .map_err(|e| e.to_string())?;
        let frame = ServerFrame::AgentResponse(AgentResponse {
            context_id: context_id.to_string(),
            message: full,
            is_complete: true,
            result: None,
        });
        let here = {
            let mut st = self.state();
            self.send(&mut st, session_id, frame, true)
        };
        Ok(here || self.is_elsewhere(session_id).await)
    }

    pub async fn update_status(
        &self,
        agent_id: &str,
        session_id: &str,
        status: Status,
        detail: Option<String>,
    ) -> Result<bool, String> {
        self.project_of_agent(agent_id)?;
        let frame = ServerFrame::StatusUpdate(StatusUpdate { status, detail });
        let here = {
            let mut st = self.state();
            self.send(&mut st, session_id, frame, false)
        };
        Ok(here || self.is_elsewhere(session_id).await)
    }

    pub async fn history_of(
        &self,
        agent_id: &str,
        session_id: &str,
        limit: usize,
    ) -> Result<Vec<HistoryMessage>, String> {
        let project = self.project_of_agent(agent_id)?;
        let h = self.history(&project).map_err(|e| e.to_string())?;
        let recent = h
            .recent(session_id, limit)
            .await
            .map_err(|e| e.to_string())?;
        Ok(recent
            .into_iter()
            .map(|m| HistoryMessage {
                role: match m.role {
                    Role::User => webfold_protocol::agent::Role::User,
                    Role::Assistant => webfold_protocol::agent::Role::Assistant,
                },
                content: m.content,
                context_id: m.context_id,
                timestamp: m.timestamp,
            })
            .collect())
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
        match &self.cluster {
            Some(c) => !c.tabs_elsewhere(&[session_id.to_string()]).await.is_empty(),
            None => false,
        }
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
