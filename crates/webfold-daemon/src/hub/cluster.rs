//! Several daemons on one PostgreSQL database (`webfold daemon --db
//! postgres://…`): a tab connected to one daemon talks to an agent connected
//! to another.
//!
//! The database holds what any daemon may need (history, tabs' projects,
//! picks, presence) and carries frames to the daemon that holds their tab.
//! Each daemon keeps its own sockets and routes as it does alone; where it
//! lacks a socket it writes to the database, and the daemon with the socket
//! hears a notification and reads the rows again. One task per daemon does
//! all of this in order: frames for one tab leave in the order they were
//! written and arrive in the order of their `seq`.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Weak};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;
use webfold_store::{
    ChatterEvent, ChatterEvents, ChatterStore, HEARTBEAT, Heard, History, Presence,
};

use super::transport::{Later, Transport};
use super::{Hub, RemoteAgent, rand_u16};
use crate::DaemonError;
use crate::project::{ProjectFiles, StoredContext};
use webfold_protocol::{HtmlReply, PageInfo, ServerFrame, SetContext};

/// How long an answer for a tab keeps being offered to a database that is
/// down before it is given up (the history still has it).
const DURABLE_RETRY: Duration = Duration::from_secs(30);

/// This daemon's link to the others.
pub struct Cluster {
    store: ChatterStore,
    jobs: mpsc::UnboundedSender<Job>,
}

/// The link's work queue, for its task.
pub(super) struct Jobs(mpsc::UnboundedReceiver<Job>);

enum Job {
    Push {
        session: String,
        frame: ServerFrame,
        durable: bool,
    },
    TabHere(String),
    TabGone(String),
    AgentGone(String),
    Reply {
        instance: String,
        session: String,
        reply: HtmlReply,
    },
}

/// A pick as the database keeps it: the frame the tab sent, so the agent's
/// daemon writes its own copy of the page, capture and screenshot.
#[derive(Serialize, Deserialize)]
struct SharedContext {
    context_id: String,
    timestamp: i64,
    frame: SetContext,
}

impl Cluster {
    pub(super) fn new(store: ChatterStore) -> (Cluster, Jobs) {
        let (jobs, queue) = mpsc::unbounded_channel();
        (Cluster { store, jobs }, Jobs(queue))
    }

    fn queue(&self, job: Job) {
        let _ = self.jobs.send(job);
    }
}

impl Transport for Cluster {
    fn history(
        &self,
        _files: &ProjectFiles,
        project: Option<&Path>,
    ) -> Result<History, DaemonError> {
        Ok(History::Shared {
            store: self.store.clone(),
            project: project.map(|p| p.display().to_string()),
        })
    }

    /// An agent's project may be a directory of another daemon's machine.
    fn projects_are_here(&self) -> bool {
        false
    }

    /// Written to the database for the daemon that holds the tab (or the
    /// next to); `queue`d frames are retried while the database is down.
    fn carry(&self, session: &str, frame: ServerFrame, queue: bool) -> Option<ServerFrame> {
        self.queue(Job::Push {
            session: session.to_string(),
            frame,
            durable: queue,
        });
        None
    }

    fn tab_here(&self, session: &str) {
        self.queue(Job::TabHere(session.to_string()));
    }

    fn tab_gone(&self, session: &str) {
        self.queue(Job::TabGone(session.to_string()));
    }

