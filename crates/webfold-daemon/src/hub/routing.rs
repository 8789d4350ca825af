//! Which agent a user message goes to (the rules in the module above).
//! An agent's answer goes to the tab whose message it answers (`answers`).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use webfold_agent::CancellationToken;
use webfold_store::{Message, Role};

use super::{Delivery, Hub, State, Unrouted, error, message_id, now_ms};
use crate::builtin::{AGENT_ID, Ask, BuiltinAgent};
use webfold_protocol::{MessageStored, MessageWaiting, ServerFrame, UserMessage};

/// Where a user message goes.
pub(super) enum Route {
    Coding(String, PathBuf),
    Builtin(Arc<BuiltinAgent>),
}

/// Why a user message has no agent yet.
pub(super) enum NoRoute {
    /// No agent is connected at all: the message waits for the next one.
    Nobody,
    /// The user must choose, or named one that is gone: the frame says so.
    Refused(ServerFrame),
}

impl Hub {
    pub(super) fn route(&self, session_id: &str, named: Option<&str>) -> Result<Route, NoRoute> {
        let st = self.state();
        let project_of = |id: &str| match self.builtin(id) {
            Some(agent) => Some(Route::Builtin(agent)),
            None => Self::project_of_any(&st, id).map(|p| Route::Coding(id.to_string(), p)),
        };
        if let Some(id) = named {
            return project_of(id).ok_or_else(|| {
                NoRoute::Refused(error(
                    "unknown_agent",
                    format!("no agent {id} is connected; choose one from the agents list"),
                ))
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
            (None, _) => Err(NoRoute::Nobody),
            (Some(only), None) => Ok(only),
            _ => Err(NoRoute::Refused(error(
                "choose_agent",
                format!("{count} agents are connected: choose one (select_agent or agentId)"),
            ))),
        }
    }

    /// A message sent while no agent is connected: stored in the tab's
    /// history and kept for the next agent to connect (of the tab's project,
    /// when it has one), which gets it pushed; the tab is told it waits.
    async fn keep_for_next_agent(&self, session_id: &str, m: UserMessage) -> ServerFrame {
        let timestamp = now_ms();
        let project = self.registry.project_of(session_id);
        let stored = user_record(session_id, &m.message, &m.context_id, None, timestamp);
        let appended = match self.history_in(&self.files_of(session_id), project.as_deref()) {
            Ok(h) => h.append(stored).await.map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        let history_id = match appended {
            Ok(id) => id,
            Err(e) => return error("storage", e),
        };
        let mut st = self.state();
        st.unrouted.push(Unrouted {
            delivery: Delivery {
                history_id,
                session_id: session_id.to_string(),
                context_id: m.context_id.clone(),
                message: m.message,
                timestamp,
            },
            project,
        });
        st.sessions
            .entry(session_id.to_string())
            .or_default()
            .last_active = timestamp;
        ServerFrame::MessageWaiting(MessageWaiting {
            context_id: m.context_id,
            message_id: message_id(history_id, timestamp),
        })
    }

    /// Gives an agent that just connected the messages kept for it: those
    /// of tabs of its project, and of tabs with none (which join it).
    pub(super) async fn hand_unrouted(&self, agent_id: &str) {
        let Ok(project) = self.project_of_agent(agent_id) else {
            return;
        };
        let mine: Vec<Unrouted> = {
            let mut st = self.state();
            let (mine, rest) = std::mem::take(&mut st.unrouted)
                .into_iter()
                .partition(|u| u.project.as_ref().is_none_or(|p| *p == project));
            st.unrouted = rest;
            mine
        };
        if mine.is_empty() {
            return;
        }
        let mut handed = Vec::with_capacity(mine.len());
        for mut u in mine {
            if u.project.is_some() || self.move_into(&project, agent_id, &mut u.delivery).await {
                handed.push(u);
            } else {
                // Not copied: kept for the next agent rather than marked read in the wrong file.
                self.state().unrouted.push(u);
            }
        }
        let mut st = self.state();
        for u in handed {
            let d = u.delivery;
            let told = ServerFrame::MessageStored(MessageStored {
                context_id: d.context_id.clone(),
                agent_id: agent_id.to_string(),
                message_id: d.message_id(),
            });
            let session = d.session_id.clone();
            if let Some(agent) = st.agents.get_mut(agent_id) {
                agent.inbox.push_back(d);
            }
            drop(st);
            self.tell(&session, told, true);
            st = self.state();
        }
        *st.activity.entry(project).or_default() += 1;
        drop(st);
        self.changed.notify_waiters();
    }

    /// A kept message of a tab with no project joins `project`: the tab is
    /// bound to it and the message copied into its history (whose ids the
    /// agent marks read), under its new id.
    async fn move_into(&self, project: &Path, agent_id: &str, d: &mut Delivery) -> bool {
        if self.bind(&d.session_id, project).await.is_err() {
            return false;
        }
        let copy = user_record(
            &d.session_id,
            &d.message,
            &d.context_id,
            Some(agent_id),
            d.timestamp,
        );
        match self.history(project) {
            Ok(h) => match h.append(copy).await {
                Ok(id) => {
                    d.history_id = id;
                    true
                }
                Err(_) => false,
            },
            Err(_) => false,
        }
    }

    /// Routes a user message to one agent, stores it, and says so.
    pub async fn user_message(&self, session_id: &str, m: UserMessage) -> ServerFrame {
        if self.context(session_id, &m.context_id).await.is_none() {
            return error(
                "unknown_context",
                format!(
                    "context {} is not one of this tab's selections; pick the element again",
                    m.context_id
                ),
            );
        }
        let route = match self.route(session_id, m.agent_id.as_deref()) {
            Ok(r) => r,
            Err(NoRoute::Nobody) => return self.keep_for_next_agent(session_id, m).await,
            Err(NoRoute::Refused(frame)) => return frame,
        };
        let (agent_id, project) = match route {
            Route::Coding(id, project) => (id, project),
            Route::Builtin(agent) => return self.ask_builtin(session_id, m, agent).await,
        };
        if let Err(e) = self.bind(session_id, &project).await {
            return error("storage", e);
        }
        let timestamp = now_ms();
        let stored = user_record(
            session_id,
            &m.message,
            &m.context_id,
            Some(&agent_id),
            timestamp,
        );
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
            message_id: message_id(history_id, timestamp),
        })
    }

    /// A message for the built-in agent: stored in the tab's history, then
    /// answered by a run of its own, cancelled if the tab goes away.
    pub(super) async fn ask_builtin(
        &self,
        session_id: &str,
        m: UserMessage,
        agent: Arc<BuiltinAgent>,
    ) -> ServerFrame {
        let message_id = match self
            .remember(session_id, Role::User, &m.message, &m.context_id)
            .await
        {
            Ok(id) => id,
            Err(e) => return error("storage", e),
        };
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
                message_id: message_id.clone(),
                message: m.message,
            };
            tokio::spawn(crate::builtin::answer(hub, agent, ask, cancel));
        }
        ServerFrame::MessageStored(MessageStored {
            context_id: m.context_id,
            agent_id: AGENT_ID.into(),
            message_id,
        })
    }

    /// Keeps one message of a conversation with the built-in agent in the
    /// tab's history (its project's, when it has one); its message id.
    pub(crate) async fn remember(
        &self,
        session_id: &str,
        role: Role,
        content: &str,
        context_id: &str,
    ) -> Result<String, String> {
        let timestamp = now_ms();
        let stored = Message {
            id: 0,
            session_id: session_id.to_string(),
            role,
            content: content.to_string(),
            context_id: Some(context_id.to_string()),
            agent_id: Some(AGENT_ID.into()),
            timestamp,
        };
        let history = self
            .history_in(
                &self.files_of(session_id),
                self.registry.project_of(session_id).as_deref(),
            )
            .map_err(|e| e.to_string())?;
        let id = history.append(stored).await.map_err(|e| e.to_string())?;
        Ok(message_id(id, timestamp))
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

    /// The project a tab belongs to: its registered one, else the project
    /// of the only connected agents (so a lone agent just works).
    pub(super) async fn bind_default(&self, session_id: &str) -> Result<Option<PathBuf>, String> {
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
    pub(super) async fn bind(&self, session_id: &str, project: &Path) -> Result<(), String> {
        self.transport.bind(session_id, project).await?;
        self.registry
            .bind(session_id, project)
            .map_err(|e| e.to_string())
    }

    /// The project of a connected agent, here or at another daemon.
    pub(super) fn project_of_any(state: &State, agent_id: &str) -> Option<PathBuf> {
        state
            .agents
            .get(agent_id)
            .map(|a| a.project.clone())
            .or_else(|| state.remote_agents.get(agent_id).map(|a| a.project.clone()))
    }
}

/// A user message as the tab's history keeps it (for `agent_id`, or none
/// while it waits for an agent).
fn user_record(
    session_id: &str,
    content: &str,
    context_id: &str,
    agent_id: Option<&str>,
    timestamp: i64,
) -> Message {
    Message {
        id: 0,
        session_id: session_id.to_string(),
        role: Role::User,
        content: content.to_string(),
        context_id: Some(context_id.to_string()),
        agent_id: agent_id.map(String::from),
        timestamp,
    }
}
