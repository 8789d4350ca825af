//! The agents' side: agents connecting and leaving, their inboxes, and
//! what `get_ui_context` and `list_sessions` read.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};

use webfold_protocol::StoredContext;
use webfold_protocol::agent::{History, HistoryMessage, SessionInfo, UiContext};
use webfold_protocol::{GetHistory, MAX_HISTORY, ServerFrame};
use webfold_store::Role;

use super::{Agent, Delivery, Hub};
use crate::builtin::AGENT_ID;

impl Hub {
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
        self.transport
            .agent_here(agent_id, &project, &client)
            .await?;
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
        self.hand_unrouted(agent_id).await;
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

    /// An agent's link dropped: it leaves every tab's agents list, and
    /// the answers it left open are closed.
    pub async fn disconnect_agent(&self, agent_id: &str) {
        if self.state().agents.remove(agent_id).is_none() {
            return;
        }
        self.transport.agent_gone(agent_id);
        // Its `next_message` waits end now rather than at their deadline.
        self.changed.notify_waiters();
        self.close_answers_of(agent_id).await;
    }

    /// The project an agent announced.
    pub fn agent_project(&self, agent_id: &str) -> Result<PathBuf, String> {
        self.project_of_agent(agent_id)
    }

    pub(super) fn project_of_agent(&self, agent_id: &str) -> Result<PathBuf, String> {
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
                return Ok(self.deliver(&project, d).await);
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

    /// The next message for `agent_id`, waiting up to `wait` for one; what
    /// an agent process pushes to its client. Unlike `get_ui_context`, a
    /// new pick does not end the wait: only a message does.
    pub async fn next_message(
        &self,
        agent_id: &str,
        wait: std::time::Duration,
    ) -> Result<Option<UiContext>, String> {
        let project = self.project_of_agent(agent_id)?;
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let notified = self.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if let Some(d) = self.take_delivery(agent_id, None) {
                // A message whose pick is gone cannot be shown: the next one can.
                match self.deliver(&project, d).await {
                    Some(v) => return Ok(Some(v)),
                    None => continue,
                }
            }
            // The agent left (its socket closed): nothing more comes for it.
            self.project_of_agent(agent_id)?;
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return Ok(None);
            }
        }
    }

    /// A message taken from an inbox, as the agent reads it: marked
    /// delivered (it is never the next message again, after a restart
    /// either) and remembered as asked in its tab (so it can be answered).
    async fn deliver(&self, project: &Path, d: Delivery) -> Option<UiContext> {
        if let Ok(h) = self.history(project) {
            let _ = h.mark_delivered(d.history_id).await;
        }
        let message_id = d.message_id();
        self.asked(&d.session_id, message_id.clone(), d.context_id.clone());
        let context = self.context(&d.session_id, &d.context_id).await?;
        Some(UiContext {
            session_id: d.session_id,
            context: StoredContext {
                timestamp: d.timestamp,
                ..context
            },
            user_message: Some(d.message),
            message_id: Some(message_id),
            other_sessions: Vec::new(),
        })
    }

    pub(super) fn activity(&self, project: &Path) -> u64 {
        self.state().activity.get(project).copied().unwrap_or(0)
    }

    pub(super) fn take_delivery(
        &self,
        agent_id: &str,
        session_id: Option<&str>,
    ) -> Option<Delivery> {
        let mut st = self.state();
        let inbox = &mut st.agents.get_mut(agent_id)?.inbox;
        let at = inbox
            .iter()
            .position(|d| session_id.is_none_or(|s| s == d.session_id))?;
        inbox.remove(at)
    }

    pub(super) async fn latest_selection(
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
            message_id: None,
            other_sessions: sessions
                .into_iter()
                .filter(|s| s.session_id != chosen)
                .collect(),
        })
    }

    /// The tabs of a project, most recently active first.
    pub async fn sessions_of(&self, project: &Path, agent_id: &str) -> Vec<SessionInfo> {
        let ids = self.registry.sessions_of(project);
        let elsewhere = self.transport.tabs_elsewhere(&ids).await;
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
            let latest = match &here {
                Some((true, at, Some(page))) => Some((page.clone(), *at)),
                _ => self.transport.latest_page(&id).await,
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

    pub async fn history_of(
        &self,
        agent_id: &str,
        session_id: &str,
        limit: usize,
    ) -> Result<Vec<HistoryMessage>, String> {
        let project = self.project_of_agent(agent_id)?;
        let h = self.history(&project).map_err(|e| e.to_string())?;
        recent_messages(&h, session_id, limit).await
    }

    /// A tab's own earlier conversation, for a panel that lost its copy (a
    /// browser restart): wherever the tab's project keeps it.
    pub async fn tab_history(&self, session_id: &str, req: GetHistory) -> ServerFrame {
        let limit = req.limit.unwrap_or(MAX_HISTORY).clamp(1, MAX_HISTORY) as usize;
        let project = self.registry.project_of(session_id);
        let files = self.files_for(project.as_deref());
        let recent = match self.history_in(&files, project.as_deref()) {
            Ok(h) => recent_messages(&h, session_id, limit).await,
            Err(e) => Err(e.to_string()),
        };
        match recent {
            Ok(messages) => ServerFrame::History(History { messages }),
            Err(e) => super::error(
                "history_failed",
                format!("could not read this tab's earlier messages: {e}"),
            ),
        }
    }
}

/// The latest `limit` messages of a tab, oldest first, as agents and the
/// panel read them.
async fn recent_messages(
    h: &webfold_store::History,
    session_id: &str,
    limit: usize,
) -> Result<Vec<HistoryMessage>, String> {
    let recent = h
        .recent(session_id, limit)
        .await
        .map_err(|e| e.to_string())?;
    Ok(recent
        .into_iter()
        .map(|m| HistoryMessage {
            message_id: (m.role == Role::User).then(|| super::message_id(m.id, m.timestamp)),
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