    /// Announced before it is listed anywhere.
    fn agent_here<'a>(
        &'a self,
        agent: &'a str,
        project: &'a Path,
        client: &'a str,
    ) -> Later<'a, Result<(), String>> {
        Box::pin(async move {
            let project = project.display().to_string();
            self.store
                .present(Presence::Agent, agent, Some(&project), Some(client))
                .await
                .map_err(|e| e.to_string())
        })
    }

    fn agent_gone(&self, agent: &str) {
        self.queue(Job::AgentGone(agent.to_string()));
    }

    fn request_id(&self, n: u64) -> String {
        format!("html-{}-{n}-{:04x}", self.store.instance(), rand_u16())
    }

    fn forward_reply(&self, session: &str, reply: &HtmlReply) -> bool {
        let Some(instance) = requester(&reply.request_id) else {
            return false;
        };
        if instance == self.store.instance() {
            return false;
        }
        self.queue(Job::Reply {
            instance: instance.to_string(),
            session: session.to_string(),
            reply: reply.clone(),
        });
        true
    }

    fn shares_picks(&self) -> bool {
        true
    }

    /// Kept as the frame the tab sent, so the reading daemon writes its own
    /// copy of the page, capture and screenshot.
    fn share_context<'a>(
        &'a self,
        session: &'a str,
        stored: &'a StoredContext,
        frame: SetContext,
        project: Option<&'a Path>,
    ) -> Later<'a, Result<(), String>> {
        Box::pin(async move {
            let record = SharedContext {
                context_id: stored.context_id.clone(),
                timestamp: stored.timestamp,
                frame,
            };
            let json = serde_json::to_string(&record).map_err(|e| e.to_string())?;
            let project = project.map(|p| p.display().to_string());
            self.store
                .put_context(
                    session,
                    &stored.context_id,
                    project.as_deref(),
                    &json,
                    stored.timestamp,
                )
                .await
                .map_err(|e| e.to_string())
        })
    }

    fn fetch_context<'a>(
        &'a self,
        files: &'a ProjectFiles,
        session: &'a str,
        context_id: Option<&'a str>,
    ) -> Later<'a, Option<StoredContext>> {
        Box::pin(async move {
            let record = match context_id {
                Some(id) => self.store.context(session, id).await,
                None => self.store.latest_context(session).await,
            }
            .ok()??;
            let shared: SharedContext = serde_json::from_str(&record).ok()?;
            if let Some(kept) = files.load_context(session, &shared.context_id) {
                return Some(kept);
            }
            files
                .store_context(session, &shared.context_id, shared.frame, shared.timestamp)
                .await
                .ok()
        })
    }

    fn bind<'a>(&'a self, session: &'a str, project: &'a Path) -> Later<'a, Result<(), String>> {
        Box::pin(async move {
            self.store
                .bind(session, &project.display().to_string())
                .await
                .map_err(|e| e.to_string())
        })
    }

    fn tabs_elsewhere<'a>(&'a self, sessions: &'a [String]) -> Later<'a, Vec<String>> {
        Box::pin(async move {
            if sessions.is_empty() {
                return Vec::new();
            }
            self.store
                .tabs_elsewhere(sessions)
                .await
                .unwrap_or_default()
        })
    }

    fn latest_page<'a>(&'a self, session: &'a str) -> Later<'a, Option<(PageInfo, i64)>> {
        Box::pin(async move {
            let record = self.store.latest_context(session).await.ok()??;
            let shared: SharedContext = serde_json::from_str(&record).ok()?;
            Some((shared.frame.page, shared.timestamp))
        })
    }

    /// The others stop listing this daemon's tabs and agents at once.
    fn leave(&self) -> Later<'_, ()> {
        Box::pin(async move {
            let _ = self.store.leave().await;
        })
    }
}

/// The daemon a request id names (`html-<instance>-<n>-<tag>`).
fn requester(request_id: &str) -> Option<&str> {
    let instance = request_id.strip_prefix("html-")?.split('-').next()?;
    (instance.len() == 12 && instance.bytes().all(|b| b.is_ascii_hexdigit())).then_some(instance)
}

/// Starts listening, reads what the others hold, and starts the link's task.
pub(super) async fn join(
    hub: &Arc<Hub>,
    store: ChatterStore,
    jobs: Jobs,
) -> Result<(), DaemonError> {
    let mut events = store.events();
    if !events.wait_listening(Duration::from_secs(10)).await {
        return Err(DaemonError::Setup(format!(
            "cannot listen for the other daemons' events at {}; is PostgreSQL running?",
            store.url()
        )));
    }
    read_bindings(hub, &store)
        .await
        .map_err(DaemonError::Store)?;
    read_agents(hub, &store).await;
    tokio::spawn(run(Arc::downgrade(hub), store, jobs, events));
    Ok(())
}

async fn run(hub: Weak<Hub>, store: ChatterStore, mut jobs: Jobs, mut events: ChatterEvents) {
    let mut beat = tokio::time::interval(HEARTBEAT);
    beat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            job = jobs.0.recv() => {
                let (Some(job), Some(hub)) = (job, hub.upgrade()) else { return };
                do_job(&hub, &store, job).await;
            }
            heard = events.next() => {
                let (Some(heard), Some(hub)) = (heard, hub.upgrade()) else { return };
                on_heard(&hub, &store, heard).await;
            }
            _ = beat.tick() => {
                let Some(hub) = hub.upgrade() else { return };
                let _ = store.heartbeat().await;
                read_agents(&hub, &store).await;
            }
        }
    }
}

async fn do_job(hub: &Hub, store: &ChatterStore, job: Job) {
    match job {
        Job::Push {
            session,
            frame,
            durable,
        } => {
            let text = serde_json::to_string(&frame).unwrap_or_default();
            let give_up = tokio::time::Instant::now() + DURABLE_RETRY;
            let mut pause = Duration::from_millis(100);
            while let Err(e) = store.push_frame(&session, &text, durable).await {
                if !durable || tokio::time::Instant::now() + pause > give_up {
                    eprintln!("webfold daemon: a frame for tab {session} was not passed on: {e}");
                    break;
                }
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(Duration::from_secs(2));
            }
        }
        Job::TabHere(session) => {
            let _ = store.present(Presence::Tab, &session, None, None).await;
            deliver(hub, store, &session, true).await;
        }
        Job::TabGone(session) => {
            if !hub.is_here(&session) {
                let _ = store.absent(Presence::Tab, &session).await;
            }
        }
        Job::AgentGone(agent) => {
            if !hub.state().agents.contains_key(&agent) {
                let _ = store.absent(Presence::Agent, &agent).await;
            }
        }
        Job::Reply {
            instance,
            session,
            reply,
        } => {
            let text = serde_json::to_string(&reply).unwrap_or_default();
            let _ = store
                .put_reply(&reply.request_id, &instance, &session, &text)
                .await;
        }
    }
}

