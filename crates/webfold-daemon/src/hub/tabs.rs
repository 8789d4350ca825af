//! The extension's side: tab sockets, the picks they send, and every
//! frame out to a tab (queued while the tab is offline).

use std::path::Path;

use webfold_protocol::{
    AgentInfo, Agents, ContextStored, GetView, PROTOCOL_VERSION, ServerFrame, SetContext,
    StoredContext, ViewFrame,
};

use super::{Hub, MAX_OUTBOX, Outbound, State, error, now_ms, rand_u16};
use crate::DaemonError;

impl Hub {
    pub(super) fn agents_frame(&self, state: &State, session_id: &str) -> ServerFrame {
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

    /// Sends to every socket of a tab here. With none, and other daemons,
    /// the database carries it to the daemon that holds the tab (or to the
    /// one it connects to next, when `queue`); alone, this daemon keeps it
    /// for the tab's next socket (`queue`) or drops it (status updates are
    /// only news while they last).
    pub(super) fn send(
        &self,
        state: &mut State,
        session_id: &str,
        frame: ServerFrame,
        queue: bool,
    ) -> bool {
        if Self::send_here(state, session_id, &frame) {
            return true;
        }
        let Some(frame) = self.transport.carry(session_id, frame, queue) else {
            return false;
        };
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
    pub(super) fn send_here(state: &mut State, session_id: &str, frame: &ServerFrame) -> bool {
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

    pub(super) fn broadcast_agents(&self, state: &mut State) {
        let ids: Vec<String> = state.sessions.keys().cloned().collect();
        // Each daemon tells its own tabs.
        for id in ids {
            let frame = self.agents_frame(state, &id);
            Self::send_here(state, &id, &frame);
        }
    }

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
        self.transport.tab_here(session_id);
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
            self.transport.tab_gone(session_id);
            st.waiting.retain(|_, w| w.session_id != session_id);
            if let Some(runs) = st.sessions.get_mut(session_id).and_then(|s| s.runs.take()) {
                runs.cancel();
            }
        }
    }

    /// Sends a frame to a tab; `queue` keeps it for a tab that is offline.
    pub(crate) fn tell(&self, session_id: &str, frame: ServerFrame, queue: bool) {
        let mut st = self.state();
        self.send(&mut st, session_id, frame, queue);
    }

    /// The side panel's view of the page this tab captured last.
    pub async fn page_view(&self, session_id: &str, req: GetView) -> ServerFrame {
        let latest = self.latest_capture(session_id);
        let answer = |tokens, lines, url, error| {
            ServerFrame::View(Box::new(ViewFrame {
                request_id: req.request_id.clone(),
                view: req.view.clone(),
                tokens,
                url,
                lines,
                error,
            }))
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
        let name = req.view.clone();
        let made = tokio::task::spawn_blocking(move || {
            let page =
                crate::page_view::load(latest.html_path.as_deref(), latest.dom_path.as_deref())?;
            crate::page_view::render(&page, &name)
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
        let shared = self.transport.shares_picks().then(|| ctx.clone());
        let stored = match files
            .store_context(session_id, &context_id, ctx, now_ms())
            .await
        {
            Ok(s) => s,
            Err(DaemonError::Input(e)) => return error("bad_frame", e),
            Err(e) => return error("storage", e.to_string()),
        };
        if let Some(frame) = shared
            && let Err(e) = self
                .transport
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

    /// A pick of a tab: kept here, or (with other daemons) one another
    /// daemon stored, written here on first use.
    pub(super) async fn context(
        &self,
        session_id: &str,
        context_id: &str,
    ) -> Option<StoredContext> {
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
        self.transport
            .fetch_context(&files, session_id, Some(context_id))
            .await
    }

    /// A tab's latest pick: with other daemons, the database knows it.
    pub(super) async fn latest_context(&self, session_id: &str) -> Option<StoredContext> {
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
        if let Some(found) = self.transport.fetch_context(&files, session_id, None).await {
            return Some(found);
        }
        files.latest_context(session_id)
    }
}