async fn on_heard(hub: &Hub, store: &ChatterStore, heard: Heard) {
    let event = match heard {
        Heard::Missed => return catch_up(hub, store).await,
        Heard::Event { own, event } => match event {
            // Own frames are read like anyone's (the tab may have connected
            // here since); an own message is in its local agent's inbox
            // already.
            e @ ChatterEvent::Frame { .. } => e,
            _ if own => return,
            e => e,
        },
    };
    match event {
        ChatterEvent::Frame { session, .. } => {
            if hub.is_here(&session) {
                deliver(hub, store, &session, false).await;
            }
        }
        ChatterEvent::Message { agent } => hub.refill_inbox(&agent).await,
        ChatterEvent::Bound { session, project } => {
            let _ = hub.registry.bind(&session, Path::new(&project));
        }
        ChatterEvent::Context { project, .. } => {
            if let Some(p) = project {
                *hub.state().activity.entry(PathBuf::from(p)).or_default() += 1;
                hub.changed.notify_waiters();
            }
        }
        ChatterEvent::Presence => read_agents(hub, store).await,
        ChatterEvent::Reply { request, instance } => {
            if instance != store.instance() {
                return;
            }
            if let Ok(Some((session, text))) = store.take_reply(&request).await
                && let Ok(reply) = serde_json::from_str::<HtmlReply>(&text)
            {
                // No waiter left (it timed out): nothing to do.
                let _ = hub.html_reply(&session, reply);
            }
        }
    }
}

/// After lost notifications: everything that may have been missed, read again.
async fn catch_up(hub: &Hub, store: &ChatterStore) {
    let _ = read_bindings(hub, store).await;
    read_agents(hub, store).await;
    let (agents, tabs): (Vec<String>, Vec<String>) = {
        let st = hub.state();
        (
            st.agents.keys().cloned().collect(),
            st.sessions.keys().cloned().collect(),
        )
    };
    for agent in agents {
        hub.refill_inbox(&agent).await;
    }
    for tab in tabs {
        if hub.is_here(&tab) {
            deliver(hub, store, &tab, false).await;
        }
    }
    hub.changed.notify_waiters();
}

async fn read_bindings(hub: &Hub, store: &ChatterStore) -> Result<(), String> {
    let all = store.bindings().await.map_err(|e| e.to_string())?;
    hub.registry
        .bind_all(all.into_iter().map(|(s, p)| (s, PathBuf::from(p))))
        .map_err(|e| e.to_string())
}

/// The other daemons' agents; the tabs here are told when that changes.
async fn read_agents(hub: &Hub, store: &ChatterStore) {
    let Ok(present) = store.agents_elsewhere().await else {
        return;
    };
    let agents = present
        .into_iter()
        .map(|a| {
            let agent = RemoteAgent {
                project: PathBuf::from(a.project),
                client: a.client,
            };
            (a.agent_id, agent)
        })
        .collect();
    let mut st = hub.state();
    if st.remote_agents != agents {
        st.remote_agents = agents;
        hub.broadcast_agents(&mut st);
    }
}

/// Sends a tab here the frames the database holds for it, in `seq` order;
/// `fresh` (the tab just connected) leaves out those that were only news.
async fn deliver(hub: &Hub, store: &ChatterStore, session: &str, fresh: bool) {
    let after = hub
        .state()
        .sessions
        .get(session)
        .map_or(0, |s| s.delivered_seq);
    let Ok(frames) = store.frames_after(session, after).await else {
        return;
    };
    let Some(newest) = frames.last().map(|f| f.0) else {
        return;
    };
    let mut last = after;
    {
        let mut st = hub.state();
        for (seq, text, durable) in frames {
            if fresh && !durable {
                last = seq;
                continue;
            }
            if let Ok(frame) = serde_json::from_str::<ServerFrame>(&text)
                && !Hub::send_here(&mut st, session, &frame)
            {
                // The tab went away: the rest wait for its next socket.
                break;
            }
            last = seq;
        }
        st.sessions
            .entry(session.to_string())
            .or_default()
            .delivered_seq = last;
    }
    if last > after {
        let _ = store.drop_frames(session, last.min(newest)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::requester;

    #[test]
    fn request_ids_name_their_daemon() {
        assert_eq!(requester("html-0123456789ab-7-00ff"), Some("0123456789ab"));
        for alone in ["html-7-00ff", "html-", "ctx-1", "html-0123456789ag-7-00ff"] {
            assert_eq!(requester(alone), None, "{alone}");
        }
    }
}
